"""JSON lists of call objects: the shared list phases (Mistral v0.3, :mod:`.mistral`) and the
forced output of ``tool_choice="required"``.

Format::

    required:  [{"name": "NAME", "parameters": {ARGS}}, ...]      (structured decoding forces it)

Each element is a call object (``"arguments"`` or ``"parameters"``, other members such as
Mistral's ``"id"`` are skipped, see :mod:`._json`).

Phases (``head``/``args``/``tail`` are in :mod:`._objects`):

``head``
    First element: lead :attr:`JsonListParser.marker` (if any) and ``[`` (leading whitespace
    allowed).
``sep``
    After an element: whitespace (dropped before ``,`` / ``]``), then ``,`` goes to ``next``,
    ``]`` closes the list
    (then ``resume_phase``: ``rest`` for required); anything else ends the list there.
``next``
    A further element: lead ``,``.
``rest``
    Plain content until the end (required: whatever follows the list, or an output that is not a
    list of calls).

Rules: a malformed element ends the list: its text and everything after it is content (vLLM's
batch path drops the whole list, or for "required" everything, when the JSON does not validate;
we keep the calls that were already complete and never lose text). Arguments are raw JSON text
(vLLM's batch path re-serializes them with ``json.dumps``; semantically equal). Unknown tool names
pass through, as vLLM's mistral parser and "required" path do (the grammar only allows known
names for "required").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._json import scan
from tito.core.parsers.tools._objects import ObjectCallParser

@dataclass(frozen=True)
class JsonListParser(ObjectCallParser):
    """A list of call objects, after an optional marker (see the module header)."""

    marker: ClassVar[str] = ""
    after_phase: ClassVar[str] = "sep"
    #: the phase after the list's ``]`` (default: ``resume_phase``)
    closed_phase: ClassVar[str] = ""

    def _lead(self, st: Work) -> Sequence[str]:
        if st.phase == "next":
            return (",",)
        return (self.marker, "[") if self.marker else ("[",)

    def _on_next(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._on_head(st, s, pos, out, final)

    def _on_sep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, run, hold = self._structural_ws(st, s, pos, out, final)
        if hold:
            return pos, True
        if i == len(s):
            self._content(st, out, run)
            return i, False
        if s[i] == ",":
            st.phase = "next"
            return i, False
        st.phase = self.resume_phase
        if s[i] == "]":
            st.phase = self.closed_phase or self.resume_phase
            return i + 1, False
        self._content(st, out, run)
        return i, False


def skip_element(st: Work, s: str, pos: int, end: int) -> tuple[int, bool] | None:
    """A malformed element ``s[pos:end]`` (its header is no call) whose ``{`` came: phase
    ``skip`` from that brace (the lead before it, ``[`` or ``,``, is the list's markup, dropped);
    None when no element started. For the formats that skip such an element and read on
    (granite, xlam after a call), with :func:`on_skip` as their ``_on_skip``."""
    brace = s.find("{", pos, end)  # the lead (marker, "[", ",") holds no brace
    if brace == -1:
        return None
    st.depth, st.in_str, st.esc = 0, False, False  # scan the element again from its "{"
    st.phase = "skip"
    return brace, False


def on_skip(
    self: JsonListParser, st: Work, s: str, pos: int, out: Out, final: bool
) -> tuple[int, bool]:
    """Phase ``skip``: a malformed element's text is content up to the brace that closes it (the
    JSON scanner), then ``sep``: the list goes on; a marker outside strings (a new list)
    ends it there (``text`` reads on)."""
    kind, i = scan(st, s, pos, self._interrupts())
    self._content(st, out, s[pos:i])
    if kind == "done":
        st.phase = "sep"
        return i, False
    if kind == "more":
        return i, False
    if s.startswith(self.stop_markers, i):  # a new list starts: the element ends here
        st.in_str = st.esc = False
        st.phase = "text"
        return i, False
    if not final and is_proper_prefix(s[i:], self.stop_markers):
        return i, True
    self._content(st, out, s[i])
    return i + 1, False


@dataclass(frozen=True)
class RequiredParser(JsonListParser):
    """``tool_choice="required"``: the whole output is a JSON list of ``{name, parameters}``."""

    name: ClassVar[str] = "required"
    first_phase: ClassVar[str] = "head"
    resume_phase: ClassVar[str] = "rest"
