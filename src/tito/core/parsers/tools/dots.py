"""``dots``: rednote dots.llm tool calls, MiniMax-style invokes in ``<dots_function_call>`` blocks.

Format (vLLM 0.33's ``DotsToolParser``)::

    TEXT <dots_function_call>
    <invoke name="search">
    <parameter name="query">weather in Shanghai</parameter>
    </invoke>
    </dots_function_call> TEXT

Grammar (phases and shared rules in :mod:`._xml`): calls are read only inside a block; VALUE
runs to ``</parameter>``. A header is vLLM's regex ``<invoke\s+name\s*=\s*([^>]+)>`` (and
``<parameter...``: any whitespace around ``name`` and ``=``, a newline included), its text read
by vLLM's ``_extract_name``: stripped, then one pair of like quotes around it dropped, the spaces
inside them kept (``name=" get_time"`` names no tool, fuzz seed 110, ``dots/fz38_*``; a quote
that does not pair stays: ``name="city>`` is the key ``"city``, ``name="a>b">`` the key ``"a``,
``name="a"b">`` the key ``a"b``, ``name="">`` the key ``""``; session 50, ``dots/fz50_*``).
Tool names are checked against the request's tools, as vLLM does: a call of an unknown tool in
a block is content from its ``<invoke`` through its ``</invoke>`` (phase ``skip``; vLLM drops
it) and the block goes on (its markers are dropped, as in any block).

Typing (vLLM's ``_convert_param_value``): the value is stripped; ``null`` (any case) is null;
else by the parameter's type (a parameter the tool's schema lacks is a string): string keeps the
text, integer ``int()`` else the text, number ``float()`` written as an integer when integral
else the text, boolean true for ``true`` / ``1`` (any case) and false for anything else, other
types JSON else the text (also a type tito does not know). vLLM takes the first non-null type
the schema lists (``type``, else the first ``anyOf`` / ``oneOf`` / ``allOf`` alternative,
``$ref`` followed); tito reads the type letters of :mod:`._schema` in their priority order
(integer, number, boolean, object, array, string), which differs only for a parameter listing
several non-null types, and does not follow ``$ref``. A value is buffered up to
:data:`._base.VALUE_LIMIT` characters; a longer one is a string (its trailing whitespace kept).

A block whose body (past whitespace) opens with anything but ``<invoke`` (or its end) is no
call block: its text is content through its ``</dots_function_call>``, a second
``<dots_function_call>`` in it included (phase ``dead``), as vLLM's block regex runs from the
first opener to the first closer and drops such a body (parser fuzz seed 133). Stray text
after a call does not end the block (``section_goes_on``): it is content and a later invoke
in the block is a call, as vLLM's regex finds every invoke in it (session 45, by hand).

A call is an invoke whose ``</invoke>`` comes before the block's ``</dots_function_call>``, as
vLLM's regexes read a block (batch and stream): an invoke the block's end cuts (a misspelt
closer) is no call, its text up to the block's end (trailing whitespace dropped) content, as
vLLM's stream gives a block without a call (fuzz seed 23, ``dots/fz36_*``). So an invoke is held
(unsent) until its closer or the block's end shows, for its first :data:`CALL_HOLD` characters:
an invoke whose closer starts later (a long call) is sent as it comes, and with a misspelt
closer stays a call (``call_unclosed``), as does an invoke the output's end cuts
(``truncated_call``; vLLM drops both).

Where vLLM differs: its batch makes only the text before the first block content (its stream
keeps the text after blocks, as tito does); it also reads a JSON ``{"name", "arguments"}`` object
as a block's body, which tito leaves as content; its stream sends a call only once its block
closed; an invoke in a block before the closer of the one before it (a misspelt ``</invoke>``)
takes that invoke's parameters in vLLM (its regex runs to the next closer), while tito ends the
call there and reads the next. ``tool_choice`` required / named are read natively
(``supports_required_and_named = False``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from tito.core.parsers._text import ASCII_WS, find_first, is_proper_prefix, scan_to
from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import HEADER_LIMIT, WS_LIMIT, Out, Work
from tito.core.parsers.tools._json import skip_ws
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult
from tito.core.parsers.tools._xml_markers import Spelling
from tito.core.parsers.tools.minimax_m2 import MinimaxM2Parser

#: The characters of an invoke (from ``<invoke``) held until its ``</invoke>`` shows it is a call
#: (the held text fits ``ToolState.buf``); an invoke whose closer starts later streams at once.
CALL_HOLD = HEADER_LIMIT

#: a header after ``<invoke`` / ``<parameter`` (vLLM's regexes); ``_HEAD_START`` what may begin one
_HEAD = re.compile(r"\s+name\s*=\s*([^>]+)>")
_HEAD_START = re.compile(r"(?:\s+(?:n(?:a(?:m(?:e\s*(?:=[^>]*)?)?)?)?)?)?")


@dataclass(frozen=True)
class DotsParser(MinimaxM2Parser):
    name: ClassVar[str] = "dots"
    structural_tag_model: ClassVar[str | None] = None
    forced_calls: ClassVar[str] = "native"
    engine_reads_special: ClassVar[bool] = False  # vLLM's dots leaves skip_special_tokens
    engine_reads_special_without_tools: ClassVar[bool] = False
    section_start: ClassVar[str] = "<dots_function_call>"
    section_end: ClassVar[str] = "</dots_function_call>"
    bare_calls: ClassVar[bool] = False
    open_ends_value: ClassVar[bool] = False
    #: stray text after a call does not end the block (vLLM's regex finds every invoke in it)
    section_goes_on: ClassVar[bool] = True

    call_open: ClassVar[str] = "<invoke"
    param_open: ClassVar[str] = "<parameter"
    spellings: ClassVar[Mapping[str, Spelling]] = {}  # vLLM's dots regexes spell tags one way

    def _name(self, h: str) -> HeadResult:
        return _head(h)

    def _key(self, h: str) -> HeadResult:
        return _head(h)

    def _key_unclosed(self, h: str) -> HeadResult:
        return BAD  # no ``>`` in the window: vLLM's regex reads no parameter there

    def _cut_name(self, h: str) -> str:
        m = re.match(r"\s+name\s*=\s*", h)
        return super()._cut_name(h[m.end():]) if m else ""

    def _call_header(
        self, st: Work, s: str, pos: int, at: int, out: Out, final: bool, *, section: bool
    ) -> tuple[int, bool]:
        i = at + len(self.call_open)
        kind, end, name, _ = self._name(s[i : i + HEADER_LIMIT])
        if kind == "ok" and section and not self._known(name):
            self._content(st, out, s[at : i + end])  # an unknown tool: content (``skip``)
            st.phase, st.insec = "skip", True
            return i + end, False
        if kind == "ok" and section:
            closed = self._closes(s, at, final)
            if closed is None:  # held from the invoke (the block's opening is markup)
                st.phase, st.insec = "name", True
                return at, True
            if closed != -1:  # ``</dots_function_call>`` first: no call, its text content
                self._content(st, out, s[at:closed].rstrip(ASCII_WS))
                st.phase, st.insec = "sect", True
                return closed, False
        return super()._call_header(st, s, pos, at, out, final, section=section)

    def _on_open(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """A block whose body (past whitespace) does not open with ``<invoke`` is no call block
        up to its ``</dots_function_call>``: vLLM's block regex reads the body from the first
        opener to the first closer and drops a body that is neither invokes nor JSON, so a
        second ``<dots_function_call>`` in it opens nothing (parser fuzz seed 133,
        ``fuzz/dots/0``: tito read the doubled opener's block as a call). Its text is
        content (phase ``dead``), as tito keeps any block vLLM drops."""
        k = pos + len(self.section_start)
        j = skip_ws(s, k)
        if j - k <= WS_LIMIT and (s.startswith((self.call_open, self.section_end), j) or j == len(s)
                                  or is_proper_prefix(s[j:], (self.call_open, self.section_end))):
            return super()._on_open(st, s, pos, out, final)
        self._content(st, out, s[pos:j])
        st.phase, st.insec = "dead", False
        return j, False

    def _on_dead(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """A no-call block's text: content through its ``</dots_function_call>``."""
        hit, marker, stop = scan_to(s, (self.section_end,), pos, final)
        if hit == -1:
            self._content(st, out, s[pos:stop])
            return stop, stop < len(s)
        self._content(st, out, s[pos : hit + len(marker)])
        st.phase = "text"
        return hit + len(marker), False

    def _closes(self, s: str, at: int, final: bool) -> int | None:
        """Whether the invoke at ``s[at]`` is a call: -1 yes (its ``</invoke>`` starts within
        :data:`CALL_HOLD` characters, before the block's end; or none starts there: a long or
        cut call), the block end's index no (the block ends first), None: not known yet."""
        window = s[at : at + CALL_HOLD + len(self.section_end)]
        hit, marker = find_first(window, (self.call_close, self.section_end))
        if hit != -1 and hit < CALL_HOLD:
            return -1 if marker == self.call_close else at + hit
        if final or len(window) == CALL_HOLD + len(self.section_end):
            return -1
        return None

    def _on_skip(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """An unknown tool's call: content through its ``</invoke>`` (or up to the block's end),
        then the block goes on."""
        ends = (self.call_close, self.section_end)
        hit, marker, stop = scan_to(s, ends, pos, final)
        if hit == -1:
            self._content(st, out, s[pos:stop])
            return stop, stop < len(s)
        end = hit + len(marker) if marker == self.call_close else hit
        self._content(st, out, s[pos:end])
        st.phase = "sect"
        return end, False

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        letters = _schema.letters_of(self._node(st, key))
        if letters is None:  # no schema for the parameter: a string
            return "bs"
        return "b" + next((c for c in letters if c != "z"), "o")  # unknown types: JSON

    def _typed(self, st: Work, text: str) -> str:
        return _schema.dumps(dots_value(text.strip(), st.vt[1:]))


def _head(h: str) -> HeadResult:
    """A name or key header (the text after ``<invoke`` / ``<parameter``): vLLM's regex, then its
    ``_extract_name``. NEED while what came may still begin one (no ``>`` yet)."""
    m = _HEAD.match(h)
    if m is None:
        return NEED if ">" not in h and _HEAD_START.fullmatch(h) else BAD
    text = m.group(1).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    return "ok", m.end(), text, ""


def dots_value(text: str, kind: str) -> Any:
    """vLLM's ``_convert_param_value`` for a stripped value and its type letter."""
    if text.lower() == "null":
        return None
    if kind == "i":
        try:
            return int(text)
        except ValueError:
            return text
    if kind == "n":
        try:
            v = float(text)
        except ValueError:
            return text
        if not math.isfinite(v):
            return text  # (vLLM writes Infinity / NaN: not JSON)
        return int(v) if v.is_integer() else v
    if kind == "b":
        return text.lower() in ("true", "1")
    if kind == "s":
        return text
    ok, v = _schema.loads(text)
    return v if ok else text

