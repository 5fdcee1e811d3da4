"""OpenAI request fields -> vLLM ``SamplingParams`` fields (spec 1.6), on plain data.

Why a module of its own: the mapping decides what the engine does (temperature, limits, stop
ids, structured outputs) and it must equal vLLM's ``to_sampling_params`` so a request behaves the
same on tito + engine as on a coupled vLLM server. Inputs are read by attribute or key, so the
functions work on the pydantic requests and on plain dicts alike.

Rules, in the order they apply:

* **Precedence** for ``repetition_penalty, presence_penalty, frequency_penalty, temperature,
  top_p, top_k, min_p``: the request's value, else the server default (``default_sampling``,
  a model's generation config), else OpenAI's default. Only values that differ from vLLM's
  dataclass defaults reach the wire (``SamplingParams.to_wire``).
* **Stops**: ``stop`` strings are NOT sent to the engine (a tokens-only engine rejects them);
  they travel to derender. ``stop_token_ids`` are sent, merged with server-default ids (order
  kept, no duplicates).
* **Logprobs**: chat sends ``top_logprobs`` when ``logprobs`` is true (and no
  ``logprob_token_ids``); completions sends ``logprobs``. ``prompt_logprobs`` falls back to those
  when ``echo``. Counts above the model's ``max_logprobs`` are a 400.
* **max_tokens** (:func:`resolve_max_tokens`): the requested value (chat:
  ``max_completion_tokens`` else ``max_tokens``; completions: ``max_tokens``, 16 by default),
  else all the room left in ``max_model_len``; a request asking for more than the room left
  gets the room (vLLM 0.33's ``get_max_tokens`` clamps it). A prompt leaving no room is a 400
  naming both lengths.
* **Structured outputs** (:func:`structured_outputs_for`): ``response_format`` ``json_schema`` ->
  ``json``, ``json_object`` -> ``json_object``, ``structural_tag`` -> ``structural_tag``;
  ``tool_choice`` ``"required"`` -> a JSON schema for a non-empty array of ``{name, parameters}``
  (at most one item when ``parallel_tool_calls`` is false), a named tool -> that tool's
  parameters schema (replacing any other constraint, as vLLM's tool parsers do).
* **Passthrough**: ``output_kind`` DELTA when streaming else FINAL_ONLY; ``skip_clone`` true;
  ``vllm_xargs`` plus ``kv_transfer_params``/``ec_transfer_params`` into ``extra_args``.
"""

from __future__ import annotations

import math

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from tito.core.structured_outputs import (  # public names here too
    mistral_calls_schema,
    structured_outputs_for,
)
from tito.errors import BadRequest, quote

#: vLLM's ``VLLM_MAX_N_SEQUENCES`` default: the most choices one request may ask for.
MAX_N_SEQUENCES = 16384

__all__ = [
    "OPENAI_SAMPLING_DEFAULTS",
    "OUTPUT_KIND_DELTA",
    "OUTPUT_KIND_FINAL_ONLY",
    "check_output_budget",
    "resolve_max_tokens",
    "sampling_fields",
    "structured_outputs_for",
]

#: OpenAI's defaults for the fields a server default may override (vLLM's ``_DEFAULT_SAMPLING_PARAMS``).
OPENAI_SAMPLING_DEFAULTS: dict[str, float | int] = {
    "repetition_penalty": 1.0,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
    "temperature": 1.0,
    "top_p": 1.0,
    "top_k": 0,
    "min_p": 0.0,
}

OUTPUT_KIND_DELTA = 1
OUTPUT_KIND_FINAL_ONLY = 2

_MISSING = object()


def _get(source: Any, name: str, default: Any = None) -> Any:
    """A field of a pydantic request, any object, or a mapping (missing -> ``default``)."""
    if type(source) is dict:
        return source.get(name, default)
    value = getattr(source, name, _MISSING)  # before the Mapping check: an ABC check is slow
    if value is not _MISSING:
        return value
    if isinstance(source, Mapping):
        return source.get(name, default)
    extra = getattr(source, "model_extra", None) or {}
    return extra.get(name, default)


def _reader(source: Any) -> Callable[..., Any]:
    """``_get`` bound to ``source``, as one dict lookup per field for a pydantic request (its
    fields over its extras, as ``getattr`` finds them): the sampling mapping reads ~30 fields."""
    if type(source) is dict:
        return source.get
    extra = getattr(source, "__pydantic_extra__", _MISSING)
    if extra is not _MISSING and type(getattr(source, "__dict__", None)) is dict:
        return {**(extra or {}), **source.__dict__}.get
    return lambda name, default=None: _get(source, name, default)


# ------------------------------------------------------------------------------------------
# Lengths
# ------------------------------------------------------------------------------------------


def check_output_budget(max_model_len: int, requested: int | None, param: str) -> int:
    """Validate a requested output length before tokenizing; return the prompt token budget:
    ``max_model_len`` (vLLM 0.33 reserves no output room for the prompt; the output is clamped
    to what the prompt leaves, :func:`resolve_max_tokens`).

    Why before: a request that can never fit is refused without rendering anything.
    """
    if requested is None:
        return max_model_len
    if requested < 1:
        raise BadRequest(f"{param} must be at least 1, got {requested}.", param=param)
    if requested > max_model_len:
        raise BadRequest(
            f"{param}={requested} cannot be greater than max_model_len={max_model_len}. "
            "Please request fewer output tokens.",
            param=param,
        )
    return max_model_len


def resolve_max_tokens(
    *,
    max_model_len: int,
    prompt_tokens: int,
    requested: int | None,
    param: str = "max_tokens",
    prompt_param: str = "messages",
    default: int | None = None,
    cap: int | None = None,
) -> int:
    """The ``max_tokens`` to send: the request's, else the server's ``default`` (a generation
    config's ``max_new_tokens``), else all the room the prompt leaves; never above ``cap``
    (vLLM 0.33's ``override_max_tokens``: ``--override-generation-config``'s
    ``max_new_tokens``) nor the room (vLLM's ``get_max_tokens``).

    Raises ``BadRequest`` naming the prompt length and ``max_model_len`` when the prompt leaves
    no room; a request for more than the room left gets the room, as vLLM 0.33 clamps it.
    """
    room = max_model_len - prompt_tokens
    if room <= 0:
        raise BadRequest(
            f"The prompt is {prompt_tokens} tokens long, which leaves no room to generate within "
            f"the model's context length of {max_model_len} tokens (max_model_len). "
            "Please reduce the length of the input prompt.",
            param=prompt_param,
        )
    wanted = requested if requested is not None else default
    return min(v for v in (room, wanted, cap) if v is not None)


# ------------------------------------------------------------------------------------------
# Sampling params
# ------------------------------------------------------------------------------------------


def _check_ids(ids: Sequence[int], vocab_size: int | None, param: str) -> None:
    if vocab_size is None:
        return
    bad = [i for i in ids if not 0 <= i < vocab_size]
    if bad:
        raise BadRequest(
            f"{param} contains token ids outside the vocabulary (size {vocab_size}): {bad[:10]}.",
            param=param,
        )


#: below this temperature vLLM samples greedily (``_SAMPLING_EPS``)
_GREEDY_EPS = 1e-5


def _check_logprobs(count: int | None, max_logprobs: int | None, param: str) -> None:
    if count is None or max_logprobs is None or max_logprobs == -1:
        return
    if count == -1 or count > max_logprobs:
        shown = "all (-1)" if count == -1 else count
        raise BadRequest(
            f"Requested {param} of {shown}, which is greater than max allowed: {max_logprobs}.",
            param=param,
        )


def sampling_fields(
    request: Any,
    *,
    kind: Literal["chat", "completion"],
    max_tokens: int,
    default_sampling: Mapping[str, Any] | None = None,
    structured_outputs: Mapping[str, Any] | None = None,
    skip_special_tokens: bool | None = None,
    spaces_between_special_tokens: bool | None = None,
    vocab_size: int | None = None,
    max_logprobs: int | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``SamplingParams`` from an OpenAI chat or completions request.

    ``structured_outputs`` is the already-resolved constraint (:func:`structured_outputs_for`);
    ``skip_special_tokens`` overrides the request's flag when a tool parser needs the special
    tokens kept, ``spaces_between_special_tokens`` when it needs its markers' tokens joined.
    ``stop`` strings are deliberately absent (see the module docstring).
    """
    defaults = default_sampling or {}
    get = _reader(request)
    fields: dict[str, Any] = {}
    for name, openai_default in OPENAI_SAMPLING_DEFAULTS.items():
        value = get(name)
        fields[name] = value if value is not None else defaults.get(name, openai_default)

    n = get("n")
    fields["n"] = 1 if n is None else n
    if not 1 <= fields["n"] <= MAX_N_SEQUENCES:  # vLLM's _verify_num_sequences
        bound = "at least 1" if fields["n"] < 1 else f"at most {MAX_N_SEQUENCES}"
        raise BadRequest(f"n must be {bound}, got {fields['n']}.", param="n")
    fields["seed"] = get("seed")
    temperature = fields.get("temperature")
    if isinstance(temperature, (int, float)) and temperature > 2:  # vLLM's SamplingParams
        raise BadRequest(f"temperature must be in [0, 2], got {temperature}.", param="temperature")
    penalty = fields.get("repetition_penalty")
    if isinstance(penalty, float) and not math.isfinite(penalty):  # vLLM's SamplingParams
        raise BadRequest(f"repetition_penalty must be a finite number, got {penalty}.")
    if fields["n"] > 1 and isinstance(temperature, (int, float)) and temperature < _GREEDY_EPS:
        raise BadRequest(f"n must be 1 when using greedy sampling, got {fields['n']}.", param="n")

    stop_ids = list(dict.fromkeys(get("stop_token_ids") or []))  # vLLM's SamplingParams
    default_stop = list(defaults.get("stop_token_ids") or [])
    if default_stop:
        stop_ids = list(dict.fromkeys([*stop_ids, *default_stop]))
    _check_ids(stop_ids, vocab_size, "stop_token_ids")
    fields["stop_token_ids"] = stop_ids

    logprob_token_ids = get("logprob_token_ids")
    if logprob_token_ids and (not get("logprobs") if kind == "chat" else get("logprobs") is None):
        raise BadRequest("when using `logprob_token_ids`, `logprobs` must be set"
                         + (" to true." if kind == "chat" else "."), param="logprob_token_ids")
    echo = bool(get("echo"))
    if kind == "chat":
        top = get("top_logprobs")
        if top is None:  # (vLLM's TopLogprobsParam reads null as 0)
            top = 0
        logprobs = top if get("logprobs") and not logprob_token_ids else None
        _check_logprobs(logprobs, max_logprobs, "top_logprobs")
    else:
        logprobs = None if logprob_token_ids else get("logprobs")
        _check_logprobs(logprobs, max_logprobs, "logprobs")
    fields["logprobs"] = logprobs
    prompt_logprobs = get("prompt_logprobs")
    if prompt_logprobs is None and echo:
        prompt_logprobs = top if kind == "chat" else get("logprobs")
    _check_logprobs(prompt_logprobs, max_logprobs, "prompt_logprobs")
    fields["prompt_logprobs"] = prompt_logprobs
    if logprob_token_ids:
        _check_ids(logprob_token_ids, vocab_size, "logprob_token_ids")
        fields["logprob_token_ids"] = list(logprob_token_ids)

    fields["max_tokens"] = max_tokens
    fields["min_tokens"] = get("min_tokens") or 0
    if fields["min_tokens"] < 0:
        raise BadRequest(f"min_tokens must be greater than or equal to 0, got "
                         f"{fields['min_tokens']}.", param="min_tokens")
    fields["ignore_eos"] = bool(get("ignore_eos"))
    fields["include_stop_str_in_output"] = bool(get("include_stop_str_in_output"))
    skip = get("skip_special_tokens", True) if skip_special_tokens is None else skip_special_tokens
    fields["skip_special_tokens"] = bool(skip)
    spaces = (get("spaces_between_special_tokens", True) if spaces_between_special_tokens is None
              else spaces_between_special_tokens)
    fields["spaces_between_special_tokens"] = bool(spaces)
    fields["output_kind"] = OUTPUT_KIND_DELTA if get("stream") else OUTPUT_KIND_FINAL_ONLY

    logit_bias = get("logit_bias")
    if logit_bias is not None:  # {} is sent as {}, as vLLM does
        converted: dict[int, float] = {}
        for key, bias in logit_bias.items():
            try:
                token = int(key)
            except (TypeError, ValueError):
                raise BadRequest(
                    f"logit_bias keys must be token ids, got '{quote(key)}'.", param="logit_bias"
                ) from None
            converted[token] = min(100.0, max(-100.0, float(bias)))  # vLLM clamps to +-100
        _check_ids(list(converted), vocab_size, "logit_bias")
        fields["logit_bias"] = converted
    allowed = get("allowed_token_ids")
    if allowed is not None:
        if not allowed:
            raise BadRequest("allowed_token_ids must not be empty.", param="allowed_token_ids")
        _check_ids(allowed, vocab_size, "allowed_token_ids")
        fields["allowed_token_ids"] = list(allowed)
    stop = get("stop")
    if stop == "" or isinstance(stop, list) and "" in stop:  # vLLM's SamplingParams
        raise BadRequest("stop cannot contain an empty string.", param="stop")
    bad_words = get("bad_words")
    if bad_words and "" in bad_words:
        raise BadRequest(f"bad_words cannot contain an empty string. Got bad_words={bad_words!r}",
                         param="bad_words")
    if bad_words:
        fields["bad_words"] = list(dict.fromkeys(bad_words))  # vLLM's SamplingParams
    if structured_outputs:
        fields["structured_outputs"] = dict(structured_outputs)

    extra_args: dict[str, Any] = dict(get("vllm_xargs") or {})
    for name in ("kv_transfer_params", "ec_transfer_params"):
        value = get(name)
        if value:
            extra_args[name] = value
    if extra_args:
        fields["extra_args"] = extra_args
    fields["skip_clone"] = True
    for name in ("thinking_token_budget", "watermarking", "stream_interval"):
        value = get(name)
        if value is not None:
            fields[name] = value
    repetition = get("repetition_detection")
    if repetition is not None:  # every field, as vLLM's render writes its dataclass
        fields["repetition_detection"] = (
            repetition if isinstance(repetition, dict) else repetition.model_dump())
    if start := get("routed_experts_prompt_start"):  # (0, the default, left out as vLLM's)
        fields["routed_experts_prompt_start"] = start
    _greedy(fields)
    return fields


def _greedy(fields: dict[str, Any]) -> None:
    """vLLM's SamplingParams after its range checks: a temperature below 1e-5 is greedy, so
    ``top_p`` 1, ``top_k`` 0 and ``min_p`` 0 (what its render writes). Values its checks refuse
    are left for tito's to refuse the same way."""
    temperature, top_p = fields.get("temperature"), fields.get("top_p")
    top_k, min_p = fields.get("top_k"), fields.get("min_p")
    if not (isinstance(temperature, (int, float)) and 0 <= temperature < _GREEDY_EPS):
        return
    if (isinstance(top_p, (int, float)) and not 0 < top_p <= 1
            or type(top_k) is int and top_k < -1 or type(top_k) not in (int, type(None))
            or isinstance(min_p, (int, float)) and not 0 <= min_p <= 1):
        return
    fields.update(top_p=1.0, top_k=0, min_p=0.0)
