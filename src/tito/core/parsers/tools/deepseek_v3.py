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
    Once a section has begun in the output (``insec``; :attr:`DeepSeekV3Parser.calls_anywhere`),
    ``<｜tool▁call▁begin｜>`` also opens a call here (``next``) and a stray
    ``<｜tool▁calls▁end｜>`` is dropped: vLLM's stream reads every call once the section's
    begin token is among the output ids, wherever the call stands (a misspelt second section
    marker, text between sections), and its batch's regex finds every whole call.
``head`` / ``next``
    ``<｜tool▁calls▁begin｜>`` (``head`` only),
    ``<｜tool▁call▁begin｜> TYPE <｜tool▁sep｜> NAME \\n ```json \\n {``
    (whitespace allowed between markers; TYPE and NAME on one line; NAME stripped, non-empty).
    COMMIT at the arguments' ``{``; INVALID: the header's text is content, back to ``text``
    (inside the section, ``next`` or ``head`` past its lead: ``skip``);
    NEED beyond :data:`HEADER_LIMIT`: likewise. NEED at the end of the output (a ``length``
    cut): no call and the section's markup is dropped, as vLLM's batch (its regexes need a
    whole call; ``kimi_k2`` names a call there, see its header).
``args``
    The arguments JSON streams raw; ``<｜tool▁call▁end｜>`` ends a broken call, inside a string
    too (consumed; the closing fence on its own line right before it is not the arguments', as
    vLLM's regex),
    ``<｜tool▁calls▁end｜>`` ends it and the section.
``tail``
    After the arguments: whitespace (the arguments', sent as it comes; only a last newline is
    held, the closing fence's line when the fence follows), then the closing fence (``fence``)
    or ``<｜tool▁call▁end｜>`` (consumed). Anything else ends the call and is text. In the
    formats whose arguments do not own that whitespace (kimi_k2, plamo3) it is dropped as it
    comes, never held: only a closer's prefix is.
``fence``
    After the closing fence: whitespace (dropped), then ``<｜tool▁call▁end｜>`` (consumed);
    anything else ends the call and is text.
``skip``
    A call whose header is broken inside the section: its text is content through its
    ``<｜tool▁call▁end｜>``, then ``sep`` (vLLM's regexes find every whole call wherever it
    stands; its content drops the section, tito keeps the broken call's text).
``sep``
    Between calls: whitespace (dropped before a marker); ``<｜tool▁call▁begin｜>`` starts the
    next call (``next``),
    ``<｜tool▁calls▁end｜>`` is consumed and closes the section (``text``); anything else is text.

Rules: arguments are the raw text between the fence's newline and the closing fence's (as vLLM's
``deepseek_v3`` regex, which does not re-serialize: ARGS between ``json`` + newline and newline
+ fence + ``<｜tool▁call▁end｜>``): whitespace before the ``{`` and after the ``}`` is the
arguments' (fuzz seed 114, ``deepseek_v3/fz39_*``), the trailing run whatever its length
(session 40, ``deepseek_v3/fz40_*``: streamed as it comes, so the held text stays O(1)); before
a closer vLLM's regex does not take (no fence, or the fence not on a line of its own before the
end marker) the run stays the arguments' but for a newline the fence follows (vLLM's batch runs
such a call on into the next one: ``call_unclosed`` in docs/conformance.md); text before and
after the section is content (vLLM keeps only the text before); unknown tool names pass through
(as vLLM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix, scan_to
from tito.core.parsers.tools._base import HEADER_LIMIT, LEAD_LIMIT, Out, Work
from tito.core.parsers.tools._json import (
    Header,
    find_on_line,
    match_leads,
    open_args,
    skip_ws,
)
from tito.core.parsers.tools._objects import ObjectCallParser

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
SEP = "<｜tool▁sep｜>"
CALL_END = "<｜tool▁call▁end｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
FENCE_OPEN = "```json"
FENCE_CLOSE = "```"


def parse_header(s: str, lead: Sequence[str]) -> Header:
    """Parse a DeepSeek-V3 call header (see ``head`` in the module header)."""
    i = match_leads(s, (*lead, CALL_BEGIN))
    if isinstance(i, Header):
        return i
    sep = find_on_line(s, i, SEP)
    if isinstance(sep, Header):
        return sep
    i = sep + len(SEP)
    newline = s.find("\n", i)
    if newline == -1:
        return Header("need")
    name = s[i:newline].strip()
    if not name:
        return Header("invalid", i)
    j = match_leads(s, (FENCE_OPEN,), newline + 1)
    if isinstance(j, Header):
        return j
    h = open_args(s, j, name)
    # the arguments start right after the fence's newline: whitespace past it is theirs
    return Header("commit", j + 1, name) if h.kind == "commit" and s[j : j + 1] == "\n" else h


@dataclass(frozen=True)
class DeepSeekV3Parser(ObjectCallParser):
    """DeepSeek-V3; also the base of the formats with the same section/call/end-marker shape
    (``deepseek_v31``, ``kimi_k2``), which set the markers and :meth:`_parse_header`."""

    name: ClassVar[str] = "deepseek_v3"
    structural_tag_model: ClassVar[str | None] = "deepseek_r1"
    first_phase: ClassVar[str] = "text"
    resume_phase: ClassVar[str] = "text"
    interrupt_phase: ClassVar[str] = "sep"
    calls_begin: ClassVar[str] = CALLS_BEGIN
    call_begin: ClassVar[str] = CALL_BEGIN
    call_end: ClassVar[str] = CALL_END
    calls_end: ClassVar[str] = CALLS_END
    #: closing fence allowed between the arguments and ``call_end``
    fence_close: ClassVar[str] = FENCE_CLOSE
    #: (the closing fence and end marker end unbalanced arguments, the fence not theirs: vLLM's
    #: regex ``(.*)\n```<｜tool▁call▁end｜>``)
    stop_markers: ClassVar[tuple[str, ...]] = ("\n" + FENCE_CLOSE + CALL_END, CALL_END, CALLS_END)
    #: the same inside a JSON string: a string the model never closed (a dropped quote) must not
    #: swallow the fence and the markers into the arguments; vLLM's regex ends the arguments at
    #: the first ``\n```<｜tool▁call▁end｜>`` whatever they hold (fuzz seed 120)
    string_stop_markers: ClassVar[tuple[str, ...]] = stop_markers
    end_marker: ClassVar[str] = CALL_END
    #: the marker between a call's name and its arguments
    sep: ClassVar[str] = SEP
    #: a call whose header is broken inside the section is content (``skip``) and the section
    #: goes on: vLLM's regexes find every whole call (``findall``) wherever it stands
    skip_broken: ClassVar[bool] = True
    #: the whitespace between the arguments' JSON and the newline before ``fence_close`` is
    #: the arguments' (deepseek_v3: vLLM's regex, ``_fenced_tail``; plamo3 strips it)
    fence_ws_kept: ClassVar[bool] = True
    #: after a section began, a call marker outside any section opens a call and a stray section
    #: end is markup (the ``text`` phase above): vLLM 0.33's deepseek_v3 / deepseek_v31 parsers
    #: (their subclasses kimi_k2 and plamo3 are other parsers in vLLM: False)
    calls_anywhere: ClassVar[bool] = True

    @property
    def marker_tokens(self) -> tuple[str, ...]:  # type: ignore[override]
        """The format's markers (DeepSeek's and Kimi's are special tokens)."""
        return (self.calls_begin, self.call_begin, self.sep, self.call_end, self.calls_end)

    def _parse_header(self, s: str, lead: Sequence[str]) -> Header:
        return parse_header(s, lead)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if not (self.calls_anywhere and st.insec):
            return self._text_until(st, s, pos, out, final, self.calls_begin, "head")
        markers = (self.calls_begin, self.call_begin, self.calls_end)
        new_pos, hold = self._text_until(st, s, pos, out, final, markers, "head")
        if st.phase == "head" and s.startswith(self.calls_end, new_pos):
            st.phase = "text"  # a stray section end: markup, dropped (vLLM's stream drops it)
            return new_pos + len(self.calls_end), False
        if st.phase == "head" and s.startswith(self.call_begin, new_pos):
            st.phase = "next"  # a call outside any section (vLLM reads it)
        return new_pos, hold

    def _on_next(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._on_head(st, s, pos, out, final)

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if self.calls_anywhere:
            st.insec = True  # a section has begun: later calls are read anywhere (``text``)
        lead = (self.calls_begin,) if st.phase == "head" else ()
        limit = HEADER_LIMIT + LEAD_LIMIT
        h = self._parse_header(s[pos : pos + limit], lead)
        if h.kind == "need":
            rest = len(s) - pos
            if rest <= limit:
                if not final:
                    return pos, True
                return self._cut(st, s, pos, out, lead)
            h = Header("invalid", min(rest, limit))
        if h.kind == "invalid" and self.skip_broken and (
                st.phase == "next" or s.startswith(self.calls_begin + self.call_begin, pos)):
            h = Header("skip", 0)  # a broken call inside the section: the next call is read
        if h.kind == "invalid":
            self._content(st, out, s[pos : pos + h.pos])
            st.phase = "text"
            return pos + h.pos, False
        if h.kind == "skip":  # the format's ``skip`` phase passes the call on as content
            st.phase = "skip"
            return pos + h.pos, False
        self._start_call(st, out, h.name, h.call_id or None)
        if h.kind == "closed":  # no arguments at all
            out.args(st, "{}")
            self._end_call(st)
            st.phase = "sep"
            return pos + h.pos, False
        st.phase = "args"
        return pos + h.pos, False

    def _cut(self, st: Work, s: str, pos: int, out: Out, lead: Sequence[str]) -> tuple[int, bool]:
        """The output ends inside a call's header (a length cut): the call vLLM 0.33 makes of
        it (:meth:`_cut_call`), with arguments ``{}``, or none; the header's markup is dropped
        either way, as vLLM does."""
        cut = self._cut_call(s[pos:], lead)
        if cut is not None:
            self._start_call(st, out, *cut)
            out.args(st, "{}")
            self._end_call(st)
        st.phase = "text"
        return len(s), False

    def _cut_call(self, h: str, lead: Sequence[str]) -> tuple[str, str | None] | None:
        """The name and the model's id (or None) of the call vLLM makes of a header ``h`` cut
        by the end of the output, or None: DeepSeek's regexes need a whole call."""
        return None

    def _on_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """After the arguments' JSON of a format whose trailing whitespace is not the
        arguments' (kimi_k2, plamo3): the whitespace is dropped whatever follows it, so it is
        consumed as it comes, never held (a run held with the closer's prefix used to pass a
        bound in a stream, which then ended the call there and made the closer content: whitespace
        sweep seed 217, ``*/hp52_tail_ws_*``); then the closing fence (``fence``), the call's end
        marker (consumed) or anything else, which ends the call and is text. Only a marker's
        proper prefix is held."""
        if self.fence_close and self.fence_ws_kept:
            return self._fenced_tail(st, s, pos, out, final)
        i = skip_ws(s, pos)
        fence = self.fence_close
        if fence and s.startswith(fence, i):
            st.phase = "fence"
            return i + len(fence), False
        if s.startswith(self.call_end, i):
            self._end_call(st)
            st.phase = "sep"
            return i + len(self.call_end), False
        ends = (self.call_end, self.calls_end)
        if not final:
            if i > pos:
                return i, False  # the whitespace: dropped in every outcome
            if i == len(s) or is_proper_prefix(s[i:], (*ends, fence) if fence else ends):
                return i, True
        elif is_proper_prefix(s[i:], ends):
            i = len(s)  # the output was cut inside a closing marker: markup, not text
        self._end_call(st)
        st.phase = "sep" if s.startswith(self.calls_end, i) else "text"
        return i, False

    def _fenced_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """``tail`` of a format whose arguments' trailing whitespace is theirs (deepseek_v3):
        the whitespace after the JSON goes out as arguments at once, only a last newline held
        (it is the closing fence's line when the fence follows it), so the state stays O(1)
        whatever the run's length and every chunking gives the batch's arguments (vLLM's regex
        takes the whole run before ``\n```<｜tool▁call▁end｜>``). The closing fence is markup
        (phase ``fence``); a call end marker right after the whitespace ends the call, anything
        else ends it and is text."""
        i = skip_ws(s, pos)
        nl = i > pos and s[i - 1] == "\n"
        out.args(st, s[pos : i - 1 if nl else i])
        if s.startswith(self.fence_close, i):
            st.phase = "fence"
            return i + len(self.fence_close), False
        ends = (self.fence_close, self.call_end, self.calls_end)
        if not final and (i == len(s) or is_proper_prefix(s[i:], ends)):
            return (i - 1 if nl else i), True  # at most a newline and a marker's prefix
        if nl:
            out.args(st, "\n")  # no fence after it: the arguments' whitespace
        return self._after_fence(st, s, i, final)

    def _on_fence(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """After a call's closing fence: whitespace (dropped, never held), then the call's end
        marker (consumed); anything else ends the call and is text."""
        i = skip_ws(s, pos)
        if not final and (i == len(s) or is_proper_prefix(s[i:], (self.call_end, self.calls_end))):
            return i, True
        return self._after_fence(st, s, i, final)

    def _after_fence(self, st: Work, s: str, i: int, final: bool) -> tuple[int, bool]:
        """End the call at ``s[i]``: its end marker consumed (``sep``), the section's end left
        for ``sep``, a marker the output was cut inside dropped, anything else text."""
        self._end_call(st)
        if s.startswith(self.call_end, i):
            st.phase = "sep"
            return i + len(self.call_end), False
        if final and is_proper_prefix(s[i:], (self.call_end, self.calls_end)):
            i = len(s)  # the output was cut inside a closing marker: markup, not text
        st.phase = "sep" if s.startswith(self.calls_end, i) else "text"
        return i, False

    def _on_sep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._between_calls(st, s, pos, out, final, self.call_begin, "next", self.calls_end)

    def _on_skip(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """A call that is no call (broken header, or a name the format rejects): its text is
        content through its call end marker (or up to the section's end marker, which ``sep``
        consumes); then the section goes on."""
        ends = (self.call_end, self.calls_end)
        hit, marker, stop = scan_to(s, ends, pos, final)
        if hit == -1:
            self._content(st, out, s[pos:stop])
            return stop, stop < len(s)
        end = hit + len(self.call_end) if marker == self.call_end else hit
        self._content(st, out, s[pos:end])
        st.phase = "sep"
        return end, False
