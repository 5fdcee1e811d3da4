"""OpenAI chat messages -> a harmony conversation, exactly as vLLM 0.33 builds it for gpt-oss.

Why here: gpt-oss has no chat template; vLLM builds openai-harmony ``Message`` objects in code
(``vllm/entrypoints/openai/parser/harmony_utils.py`` and ``renderers/online_renderer.py``,
``_make_request_with_harmony``). This module is that code on plain data, callable from plain
message dicts (the chat API here, the Responses API later), with no openai-harmony import.

The conversation (rules as vLLM applies them)
---------------------------------------------
1. **system**: ``SystemContent.new()`` - the model identity, ``Knowledge cutoff: 2024-06``,
   ``Current date: <start_date>``, ``Reasoning: <effort>`` (``low``/``medium``/``high``; medium
   when the request has none; anything else is a 400 on ``reasoning_effort``), the valid channels
   (``analysis, commentary, final``, required); the ``Calls to these tools must go to the
   commentary channel: 'functions'.`` line is added at render time when the conversation has
   function tools.
2. **developer**, only when there are instructions (a *leading* system or developer message,
   its text parts joined) or tools: ``# Instructions`` and the ``functions`` namespace.
3. every other message, in order:
   - assistant with ``tool_calls``: its content (if any) as a ``commentary`` message, its
     ``reasoning`` (if any) as ``analysis``, then each call as a message to ``functions.NAME`` on
     ``commentary`` with content type ``json`` (vLLM writes plain ``json``, not
     ``<|constrain|>json``), the arguments string as content;
   - tool: author ``functions.NAME`` (the name looked up by ``tool_call_id`` among the
     conversation's calls; ``""`` when unknown), to ``assistant`` on ``commentary``;
   - assistant otherwise: ``reasoning`` as ``analysis``; content as ``final`` (only when the
     first content part has text);
   - a later system or developer message: a developer message with those instructions;
   - user (and any other role): its content parts, each its own text (tokenized separately).
4. analysis messages before the last assistant ``final`` message are dropped
   (``auto_drop_analysis_messages``).
5. a message vLLM holds as its role's OpenAI type (:func:`tito.core.message_union.custom_typed`
   false) has its parts as an iterator: the steps that flatten text (instructions, tool results,
   an assistant's text before its calls) read none from it, and the steps that iterate it check
   each part against the role's OpenAI part types (a 400 for a part without ``type`` or text).
6. ``items``: the messages stand for Responses input items, which vLLM converts one by one
   (``response_input_to_harmony``): an assistant message item is a ``final`` message even when
   its text is empty.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tito.core.message_union import OPENAI_PART_TYPES, custom_typed, openai_part_fits
from tito.errors import BadRequest

__all__ = [
    "REASONING_EFFORTS",
    "DeveloperContent",
    "Message",
    "SystemContent",
    "ToolDescription",
    "build_conversation",
    "drop_old_analysis",
    "flatten_text",
    "lazy_content_dumped",
]

#: The efforts gpt-oss knows (vLLM's ``REASONING_EFFORT``).
REASONING_EFFORTS = ("high", "medium", "low")
ROLES = ("system", "developer", "user", "assistant", "tool")


@dataclass(frozen=True)
class ToolDescription:
    """One function tool: name, description (may be ``""``), JSON-schema parameters or None."""

    name: str
    description: str = ""
    parameters: Any = None


@dataclass(frozen=True)
class SystemContent:
    """harmony's ``SystemContent.new()`` with its fields; rendered by :mod:`.encode`."""

    model_identity: str | None = "You are ChatGPT, a large language model trained by OpenAI."
    reasoning_effort: str | None = "medium"
    conversation_start_date: str | None = None
    knowledge_cutoff: str | None = "2024-06"
    valid_channels: tuple[str, ...] = ("analysis", "commentary", "final")
    channel_required: bool = True


@dataclass(frozen=True)
class DeveloperContent:
    """Instructions and the ``functions`` namespace's tools (empty: no tools section)."""

    instructions: str | None = None
    tools: tuple[ToolDescription, ...] | None = None


Content = str | SystemContent | DeveloperContent


@dataclass(frozen=True)
class Message:
    """One harmony message: author (role, name), channel, recipient, content type, contents."""

    role: str
    content: tuple[Content, ...] = field(default_factory=tuple)
    name: str | None = None  #: the author name (``functions.NAME`` for a tool result)
    channel: str | None = None
    recipient: str | None = None
    content_type: str | None = None


def flatten_text(content: Any) -> str | None:
    """vLLM's ``flatten_input_text_content``: a string, or the text parts joined with ``""``."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for item in content:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict) and item.get("text") is not None:
            texts.append(_text(item["text"], "content"))
    return "".join(texts) if texts else None


def _lazy(msg: Mapping[str, Any]) -> bool:
    """Whether vLLM 0.33 holds this message's parts as a lazily validated iterator (an OpenAI
    role's message type, :func:`tito.core.message_union.custom_typed`): its
    ``flatten_input_text_content`` reads no text from that (it is not a list), and iterating it
    checks each part against the role's OpenAI part types."""
    content = msg.get("content")
    return isinstance(content, (list, Mapping)) and not custom_typed(msg)


def lazy_content_dumped(messages: Any) -> Any:
    """``messages`` as vLLM 0.33's ``/tokenize`` hands a gpt-oss chat to its chat render: it
    rebuilds a chat request from a ``model_dump`` of its own body, where a :func:`_lazy`
    content (pydantic's not yet iterated ``ValidatorIterator``) dumps as an iterator that the
    new request's union spends: unless its custom type takes the message (:func:`_relisted`),
    the parts are never checked and the message has no content (a user's renders empty;
    checked on vLLM's server: ``{"type": "bogus"}`` parts give 200 there, 400 on its chat
    render). An empty list here reads the same: lazy, no parts. Anything that is
    not such a message is kept as it is (the request's own checks judge it). The dump
    excludes None: a message's null fields are gone (a non-assistant's ``tool_calls: null``,
    the chat render's TypeError, is no error there), and so are its typed parts' (a text
    part's null ``text``: then no text); nulls deeper in its values are kept."""
    if not isinstance(messages, list):
        return messages
    return [_dumped(m) if isinstance(m, Mapping) else m for m in messages]


def _dumped(msg: Mapping[str, Any]) -> dict[str, Any]:
    """One message of :func:`lazy_content_dumped`."""
    out = {k: v for k, v in msg.items() if v is not None}
    if _lazy(msg) and not _relisted(out):
        out["content"] = []
    elif isinstance(out.get("content"), list):
        out["content"] = [{k: v for k, v in p.items() if v is not None}
                          if isinstance(p, Mapping) else p for p in out["content"]]
    return out


def _relisted(dumped: Mapping[str, Any]) -> bool:
    """Whether a lazy content's parts survive vLLM's chat request built from the dump: the dumped
    iterator still yields them, and that request's smart union tries its custom type, whose
    ``list`` content reads them all (the iterator is spent whatever type wins), so only a
    message that custom type then takes keeps them. It sees the dump (nulls gone: a tool
    message's ``name: null`` no longer refuses it) after the request's before-validator: a
    non-list ``tool_calls`` listed (``""`` or ``{}`` no calls), ``reasoning_content`` renamed to
    an absent ``reasoning``. Measured on vLLM 0.33 over every role x known key x value pool
    (``reasoning: {}`` empties, ``tool_calls: ""`` keeps)."""
    if not isinstance(dumped.get("content"), list):
        return False  # (an object's keys: the custom type's list refuses it)
    seen = dict(dumped)
    calls = seen.get("tool_calls")
    if isinstance(calls, (str, Mapping)):
        seen["tool_calls"] = list(calls)
    if "reasoning_content" in seen:
        renamed = seen.pop("reasoning_content")
        seen.setdefault("reasoning", renamed)
    return custom_typed(seen)


def _check_lazy_parts(role: str, content: list[Any], where: str) -> None:
    """The parts of a :func:`_lazy` message as pydantic checks them when vLLM iterates them:
    each one of the role's OpenAI part types (:func:`tito.core.message_union.openai_part_fits`;
    a complete text part passes: a message whose other field vLLM's own type refuses is lazy
    with good parts too)."""
    for k, part in enumerate(content):
        if not openai_part_fits(role, part):
            kinds = ", ".join(OPENAI_PART_TYPES.get(role, ("text",)))
            raise BadRequest(f"{where}.content.{k}: not a valid {role} content part "
                             f"(types: {kinds}).")


class ReasoningObject(str):
    """The text of an analysis message made from a reasoning *object* (vLLM's custom message
    type takes one): openai-harmony builds the message but cannot render it, so it is an error
    only if rule 4 keeps it (vLLM: a 501, here a 400); the string is where it came from."""


def _reasoning(value: Any, where: str) -> str:
    return ReasoningObject(where) if isinstance(value, Mapping) else _text(value, where)


def _text(value: Any, where: str, *, part: bool = False) -> str:
    """``value`` as harmony's ``TextContent`` takes it; a content ``part``'s text fails there,
    in vLLM 0.33, as a pydantic error of its own (no param)."""
    if not isinstance(value, str):
        raise BadRequest(f"{where} must be a string.", param=None if part else where)
    return value


def system_message(reasoning_effort: str | None, start_date: str) -> Message:
    """The system message (rule 1). ``reasoning_effort`` None means medium."""
    effort = "medium" if reasoning_effort is None else reasoning_effort
    if effort == "none":  # vLLM's own message for this one
        raise BadRequest("Harmony does not support reasoning_effort='none'",
                         param="reasoning_effort")
    if effort not in REASONING_EFFORTS:
        raise BadRequest(
            f"reasoning_effort={reasoning_effort!r} is not supported by Harmony. "
            f"Supported values are: {', '.join(REASONING_EFFORTS)}.",
            param="reasoning_effort",
        )
    content = SystemContent(reasoning_effort=effort, conversation_start_date=start_date)
    return Message("system", (content,))


def tool_descriptions(tools: Sequence[Mapping[str, Any]]) -> tuple[ToolDescription, ...]:
    """OpenAI ``tools`` (``{"type": "function", "function": {...}}`` dicts) -> descriptions."""
    out = []
    for i, tool in enumerate(tools):
        kind = tool.get("type", "function")
        if kind != "function":
            raise BadRequest(f"tool type {kind!r} is not supported.", param=f"tools.{i}.type")
        fn = tool.get("function") or {}
        out.append(
            ToolDescription(
                name=fn.get("name", ""),
                description=fn.get("description") or "",
                parameters=fn.get("parameters"),
            )
        )
    return tuple(out)


def _tool_names(messages: Sequence[Mapping[str, Any]], offset: int) -> dict[str, str]:
    """Call id -> function name over every message's ``tool_calls``, whatever its role (a
    user message's too: vLLM's first pass reads them all, so a null is its TypeError 400 but
    for an assistant's, which vLLM makes ``[]`` first; a call that is no object with an object
    ``function`` its 500, tito's 400)."""
    names: dict[str, str] = {}
    for i, msg in enumerate(messages):
        calls = msg.get("tool_calls", [])
        if calls is None and msg.get("role") != "assistant":  # (vLLM makes an assistant's [])
            raise BadRequest("'NoneType' object is not iterable")
        for j, call in enumerate(calls or ()):
            fn = call.get("function", {}) if isinstance(call, Mapping) else None
            if not isinstance(fn, Mapping) or not isinstance(call.get("id"), Hashable):
                where = f"messages.{i + offset}.tool_calls.{j}"
                raise BadRequest(f"{where} must be an object with an object `function` and a "
                                 "scalar `id`.", param=where)
            names[call.get("id")] = fn.get("name")
    return names


def _one(msg: Mapping[str, Any], names: Mapping[str, str], where: str,
         items: bool = False) -> list[Message]:
    """One chat message -> its harmony messages (rule 3)."""
    role = msg.get("role")
    if role not in ROLES:
        raise BadRequest(f"{where}.role {role!r} is not supported by Harmony.", param=f"{where}.role")
    if msg.get("content") and isinstance(msg["content"], Mapping) and role != "tool" and not (
            role == "assistant" and msg.get("tool_calls")):
        # vLLM iterates it as its keys, which are no parts (a tool result's and a calling
        # assistant's are never read; an empty one yields none)
        raise BadRequest(f"{where}.content must be a string or a list of parts, not an object.")
    out: list[Message] = []
    tool_calls = msg.get("tool_calls") or []
    reasoning = msg.get("reasoning")
    lazy = _lazy(msg) and not items  # (a Responses item's parts are a list, never lazy)
    if role == "assistant" and tool_calls:
        text = None if lazy else flatten_text(msg.get("content"))
        if text:
            out.append(Message("assistant", (text,), channel="commentary"))
        if reasoning:
            out.append(Message("assistant", (_reasoning(reasoning, f"{where}.reasoning"),),
                               channel="analysis"))
        for j, call in enumerate(tool_calls):
            fn = call.get("function") or {}
            args = fn.get("arguments") or ""
            out.append(Message(
                "assistant", (_text(args, f"{where}.tool_calls.{j}.function.arguments"),),
                channel="commentary", recipient=f"functions.{fn.get('name', '')}",
                content_type="json",
            ))
        return out
    if role == "tool":
        name = names.get(msg.get("tool_call_id", ""), "") or ""
        text = "" if lazy else flatten_text(msg.get("content")) or ""
        return [Message("tool", (text,), name=f"functions.{name}", channel="commentary",
                        recipient="assistant")]
    if role == "assistant" and reasoning:
        out.append(Message("assistant", (_reasoning(reasoning, f"{where}.reasoning"),),
                           channel="analysis"))
    content = msg.get("content") or ""
    if isinstance(content, str):
        parts: tuple[str, ...] = (content,)
    else:
        if lazy:
            _check_lazy_parts(role, content, where)
        parts = tuple(
            _text(c.get("text", ""), f"{where}.content.{k}.text", part=True)
            if isinstance(c, dict) else _text(c, f"{where}.content.{k}", part=True)
            for k, c in enumerate(content)
        )
    if role == "assistant":
        # rule 6: a Responses assistant message item is a final message even without text
        if parts and parts[0] or items and "content" in msg and not reasoning:
            out.append(Message("assistant", parts, channel="final"))
    elif role in ("system", "developer"):
        instructions = None if lazy else flatten_text(msg.get("content"))
        if instructions is not None:
            out.append(Message("developer", (DeveloperContent(instructions=instructions),)))
    else:
        out.append(Message(role, parts))
    return out


def drop_old_analysis(messages: Sequence[Message]) -> list[Message]:
    """Rule 4: drop ``analysis`` messages before the last assistant ``final`` message."""
    last_final = -1
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant" and messages[i].channel == "final":
            last_final = i
            break
    return [m for i, m in enumerate(messages) if not (i < last_final and m.channel == "analysis")]


def build_conversation(
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    reasoning_effort: str | None = None,
    start_date: str,
    items: bool = False,
    previous: Sequence[Message] = (),
) -> list[Message]:
    """The harmony conversation vLLM renders for a chat request (module header, rules 1-4).

    ``messages``: OpenAI chat message dicts; ``tools``: the request's tools as dicts (None when
    vLLM would not include them, e.g. no tools); ``start_date``: ``YYYY-MM-DD``.
    ``items``: the messages stand for Responses input items (rule 6); ``previous``: a Responses
    request's earlier messages (:mod:`tito.core.harmony.previous`), after the preamble.
    """
    rest = list(messages)
    instructions = None
    if rest and isinstance(rest[0], Mapping) and rest[0].get("role") in ("system", "developer"):
        # (a Responses item's parts are a list, flattened; a chat message of its OpenAI type
        # holds an iterator, which vLLM reads no text from)
        lazy = _lazy(rest[0]) and not items
        instructions = None if lazy else flatten_text(rest[0].get("content"))
        rest = rest[1:]
    out = [system_message(reasoning_effort, start_date)]
    descriptions = tool_descriptions(tools) if tools is not None else None
    if instructions or tools:
        out.append(Message("developer", (DeveloperContent(
            instructions=instructions, tools=descriptions or None),)))
    out.extend(previous)
    offset = len(messages) - len(rest)
    names = _tool_names(rest, offset)
    for i, msg in enumerate(rest):
        out.extend(_one(msg, names, f"messages.{i + offset}", items))
    out = drop_old_analysis(out)
    for m in out:
        if m.content and type(m.content[0]) is ReasoningObject:
            raise BadRequest(f"{m.content[0]} must be a string: Harmony cannot render a "
                             "reasoning object.", param=str(m.content[0]))
    return out
