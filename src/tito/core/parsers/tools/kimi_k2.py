"""``kimi_k2``: Kimi-K2 tool calls; the model writes each call's id.

Format (markers are Kimi's special tokens, received as text)::

    TEXT <|tool_calls_section_begin|>
    <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{ARGS}<|tool_call_end|>
    <|tool_call_begin|>...<|tool_call_end|>
    <|tool_calls_section_end|> TEXT

Phases are :mod:`.deepseek_v3`'s, plus ``skip``. The header is ``<|tool_calls_section_begin|>``
(first call only), ``<|tool_call_begin|>``, the call's header text (anything, newlines included,
up to ``<|tool_call_argument_begin|>``), whitespace, then the arguments' ``{`` (COMMIT), or straight
``<|tool_call_end|>`` (arguments ``{}``). A ``<|tool_call_begin|>``, ``<|tool_call_end|>`` or
``<|tool_calls_section_end|>`` before the argument marker makes the header invalid (content), and
so do arguments that do not open with ``{`` (``}``, a dropped brace: vLLM's engine makes a call
of their raw text; tito makes no arguments that are not JSON of a broken call, ``args_not_json``
in docs/conformance.md, fuzz seed 109: ``kimi_k2*/fz37_args_*``).

Ids, as vLLM 0.33: the id is the longest ``.+:\\d+`` at the start of the stripped header text
(``functions.get_weather:0``; trailing text after the index is ignored, ``a:b:0`` keeps its
colons); the name is the id before its first ``:`` without a ``functions.`` prefix. A header
without such an id, or with an empty name (a bare index ``0``, ``get_weather``, ``functions.:0``,
``name:x``) names no call: vLLM drops the call and parses the rest of the section; tito does the
same but never loses text: ``skip`` passes that call's text, from its ``<|tool_call_begin|>``
through its ``<|tool_call_end|>``, on as content, and parsing resumes between calls (``sep``).

Cut header (the output ends inside it, a ``length`` cut): the markup is dropped and, as vLLM
0.33's parser engine, the call is named from the id when one is complete, else with the header's
text so far (``functions.get_wea``, tito's own id), arguments ``{}`` (vLLM's stream: ``""``).

Once a section began, a ``<|tool_call_begin|>`` opens a call wherever it stands (after text that
is no call, a misspelt call marker, a section end) and a stray section end is dropped
(:mod:`.deepseek_v3`'s ``calls_anywhere``): vLLM 0.33's engine never leaves the section (its
section end returns to ``TOOL_PREAMBLE``, where text is dropped and every call read).

Rules: arguments are the model's raw JSON (vLLM: the stripped raw text); text after the section
is content (vLLM drops it); unknown tool names pass through (as vLLM).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first, is_proper_prefix
from tito.core.parsers.tools._json import NEED, Header, match_leads, skip_ws
from tito.core.parsers.tools.deepseek_v3 import DeepSeekV3Parser

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
CALL_BEGIN = "<|tool_call_begin|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
_ID = re.compile(r".+:\d+")  # vLLM 0.33's ``_TOOL_ID_RE``, matched at the start (``.`` stops at \n)


def call_id_and_name(header: str) -> tuple[str, str]:
    """The model's id and the function name in a call's header text (``("", "")``: none)."""
    m = _ID.match(header.strip())
    if m is None:
        return "", ""
    call_id = m.group(0).strip()
    return call_id, call_id.split(":")[0].removeprefix("functions.")


@dataclass(frozen=True)
class KimiK2Parser(DeepSeekV3Parser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    name: ClassVar[str] = "kimi_k2"
    structural_tag_model: ClassVar[str | None] = "kimi"
    #: vLLM 0.33's kimi_k2 engine never leaves the section once it began (its section end
    #: returns to TOOL_PREAMBLE, which drops text and reads every call): a misspelt call marker
    #: or a section end does not stop the calls after it (tito keeps the text as content)
    calls_anywhere: ClassVar[bool] = True
    calls_begin: ClassVar[str] = SECTION_BEGIN
    call_begin: ClassVar[str] = CALL_BEGIN
    call_end: ClassVar[str] = CALL_END
    calls_end: ClassVar[str] = SECTION_END
    fence_close: ClassVar[str] = ""
    sep: ClassVar[str] = ARG_BEGIN
    stop_markers: ClassVar[tuple[str, ...]] = (CALL_END, SECTION_END)
    #: Kimi's closing markers are special tokens, never a JSON string's text: they end the
    #: arguments also inside a string the model never closed (vLLM's regex ends them there)
    string_stop_markers: ClassVar[tuple[str, ...]] = (CALL_END, SECTION_END)
    end_marker: ClassVar[str] = CALL_END
    skip_broken: ClassVar[bool] = False  # (vLLM's engine format: a broken header is content)

    def _parse_header(self, s: str, lead: Sequence[str]) -> Header:
        i = match_leads(s, (*lead, CALL_BEGIN))
        if isinstance(i, Header):
            return i
        hit, marker = find_first(s, (ARG_BEGIN, CALL_BEGIN, CALL_END, SECTION_END), i)
        if hit == -1:
            return NEED
        if marker != ARG_BEGIN:
            return Header("invalid", hit)
        j = skip_ws(s, hit + len(ARG_BEGIN))
        if j == len(s) or is_proper_prefix(s[j:], (CALL_END,)):
            return NEED
        if s.startswith(CALL_END, j):
            kind, pos = "closed", j + len(CALL_END)
        elif s[j] == "{":
            kind, pos = "commit", j
        else:
            return Header("invalid", j)
        call_id, name = call_id_and_name(s[i:hit])
        if not name:
            return Header("skip", i - len(CALL_BEGIN))
        return Header(kind, pos, name, call_id=call_id)  # type: ignore[arg-type]

    def _cut_call(self, h: str, lead: Sequence[str]) -> tuple[str, str | None] | None:
        # vLLM's engine names the call from the id when one is complete, else with the
        # header's text so far (and draws the id)
        i = match_leads(h, (*lead, CALL_BEGIN))
        if isinstance(i, Header):
            return None
        hit = h.find(ARG_BEGIN, i)
        header = h[i:] if hit == -1 else h[i:hit]
        call_id, name = call_id_and_name(header)
        if name:
            return name, call_id
        return (header.strip(), None) if header.strip() else None
