"""Shared phases for formats whose calls are JSON objects ``{"name": ..., "arguments": {...}}``.

Used by hermes, the JSON-list formats (mistral, tool_choice "required") and llama3_json. A
subclass decides where a header starts and what follows a call; this module owns the three
phases every such call goes through:

``head``
    The call header (the format's lead tokens, e.g. ``<tool_call>`` or ``,``, then ``{`` up to
    the arguments' ``{``) is parsed from ``buf``; see :func:`._json.parse_object_header`. COMMIT:
    the call starts (name sent) and its arguments stream from their ``{``; CLOSED: the call starts
    and ends with arguments ``{}``; INVALID at ``p``: the header's text up to ``p`` is content and
    the format's ``resume_phase`` takes over at ``p``; NEED: hold the header, unless it is longer
    than :data:`HEADER_LIMIT` (plus the lead) or ``final``, which count as INVALID at that point.
``args``
    The arguments object streams as raw text until the scanner sees it close (then ``tail``), or
    an interrupt character outside strings that starts one of the format's ``stop_markers``
    (the call ends there, its arguments unbalanced; the format's ``end_marker`` is consumed, any
    other marker is left for ``interrupt_phase``).
``tail``
    The rest of the call object after the arguments (``}``, or ``, "id": "..."}``) is skipped with
    the scanner until the object closes; then ``after_phase``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._base import HEADER_LIMIT, Out, ToolParser, Work
from tito.core.parsers.tools._json import parse_object_header, scan


@lru_cache(maxsize=32)
def _interrupt_chars(markers: tuple[str, ...]) -> str:
    return "".join(sorted({m[0] for m in markers}))


@dataclass(frozen=True)
class ObjectCallParser(ToolParser):
    """Base for JSON-object call formats (see the module header)."""

    #: where an unparsable header's text continues (as content)
    resume_phase: ClassVar[str] = "text"
    #: phase after a call object closed
    after_phase: ClassVar[str] = "text"
    #: markers that end a call even inside unbalanced arguments (outside strings)
    stop_markers: ClassVar[tuple[str, ...]] = ()
    #: the one of ``stop_markers`` consumed when it ends a call (the others are left in the text)
    end_marker: ClassVar[str] = ""
    #: where the text continues after a stop marker ended a call (default: ``resume_phase``)
    interrupt_phase: ClassVar[str] = ""
    #: an object without arguments is no call (llama3_json)
    args_required: ClassVar[bool] = False

    # -- what the subclass tells about the header now being parsed -----------------------------

    def _lead(self, st: Work) -> Sequence[str]:
        return ()

    def _optional_lead(self, st: Work) -> str:
        return ""

    # -- phases ----------------------------------------------------------------------------------

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        lead = self._lead(st)
        opt = self._optional_lead(st)
        limit = HEADER_LIMIT + sum(len(t) for t in lead) + len(opt)
        h = parse_object_header(
            s[pos : pos + limit], lead, optional_lead=opt, args_required=self.args_required
        )
        if h.kind == "need":
            rest = len(s) - pos
            if not final and rest <= limit:
                return pos, True
            h = h.__class__("invalid", min(rest, limit))
        if h.kind == "invalid":
            self._content(st, out, s[pos : pos + h.pos])
            st.phase = self.resume_phase
            return pos + h.pos, False
        self._start_call(st, out, h.name)
        if h.kind == "commit":
            st.phase = "args"
            return pos + h.pos, False
        out.args(st, "{}")
        self._end_call(st)
        st.phase = self.after_phase
        return pos + h.pos, False

    def _on_args(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        kind, i = scan(st, s, pos, self._interrupts())
        out.args(st, s[pos:i])
        if kind == "done":
            st.depth = 1  # back inside the call object
            st.phase = "tail"
            return i, False
        if kind == "more":
            return i, False
        return self._interrupt(st, s, i, out, final, emit=True)

    def _on_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        kind, i = scan(st, s, pos, self._interrupts())
        if kind == "done":
            self._end_call(st)
            st.phase = self.after_phase
            return i, False
        if kind == "more":
            return i, False
        return self._interrupt(st, s, i, out, final, emit=False)

    # -- helpers --------------------------------------------------------------------------------

    def _interrupts(self) -> str:
        return _interrupt_chars(self.stop_markers)

    def _interrupt(
        self, st: Work, s: str, i: int, out: Out, final: bool, *, emit: bool
    ) -> tuple[int, bool]:
        """An interrupt character at ``s[i]`` outside strings: a stop marker, a prefix, or text."""
        for marker in self.stop_markers:
            if s.startswith(marker, i):
                self._end_call(st)
                st.phase = self.interrupt_phase or self.resume_phase
                return (i + len(marker) if marker == self.end_marker else i), False
        if not final and is_proper_prefix(s[i:], self.stop_markers):
            return i, True
        if emit:
            out.args(st, s[i])
        return i + 1, False

    def _is_open(self, st: Work) -> bool:
        return st.phase == "args"
