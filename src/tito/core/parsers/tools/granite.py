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

``skip``
    A malformed element (its header is no call once its ``{`` came: a missing ``:``, no
    ``"name"``, a header longer than :data:`._base.HEADER_LIMIT`): its text is content up to the
    brace that closes it (the JSON scanner), then ``sep``: the list goes on. vLLM 0.33's parser
    engine splits the list the same way (``_feed_array_char``: an element is a balanced object)
    and drops an element it finds no name in, in batch and stream; tito keeps its text (text is
    never lost). A marker outside strings ends the element there (``text`` reads on), as it ends
    broken arguments. Something other than ``{`` where an element should start ends the list:
    its text and the rest are content (vLLM's ``_bail_array_to_content``).

Rules: otherwise as :mod:`.json_list`; ``"arguments"`` written as a JSON string is decoded (as
hermes); a further marker inside broken arguments ends the call there. Arguments are the model's
text: vLLM's batch also types their values from the tool's schema (``_fix_arg_types``: ``"42"``
for an integer is ``42``), which its stream does only while the bytes it sent stay a prefix (a
deviation, ``batch_reserializes`` in docs/conformance.md). Granite 4 writes hermes blocks
(``hermes`` parser).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools.json_list import JsonListParser, on_skip, skip_element

TOOL_TOKEN = "<|tool_call|>"  # Granite 3.0: one special token
TOOL_STRING = "<tool_call>"  # Granite 3.1: plain text


@dataclass(frozen=True)
class GraniteParser(JsonListParser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    engine_reads_special_without_tools: ClassVar[bool] = True  # (a parser engine in vLLM)
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

    def _invalid_header(self, st: Work, s: str, pos: int, end: int, out: Out) -> tuple[int, bool]:
        # (no element started: the list ends, as in the other list formats)
        return skip_element(st, s, pos, end) or super()._invalid_header(st, s, pos, end, out)

    _on_skip = on_skip
