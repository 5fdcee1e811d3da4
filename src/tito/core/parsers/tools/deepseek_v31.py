"""``deepseek_v31``: DeepSeek-V3.1 tool calls (V3's markers without the type and the fence).

Format (markers are DeepSeek's special tokens, received as text)::

    TEXT <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{ARGS}<｜tool▁call▁end｜>
    <｜tool▁call▁begin｜>...<｜tool▁call▁end｜><｜tool▁calls▁end｜> TEXT

Phases are :mod:`.deepseek_v3`'s (``text``, ``head``/``next``, ``args``, ``tail``, ``sep``);
the header is ``<｜tool▁calls▁begin｜>`` (first call only), ``<｜tool▁call▁begin｜>``, NAME (one
line, stripped, non-empty), ``<｜tool▁sep｜>``, whitespace, then the arguments' ``{`` (COMMIT).
After the arguments only whitespace may precede ``<｜tool▁call▁end｜>``.

Rules: arguments are the model's raw JSON text (vLLM's batch regex takes the raw text between
the separator and the end marker too); text before and after the section is content (vLLM keeps
only the text before); unknown tool names pass through (as vLLM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._json import Header, find_on_line, match_leads, open_args
from tito.core.parsers.tools.deepseek_v3 import CALL_BEGIN, SEP, DeepSeekV3Parser


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
    return open_args(s, k + len(SEP), name)


@dataclass(frozen=True)
class DeepSeekV31Parser(DeepSeekV3Parser):
    name: ClassVar[str] = "deepseek_v31"
    structural_tag_model: ClassVar[str | None] = "deepseek_v3_1"
    fence_close: ClassVar[str] = ""

    def _parse_header(self, s: str, lead: Sequence[str]) -> Header:
        return parse_header(s, lead)
