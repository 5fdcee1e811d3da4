"""``plamo3``: Preferred Networks PLaMo 3 tool calls, JSON arguments in ``<|plamo:...|>`` markers.

Format (vLLM 0.33's ``Plamo3Parser`` engine grammar; the line breaks are for reading only)::

    TEXT <|plamo:begin_tool_requests:plamo|>
    <|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>NAME
    <|plamo:end_tool_name:plamo|>
    <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{ARGS}
    <|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>
    ... more requests ...
    <|plamo:end_tool_requests:plamo|> TEXT

Phases are :mod:`.deepseek_v3`'s (``text``, ``head`` / ``next``, ``args``, ``tail``, ``sep``), plus
``aopen``, ``amsg`` and ``ajunk``. The header is the section's marker (``head`` only), the request
marker, the name marker, NAME (stripped, non-empty, no ``<``), the name's end marker (whitespace
allowed between markers): COMMIT there (the name is sent); cut by the end of the output, the call
is named with what came of NAME (vLLM's engine), arguments ``{}``. Inside the section a request may
lack its request marker (missing or misspelt): vLLM's grammar opens a call at the name marker in
its preamble, and so does ``sep`` (issue 10, fuzz seed 11). A header that does not parse is content
up to the offending character and the section goes on (``sep``): inside the section, text is
content up to the next request marker (``next``) or the section's end marker (consumed, ``text``);
vLLM's engine drops such text (a broken request, text between requests), tito keeps it; text
between a request marker and its name marker is such text too (vLLM's preamble drops it and reads
the call: seed 115). ``aopen``: whitespace (dropped), the arguments marker (held back while a
proper prefix), whitespace, then the arguments' ``{`` (``args``: the model's JSON streams raw) or
straight the arguments' end marker (arguments ``{}``); other text before the arguments marker is
content (``ajunk``, up to the next marker: vLLM's preamble drops it and still reads the arguments);
after the marker anything else ends the call with ``{}`` and is text (``sep``). ``tail``:
whitespace, the arguments' end marker, the request's end marker. The arguments' end marker ends
them also inside a string the model left open (a dropped ``"``), as vLLM's engine (fuzz seed 29,
``plamo3+plamo3/fz37_open_string``); the request's and the section's end markers do not there
(vLLM's arguments run on over them: ``plamo3/fz37_open_string_request_end``).

Rules: arguments are the model's raw JSON (vLLM's ``_extract_args_json``: the stripped raw
text); text before and after sections is content (vLLM's batch drops the text after); unknown
tool names pass through (as vLLM); a marker the output's end cut short is dropped from the
content (:mod:`tito.core.parsers.plamo3_cut`; held in ``text`` as a marker prefix). PLaMo's
tokenizer splits the markers into pieces (``<|plamo:begin_``, ``<|plamo:end_``, ``:plamo|>``)
that are special tokens: they are kept in the text for the parser as every format's markers are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first, held_suffix, is_proper_prefix, scan_to
from tito.core.parsers.tools._base import HEADER_LIMIT, LEAD_LIMIT, Out, Work
from tito.core.parsers.tools._json import NEED, Header, match_leads, skip_ws
from tito.core.parsers.tools.deepseek_v3 import DeepSeekV3Parser

from tito.core.parsers.plamo3_cut import (  # the markers (with the cut rule, no parser)
    BEGIN_ARGS, BEGIN_NAME, BEGIN_REQUEST, BEGIN_REQUESTS, BEGIN_THINK, END_ARGS, END_NAME,
    END_REQUEST, END_REQUESTS, END_THINK, HOLDS, OPEN, PIECES, TAG, grammar_markers,
)

__all__ = ["BEGIN_ARGS", "BEGIN_NAME", "BEGIN_REQUEST", "BEGIN_REQUESTS", "BEGIN_THINK",
           "END_ARGS", "END_NAME", "END_REQUEST", "END_REQUESTS", "END_THINK", "HOLDS", "OPEN",
           "PIECES", "Plamo3Parser", "TAG", "grammar_markers"]


#: where text between a call's name and its arguments marker ends (``aopen``)
_AOPEN_STOPS = (BEGIN_ARGS, END_REQUEST, END_REQUESTS, BEGIN_REQUEST, BEGIN_NAME)


@dataclass(frozen=True)
class Plamo3Parser(DeepSeekV3Parser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    engine_reads_special_without_tools: ClassVar[bool] = True  # (a parser engine in vLLM)
    name: ClassVar[str] = "plamo3"
    structural_tag_model: ClassVar[str | None] = "plamo3"
    calls_anywhere: ClassVar[bool] = False  # (vLLM reads calls only inside a section)
    calls_begin: ClassVar[str] = BEGIN_REQUESTS
    call_begin: ClassVar[str] = BEGIN_REQUEST
    call_end: ClassVar[str] = END_REQUEST
    calls_end: ClassVar[str] = END_REQUESTS
    fence_close: ClassVar[str] = END_ARGS
    fence_ws_kept: ClassVar[bool] = False  # (vLLM's _extract_args_json strips the raw text)
    sep: ClassVar[str] = END_NAME
    stop_markers: ClassVar[tuple[str, ...]] = (END_ARGS, END_REQUEST, END_REQUESTS)
    #: the arguments' end marker ends them also inside a string the model never closed (vLLM's
    #: engine leaves its arguments state there only; the request's and the section's end
    #: markers inside such a string are the arguments' text, as in vLLM's batch and stream)
    string_stop_markers: ClassVar[tuple[str, ...]] = (END_ARGS,)
    end_marker: ClassVar[str] = END_ARGS
    interrupt_phase: ClassVar[str] = "tail"

    @property
    def marker_tokens(self) -> tuple[str, ...]:  # type: ignore[override]
        return (BEGIN_REQUESTS, END_REQUESTS, BEGIN_REQUEST, END_REQUEST, BEGIN_NAME, END_NAME,
                BEGIN_ARGS, END_ARGS, *PIECES)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        # (a cut marker of any kind is held: plamo3_cut drops it at the output's end)
        return self._text_until(st, s, pos, out, final, self.calls_begin, "head", HOLDS)

    def _parse_header(self, s: str, lead: Sequence[str]) -> Header:
        leads = (*lead, BEGIN_REQUEST, BEGIN_NAME)
        if not lead and s.startswith(BEGIN_NAME, skip_ws(s, 0)):
            leads = (BEGIN_NAME,)  # a request marker missing or misspelt (``sep``)
        i = match_leads(s, leads)
        if isinstance(i, Header):
            return i
        j = s.find(END_NAME, i)
        k = s.find("<", i)
        if j == -1:
            if k != -1 and not END_NAME.startswith(s[k:]):
                return Header("invalid", k)
            return NEED
        name = s[i:j].strip()
        if not name or k < j:
            return Header("invalid", k if k < j else j)
        return Header("commit", j + len(END_NAME), name)

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        lead = (self.calls_begin, BEGIN_REQUEST) if st.phase == "head" else (BEGIN_REQUEST,)
        head = s[pos : pos + HEADER_LIMIT + LEAD_LIMIT]  # (the header's bound: batch = stream)
        i = match_leads(head, lead)
        if not isinstance(i, Header):
            rest = head[skip_ws(head, i) :]
            if rest and not rest.startswith(BEGIN_NAME) and not is_proper_prefix(
                    rest, (BEGIN_NAME,)):
                # text between the request marker and the name marker: vLLM's engine drops it
                # in its preamble and opens the call at the name marker; tito keeps it as
                # content (``sep``), the markers dropped (fuzz seed 115, ``fz40_request_junk``)
                st.phase = "sep"
                return pos + i, False
        i, hold = super()._on_head(st, s, pos, out, final)
        if st.phase == "args":
            st.phase = "aopen"
        elif st.phase == "text":  # a broken request: its text is content, the section goes on
            st.phase = "sep"
        return i, hold

    def _cut_call(self, h: str, lead: Sequence[str]) -> tuple[str, str | None] | None:
        # vLLM's engine names the call with what came of the name
        i = match_leads(h, (*lead, BEGIN_REQUEST, BEGIN_NAME))
        if isinstance(i, Header):
            return None
        name = h[i:]
        name = name[: len(name) - held_suffix(name, (END_NAME,))].strip()
        return (name, None) if name and "<" not in name else None

    def _on_sep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """Inside the section, between requests: text is content (vLLM's engine drops it) up to
        the next request (``next``: its request marker, or its name marker when that one is
        missing or misspelt, as vLLM's grammar opens a call at the name marker in its preamble)
        or the section's end (consumed: ``text``)."""
        markers = (BEGIN_REQUEST, BEGIN_NAME, END_REQUESTS)
        hit, marker = find_first(s, markers, pos)
        if hit == -1:
            keep = held_suffix(s[pos:], markers)
            self._content(st, out, s[pos : len(s) - keep])
            if final:  # cut inside a marker: markup, not text
                return len(s), False
            return len(s) - keep, keep > 0
        self._content(st, out, s[pos:hit])
        if marker != END_REQUESTS:
            st.phase = "next"
            return hit, False
        st.phase = "text"
        return hit + len(END_REQUESTS), False

    def _on_aopen(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """Between the name and the arguments marker (``amsg`` after it)."""
        i = skip_ws(s, pos)
        if final and (i == len(s) or is_proper_prefix(s[i:], (BEGIN_ARGS,))):
            return len(s), False  # cut before the arguments: the call has none (``_finish``)
        if s.startswith(BEGIN_ARGS, i):
            st.phase = "amsg"
            return i + len(BEGIN_ARGS), False
        if not final and (i == len(s) or is_proper_prefix(s[i:], (BEGIN_ARGS,))):
            return i, True  # (the whitespace before the marker is dropped: never held)
        # text before the arguments marker: vLLM's engine drops it in its preamble and still
        # reads the arguments; tito keeps it as content (``ajunk``)
        st.phase = "ajunk"
        return i, False

    def _on_amsg(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """After the arguments marker: whitespace (dropped, never held: a long run once made
        the state overflow its bound), then the arguments' ``{`` (``args``) or straight their
        end marker (``{}``); anything else ends the call with ``{}`` and is text (``sep``)."""
        i = skip_ws(s, pos)
        if i < len(s) and s[i] == "{":
            st.phase = "args"
            return i, False
        if s.startswith(END_ARGS, i):
            out.args(st, "{}")
            st.phase = "tail"
            return i, False
        if not final and (i == len(s) or is_proper_prefix(s[i:], (END_ARGS,))):
            return i, True
        out.args(st, "{}")  # no arguments object: the call ends, what follows is text
        self._end_call(st)
        st.phase = "sep"
        return i, False

    def _on_ajunk(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """Text between a call's name and its arguments marker (a model's stray ``>``): content
        up to the next marker (vLLM's engine drops it in its preamble); the arguments marker
        goes back to ``aopen``, which reads the arguments (vLLM's too); the request's end (then
        consumed), the section's end or the next request end the call with ``{}`` (``sep``)."""
        hit, marker, stop = scan_to(s, _AOPEN_STOPS, pos, final)
        self._content(st, out, s[pos:stop])
        if hit == -1:
            return stop, stop < len(s)
        st.phase = "aopen"
        if marker == BEGIN_ARGS:
            return hit, False
        out.args(st, "{}")
        self._end_call(st)
        st.phase = "sep"
        return hit + len(END_REQUEST) if marker == END_REQUEST else hit, False

    def _on_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if final and is_proper_prefix(s[skip_ws(s, pos):], (END_ARGS,)):
            self._end_call(st)  # cut inside the arguments' end marker: markup, not text
            st.phase = "text"
            return len(s), False
        i, hold = super()._on_tail(st, s, pos, out, final)
        if st.phase == "text":  # text after a request: the section goes on
            st.phase = "sep"
        return i, hold

    def _on_fence(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, hold = super()._on_fence(st, s, pos, out, final)
        if st.phase == "text":  # text after a request's arguments: the section goes on
            st.phase = "sep"
        return i, hold

    def _is_open(self, st: Work) -> bool:
        return st.phase in ("args", "aopen", "ajunk", "amsg")

    def _finish(self, st: Work, out: Out) -> None:
        if st.phase in ("aopen", "ajunk"):  # cut before the arguments: the call has none
            out.args(st, "{}")
        super()._finish(st, out)
