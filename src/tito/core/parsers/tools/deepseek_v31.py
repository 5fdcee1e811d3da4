"""``deepseek_v31``: DeepSeek-V3.1 tool calls (V3's markers without the type and the fence).

Format (markers are DeepSeek's special tokens, received as text)::

    TEXT <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{ARGS}<｜tool▁call▁end｜>
    <｜tool▁call▁begin｜>...<｜tool▁call▁end｜><｜tool▁calls▁end｜> TEXT

Phases are :mod:`.deepseek_v3`'s (``text``, ``head``/``next``, ``args``, ``tail``, ``sep``);
the header is ``<｜tool▁calls▁begin｜>`` (first call only), ``<｜tool▁call▁begin｜>``, NAME (one
line, stripped, non-empty), ``<｜tool▁sep｜>``, whitespace, then the arguments' ``{`` (COMMIT).
After the arguments only whitespace may precede ``<｜tool▁call▁end｜>``.

Rules: arguments are the model's raw text between the separator and ``<｜tool▁call▁end｜>``,
the whitespace around the JSON included (vLLM's batch regex and its stream take that raw text:
``<｜tool▁sep｜> {} <｜tool▁call▁end｜>`` has the arguments `` {} ``; fuzz seed 10,
``deepseek_v31/0``): the leading whitespace goes out with the ``{``, the trailing run as it
comes in ``tail``, whatever its length (session 40, ``deepseek_v31/fz40_*``; it was dropped
past 64 characters), also when another marker or text follows it and ends the call there
(vLLM's batch makes no such call, its stream sends the rest of the output as its arguments);
text before and after the section is content (vLLM keeps only the text before); unknown tool
names pass through (as vLLM). A header whose
arguments do not open with ``{`` (``<｜tool▁sep｜>>{}``) is no call: its text is content, where
vLLM makes a call with that text as arguments, not JSON (docs/conformance.md, ``args_not_json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._json import (
    Header,
    find_on_line,
    match_leads,
    open_args,
    skip_ws,
)
from tito.core.parsers.tools.deepseek_v3 import (
    CALL_BEGIN,
    CALL_END,
    CALLS_END,
    SEP,
    DeepSeekV3Parser,
)


def parse_header(s: str, lead: Sequence[str]) -> Header:
    """``[lead] <｜tool▁call▁begin｜> NAME <｜tool▁sep｜> {`` -> COMMIT at the ``{`` with NAME."""
    i = match_leads(s, (*lead, CALL_BEGIN))
    if isinstance(i, Header):
        return i
    k = find_on_line(s, i, SEP)
    if isinstance(k, Header):
        return k
    name = s[i:k].strip()
    if not name:
        return Header("invalid", i)
    h = open_args(s, k + len(SEP), name)
    # the arguments start right after the separator: their leading whitespace is theirs
    return Header("commit", k + len(SEP), name) if h.kind == "commit" else h


@dataclass(frozen=True)
class DeepSeekV31Parser(DeepSeekV3Parser):
    name: ClassVar[str] = "deepseek_v31"
    structural_tag_model: ClassVar[str | None] = "deepseek_v3_1"
    fence_close: ClassVar[str] = ""
    stop_markers: ClassVar[tuple[str, ...]] = (CALL_END, CALLS_END)  # (no fence)
    #: DeepSeek's closing markers are special tokens, never a string's text: they end the
    #: arguments also inside a string the model never closed (vLLM's regex ends them there)
    string_stop_markers: ClassVar[tuple[str, ...]] = (CALL_END, CALLS_END)

    def _parse_header(self, s: str, lead: Sequence[str]) -> Header:
        return parse_header(s, lead)

    def _on_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """After the arguments' JSON: the whitespace is the arguments' (vLLM's regex takes it
        before ``<｜tool▁call▁end｜>``), sent as it comes whatever the run's length, so the state
        stays O(1) and every chunking gives the batch's arguments; then the call's end marker
        (consumed) or anything else, which ends the call (the run stays the arguments')."""
        i = skip_ws(s, pos)
        out.args(st, s[pos:i])
        if s.startswith(self.call_end, i):
            self._end_call(st)
            st.phase = "sep"
            return i + len(self.call_end), False
        if not final and (i == len(s) or is_proper_prefix(s[i:], (self.call_end, self.calls_end))):
            return i, True
        return super()._on_tail(st, s, i, out, final)
