"""Shared phases for XML-ish formats: a call is a name and ``key -> value`` parameters in tags.

Imported by qwen3_coder, glm45, minimax_m2, deepseek_v32, step3, hy_v3, gemma4, kimi_k3 and
muse; their subclasses use it too (seed_oss and mimo, poolside_v1, dots, deepseek_v4, hy_v4,
functiongemma). A format module states its markers and how a call's name and a parameter's key
are written (its ``_name`` and ``_key`` return :mod:`._xml_head`'s decisions); this module owns
the rest::

    [SECTION_START] CALL_OPEN name-header  (PARAM_OPEN key-header VALUE PARAM_CLOSE)*  CALL_CLOSE
        ... more calls ... [SECTION_END]

Phases:

``text``
    Content. ``section_start`` (or, with ``bare_calls``, a ``call_open`` standing alone, as vLLM
    accepts) switches to ``open``/``name``; a trailing proper prefix of a marker is held back.
``open``
    ``section_start``, whitespace, then ``call_open`` (the markers and whitespace are dropped);
    ``section_end`` right away is an empty section (dropped). Anything else: the marker and the
    whitespace are content and parsing resumes in ``text`` (vLLM drops such text).
``name``
    The name header after ``call_open`` (the format's :meth:`_name`), held in ``buf`` up to
    :data:`HEADER_LIMIT`. A bad header gives back ``call_open`` as content. With
    ``validate_names`` a name the request's tools do not have is a bad header (vLLM drops the
    call; tito keeps its text). COMMIT: the call starts, ``fn`` keeps its name for typing.
    Cut by the end of the output (a ``length`` cut): as vLLM 0.33's parser engine, the call is
    named with what came of the header (the format's :meth:`XmlCallParser._cut_name`:
    ``<function=get_wea`` is ``get_wea``), arguments ``{}``; with no name (or, with
    ``validate_names``, not a tool's) the cut markup is dropped; a section cut before its first
    call (in ``open``) is dropped too.
``args``
    Between parameters: whitespace and stray text before ``param_open`` or ``call_close`` are
    dropped (vLLM's converters ignore them); ``param_open`` -> ``key``; ``call_close`` ends the
    call (-> ``sect``, or ``text`` when the format has no section); ``section_end`` or another
    ``call_open`` end it too: then the stray text before them (a misspelt closer and what
    follows it; its last :data:`HEADER_LIMIT` characters, held until the marker shows) is
    content, after the call (vLLM loses it in both paths). At the end of the output it is
    dropped (a cut key header's text: vLLM's stream drops it too).
``key``
    The key header after ``param_open`` (the format's :meth:`_key`; ``args`` consumed the
    opener, so a held header stays within ``buf``'s bound after a long spelt one); the arguments
    JSON gets ``{"KEY": `` (``, "KEY": `` after the first). A bad key header is dropped.
``vstr`` / ``vbuf`` / ``vraw``
    The value, up to ``param_close`` (consumed), or, not consumed, the next ``param_open`` (when
    ``open_ends_value``, as vLLM's lookahead), ``call_close`` or ``section_end`` (vLLM's batch
    path drops a value cut by those, its stream path keeps it: tito keeps it). A value that can
    only be a string streams JSON-escaped (``vstr``); a typed one is buffered (``vbuf``, up to
    :data:`VALUE_LIMIT` characters) and written typed at its end (:mod:`._schema`; the value
    codec is :mod:`._xml_value`'s :class:`XmlValueParser`, this class's base); past the limit
    it commits: raw JSON (``vraw``) when it may be an object or array and starts like one, else
    a string. ``trim_newlines``: one leading and one trailing ``\\n`` are markup (Qwen3), the
    trailing one is held in ``val`` until the next character shows it is not the last.
``sect``
    After a call inside a section: whitespace, then ``call_open`` (next call), ``section_end``
    (consumed -> ``text``); anything else is content (-> ``text``). With ``section_goes_on``
    (step3, hy_v3, kimi_k3) such text (a misspelt call marker, a broken header's call) does not
    end the section: ``text`` reads on with ``insec`` set, where ``call_open`` starts the next
    call and ``section_end`` (dropped) ends the section, as vLLM's parsers read every call of a
    section (step3's batch splits the section at each call marker, hy_v3's and kimi_k3's regexes
    find every call).
    With ``calls_after_section`` as well (hy_v3), ``insec`` once set is never cleared: after a
    section's end a ``call_open`` is still a call and a later ``section_end`` is dropped (vLLM's
    hy_v3 batch finds every call in the output once ``section_start`` is in it).

Arguments are the JSON vLLM builds (``json.dumps`` of the typed dict: ``{"k": "v", "n": 1}``),
streamed piece by piece so the pieces always join to the batch text; a call without parameters
has ``{}``; a repeated key appears twice in the text (vLLM keeps the last value, as JSON parsers
do). At ``final`` an open value and call are closed (valid JSON) and ``truncated`` is set.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first, held_suffix, is_proper_prefix, scan_to
from tito.core.parsers.tools._base import HEADER_LIMIT, LEAD_LIMIT, WS_LIMIT, Out, Work
from tito.core.parsers.tools._json import skip_ws
from tito.core.parsers.tools._xml_head import BAD, HeadResult
from tito.core.parsers.tools._xml_markers import Spelling, scanner
from tito.core.parsers.tools._xml_value import XmlValueParser

_VALUE_PHASES = ("vstr", "vbuf", "vraw")
_CALL_PHASES = ("args", "key", *_VALUE_PHASES)


@dataclass(frozen=True)
class XmlCallParser(XmlValueParser):
    """Base for XML-ish call formats (see the module header)."""

    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    # (each is a parser engine in vLLM 0.33: off whenever it adjusts the request)
    engine_reads_special_without_tools: ClassVar[bool] = True

    first_phase: ClassVar[str] = "text"
    section_start: ClassVar[str] = ""
    section_end: ClassVar[str] = ""
    call_open: ClassVar[str] = ""
    call_close: ClassVar[str] = ""
    param_open: ClassVar[str] = ""
    param_close: ClassVar[str] = ""
    #: a ``call_open`` in plain text starts a call without a section
    bare_calls: ClassVar[bool] = True
    #: the next ``param_open`` ends an unclosed value
    open_ends_value: ClassVar[bool] = True
    validate_names: ClassVar[bool] = False
    #: text in a section that is no call leaves the section open (``sect`` in the header)
    section_goes_on: ClassVar[bool] = False
    #: with ``section_goes_on``: once a section began, calls are read anywhere after it
    #: (``insec`` is never cleared; ``sect`` in the header)
    calls_after_section: ClassVar[bool] = False
    #: markers inside a header (GLM's ``</arg_key>``, ``<arg_value>``), for :attr:`marker_tokens`
    header_markers: ClassVar[tuple[str, ...]] = ()
    #: ``param_open`` / ``param_close`` spelt with whitespace inside (:mod:`._xml_markers`)
    spellings: ClassVar[Mapping[str, Spelling]] = {}

    @property
    def marker_tokens(self) -> tuple[str, ...]:  # type: ignore[override]
        """Every marker of the grammar (those that are special tokens must reach the parser)."""
        markers = (self.section_start, self.section_end, self.call_open, self.call_close)
        markers += (self.param_open, self.param_close, *self.header_markers)
        return tuple(m for m in markers if m)

    # -- what a format says about its headers ----------------------------------------------------

    def _name(self, h: str) -> HeadResult:
        """The name header ``h`` (the text right after ``call_open``, at most
        :data:`HEADER_LIMIT` characters); the end index is relative to ``h``."""
        raise NotImplementedError

    def _cut_name(self, h: str) -> str:
        """The name vLLM 0.33 gives a call whose header ``h`` (the text after ``call_open``) the
        end of the output cut: its parser engine's name text so far, stripped ("": no call)."""
        return h.strip()

    def _key_unclosed(self, h: str) -> HeadResult:
        """The key header still undecided when the output or the header's window ended (a
        quote never closed): no key (minimax_m2 reads one on to the ``>``)."""
        return BAD

    def _key(self, h: str) -> HeadResult:
        """The key header ``h`` (right after ``param_open``); the 4th item is the format's
        attribute (DSML's ``string``)."""
        raise NotImplementedError

    # -- phases ----------------------------------------------------------------------------------

    def _starts(self, st: Work) -> tuple[str, ...]:
        starts = tuple(m for m in (self.section_start,) if m)
        if self.section_goes_on and st.insec:  # stray text inside a section
            return (*starts, self.call_open, self.section_end)
        return (*starts, self.call_open) if self.bare_calls else starts

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, hold = self._text_until(st, s, pos, out, final, self._starts(st), "open")
        if st.phase == "open" and st.insec and s.startswith(self.section_end, i):
            st.phase = "text"  # the section's end, after stray text: dropped
            st.insec = self.calls_after_section
            return i + len(self.section_end), False
        if st.phase == "open" and not (self.section_start and s.startswith(self.section_start, i)):
            st.phase = "name"  # a bare call
        return i, hold

    def _on_open(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = pos + len(self.section_start)
        j = skip_ws(s, i)
        if j - i <= WS_LIMIT:
            if s.startswith(self.call_open, j):
                return self._call_header(st, s, pos, j, out, final, section=True)
            if s.startswith(self.section_end, j):
                st.phase = "text"
                st.insec = st.insec or self.calls_after_section
                return j + len(self.section_end), False
            if j == len(s) or is_proper_prefix(s[j:], (self.call_open, self.section_end)):
                if final:  # cut before the first call: vLLM's engine drops the markup
                    st.phase = "text"
                    st.insec = st.insec or self.calls_after_section
                    return len(s), False
                return pos, True
        self._content(st, out, s[pos:j])
        st.phase = "text"
        st.insec = self.section_goes_on
        return j, False

    def _on_name(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._call_header(st, s, pos, pos, out, final, section=st.insec)

    def _call_header(
        self, st: Work, s: str, pos: int, at: int, out: Out, final: bool, *, section: bool
    ) -> tuple[int, bool]:
        """A call's name header: ``call_open`` at ``s[at]``; ``s[pos:at]`` is the section's
        opening (marker and whitespace) when the call is the section's first, else empty. A bad
        header gives back ``s[pos:at]`` and ``call_open`` as content."""
        i = at + len(self.call_open)
        budget = HEADER_LIMIT + LEAD_LIMIT - (i - pos)  # the held header fits ``buf``
        kind, end, name, _ = self._name(s[i : i + budget])
        if kind == "need" and len(s) - i <= budget:
            if not final:
                return pos, True
            # the output ends inside the header (a length cut): vLLM's engine names the call
            # with what came, or, with no (valid) name, drops the cut markup
            kind, end, name = "ok", len(s) - i, self._cut_name(s[i:])
            if not name or not self._known(name):
                st.phase = "text"
                st.insec = self.calls_after_section and (section or st.insec)
                return len(s), False
        if kind == "ok" and not self._known(name):
            kind = "bad"
        if kind != "ok":
            self._content(st, out, s[pos:i])
            st.phase = "sect" if section and pos == at else "text"
            st.insec = st.phase == "sect" or (section and self.section_goes_on)
            return i, False
        self._start_call(st, out, name)
        st.insec = section
        st.fn = name
        st.phase = "args"
        return i + end, False

    def _known(self, name: str) -> bool:
        """Whether a call may have this name (``validate_names``: one of the request's tools)."""
        return not self.validate_names or self.tool_params is None or name in self.tool_params

    def _on_args(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = skip_ws(s, pos)
        ends = (self.param_open, self.call_close, self.section_end, self.call_open)
        sc = scanner(type(self), ends, self.spellings) if self.spellings else None
        if sc is not None:
            hit, marker, _, length = sc.scan(s, i, True)  # (final: no hold computed; held below)
        else:
            hit, marker = find_first(s, [m for m in ends if m], i)
            length = len(marker or "")
        if hit != i:
            # stray text: its last HEADER_LIMIT characters are held (any earlier dropped) until
            # the next marker decides (``args`` in the module header); the window is re-stripped
            # on every chunk, so any chunking judges the same text. A trailing prefix of a marker
            # is held beyond the window: the marker may start there, and the window is the text
            # before it (else a chunk cut in the marker lost the window's first characters).
            # Only a marker that ends the call with the window as content (``call_open``,
            # ``section_end``, literal: shorter than LEAD_LIMIT) needs the window before its
            # prefix; a longer held prefix (a spelt ``param_open``: ``<`` and 64 spaces) can
            # only drop the window or fail, a later marker's window then ends past it, so the
            # hold stays within ``buf``'s bound (parser ws sweep --pairs seed 157)
            stop = len(s) if hit == -1 else hit
            if hit == -1 and not final:
                held = sc.held(s, i) if sc is not None else held_suffix(s[i:], ends)
                if held:
                    lead = held_suffix(s[max(i, stop - LEAD_LIMIT) :],
                                       (self.call_open, self.section_end))
                    return max(i, stop - max(HEADER_LIMIT + lead, held)), True
                return max(i, stop - HEADER_LIMIT), True
            start = max(i, stop - HEADER_LIMIT)
            if hit == -1 or marker in (self.param_open, self.call_close):
                return stop, False  # the call goes on or closes, or the output's cut tail
            self._settle(st, out, marker)
            self._close_call(st, out)
            st.phase = "sect" if marker == self.section_end else "name"
            self._content(st, out, s[skip_ws(s, start) : stop])  # ended without its closer
            return stop, False
        self._settle(st, out, marker)
        if marker == self.param_open:
            st.phase = "key"  # (the opener consumed: a held key header stays within ``buf``'s
            return i + length, False  # bound after a spelt opener of up to 207 characters)
        self._close_call(st, out)
        if marker == self.call_close:
            st.phase = "sect" if st.insec else "text"
            return i + len(marker), False
        st.phase = "sect" if marker == self.section_end else "name"
        return i, False

    def _on_key(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = pos  # (``_on_args`` consumed ``param_open``)
        kind, end, key, attr = self._key(s[i : i + HEADER_LIMIT])
        if kind == "need":
            if not final and len(s) - i <= HEADER_LIMIT:
                return pos, True
            kind, end, key, attr = self._key_unclosed(s[i : i + HEADER_LIMIT])
        st.phase = "args"
        if kind != "ok":
            return i, False
        self._open_value(st, out, key, attr)
        return i + end, False

    def _open_value(self, st: Work, out: Out, key: str, attr: str) -> None:
        """A parameter starts: its key goes out, its value phase begins."""
        out.args(st, ("{" if st.args_sent == 0 else ", ")
                 + json.dumps(key, ensure_ascii=False) + ": ")
        self._begin_value(st, out, key, attr)

    def _value_ends(self) -> tuple[str, ...]:
        ends = [self.param_close, self.call_close, self.section_end]
        if self.open_ends_value:
            ends.append(self.param_open)
        return tuple(m for m in ends if m)

    def _on_vstr(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._value(st, s, pos, out, final)

    _on_vbuf = _on_vstr
    _on_vraw = _on_vstr

    def _value(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if self.spellings:
            sc = scanner(type(self), self._value_ends(), self.spellings)
            hit, marker, stop, length = sc.scan(s, pos, final)
        else:
            hit, marker, stop = scan_to(s, self._value_ends(), pos, final)
            length = len(marker or "")
        self._feed(st, out, s[pos:stop])
        if hit == -1:
            return stop, stop < len(s)
        self._end_value(st, out)
        st.phase = "args"
        return (hit + length if marker == self.param_close else hit), False

    def _settle(self, st: Work, out: Out, marker: str | None) -> None:
        """Write a value held past its end now that the next ``marker`` shows what follows it
        (None: the output ended). Nothing is held here; DSML holds a lone wrapper parameter."""

    def _close_call(self, st: Work, out: Out) -> None:
        out.args(st, "}" if st.args_sent else "{}")
        st.fn = ""
        self._end_call(st)

    def _on_sect(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, hold = self._between_calls(
            st, s, pos, out, final, self.call_open, "name", self.section_end
        )
        k = i - len(self.section_end)
        ended = k >= pos and s.startswith(self.section_end, k)  # (consumed: the section ended)
        st.insec = st.phase != "text" or (self.section_goes_on and not ended)
        st.insec = st.insec or self.calls_after_section
        return i, hold

    # -- end of output ---------------------------------------------------------------------------

    def _is_open(self, st: Work) -> bool:
        return st.phase in _CALL_PHASES

    def _finish(self, st: Work, out: Out) -> None:
        open_call = self._is_open(st)
        if st.phase in _VALUE_PHASES:
            self._end_value(st, out)
        if open_call:
            self._settle(st, out, None)
            out.args(st, "}" if st.args_sent else "{}")
        super()._finish(st, out)
        st.truncated = open_call
        if open_call:
            st.phase = "text"
