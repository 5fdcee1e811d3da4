"""gpt-oss (harmony) message headers: openai-harmony's header grammar and vLLM's recipient rules.

Why a module of its own: a header is the one part of a harmony message parsed as a whole string
(the text between ``<|start|>`` and ``<|message|>``), with rules of its own; the token-by-token
router (:mod:`tito.core.parsers.harmony`) calls :func:`parse_header` once per message.

Grammar (openai-harmony 0.0.8's ``parse_header_from_string``)::

    HEADER   := words, with <|channel|>CHANNEL anywhere in them (taken out first); the rest
                split on ASCII whitespace: [ROLE] [[to=]RECIPIENT] [CONTENT_TYPE]
    CHANNEL  := the text after ``<|channel|>`` up to Unicode whitespace or ``<`` (not empty)

Rules: the text is trimmed of Unicode whitespace (Rust's ``char::is_whitespace``); a
``<|constrain|>`` gets a space before it; the first word is the role unless the role is already
written (the first message: the prompt ended with ``<|start|>assistant``); a word that is no
role makes the author a tool when more words follow or it is ``to=...``; the last word is the
recipient (``to=X``, or the only word) or the content type (then the word before it is the
recipient); more words make the header invalid (None: rule 4 of the router). A recipient then
loses a misparsed ``<|constrain|>...`` tail (vLLM's ``_normalize_recipient``), and
:func:`function_name` says which recipients are function calls (vLLM's
``is_function_recipient``: ``functions.NAME``, or a bare name that is no built-in tool).
"""

from __future__ import annotations

from dataclasses import dataclass

CHANNEL = "<|channel|>"
CONSTRAIN = "<|constrain|>"
_ROLES = ("user", "assistant", "system", "developer", "tool")
#: vLLM's ``BUILTIN_TOOL_TO_MCP_SERVER_LABEL`` keys: recipients that are not function calls.
_BUILTIN_TOOLS = ("python", "browser", "container")
#: Rust's ``char::is_whitespace`` (Unicode White_Space) and ``u8::is_ascii_whitespace``.
_RUST_WS = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_WS = " \t\n\x0c\r"


@dataclass(frozen=True)
class Header:
    """A parsed header: the author's role, the channel, the recipient, the content type."""

    role: str
    channel: str | None
    recipient: str | None
    content_type: str | None


def _rust_trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] in _RUST_WS:
        start += 1
    while end > start and text[end - 1] in _RUST_WS:
        end -= 1
    return text[start:end]


def _split_ascii(text: str) -> list[str]:
    parts, cur = [], []
    for ch in text:
        if ch in _ASCII_WS:
            if cur:
                parts.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        parts.append("".join(cur))
    return parts


def parse_header(text: str, *, role_given: bool) -> Header | None:
    """openai-harmony's ``parse_header_from_string``; None where it raises (rule 4)."""
    channel = None
    idx = text.find(CHANNEL)
    if idx != -1:
        after = text[idx + len(CHANNEL):]
        end = next((i for i, ch in enumerate(after) if ch in _RUST_WS or ch == "<"), len(after))
        if end == 0:
            return None
        channel = after[:end]
        text = text[:idx] + after[end:]
    text = _rust_trim(text)
    if CONSTRAIN in text:
        text = _rust_trim(text.replace(CONSTRAIN, " " + CONSTRAIN))
    parts = _split_ascii(text)
    role = "assistant"
    if not role_given:
        if not parts:
            return None
        if parts[0] in _ROLES:
            role = parts[0]
        elif len(parts) > 1 or parts[0].startswith("to="):
            parts.pop(0)
            role = "tool"
        else:
            return None
    if parts and parts[0] == role:
        parts.pop(0)
    recipient = content_type = None
    if parts:
        n = len(parts)
        last = parts.pop()
        if last.startswith("to="):
            recipient = last[3:]
        elif n == 1:
            recipient = last
        else:
            content_type = last
            raw = parts.pop()
            recipient = raw[3:] if raw.startswith("to=") else raw
        if parts:
            return None
    return Header(role, channel, _normalize_recipient(recipient), content_type)


def _normalize_recipient(recipient: str | None) -> str | None:
    """vLLM's ``_normalize_recipient``: cut a misparsed ``<|constrain|>...`` off the recipient."""
    if recipient is None:
        return None
    cut = recipient.find(CONSTRAIN)
    if cut == -1:
        return recipient
    return recipient[:cut].rstrip() or None


def function_name(recipient: str | None) -> str | None:
    """The function a recipient calls (vLLM's ``is_function_recipient``), or None."""
    if not recipient or recipient.startswith("<|") or recipient == "assistant":
        return None
    if recipient.startswith("functions."):
        return recipient[len("functions."):] or None
    if recipient.split(".", 1)[0] in _BUILTIN_TOOLS:
        return None
    return recipient
