"""Responses render: an OpenAI Responses request -> its chat request
(:mod:`tito.service.responses`) -> one ``GenerateRequest``, as vLLM 0.33's
``POST /v1/responses/render``.

Why a module of its own: the Responses derender function converts requests too but never
renders; this is the render side, with the checks vLLM makes around its chat preprocessing, in
its order (:func:`after_render`: the constraint and the ranges once the chat is rendered). What
the render changes on the chat render's output: the request id is the request's own
(``resp_<hex>`` by default), ``reasoning_ended`` and ``parse_context`` are null, and
``derender_context`` is chat's with ``kind: "responses"`` and the request fields the ``Response``
object echoes (``response``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tito.errors import BadRequest, InvalidRequest
from tito.models.hf import ENCODES_EMPTY
from tito.protocol import ChatCompletionRequest
from tito.protocol.responses import ResponsesRequest
from tito.service.responses import (
    chat_request_for, check_harmony_tools, echo_fields, structured_constraint,
)
from tito.service.responses_items import check_harmony_items

if TYPE_CHECKING:
    from tito.models import ServedModel
    from tito.protocol import GenerateRequest
    from tito.service.render import RenderSettings

__all__ = ["after_render", "render_responses_request", "render_responses_wire"]


def _builtin_tools(request: ResponsesRequest) -> bool:
    """Whether the request has tools its chat request leaves out (built-in ones) and may call
    tools (its chat request's ``tool_choice`` is then ``"none"``, vLLM's parsers read its own)."""
    return request.tool_choice != "none" and any(tool.type != "function" for tool in request.tools)



def render_responses_request(
    request: ResponsesRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
) -> GenerateRequest:
    """Render one Responses request (vLLM 0.33's ``/v1/responses/render``)."""
    from tito.service.render import render_chat_request

    chat, model = _chat_to_render(request, model, settings)
    generate = render_chat_request(chat, settings=settings, model=model, responses=True,
                                   builtin_tools=_builtin_tools(request),
                                   before_sampling=lambda: after_render(request, model),
                                   harmony_previous=request.previous_input_messages)
    generate.request_id = request.request_id
    generate.reasoning_ended = None
    generate.parse_context = None  # vLLM's Responses render builds none
    sampling = generate.sampling_params  # skip_special_tokens: as chat's (render_chat_request)
    if sampling.extra_args is None:
        sampling.extra_args = {}
    generate.derender_context = _responses_context(request, generate.derender_context)
    return generate


def render_responses_wire(
    request: ResponsesRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
) -> dict[str, Any]:
    """``render_responses_request(...).to_wire()``, what the Responses render function answers,
    without building the engine request's models when no value needs their checks (the chat
    render's wire path, :func:`tito.service.render.render_chat_wire`): the same dict, the same
    errors."""
    from tito.service.render import render_chat_wire
    from tito.service.render_wire import SAMPLING_ORDER

    chat, model = _chat_to_render(request, model, settings)
    wire = render_chat_wire(chat, settings=settings, model=model, responses=True,
                            builtin_tools=_builtin_tools(request),
                            before_sampling=lambda: after_render(request, model),
                            harmony_previous=request.previous_input_messages)
    wire["request_id"] = request.request_id
    wire["reasoning_ended"] = None
    wire["parse_context"] = None
    sampling = wire["sampling_params"]
    if sampling.get("extra_args") is None:  # {} is not the default (None): sent, in its place
        sampling = {**sampling, "extra_args": {}}
        wire["sampling_params"] = {k: sampling[k] for k in SAMPLING_ORDER if k in sampling}
    wire["derender_context"] = _responses_context(request, wire.get("derender_context"))
    return wire


def _responses_context(request: ResponsesRequest, context: dict[str, Any] | None) -> dict[str, Any]:
    """The chat render's ``derender_context`` for a Responses request (its kind, id, echo)."""
    context = dict(context or {})
    context.update(kind="responses", request_id=request.request_id, response=echo_fields(request))
    return context


def _chat_to_render(
    request: ResponsesRequest, model: ServedModel | None, settings: RenderSettings | None
) -> tuple[ChatCompletionRequest, ServedModel]:
    """The checks of a Responses render, then the chat request it renders (and its model)."""
    from tito.service.harmony import is_harmony_model
    from tito.service.render import current_settings
    from tito.service.render_chat_parts import check_request_template

    if model is None:
        from tito.models import get_registry

        model = get_registry().get(request.model)
    if request.previous_response_id is not None:
        raise InvalidRequest(
            "previous_response_id is not supported by the stateless render endpoint.",
            param="previous_response_id",
        )
    check_request_template(request, settings or current_settings())
    if is_harmony_model(model):  # (vLLM's harmony preamble, its tools, before the items)
        # its parser's adjust_request reads the constraint first and converts it (a JSON
        # text that does not parse or nests too deeply, a Lark grammar that does not convert:
        # its 400s, before the tools and items)
        from tito.core.harmony.structured import harmony_constraint_format  # gpt-oss only

        harmony_constraint_format(structured_constraint(request))
        check_harmony_tools(request)
        if isinstance(request.input, list):
            check_harmony_items(request.input)
    # vLLM 0.33's order: its chat preprocessing checks the multimodal kwargs, then the output
    # budget, then renders (an empty conversation, Inkling's encoding, the items' parts); its
    # parser's adjust_request and its sampling params (the constraint, then the ranges) come
    # after (render_responses_outputs' *_order_* goldens)
    if not is_harmony_model(model):  # vLLM's chat preprocessing reads them, extras as they are
        from tito.service.render_common import _check_mm_processor_kwargs

        _check_mm_processor_kwargs(model, request)
    limit = model.max_model_len
    if request.max_output_tokens is not None and request.max_output_tokens > limit:
        raise BadRequest(
            f"max_output_tokens={request.max_output_tokens} cannot be greater than "
            f"max_model_len={limit}. Please request fewer output tokens.",
            param="max_output_tokens",
        )
    if isinstance(request.input, list) and not request.input and not request.instructions \
            and not is_harmony_model(model) \
            and model.config.native_renderer not in ENCODES_EMPTY:
        # (harmony renders an empty conversation, so do the encodings of ENCODES_EMPTY)
        raise BadRequest(
            "Cannot apply chat template to an empty conversation. Provide at least one message.",
        )
    if model.config.native_renderer == "inkling" and isinstance(request.input, list) and any(
            i.get("type") == "custom_tool_call_output"
            and isinstance(i.get("output"), (list, dict)) for i in request.input):
        # its output, not a string, is openai's Iterable, which vLLM 0.33 leaves unread in the
        # tool message: Inkling's encoding refuses that content (as a chat message's lazy
        # parts, render_chat_parts.lazy_content; fuzz_render seed 345)
        raise BadRequest("message content must be a string or a sequence of parts")
    # (its input items read as vLLM's render reads them)
    return chat_request_for(request, model, render=True), model


def after_render(request: ResponsesRequest, model: ServedModel) -> None:
    """The Responses checks vLLM 0.33 makes once the chat is rendered (the chat render calls
    this before its sampling params): its parser's ``adjust_request`` and ``to_sampling_params``
    read the constraint (``structured_outputs`` beside ``text.format``, or beside the calls
    schema that becomes the text format of a tool format without a structural tag), then its
    ``SamplingParams`` checks the ranges. So a template's, an encoding's or mistral-common's
    error comes first (render_responses_outputs' ``*_order_*`` goldens)."""
    from tito.service.harmony import is_harmony_model
    from tito.service.render import calls_schema_replaces_text

    if not is_harmony_model(model):  # (gpt-oss: read before its tools and items)
        structured_constraint(request)
    so, choice = request.structured_outputs, request.tool_choice
    if so and so.get("structural_tag") is None and request.tools \
            and (choice == "required" or isinstance(choice, dict)) \
            and calls_schema_replaces_text(model):
        raise BadRequest("Cannot specify both structured_outputs and text.format",
                         param="structured_outputs")
    request.check_ranges()
