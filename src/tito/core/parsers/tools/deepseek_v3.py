"""``deepseek_v3``: DeepSeek-V3 / R1 tool calls.

Format (markers are DeepSeek's special tokens, received as text)::

    TEXT <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
    ```json
    {ARGS}
    ```<｜tool▁call▁end｜>
    <｜tool▁call▁begin｜>...<｜tool▁call▁end｜><｜tool▁calls▁end｜> TEXT

Phases (``args`` is in :mod:`._objects`):

``text``
    Content; ``<｜tool▁calls▁begin｜>`` switches to ``head`` (held back while a proper prefix).
``head`` / ``next``
    ``<｜tool▁calls▁begin｜>`` (``head`` only),
    ``<｜tool▁call▁begin｜> TYPE <｜tool▁sep｜> NAME \\n ```json \\n {``
    (whitespace allowed between markers; TYPE and NAME on one line; NAME stripped, non-empty).
    COMMIT at the arguments' ``{``; INVALID: the header's text is content, back to ``text``;
    NEED beyond :data:`HEADER_LIMIT`: likewise.
``args``
    The arguments JSON streams raw; ``<｜tool▁call▁end｜>`` outside strings ends a broken call
    (consumed), ``<｜tool▁calls▁end｜>`` ends it and the section.
``tail``
    After the arguments: optional whitespace and closing fence, then ``<｜tool▁call▁end｜>``
    (consumed). Anything else ends the call and is text.
``sep``
    Between calls: whitespace (dropped before a marker); ``<｜tool▁call▁begin｜>`` starts the
    next call (``next``),
    ``<｜tool▁calls▁end｜>`` is consumed and closes the section (``text``); anything else is text.

Rules: arguments are the raw text between the fence and the closing fence (as vLLM's
``deepseek_v3`` parser, which does not re-serialize), minus surrounding whitespace; text before
and after the section is content (vLLM keeps only the text before); unknown tool names pass
through (as vLLM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import held_suffix, is_proper_prefix
from tito.core.parsers.tools._base import HEADER_LIMIT, LEAD_LIMIT, Out, Work
from tito.core.parsers.tools._json import Header, match_lead, skip_ws
from tito.core.parsers.tools._objects import ObjectCallParser

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
SEP = "<｜tool▁sep｜>"
CALL_END = "<｜tool▁call▁end｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
FENCE_OPEN = "```json"
FENCE_CLOSE = "```"
_TAIL_LIMIT = 64


def parse_header(s: str, lead: Sequence[str]) -> Header:
    """Parse a DeepSeek call header (see ``head`` in the module header)."""
    i = 0
    for token in (*lead, CALL_BEGIN):
        i = skip_ws(s, i)
        j = match_lead(s, i, token)
        if j == -1:
            return Header("need")
        if j == -2:
            return Header("invalid", i)
        i = j
    sep = s.find(SEP, i)
    newline = s.find("\n", i)
    if newline != -1 and (sep == -1 or newline < sep):
        return Header("invalid", newline)
    if sep == -1:
        return Header("need")
    i = sep + len(SEP)
    newline = s.find("\n", i)
    if newline == -1:
        return Header("need")
    name = s[i:newline].strip()
    if not name:
        return Header("invalid", i)
    i = skip_ws(s, newline + 1)
    j = match_lead(s, i, FENCE_OPEN)
    if j == -1:
        return Header("need")
    if j == -2:
        return Header("invalid", i)
    i = skip_ws(s, j)
    if i == len(s):
        return Header("need")
    if s[i] != "{":
        return Header("invalid", i)
    return Header("commit", i, name)


@dataclass(frozen=True)
class DeepSeekV3Parser(ObjectCallParser):
    name: ClassVar[str] = "deepseek_v3"
    first_phase: ClassVar[str] = "text"
    resume_phase: ClassVar[str] = "text"
    interrupt_phase: ClassVar[str] = "sep"
    stop_markers: ClassVar[tuple[str, ...]] = (CALL_END, CALLS_END)
    end_marker: ClassVar[str] = CALL_END

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        hit = s.find(CALLS_BEGIN, pos)
        if hit != -1:
            self._content(st, out, s[pos:hit])
            st.phase = "head"
            return hit, False
        keep = 0 if final else held_suffix(s[pos:], (CALLS_BEGIN,))
        self._content(st, out, s[pos : len(s) - keep])
        return len(s) - keep, keep > 0

    def _on_next(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._on_head(st, s, pos, out, final)

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        lead = (CALLS_BEGIN,) if st.phase == "head" else ()
        limit = HEADER_LIMIT + len(CALLS_BEGIN) + len(CALL_BEGIN) + len(SEP) + len(FENCE_OPEN)
        assert limit <= HEADER_LIMIT + LEAD_LIMIT
        h = parse_header(s[pos : pos + limit], lead)
        if h.kind == "need":
            rest = len(s) - pos
            if not final and rest <= limit:
                return pos, True
            h = Header("invalid", min(rest, limit))
        if h.kind == "invalid":
            self._content(st, out, s[pos : pos + h.pos])
            st.phase = "text"
            return pos + h.pos, False
        self._start_call(st, out, h.name)
        st.phase = "args"
        return pos + h.pos, False

    def _on_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = skip_ws(s, pos)
        if s.startswith(FENCE_CLOSE, i):
            i = skip_ws(s, i + len(FENCE_CLOSE))
        elif (i == len(s) or is_proper_prefix(s[i:], (FENCE_CLOSE,))) and (
            not final and len(s) - pos <= _TAIL_LIMIT
        ):
            return pos, True
        if s.startswith(CALL_END, i):
            self._end_call(st)
            st.phase = "sep"
            return i + len(CALL_END), False
        if (
            not final
            and len(s) - pos <= _TAIL_LIMIT
            and (i == len(s) or is_proper_prefix(s[i:], (CALL_END, CALLS_END)))
        ):
            return pos, True
        if final and is_proper_prefix(s[i:], (CALL_END, CALLS_END)):
            i = len(s)  # the output was cut inside a closing marker: markup, not text
        self._end_call(st)
        st.phase = "sep" if s.startswith(CALLS_END, i) else "text"
        return i, False

    def _on_sep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, run, hold = self._structural_ws(st, s, pos, out, final)
        if hold:
            return pos, True
        if s.startswith(CALL_BEGIN, i):
            st.phase = "next"
            return i, False
        if s.startswith(CALLS_END, i):
            st.phase = "text"
            return i + len(CALLS_END), False
        if is_proper_prefix(s[i:], (CALL_BEGIN, CALLS_END)):
            if final:  # cut inside a marker between calls: markup, not text
                return len(s), False
            return pos, True
        self._content(st, out, run)
        if i < len(s):
            st.phase = "text"
        return i, False
