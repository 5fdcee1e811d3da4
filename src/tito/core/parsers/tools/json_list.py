"""JSON-list call formats: ``mistral`` (v0.3) and the forced output of ``tool_choice="required"``.

Formats::

    mistral:   TEXT [TOOL_CALLS] [{"name": "NAME", "arguments": {ARGS}, "id": "a1b2c3d4e"}, ...]
    required:  [{"name": "NAME", "parameters": {ARGS}}, ...]      (structured decoding forces it)

``[TOOL_CALLS]`` is Mistral v0.3's special token 5; it reaches us as text because the pipeline
decodes with ``skip_special_tokens=False``. Each element is a call object (``"arguments"`` or
``"parameters"``, other members such as Mistral's ``"id"`` are skipped, see :mod:`._json`).

Phases (``head``/``args``/``tail`` are in :mod:`._objects`):

``text`` (mistral)
    Content; ``[TOOL_CALLS]`` switches to ``head`` (marker and ``[`` are the first header's lead,
    so a marker not followed by a list of calls is given back as content). Proper prefixes of the
    marker are held back.
``head``
    First element: lead ``[TOOL_CALLS]``, ``[`` (mistral) or ``[`` (required, leading whitespace
    allowed).
``sep``
    After an element: whitespace (dropped before ``,`` / ``]``), then ``,`` goes to ``next``,
    ``]`` closes the list
    (then ``text`` for mistral, ``rest`` for required); anything else ends the list there.
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

from tito.core.parsers._text import held_suffix
from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._objects import ObjectCallParser

MISTRAL_MARKER = "[TOOL_CALLS]"


@dataclass(frozen=True)
class JsonListParser(ObjectCallParser):
    """A list of call objects, after an optional marker (see the module header)."""

    marker: ClassVar[str] = ""
    after_phase: ClassVar[str] = "sep"

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
            return i + 1, False
        self._content(st, out, run)
        return i, False


@dataclass(frozen=True)
class MistralParser(JsonListParser):
    name: ClassVar[str] = "mistral"
    first_phase: ClassVar[str] = "text"
    marker: ClassVar[str] = MISTRAL_MARKER
    resume_phase: ClassVar[str] = "text"
    string_args: ClassVar[bool] = True

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        hit = s.find(self.marker, pos)
        if hit != -1:
            self._content(st, out, s[pos:hit])
            st.phase = "head"
            return hit, False
        keep = 0 if final else held_suffix(s[pos:], (self.marker,))
        self._content(st, out, s[pos : len(s) - keep])
        return len(s) - keep, keep > 0


@dataclass(frozen=True)
class RequiredParser(JsonListParser):
    """``tool_choice="required"``: the whole output is a JSON list of ``{name, parameters}``."""

    name: ClassVar[str] = "required"
    first_phase: ClassVar[str] = "head"
    resume_phase: ClassVar[str] = "rest"
