"""``granite-20b-fc``: granite-20b-functioncalling tool calls.

Format (vLLM's ``granite-20b-fc`` parser; one marker per call, no closing marker)::

    TEXT <function_call> {"name": "NAME", "arguments": {ARGS}} <function_call> {...} TEXT

Phases (``head``/``args``/``sargs``/``tail`` are in :mod:`._objects`):

``text``
    Content; ``<function_call>`` switches to ``head`` (held back while a proper prefix).
``head``
    The marker, whitespace, then the call object; when it closes, ``text`` again (the whitespace
    before the next marker is dropped by the gap rule).

Rules: text before the first call is content (vLLM's batch path; its streaming path only parses
an output that starts with the marker: tito follows the batch side, so stream == batch), and so
is text after a call (vLLM's batch drops it with the rest of the segment); a further marker inside
broken arguments ends the call there; ``"arguments"`` written as a JSON string is decoded (as
hermes); object arguments are sent as ``json.dumps`` writes them (``ensure_ascii=False``), as
vLLM's batch and stream both send them (:mod:`._jsonnorm`, rewritten as the text streams).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._objects import ObjectCallParser

MARKER = "<function_call>"


@dataclass(frozen=True)
class Granite20bFCParser(ObjectCallParser):
    name: ClassVar[str] = "granite-20b-fc"
    first_phase: ClassVar[str] = "text"
    resume_phase: ClassVar[str] = "text"
    after_phase: ClassVar[str] = "text"
    string_args: ClassVar[bool] = True
    normalize_args: ClassVar[bool] = True
    stop_markers: ClassVar[tuple[str, ...]] = (MARKER,)
    marker_tokens: ClassVar[tuple[str, ...]] = (MARKER,)

    def _lead(self, st: Work) -> Sequence[str]:
        return (MARKER,)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, MARKER, "head")
