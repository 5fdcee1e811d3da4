"""The ``pythonic`` transcoder's string reader: Python string literals in, JSON string text out.

Why a module of its own: a Python string literal has its own small grammar (prefixes, four
quotes, escapes, raw and f-strings), independent of the containers around it; the transcoder
(:mod:`.pythonic_args`) decides where a string's text goes (a value, a dict key, a held first
element) through :meth:`_string_text` and :meth:`_close_string`.

Grammar, as vLLM 0.33 reads it (``ast.parse`` and ``tool_parsers.utils.get_parameter_value``)::

    STRING := PREFIX? QUOTE TEXT QUOTE
    PREFIX := r | u | f | rf | fr   (any case; b, rb, br: bytes, not a JSON value: the call ends)
    QUOTE  := '  |  "  |  '''  |  \"\"\"

A raw string (``r``) keeps each backslash and the character after it as written (a quote so
escaped does not close it); an f-string is read when it has no placeholder (vLLM:
``ast.JoinedStr`` of constants only): ``{{`` and ``}}`` are ``{`` and ``}``, a lone ``{`` or
``}`` ends the call. A one-quote string ends the call at a newline (Python's syntax error).

State (:class:`~tito.core.parsers.tools._base.ToolState`): ``quote`` is the open string's flags
and quote (``r``, ``f``, then the quote: ``"rf'''"``); ``pend`` an unfinished escape
(``\\x4``), one or two quote characters that may close a triple-quoted string, or an f-string's
``{`` / ``}`` waiting for its twin.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from functools import lru_cache
from typing import ClassVar

from tito.core.parsers.tools._base import Out, ToolParser, Work
from tito.core.parsers.tools._json import skip_ws

_QUOTE_WS = 32  # whitespace read after a quote to decide it (nested_quotes)
_SURROGATE = re.compile("[\ud800-\udfff]")
_OCTAL = "01234567"
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -}")
#: a string prefix (lower-cased) -> its flags in ``ToolState.quote`` (None: bytes, no JSON value)
PREFIXES: dict[str, str | None] = {"r": "r", "u": "", "f": "f", "rf": "rf", "fr": "rf",
                                   "b": None, "rb": None, "br": None}


class Malformed(Exception):
    """Raised inside the transcoder; ends the call at the offending position."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


def json_body(text: str) -> str:
    """``text`` as the inside of a JSON string, as ``json.dumps(ensure_ascii=False)`` writes it."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    if _SURROGATE.search(body):
        body = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", body)
    return body


@lru_cache(maxsize=16)
def _string_specials(quote: str) -> re.Pattern[str]:
    """Characters that need attention inside a string opened with ``quote`` (flags included)."""
    q = quote.lstrip("rf")
    braces = "{}" if "f" in quote[: len(quote) - len(q)] else ""
    return re.compile(r"[\\" + re.escape(q[0]) + ("" if len(q) == 3 else r"\n") + braces + "]")


def _quote_closes(s: str, i: int, final: bool) -> bool | None:
    """Whether a one-quote string's quote before ``s[i]`` closes it (None: not known yet):
    vLLM's lfm2 requote rule (``escape_nested_quotes_in_strings``), read forward: a quote closes
    when the next non-whitespace character is one of ``,)]}:``, ``#`` (a comment follows), or
    ``<`` (a marker: the block's end is never read into a string); else it is the string's
    text, also before another quote
    (vLLM reads ``'a' 'b'`` as adjacent literals when the whole block parses so, a quote the
    stream cannot wait for: ``'it''s'`` and ``'a''), f()`` are nested quotes far more often).
    Whitespace past :data:`_QUOTE_WS` decides too (the hold stays bounded)."""
    j = skip_ws(s, i)
    if j - i >= _QUOTE_WS:
        return True
    if j >= len(s):
        return True if final else None
    return s[j] in ",)]}:<#"


class PythonStringReader(ToolParser):
    """Reads one Python string literal; the subclass says where its text goes.

    ``nested_quotes`` (lfm2): a quote not followed by a closer is the string's text."""

    nested_quotes: ClassVar[bool] = False

    def _string_text(self, st: Work, out: Out, text: str, at: int) -> None:
        raise NotImplementedError

    def _close_string(self, st: Work, out: Out) -> None:
        raise NotImplementedError

    def _open_string(self, st: Work, s: str, i: int, final: bool, prefix: str) -> int:
        """A string opens at the quote ``s[i]`` after ``prefix`` (``st.tok``'s text): set
        ``st.quote`` and return where its text starts, or a hold (``-i - 1``) while ``'`` /
        ``''`` may still be a triple quote's start."""
        flags = PREFIXES.get(prefix.lower(), None) if prefix else ""
        if flags is None:
            raise Malformed(i)
        c = s[i]
        look = s[i : i + 3]
        if len(look) < 3 and look == c * len(look) and not final:
            return -i - 1
        if look == c * 3:
            st.quote = flags + c * 3
            return i + 3
        st.quote = flags + c  # a one-quote string (maybe empty: _string closes it at once)
        return i + 1

    def _string(self, st: Work, s: str, i: int, out: Out, final: bool) -> int:
        n = len(s)
        quote = st.quote.lstrip("rf")
        flags = st.quote[: len(st.quote) - len(quote)]
        q = quote[0]
        triple = len(quote) == 3
        while i < n:
            if st.pend == "\\" and "f" in flags and s[i] in "{}":
                self._string_text(st, out, "\\", i)  # a brace after it is still a brace
                st.pend = ""
                continue
            if st.pend.startswith("\\"):
                if "r" in flags:  # raw: the backslash and the next character, as written
                    self._string_text(st, out, "\\" + s[i], i)
                    st.pend = ""
                    i += 1
                else:
                    i = self._escape(st, s, i, out)
                continue
            if st.pend in ("{", "}"):  # an f-string's brace: only its twin is text
                if s[i] != st.pend:
                    st.tok, st.pend = st.pend, ""  # a field: the call ends at its brace
                    raise Malformed(i)
                self._string_text(st, out, st.pend, i)
                st.pend = ""
                i += 1
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
            if c == "\\" or c in "{}":
                st.pend = c
                i += 1
            elif c == "\n":
                raise Malformed(i)
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

    def _escape(self, st: Work, s: str, i: int, out: Out) -> int:
        n = len(s)
        while i < n and not _escape_complete(st.pend, s[i]):
            c = s[i]
            if len(st.pend) >= 3 and st.pend[1] == "N" and c not in _NAME_CHARS:
                raise Malformed(i)  # \N{...} names: ASCII letters, digits, " -"
            st.pend += c
            i += 1
            if len(st.pend) > 99:
                raise Malformed(i)
        if i >= n:
            return n  # more may follow (at final: flush_pending)
        decoded = decode_escape(st.pend)
        if decoded is None:
            raise Malformed(i)
        st.pend = ""
        self._string_text(st, out, decoded, i)
        return i

    def flush_pending(self, st: Work, out: Out) -> None:
        """``final`` inside a string (the output was cut): write what is complete (a finished
        escape, a raw string's backslash, pending quote characters)."""
        pend, st.pend = st.pend, ""
        if pend.startswith("\\"):
            decoded = "\\" if "r" in st.quote[:2] else decode_escape(pend)
            if decoded is not None:
                self._string_text(st, out, decoded, 0)
        elif pend and pend not in "{}":
            self._string_text(st, out, pend, 0)


def decode_escape(pend: str) -> str | None:
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
