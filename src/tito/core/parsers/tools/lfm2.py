"""``lfm2``: LiquidAI LFM2 / LFM2.5 tool calls, a pythonic list between markers.

Format (vLLM 0.33's ``Lfm2ToolParser``; the markers are special tokens)::

    TEXT <|tool_call_start|>[get_weather(city="Paris"), get_time()]<|tool_call_end|> TEXT

Grammar: content up to the first ``<|tool_call_start|>``; then :mod:`.pythonic`'s list (its
calls and literals, arguments transcoded to JSON as vLLM renders them), whitespace allowed
between the marker and ``[``; whitespace and ``<|tool_call_end|>`` after the list's ``]`` are
dropped (also when the output ends inside the marker); the text after it is content. One block
is read, as vLLM does: a later ``<|tool_call_start|>`` is text.

Phases: ``text`` (content; the marker goes to ``head``, held back while a proper prefix), then
:mod:`.pythonic`'s ``head`` / ``pargs`` / ``psep`` / ``next``, then ``pyend`` (the closing
marker), then ``rest``. A list that does not parse is content, marker included.

Where vLLM differs: its batch path joins the text before and after the block with ``\\n`` and
drops everything up to a second ``<|tool_call_end|>`` (an echo of the call) while its stream
sends the text as written: tito keeps the text as written. Its batch reads a list whose block
the end of the output cut only when the list is complete; tito keeps the calls as far as they
came (the rule of every format here). vLLM parses the block with Python's ``ast`` (spaces
inside the list, ``month=07``, keyword-named parameters such as ``from=1`` are repaired);
tito reads :mod:`.pythonic`'s grammar, whose tokens are adjacent, as vLLM's pythonic parser.
Nested quotes (``city='it's ok'``) are read as vLLM's requote repair reads them: a quote not
followed by ``,)]}:`` (or ``<``) is the string's text (``nested_quotes``); vLLM takes the one
closing quote after which the whole block parses (none or several: the block is content), tito
the first, as it comes; so a quote before another quote is nested too (``'x''y'``: ``"x''y"``),
where vLLM reads adjacent literals (``"xy"``) when the block parses as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools.pythonic import PythonicParser
from tito.core.parsers.tools.pythonic_args import LINE_ENDS
from tito.core.parsers.tools.pythonic_scalars import PY_IDENT

START = "<|tool_call_start|>"
END = "<|tool_call_end|>"


@dataclass(frozen=True)
class Lfm2Parser(PythonicParser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    name: ClassVar[str] = "lfm2"
    first_phase: ClassVar[str] = "text"
    optional_lead: ClassVar[str] = START
    closed_phase: ClassVar[str] = "pyend"
    ws_after_lead: ClassVar[bool] = True  # vLLM strips the block's text
    first_ident: ClassVar[re.Pattern[str]] = PY_IDENT  # vLLM's regex is ``\[.*\]$``: ast's names
    marker_tokens: ClassVar[tuple[str, ...]] = (START, END)
    _comment_ends: ClassVar[tuple[str, ...]] = (*LINE_ENDS, END)
    nested_quotes: ClassVar[bool] = True  # vLLM's requote repair (module header)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, START, "head")

    def _on_pyend(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._closing_marker(st, s, pos, out, final, END, "rest")
