"""Arguments re-serialized as ``json.dumps(json.loads(text), ensure_ascii=False)`` writes them,
one chunk at a time.

Why: vLLM 0.33's llama3_json / llama4_json and granite4 parsers send ``json.dumps`` of the
arguments they parsed, in batch and in stream, not the model's text. tito streams arguments as
they come without holding them, so it rewrites the text as it passes instead of parsing it.

Rules (the output of ``json.dumps`` with the default separators), for well-formed JSON text:

- whitespace outside strings is dropped; ``,`` becomes ``", "`` and ``:`` becomes ``": "``;
- a string is decoded and written again: ``\\"``, ``\\\\`` and the control characters as
  ``\\n`` ``\\r`` ``\\t`` ``\\b`` ``\\f`` or ``\\u00XX``; ``\\/`` and ``\\uXXXX`` escapes of other
  characters become the characters (a surrogate pair one character; a lone surrogate stays
  escaped, never raw);
- a number is written as Python writes what ``json.loads`` reads (``1E5`` -> ``100000.0``,
  ``-0`` -> ``0``, ``1.50`` -> ``1.5``); ``true`` / ``false`` / ``null`` stay.

Malformed text passes through as it is where these rules do not apply (an invalid number token
stays as written). Duplicate keys are kept (``json.loads`` keeps the last one's value).

State: one short ASCII string (``ToolState.pend``, which the object formats use only for string
arguments, never in the same call): ``""`` outside strings; ``s`` in a string; ``e``
after its backslash; ``u`` plus the hex digits of a ``\\u`` escape so far (and, after a high
surrogate, ``\\`` / ``\\u`` and the low one's digits); ``n`` plus the number so far (a number
longer than :data:`NUMBER_LIMIT` characters is written as it came). At most 64 characters.
"""

from __future__ import annotations

import json
import re

#: Longest number token re-formatted (characters); a longer one is passed on as written.
NUMBER_LIMIT = 48
_PLAIN_STR = re.compile(r'[^"\\\x00-\x1f]+')
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_HEX = frozenset("0123456789abcdefABCDEF")
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _enc(text: str) -> str:
    """``text`` as ``json.dumps(ensure_ascii=False)`` writes it inside a string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _number(tok: str) -> str:
    try:
        return json.dumps(json.loads(tok))
    except ValueError:
        return tok


def feed(jn: str, text: str, *, final: bool = False) -> tuple[str, str]:
    """Advance over ``text``: ``(new state, normalized text)``; ``final`` flushes what is held
    (the arguments ended or the output was cut)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        mode = jn[:1]
        c = text[i]
        if mode == "s":
            m = _PLAIN_STR.match(text, i)
            if m:
                out.append(m.group())
                i = m.end()
                continue
            if c == '"':
                out.append('"')
                jn = ""
            elif c == "\\":
                jn = "e"
            else:  # a raw control character (not JSON): written escaped, as json.dumps would
                out.append(_enc(c))
            i += 1
        elif mode == "e":
            if c == "u":
                jn = "u"
            else:
                out.append(_enc(_SIMPLE[c]) if c in _SIMPLE else "\\" + c)
                jn = "s"
            i += 1
        elif mode == "u":
            jn, i = _escape(jn, text, i, out)
        elif mode == "n":
            if c in _NUMBER_CHARS:
                jn += c
                i += 1
                if len(jn) > NUMBER_LIMIT:
                    out.append(jn[1:])
                    jn = "N"  # too long: the rest of the token passes as written
                continue
            out.append(_number(jn[1:]))
            jn = ""
        elif mode == "N":
            if c in _NUMBER_CHARS:
                out.append(c)
                i += 1
            else:
                jn = ""
        else:  # outside strings
            if c == '"':
                out.append('"')
                jn = "s"
            elif c in " \t\r\n":
                pass
            elif c == ",":
                out.append(", ")
            elif c == ":":
                out.append(": ")
            elif c in "-0123456789":
                jn = "n" + c
            else:
                out.append(c)
            i += 1
    if final and jn:
        out.append(_flush(jn))
        jn = ""
    return jn, "".join(out)


def _escape(jn: str, text: str, i: int, out: list[str]) -> tuple[str, int]:
    """Inside ``\\u`` escapes (``jn`` = ``u`` + what came): take one character of ``text``."""
    c = text[i]
    held = jn[1:]
    if len(held) < 4:  # the first escape's digits
        if c not in _HEX:
            out.append("\\u" + held)  # not an escape after all: as written
            return "s", i
        held += c
        if len(held) < 4:
            return "u" + held, i + 1
        cp = int(held, 16)
        if 0xD800 <= cp < 0xDC00:
            return "u" + held, i + 1  # a high surrogate: a low one may follow
        out.append("\\u" + held if 0xDC00 <= cp < 0xE000 else _enc(chr(cp)))  # lone low: escaped
        return "s", i + 1
    # after a high surrogate: "\\", "u" and four digits of a low one, or anything else
    tail = held[4:]
    want = "\\u"[len(tail)] if len(tail) < 2 else None
    if (c == want) if want is not None else (c in _HEX):
        tail += c
        if len(tail) < 6:
            return "u" + held[:4] + tail, i + 1
        second = int(tail[2:], 16)
        if 0xDC00 <= second < 0xE000:
            high = int(held[:4], 16)
            out.append(chr(0x10000 + ((high - 0xD800) << 10) + (second - 0xDC00)))
            return "s", i + 1
        out.append("\\u" + held[:4])  # a lone high surrogate stays escaped (never a raw one)
        if 0xD800 <= second < 0xDC00:
            return "u" + tail[2:], i + 1
        out.append(_enc(chr(second)))
        return "s", i + 1
    out.append("\\u" + held[:4])  # a lone high surrogate stays escaped
    if tail == "\\":
        return "e", i  # the backslash began another escape
    out.append(tail)  # "" or "\\u" before a non-hex character: as written
    return "s", i


def _flush(jn: str) -> str:
    """What a held state stands for when the text ends there (cut arguments: as written)."""
    mode, held = jn[:1], jn[1:]
    if mode == "n":
        return _number(held)
    if mode == "e":
        return "\\"
    if mode == "u":
        return "\\u" + held
    return ""
