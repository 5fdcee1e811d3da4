"""Messages render: an Anthropic Messages request -> its chat request -> one ``GenerateRequest``,
as vLLM 0.33's ``POST /v1/messages/render``.

Why through chat: vLLM converts the request (``AnthropicServingMessages.
to_chat_completion_request``) and runs its chat render on the result; tito converts with
:mod:`tito.core.anthropic` and runs its own chat render, so the prompt, sampling, tools,
structural tags, ``parse_context`` and ``derender_context`` are the chat ones (derender a
rendered Messages request as chat). What needs the model is decided here, once per model and
cached, as vLLM decides it once per server:

- ``merge_inline_system``: the model's template is rendered with ``[system, user, system, user]``
  in a plain Jinja sandbox without tito's helpers (vLLM's probe); if that raises (Qwen's
  "system message must be first" guard), inline system messages are merged into the leading one.
  No template (mistral-common models) means merge, as vLLM.
- the ``reasoning_effort`` for ``thinking: {"type": "disabled"}``: the model's
  ``anthropic_disabled_thinking_effort`` (vLLM's ``--anthropic-disabled-thinking-effort``);
  when that is ``auto``, ``"none"``, unless rendering a
  one-word chat with ``"none"`` fails or gives the same prompt as one of the real efforts (the
  template ignores ``"none"``): then ``"low"``. Probed only when such a request comes.

Then vLLM's order: the fields vLLM assigns past validation (tool choice without tools is
allowed, as in vLLM) are set on the validated chat request; a named ``tool_choice`` absent from
non-empty ``tools`` is the 400 of the model's tool format, if it looks the name up
(:func:`_check_named_choice`).
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tito.core.anthropic import to_chat_fields
from tito.errors import BadRequest, tool_not_in_tools, tool_not_passed
from tito.protocol import (
    ChatCompletionNamedToolChoiceParam,
    ChatCompletionRequest,
    ChatCompletionToolsParam,
    GenerateRequest,
    StreamOptions,
)
from tito.protocol.anthropic import AnthropicMessagesRequest
from tito.service.render import RenderSettings, render_chat_request

if TYPE_CHECKING:
    from tito.models import ServedModel

__all__ = ["chat_request_for", "disabled_thinking_effort", "merge_inline_system",
           "render_messages_request"]

_EFFORTS = ("low", "medium", "high", "xhigh", "max")
_PROBE_MESSAGES = [{"role": "system", "content": "t"}, {"role": "user", "content": "t"},
                   {"role": "system", "content": "t"}, {"role": "user", "content": "t"}]
_lock = threading.Lock()
_merge: dict[tuple[str, str | None], bool] = {}
_effort: dict[tuple[str, str | None, str], str] = {}


def _key(model: ServedModel) -> tuple[str, str | None]:
    return model.name, model.chat_template


def _effort_key(model: ServedModel) -> tuple[str, str | None, str]:
    """What the probe's prompts depend on beyond the template: the server's template kwargs
    and effort map (two servers of one model and template may differ in them)."""
    return (*_key(model), json.dumps([model.config.default_chat_template_kwargs,
                                      model.config.reasoning_effort_map], sort_keys=True))


def _template_refuses_inline_system(source: str | None) -> bool:
    if not source:
        return True
    import jinja2
    import jinja2.ext
    import jinja2.sandbox

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    try:
        env.from_string(source).render(messages=_PROBE_MESSAGES, add_generation_prompt=False)
    except jinja2.TemplateError:
        return True
    return False


def merge_inline_system(model: ServedModel) -> bool:
    """Whether ``model``'s template needs inline system messages merged (module docstring)."""
    key = _key(model)
    if key not in _merge:
        value = _template_refuses_inline_system(model.chat_template)
        with _lock:
            _merge[key] = value
    return _merge[key]


def _probe_prompt(model: ServedModel, effort: str, settings: RenderSettings | None) -> Any:
    request = ChatCompletionRequest(model=model.name, reasoning_effort=effort,  # type: ignore[arg-type]
                                    messages=[{"role": "user", "content": "Hi"}])
    try:
        return render_chat_request(request, settings=settings, model=model).token_ids
    except Exception:  # any failure means "none" is not usable, as vLLM's probe decides
        return None


def disabled_thinking_effort(model: ServedModel, settings: RenderSettings | None = None) -> str:
    """The ``reasoning_effort`` that turns ``model``'s thinking off (module docstring): the
    server's ``anthropic_disabled_thinking_effort`` unless ``auto``."""
    if model.config.anthropic_disabled_thinking_effort != "auto":
        return model.config.anthropic_disabled_thinking_effort
    key = _effort_key(model)
    if key not in _effort:
        none = _probe_prompt(model, "none", settings)
        value = "none"
        if none is None or any(_probe_prompt(model, e, settings) == none for e in _EFFORTS):
            value = "low"
        with _lock:
            _effort[key] = value
    return _effort[key]


def chat_request_for(request: AnthropicMessagesRequest, model: ServedModel,
                     settings: RenderSettings | None = None) -> ChatCompletionRequest:
    """The chat request vLLM's Messages preprocessing amounts to."""
    effort = "none"
    if request.thinking is not None and request.thinking.type == "disabled":
        effort = disabled_thinking_effort(model, settings)
    conversion = to_chat_fields(request, merge_inline_system=merge_inline_system(model),
                                disabled_thinking_effort=effort)
    assigned = conversion.assigned
    try:
        chat = ChatCompletionRequest.model_validate(conversion.fields)
        tools = assigned.get("tools")
        if tools is not None:
            assigned["tools"] = [ChatCompletionToolsParam.model_validate(t) for t in tools]
        choice = assigned.get("tool_choice")
        if isinstance(choice, dict):
            assigned["tool_choice"] = ChatCompletionNamedToolChoiceParam.model_validate(choice)
        if "stream_options" in assigned:
            assigned["stream_options"] = StreamOptions.model_validate(assigned["stream_options"])
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ()))
        raise BadRequest(str(err.get("msg")), param=loc or None) from None
    for name, value in assigned.items():
        setattr(chat, name, value)
    _check_named_choice(chat, model)
    return chat


def _check_named_choice(chat: ChatCompletionRequest, model: ServedModel) -> None:
    """A named ``tool_choice`` absent from non-empty ``tools``: vLLM's Messages conversion sets
    both past the chat body's validation, so only the tool format's constraint looks the name
    up. A format with a structural tag (harmony too) is xgrammar's 400 ("The tool with name ...
    is not found in the tools list."); one constrained by the calls' JSON schema the schema
    lookup's 400 (``get_json_schema_from_tools``); a native or mistral format, which forces no
    call by a schema (``supports_required_and_named`` false; mistral's skips an unknown name),
    renders it unconstrained (fuzz_render s499-164, inkling; ``render_messages_named.json``)."""
    from tito.service.harmony import is_harmony_model
    from tito.service.render_chat_parts import calls_schema_replaces_text
    from tito.service.responses import tags_forced_calls

    choice = chat.tool_choice
    if not isinstance(choice, ChatCompletionNamedToolChoiceParam) or not chat.tools or \
            choice.function.name in [t.function.name for t in chat.tools]:
        return
    name = choice.function.name
    if tags_forced_calls(model) or (is_harmony_model(model) and model.tool_parser is not None):
        raise tool_not_in_tools(name, param="tool_choice")
    if calls_schema_replaces_text(model):
        raise tool_not_passed(name)


def render_messages_request(
    request: AnthropicMessagesRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
) -> GenerateRequest:
    """Render one Messages request (vLLM 0.33's ``/v1/messages/render``): the chat render of
    :func:`chat_request_for` (``model`` defaults to the registry's, 404 when unknown)."""
    if model is None:
        from tito.models import get_registry

        model = get_registry().get(request.model)
    chat = chat_request_for(request, model, settings)
    return render_chat_request(chat, settings=settings, model=model,
                               header_request_id=header_request_id)
