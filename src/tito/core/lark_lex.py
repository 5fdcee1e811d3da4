"""Lark grammar tokens as xgrammar 0.2.8's Lark lexer (``lark_converter.cc``) reads them, for
:mod:`tito.core.lark_parse`; and the errors of tito's Lark front end.

Tokens ``(kind, text)``: ``nl``; names (``?name`` / ``!name`` too; ASCII letters, digits, ``_``
and ``-``); numbers (``+``/``-``, a fraction, an exponent); ``"strings"`` (a trailing ``i``
kept); ``/regex/flags`` (text as written up to an unescaped ``/``, then the ASCII letters
after it); ``%ignore``, ``%import``, ``%if`` and other directives; the punctuation itself.
``# ...`` and ``// ...`` comments are skipped. Refused (:class:`LarkError`): an unterminated
string or regex, a stray ``-`` / ``!``, any other character. Not ported (:class:`Unsupported`):
``%json``, ``%regex``, ``%lark``, ``%grammar_options``, special tokens ``<...>``, ``@name``.
``%json`` is read as far as xgrammar checks it at conversion: the JSON value after it must
parse and be a JSON schema xgrammar compiles (else its 400, vLLM's "Invalid grammar
specification." on gpt-oss: render fuzz seed 916, ``start: %json``); the lexer then goes on
past the value (a later lexical error refuses the grammar too) and reports it unported at the
end.

Bounds: one pass over the text.
"""

from __future__ import annotations

import json
from typing import Any

from tito.core.schema_check import schema_error

class LarkError(ValueError):
    """xgrammar refuses the grammar (vLLM answers 400 where it converts)."""


class Unsupported(Exception):
    """The grammar uses a part of xgrammar's Lark that tito does not port."""


# -- lexer ---------------------------------------------------------------------------------

_SIMPLE = {",": ",", "=": "=", "(": "(", ")": ")", "[": "[", "]": "]", "{": "{", "}": "}",
           "|": "|", "&": "&", "~": "~", "*": "*"}
_DIRECTIVES = {"%ignore": "ignore", "%if": "if", "%import": "import", "%json": None,
               "%regex": None, "%grammar_options": None, "%lark": None}


def _is_alpha(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _is_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-")


def tokens(src: str) -> list[tuple[str, Any]]:
    """``(kind, text)`` tokens; kinds are the punctuation itself, ``nl``, ``name``, ``num``,
    ``str``, ``ignore``, ``if``, ``directive`` (an unsupported one) and ``end``."""
    out: list[tuple[str, Any]] = []
    i, n = 0, len(src)
    unported = ""  #: a %json read whole: unported once the rest lexes
    while i < n:
        c = src[i]
        nxt = src[i + 1] if i + 1 < n else ""
        if c in " \t\f":
            i += 1
        elif c in "\r\n":
            i += 2 if c == "\r" and nxt == "\n" else 1
            out.append(("nl", "\n"))
        elif c == "#" or c == "/" and nxt == "/":
            while i < n and src[i] not in "\r\n":
                i += 1
        elif c == ":":
            out.append(("::", "::") if nxt == ":" else (":", ":"))
            i += 2 if nxt == ":" else 1
        elif c == ".":
            out.append(("..", "..") if nxt == "." else (".", "."))
            i += 2 if nxt == "." else 1
        elif c == "-" or c == "+":
            if c == "-" and nxt == ">":
                out.append(("->", "->"))
                i += 2
            elif nxt.isascii() and nxt.isdigit():
                i = _number(src, i, out)
            elif c == "+":
                out.append(("+", "+"))
                i += 1
            else:
                raise LarkError("unexpected '-' character")
        elif c in _SIMPLE:
            out.append((c, c))
            i += 1
        elif c == "?" or c == "!":
            if _is_alpha(nxt) or nxt == "_":
                i = _name(src, i, out)
            elif c == "?":
                out.append(("?", "?"))
                i += 1
            else:
                raise LarkError("unexpected '!' character")
        elif c == '"':
            i = _string(src, i, out)
        elif c == "/":
            i = _regex(src, i, out)
        elif c == "<":
            raise Unsupported("special tokens")
        elif c == "@":
            raise Unsupported("named grammars")
        elif c == "%":
            j = i + 1
            while j < n and (_is_alpha(src[j]) or src[j] == "_"):
                j += 1
            word = src[i:j]
            if word == "%json":
                i, unported = _json_value(src, j), word
                continue
            if word in _DIRECTIVES and _DIRECTIVES[word] is None:
                raise Unsupported(word)
            out.append((_DIRECTIVES.get(word) or "directive", word))
            i = j
        elif _is_alpha(c) or c == "_":
            i = _name(src, i, out)
        elif c.isascii() and c.isdigit():
            i = _number(src, i, out)
        else:
            raise LarkError(f"unexpected character {c!r}")
    if unported:
        raise Unsupported(unported)
    out.append(("end", ""))
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # (NaN, Infinity: not JSON to xgrammar)


_JSON = json.JSONDecoder(parse_constant=_no_constant)


def _json_value(src: str, i: int) -> int:
    """The end of the JSON value after ``%json`` at ``i``; :class:`LarkError` where xgrammar
    refuses it: no JSON value there, or a schema it cannot compile (``schema_error``: an array,
    ``false``, an unknown type, ...)."""
    while i < len(src) and src[i] in " \t\r\n":
        i += 1
    try:
        value, end = _JSON.raw_decode(src, i)
        error = schema_error(value)
    except RecursionError:
        raise Unsupported("%json") from None  # (nested past the stack: left to the engine)
    except ValueError:
        raise LarkError("failed to parse JSON value after %json") from None
    if error is not None:
        raise LarkError(f"failed to compile inline JSON schema: {error}")
    return end


def _name(src: str, i: int, out: list[tuple[str, Any]]) -> int:
    j = i + 1 if src[i] in "!?" else i
    while j < len(src) and _is_word(src[j]):
        j += 1
    out.append(("name", src[i:j]))
    return j


def _number(src: str, i: int, out: list[tuple[str, Any]]) -> int:
    n, j = len(src), i + 1 if src[i] in "+-" else i

    def digits(k: int) -> int:
        while k < n and src[k].isascii() and src[k].isdigit():
            k += 1
        return k

    j = digits(j)
    if j < n and src[j] == "." and src[j + 1:j + 2] != ".":
        j = digits(j + 1)
    if j < n and src[j] in "eE":
        j += 1
        if j < n and src[j] in "+-":
            j += 1
        j = digits(j)
    out.append(("num", src[i:j]))
    return j


def _string(src: str, i: int, out: list[tuple[str, Any]]) -> int:
    j, escaped = i + 1, False
    while j < len(src):
        c = src[j]
        if not escaped and c == '"':
            j += 1
            if src[j:j + 1] == "i":
                j += 1
            out.append(("str", src[i:j]))
            return j
        if c in "\r\n":
            break
        escaped = not escaped and c == "\\"
        j += 1
    raise LarkError("unterminated string literal")


_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                 "t": "\t"}


def _regex(src: str, i: int, out: list[tuple[str, Any]]) -> int:
    """``/pattern/flags`` (the pattern as written, up to an unescaped ``/``; flags are the
    ASCII letters after it)."""
    j, escaped = i + 1, False
    while j < len(src):
        c = src[j]
        if not escaped and c == "/":
            k = j + 1
            while k < len(src) and _is_alpha(src[k]):
                k += 1
            out.append(("regex", (src[i + 1:j], src[j + 1:k])))
            return k
        escaped = not escaped and c == "\\"
        j += 1
    raise LarkError("unterminated regular expression")


def json_string(lit: str) -> str:
    """A JSON string literal as picojson reads it (``\\uXXXX`` with surrogate pairs)."""
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c < " ":
            raise LarkError("invalid string literal")
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1:i + 2]
        if e in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[e])
            i += 2
        elif e == "u":
            cp, i = _hex4(body, i + 2), i + 6
            if 0xD800 <= cp <= 0xDBFF:
                if body[i:i + 2] != "\\u":
                    raise LarkError("invalid string literal")
                low = _hex4(body, i + 2)
                if not 0xDC00 <= low <= 0xDFFF:
                    raise LarkError("invalid string literal")
                cp, i = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00), i + 6
            elif 0xDC00 <= cp <= 0xDFFF:
                raise LarkError("invalid string literal")
            out.append(chr(cp))
        else:
            raise LarkError("invalid string literal")
    return "".join(out)


def _hex4(s: str, i: int) -> int:
    h = s[i:i + 4]
    if len(h) != 4 or not all(c in "0123456789abcdefABCDEF" for c in h):
        raise LarkError("invalid string literal")
    return int(h, 16)



__all__ = ["LarkError", "Unsupported", "json_string", "tokens"]
