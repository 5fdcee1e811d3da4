"""A Responses request's ``previous_input_messages`` -> harmony messages, as vLLM 0.33 reads them.

Why: vLLM's gpt-oss Responses render puts these earlier messages between its preamble (system,
developer) and the input items (``construct_harmony_previous_input_messages``); a client that
keeps its own history sends them instead of a ``previous_response_id``. The template models'
render never reads them.

Rules (vLLM's ``response_previous_input_to_harmony``), per message (each a JSON object):

- **harmony-shaped** (an ``author`` object): role ``author.role`` (one of harmony's roles, else
  a 400), name ``author.name`` when non-empty; content a string (one text), a list of parts
  (each part's ``text``, ``""`` without one: one text each) or anything else (one empty text);
  ``channel``, ``recipient``, ``content_type`` when non-empty;
- **chat-shaped** (anything else): no ``role`` is a 400 (param ``input``); an assistant with
  ``tool_calls``: one ``commentary`` message per call to ``functions.NAME``, content type
  ``json``, its arguments as content (the message's own content unread); ``tool``: author
  ``functions.NAME`` (``name``, prefixed when it lacks the prefix) on ``commentary`` to
  ``assistant``, its text parts joined; ``system`` / ``developer``: dropped (below); any other
  role: its content a string (one text) or its parts' texts (one each), the role one of
  harmony's (else a 400);
- every system and developer message is dropped: the request's own ``instructions`` are the
  only ones.

Where vLLM fails with a 500 (a part that is not an object: its ``.get``), tito answers 400.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# (_text: a text harmony takes, its TextContent refuses anything but a string)
from tito.core.harmony.conversation import ROLES, Message, _text as _str, flatten_text
from tito.errors import BadRequest

__all__ = ["previous_messages"]


def _part_texts(content: Any, where: str) -> tuple[str, ...]:
    """Each part's ``text`` ("" without one); a part that is not an object is vLLM's 500."""
    texts = []
    for k, part in enumerate(content):
        if not isinstance(part, Mapping):
            raise BadRequest(f"{where}.content.{k} must be an object.", param=f"{where}.content")
        texts.append(_str(part.get("text", ""), f"{where}.content.{k}.text"))
    return tuple(texts)


def _role(value: Any, where: str) -> str:
    if value not in ROLES:
        raise BadRequest(f"Unknown role: {value!r}", param=f"{where}.role")
    return value


def _harmony_shaped(msg: Mapping[str, Any], where: str) -> Message:
    author = msg["author"]
    role = _role(author.get("role"), f"{where}.author")
    name = author.get("name") or None
    content = msg.get("content", "")
    if isinstance(content, list):
        texts = _part_texts(content, where)
    else:
        texts = (content if isinstance(content, str) else "",)
    extras = {}
    for key in ("channel", "recipient", "content_type"):
        if msg.get(key):
            extras[key] = _str(msg[key], f"{where}.{key}")
    return Message(role, texts, name=None if name is None else _str(name, f"{where}.author.name"),
                   **extras)


def _chat_shaped(msg: Mapping[str, Any], where: str) -> list[Message]:
    role = msg.get("role")
    if role is None:
        raise BadRequest(f"Message has no 'role' key: {where}", param="input")
    calls = msg.get("tool_calls")
    if role == "assistant" and calls:
        out = []
        for j, call in enumerate(calls if isinstance(calls, list) else []):
            fn = call.get("function") if isinstance(call, Mapping) else None
            fn = fn if isinstance(fn, Mapping) else {}
            name = fn.get("name", "")
            args = fn.get("arguments", "") or ""
            out.append(Message("assistant", (_str(args, f"{where}.tool_calls.{j}.arguments"),),
                               channel="commentary", recipient=f"functions.{name}",
                               content_type="json"))
        return out
    if role == "tool":
        name = _str(msg.get("name", "") or "", f"{where}.name")
        if name and not name.startswith("functions."):
            name = f"functions.{name}"
        text = flatten_text(msg.get("content")) or ""
        return [Message("tool", (text,), name=name, channel="commentary", recipient="assistant")]
    if role in ("system", "developer"):
        return []  # (dropped whatever their text)
    content = msg.get("content", "")
    if isinstance(content, str):
        texts: tuple[str, ...] = (content,)
    elif isinstance(content, list):
        texts = _part_texts(content, where)
    else:  # (vLLM iterates it: None or a number is its 400; an object, its keys' .get a 500)
        raise BadRequest(f"{where}.content must be a string or a list of parts.",
                         param=f"{where}.content")
    return [Message(_role(role, where), texts)]


def previous_messages(messages: Sequence[Any] | None) -> list[Message]:
    """The harmony messages of ``previous_input_messages`` (module rules), system and developer
    ones dropped."""
    out: list[Message] = []
    for i, msg in enumerate(messages or ()):
        where = f"previous_input_messages.{i}"
        if isinstance(msg.get("author"), Mapping):
            out.append(_harmony_shaped(msg, where))
        else:
            out.extend(_chat_shaped(msg, where))
    return [m for m in out if m.role not in ("system", "developer")]
