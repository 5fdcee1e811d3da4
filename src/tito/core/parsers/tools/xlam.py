"""``xlam``: Salesforce xLAM tool calls, a JSON list of ``{"name", "arguments"}`` objects.

Format (vLLM 0.33's ``xLAMToolParser``)::

    [{"name": "get_weather", "arguments": {"city": "Paris"}}, ...]     (the whole output)
    TEXT ```json [...] ``` TEXT         (also a plain ``` fence)
    TEXT <tool_call>[...]</tool_call> TEXT
    TEXT [TOOL_CALLS][...] TEXT

Phases (:mod:`.json_list`'s ``head`` / ``next`` / ``sep``, :mod:`._objects`' ``args`` /
``sargs`` / ``tail``): ``start`` reads a list that opens the output (after whitespace); anything
else goes to ``text``, content up to a fence, ``<tool_call>`` or ``[TOOL_CALLS]`` (held back
while a proper prefix), where the list's header starts (the marker, whitespace, ``[``, the first
call object). Elements need ``"name"`` and ``"arguments"`` (or ``"parameters"``); arguments are
sent as ``json.dumps`` writes them (vLLM re-serializes an object, passes a string on). After the
list's ``]``: whitespace and the block's closer (the fence, ``</tool_call>``) are dropped, then
``text`` again; a header that does not parse is content (a code fence of anything else).

After a ``</think>`` (kept as content: vLLM reads the JSON after it when no reasoning parser
took the block) a list may open again, as at the start.

Where vLLM differs: it reads one block (the first framing whose JSON parses); tito reads every
block. Its batch needs the whole list to parse (a cut list is content; tito keeps the
calls that came), drops the elements that are no call (no ``"name"`` or ``"arguments"``) and
keeps the others: tito skips such an element after a call (``skip``: its text is content, the
list goes on), one in first place ends the list (a JSON list of other objects stays text); and
its stream guesses calls with regexes before the JSON is complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import ASCII_WS, is_proper_prefix
from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools.json_list import JsonListParser, on_skip, skip_element

#: block openers (```json before ```: the longer one wins) -> (state code, closer or "")
_BLOCKS = {"```json": ("j", "```"), "```": ("f", "```"), "<tool_call>": ("t", "</tool_call>"),
           "[TOOL_CALLS]": ("c", "")}
_BY_CODE = {code: (opener, closer) for opener, (code, closer) in _BLOCKS.items()}
_OPENERS = tuple(_BLOCKS)
THINK_END = "</think>"


@dataclass(frozen=True)
class XlamParser(JsonListParser):
    name: ClassVar[str] = "xlam"
    first_phase: ClassVar[str] = "start"
    resume_phase: ClassVar[str] = "text"
    closed_phase: ClassVar[str] = "after"
    args_required: ClassVar[bool] = True
    string_args: ClassVar[bool] = True
    normalize_args: ClassVar[bool] = True
    stop_markers: ClassVar[tuple[str, ...]] = ("```", "</tool_call>")
    marker_tokens: ClassVar[tuple[str, ...]] = ("<tool_call>", "</tool_call>", "[TOOL_CALLS]")

    def _invalid_header(self, st: Work, s: str, pos: int, end: int, out: Out) -> tuple[int, bool]:
        """An element after a call that is no call (no ``"name"``, no ``"arguments"``) is
        skipped and the list goes on, as vLLM's batch skips it (session 42, fuzz seed 119);
        the first element ends the list (a JSON list of other objects stays text)."""
        skipped = skip_element(st, s, pos, end) if st.phase == "next" else None
        return skipped or super()._invalid_header(st, s, pos, end, out)

    _on_skip = on_skip

    def _on_start(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = pos
        while i < len(s) and s[i] in ASCII_WS:
            i += 1
        self._content(st, out, s[pos:i])  # held by the gap rule until the list or text decides
        if i == len(s):
            return i, False
        if not final and is_proper_prefix(s[i:], _OPENERS):
            return i, True
        st.expect = ""
        bare = s[i] == "[" and not s.startswith(_OPENERS, i)
        st.phase = "head" if bare else "text"
        return i, False

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, hold = self._text_until(st, s, pos, out, final, (*_OPENERS, THINK_END), "text")
        if hold or i >= len(s):
            return i, hold
        if s.startswith(THINK_END, i):  # the JSON may follow the thinking (vLLM's first check)
            self._content(st, out, THINK_END)
            st.phase = "start"
            return i + len(THINK_END), False
        if not final and is_proper_prefix(s[i:], ("```json",)):
            return i, True  # ``` or ```json: the next characters decide
        st.expect = next(code for m, (code, _) in _BLOCKS.items() if s.startswith(m, i))
        st.phase = "head"
        return i, False

    def _lead_at(self, st: Work, s: str, pos: int) -> Sequence[str]:
        if st.phase == "next":
            return (",",)
        return (_BY_CODE[st.expect][0], "[") if st.expect in _BY_CODE else ("[",)

    def _on_after(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        closer = _BY_CODE.get(st.expect, ("", ""))[1]
        if not closer:
            st.phase = "text"
            return pos, False
        return self._closing_marker(st, s, pos, out, final, closer, "text")

