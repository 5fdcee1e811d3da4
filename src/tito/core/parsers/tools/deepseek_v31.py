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

from tito.core.parsers.tools._json import Header, match_leads, skip_ws
from tito.core.parsers.tools.deepseek_v3 import CALL_BEGIN, SEP, DeepSeekV3Parser


def parse_header(s: str, lead: Sequence[str], begin: str, sep: str) -> Header:
    """``[lead] begin NAME sep {`` -> COMMIT at the ``{`` with NAME (shared with kimi_k2)."""
    i = match_leads(s, (*lead, begin))
    if isinstance(i, Header):
        return i
    k = s.find(sep, i)
    newline = s.find("\n", i)
    if newline != -1 and (k == -1 or newline < k):
        return Header("invalid", newline)
    if k == -1:
        return Header("need")
    name = s[i:k].strip()
    if not name:
        return Header("invalid", i)
    j = skip_ws(s, k + len(sep))
    if j == len(s):
        return Header("need")
    if s[j] != "{":
        return Header("invalid", j)
    return Header("commit", j, name)


@dataclass(frozen=True)
class DeepSeekV31Parser(DeepSeekV3Parser):
    name: ClassVar[str] = "deepseek_v31"
    fence_close: ClassVar[str] = ""

    def _parse_header(self, s: str, lead: Sequence[str]) -> Header:
        return parse_header(s, lead, CALL_BEGIN, SEP)
