"""``kimi_k2``: Kimi-K2 tool calls; the model writes each call's id.

Format (markers are Kimi's special tokens, received as text)::

    TEXT <|tool_calls_section_begin|>
    <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{ARGS}<|tool_call_end|>
    <|tool_call_begin|>...<|tool_call_end|>
    <|tool_calls_section_end|> TEXT

Phases are :mod:`.deepseek_v3`'s. The header is ``<|tool_calls_section_begin|>`` (first call
only), ``<|tool_call_begin|>``, the call id (one line, stripped, ``ANY:DIGITS``),
``<|tool_call_argument_begin|>``, whitespace, then the arguments' ``{`` (COMMIT), or straight
``<|tool_call_end|>`` (arguments ``{}``). The id is the call's id, as in vLLM; the name is the id
before ``:`` without a ``functions.`` prefix. An id without ``:IDX`` is no call (vLLM drops it;
tito keeps its text as content).

Rules: arguments are the model's raw JSON (vLLM: the stripped raw text); text after the section
is content (vLLM drops it); unknown tool names pass through (as vLLM).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._json import Header, skip_ws
from tito.core.parsers.tools.deepseek_v3 import DeepSeekV3Parser
from tito.core.parsers.tools.deepseek_v31 import parse_header

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
CALL_BEGIN = "<|tool_call_begin|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
_ID = re.compile(r".+:\d+")


@dataclass(frozen=True)
class KimiK2Parser(DeepSeekV3Parser):
    name: ClassVar[str] = "kimi_k2"
    calls_begin: ClassVar[str] = SECTION_BEGIN
    call_begin: ClassVar[str] = CALL_BEGIN
    call_end: ClassVar[str] = CALL_END
    calls_end: ClassVar[str] = SECTION_END
    fence_close: ClassVar[str] = ""
    sep: ClassVar[str] = ARG_BEGIN
    stop_markers: ClassVar[tuple[str, ...]] = (CALL_END, SECTION_END)
    end_marker: ClassVar[str] = CALL_END

    def _parse_header(self, s: str, lead: Sequence[str]) -> Header:
        h = parse_header(s, lead, CALL_BEGIN, ARG_BEGIN)
        if h.kind == "invalid" and h.pos < len(s) and s[h.pos] != "\n":
            # ``<|tool_call_argument_begin|><|tool_call_end|>``: a call without arguments
            k = s.find(ARG_BEGIN)
            if k != -1 and h.pos == skip_ws(s, k + len(ARG_BEGIN)):
                if s.startswith(CALL_END, h.pos):
                    h = Header("closed", h.pos + len(CALL_END), self._head_id(s, lead))
                elif CALL_END.startswith(s[h.pos :]):
                    return Header("need")
        if h.kind not in ("commit", "closed"):
            return h
        call_id = h.name
        name = call_id.split(":")[0].removeprefix("functions.")
        if not _ID.fullmatch(call_id) or not name:
            # no call: its first marker is content, parsing resumes right after it
            return Header("invalid", len(lead[0]) if lead else len(CALL_BEGIN))
        return Header(h.kind, h.pos, name, call_id=call_id)

    @staticmethod
    def _head_id(s: str, lead: Sequence[str]) -> str:
        i = s.find(CALL_BEGIN) + len(CALL_BEGIN)
        return s[i : s.find(ARG_BEGIN, i)].strip()
