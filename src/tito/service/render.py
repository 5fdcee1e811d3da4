"""One render request: OpenAI chat/completions request -> ``GenerateRequest`` (or a list of them).

Why a service layer: the core knows templates, tokenizers and sampling on plain data; this
module adds what a single request needs around it, in vLLM's order (spec 4): model lookup (404),
request checks (400s with vLLM's messages), template choice and trust, parser-driven
adjustments (structured outputs for required/named tool choice, keeping special tokens for tool
parsers that need them), lengths, and the ``derender_context``.

Modules: this one is the chat render (:func:`render_chat_request`, :func:`render_chat_wire`) and
the public face (every name below is importable from here); its steps are in
:mod:`tito.service.render_chat_parts`, the prompt itself (ids, native encoding, code encoder
or template) in :mod:`tito.service.render_chat_prompt`, what both endpoints share in
:mod:`tito.service.render_common`, the completions render in
:mod:`tito.service.render_completions`, the settings in :mod:`tito.service.render_settings`,
the wire dict without the models in :mod:`tito.service.render_wire`.

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

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tito.core import render as core_render
from tito.core.mistral import MistralVocab
from tito.core import sampling as core_sampling
from tito.core.parsers.tools import RENDER_TRAITS
from tito.core.parsers.reasoning_formats import get_reasoning_parser
from tito.core.parsers.reasoning_row import RAW_ENABLE_THINKING
from tito.errors import BadRequest
from tito.protocol import GenerateRequest, ReasoningParserKwargs
from tito.service.harmony import is_harmony_model
from tito.service.render_wire import generate_request_wire, sampling_params_wire
from tito.service.render_chat_parts import (
    calls_schema_replaces_text,
    chat_messages,
    check_request_template,
    warm_up,
    _chat_context,
    _chat_structured_outputs,
    _check_tool_choice,
    _compile,
    _reasoning_ended,
    _template_source,
)
from tito.service.parse_context import parse_context, parse_context_tool
from tito.models.config import max_tokens_cap
from tito.service.render_common import (
    DERENDER_CONTEXT_VERSION,
    effective_chat_template_kwargs,
    engine_skip_special,
    MAX_REQUEST_ID_CHARS,
    PROMPT_TAIL_IDS,
    REASONING_ALWAYS_ENDED,
    REASONING_JOINS_SPECIAL,
    REASONING_LEAVES_SKIP,
    REASONING_MARKERS,
    parser_template_kwargs,
    _check_mm_processor_kwargs,
    _lookup,
    _request_id,
    _sampling_params,
    _truncate_to,
)
from tito.service.render_chat_prompt import chat_prompt
from tito.service.render_completions import render_completion_request, render_completion_wire
from tito.service.render_settings import current_settings, RenderSettings

if TYPE_CHECKING:  # the request models are only annotations here: the completions render
    # function never imports the chat models (nor the chat render function the completion ones)
    from collections.abc import Callable, Mapping, Sequence

    from tito.models import ServedModel
    from tito.protocol import ChatCompletionRequest

__all__ = [
    "DERENDER_CONTEXT_VERSION",
    "MAX_REQUEST_ID_CHARS",
    "PROMPT_TAIL_IDS",
    "REASONING_ALWAYS_ENDED",
    "REASONING_MARKERS",
    "RenderSettings",
    "calls_schema_replaces_text",
    "current_settings",
    "effective_chat_template_kwargs",
    "render_chat_request",
    "render_chat_wire",
    "render_completion_request",
    "render_completion_wire",
    "warm_up",
]


def render_chat_request(
    request: ChatCompletionRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
    responses: bool = False,
    builtin_tools: bool = False,
    before_sampling: Callable[[], None] | None = None,
    harmony_previous: Sequence[Mapping[str, Any]] | None = None,
) -> GenerateRequest:
    """Render one chat request into the engine request (spec 4.1).

    ``model`` defaults to the registry's model for ``request.model`` (404 when unknown);
    ``header_request_id`` is the ``X-Request-Id`` header, which wins over ``request.request_id``;
    ``responses``: the chat request stands for a Responses request (vLLM's mistral parser then
    adds no call schema); ``builtin_tools``: that request had tools the chat request does not
    carry (built-in ones) and a ``tool_choice`` other than ``"none"``, which vLLM's tool parsers
    count as tools to call; ``before_sampling``: the Responses render's checks vLLM makes
    after rendering, called once the prompt is rendered, before the sampling params;
    ``harmony_previous``: that Responses request's ``previous_input_messages`` (gpt-oss renders
    them after its preamble).
    """
    return _render_chat(request, settings, model, header_request_id, responses, wire=False,
                        builtin_tools=builtin_tools, before_sampling=before_sampling,
                        harmony_previous=harmony_previous)


def render_chat_wire(
    request: ChatCompletionRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
    responses: bool = False,
    builtin_tools: bool = False,
    tokenize: bool = False,
    encoder_messages: list[dict[str, Any]] | None = None,
    before_sampling: Callable[[], None] | None = None,
    harmony_previous: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """``render_chat_request(...).to_wire()``, what the render functions answer, without
    building the models when no value needs their checks (:mod:`tito.service.render_wire`):
    the same dict, the same errors. ``tokenize``: for ``/tokenize``; ``encoder_messages``: what
    a native encoding reads in place of the request's messages (an encoding's ``/tokenize``
    fix-up, :class:`tito.core.render_messages.TokenizeMessages`)."""
    return _render_chat(request, settings, model, header_request_id, responses, wire=True,
                        builtin_tools=builtin_tools, tokenize=tokenize,
                        encoder_messages=encoder_messages,
                        before_sampling=before_sampling, harmony_previous=harmony_previous)


def _render_chat(
    request: ChatCompletionRequest, settings: RenderSettings | None, model: ServedModel | None,
    header_request_id: str | None, responses: bool, *, wire: bool, builtin_tools: bool = False,
    tokenize: bool = False, encoder_messages: list[dict[str, Any]] | None = None,
    before_sampling: Callable[[], None] | None = None,
    harmony_previous: Sequence[Mapping[str, Any]] | None = None,
) -> Any:
    """:func:`render_chat_request` (``wire`` false) or :func:`render_chat_wire` (true)."""
    settings = settings or current_settings()
    model = model or _lookup(request.model)
    vocab = model.vocab

    if request.use_beam_search:
        raise BadRequest("Beam search is not supported by the render endpoint", param="use_beam_search")
    if not is_harmony_model(model):  # (vLLM's harmony render never looks)
        _check_mm_processor_kwargs(model, request)
    if request.add_generation_prompt and request.continue_final_message \
            and not is_harmony_model(model) and model.config.native_renderer is None:
        # (vLLM's harmony render and its native encodings never look)
        # the defaults applied (the raw body's rule is tito.protocol.raw_rules'); vLLM's words
        raise BadRequest(
            "continue_final_message and add_generation_prompt are not compatible. Use "
            "continue_final_message when you want the model to continue the final message, and "
            "add_generation_prompt when you want to add a header that will prompt it to start a "
            "new assistant message instead.")
    want_mask = (request.model_extra or {}).get("return_assistant_tokens_mask") or False
    if not isinstance(want_mask, bool):
        raise BadRequest("return_assistant_tokens_mask must be a boolean.",
                         param="return_assistant_tokens_mask")
    mistral = isinstance(vocab, MistralVocab)
    if not responses and not mistral:
        # (vLLM's render_responses never checks: the tools go to the template; nor does its
        # chat render for a Mistral tokenizer, whose tools mistral-common encodes)
        _check_tool_choice(request, model)

    tools: list[dict[str, Any]] | None = None
    # (vLLM's harmony Responses render writes the tools whatever the flag: its own preamble)
    exclude_when_none = model.config.exclude_tools_when_tool_choice_none and not (
        responses and is_harmony_model(model))
    if request.tools is not None and not (request.tool_choice == "none" and exclude_when_none):
        # vLLM's dump of each tool (its declared fields only, extra keys dropped, defer_loading
        # copied into the function), without a description / parameters the client never sent
        # (a template testing `description is defined` must not see a null; vLLM adds them)
        tools = [parse_context_tool(tool) for tool in request.tools]

    harmony = is_harmony_model(model)
    if mistral and (request.chat_template is not None
                    or request.chat_template_kwargs is not None):  # even {}
        raise BadRequest("chat_template is not supported for Mistral tokenizers.",
                         param="chat_template")  # vLLM's validate_request_params
    native = model.config.native_renderer  # (DeepSeek's and Inkling's encodings, no template)
    if native is not None:
        check_request_template(request, settings)  # (vLLM checks it before its renderer)
    template = (None if harmony or mistral or native is not None
                else _compile(_template_source(request, model, settings), settings))
    if want_mask and (template is None or not template.has_generation_blocks):
        raise BadRequest(
            "return_assistant_tokens_mask needs a chat template with {% generation %} blocks; "
            f"the template of model `{model.name}` has none"
            + (" (its chats are encoded by code)." if template is None else "."),
            param="return_assistant_tokens_mask",
        )

    kwargs = effective_chat_template_kwargs(request, model.default_chat_template_kwargs,
                                            None if tokenize else model.config.reasoning_effort_map)
    if model.config.reasoning_parser in RAW_ENABLE_THINKING and not tokenize:
        # (vLLM builds its parser here; its /tokenize never does)
        get_reasoning_parser(model.config.reasoning_parser).check_kwargs(kwargs)
    requested_max = (
        request.max_completion_tokens if request.max_completion_tokens is not None else request.max_tokens
    )
    max_param = "max_completion_tokens" if request.max_completion_tokens is not None else "max_tokens"
    budget = core_sampling.check_output_budget(model.max_model_len, requested_max, max_param)
    truncate_to = (None if is_harmony_model(model)  # vLLM's harmony render never truncates
                   else _truncate_to(request.truncate_prompt_tokens, budget))

    kv_params = dict(request.kv_transfer_params) if request.kv_transfer_params else None
    reused = kv_params.pop("prompt_token_ids", None) if kv_params else None
    normalized = chat_messages(request, template, native, model)
    if mistral and not model.multimodal:
        # vLLM 0.33's 400s (a chat body's parts parsed first: not the Responses' own messages)
        core_render.check_text_only(request.messages, model.name, parse_all=not responses)
    tokenized, media = chat_prompt(
        request, model, settings, template=template, normalized=normalized, tools=tools,
        kwargs=kwargs, reused=reused, truncate_to=truncate_to, budget=budget,
        want_mask=want_mask, tokenize=tokenize, responses=responses,
        encoder_messages=encoder_messages, harmony_previous=harmony_previous)
    token_ids = tokenized.token_ids
    if not token_ids and not tokenize:  # (vLLM's /tokenize answers an empty prompt: count 0)
        raise BadRequest("No token_ids rendered", param="messages")
    counted = len(token_ids)  # vLLM's get_max_tokens counts a truncation it did not make
    if request.truncate_prompt_tokens is not None:
        limit = request.truncate_prompt_tokens
        counted = min(counted, model.max_model_len if limit == -1 else limit)
    max_tokens = core_sampling.resolve_max_tokens(
        max_model_len=model.max_model_len,
        prompt_tokens=counted,
        requested=requested_max,
        param=max_param,
        prompt_param="messages",
        default=(model.config.default_sampling_params or {}).get("max_tokens"),
        cap=max_tokens_cap(model.config),
    )
    if before_sampling is not None:
        before_sampling()

    tool_choice = request.tool_choice
    tool_choice_json: Any = (
        tool_choice if tool_choice is None or isinstance(tool_choice, str) else tool_choice.model_dump()
    )
    structured = _chat_structured_outputs(request, model, tools, tool_choice_json, harmony=harmony,
                                          responses=responses)
    # vLLM 0.33 turns the engine's flag off where its parsers read special tokens (recorded in
    # conformance/goldens): a reasoning parser other than harmony's and the older ones
    # (REASONING_LEAVES_SKIP), and a tool parser whose adjust_request does so when tools are
    # sent and tool_choice is not "none". Derender still honours the request's own flag
    # (derender_context).
    skip_special, spaces = engine_skip_special(model, request), request.spaces_between_special_tokens
    tool_parser = RENDER_TRAITS.get(model.tool_parser) if model.tool_parser else None
    # (vLLM adjusts a request for a tool choice, and every request when it has a reasoning
    # parser: its parser engines then read special tokens with or without tools)
    adjusted = tool_choice_json != "none" or model.reasoning_parser is not None
    tool_reads = tool_parser is not None and tool_parser.engine_reads_special and (
        builtin_tools or (tool_choice_json != "none" and bool(request.tools))
        or (adjusted and tool_parser.engine_reads_special_without_tools))
    if (model.reasoning_parser is not None and not is_harmony_model(model)
            and model.reasoning_parser not in REASONING_LEAVES_SKIP) or tool_reads:
        skip_special = False
    # (kimi_k3's markers span several tokens: its adjust_request joins them, spaces off too)
    if model.reasoning_parser in REASONING_JOINS_SPECIAL or (
            tool_reads and tool_parser.engine_joins_special):
        spaces = False
    fields = core_sampling.sampling_fields(
        request,
        kind="chat",
        max_tokens=max_tokens,
        default_sampling=model.config.default_sampling_params,
        structured_outputs=structured,
        skip_special_tokens=skip_special,
        spaces_between_special_tokens=spaces,
        vocab_size=model.vocab_size,
        max_logprobs=model.max_logprobs,
    )
    # the wire path skips the models when every value is certainly valid (reused ids and media
    # parts take the models' checks); the models' errors come here either way
    sampling_wire = (sampling_params_wire(fields) if wire and reused is None and not media
                     else None)
    sampling = _sampling_params(fields) if sampling_wire is None else None

    request_id = _request_id("chatcmpl", request.request_id, header_request_id)
    reasoning_ended = _reasoning_ended(request, model, token_ids, kwargs)
    context = _chat_context(request, model, request_id, token_ids, tool_choice_json, kwargs,
                            reasoning_ended)

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
        "ec_transfer_params": request.ec_transfer_params or None,  # {}: null, as vLLM
        # (vLLM's Responses render and /tokenize build none, so they never check its kwargs)
        "parse_context": (None if responses or tokenize else
                          parse_context(request, tool_choice_json, kwargs, harmony=harmony)),
        "derender_context": context,
    }
    if sampling_wire is not None:  # values the chat request validated, or render's own
        if model.reasoning_parser:
            values["reasoning_parser_kwargs"] = {
                "chat_template_kwargs": parser_template_kwargs(model.reasoning_parser, kwargs,
                                                               chat=not responses)}
        return generate_request_wire(values)
    if model.reasoning_parser:
        values["reasoning_parser_kwargs"] = ReasoningParserKwargs(
            chat_template_kwargs=parser_template_kwargs(model.reasoning_parser, kwargs,
                                                        chat=not responses))
    try:
        generate = GenerateRequest(**values)
    except ValidationError as exc:
        raise BadRequest(str(exc.errors()[0].get("msg")), param="messages") from None
    return generate.to_wire() if wire else generate

