"""``qwen3_coder`` / ``qwen3_xml``: Qwen3-Coder and Qwen3.5 XML tool calls (and ``seed_oss``).

Format (Qwen3-Coder's template; markers are text, ``<tool_call>`` is a token)::

    TEXT <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    ...
    </function>
    </tool_call> TEXT

Grammar (phases and shared rules in :mod:`._xml`): ``<tool_call>`` opens a section holding one
or more ``<function=NAME>...</function>`` calls; a ``<function=`` in plain text also starts a call
(vLLM's fallback). NAME runs to ``>`` (stripped, non-empty, no ``<``); KEY runs to ``>`` (kept
as written but for its leading whitespace, as vLLM); VALUE runs to ``</parameter>`` or the next
``<parameter=`` and loses one leading and one trailing newline (the template's). The parameter
tags may hold whitespace, as vLLM's ``_PARAM_RE`` reads them: ``<\s*parameter\s*=`` and
``<\s*/\s*parameter\s*>`` (:mod:`._xml_markers`; session 50, ``*/fz50_spaced_*``). Values are
typed from the request's tool schema as vLLM does (:mod:`._schema`): a parameter that can only
be a string (or that the schema does not know) streams as a JSON string, others are written
typed when they end.

Rules beyond vLLM's: text around and between calls is content (vLLM drops text inside the section
that is not a call); a value cut by ``</function>`` or ``</tool_call>`` is kept (vLLM's batch path
drops it, its stream path keeps it); unknown tool names pass through (as vLLM for this format).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_head import HeadResult, up_to
from tito.core.parsers.tools._xml_markers import WS, Spelling, spelling

#: the parameter tags as vLLM's ``parser/qwen3.py`` ``_PARAM_RE`` spells them
SPELLINGS: dict[str, Spelling] = {
    "<parameter=": spelling("<", WS, "parameter", WS, "="),
    "</parameter>": spelling("<", WS, "/", WS, "parameter", WS, ">"),
}


@dataclass(frozen=True)
class Qwen3CoderParser(XmlCallParser):
    name: ClassVar[str] = "qwen3_coder"
    structural_tag_model: ClassVar[str | None] = "qwen_3_coder"
    section_start: ClassVar[str] = "<tool_call>"
    section_end: ClassVar[str] = "</tool_call>"
    call_open: ClassVar[str] = "<function="
    call_close: ClassVar[str] = "</function>"
    param_open: ClassVar[str] = "<parameter="
    param_close: ClassVar[str] = "</parameter>"
    trim_newlines: ClassVar[bool] = True
    spellings: ClassVar[Mapping[str, Spelling]] = SPELLINGS

    def _name(self, h: str) -> HeadResult:
        return up_to(h, ">")

    def _key(self, h: str) -> HeadResult:
        got = up_to(h.lstrip(), ">", strip=False)  # (vLLM's ``=\s*`` takes the leading ones)
        return got if got[0] != "ok" else ("ok", got[1] + len(h) - len(h.lstrip()), *got[2:])
