"""``pythonic``: Python-call-list tool calls (Llama 3.2 / Llama 4 / ToolACE style).

Format (only at the very start of the output, like vLLM's ``pythonic`` parser)::

    [get_weather(city="Paris", days=3), get_time(), search(q='x', opts={"k": [1, 2.5, None]})] TEXT

Arguments are keyword arguments whose values are Python literals: strings (``'...'``, ``"..."``,
triple-quoted, with escapes, prefixed, adjacent), numbers (``-1``, ``1_000``, ``0x1F``,
``2.5e-3``), ``True`` / ``False`` / ``None`` (and ``true`` / ``false`` / ``null``), lists,
tuples, sets and dicts with literal keys, nested up to 63 levels. They are streamed as
**JSON**, exactly as vLLM renders them (``json.dumps(arguments, ensure_ascii=False)``: ``", "``
and ``": "`` separators, non-ASCII kept), by an incremental transcoder: Python text in, JSON
text out, O(1) state (the container stack, a token, dict key or held element of at most
:data:`HEADER_LIMIT` characters, an unfinished escape).

Phases:

``start``
    ``[`` (or the optional lead) as the very first character goes to ``head``; anything else,
    leading whitespace included, to ``rest`` (vLLM: the regex matches at 0, the stream needs
    ``startswith("[")``).
``head`` / ``next``
    ``[`` (``head``) or ``,`` (``next``; ``, ]`` ends the list), then ``NAME(``, then ``)``
    (a call without arguments:
    ``{}``) or the first ``KEYWORD=``: the call starts (name sent, arguments ``{"KEYWORD": ``)
    and the transcoder takes over (``pargs``). The first call's tokens are adjacent (vLLM's
    regex); a later call's may have whitespace between them (Python's reading, which vLLM's
    regex spans there). Names and keywords are Python identifiers of any script (``città=``,
    NFKC-normalised as Python's tokenizer does), the first call's with an ASCII letter first
    (the regex's ``[a-zA-Z]+\\w*``; lfm2's regex is ``\\[.*\\]$``, so its first call takes
    any). A header that does not parse (``[1, 2]``, ``[see the docs]``, ``[f(x)]`` with a
    positional argument) is content, and so is the rest of the output.
``pargs``
    The transcoder (:mod:`.pythonic_args`, whose header states its state fields; strings:
    :mod:`.pythonic_strings`). The call's ``)`` writes ``}`` and goes to ``psep``.
``psep``
    Whitespace (dropped before ``,`` / ``]``); ``,`` goes to ``next``; ``]`` ends the list
    (``rest``); anything else is text (``rest``).
``pcomma``
    A ``,`` and a comment were read (``next`` saw a ``#`` in its header's window): comments and
    whitespace, then the next call's header with no lead, or ``]`` (a trailing comma).

Comments: a ``#`` where whitespace may stand between calls (after a call's ``)``, after a
``,`` within the header's window) opens a comment, as Python's ``ast`` reads it (vLLM parses
the list with it). It is dropped as it comes (``pend`` is ``#``; nothing of it is kept, so any
length costs no state) to its line's end (``\\n`` or a lone ``\\r``, as Python's tokenizer
reads one), the newline too, or to the block's end marker of a format that has one (lfm2,
llama4_pythonic: kept, vLLM cuts the block there first). Decided at
the ``#`` alone: the gap before it is dropped even when text, not a call, follows the comment.
Inside a later call's header (``, g( # c\\n b=2)``) a comment is skipped with the header's
whitespace, within its window (:func:`parse_header`); the first call's header stays adjacent.
``rest``
    Content until the end.

Rules: values are read as vLLM 0.33 reads Python's ``ast`` (:mod:`.pythonic_args`: sets and
tuples are JSON lists, ``(1)`` is ``1``, string prefixes, placeholder-free f-strings and adjacent
literals as Python's, unary signs on numbers, comments skipped, inside a call and between
calls); a container in parentheses, ``([1])``, is a one-element list (vLLM: the container; the
stream wrote ``[`` before its ``)``). Anything else that is not a literal (a name, a call, an
operator, bytes, an f-string field, a signed dict key) ends the call where it
stands (arguments as far as they got) and the text from there on is content; vLLM instead
returns the whole output as content when any part fails, and also when text follows the list
(we keep the calls and that text as content).
A number too large for a float (``1e999``) is written as the JSON string of
its text (``"1e999"``): JSON has no infinity (vLLM's pythonic parser writes the non-JSON
``Infinity``; its typed-value helpers keep the raw string, which we follow). Duplicate keys are
kept as written. Lone surrogates from
``\\ud800``-style escapes are written as JSON ``\\uXXXX`` escapes (valid JSON, and UTF-8-encodable
output).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._base import HEADER_LIMIT, Out, Work
from tito.core.parsers.tools._json import match_lead, skip_ws
from tito.core.parsers.tools.pythonic_args import LINE_ENDS, PythonArgsTranscoder
from tito.core.parsers.tools.pythonic_scalars import FIRST_IDENT, PY_IDENT, py_name


@dataclass(frozen=True)
class _PyHeader:
    kind: str  # need | invalid | commit | closed | end
    pos: int = 0
    name: str = ""
    kw: str = ""


def skip_gap(s: str, i: int, comment_ends: tuple[str, ...]) -> int:
    """Index of the first character at or after ``i`` that is neither whitespace nor in a
    comment (``#`` to its line's end, :data:`.LINE_ENDS`, the newline too, or to a block's
    end marker in ``comment_ends``, which is not skipped); ``len(s)`` while the text ends
    inside one."""
    n = len(s)
    while True:
        i = skip_ws(s, i)
        if i == n or s[i] != "#":
            return i
        hit = n
        for e in comment_ends:
            k = s.find(e, i + 1, hit)
            if k != -1:
                hit = k
        if hit == n or s[hit] not in LINE_ENDS:
            return hit
        i = hit + 1


def parse_header(s: str, lead: str, optional_lead: str = "", ws_after_lead: bool = False,
                 loose: tuple[str, ...] = (), ident: re.Pattern[str] = FIRST_IDENT
                 ) -> _PyHeader:
    """``[optional_lead] lead NAME ( [KEYWORD =|)]``: the tokens adjacent, as vLLM's batch
    ``TOOL_CALL_REGEX`` requires of the list's first call (``[get(a=1)`` is a call, ``[ get(a=1)``,
    ``[get (a=1)``, ``[get( a=1)``, ``[get(a =1)`` and ``[_get()`` are text); after a ``,`` lead
    whitespace is allowed (``,\\s*``), and after the optional lead with ``ws_after_lead`` (lfm2).
    ``loose`` (a later call of the list: the format's comment ends): whitespace and comments
    also between the tokens, as Python reads them (vLLM's regex spans a later call inside the
    first call's ``.*``; its stream reads Python: ``, get ( # c\\n a = 1)`` is a call). A
    comment longer than the header's window makes the header text, as a long name does.
    ``ident``: what a name or keyword is (the first call's: :data:`.FIRST_IDENT`, the regex's;
    a later call's: :data:`.PY_IDENT`, Python's)."""
    n = len(s)
    i = 0
    if optional_lead:
        j = match_lead(s, i, optional_lead)
        if j == -1:
            return _PyHeader("need")
        if j >= 0:
            i = skip_ws(s, j) if ws_after_lead else j
    j = match_lead(s, i, lead)
    if j == -1:
        return _PyHeader("need")
    if j == -2:
        return _PyHeader("invalid", i)
    i = j if lead == "[" else skip_ws(s, j)
    if lead == "," and s.startswith("]", i):
        return _PyHeader("end", i + 1)  # a trailing comma: "[f(), ]"
    m = ident.match(s, i)
    if m is None:
        return _PyHeader("need") if i == n else _PyHeader("invalid", i)
    if m.end() == n:
        return _PyHeader("need")
    name = m.group()
    if not name.isascii() and not (name := py_name(name) or ""):
        return _PyHeader("invalid", i)
    i = skip_gap(s, m.end(), loose) if loose else m.end()
    if i == n:
        return _PyHeader("need")
    if s[i] != "(":
        return _PyHeader("invalid", i)
    i = skip_gap(s, i + 1, loose) if loose else i + 1
    if i == n:
        return _PyHeader("need")
    if s[i] == ")":
        return _PyHeader("closed", i + 1, name)
    m = ident.match(s, i)
    if m is None:
        return _PyHeader("invalid", i)
    if m.end() == n:
        return _PyHeader("need")
    kw = m.group()
    if not kw.isascii() and not (kw := py_name(kw) or ""):
        return _PyHeader("invalid", i)
    i = skip_gap(s, m.end(), loose) if loose else m.end()
    if i == n:
        return _PyHeader("need")
    if s[i] != "=" or s.startswith("==", i):
        if s[i] == "=" and i + 1 == n:
            return _PyHeader("need")
        return _PyHeader("invalid", i)
    if i + 1 == n:
        return _PyHeader("need")  # "=" or "=="? decide with the next character
    return _PyHeader("commit", i + 1, name, kw)


@dataclass(frozen=True)
class PythonicParser(PythonArgsTranscoder):
    name: ClassVar[str] = "pythonic"
    first_phase: ClassVar[str] = "start"
    #: a marker that may open the list (llama4_pythonic's ``<|python_start|>``)
    optional_lead: ClassVar[str] = ""
    #: the phase after the list's ``]``
    closed_phase: ClassVar[str] = "rest"
    #: what opens the list and what stands before each later call (olmo3: none, and whitespace)
    list_lead: ClassVar[str] = "["
    next_lead: ClassVar[str] = ","
    #: whitespace may stand between the optional lead and the list (lfm2)
    ws_after_lead: ClassVar[bool] = False
    #: the first call's names: vLLM's batch regex's (lfm2's reads Python's)
    first_ident: ClassVar[re.Pattern[str]] = FIRST_IDENT

    # -- outer phases --------------------------------------------------------------------------

    def _on_start(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        # the list must open the output: vLLM's regex matches at 0 and its stream needs
        # ``current_text.startswith("[")``, so leading whitespace makes the output text
        i = pos
        if i == len(s):
            return i, False
        opt = self.optional_lead
        if opt and not final and is_proper_prefix(s[i:], (opt,)):
            return i, True
        st.phase = "head" if s[i] == "[" or (opt and s.startswith(opt, i)) else "rest"
        return i, False

    def _on_next(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if self.next_lead == ",":  # (olmo3's calls are lines: vLLM reads no comment there)
            i = self._gap_end(s, pos, 1)
            if i >= 0 and s[i] == "#":  # ``, # ...``: the comma is taken, the gap goes on
                st.pend, st.phase = "#", "pcomma"
                return i + 1, False
        return self._on_head(st, s, pos, out, final)

    def _on_pcomma(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """After ``,`` and a comment: more comments and whitespace, then the next call's name
        (its header read with no lead) or ``]`` (a trailing comma)."""
        pos, hold = self._skip_comment(st, s, pos, final)
        if st.pend == "#":
            return pos, hold
        i = self._gap_end(s, pos, 0)
        if i >= 0 and s[i] == "#":
            st.pend = "#"
            return i + 1, False
        if i >= 0 and s[i] == "]":
            st.phase = self.closed_phase
            return i + 1, False
        return self._header(st, s, pos, out, final, "", "", loose=self._comment_ends)

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if st.phase == "head":
            return self._header(st, s, pos, out, final, self.list_lead, self.optional_lead)
        return self._header(st, s, pos, out, final, self.next_lead, "",
                            loose=self._comment_ends if self.next_lead == "," else ())

    def _header(self, st: Work, s: str, pos: int, out: Out, final: bool, lead: str, opt: str,
                loose: tuple[str, ...] = ()) -> tuple[int, bool]:
        """A call's header from ``s[pos]`` (``lead`` first: ``[``, ``,`` or none), read in a
        window of :data:`HEADER_LIMIT` characters: the call starts, or the text is content;
        ``loose``: a later call of a list (:func:`parse_header`)."""
        limit = HEADER_LIMIT + 1 + len(opt)
        h = parse_header(s[pos : pos + limit], lead, opt, self.ws_after_lead, loose,
                         self.first_ident if st.phase == "head" else PY_IDENT)
        if h.kind == "need":
            rest = len(s) - pos
            if not final and rest <= limit:
                return pos, True
            h = _PyHeader("invalid", min(rest, limit))
        if h.kind == "invalid":
            self._content(st, out, s[pos : pos + h.pos])
            st.phase = "rest"
            return pos + h.pos, False
        if h.kind == "end":
            st.phase = self.closed_phase
            return pos + h.pos, False
        self._start_call(st, out, h.name)
        if h.kind == "closed":
            out.args(st, "{}")
            self._end_call(st)
            st.phase = "psep"
            return pos + h.pos, False
        out.args(st, "{" + json.dumps(h.kw, ensure_ascii=False) + ": ")
        st.stack, st.expect, st.comma = "(", "val!", False
        st.tok = st.key = st.quote = st.pend = ""
        st.phase = "pargs"
        return pos + h.pos, False

    def _on_psep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        pos, hold = self._skip_comment(st, s, pos, final)
        if st.pend == "#":
            return pos, hold
        i, run, hold = self._structural_ws(st, s, pos, out, final)
        if hold:
            return pos, True
        if i < len(s) and s[i] == "#":  # a comment (the run before it is the gap's)
            st.pend = "#"
            return i + 1, False
        if i < len(s) and s[i] == ",":
            st.phase = "next"
            return i, False
        if i < len(s) and s[i] == "]":
            st.phase = self.closed_phase
            return i + 1, False
        self._content(st, out, run)
        if i < len(s):
            st.phase = "rest"
        return i, False

    # -- comments between calls ----------------------------------------------------------------

    @staticmethod
    def _gap_end(s: str, pos: int, lead: int) -> int:
        """Where the gap after ``lead`` characters (the ``,``) and whitespace ends, if inside
        the header's window (so a stream, which holds that window, sees a ``#`` or ``]`` there
        where a batch does), else -1."""
        i = skip_ws(s, pos + lead)
        return i if i < len(s) and i < pos + HEADER_LIMIT + 1 else -1

    def _is_open(self, st: Work) -> bool:
        return st.phase == "pargs"
