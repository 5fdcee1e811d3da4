"""One render request: OpenAI chat/completions request -> ``GenerateRequest`` (or a list of them).

Why a service layer: the core knows templates, tokenizers and sampling on plain data; this
module adds what a single request needs around it, in vLLM's order (spec 4): model lookup (404),
request checks (400s with vLLM's messages), template choice and trust, parser-driven
adjustments (structured outputs for required/named tool choice, keeping special tokens for tool
parsers that need them), lengths, and the ``derender_context``.

``derender_context`` (tito's extra field on ``GenerateRequest``; vLLM's engine ignores it) holds
what derender needs to turn the engine's tokens into the OpenAI response without the original
request. Keys (absent when they hold the default shown):

============================  ==============================================================
``v``                          format version, ``1``
``kind``                       ``"chat"`` or ``"completion"``
``model``                      served model name
``request_id``                 the ``GenerateRequest.request_id``
``prompt_tokens``              prompt length (usage)
``prompt_tail``                last prompt ids (seeds the incremental detokenizer)
``skip_special_tokens``        decode flag (default true)
``spaces_between_special_tokens``  decode flag (default true)
``stop``                       stop strings, matched by derender (default ``[]``)
``stop_token_ids``             request stop ids (default ``[]``)
``include_stop_str_in_output`` default false
``min_tokens``                 no stop before this many tokens (default 0)
``ignore_eos``                 default false
``logprobs``                   chat: bool; completions: top count or null (default null/false)
``top_logprobs``               chat only, when logprobs is true
``return_tokens_as_token_ids`` default null
``stream_options``             ``{"include_usage", "continuous_usage_stats"}`` when streaming
``tools``                      chat: tool names offered (absent: no tools)
``tool_params``                chat, tool parsers that type text values (qwen3_coder...):
                               ``{tool: {parameter: type node}}`` (``core.parsers.tools._schema``)
``tool_choice``                chat, with tools: ``"none"|"auto"|"required"|{"type", "function":
                               {"name"}}`` (a null ``tool_choice`` is written as ``"auto"``)
``parallel_tool_calls``        chat, default true
``include_reasoning``          chat, default true
``chat_template_kwargs``       chat: effective template kwargs (without ``documents``)
``reasoning_ended``            chat: whether the prompt already closed reasoning (null: no
                               reasoning parser)
``n``                          choices per prompt (default 1; per-choice usage details need it)
============================  ==============================================================
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tito.core import render as core_render
from tito.core.mistral import MistralVocab
from tito.core.mistral import encode_chat as mistral_encode_chat
from tito.core import sampling as core_sampling
from tito.core.parsers.tools import TYPED_TOOL_PARSERS
from tito.core.parsers.tools._schema import tool_params
from tito.core.parsers.tools import TOOL_PARSERS
from tito.core.parsers.tools.structural import structural_tag
from tito.core.structured_check import check_request as check_structured_request
from tito.core.template_budget import TemplateLimits, TemplateRenderError
from tito.errors import BadRequest
from tito.protocol import GenerateRequest, ReasoningParserKwargs, SamplingParams
from tito.protocol.common import stop_list
from tito.service.harmony import harmony_prompt_ids, is_harmony_model
from tito.service.render_wire import generate_request_wire, sampling_params_wire

if TYPE_CHECKING:  # the request models are only annotations here: the completions render
    # function never imports the chat models (nor the chat render function the completion ones)
    from tito.models import ServedModel
    from tito.protocol import ChatCompletionRequest, CompletionRequest

__all__ = [
    "DERENDER_CONTEXT_VERSION",
    "REASONING_MARKERS",
    "RenderSettings",
    "effective_chat_template_kwargs",
    "render_chat_request",
    "render_chat_wire",
    "render_completion_request",
    "warm_up",
]

logger = logging.getLogger(__name__)

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
}
#: reasoning parsers whose ``is_reasoning_end`` is true for any prompt (vLLM's GptOssReasoningParser:
#: harmony output is parsed by channel, there is no block to wait for)
REASONING_ALWAYS_ENDED = frozenset({"openai_gptoss"})


_UNTRUSTED_TEMPLATE = (
    "Chat template is passed with request, but --trust-request-chat-template is not set. "
    "Refused request with untrusted chat template."
)


@dataclass(frozen=True)
class RenderSettings:
    """Process settings for render (from the environment, see :meth:`from_env`)."""

    trust_request_chat_template: bool = False
    template_limits: TemplateLimits = TemplateLimits()
    max_completion_prompts: int = 1024
    #: harmony's ``Current date:`` (vLLM: ``VLLM_SYSTEM_START_DATE``); None: today
    harmony_start_date: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RenderSettings:
        """``TITO_TRUST_REQUEST_CHAT_TEMPLATE=1`` allows per-request templates;
        ``TITO_TEMPLATE_MAX_CHARS``, ``TITO_TEMPLATE_MAX_STEPS``, ``TITO_TEMPLATE_MAX_SECONDS``
        bound every template render; ``TITO_MAX_COMPLETION_PROMPTS`` bounds a completions list;
        ``TITO_HARMONY_START_DATE`` (``YYYY-MM-DD``) pins gpt-oss's ``Current date:`` line."""
        env = os.environ if environ is None else environ
        base = TemplateLimits()

        def number(name: str, default: float, kind: type) -> Any:
            raw = env.get(name)
            if not raw:
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not a number") from None
            if value <= 0:
                raise ValueError(f"{name} must be positive (got {raw!r})")
            return value

        return cls(
            trust_request_chat_template=env.get("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "").lower()
            in ("1", "true", "yes", "on"),
            template_limits=TemplateLimits(
                max_output_chars=number("TITO_TEMPLATE_MAX_CHARS", base.max_output_chars, int),
                max_steps=number("TITO_TEMPLATE_MAX_STEPS", base.max_steps, int),
                max_seconds=number("TITO_TEMPLATE_MAX_SECONDS", base.max_seconds, float),
                max_source_chars=number("TITO_TEMPLATE_MAX_SOURCE_CHARS", base.max_source_chars, int),
            ),
            max_completion_prompts=number("TITO_MAX_COMPLETION_PROMPTS", 1024, int),
            harmony_start_date=env.get("TITO_HARMONY_START_DATE") or None,
        )


#: The variables :meth:`RenderSettings.from_env` reads.
_SETTINGS_ENV = (
    "TITO_TRUST_REQUEST_CHAT_TEMPLATE", "TITO_TEMPLATE_MAX_CHARS", "TITO_TEMPLATE_MAX_STEPS",
    "TITO_TEMPLATE_MAX_SECONDS", "TITO_TEMPLATE_MAX_SOURCE_CHARS", "TITO_MAX_COMPLETION_PROMPTS",
    "TITO_HARMONY_START_DATE",
)


#: The mapping ``os.environ`` keeps its (encoded) variables in, and those names encoded as its keys.
#: Why not ``os.environ.get``: it raises and catches a KeyError per unset variable, ~3 us each,
#: which made reading these seven cost more than a short chat's whole engine request.
_ENV_DATA: Mapping[Any, Any] | None = getattr(os.environ, "_data", None)
_ENV_KEYS = tuple(map(getattr(os.environ, "encodekey", str), _SETTINGS_ENV))


def current_settings() -> RenderSettings:
    """:meth:`RenderSettings.from_env` of the current environment, parsed once per distinct
    value set (a request re-reads the variables, not the whole parse)."""
    if _ENV_DATA is None:  # not CPython's os.environ
        return _settings_for(tuple(os.environ.get(name) for name in _SETTINGS_ENV))
    return _settings_for(tuple(map(_ENV_DATA.get, _ENV_KEYS)))


@lru_cache(maxsize=8)
def _settings_for(values: tuple[Any, ...]) -> RenderSettings:
    decode = getattr(os.environ, "decodevalue", None) if _ENV_DATA is not None else None
    return RenderSettings.from_env({k: decode(v) if decode else v
                                    for k, v in zip(_SETTINGS_ENV, values) if v is not None})


# ------------------------------------------------------------------------------------------
# Helpers shared by both endpoints
# ------------------------------------------------------------------------------------------


def _lookup(name: str | None) -> ServedModel:
    from tito.models import get_registry

    return get_registry().get(name)


def _merge_kwargs(defaults: Mapping[str, Any] | None, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """vLLM's ``merge_kwargs``: overrides win, except their null and ``"auto"`` values."""
    out = dict(defaults or {})
    out.update({k: v for k, v in (overrides or {}).items() if v is not None and v != "auto"})
    return out


def effective_chat_template_kwargs(
    request: ChatCompletionRequest, server_defaults: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The kwargs the template is rendered with (spec 4.1 step 6, 3.1-e).

    Request ``chat_template_kwargs`` < the request's own fields (``add_generation_prompt``,
    ``continue_final_message``, ``documents``, ``reasoning_effort`` and the derived
    ``enable_thinking = reasoning_effort != "none"`` unless the client set it) ; server defaults
    (``default_chat_template_kwargs``) fill in what the request left out.
    """
    user = dict(request.chat_template_kwargs or {})
    extra: dict[str, Any] = {
        "add_generation_prompt": request.add_generation_prompt,
        "continue_final_message": request.continue_final_message,
        "documents": request.documents,
        "reasoning_effort": request.reasoning_effort,
    }
    if request.reasoning_effort is not None and "enable_thinking" not in user:
        extra["enable_thinking"] = request.reasoning_effort != "none"
    return _merge_kwargs(server_defaults, _merge_kwargs(user, extra))


def _sampling_params(fields: dict[str, Any]) -> SamplingParams:
    try:
        return SamplingParams(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ()))
        raise BadRequest(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")), param=loc or None) from None


def _truncate_to(requested: int | None, budget: int) -> int | None:
    """``truncate_prompt_tokens``: -1 means the whole prompt budget; more than it is a 400."""
    if requested is None:
        return None
    if requested == -1:
        return budget
    if requested > budget:
        raise BadRequest(
            f"truncate_prompt_tokens={requested} cannot be greater than max_model_len - "
            f"max output tokens = {budget}. Please request a smaller truncation size.",
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


# ------------------------------------------------------------------------------------------
# Chat
# ------------------------------------------------------------------------------------------


def _check_mm_processor_kwargs(request: Any) -> None:
    """vLLM 0.33 refuses per-request ``mm_processor_kwargs`` unless its server runs with
    ``--trust-request-mm-kwargs`` (tito has no such switch: they change preprocessing cost)."""
    if request.mm_processor_kwargs is not None:
        raise BadRequest(
            "Per-request mm_processor_kwargs are disabled by default because they can change "
            "multimodal preprocessing resource usage. Start the server with "
            "--trust-request-mm-kwargs only when clients are trusted.",
            param="mm_processor_kwargs")


def _check_tool_choice(request: ChatCompletionRequest, model: ServedModel) -> None:
    """vLLM without a tool parser refuses tool choices it could not honour (spec 4.1 step 3)."""
    choice = request.tool_choice
    if model.tool_parser is not None or choice in (None, "none"):
        return
    if choice == "auto":
        raise BadRequest(
            f'"auto" tool choice requires a tool parser, and model `{model.name}` has none '
            "(vLLM: --enable-auto-tool-choice and --tool-call-parser).",
            param="tool_choice",
        )
    desc = f'"{choice}"' if isinstance(choice, str) else f'function "{choice.function.name}"'
    raise BadRequest(
        f"tool_choice={desc} requires a tool parser, and model `{model.name}` has none "
        "(vLLM: --tool-call-parser).",
        param="tool_choice",
    )


def _template_source(
    request: ChatCompletionRequest, model: ServedModel, settings: RenderSettings
) -> str:
    kwargs_template = (request.chat_template_kwargs or {}).get("chat_template")
    requested = request.chat_template if request.chat_template is not None else kwargs_template
    if requested is not None:
        if not settings.trust_request_chat_template:
            raise BadRequest(_UNTRUSTED_TEMPLATE, param="chat_template")
        if not isinstance(requested, str) or not requested:
            raise BadRequest("chat_template must be a non-empty string.", param="chat_template")
        return requested
    if model.chat_template is None:
        raise BadRequest(
            f"Model `{model.name}` has no chat template, so chat requests cannot be rendered "
            "(send a chat_template with TITO_TRUST_REQUEST_CHAT_TEMPLATE=1, or use completions).",
            param="chat_template",
        )
    return model.chat_template


def _compile(source: str, settings: RenderSettings) -> Any:
    from tito.core.template import compile_template  # Jinja2: only functions that render chats

    try:
        return compile_template(source, settings.template_limits)
    except TemplateRenderError as exc:
        raise BadRequest(str(exc), param="chat_template") from None


def warm_up(model: ServedModel, settings: RenderSettings | None = None) -> None:
    """Compile ``model``'s chat template now (a function's init), so no request pays for it.

    Why here: :func:`compile_template` caches per (source, limits), and requests use the limits
    of :func:`current_settings`; so compiling with those same limits is what the first
    request would do. A template that does not compile is logged, not raised: requests then get
    the 400 naming the error, as they would without the warm-up.
    """
    if model.chat_template is None or is_harmony_model(model) or isinstance(model.vocab, MistralVocab):
        return  # chats encoded by code
    from tito.core.template import compile_template

    try:
        compile_template(model.chat_template, (settings or current_settings()).template_limits)
    except TemplateRenderError as exc:
        logger.warning("the chat template of model %s does not compile: %s", model.name, exc)


def _reasoning_ended(
    request: ChatCompletionRequest, model: ServedModel, token_ids: list[int]
) -> bool | None:
    """Spec 4.1 step 11: include_reasoning=false -> true; a reasoning parser -> scan the prompt."""
    if not request.include_reasoning:
        return True
    parser = model.reasoning_parser
    if parser is None:
        return None
    if parser in REASONING_ALWAYS_ENDED:
        return True
    markers = REASONING_MARKERS.get(parser)
    if markers is None:
        return None
    return core_render.prompt_reasoning_ended(token_ids, model.vocab, *markers)


def _check_constraints(request: Any) -> None:
    """vLLM 0.33's render-time refusals of structural tags (:mod:`tito.core.structured_check`)."""
    own = request.structured_outputs
    check_structured_request(
        request.response_format,
        own.model_dump(by_alias=True, exclude_none=True) if own is not None else None)


def calls_schema_replaces_text(model: ServedModel) -> bool:
    """Whether vLLM 0.33 constrains required / named calls of ``model`` with the JSON schema of
    the calls (a tool format without a structural tag), which on the Responses path becomes the
    request's ``text.format`` (so a ``structured_outputs`` beside it is a 400 there)."""
    parser = TOOL_PARSERS.get(model.tool_parser) if model.tool_parser else None
    return parser is not None and not is_harmony_model(model) \
        and parser.structural_tag_model is None and parser.forced_calls != "mistral_list"


def _chat_structured_outputs(
    request: ChatCompletionRequest, model: ServedModel, tools: list[dict[str, Any]] | None,
    tool_choice: Any, *, harmony: bool = False, responses: bool = False,
) -> dict[str, Any] | None:
    """The engine constraint: the tool format's structural tag when vLLM 0.33 sends one
    (:mod:`tito.core.parsers.tools.structural`, for ``auto`` with the request's own constraint
    its or-format), else the request's own constraint (harmony: on the final channel) or the
    JSON schema of a list of calls (formats without a tag)."""
    response_format = request.response_format
    own = request.structured_outputs.model_dump(by_alias=True, exclude_none=True) \
        if request.structured_outputs is not None else None
    constraint = core_sampling.structured_outputs_for(
        response_format=response_format, structured_outputs=own)
    level = model.config.tool_strict_level  # the server's floor, else the format's default
    if harmony:
        from tito.core.harmony.structured import harmony_structured_outputs  # gpt-oss only

        constraint = harmony_structured_outputs(constraint)
        tag_model: str | None = "harmony"
        parser = None
    else:
        parser = TOOL_PARSERS.get(model.tool_parser) if model.tool_parser else None
        tag_model = parser.structural_tag_model if parser is not None else None
    if level is None:
        level = parser.default_tool_strict_level if parser is not None else "auto"
    tag = structural_tag(tag_model, tools, tool_choice, strict_level=level,
                         parallel_tool_calls=request.parallel_tool_calls, constraint=constraint)
    if tag is not None:
        return {"structural_tag": tag}
    if harmony or parser is None:
        return constraint
    if parser.forced_calls == "mistral_list":
        rf_type = _get(response_format, "type") if response_format is not None else None
        forced = tools and (tool_choice == "required" or isinstance(tool_choice, dict))
        if forced and not responses and not own and rf_type in (None, "text", "json_object",
                                                                "json_schema"):
            schema = core_sampling.mistral_calls_schema(tools, tool_choice)
            if schema is not None:
                return {"json": schema}
        return constraint
    return core_sampling.structured_outputs_for(
        response_format=response_format,
        structured_outputs=own,
        tool_choice=tool_choice,
        tools=tools,
        parallel_tool_calls=request.parallel_tool_calls,
    )


def _parse_context(
    request: ChatCompletionRequest, tool_choice: Any, kwargs: Mapping[str, Any], *, harmony: bool,
) -> dict[str, Any]:
    """vLLM 0.33's ``ParseContext`` of a chat render (``_build_parse_context``; its field order).

    ``tools`` are the request's as vLLM serializes ``ChatCompletionToolsParam``: every declared
    field (``description`` / ``parameters`` null when absent), ``strict`` and ``defer_loading``
    only when set, nothing else. Harmony output is parsed without template kwargs (``{}``)."""
    history = sum(len(_get(m, "tool_calls") or []) for m in request.messages
                  if _get(m, "role") == "assistant")
    tools = None if request.tools is None else [_parse_context_tool(t) for t in request.tools]
    return {
        "tools": tools,
        "tool_choice": tool_choice if tool_choice is not None else ("auto" if tools else None),
        "parallel_tool_calls": request.parallel_tool_calls is not False,
        "include_reasoning": request.include_reasoning,
        "chat_template_kwargs": {} if harmony else dict(kwargs),
        "history_tool_call_cnt": history,
    }


def _parse_context_tool(tool: Any) -> dict[str, Any]:
    fn = tool.function
    defer = (tool.model_extra or {}).get("defer_loading")  # vLLM: copied into the function
    out: dict[str, Any] = {"name": fn.name, "description": fn.description,
                           "parameters": fn.parameters}
    if fn.strict is not None:
        out["strict"] = fn.strict
    if (fn.defer_loading if fn.defer_loading is not None else defer) is not None:
        out["defer_loading"] = fn.defer_loading if fn.defer_loading is not None else defer
    return {"type": tool.type, "function": out} | ({} if defer is None else
                                                   {"defer_loading": defer})


def _template_tool(tool: Any) -> dict[str, Any]:
    out = _parse_context_tool(tool)
    for key in ("description", "parameters"):
        if key not in tool.function.model_fields_set:
            del out["function"][key]
    return out


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def render_chat_request(
    request: ChatCompletionRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
    responses: bool = False,
) -> GenerateRequest:
    """Render one chat request into the engine request (spec 4.1).

    ``model`` defaults to the registry's model for ``request.model`` (404 when unknown);
    ``header_request_id`` is the ``X-Request-Id`` header, which wins over ``request.request_id``;
    ``responses``: the chat request stands for a Responses request (vLLM's mistral parser then
    adds no call schema).
    """
    return _render_chat(request, settings, model, header_request_id, responses, wire=False)


def render_chat_wire(
    request: ChatCompletionRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
) -> dict[str, Any]:
    """``render_chat_request(...).to_wire()``, what the render functions answer, without
    building the models when no value needs their checks (:mod:`tito.service.render_wire`):
    the same dict, the same errors."""
    return _render_chat(request, settings, model, header_request_id, False, wire=True)


def _render_chat(
    request: ChatCompletionRequest, settings: RenderSettings | None, model: ServedModel | None,
    header_request_id: str | None, responses: bool, *, wire: bool,
) -> Any:
    """:func:`render_chat_request` (``wire`` false) or :func:`render_chat_wire` (true)."""
    settings = settings or current_settings()
    model = model or _lookup(request.model)
    vocab = model.vocab

    if request.use_beam_search:
        raise BadRequest("Beam search is not supported by the render endpoint", param="use_beam_search")
    _check_mm_processor_kwargs(request)
    if request.add_generation_prompt and request.continue_final_message:
        raise BadRequest(
            "Cannot set both `continue_final_message` and `add_generation_prompt` to True.",
            param="continue_final_message",
        )
    want_mask = (request.model_extra or {}).get("return_assistant_tokens_mask") or False
    if not isinstance(want_mask, bool):
        raise BadRequest("return_assistant_tokens_mask must be a boolean.",
                         param="return_assistant_tokens_mask")
    _check_tool_choice(request, model)
    if not responses:  # vLLM's Responses render checks no structural tag
        _check_constraints(request)

    tools: list[dict[str, Any]] | None = None
    exclude_when_none = model.config.exclude_tools_when_tool_choice_none
    if request.tools is not None and not (request.tool_choice == "none" and exclude_when_none):
        # vLLM's dump of each tool (its declared fields only, extra keys dropped, defer_loading
        # copied into the function), without a description / parameters the client never sent
        # (a template testing `description is defined` must not see a null; vLLM adds them)
        tools = [_template_tool(tool) for tool in request.tools]

    harmony = is_harmony_model(model)
    mistral = isinstance(vocab, MistralVocab)
    if mistral and (request.chat_template is not None or request.chat_template_kwargs):
        raise BadRequest("chat_template is not supported for Mistral tokenizers.",
                         param="chat_template")  # vLLM's validate_request_params
    template = (None if harmony or mistral
                else _compile(_template_source(request, model, settings), settings))
    if want_mask and (template is None or not template.has_generation_blocks):
        raise BadRequest(
            "return_assistant_tokens_mask needs a chat template with {% generation %} blocks; "
            f"the template of model `{model.name}` has none"
            + (" (its chats are encoded by code)." if template is None else "."),
            param="return_assistant_tokens_mask",
        )

    kwargs = effective_chat_template_kwargs(request, model.default_chat_template_kwargs)
    requested_max = (
        request.max_completion_tokens if request.max_completion_tokens is not None else request.max_tokens
    )
    max_param = "max_completion_tokens" if request.max_completion_tokens is not None else "max_tokens"
    budget = core_sampling.check_output_budget(model.max_model_len, requested_max, max_param)
    truncate_to = _truncate_to(request.truncate_prompt_tokens, budget)
    side = request.truncation_side or "left"

    kv_params = dict(request.kv_transfer_params) if request.kv_transfer_params else None
    reused = kv_params.pop("prompt_token_ids", None) if kv_params else None
    normalized = None if template is None else core_render.normalize_messages(
        request.messages,
        content_format=template.content_format,
        keep_developer_role=template.mentions_developer_role,
        keep_null_content=template.tests_content_none,
        string_arguments=template.wants_string_arguments,
        text_only_model=None if model.multimodal else model.name,
    )
    if mistral and not model.multimodal:
        core_render.check_text_only(request.messages, model.name)  # vLLM 0.33's 400
    if reused is not None and (normalized is None or not normalized.media_parts):
        if not isinstance(reused, list) or not all(isinstance(i, int) for i in reused):
            raise BadRequest("kv_transfer_params.prompt_token_ids must be a list of token ids.",
                             param="kv_transfer_params")
        _check_prompt_ids(reused, vocab.size, "kv_transfer_params.prompt_token_ids")
        window = core_render.truncate(len(reused), truncate_to, side)
        tokenized = core_render.TokenizedPrompt(token_ids=list(reused)[window])
        media: list[dict[str, Any]] = []
    elif template is None or normalized is None:  # harmony (gpt-oss), mistral-common: by code
        ids = (
            mistral_encode_chat(vocab, request.messages, tools=tools,  # type: ignore[arg-type]
                                continue_final_message=request.continue_final_message)
            if mistral else harmony_prompt_ids(model, request, tools, settings.harmony_start_date)
        )
        window = core_render.truncate(len(ids), truncate_to, side)
        tokenized = core_render.TokenizedPrompt(token_ids=ids[window])
        media = []
    else:
        prompt = core_render.render_chat(
            template,
            normalized,
            tools=tools,
            documents=request.documents,
            add_generation_prompt=request.add_generation_prompt,
            continue_final_message=request.continue_final_message,
            template_kwargs=kwargs,
            special_tokens=model.special_token_strings,
            limits=settings.template_limits,
        )
        if truncate_to is None:
            _fail_fast(vocab, prompt.text, budget, model.max_model_len, "messages")
        tokenized = core_render.tokenize_prompt(
            vocab,
            prompt.text,
            add_special_tokens=request.add_special_tokens,
            truncate_to=truncate_to,
            truncation_side=side,
            with_offsets=bool(request.return_token_offsets) and not prompt.media_parts,
            generation_spans=prompt.generation_spans if want_mask else None,
        )
        media = prompt.media_parts
    token_ids = tokenized.token_ids
    if not token_ids:
        raise BadRequest("No token_ids rendered", param="messages")
    max_tokens = core_sampling.resolve_max_tokens(
        max_model_len=model.max_model_len,
        prompt_tokens=len(token_ids),
        requested=requested_max,
        param=max_param,
        prompt_param="messages",
    )

    tool_choice = request.tool_choice
    tool_choice_json: Any = (
        tool_choice if tool_choice is None or isinstance(tool_choice, str) else tool_choice.model_dump()
    )
    structured = _chat_structured_outputs(request, model, tools, tool_choice_json, harmony=harmony,
                                          responses=responses)
    # vLLM 0.33 turns the engine's flag off where its parsers read special tokens (recorded in
    # conformance/goldens): a reasoning parser other than harmony's, and a tool parser whose
    # adjust_request does so when tools are sent and tool_choice is not "none". Derender still
    # honours the request's own flag (derender_context).
    skip_special = request.skip_special_tokens
    tool_parser = TOOL_PARSERS.get(model.tool_parser) if model.tool_parser else None
    if (model.reasoning_parser is not None and not is_harmony_model(model)) or (
            tool_parser is not None and tool_parser.engine_reads_special
            and tool_choice_json != "none"
            and (request.tools or tool_parser.engine_reads_special_without_tools)):
        skip_special = False
    fields = core_sampling.sampling_fields(
        request,
        kind="chat",
        max_tokens=max_tokens,
        default_sampling=model.config.default_sampling_params,
        structured_outputs=structured,
        skip_special_tokens=skip_special,
        vocab_size=vocab.size,
        max_logprobs=model.max_logprobs,
    )
    # the wire path skips the models when every value is certainly valid (reused ids and media
    # parts take the models' checks); the models' errors come here either way
    sampling_wire = (sampling_params_wire(fields) if wire and reused is None and not media
                     else None)
    sampling = _sampling_params(fields) if sampling_wire is None else None

    request_id = _request_id("chatcmpl", request.request_id, header_request_id)
    reasoning_ended = _reasoning_ended(request, model, token_ids)
    context = _common_context(
        kind="chat", model=model, request=request, request_id=request_id, token_ids=token_ids,
        skip_special_tokens=request.skip_special_tokens,
    )
    if request.logprobs:
        context["logprobs"] = True
        context["top_logprobs"] = request.top_logprobs or 0
    if request.tools:
        context["tools"] = [t.function.name for t in request.tools]
        if model.tool_parser in TYPED_TOOL_PARSERS:
            context["tool_params"] = tool_params(request.tools)
        # null with tools behaves as "auto" in vLLM; say so explicitly
        context["tool_choice"] = "auto" if tool_choice_json is None else tool_choice_json
    if request.parallel_tool_calls is False:
        context["parallel_tool_calls"] = False
    if not request.include_reasoning:
        context["include_reasoning"] = False
    template_kwargs = {k: v for k, v in kwargs.items() if k != "documents"}
    if template_kwargs:
        context["chat_template_kwargs"] = template_kwargs
    if reasoning_ended is not None:
        context["reasoning_ended"] = reasoning_ended

    values: dict[str, Any] = {
        "request_id": request_id,
        "token_ids": token_ids,
        "assistant_tokens_mask": tokenized.assistant_mask,
        "token_offsets": tokenized.token_offsets,
        "content_parts": media or None,
        "sampling_params": sampling if sampling_wire is None else sampling_wire,
        "model": request.model,
        "reasoning_ended": reasoning_ended,
        "reasoning_parser_kwargs": None,
        "return_token_ids": request.return_token_ids,
        "stream": bool(request.stream),
        "stream_options": request.stream_options if request.stream else None,
        "cache_salt": request.cache_salt,
        "priority": request.priority,
        "kv_transfer_params": kv_params,
        "ec_transfer_params": request.ec_transfer_params,
        "parse_context": _parse_context(request, tool_choice_json, kwargs, harmony=harmony),
        "derender_context": context,
    }
    if sampling_wire is not None:  # values the chat request validated, or render's own
        if model.reasoning_parser:
            values["reasoning_parser_kwargs"] = {"chat_template_kwargs": dict(kwargs)}
        return generate_request_wire(values)
    if model.reasoning_parser:
        values["reasoning_parser_kwargs"] = ReasoningParserKwargs(chat_template_kwargs=kwargs)
    try:
        generate = GenerateRequest(**values)
    except ValidationError as exc:
        raise BadRequest(str(exc.errors()[0].get("msg")), param="messages") from None
    return generate.to_wire() if wire else generate


# ------------------------------------------------------------------------------------------
# Completions
# ------------------------------------------------------------------------------------------


def render_completion_request(
    request: CompletionRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
) -> list[GenerateRequest]:
    """Render a completions request into one engine request per prompt, in prompt order (spec 4.2)."""
    settings = settings or current_settings()
    model = model or _lookup(request.model)
    vocab = model.vocab

    if request.suffix is not None:
        raise BadRequest("suffix is not currently supported", param="suffix")
    if request.prompt_embeds is not None:
        if request.echo:
            raise BadRequest("Echo is unsupported with prompt embeds.", param="echo")
        if request.prompt_logprobs is not None:
            raise BadRequest("prompt_logprobs is not compatible with prompt embeds.",
                             param="prompt_logprobs")
        raise BadRequest("prompt_embeds are not accepted: tito renders text and token-id prompts "
                         "only.", param="prompt_embeds")
    if request.use_beam_search:
        raise BadRequest("Beam search is not supported by the render endpoint", param="use_beam_search")
    _check_constraints(request)
    _check_mm_processor_kwargs(request)

    prompts = core_render.normalize_completion_prompts(request.prompt)
    if len(prompts) > settings.max_completion_prompts:
        raise BadRequest(
            f"Too many prompts: {len(prompts)} (at most {settings.max_completion_prompts}).",
            param="prompt",
        )
    requested = request.max_tokens
    if request.echo and requested == 0:
        requested = 1
    budget = core_sampling.check_output_budget(model.max_model_len, requested, "max_tokens")
    truncate_to = _truncate_to(request.truncate_prompt_tokens, budget)
    side = request.truncation_side or "left"
    structured = core_sampling.structured_outputs_for(
        response_format=request.response_format,
        structured_outputs=(
            request.structured_outputs.model_dump(by_alias=True, exclude_none=True)
            if request.structured_outputs is not None else None
        ),
    )
    base_id = _client_request_id(request.request_id, header_request_id)

    out: list[GenerateRequest] = []
    for i, prompt in enumerate(prompts):
        param = "prompt" if len(prompts) == 1 else f"prompt.{i}"
        if isinstance(prompt, str):
            if truncate_to is None:
                _fail_fast(vocab, prompt, budget, model.max_model_len, param)
            tokenized = core_render.tokenize_prompt(
                vocab,
                prompt,
                add_special_tokens=request.add_special_tokens,
                truncate_to=truncate_to,
                truncation_side=side,
                with_offsets=bool(request.return_token_offsets),
            )
        else:
            _check_prompt_ids(prompt, vocab.size, param)
            window = core_render.truncate(len(prompt), truncate_to, side)
            tokenized = core_render.TokenizedPrompt(token_ids=prompt[window])
        token_ids = tokenized.token_ids
        if not token_ids:
            raise BadRequest(f"No token_ids rendered for {param}", param=param)
        max_tokens = core_sampling.resolve_max_tokens(
            max_model_len=model.max_model_len,
            prompt_tokens=len(token_ids),
            requested=requested,
            param="max_tokens",
            prompt_param=param,
        )
        fields = core_sampling.sampling_fields(
            request,
            kind="completion",
            max_tokens=max_tokens,
            default_sampling=model.config.default_sampling_params,
            structured_outputs=structured,
            vocab_size=vocab.size,
            max_logprobs=model.max_logprobs,
        )
        sampling = _sampling_params(fields)
        request_id = f"cmpl-{base_id}" if len(prompts) == 1 else f"cmpl-{base_id}-{i}"
        context = _common_context(
            kind="completion", model=model, request=request, request_id=request_id,
            token_ids=token_ids, skip_special_tokens=request.skip_special_tokens,
        )
        if request.logprobs is not None:
            context["logprobs"] = request.logprobs
        if request.echo:  # derender prepends the prompt: it needs all of it, not the tail
            context["echo"] = True
            context["prompt_token_ids"] = list(token_ids)
        out.append(
            GenerateRequest(
                request_id=request_id,
                token_ids=token_ids,
                token_offsets=tokenized.token_offsets,
                sampling_params=sampling,
                model=request.model,
                return_token_ids=request.return_token_ids,
                stream=bool(request.stream),
                stream_options=request.stream_options if request.stream else None,
                cache_salt=request.cache_salt,
                priority=request.priority,
                kv_transfer_params=request.kv_transfer_params,
                ec_transfer_params=request.ec_transfer_params,
                derender_context=context,
            )
        )
    return out
