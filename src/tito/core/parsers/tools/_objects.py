"""Shared phases for formats whose calls are JSON objects ``{"name": ..., "arguments": {...}}``.

Used by hermes, the JSON-list formats (mistral, tool_choice "required") and llama3_json. A
subclass decides where a header starts and what follows a call; this module owns the three
phases every such call goes through:

``head``
    The call header (the format's lead tokens, e.g. ``<tool_call>`` or ``,``, then ``{`` up to
    the arguments' ``{``) is parsed from ``buf``; see :func:`._json.parse_object_header`. COMMIT:
    the call starts (name sent) and its arguments stream from their ``{``; CLOSED: the call starts
    and ends with arguments ``{}`` (none with ``argless_skipped`` when the object has no
    arguments: its text is content); INVALID at ``p``: the header's text up to ``p`` is content and
    the format's ``resume_phase`` takes over at ``p`` (:meth:`ObjectCallParser._invalid_header`:
    granite skips a malformed list element instead); NEED: hold the header, unless it is longer
    than :data:`HEADER_LIMIT` (plus the lead) or ``final``, which count as INVALID at that point.
``sargs``
    Arguments written as a JSON string (``"arguments": "{\\"x\\": 1}"``, Granite 4; formats with
    :attr:`ObjectCallParser.string_args`): the string's *decoded* text streams as the arguments
    (a string holding a JSON object gives that object's text, any other string is passed on as
    it is, like vLLM's granite4 parser); an escape split by the chunking waits in ``pend``
    (at most 12 characters: a surrogate pair); an invalid escape is passed on as written. The
    closing quote goes to ``tail``.
``args``
    The arguments object streams as raw text until the scanner sees it close (then ``tail``), or
    an interrupt character outside strings that starts one of the format's ``stop_markers``
    (the call ends there, its arguments unbalanced; the format's ``end_marker`` is consumed, any
    other marker is left for ``interrupt_phase``).
``after``
    After a call (hermes) or a list (hunyuan_a13b): whitespace, then the format's ``end_marker``
    (both dropped); anything else is text.
``tail``
    The rest of the call object after the arguments (``}``, or ``, "id": "..."}``) is skipped with
    the scanner until the object closes; then ``after_phase``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools import _jsonnorm as jsonnorm
from tito.core.parsers.tools._base import HEADER_LIMIT, Out, ToolParser, Work
from tito.core.parsers.tools._json import ARGS_KEYS, Header, parse_object_header, scan

_STRING_SPECIALS = re.compile(r'["\\]')
_HEX = frozenset("0123456789abcdefABCDEF")


def _is_high_surrogate(esc: str) -> bool:
    return len(esc) == 6 and all(c in _HEX for c in esc[2:]) and 0xD800 <= int(esc[2:], 16) < 0xDC00


def _take_escape(st: Work, s: str, i: int) -> int:
    """Extend the escape in ``st.pend`` with ``s[i:]`` as far as it can go; the index after.

    On return either ``i == len(s)`` (more text may extend it) or ``st.pend`` is complete:
    ``\\X``, ``\\uXXXX``, or a high surrogate escape followed by ``\\uXXXX`` (a pair).
    """
    n = len(s)
    while i < n:
        pend = st.pend
        size = 6 if pend[1:2] == "u" else 2
        if len(pend) < size:
            st.pend += s[i]
            i += 1
            continue
        if len(pend) == 12 or not _is_high_surrogate(pend[:6]):
            return i
        # a high surrogate: its low half may follow as a second escape
        c = s[i]
        if c != "\\u"[len(pend) - 6] if len(pend) < 8 else c not in _HEX:
            return i
        st.pend += c
        i += 1
    return i


def _decode_escape(esc: str) -> str:
    """A complete JSON escape (or a surrogate pair) decoded; invalid or a lone surrogate: the
    escape's text as written (a lone surrogate cannot be encoded)."""
    try:
        text = json.loads('"' + esc + '"')
    except ValueError:
        return esc
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        if len(esc) == 12:
            return _decode_escape(esc[:6]) + _decode_escape(esc[6:])
        return esc
    return text


@lru_cache(maxsize=32)
def _interrupt_chars(markers: tuple[str, ...]) -> str:
    return "".join(sorted({m[0] for m in markers}))


#: the name vLLM's parser engine finds in a cut call object (``ParserEngine._NAME_RE``)
_CUT_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')


@dataclass(frozen=True)
class ObjectCallParser(ToolParser):
    """Base for JSON-object call formats (see the module header)."""

    #: where an unparsable header's text continues (as content)
    resume_phase: ClassVar[str] = "text"
    #: phase after a call object closed
    after_phase: ClassVar[str] = "text"
    #: markers that end a call even inside unbalanced arguments (outside strings)
    stop_markers: ClassVar[tuple[str, ...]] = ()
    #: the one of ``stop_markers`` consumed when it ends a call (the others are left in the text)
    end_marker: ClassVar[str] = ""
    #: markers that end a call even inside a JSON string of its arguments (hermes: a newline and
    #: ``</tool_call>``, impossible in valid JSON): a string the model never closed must not
    #: swallow the format's markup into the arguments
    string_stop_markers: ClassVar[tuple[str, ...]] = ()
    #: where the text continues after a stop marker ended a call (default: ``resume_phase``)
    interrupt_phase: ClassVar[str] = ""
    #: an object without arguments is no call (llama3_json)
    args_required: ClassVar[bool] = False
    #: arguments may be a JSON string holding their text (phase ``sargs``)
    string_args: ClassVar[bool] = False
    #: the members that hold the arguments (hunyuan_a13b: ``"arguments"`` only, as vLLM's)
    args_keys: ClassVar[tuple[str, ...]] = ARGS_KEYS
    #: object arguments are sent as ``json.dumps`` writes them (:mod:`._jsonnorm`), not as the
    #: model wrote them (vLLM's llama3_json and granite4 parsers, batch and stream)
    normalize_args: ClassVar[bool] = False
    #: a header the end of the output cuts (a length cut) is read as vLLM 0.33's parser engine
    #: reads it (granite): its markup is dropped, and once the name's string has closed the
    #: call is made with arguments ``{}``; otherwise such a header is content (vLLM's batch)
    engine_cut: ClassVar[bool] = False
    #: a list element without arguments is no call, its object's text content, and the list
    #: goes on (hunyuan_a13b: vLLM's batch skips an element lacking ``"arguments"``)
    argless_skipped: ClassVar[bool] = False

    # -- what the subclass tells about the header now being parsed -----------------------------

    def _lead(self, st: Work) -> Sequence[str]:
        return ()

    def _optional_lead(self, st: Work) -> str:
        return ""

    # -- phases ----------------------------------------------------------------------------------

    def _lead_at(self, st: Work, s: str, pos: int) -> Sequence[str]:
        """The lead tokens of the header at ``s[pos:]`` (a format with several markers looks)."""
        return self._lead(st)

    def _object_header(self, s: str, lead: Sequence[str], opt: str) -> Header:
        """The call header at the start of ``s`` (:func:`._json.parse_object_header`; a format
        whose call objects are shaped otherwise parses its own)."""
        return parse_object_header(s, lead, optional_lead=opt, args_required=self.args_required,
                                   string_args=self.string_args, args_keys=self.args_keys)

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        lead = self._lead_at(st, s, pos)
        opt = self._optional_lead(st)
        limit = HEADER_LIMIT + sum(len(t) for t in lead) + len(opt)
        h = self._object_header(s[pos : pos + limit], lead, opt)
        if h.kind == "need":
            rest = len(s) - pos
            if not final and rest <= limit:
                return pos, True
            if self.engine_cut and rest <= limit:
                name = _CUT_NAME.search(s, pos)
                if name is not None:
                    self._start_call(st, out, name.group(1))
                    out.args(st, "{}")
                    self._end_call(st)
                st.phase = self.resume_phase
                return len(s), False
            h = h.__class__("invalid", min(rest, limit))
        if h.kind == "invalid":
            return self._invalid_header(st, s, pos, pos + h.pos, out)
        if h.kind == "closed" and h.args is None and self.argless_skipped:
            self._content(st, out, s[s.index("{", pos) : pos + h.pos])  # (after the lead)
            st.phase = self.after_phase
            return pos + h.pos, False
        self._start_call(st, out, h.name)
        st.pend = ""
        if h.kind == "commit":
            st.phase = "sargs" if h.string else "args"
            return pos + h.pos + (1 if h.string else 0), False
        if h.args is None or not h.args.startswith("{"):  # absent, or a string's decoded text
            out.args(st, "{}" if h.args is None else h.args)
        else:
            self._object_args(st, out, h.args, end=True)
        self._end_call(st)
        st.phase = self.after_phase
        return pos + h.pos, False

    def _on_args(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        kind, i = scan(st, s, pos, self._interrupts(), self._string_interrupts())
        self._object_args(st, out, s[pos:i], end=kind == "done")
        if kind == "done":
            st.depth = 1  # back inside the call object
            st.phase = "tail"
            return i, False
        if kind == "more":
            return i, False
        return self._interrupt(st, s, i, out, final, emit=True)

    def _on_sargs(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        n = len(s)
        i = pos
        while i < n or st.pend:
            if st.pend:
                i = _take_escape(st, s, i)
                if i >= n and not final:  # more text may extend the escape
                    return n, False
                if len(st.pend) < (6 if st.pend[1:2] == "u" else 2):
                    st.pend = ""  # the output was cut inside an escape: truncated arguments
                    return n, False
                if 6 < len(st.pend) < 12:  # a lone high surrogate, then another escape begins
                    out.args(st, _decode_escape(st.pend[:6]))
                    st.pend = st.pend[6:]
                    continue
                out.args(st, _decode_escape(st.pend))
                st.pend = ""
                continue
            m = _STRING_SPECIALS.search(s, i)
            j = m.start() if m else n
            out.args(st, s[i:j])
            if j == n:
                return n, False
            if s[j] == '"':
                st.depth = 1  # back inside the call object
                st.phase = "tail"
                return j + 1, False
            st.pend = "\\"
            i = j + 1
        return n, False

    def _on_after(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._closing_marker(st, s, pos, out, final, self.end_marker, "text")

    def _on_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        kind, i = scan(st, s, pos, self._interrupts(), self._string_interrupts())
        if kind == "done":
            self._end_call(st)
            st.phase = self.after_phase
            return i, False
        if kind == "more":
            return i, False
        return self._interrupt(st, s, i, out, final, emit=False)

    # -- helpers --------------------------------------------------------------------------------

    def _invalid_header(self, st: Work, s: str, pos: int, end: int, out: Out) -> tuple[int, bool]:
        """A header that is no call, ``s[pos:end]`` up to the first character that cannot
        belong to one: its text is content and ``resume_phase`` reads on from ``end`` (a format
        that skips a malformed element, granite, overrides this)."""
        self._content(st, out, s[pos:end])
        st.phase = self.resume_phase
        return end, False

    def _interrupts(self) -> str:
        return _interrupt_chars(self.stop_markers)

    def _string_interrupts(self) -> str:
        return _interrupt_chars(self.string_stop_markers)

    def _interrupt(
        self, st: Work, s: str, i: int, out: Out, final: bool, *, emit: bool
    ) -> tuple[int, bool]:
        """An interrupt character at ``s[i]`` (outside strings, or a string stop marker's inside
        one): a stop marker, a prefix of one, or text."""
        markers = self.string_stop_markers if st.in_str else self.stop_markers
        for marker in markers:
            if s.startswith(marker, i):
                st.in_str = st.esc = False
                if emit:
                    self._object_args(st, out, "", end=True)
                self._end_call(st)
                st.phase = self.interrupt_phase or self.resume_phase
                consumed = bool(self.end_marker) and marker.endswith(self.end_marker)
                return (i + len(marker) if consumed else i), False
        if not final and is_proper_prefix(s[i:], markers):
            return i, True
        st.esc = False  # (a string's character taken as text ends a pending escape)
        if emit:
            self._object_args(st, out, s[i])
        if s[i] in "{[":  # an interrupt character that is also JSON structure
            st.depth += 1
        return i + 1, False

    def _object_args(self, st: Work, out: Out, text: str, *, end: bool = False) -> None:
        """Send object arguments' text (re-serialized with :attr:`normalize_args`; ``end``: the
        arguments are over, what the rewrite holds goes out)."""
        if self.normalize_args:  # the rewrite's state rides in ``pend`` (free in phase args)
            st.pend, text = jsonnorm.feed(st.pend, text, final=end)
        out.args(st, text)

    def _finish(self, st: Work, out: Out) -> None:
        if st.pend and st.phase == "args":  # cut inside the arguments: what is held goes out
            self._object_args(st, out, "", end=True)
        super()._finish(st, out)

    def _is_open(self, st: Work) -> bool:
        return st.phase in ("args", "sargs")
