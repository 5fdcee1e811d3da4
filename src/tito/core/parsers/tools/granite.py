"""``granite``: Granite 3.0 / 3.1 tool calls, a JSON list after a marker.

Format (vLLM's ``granite`` parser)::

    TEXT <|tool_call|>[{"name": "NAME", "arguments": {ARGS}}, ...] TEXT     (3.0: a special token)
    TEXT <tool_call>[{"name": "NAME", "arguments": {ARGS}}, ...] TEXT       (3.1: plain text)

There is no closing marker: the list's ``]`` ends the calls, and a later marker starts another
list.

Phases (``head``/``sep``/``next``/``args``/``sargs``/``tail`` are in :mod:`.json_list` and
:mod:`._objects`):

``text``
    Content; the first of the two markers switches to ``head`` (proper prefixes held back).
``head``
    That marker, whitespace, ``[`` and the first call object (an unparsable header is content,
    marker included). After the list's ``]``: ``text`` again. A header the end of the output
    cuts (a ``length`` cut) is markup, dropped; once the name's string has closed it is a call
    with arguments ``{}`` (vLLM 0.33's parser engine, batch and stream).

Rules: as :mod:`.json_list` (a malformed element ends the list, its text is content);
``"arguments"`` written as a JSON string is decoded (as hermes); a further marker inside broken
arguments ends the call there. Granite 4 writes hermes blocks (``hermes`` parser).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools.json_list import JsonListParser

TOOL_TOKEN = "<|tool_call|>"  # Granite 3.0: one special token
TOOL_STRING = "<tool_call>"  # Granite 3.1: plain text


@dataclass(frozen=True)
class GraniteParser(JsonListParser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    name: ClassVar[str] = "granite"
    first_phase: ClassVar[str] = "text"
    resume_phase: ClassVar[str] = "text"
    string_args: ClassVar[bool] = True
    engine_cut: ClassVar[bool] = True
    stop_markers: ClassVar[tuple[str, ...]] = (TOOL_TOKEN, TOOL_STRING)
    marker_tokens: ClassVar[tuple[str, ...]] = (TOOL_TOKEN, TOOL_STRING)

    def _lead_at(self, st: Work, s: str, pos: int) -> Sequence[str]:
        if st.phase == "next":
            return (",",)
        return (TOOL_TOKEN if s.startswith(TOOL_TOKEN, pos) else TOOL_STRING, "[")

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, (TOOL_TOKEN, TOOL_STRING), "head")
