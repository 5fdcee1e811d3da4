"""The parts of a render request both endpoints share (chat and completions render).

Why a module of its own: :mod:`tito.service.render` (chat) and
:mod:`tito.service.render_completions` apply the same bounds, the same request-id rules and
build the same ``derender_context`` keys (listed in :mod:`tito.service.render`'s docstring);
written once here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tito.core import render as core_render
from tito.errors import BadRequest
from tito.models.config import mapped_effort
from tito.protocol import SamplingParams
from tito.protocol.common import stop_list

if TYPE_CHECKING:
    from tito.models import ServedModel
    from tito.protocol import ChatCompletionRequest


DERENDER_CONTEXT_VERSION = 1


PROMPT_TAIL_IDS = 8


#: Reasoning parser name -> (start marker, end marker) used to decide ``reasoning_ended``.
REASONING_MARKERS: dict[str, tuple[str, str]] = {
    "qwen3": ("<think>", "</think>"),
    "deepseek_r1": ("<think>", "</think>"),
    "deepseek_v3": ("<think>", "</think>"),
    "glm45": ("<think>", "</think>"),
    "glm47": ("<think>", "</think>"),
    "kimi_k2": ("<think>", "</think>"),
    "minimax_m2": ("<think>", "</think>"),
    "seed_oss": ("<seed:think>", "</seed:think>"),
    # newparsers (checked against vLLM 0.33's parsers' is_reasoning_end)
    "gemma4": ("<|channel>", "<channel|>"),
    "granite_thinking_parser": ("<think>", "</think>"),
    "ernie45": ("<think>", "</think>"),
    "hy_v3": ("<think>", "</think>"),
    "step3": ("<think>", "</think>"),
    # parsconf2: the reasoning parsers of vLLM 0.33 added before (tests/test_reasoning_ended.py)
    **{name: ("<think>", "</think>") for name in (
        "step5", "holo2", "ling3", "step3p5", "mimo", "nemotron_v3", "deepseek_v4", "deepseek_v41")},
    "mistral": ("[THINK]", "[/THINK]"),
    # newparsers4 (vLLM's poolside_v1 scans back to the turn's <assistant>, a special token)
    "poolside_v1": ("<think>", "</think>"),
    "plamo3": ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"),
    # newparsers5 (vLLM's minimax_m3 and hy_v4 scan the whole prompt for the last marker)
    "minimax_m3": ("<mm:think>", "</mm:think>"),
    "hy_v4": ("<think>", "</think>"),
    # parsers6b (vLLM's kimi_k3 scans the whole prompt for the newest marker's id sequence:
    # REASONING_NEWEST_MARKER_IDS)
    "kimi_k3": ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
}
#: reasoning parsers whose ``adjust_request`` leaves ``skip_special_tokens`` as the request sent
#: it (vLLM 0.33's parsers that are no parser engine, and minimax_m3's engine, whose markers are
#: no special tokens; goldens ``render_reasoning_flags``); every other one turns it off
REASONING_LEAVES_SKIP = frozenset({
    "deepseek_r1", "deepseek_v3", "ernie45", "granite", "holo2", "hunyuan_a13b", "hy_v3",
    "hy_v4", "k2_horizon", "minimax_m2_append_think", "minimax_m3", "olmo3", "poolside_v1",
    "step3", "step5"})
#: reasoning parsers whose ``adjust_request`` also turns ``spaces_between_special_tokens`` off
#: (vLLM 0.33's kimi_k3: a marker is three tokens the parser reads joined, unspaced)
REASONING_JOINS_SPECIAL = frozenset({"kimi_k3"})
#: reasoning parsers whose markers the request chooses (k2_horizon: by ``reasoning_effort``)
REASONING_VARIANT_MARKERS = frozenset({"k2_horizon"})
#: reasoning parsers whose ``is_reasoning_end`` is the newest of the markers' id sequences in
#: the whole prompt (vLLM 0.33's kimi_k3: no turn boundary stops the scan; plamo3, whose
#: markers PLaMo 3's tokenizer writes in several tokens: back to the turn's ``<|plamo:tag|>``
#: when that is one token), -> the turn boundary's token ("": none)
REASONING_NEWEST_MARKER_IDS = {"kimi_k3": "", "plamo3": "<|plamo:tag|>"}

#: reasoning parsers whose ``is_reasoning_end`` is false at render for any prompt: vLLM 0.33's
#: hunyuan_a13b answers from a fresh parser's state, olmo3 looks for its end marker's text as
#: several tokens (never one added token; tito keeps the scan's rule: an end in an earlier turn
#: says nothing about the turn being generated)
REASONING_NEVER_ENDED = frozenset({"hunyuan_a13b", "olmo3"})
#: reasoning parsers whose grammar, thinking switched off, still opens a block at a start marker
#: the prompt ends with (vLLM 0.33's deepseek_v4 / deepseek_v41 engines)
REASONING_OFF_REOPENS = frozenset({"deepseek_v4", "deepseek_v41"})

#: reasoning parsers whose block opens only at its start marker: a prompt whose turn opened no
#: block has its reasoning over (vLLM's gemma4 engine starts in content)
REASONING_OPENS_AT_START = frozenset({"gemma4"})
#: reasoning parsers that vLLM reports over when the template kwargs switch thinking off
#: (granite_thinking_parser's engine; hy_v3's identity parser without a reasoning_effort)
REASONING_OFF_ENDED = frozenset({
    "granite_thinking_parser", "hy_v3",
    # parsconf2: vLLM 0.33 builds these parsers with the template kwargs; thinking off, they
    # start in content and wait for nothing (tests/goldens/reasoning_ended_render_vllm.json)
    "qwen3", "deepseek_v3", "glm45", "glm47", "kimi_k2", "seed_oss", "holo2", "ling3", "mimo",
    "nemotron_v3", *REASONING_OFF_REOPENS,
    "poolside_v1", "plamo3",  # newparsers4: deepseek_v3's identity parser without thinking;
    #   plamo3's grammar without reasoning
    "hy_v4",  # newparsers5: reasoning_effort no_think has no block (vLLM: always ended)
    "kimi_k3"})  # parsers6b: thinking off, vLLM's is_reasoning_end is true


#: reasoning parsers whose ``is_reasoning_end`` is true for any prompt (vLLM's GptOssReasoningParser:
#: harmony output is parsed by channel, there is no block to wait for)
REASONING_ALWAYS_ENDED = frozenset({"openai_gptoss"})


#: reasoning parsers that default the template kwargs they are built with to thinking on
#: (vLLM 0.33's holo2, ``DeepSeekV3ReasoningWithThinkingParser``: it writes ``thinking`` and
#: ``enable_thinking`` into the very dict render then sends as ``reasoning_parser_kwargs``)
REASONING_DEFAULTS_THINKING = frozenset({"holo2"})
#: reasoning parsers whose ``is_reasoning_end`` is the newest of their start / end ids in the
#: whole prompt, neither meaning open (vLLM 0.33's minimax_m2_append_think)
REASONING_WHOLE_PROMPT_IDS = {"minimax_m2_append_think": ("<think>", "</think>")}


def parser_template_kwargs(parser: str, kwargs: Mapping[str, Any], *,
                           chat: bool) -> dict[str, Any]:
    """The ``reasoning_parser_kwargs.chat_template_kwargs`` vLLM's render sends: the effective
    template kwargs, as the reasoning parser left them (:data:`REASONING_DEFAULTS_THINKING`; its
    chat render builds the parser on that dict, its Responses render does not)."""
    out = dict(kwargs)
    if chat and parser in REASONING_DEFAULTS_THINKING and out.get("thinking") is None \
            and out.get("enable_thinking") is None:
        out.update(thinking=True, enable_thinking=True)
    return out


def reasoning_ended_for(
    parser: str, token_ids: list[int], vocab: Any, kwargs: Mapping[str, Any] | None
) -> bool | None:
    """vLLM 0.33's ``is_reasoning_end(prompt)`` for render's ``reasoning_ended`` (recorded:
    ``tests/goldens/reasoning_ended_vllm.json`` and ``reasoning_ended_render_vllm.json``), None
    for a parser tito cannot scan for. ``kwargs``: the effective template kwargs, with which vLLM
    builds the parser (:data:`REASONING_OFF_ENDED`: thinking off, reasoning has ended); otherwise
    the prompt's last marker decides (:func:`tito.core.render.prompt_reasoning_ended`, which stops
    at the turn's special token where vLLM's older parsers scan the whole prompt)."""
    if parser in REASONING_ALWAYS_ENDED:
        return True
    if parser in ("muse", "musespark1x", "muse_glimmer"):  # muse7: a tool channel in this turn
        from tito.core.parsers.muse import prompt_reasoning_ended

        return prompt_reasoning_ended(vocab.decode(token_ids, skip_special_tokens=False),
                                      glimmer=parser == "muse_glimmer")
    if parser == "inkling":  # inkling10: vLLM's InklingParser.is_reasoning_end on the ids
        from tito.core.parsers.inkling import prompt_reasoning_ended as inkling_ended

        return inkling_ended(vocab, token_ids)
    if parser in REASONING_NEVER_ENDED:
        return False
    from tito.core.parsers.reasoning_formats import get_reasoning_parser

    if parser in REASONING_WHOLE_PROMPT_IDS:
        start, end = REASONING_WHOLE_PROMPT_IDS[parser]
        return _newest_id_ended(token_ids, vocab.token_id(start), {vocab.token_id(end)})
    row = get_reasoning_parser(parser) if parser in REASONING_VARIANT_MARKERS else None
    if row is not None:  # markers chosen by the request (k2_horizon): vLLM's own scan
        chosen = get_reasoning_parser(parser, row.variant_from_kwargs(kwargs))
        return _newest_id_ended(token_ids, vocab.token_id(chosen.block_prefix),
                                {vocab.token_id(chosen.end), vocab.token_id(chosen.implicit_end)})
    markers = REASONING_MARKERS.get(parser)
    if markers is None:
        return None
    if parser in REASONING_OFF_ENDED:
        if not get_reasoning_parser(parser).enabled_from_kwargs(kwargs):
            if parser not in REASONING_OFF_REOPENS:
                return True
            return core_render.prompt_reasoning_ended(token_ids, vocab, *markers, default=True)
    if parser in REASONING_NEWEST_MARKER_IDS:
        boundary = REASONING_NEWEST_MARKER_IDS[parser]
        return core_render.prompt_newest_marker_ended(
            token_ids, vocab.encode(markers[0]), vocab.encode(markers[1]),
            vocab.token_id(boundary) if boundary else None)
    return core_render.prompt_reasoning_ended(
        token_ids, vocab, *markers, default=parser in REASONING_OPENS_AT_START)


def _newest_id_ended(token_ids: list[int], start: int | None, ends: set[int | None]) -> bool:
    """vLLM 0.33's ``K2HorizonReasoningParser.is_reasoning_end`` (and minimax_m2_append_think's,
    :data:`REASONING_WHOLE_PROMPT_IDS`): the whole prompt scanned back,
    the start id first means open, an end id (or the call start) first means ended; neither:
    open. O(prompt)."""
    ends.discard(None)
    for token in reversed(token_ids):
        if token == start:
            return False
        if token in ends:
            return True
    return False


def _lookup(name: str | None) -> ServedModel:
    from tito.models import get_registry

    return get_registry().get(name)


def _merge_kwargs(defaults: Mapping[str, Any] | None, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """vLLM's ``merge_kwargs``: overrides win, except their null and ``"auto"`` values."""
    out = dict(defaults or {})
    out.update({k: v for k, v in (overrides or {}).items() if v is not None and v != "auto"})
    return out


def effective_chat_template_kwargs(
    request: ChatCompletionRequest, server_defaults: Mapping[str, Any] | None = None,
    effort_map: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The kwargs the template is rendered with (spec 4.1 step 6, 3.1-e).

    Request ``chat_template_kwargs`` < the request's own fields (``add_generation_prompt``,
    ``continue_final_message``, ``documents``, ``reasoning_effort`` as ``effort_map`` rewrites
    it and the derived ``enable_thinking = reasoning_effort != "none"`` unless the client set
    it) ; server defaults (``default_chat_template_kwargs``) fill in what the request left out.
    """
    user = dict(request.chat_template_kwargs or {})
    effort = mapped_effort(request.reasoning_effort, effort_map)
    extra: dict[str, Any] = {
        "add_generation_prompt": request.add_generation_prompt,
        "continue_final_message": request.continue_final_message,
        "documents": request.documents,
        "reasoning_effort": effort,
    }
    if effort is not None and "enable_thinking" not in user:
        extra["enable_thinking"] = effort != "none"
    return _merge_kwargs(server_defaults, _merge_kwargs(user, extra))


def _sampling_params(fields: dict[str, Any]) -> SamplingParams:
    try:
        return SamplingParams(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ()))
        raise BadRequest(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")), param=loc or None) from None


def _truncate_to(requested: int | None, budget: int) -> int | None:
    """``truncate_prompt_tokens`` (``budget``: ``max_model_len``): -1 keeps all but one token of
    it (one left to generate, vLLM 0.33's ``max_truncation_tokens``); more than it is a 400."""
    if requested is None:
        return None
    if requested == -1:
        return max(0, budget - 1)
    if requested > budget:
        raise BadRequest(
            f"truncate_prompt_tokens={requested} cannot be greater than max_model_len = "
            f"{budget}. Please request a smaller truncation size.",
            param="truncate_prompt_tokens",
        )
    return requested


def _fail_fast(vocab: Any, text: str, budget: int, max_model_len: int, param: str) -> None:
    """Refuse a prompt text certainly longer than ``budget`` tokens before tokenizing it whole."""
    bound = core_render.prompt_tokens_lower_bound(vocab, text, budget)
    if bound > budget:
        raise BadRequest(
            f"The prompt is more than {budget} tokens long (at least {bound}), which leaves no "
            f"room to generate within the model's context length of {max_model_len} tokens "
            "(max_model_len). Please reduce the length of the input prompt.",
            param=param,
        )


def _check_prompt_ids(ids: list[int], vocab_size: int, param: str) -> None:
    bad = [i for i in ids if not 0 <= i < vocab_size]
    if bad:
        raise BadRequest(
            f"{param} contains token ids outside the vocabulary (size {vocab_size}): {bad[:10]}.",
            param=param,
        )


def _stream_options(request: Any) -> dict[str, Any] | None:
    if not request.stream or request.stream_options is None:
        return None
    opts = request.stream_options
    include = bool(opts.include_usage)
    return {"include_usage": include, "continuous_usage_stats": include and bool(opts.continuous_usage_stats)}


def _common_context(
    *, kind: str, model: ServedModel, request: Any, request_id: str, token_ids: list[int],
    skip_special_tokens: bool,
) -> dict[str, Any]:
    """The ``derender_context`` keys both endpoints share (defaults left out)."""
    ctx: dict[str, Any] = {
        "v": DERENDER_CONTEXT_VERSION,
        "kind": kind,
        "model": model.name,
        "request_id": request_id,
        "prompt_tokens": len(token_ids),
        "prompt_tail": token_ids[-PROMPT_TAIL_IDS:],
    }
    stop = list(stop_list(request.stop))
    optional = {
        "skip_special_tokens": (skip_special_tokens, True),
        "spaces_between_special_tokens": (request.spaces_between_special_tokens, True),
        "stop": (stop, []),
        "stop_token_ids": (list(request.stop_token_ids or []), []),
        "include_stop_str_in_output": (request.include_stop_str_in_output, False),
        "min_tokens": (request.min_tokens, 0),
        "ignore_eos": (request.ignore_eos, False),
        "return_tokens_as_token_ids": (request.return_tokens_as_token_ids, None),
        "stream_options": (_stream_options(request), None),
        "n": (request.n or 1, 1),
        "return_token_ids": (bool(request.return_token_ids), False),
    }
    for key, (value, default) in optional.items():
        if value != default:
            ctx[key] = value
    return ctx


#: Longest client-chosen request id (``request_id`` or the ``X-Request-Id`` header): the id is
#: echoed into every response and stream state, so it must stay small.
MAX_REQUEST_ID_CHARS = 256


def _client_request_id(request_id: str, header_id: str | None) -> str:
    """The client's id for this request (the header wins), bounded."""
    value, param = (header_id, "x-request-id") if header_id else (request_id, "request_id")
    if len(value) > MAX_REQUEST_ID_CHARS:
        raise BadRequest(
            f"{param} is {len(value)} characters long; at most {MAX_REQUEST_ID_CHARS} are accepted.",
            param=param,
        )
    return value


def _request_id(prefix: str, request_id: str, header_id: str | None) -> str:
    return f"{prefix}-{_client_request_id(request_id, header_id)}"


def engine_skip_special(model: ServedModel, request: Any) -> bool:
    """The engine's ``skip_special_tokens`` before the parsers' adjustments: the request's
    when it sets one, else the model's generation config's (vLLM 0.33's
    ``default_sampling_params``), else true. Derender keeps the request's own (vLLM's derender
    reads no generation config: goldens ``render_generation_config``)."""
    if "skip_special_tokens" in request.model_fields_set:
        return bool(request.skip_special_tokens)
    return bool((model.config.default_sampling_params or {}).get("skip_special_tokens", True))


def _check_mm_processor_kwargs(model: ServedModel, request: Any) -> None:
    """vLLM 0.33 refuses per-request ``mm_processor_kwargs`` / ``media_io_kwargs`` unless its
    server runs with ``--trust-request-mm-kwargs`` (tito: the model's
    ``trust_request_mm_kwargs``): they change multimodal preprocessing cost. Trusted, they are
    accepted and change nothing tito renders (vLLM's text-only render: goldens
    ``render_trust_mm_kwargs``; the template never sees them)."""
    if model.config.trust_request_mm_kwargs:
        return
    # an empty dict overrides nothing (vLLM: accepted); read as vLLM does, extras included
    if getattr(request, "mm_processor_kwargs", None):
        raise BadRequest(
            "Per-request mm_processor_kwargs are disabled by default because they can change "
            "multimodal preprocessing resource usage. Start the server with "
            "--trust-request-mm-kwargs only when clients are trusted.",
            param="mm_processor_kwargs")
    if getattr(request, "media_io_kwargs", None):
        raise BadRequest(
            "Per-request media_io_kwargs are disabled by default because they can change "
            "multimodal media loading resource usage. Start the server with "
            "--trust-request-mm-kwargs only when clients are trusted.",
            param="media_io_kwargs")
