"""OpenAI chat messages -> the dicts a chat template reads, and the media parts set aside.

Why a module of its own: the message rules (content formats, null content, tool-call
arguments, reasoning names, the developer role, billing headers) are listed in
:mod:`tito.core.render`'s docstring, which re-exports the public names here; this is their
code. A message's content parts are :mod:`tito.core.render_parts`'.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from tito.core.message_union import custom_typed, tool_calls_ignored, typed_tools
from tito.core.render_parts import content_for_template, join_texts, refuse_prompt_embeds
from tito.errors import BadRequest

if TYPE_CHECKING:
    from tito.core.template import ContentFormat


@dataclass(frozen=True)
class NormalizedMessages:
    """Messages as the template receives them, and the media parts set aside for the engine."""

    messages: list[dict[str, Any]]
    media_parts: list[dict[str, Any]]


class TokenizeMessages(NamedTuple):
    """An encoding's ``/tokenize`` fix-up (its ``tokenize_messages``): vLLM 0.33 hands the encoding
    the tokenize body's own messages, where tito renders a chat request built of them.
    ``render``: the messages render reads (normalizes, then encodes); ``encoder``: the ones the
    encoding reads in their place, None when the same."""

    render: list[dict[str, Any]]
    encoder: list[dict[str, Any]] | None = None


def without_ignored_calls(messages: Sequence[dict[str, Any]]
                          ) -> tuple[list[dict[str, Any]], dict[int, Any]]:
    """A ``/tokenize`` body's ``messages`` without the ``tool_calls`` of each OpenAI-typed
    message of another role than the assistant's (:func:`tito.core.message_union.tool_calls_ignored`:
    vLLM's union takes any value there, unchecked, where tito's chat request would list and
    check them), and those calls as sent, by message index, for :func:`with_sent_calls`."""
    sent: dict[int, Any] = {}
    out = []
    for i, msg in enumerate(messages):
        if "tool_calls" in msg and tool_calls_ignored(msg):
            sent[i] = msg["tool_calls"]
            msg = {k: v for k, v in msg.items() if k != "tool_calls"}
        out.append(msg)
    return out, sent


def with_sent_calls(messages: list[dict[str, Any]], sent: Mapping[int, Any], *,
                    skip_tool: bool = False) -> list[dict[str, Any]]:
    """``messages``, tito's chat request of a ``/tokenize`` body, with the calls
    :func:`without_ignored_calls` took out put back as sent, unlisted (vLLM's tokenize body
    keeps them, and its union typed the message with them counted:
    :func:`tito.core.message_union.custom_typed`). ``skip_tool``: not a tool message's
    (DeepSeek-V4.1's encoding merges it into a user turn)."""
    if not sent:
        return messages
    return [{**msg, "tool_calls": sent[i]}
            if i in sent and not (skip_tool and msg.get("role") == "tool") else msg
            for i, msg in enumerate(messages)]


def _tool_calls_for_template(
    tool_calls: Any, where: str, *, string_arguments: bool = False
) -> list[dict[str, Any]]:
    if not isinstance(tool_calls, list):
        raise BadRequest(f"{where} must be a list.", param=where)
    out: list[dict[str, Any]] = []
    for j, call in enumerate(tool_calls):
        cw = f"{where}[{j}]"
        if not isinstance(call, Mapping):
            raise BadRequest(f"{cw} must be an object.", param=cw)
        function = call.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise BadRequest(f"{cw}.function.name must be a string.", param=f"{cw}.function.name")
        args = function.get("arguments")
        if args is not None and not isinstance(args, (str, dict, list)):
            raise BadRequest(
                f"{cw}.function.arguments must be a JSON string.", param=f"{cw}.function.arguments"
            )
        parsed: Any
        if string_arguments:
            # the template concatenates them: the client's own text, as transformers passes it
            parsed = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)
        elif args is None or args == "":
            parsed = {}
        elif isinstance(args, str):
            try:
                parsed = json.loads(args)
            except RecursionError:
                raise BadRequest(
                    f"{cw}.function.arguments is nested too deeply.",
                    param=f"{cw}.function.arguments",
                ) from None
            except ValueError:
                # vLLM 0.33: a malformed string in the history is coerced to {} so that the
                # conversation can go on (recorded: conformance goldens, *_bad_arguments)
                parsed = {}
        else:
            parsed = args
        if not string_arguments and not isinstance(parsed, dict):
            parsed = {}  # vLLM: templates need a mapping ("[1, 2]" -> {})
        # vLLM 0.33 validates the call as openai's typed dicts: their keys first, in their
        # order, then the client's others
        new_call = _typed_order(call, ("id", "function", "type"))
        new_call["function"] = _typed_order(function, ("arguments", "name"))
        new_call["function"]["arguments"] = parsed
        out.append(new_call)
    return out


def _typed_order(obj: Mapping[str, Any], declared: tuple[str, ...]) -> dict[str, Any]:
    """``obj`` as pydantic dumps a typed dict that allows extra keys: the ``declared`` keys
    first, in their order, then the others as sent (null ones too, as vLLM 0.33 passes them)."""
    out = {k: obj[k] for k in declared if obj.get(k) is not None}
    out.update((k, v) for k, v in obj.items() if k not in declared)
    return out


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return join_texts([p["text"] if isinstance(p, dict) else p for p in content
                           if isinstance(p, str) or (isinstance(p, dict) and "text" in p)])
    return content or ""


#: Claude Code's attribution line (a per-request hash) that vLLM 0.33 drops from system text.
BILLING_HEADER = "x-anthropic-billing-header"


def _strip_billing_header(content: Any) -> Any:
    """vLLM 0.33's rule for system messages: a text part starting with :data:`BILLING_HEADER`
    loses its first line (the part goes when nothing follows), so the prompt's prefix stays the
    same from request to request."""
    parts = [content] if isinstance(content, str) else content
    if not isinstance(parts, list):
        return content
    out: list[Any] = []
    for part in parts:
        text = part if isinstance(part, str) else (
            part.get("text") if isinstance(part, Mapping) and part.get("type") == "text" else None)
        if not (isinstance(text, str) and text.startswith(BILLING_HEADER)):
            out.append(part)
            continue
        rest = text.partition("\n")[2]
        if rest:
            out.append(rest if isinstance(part, str) else {**part, "text": rest})
    if isinstance(content, str):
        return out[0] if out else ""
    return out


def _developer_to_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """vLLM 0.33 for templates that do not know the ``developer`` role: it becomes ``system``
    (its ``tools`` dropped) and, when that leaves a system message anywhere but first, all system
    messages merge into one at the start (texts joined with a blank line, empty ones skipped)."""
    converted = []
    for msg in messages:
        if msg["role"] == "developer":
            msg = {k: v for k, v in msg.items() if k != "tools"}
            msg["role"] = "system"
        converted.append(msg)
    systems = [i for i, m in enumerate(converted) if m["role"] == "system"]
    texts = [t for t in (_text_of(converted[i].get("content")) for i in systems) if t]
    if not systems or systems == [0]:
        return converted
    merged = {"role": "system", "content": "\n\n".join(texts)}
    return [merged, *(m for m in converted if m["role"] != "system")]


def normalize_messages(
    messages: Sequence[Mapping[str, Any]],
    *,
    content_format: ContentFormat = "string",
    keep_developer_role: bool = False,
    keep_null_content: bool = False,
    string_arguments: bool = False,
    text_only_model: str | None = None,
) -> NormalizedMessages:
    """OpenAI chat messages -> the dicts a chat template reads (rules in the module docstring).

    ``text_only_model``: the served name of a model that takes no media (its parts are a 400).

    Never mutates its input. Raises ``BadRequest`` naming ``messages[i]...`` for malformed input.
    """
    if not messages:
        raise BadRequest("`messages` must contain at least one message.", param="messages")
    media: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, Mapping):
            raise BadRequest(f"{where} must be an object.", param=where)
        role = message.get("role")
        if not isinstance(role, str):  # "" is vLLM's custom role: templates skip it
            raise BadRequest(f"{where}.role must be a string.", param=f"{where}.role")
        # vLLM 0.33 gives the template these keys only, in this order (its ConversationMessage):
        # role, content, the assistant's tool calls and reasoning, the tool's call id, a string
        # name / task, the developer's tools; a client's other keys never reach the template
        msg: dict[str, Any] = {"role": role}
        reasoning = message.get("reasoning")
        if isinstance(reasoning, Mapping) and reasoning.get("type") == "prompt_embeds":
            refuse_prompt_embeds(reasoning)  # (vLLM parses it before the content)
        content = message.get("content")
        if role == "system" and content:
            content = _strip_billing_header(content)
        msg["content"] = (
            None if content is None and keep_null_content
            else content_for_template(content, f"{where}.content", content_format, media,
                                       text_only_model,
                                       # (only a list of parts reads the type: not custom_typed
                                       # per message of text, on the render's hot path)
                                       role if isinstance(content, (list, Mapping))
                                       and not custom_typed(message) else None)
        )
        if role == "tool" and isinstance(msg["content"], list) and all(
                p.get("type") == "text" for p in msg["content"]):
            # vLLM 0.33: a tool result of text parts is one string (templates expect it)
            msg["content"] = join_texts([p["text"] for p in msg["content"]])
        if role == "assistant":
            if message.get("tool_calls") is not None:
                calls = _tool_calls_for_template(
                    message["tool_calls"], f"{where}.tool_calls", string_arguments=string_arguments
                )
                if calls:  # vLLM drops an empty list: templates stay on the plain assistant path
                    msg["tool_calls"] = calls
            reasoning = message.get("reasoning")
            if reasoning is None:
                reasoning = message.get("reasoning_content")
            if reasoning is not None:  # vLLM: any value, under both names
                msg["reasoning"] = reasoning
                msg["reasoning_content"] = reasoning
        elif role == "tool" and message.get("tool_call_id") is not None:
            if not isinstance(message["tool_call_id"], str):
                raise BadRequest(f"{where}.tool_call_id must be a string.",
                                 param=f"{where}.tool_call_id")
            msg["tool_call_id"] = message["tool_call_id"]
        for key in ("name", "task"):  # vLLM keeps them when they are strings
            if isinstance(message.get(key), str):
                msg[key] = message[key]
        if role == "developer":
            # vLLM: even null (dropped if it becomes system); typed when its custom type reads it
            tools = message.get("tools")
            typed = typed_tools(tools) if custom_typed(message) else False
            msg["tools"] = tools if typed is False else typed
        out.append(msg)
    if not keep_developer_role and any(m["role"] == "developer" for m in out):
        out = _developer_to_system(out)
    return NormalizedMessages(out, media)
