"""The chat render's own checks and parts (template choice, constraints, ``derender_context``).

Why a module of its own: :func:`tito.service.render.render_chat_request` runs these steps in
vLLM's order; each is a small function of the request and the served model, kept here so the
render itself reads as that order. ``warm_up`` (re-exported by :mod:`tito.service.render`)
compiles a model's template at a function's init.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tito.core import render as core_render
from tito.core.mistral import MistralVocab
from tito.core import render_dsv4, render_dsv32, render_dsv41, render_inkling
from tito.core import sampling as core_sampling
from tito.core.message_union import custom_typed
from tito.core.parsers.tools import RENDER_TRAITS, TYPED_TOOL_PARSERS
from tito.core.parsers.tools._schema import tool_params
from tito.core.parsers.tools.structural import structural_tag
from tito.core.template_budget import TemplateRenderError
from tito.errors import BadRequest
from tito.models.hf import ENCODES_EMPTY
from tito.service.harmony import is_harmony_model
from tito.service.render_common import _common_context, reasoning_ended_for
from tito.service.render_settings import RenderSettings, current_settings

if TYPE_CHECKING:
    from tito.models import ServedModel
    from tito.protocol import ChatCompletionRequest, ResponsesRequest, TokenizeChatRequest

logger = logging.getLogger("tito.service.render")


_UNTRUSTED_TEMPLATE = (
    "Chat template is passed with request, but --trust-request-chat-template is not set. "
    "Refused request with untrusted chat template."
)


def _check_tool_choice(request: ChatCompletionRequest, model: ServedModel) -> None:
    """vLLM without a tool parser refuses tool choices it could not honour (spec 4.1 step 3),
    save on harmony, which it renders with the tools and parses without one (its
    ``tool_parsing_unavailable``; its derender then makes no call)."""
    choice = request.tool_choice
    if model.tool_parser is not None or choice in (None, "none") or is_harmony_model(model):
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


def check_request_template(
        request: ChatCompletionRequest | ResponsesRequest | TokenizeChatRequest,
        settings: RenderSettings) -> None:
    """A request's own chat template is refused unless trusted (vLLM checks it for every
    model, those it renders by code too; a Responses request has one in its kwargs only, checked
    first, whatever the model: vLLM's render_responses)."""
    kwargs_template = (request.chat_template_kwargs or {}).get("chat_template")
    if (getattr(request, "chat_template", None) is not None or kwargs_template is not None) and (
            not settings.trust_request_chat_template):
        raise BadRequest(_UNTRUSTED_TEMPLATE, param="chat_template")


def chat_messages(request: ChatCompletionRequest, template: Any, native: str | None,
                  model: ServedModel) -> core_render.NormalizedMessages | None:
    """The messages as the template or the encoding ``native`` gets them (None: a model encoded
    by other code); a template gets them in the model's ``chat_template_content_format``, else
    the one detected from it (vLLM's ``--chat-template-content-format``). An encoding gets
    vLLM's conversation, the developer kept: strings, but DeepSeek-V4's in the ``openai``
    content format (null content ``[]``), an empty one too (DeepSeek-V4's and V4.1's encodings
    write the BOS alone, Inkling's its effort block and generation prompt; V3.2's fails in
    vLLM, a 500: tito's 400)."""
    if template is None and native is None:
        return None
    if native in ENCODES_EMPTY and not request.messages:
        return core_render.NormalizedMessages([], [])
    given = model.config.chat_template_content_format  # (a template's: the server's wins)
    return core_render.normalize_messages(
        request.messages,
        content_format=((template.content_format if given == "auto" else given)
                        if template is not None
                        else "openai" if native == "deepseek_v4" else "string"),
        keep_developer_role=template is None or template.mentions_developer_role,
        keep_null_content=(template.tests_content_none if template is not None
                           else native != "deepseek_v4"),
        string_arguments=template is not None and template.wants_string_arguments,
        text_only_model=None if model.multimodal else model.name,
    )


def native_prompt(model: ServedModel, messages: list[dict[str, Any]],
                  conversation: core_render.NormalizedMessages,
                  tools: list[dict[str, Any]] | None, kwargs: Mapping[str, Any], *,
                  tokenize: bool = False, responses: bool = False) -> str | list[int]:
    """The prompt of a model vLLM renders with its own encoding: the text of DeepSeek-V3.2's
    (:mod:`tito.core.render_dsv32`) or DeepSeek-V4's (:mod:`tito.core.render_dsv4`), from the
    template-ready ``conversation``, the mode from the kwargs; DeepSeek-V4.1's
    (:mod:`tito.core.render_dsv41`) from the request's ``messages``, with the calls' arguments
    as vLLM's conversation parse rewrites them in place (the conversation's); Inkling's ids
    (:mod:`tito.core.render_inkling`), from the request's ``messages``. The template kwargs'
    tools win over the request's; a conversation the encoding refuses is vLLM's 400.
    ``tokenize``: for ``/tokenize``, which checks its body's own messages (``messages``: as its
    encoding's fix-up has them, :mod:`tito.service.tokenize`). ``responses``: the messages are a
    Responses request's, built as plain lists by vLLM (no body types them)."""
    native = model.config.native_renderer
    tools = kwargs["tools"] if kwargs.get("tools") is not None else tools
    try:
        if native == "inkling":
            return _inkling_prompt(model, messages, conversation, tools, kwargs, tokenize,
                                   responses)
        if native == "deepseek_v4":
            return render_dsv4.encode(conversation.messages, tools, render_dsv4.mode_of(kwargs))
        if native == "deepseek_v41":
            prompt = render_dsv41.encode(
                [{**sent, "tool_calls": msg["tool_calls"]} if "tool_calls" in msg else sent
                 for sent, msg in zip(messages, conversation.messages)], tools, kwargs)
            if prompt.images:
                raise BadRequest(_dsv41_images(model))
            return prompt.text
        if not conversation.messages and not tools:  # (vLLM's encoding fails: a 500)
            raise BadRequest("`messages` must contain at least one message (DeepSeek-V3.2's "
                             "encoding renders an empty one only with tools).", param="messages")
        return render_dsv32.encode(conversation.messages, tools, thinking=bool(
            kwargs.get("thinking") or kwargs.get("enable_thinking")))
    except (render_dsv32.DsEncodingError, render_inkling.InklingEncodingError) as exc:
        raise BadRequest(str(exc)) from None  # (vLLM names no param)


def _inkling_prompt(model: ServedModel, messages: list[dict[str, Any]],
                    conversation: core_render.NormalizedMessages, tools: Any,
                    kwargs: Mapping[str, Any], tokenize: bool, responses: bool) -> list[int]:
    """Inkling's ids (:func:`native_prompt`'s rules)."""
    if conversation.media_parts:  # (a multimodal Inkling model: vLLM writes a bare marker its
        # multimodal processor expands, which tito does not implement)
        raise BadRequest(f"tito renders no media parts for model `{model.name}` (its chats are "
                         "encoded by code).", param="messages")
    if kwargs.get("continue_final_message"):
        raise BadRequest("Inkling renderer does not support continue_final_message")
    if not responses and not tokenize and any(lazy_content(m) for m in messages):
        # (/tokenize checks its body's own messages: tito.service.tokenize)
        raise BadRequest("message content must be a string or a sequence of parts")
    return render_inkling.encode(
        messages, tools, markers=render_inkling.marker_ids(model.vocab.token_id),
        text=model.vocab.encode,
        effort=render_inkling.effort_level(kwargs.get("reasoning_effort")),
        add_generation_prompt=bool(kwargs.get("add_generation_prompt", True)))


#: the id vLLM 0.33's DeepSeek-V4.1 vision path requires for its image placeholder
#: (``IMAGE_SENTINEL_BASE_ID``, the checkpoint's ``image_token_id``)
DSV41_IMAGE_ID = 129264


def _dsv41_images(model: ServedModel) -> str:
    """Why a DeepSeek-V4.1 prompt with image placeholders is refused (vLLM's 400 where its
    multimodal processor fails: the placeholder token missing from the vocabulary, or at
    another id; tito's where it would process the images: tito loads no media)."""
    token_id = model.vocab.token_id(render_dsv41.IMAGE)
    if token_id is None:
        return f"Token not found in tokenizer: {render_dsv41.IMAGE}"
    if token_id != DSV41_IMAGE_ID:
        return (f"Image placeholder {render_dsv41.IMAGE!r} has id {token_id}, expected "
                f"{DSV41_IMAGE_ID} (the config's image_token_id); the DeepSeek-V4.1 vision path "
                "keys image routing and engram masking off this id.")
    return (f"tito renders no media parts for model `{model.name}` (its chats are encoded by "
            "code).")


def lazy_content(message: Mapping[str, Any]) -> bool:
    """Whether vLLM's chat body leaves ``message``'s content, a part list, an unread iterable,
    which Inkling's encoding refuses (vLLM's 400; found by fuzz_render seeds 290 and 310): the
    body's union of message types picks the role's OpenAI type, whose parts are an iterable,
    when vLLM's own type (a real list) refuses the message or sets no more fields
    (:func:`tito.core.message_union.custom_typed`, the one model of that union: a
    ``reasoning: {}`` or a listed ``tool_calls: "x"`` is refused there). ``message``: as the
    body holds it (vLLM's chat body renames ``reasoning_content`` and lists the calls, its
    tokenize body does not)."""
    role, content = message.get("role"), message.get("content")
    if not isinstance(content, list) or role not in ("system", "developer", "user",
                                                     "assistant", "tool"):
        return False
    if role == "tool" and not isinstance(message.get("tool_call_id"), str) or \
            role != "tool" and message.get("name") is not None \
            and not isinstance(message["name"], str):
        return False  # (not the OpenAI type's)
    return not custom_typed(message)


def _template_source(
    request: ChatCompletionRequest, model: ServedModel, settings: RenderSettings
) -> str:
    check_request_template(request, settings)
    kwargs_template = (request.chat_template_kwargs or {}).get("chat_template")
    # vLLM 0.33: an empty or "auto" request template leaves the kwargs' one, "auto" there the
    # model's own (its merge_kwargs skips null and "auto")
    requested = (request.chat_template if request.chat_template not in (None, "", "auto")
                 else kwargs_template)
    if requested is not None and requested != "auto":
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
    request: ChatCompletionRequest, model: ServedModel, token_ids: list[int],
    kwargs: Mapping[str, Any] | None = None,
) -> bool | None:
    """Spec 4.1 step 11: include_reasoning=false -> true; a reasoning parser -> its answer for
    the prompt and the effective template kwargs (:func:`.render_common.reasoning_ended_for`)."""
    if not request.include_reasoning:
        return True
    parser = model.reasoning_parser
    if parser is None:
        return None
    return reasoning_ended_for(parser, token_ids, model.vocab, kwargs)


def calls_schema_replaces_text(model: ServedModel) -> bool:
    """Whether vLLM 0.33 constrains required / named calls of ``model`` with the JSON schema of
    the calls (a tool format without a structural tag), which on the Responses path becomes the
    request's ``text.format`` (so a ``structured_outputs`` beside it is a 400 there)."""
    parser = RENDER_TRAITS.get(model.tool_parser) if model.tool_parser else None
    return parser is not None and not is_harmony_model(model) \
        and parser.structural_tag_model is None and parser.forced_calls == "json_list"


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
        # (the calls' tag needs the tool parser: vLLM's harmony parser adds it, not its own
        # reasoning half, which a gpt-oss model always has)
        tag_model: str | None = "harmony" if model.tool_parser is not None else None
        parser = None
    else:
        parser = RENDER_TRAITS.get(model.tool_parser) if model.tool_parser else None
        tag_model = parser.structural_tag_model if parser is not None else None
    if level is None:
        level = parser.default_tool_strict_level if parser is not None else "auto"
    tag = structural_tag(tag_model, tools, tool_choice, strict_level=level,
                         parallel_tool_calls=request.parallel_tool_calls, constraint=constraint)
    if tag is not None:
        return {"structural_tag": tag}
    if harmony or parser is None or parser.forced_calls == "native":
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


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _chat_context(
    request: ChatCompletionRequest, model: ServedModel, request_id: str, token_ids: list[int],
    tool_choice_json: Any, kwargs: Mapping[str, Any], reasoning_ended: bool | None,
) -> dict[str, Any]:
    """The chat render's ``derender_context`` (its keys: :mod:`tito.service.render`'s header):
    what both endpoints write, then the chat request's logprobs, tools, reasoning and template
    kwargs, each only when it is not the default."""
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
    return context
