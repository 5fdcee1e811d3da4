"""The ``pythonic`` format's argument transcoder: Python literals in, JSON text out, streamed.

Why a module of its own: the transcoder (the ``pargs`` phase of :mod:`.pythonic`, whose header
states the call list's grammar) is most of the format's code and is independent of the call
list around it; :class:`PythonArgsTranscoder` is the base of
:class:`~tito.core.parsers.tools.pythonic.PythonicParser`. Strings are :mod:`.pythonic_strings`'.

Values, as vLLM 0.33's ``tool_parsers.utils.get_parameter_value`` reads Python's ``ast``:
strings (adjacent literals are one string, ``'a' 'b'``: ``"ab"``), numbers (a sign run folds,
``- 1`` and ``--1`` too; a sign's operand may be parenthesised, ``-(1)``, ``-(-(2))``: one
token, :func:`~.pythonic_scalars.unparen`), ``True`` / ``False`` / ``None`` and ``true`` /
``false`` / ``null``, lists, dicts with literal keys, and tuples and sets as JSON lists, under
keywords that are Python identifiers of any script (``città=``, NFKC-normalised as Python's).
Written as ``json.dumps(arguments, ensure_ascii=False)`` writes them (``", "``, ``": "``).

A ``{`` is a dict or a set, a ``(`` a tuple or a parenthesised value (``(1)`` is ``1``): which
shows at the first element's end (``:`` a dict; ``,`` or the closer a set / ``(1)``; a ``(``'s
``,`` a tuple), so a first element that is a scalar is held (in ``key``, at most
:data:`HEADER_LIMIT` characters) and the container's opener is written once decided. A first
element that is a container, or a string longer than the hold, decides at once: a set, a tuple
(``([1])`` and ``((1))`` are then ``[[1]]``, where vLLM has ``[1]`` and ``1``: known only at the
``)``, after the stream wrote ``[``). A string's closing ``"`` waits for what follows it (an
adjacent literal continues it).

State (one :class:`~tito.core.parsers.tools._base.ToolState`, O(1)): ``stack`` the open
containers (``(`` the call, ``[`` list, ``{`` dict, ``t`` tuple, ``s`` set, ``?`` a ``{`` and
``p`` a ``(`` not decided yet); ``expect`` what may come (``val`` a value or a closer, ``val!``
a value, ``sep`` ``,`` or a closer, ``key`` a dict key or ``}``, ``colon``, ``kw`` a keyword or
``)``, ``eq``, ``first`` an undecided container's first element or closer, ``one`` / ``ocat``
that element held, a token / a string, ``cat`` / ``kcat`` a value / key string closed, its end
not written); ``tok`` an unfinished bare token; ``key`` a keyword or dict key (JSON) or a held
element; ``comma`` a ``,`` whose JSON separator is not written yet; ``pend`` ``#`` inside a
comment (it stands where whitespace may, to the line's end or the block's end marker).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import scan_to
from tito.core.parsers.tools._base import HEADER_LIMIT, Out, Work
from tito.core.parsers.tools._json import skip_ws
from tito.core.parsers.tools.pythonic_scalars import grown_token, key_text, py_name, value_text
from tito.core.parsers.tools.pythonic_strings import (
    PREFIXES,
    Malformed,
    PythonStringReader,
    json_body,
)

MAX_DEPTH = 63  # ToolState.stack holds at most this many containers
#: what ends a comment's line, as Python's tokenizer reads a line's end (a lone ``\r`` too)
LINE_ENDS = ("\n", "\r")

_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_.]+")
_KW_CHARS = re.compile(r"[\w.]+")  # a keyword's: word characters of any script
_CLOSER = {"(": ")", "[": "]", "{": "}", "t": ")", "s": "}", "?": "}", "p": ")"}
_AFTER_COMMA = {"(": "kw", "[": "val", "{": "key", "t": "val", "s": "val"}
_CLOSABLE = {"(": ("sep", "kw"), "[": ("sep", "val"), "{": ("sep", "key"), "t": ("sep", "val"),
             "s": ("sep", "val")}
#: what an undecided container becomes: at a ``,`` after its first element / at a container
#: as its first element
_DECIDED = {"?": "s", "p": "t"}
#: expect states after a string closed, where an adjacent literal continues it
_CAT = {"cat": "val!", "kcat": "key", "ocat": "first"}


@dataclass(frozen=True)
class PythonArgsTranscoder(PythonStringReader):
    """The ``pargs`` phase: a call's keyword arguments, Python literals, written as JSON."""

    #: what ends a comment: its line's end, or the block's end marker (lfm2, llama4_pythonic)
    _comment_ends: ClassVar[tuple[str, ...]] = LINE_ENDS

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
                if i >= len(s):
                    if final:
                        self._flush_final(st, out)
                    return len(s), False
        except Malformed as bad:
            at = bad.pos
            try:
                self._write_undecided(st, out)
            except Malformed:  # only a tampered state holds an element no literal
                pass
            if st.tok:
                self._content(st, out, st.tok)
            self._end_call(st)
            st.stack = st.expect = st.tok = st.key = st.quote = st.pend = ""
            st.comma = False
            st.phase = "rest"
            return at, False

    def _skip_comment(self, st: Work, s: str, pos: int, final: bool) -> tuple[int, bool]:
        """Inside a comment (``st.pend`` is ``#``, here or between calls): drop it to its line's
        end (the newline too) or to the block's end marker (kept: vLLM cuts the block there
        before it parses it). Nothing of it is kept but a marker's proper prefix (``hold``), so
        a comment of any length costs no state. ``(pos, hold)``."""
        if st.pend != "#":
            return pos, False
        hit, marker, stop = scan_to(s, self._comment_ends, pos, final)
        if hit == -1:
            return stop, stop < len(s)
        st.pend = ""
        return (hit + 1 if marker in LINE_ENDS else hit), False

    def _flush_final(self, st: Work, out: Out) -> None:
        """``final`` with the call open (the output was cut): write what is complete (a number,
        a finished escape, pending quote characters, a closed string's ``"``, an undecided
        container's opener); the call stays open."""
        try:
            if st.tok:
                self._finish_token(st, out, 0)
            if st.quote:
                self.flush_pending(st, out)
            elif st.expect == "cat":
                out.args(st, '"')
                st.expect = "sep"
            self._write_undecided(st, out)
        except Malformed:
            pass
        st.tok = st.pend = ""

    def _write_undecided(self, st: Work, out: Out) -> None:
        """At the end of the call's text (cut, or malformed further on), an undecided container
        is written as it stands: a ``{``, or a ``(``'s ``[`` and its held element (idempotent:
        it is decided now)."""
        top = st.stack[-1:]
        if top in ("?", "p"):
            out.args(st, "{" if top == "?" else "[" + self._held_value(st))
            st.stack = st.stack[:-1] + ("{" if top == "?" else "t")
            st.key = ""
            st.expect = "key" if top == "?" else "val"

    def _item(self, st: Work, out: Out) -> None:
        """A value starts at a list position: write the pending separator."""
        if st.comma:
            out.args(st, ", ")
            st.comma = False

    def _structure(self, st: Work, s: str, i: int, out: Out, final: bool) -> int:
        n = len(s)
        if st.pend == "#":  # inside a comment (the check inline: the per-character path)
            i, hold = self._skip_comment(st, s, i, final)
            if st.pend:
                return -i - 1 if hold else n
        i = skip_ws(s, i)
        if i >= n:
            return n
        c = s[i]
        if c == "#":  # a comment stands where whitespace may (Python's ast skips it)
            st.pend = "#"
            return i + 1
        exp = st.expect
        if exp in _CAT:
            if c in "'\"":  # an adjacent literal: the same string goes on
                return self._begin_string(st, s, i, out, final, "")
            if c in "rRuUfFbB":  # maybe a prefixed one (else _finish_token refuses it)
                st.tok = c
                return i + 1
            exp = self._string_ended(st, out)
        top = st.stack[-1]
        if exp in ("one", "ocat"):
            return self._decide(st, out, c, i)
        if c in ")]}":
            if c != _CLOSER[top] or exp not in _CLOSABLE.get(top, ("first",)):
                raise Malformed(i)
            self._close(st, out, "[]" if top == "p" else "{}" if top == "?" else "")
            return i + 1
        if exp == "sep":
            if c != ",":
                raise Malformed(i)
            st.comma = True
            st.expect = _AFTER_COMMA[top]
            return i + 1
        if exp == "colon" or exp == "eq":
            if c != (":" if exp == "colon" else "=") or s.startswith("==", i):
                raise Malformed(i)
            if exp == "eq" and i + 1 == n and not final:
                return -i - 1  # "=" or "=="?
            out.args(st, (", " if st.comma else "") + st.key + ": ")
            st.comma = False
            st.key = ""
            st.expect = "val!"
            return i + 1
        # a value, a dict key or a keyword starts here
        if c in "'\"":
            return self._begin_string(st, s, i, out, final, "")
        if c in "[{(":
            if exp == "first":  # a container first: the undecided one is a set / a tuple
                self._decide_list(st, out, "")
                exp = "val!"
            if exp not in ("val", "val!") or len(st.stack) >= MAX_DEPTH:
                raise Malformed(i)
            self._item(st, out)
            if c == "[":
                out.args(st, "[")
            st.stack += {"[": "[", "{": "?", "(": "p"}[c]
            st.expect = "val" if c == "[" else "first"
            return i + 1
        # a token: a keyword (an identifier of any script: ``città=``), a number or a name
        if c.isidentifier() if exp == "kw" else (c.isascii() and c.isalnum()) or c in "_.+-":
            st.tok = c
            return i + 1
        raise Malformed(i)

    # -- containers ----------------------------------------------------------------------------

    def _close(self, st: Work, out: Out, empty: str) -> None:
        """The top container's closer (``empty``: the undecided one's empty form, ``{}``
        or ``[]``)."""
        top = st.stack[-1]
        st.stack = st.stack[:-1]
        st.comma = False
        out.args(st, empty or ("}" if top in "({" else "]"))
        if not st.stack:
            self._end_call(st)
            st.expect = ""
            st.phase = "psep"
        else:
            st.expect = "sep"

    def _held_value(self, st: Work) -> str:
        """The held first element as a JSON value (``one``: a bare token; ``ocat``: a string)."""
        if st.expect == "ocat":
            return '"' + st.key + '"'
        if st.expect == "first" and st.quote:  # cut inside it (final)
            return '"' + st.key
        if st.expect == "one":
            return value_text(st.key, 0)
        return ""

    def _decide_list(self, st: Work, out: Out, held: str) -> None:
        """The undecided top container is a set / tuple: write ``[`` and the held element."""
        st.stack = st.stack[:-1] + _DECIDED[st.stack[-1]]
        out.args(st, "[" + held)
        st.key = ""

    def _decide(self, st: Work, out: Out, c: str, i: int) -> int:
        """The character ``c`` after an undecided container's held first element decides it."""
        top = st.stack[-1]
        if c == ":" and top == "?":  # a dict: the element was its first key
            if st.expect == "one":
                st.tok = st.key  # refused (a signed number): the token is content
                key = key_text(st.key, i)
                st.tok = ""
            else:
                key = '"' + st.key + '"'
            st.stack = st.stack[:-1] + "{"
            out.args(st, "{" + key + ": ")
            st.key = ""
            st.expect = "val!"
            return i + 1
        if c == "," or c == _CLOSER[top]:
            held = self._held_value(st)
            if c == ",":  # a set / tuple
                self._decide_list(st, out, held)
                st.comma = True
                st.expect = "val"
            elif top == "?":  # a set of one
                self._decide_list(st, out, held)
                self._close(st, out, "")
            else:  # a parenthesised value, ``(1)``: the value itself
                st.stack = st.stack[:-1]
                st.key = ""
                out.args(st, held)
                st.expect = "sep"
            return i + 1
        raise Malformed(i)

    def _string_ended(self, st: Work, out: Out) -> str:
        """A closed string is not continued: finish it; the state's next ``expect``."""
        exp = st.expect
        if exp == "cat":
            out.args(st, '"')
            st.expect = "sep"
        elif exp == "kcat":
            st.key = '"' + st.key + '"'
            st.expect = "colon"
        else:
            st.expect = "ocat"  # stays held: _decide
            return "ocat"
        return st.expect

    # -- tokens --------------------------------------------------------------------------------

    def _token(self, st: Work, s: str, i: int, out: Out, final: bool) -> int:
        n = len(s)
        while i < n:
            m = (None if st.tok[-1] == " " else
                 (_KW_CHARS if st.expect == "kw" else _TOKEN_CHARS).match(s, i))
            if m is not None:  # (the common case first: no scan of the token)
                st.tok += m.group()
                i = m.end()
            elif (grown := grown_token(st.tok, s[i])) is None:
                break
            else:
                st.tok = grown
                i = skip_ws(s, i) if s[i] in " \t\n\r" else i + 1  # (a run is one space)
            if len(st.tok) > HEADER_LIMIT:
                raise Malformed(i)
        if i >= n:
            return n  # more may follow (at final: _flush_final)
        if s[i] in "'\"" and st.tok.lower() in PREFIXES:
            at = self._begin_string(st, s, i, out, final, st.tok)  # refused: tok is content
            if at >= 0:
                st.tok = ""
            return at
        self._finish_token(st, out, i)
        return i

    def _finish_token(self, st: Work, out: Out, at: int) -> None:
        """The bare token in ``st.tok`` ended (before ``s[at]``): write or store it."""
        tok, exp = st.tok, st.expect
        if exp in _CAT:  # a name after a string: not a prefix, so not a literal
            raise Malformed(at)
        if exp == "kw":
            if not tok.isidentifier():
                raise Malformed(at)
            st.tok = ""
            st.key = json.dumps(tok if tok.isascii() else py_name(tok), ensure_ascii=False)
            if len(st.key) > HEADER_LIMIT:
                raise Malformed(at)
            st.expect = "eq"
            return
        if exp == "key":
            st.tok = ""
            st.key = key_text(tok, at)
            st.expect = "colon"
            return
        text = value_text(tok, at)
        st.tok = ""
        if exp == "first":  # held: the container is not decided yet
            st.key = tok
            st.expect = "one"
            return
        self._item(st, out)
        out.args(st, text)
        st.expect = "sep"

    # -- strings (the reader's hooks) ----------------------------------------------------------

    def _begin_string(self, st: Work, s: str, i: int, out: Out, final: bool, prefix: str
                      ) -> int:
        """A string literal opens at the quote ``s[i]`` (after ``prefix``): a value's opening
        ``"`` is written, a key or held element is not, an adjacent literal goes on (nothing
        written before its hold is over: a hold re-reads the quote)."""
        exp = st.expect
        if exp == "kw":
            raise Malformed(i)
        at = self._open_string(st, s, i, final, prefix)
        if at < 0:
            return at
        if exp in _CAT:
            st.expect = _CAT[exp]
        elif exp not in ("key", "first"):
            self._item(st, out)
            out.args(st, '"')
        return at

    def _string_text(self, st: Work, out: Out, text: str, at: int) -> None:
        if not text:
            return
        body = json_body(text)
        if st.expect == "key":
            st.key += body
            if len(st.key) > HEADER_LIMIT - 2:
                raise Malformed(at)
        elif st.expect == "first":
            if len(st.key) + len(body) > HEADER_LIMIT - 2:  # too long to hold: a set / tuple
                self._decide_list(st, out, '"' + st.key)
                st.expect = "val!"
                out.args(st, body)
            else:
                st.key += body
        else:
            out.args(st, body)

    def _close_string(self, st: Work, out: Out) -> None:
        st.quote = ""
        st.expect = {"key": "kcat", "first": "ocat"}.get(st.expect, "cat")
