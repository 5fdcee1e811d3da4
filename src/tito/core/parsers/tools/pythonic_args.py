"""The ``pythonic`` format's argument transcoder: Python literals in, JSON text out, streamed.

Why a module of its own: the transcoder (the ``pargs`` phase of :mod:`.pythonic`, whose header
states the grammar and the rules) is most of the format's code and is independent of the call
list around it; :class:`PythonArgsTranscoder` is the base of
:class:`~tito.core.parsers.tools.pythonic.PythonicParser`.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from tito.core.parsers.tools._base import HEADER_LIMIT, Out, ToolParser, Work
from tito.core.parsers.tools._json import skip_ws

MAX_DEPTH = 63  # ToolState.stack holds at most this many containers
_QUOTE_WS = 32  # whitespace read after a quote to decide it (nested_quotes)

_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_.]+")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: stack entries: ``(`` the call, ``[`` list, ``{`` dict, ``t`` a tuple (written as a JSON list)
_CLOSER = {"(": ")", "[": "]", "{": "}", "t": ")"}
_AFTER_COMMA = {"(": "kw", "[": "val", "{": "key", "t": "val"}
_CLOSABLE = {"(": ("sep", "kw"), "[": ("sep", "val"), "{": ("sep", "key"), "t": ("sep", "val")}
_NAMED_CONSTANTS = {
    "True": "true",
    "False": "false",
    "None": "null",
    "true": "true",
    "false": "false",
    "null": "null",
}
_KEY_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
_OCTAL = "01234567"
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -}")


def json_body(text: str) -> str:
    """``text`` as the inside of a JSON string, as ``json.dumps(ensure_ascii=False)`` writes it."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    if _SURROGATE.search(body):
        body = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", body)
    return body


class _Malformed(Exception):
    """Raised inside the transcoder; ends the call at the offending position."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


@lru_cache(maxsize=8)
def _string_specials(quote: str) -> re.Pattern[str]:
    """Characters that need attention inside a string opened with ``quote``."""
    q = quote[0]
    return re.compile(r"[\\" + re.escape(q) + ("" if len(quote) == 3 else r"\n") + "]")


def _quote_closes(s: str, i: int, final: bool) -> bool | None:
    """Whether a one-quote string's quote before ``s[i]`` closes it (None: not known yet):
    vLLM's lfm2 requote rule (``escape_nested_quotes_in_strings``), read forward: a quote closes
    when the next non-whitespace character is one of ``,)]}:``, or ``<`` (a marker: the block's
    end is never read into a string); else it is the string's text. Whitespace past
    :data:`_QUOTE_WS` decides too (the hold stays bounded)."""
    j = skip_ws(s, i)
    if j - i >= _QUOTE_WS:
        return True
    if j >= len(s):
        return True if final else None
    return s[j] in ",)]}:<"


@dataclass(frozen=True)
class PythonArgsTranscoder(ToolParser):
    """The ``pargs`` phase: a call's keyword arguments, Python literals, written as JSON.

    ``nested_quotes`` (lfm2): a quote not followed by a closer is the string's text."""

    nested_quotes: ClassVar[bool] = False

    # -- the transcoder ------------------------------------------------------------------------

    def _on_pargs(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = pos
        try:
            while True:
                if st.quote:
                    i = self._string(st, s, i, out, final)
                elif st.tok:
                    i = self._token(st, s, i, out, final)
                else:
                    i = self._structure(st, s, i, out, final)
                if st.phase != "pargs":
                    return i, False
                if i < 0:  # hold: wait for more text (lookahead at a quote)
                    return -i - 1, True
                if i >= len(s) and not (final and (st.quote or st.tok)):
                    return len(s), False
                if i >= len(s):
                    self._flush_final(st, out)
                    return len(s), False
        except _Malformed as bad:
            at = bad.pos
            if st.tok:
                self._content(st, out, st.tok)
            self._end_call(st)
            st.stack = st.expect = st.tok = st.key = st.quote = st.pend = ""
            st.comma = False
            st.phase = "rest"
            return at, False

    def _flush_final(self, st: Work, out: Out) -> None:
        """``final`` inside a string or token (the output was cut): write what is complete
        (a number, a finished escape, pending quote characters); the call stays open."""
        try:
            if st.tok:
                self._finish_token(st, out, 0)
            if st.quote and st.pend.startswith("\\"):
                decoded = _decode_escape(st.pend)
                if decoded is not None:
                    self._string_text(st, out, decoded, 0)
            elif st.quote and st.pend:
                self._string_text(st, out, st.pend, 0)
        except _Malformed:
            pass
        st.tok = st.pend = ""

    def _emit(self, st: Work, out: Out, text: str) -> None:
        out.args(st, text)

    def _item(self, st: Work, out: Out) -> None:
        """A value starts at a list position: write the pending separator."""
        if st.comma:
            self._emit(st, out, ", ")
            st.comma = False

    def _structure(self, st: Work, s: str, i: int, out: Out, final: bool) -> int:
        n = len(s)
        i = skip_ws(s, i)
        if i >= n:
            return n
        c = s[i]
        exp = st.expect
        top = st.stack[-1]
        if c in ")]}":
            if c != _CLOSER[top] or exp not in _CLOSABLE[top]:
                raise _Malformed(i)
            st.stack = st.stack[:-1]
            st.comma = False
            self._emit(st, out, "}" if top in "({" else "]")
            if not st.stack:
                self._end_call(st)
                st.expect = ""
                st.phase = "psep"
            else:
                st.expect = "sep"
            return i + 1
        if exp == "sep":
            if c != ",":
                raise _Malformed(i)
            st.comma = True
            st.expect = _AFTER_COMMA[top]
            return i + 1
        if exp == "colon" or exp == "eq":
            if c != (":" if exp == "colon" else "=") or s.startswith("==", i):
                raise _Malformed(i)
            if exp == "eq" and i + 1 == n and not final:
                return -i - 1  # "=" or "=="?
            self._emit(st, out, (", " if st.comma else "") + st.key + ": ")
            st.comma = False
            st.key = ""
            st.expect = "val!"
            return i + 1
        # a value, a dict key or a keyword starts here
        if c in "'\"":
            look = s[i : i + 3]
            if len(look) < 3 and look == c * len(look) and not final:
                return -i - 1
            if exp == "kw":
                raise _Malformed(i)
            if look == c * 3:
                st.quote, start = c * 3, i + 3
            else:  # a one-quote string (maybe empty: then _string closes it at once)
                st.quote, start = c, i + 1
            if exp != "key":
                self._item(st, out)
                self._emit(st, out, '"')
            return start
        if c in "[{(":
            # a tuple is a list, as vLLM 0.33's get_parameter_value reads ast.Tuple (a
            # parenthesised value, ``(1)``, too: it shows only at its ``)``; vLLM: ``1``)
            if exp not in ("val", "val!") or len(st.stack) >= MAX_DEPTH:
                raise _Malformed(i)
            self._item(st, out)
            self._emit(st, out, "[" if c == "(" else c)
            st.stack += "t" if c == "(" else c
            st.expect = "key" if c == "{" else "val"
            return i + 1
        if (c.isascii() and c.isalnum()) or c in "_.+-":
            if exp == "kw" and not (c.isalpha() or c == "_"):
                raise _Malformed(i)
            st.tok = c
            return i + 1
        raise _Malformed(i)

    def _token(self, st: Work, s: str, i: int, out: Out, final: bool) -> int:
        n = len(s)
        while i < n:
            m = _TOKEN_CHARS.match(s, i)
            if m is not None:
                st.tok += m.group()
                i = m.end()
            elif s[i] in "+-" and st.tok[-1] in "eE" and _is_decimal(st.tok):
                st.tok += s[i]
                i += 1
            else:
                break
            if len(st.tok) > HEADER_LIMIT:
                raise _Malformed(i)
        if i >= n:
            return n  # more may follow (at final: _flush_final)
        self._finish_token(st, out, i)
        return i

    def _finish_token(self, st: Work, out: Out, at: int) -> None:
        """The bare token in ``st.tok`` ended (before ``s[at]``): write or store it."""
        tok, exp = st.tok, st.expect
        if exp == "kw" or exp == "key":
            if exp == "kw":
                if not tok.isidentifier():
                    raise _Malformed(at)
                key = json.dumps(tok, ensure_ascii=False)
            else:
                value = _KEY_CONSTANTS[tok] if tok in _KEY_CONSTANTS else _number(tok, at)
                key = json.dumps({value: 0}, ensure_ascii=False)[1:-4]
            if len(key) > HEADER_LIMIT:
                raise _Malformed(at)
            st.tok = ""
            st.key = key
            st.expect = "eq" if exp == "kw" else "colon"
            return
        text = _NAMED_CONSTANTS.get(tok)
        if text is None:
            value = _number(tok, at)
            # 1e999 is inf: JSON has no such number; keep the token's text as a string, as vLLM
            # does for every non-finite value it types (tool_parsers.utils, "preserve the raw
            # string"), never the non-JSON ``Infinity`` of json.dumps
            text = json.dumps(value) if math.isfinite(value) else json.dumps(tok)
        st.tok = ""
        self._item(st, out)
        self._emit(st, out, text)
        st.expect = "sep"

    def _string_text(self, st: Work, out: Out, text: str, at: int) -> None:
        if not text:
            return
        body = json_body(text)
        if st.expect == "key":
            st.key += body
            if len(st.key) > HEADER_LIMIT - 2:
                raise _Malformed(at)
        else:
            self._emit(st, out, body)

    def _close_string(self, st: Work, out: Out) -> None:
        st.quote = ""
        if st.expect == "key":
            st.key = '"' + st.key + '"'
            st.expect = "colon"
        else:
            self._emit(st, out, '"')
            st.expect = "sep"

    def _string(self, st: Work, s: str, i: int, out: Out, final: bool) -> int:
        n = len(s)
        q = st.quote[0]
        triple = len(st.quote) == 3
        while i < n:
            if st.pend.startswith("\\"):
                i = self._escape(st, s, i, out, final)
                continue
            if st.pend:  # 1-2 quote characters of a possible triple-quote end
                run = len(st.pend)
                while i < n and s[i] == q and run < 3:
                    run += 1
                    i += 1
                if run == 3:
                    st.pend = ""
                    self._close_string(st, out)
                    return i
                if i == n:
                    st.pend = q * run
                    return n
                st.pend = ""
                self._string_text(st, out, q * run, i)
                continue
            m = _string_specials(st.quote).search(s, i)
            j = m.start() if m else n
            self._string_text(st, out, s[i:j], j)
            i = j
            if i == n:
                return n
            c = s[i]
            if c == "\\":
                st.pend = "\\"
                i += 1
            elif c == "\n":
                raise _Malformed(i)
            elif not triple:
                closes = not self.nested_quotes or _quote_closes(s, i + 1, final)
                if closes is None:
                    return -i - 1  # hold the quote: what follows it decides
                if closes:
                    self._close_string(st, out)
                    return i + 1
                self._string_text(st, out, q, i)  # a nested quote (lfm2): the string's text
                i += 1
            else:
                st.pend = q
                i += 1
        return n

    def _escape(self, st: Work, s: str, i: int, out: Out, final: bool) -> int:
        n = len(s)
        while i < n and not _escape_complete(st.pend, s[i]):
            c = s[i]
            if len(st.pend) >= 3 and st.pend[1] == "N" and c not in _NAME_CHARS:
                raise _Malformed(i)  # \N{...} names: ASCII letters, digits, " -"
            st.pend += c
            i += 1
            if len(st.pend) > 99:
                raise _Malformed(i)
        if i >= n:
            return n  # more may follow (at final: _flush_final)
        decoded = _decode_escape(st.pend)
        if decoded is None:
            raise _Malformed(i)
        st.pend = ""
        self._string_text(st, out, decoded, i)
        return i


def _decode_escape(pend: str) -> str | None:
    """A complete Python escape (``\\n``, ``\\x41``, ``\\N{BULLET}``...) decoded, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "\\q": an invalid escape, kept as written
            value = ast.literal_eval('"' + pend + '"')
    except (SyntaxError, ValueError):
        return None
    return value if isinstance(value, str) else None


def _escape_complete(pend: str, nxt: str) -> bool:
    """Whether escape ``pend`` is complete before character ``nxt`` (which is not part of it)."""
    if len(pend) < 2:
        return False
    kind = pend[1]
    size = {"x": 4, "u": 6, "U": 10}.get(kind)
    if size is not None:
        return len(pend) >= size
    if kind == "N":
        return pend.endswith("}")
    if kind in _OCTAL:
        return len(pend) >= 4 or nxt not in _OCTAL
    return True


def _is_decimal(tok: str) -> bool:
    body = tok.lstrip("+-")
    return (
        bool(body)
        and (body[0].isdigit() or body[0] == ".")
        and body[:2].lower() not in ("0x", "0o", "0b")
    )


_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]+")


def _number(tok: str, at: int) -> int | float:
    if _INT.fullmatch(tok) and len(tok) < 20:
        return int(tok)
    if _FLOAT.fullmatch(tok) and len(tok) < 20:
        return float(tok)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = ast.literal_eval(tok)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise _Malformed(at) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Malformed(at)
    return value
