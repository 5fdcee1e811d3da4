"""Anthropic Messages request -> the OpenAI chat request it renders as (vLLM 0.33's rules).

Why a conversion and not a renderer: vLLM's ``/v1/messages/render`` converts the request with
``AnthropicServingMessages.to_chat_completion_request`` and runs its chat render on the result,
so a Messages prompt is, token for token, the chat prompt of the converted request. tito does the
same: this module builds the chat fields (pure, no model, no I/O); ``tito.service.messages``
validates them and runs tito's one chat render (templates, tools, structural tags,
``parse_context``, ``derender_context`` all follow).

The rules, in vLLM's order:

- **system**: the ``system`` string, or its ``text`` blocks joined without separator, skipping
  any block starting with ``x-anthropic-billing-header`` (Claude Code's per-request attribution,
  which would defeat prefix caching). With ``merge_inline_system`` (the template only accepts a
  leading system message; decided by the caller per model), the text of every ``role: "system"``
  message is appended to it; otherwise such a message stays where it is as its own system
  message (billing headers stripped; dropped when no text is left). One leading system message
  when any text was collected.
- **messages**: string content passes through. Blocks: ``text`` (non-empty) and ``image``
  (``source`` -> an ``image_url`` part: ``url`` sources as they are, else a
  ``data:<media_type>;base64,<data>`` URI, ``image/jpeg`` by default) are content parts (a lone
  text part becomes a plain string); ``thinking`` texts join into the message's ``reasoning``;
  ``redacted_thinking``, ``tool_reference``, ``tool_addition``, ``tool_removal`` add nothing;
  ``tool_use`` -> a ``tool_calls`` entry (``arguments`` = ``json.dumps(input or {})``);
  ``tool_result`` in a user message -> a ``tool`` message right away (before the user message
  itself: its ``content`` string, or its list's ``text`` items joined with ``"\\n"``), then a user
  message with the list's images, then a ``tool`` message with its ``tool_reference`` items;
  ``is_error`` is not rendered. A ``tool_result`` in an assistant message is a text part
  ``"Tool result: " + str(content)``. A user message left without content is dropped (a turn of
  only tool results); an assistant message is kept (possibly with neither content nor calls).
- **fields**: ``max_tokens`` -> ``max_tokens`` and ``max_completion_tokens``;
  ``stop_sequences`` -> ``stop``; ``temperature``, ``top_p``, ``top_k``, ``cache_salt``,
  ``kv_transfer_params``, ``ec_transfer_params``, ``vllm_xargs``, ``chat_template_kwargs``,
  ``watermarking`` pass through; ``metadata`` is dropped.
- **after construction** (vLLM assigns these to the built request, past its validators):
  ``stream: true`` -> ``stream`` with ``stream_options {include_usage, continuous_usage_stats}``;
  ``output_config.format.schema`` -> a ``json_schema`` ``response_format`` named
  ``json_schema``; ``output_config.effort`` -> ``reasoning_effort``; ``thinking`` disabled ->
  ``reasoning_effort`` = the caller's ``disabled_thinking_effort`` (``"none"``, or ``"low"`` for
  templates that ignore ``"none"``), enabled -> ``thinking_token_budget`` = ``budget_tokens``,
  adaptive -> nothing; ``tool_choice`` -> ``parallel_tool_calls = not
  disable_parallel_tool_use`` and auto/any/none/tool -> ``auto``/``required``/``none``/named
  (absent: null); ``tools`` (after the ``tool_addition``/``tool_removal`` blocks of the
  messages, in order: by value declares, by reference un-defers, removal drops; a reference to an
  undeclared tool is a 400) -> function tools (``input_schema`` is ``parameters``), and
  ``tool_choice`` null becomes ``auto``.

Deliberate difference: a ``tool_use`` block without ``id`` gets ``call_<m>_<b>`` (message and
block index) where vLLM uses ``call_<unix seconds>``: the prompt must not depend on the clock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tito.core.render import BILLING_HEADER
from tito.core.render_parts import join_texts
from tito.errors import BadRequest
from tito.protocol.anthropic import (
    AnthropicContentBlock,
    AnthropicMessage,
    AnthropicMessagesRequest,
    AnthropicTool,
    AnthropicToolChangeDefinition,
)

__all__ = ["ChatConversion", "chat_messages", "resolve_tools", "to_chat_fields"]

@dataclass
class ChatConversion:
    """The chat request of a Messages request: ``fields`` go through the chat request's
    validation, ``assigned`` are set on the validated request afterwards (as vLLM does)."""

    fields: dict[str, Any]
    assigned: dict[str, Any] = field(default_factory=dict)


def _system_text(content: str | list[AnthropicContentBlock]) -> str | None:
    if isinstance(content, str):
        return None if content.startswith(BILLING_HEADER) else content
    parts = [b.text for b in content
             if b.type == "text" and b.text and not b.text.startswith(BILLING_HEADER)]
    return "".join(parts) if parts else None


def _image_url(source: dict[str, Any]) -> str:
    if source.get("type") == "url":
        return str(source.get("url", ""))
    return f"data:{source.get('media_type', 'image/jpeg')};base64,{source.get('data', '')}"


def _tool_result_messages(block: AnthropicContentBlock) -> list[dict[str, Any]]:
    """A user's ``tool_result``: the tool message, then its images, then its tool references."""
    call_id = block.tool_use_id or ""
    text, images, refs = "", [], []
    if isinstance(block.content, str):
        text = block.content
    elif isinstance(block.content, list):
        texts = []
        for item in block.content:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "text":
                texts.append(item.get("text", ""))
            elif kind == "image":
                source = item.get("source", {})
                if not isinstance(source, dict):  # (vLLM: an AttributeError, its 500)
                    raise BadRequest("a tool_result image's source must be an object.",
                                     param="messages")
                url = _image_url(source)
                if url:
                    images.append(url)
            elif kind == "tool_reference":
                name = item.get("tool_name") or item.get("name")
                if name:
                    refs.append({"type": "tool_reference", "name": name})
        text = join_texts(texts)  # (vLLM's join: a non-string text is its TypeError 400)
    out: list[dict[str, Any]] = [{"role": "tool", "tool_call_id": call_id, "content": text or ""}]
    if images:
        out.append({"role": "user", "content": [{"type": "image_url", "image_url": {"url": u}}
                                                 for u in images]})
    if refs:
        out.append({"role": "tool", "tool_call_id": call_id, "content": refs})
    return out


def _message(msg: AnthropicMessage, m: int, out: list[dict[str, Any]]) -> None:
    """Append ``msg`` (and the tool messages its tool results become) to ``out``."""
    converted: dict[str, Any] = {"role": msg.role}
    if isinstance(msg.content, str):
        converted["content"] = msg.content
        out.append(converted)
        return
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    reasoning: list[str] = []
    for b, block in enumerate(msg.content):
        kind = block.type
        if kind == "text" and block.text:
            parts.append({"type": "text", "text": block.text})
        elif kind == "image" and block.source:
            parts.append({"type": "image_url", "image_url": {"url": _image_url(block.source)}})
        elif kind == "thinking" and block.thinking is not None:
            reasoning.append(block.thinking)
        elif kind == "tool_use":
            calls.append({"id": block.id or f"call_{m}_{b}", "type": "function",
                          "function": {"name": block.name or "",
                                       "arguments": json.dumps(block.input or {})}})
        elif kind == "tool_result":
            if msg.role == "user":
                out.extend(_tool_result_messages(block))
            else:
                result = str(block.content) if block.content else ""
                parts.append({"type": "text", "text": f"Tool result: {result}"})
    if reasoning:
        converted["reasoning"] = "".join(reasoning)
    if calls:
        converted["tool_calls"] = calls
    if parts:
        only_text = len(parts) == 1 and parts[0]["type"] == "text"
        converted["content"] = parts[0]["text"] if only_text else parts
    if msg.role == "user" and "content" not in converted:
        return
    out.append(converted)


def chat_messages(request: AnthropicMessagesRequest, *, merge_inline_system: bool) -> list[
        dict[str, Any]]:
    """The chat messages of ``request`` (the system and messages rules of the header)."""
    system: list[str] = []
    if isinstance(request.system, str):
        if request.system:
            system.append(request.system)
    elif request.system:
        system += [b.text for b in request.system
                   if b.type == "text" and b.text and not b.text.startswith(BILLING_HEADER)]
    if merge_inline_system:
        system += [t for msg in request.messages if msg.role == "system"
                   for t in [_system_text(msg.content)] if t]
    out: list[dict[str, Any]] = [{"role": "system", "content": "".join(system)}] if system else []
    for m, msg in enumerate(request.messages):
        if msg.role == "system":
            text = None if merge_inline_system else _system_text(msg.content)
            if text:
                out.append({"role": "system", "content": text})
            continue
        _message(msg, m, out)
    return out


def resolve_tools(request: AnthropicMessagesRequest) -> list[AnthropicTool] | None:
    """The tools in effect at the end of the conversation (``tool_addition`` / ``tool_removal``
    blocks applied in order), or the request's ``tools`` when there are none."""
    changes = [b for msg in request.messages if not isinstance(msg.content, str)
               for b in msg.content if b.type in ("tool_addition", "tool_removal")]
    if not changes:
        return request.tools
    tools = {t.name: t for t in request.tools or []}
    removed: set[str] = set()
    for block in changes:
        change = block.tool
        assert change is not None  # the block's validator requires it
        if isinstance(change, AnthropicToolChangeDefinition):
            name = change.definition.name
            tools[name] = change.definition
        else:
            name = change.name
            if name not in tools:
                raise BadRequest(f"{block.type} references tool {name!r}, which is not "
                                 "declared in tools", param="messages")
            if block.type == "tool_addition":
                tools[name] = tools[name].model_copy(update={"defer_loading": None})
        if block.type == "tool_removal":
            removed.add(name)
        else:
            removed.discard(name)
    return [t for name, t in tools.items() if name not in removed]


_CHOICES = {"auto": "auto", "any": "required", "none": "none"}


def to_chat_fields(request: AnthropicMessagesRequest, *, merge_inline_system: bool = False,
                   disabled_thinking_effort: str = "none") -> ChatConversion:
    """The chat request ``request`` renders as (every rule in the module docstring).

    ``merge_inline_system``: the model's template accepts only a leading system message;
    ``disabled_thinking_effort``: the ``reasoning_effort`` that turns its thinking off."""
    fields: dict[str, Any] = {
        "model": request.model,
        "messages": chat_messages(request, merge_inline_system=merge_inline_system),
        "max_tokens": request.max_tokens,
        "max_completion_tokens": request.max_tokens,
        "stop": request.stop_sequences,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "top_k": request.top_k,
        "watermarking": request.watermarking,
        "cache_salt": request.cache_salt,
        "kv_transfer_params": request.kv_transfer_params,
        "ec_transfer_params": request.ec_transfer_params,
        "vllm_xargs": request.vllm_xargs,
        "chat_template_kwargs": request.chat_template_kwargs,
    }
    assigned: dict[str, Any] = {}
    if request.stream:
        assigned["stream"] = True
        assigned["stream_options"] = {"include_usage": True, "continuous_usage_stats": True}
    config = request.output_config
    if config is not None and config.format is not None and config.format.json_schema:
        assigned["response_format"] = {
            "type": config.format.type,
            "json_schema": {"name": config.format.type, "schema": config.format.json_schema},
        }
    if config is not None and config.effort is not None:
        assigned["reasoning_effort"] = config.effort
    thinking = request.thinking
    if thinking is not None and thinking.type == "disabled":
        assigned["reasoning_effort"] = disabled_thinking_effort
    elif thinking is not None and thinking.type == "enabled":
        assigned["thinking_token_budget"] = thinking.budget_tokens
    choice = request.tool_choice
    assigned["tool_choice"] = None
    if choice is not None:
        assigned["parallel_tool_calls"] = not choice.disable_parallel_tool_use
        assigned["tool_choice"] = _CHOICES.get(choice.type) or {
            "type": "function", "function": {"name": choice.name}}
    tools = resolve_tools(request)
    if tools is not None:
        assigned["tools"] = [{"type": "function", "function": {
            "name": t.name, "description": t.description, "parameters": t.input_schema,
            "strict": t.strict, "defer_loading": t.defer_loading}} for t in tools]
        if assigned["tool_choice"] is None:
            assigned["tool_choice"] = "auto"
    return ChatConversion(fields, assigned)
