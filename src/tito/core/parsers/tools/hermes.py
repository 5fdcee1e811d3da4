"""``hermes`` / ``qwen3_json``: Hermes / Qwen2.5 / Qwen3 tool calls (and ``longcat``, ``granite4``).

Format (Qwen3's template, any number of calls, text allowed around them)::

    TEXT <tool_call>\\n{"name": "NAME", "arguments": {ARGS}}\\n</tool_call> TEXT <tool_call>...

Phases (this module's transitions; ``head``/``args``/``tail`` are in :mod:`._objects`):

``text``
    Content. The first ``<tool_call>`` switches to ``head`` (the marker is the header's lead, so
    an unparsable call gives back the marker as content). A trailing proper prefix of
    ``<tool_call>`` is held back.
``head`` -> ``args`` -> ``tail`` -> ``after``
    The call object (name first, then arguments, see :mod:`._json`); arguments stream raw.
    Inside unbalanced arguments, ``</tool_call>`` outside strings ends the call (consumed) and
    ``<tool_call>`` ends it and starts the next one.
``after``
    Whitespace, then ``</tool_call>`` (both dropped, also when the output ends inside the
    marker); anything else is text (gap rule).

Malformed calls: a newline then ``</tool_call>`` ends a call also inside a JSON string (a JSON
string cannot hold a raw newline, so the model never closed it); the call keeps the arguments
written before it and the markup never goes into arguments; batch and stream agree (vLLM's batch
path makes such a block content, its streaming path a call with those arguments: tito always does
the latter). ``</tool_call>`` inside a well-formed string stays argument text.

Rules: text before, between and after calls is content (vLLM drops text after the first call:
vllm#56263); whitespace-only gaps around calls are dropped (gap rule, :mod:`._base`; granite4
keeps them, as vLLM's granite4 does); a missing
or ``null`` ``"arguments"`` gives ``{}`` (vllm#28806); arguments written as a JSON string
(Granite 4: ``"arguments": "{\\"x\\": 1}"``) give the string's decoded text, an object's text
or any other string passed on (phase ``sargs``, as vLLM's granite4 parser; vLLM's hermes would
drop the call); otherwise arguments are the model's raw JSON text
(vLLM's batch path re-serializes them with ``json.dumps``: identical for Qwen3's own spacing);
unknown tool names are passed through as vLLM's hermes parser does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import ASCII_WS
from tito.core.parsers.tools._base import Out, ToolParser, Work
from tito.core.parsers.tools._objects import ObjectCallParser

START = "<tool_call>"
END = "</tool_call>"


@dataclass(frozen=True)
class HermesParser(ObjectCallParser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    name: ClassVar[str] = "hermes"
    first_phase: ClassVar[str] = "text"
    resume_phase: ClassVar[str] = "text"
    after_phase: ClassVar[str] = "after"
    stop_markers: ClassVar[tuple[str, ...]] = (END, START)
    end_marker: ClassVar[str] = END
    string_stop_markers: ClassVar[tuple[str, ...]] = ("\n" + END,)
    string_args: ClassVar[bool] = True
    marker_tokens: ClassVar[tuple[str, ...]] = (START, END)
    #: the call's opening marker (the closing one is ``end_marker``)
    start: ClassVar[str] = START
    structural_tag_model: ClassVar[str | None] = "hermes"

    def _lead(self, st: Work) -> Sequence[str]:
        return (self.start,)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, self.start, "head")


LONGCAT_START = "<longcat_tool_call>"
LONGCAT_END = "</longcat_tool_call>"


@dataclass(frozen=True)
class LongcatParser(HermesParser):
    """``longcat``: Meituan LongCat-Flash, hermes' grammar in ``<longcat_tool_call>`` blocks
    (vLLM's ``LongcatFlashToolParser`` is its hermes parser with these markers)."""

    name: ClassVar[str] = "longcat"
    start: ClassVar[str] = LONGCAT_START
    stop_markers: ClassVar[tuple[str, ...]] = (LONGCAT_END, LONGCAT_START)
    end_marker: ClassVar[str] = LONGCAT_END
    string_stop_markers: ClassVar[tuple[str, ...]] = ("\n" + LONGCAT_END,)
    marker_tokens: ClassVar[tuple[str, ...]] = (LONGCAT_START, LONGCAT_END)
    structural_tag_model: ClassVar[str | None] = "longcat"


@dataclass(frozen=True)
class Granite4Parser(HermesParser):
    """``granite4``: IBM Granite 4, hermes blocks (vLLM's ``Granite4ToolParser``: text around
    the blocks is content, arguments written as a JSON string are passed on, object arguments
    are sent as ``json.dumps`` writes them, batch and stream); it has no structural tag, so
    ``required`` / named use the JSON-list schema."""

    name: ClassVar[str] = "granite4"
    normalize_args: ClassVar[bool] = True
    structural_tag_model: ClassVar[str | None] = None
    #: text outside the blocks is content verbatim, whitespace between and around them too
    #: (vLLM's granite4 joins the text segments, batch and stream), except that an output whose
    #: content would be only whitespace has none (vLLM's batch): whitespace is held (``ws``,
    #: across calls) until content other than whitespace goes out (``said``); from then on the
    #: gap rule is off outside the blocks (whitespace inside a block, before its end marker, is
    #: still markup)
    verbatim_text: ClassVar[bool] = True

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if st.gap and st.said and self.verbatim_text:
            st.gap = False
        return super()._on_text(st, s, pos, out, final)

    def _content(self, st: Work, out: Out, text: str) -> None:  # type: ignore[override]
        ToolParser._content(st, out, text)
        if self.verbatim_text and not st.said and text.strip(ASCII_WS):
            st.said = True

    def _start_call(  # type: ignore[override]
        self, st: Work, out: Out, name: str, call_id: str | None = None
    ) -> None:
        held = st.ws
        ToolParser._start_call(st, out, name, call_id)
        if self.verbatim_text and not st.said:
            st.ws = held  # whitespace so far: content if text follows, else none


@dataclass(frozen=True)
class Ernie45Parser(Granite4Parser):
    """``ernie45``: Baidu ERNIE 4.5 thinking models, hermes blocks (vLLM's ``Ernie45ToolParser``:
    ``<tool_call>{"name": N, "arguments": {...}}</tool_call>``, arguments sent as ``json.dumps``
    writes them, content before the first call; it leaves ``skip_special_tokens`` alone)."""

    name: ClassVar[str] = "ernie45"
    engine_reads_special: ClassVar[bool] = False
    verbatim_text: ClassVar[bool] = False


INTERNLM_START = "<|action_start|><|plugin|>"
INTERNLM_END = "<|action_end|>"


@dataclass(frozen=True)
class Internlm2Parser(Granite4Parser):
    """``internlm``: InternLM2 / 2.5, one JSON call object after ``<|action_start|><|plugin|>``
    up to ``<|action_end|>`` (vLLM's ``Internlm2ToolParser``: ``"parameters"`` or
    ``"arguments"``, sent as ``json.dumps`` writes them; it reads only the first call, tito
    every one)."""

    name: ClassVar[str] = "internlm"
    verbatim_text: ClassVar[bool] = False
    start: ClassVar[str] = INTERNLM_START
    stop_markers: ClassVar[tuple[str, ...]] = (INTERNLM_END, INTERNLM_START)
    end_marker: ClassVar[str] = INTERNLM_END
    string_stop_markers: ClassVar[tuple[str, ...]] = ("\n" + INTERNLM_END,)
    marker_tokens: ClassVar[tuple[str, ...]] = ("<|action_start|>", "<|plugin|>", INTERNLM_END)
