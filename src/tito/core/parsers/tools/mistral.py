"""``mistral``: Mistral tool calls, both generations, told apart by what follows the marker.

Formats (``[TOOL_CALLS]`` and ``[ARGS]`` are special tokens of the model, received as text: see
:attr:`._base.ToolParser.marker_tokens`)::

    v0.3 (pre-v11):  TEXT [TOOL_CALLS] [{"name": "NAME", "arguments": {ARGS}, "id": "a1b2c3d4e"},
                                        ...]
                     TEXT [TOOL_CALLS] {"name": "NAME", "arguments": {ARGS}}   (one call object)
    v11+:            TEXT [TOOL_CALLS]NAME[ARGS]{ARGS} [TOOL_CALLS]NAME[ARGS]{ARGS} ... TEXT
    v11 fallback:    TEXT [TOOL_CALLS]NAME{ARGS} ...

(vLLM picks one grammar from the tokenizer version; tito reads it off the text, the two cannot be
confused: a list starts with ``[``, a v11 call with its name.)

Phases (``args``/``sargs``/``tail``/``sep``/``next`` are in :mod:`._objects` and
:mod:`.json_list`):

``text``
    Content; ``[TOOL_CALLS]`` switches to ``head`` (held back while a proper prefix).
``head``
    ``[TOOL_CALLS]``, whitespace, then ``[``: the v0.3 list (its first element; the list phases
    follow, and ``]`` goes back to ``text``); ``{``: one call object without its list (phase
    ``ohead``: the element alone, as vLLM's pre-v11 ``json.loads`` accepts). Otherwise the v11
    header: ``NAME`` (word
    characters, ``.``, ``-``; whitespace after it is not part of it, as vLLM's engine strips
    the name), then ``[ARGS]`` and ``{``, or ``{`` at once: COMMIT at the ``{``
    (phase ``vargs``); anything else is INVALID there (the header's text is content, back to
    ``text``), as is a header longer than :data:`._base.HEADER_LIMIT`. Cut by the end of the
    output (a ``length`` cut): a call named with the text after the marker (up to ``[ARGS]``,
    stripped), arguments ``{}``, as vLLM 0.33's batch (its stream: ``""``); the marker alone is
    dropped.
``vargs``
    The v11 arguments object streams raw until the scanner sees it close (then ``text``: a
    further ``[TOOL_CALLS]`` starts the next call, the whitespace between calls is dropped). A
    ``[TOOL_CALLS]`` outside strings inside unbalanced arguments ends the call there and starts
    the next one (vLLM's engine transition TOOL_ARGS -> TOOL_NAME).

Rules: text before, between and after calls is content (vLLM's v11 path drops text after a call's
JSON, gh#48975; tito never loses text); ``"arguments"`` written as a JSON string is decoded
(phase ``sargs``, as vLLM's pre-v11 path keeps string arguments); unknown tool names pass through
(as vLLM). Call ids have Mistral's shape (9 alphanumerics, :attr:`id_shape`), deterministic like
every tito id: vLLM draws them at random with that shape because mistral-common rejects any other
id when the call comes back in the conversation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._base import HEADER_LIMIT, WS_LIMIT, Out, Work
from tito.core.parsers.tools._json import Header, match_leads, scan, skip_ws
from tito.core.parsers.tools._objects import ObjectCallParser
from tito.core.parsers.tools.json_list import JsonListParser

MARKER = "[TOOL_CALLS]"
ARGS = "[ARGS]"
_NAME = re.compile(r"[\w.\-]+")
_V11_LIMIT = HEADER_LIMIT + len(MARKER) + len(ARGS)


def parse_v11_header(s: str) -> Header:
    """``[TOOL_CALLS] NAME ([ARGS])? {`` -> COMMIT at the ``{`` (see the module header)."""
    j = match_leads(s, (MARKER,))
    if isinstance(j, Header):
        return j
    j = skip_ws(s, j)
    if j == len(s):
        return Header("need")
    m = _NAME.match(s, j)
    if m is None:
        return Header("invalid", j)
    k = skip_ws(s, m.end())  # (vLLM's engine strips the name: whitespace may follow it)
    if k == len(s):
        return Header("need")
    if s.startswith(ARGS, k):
        k = skip_ws(s, k + len(ARGS))
        if k == len(s):
            return Header("need")
    elif is_proper_prefix(s[k:], (ARGS,)):
        return Header("need")
    if s[k] != "{":
        return Header("invalid", k)
    return Header("commit", k, m.group())


@dataclass(frozen=True)
class MistralParser(JsonListParser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    engine_reads_special_without_tools: ClassVar[bool] = True  # and without them
    name: ClassVar[str] = "mistral"
    forced_calls: ClassVar[str] = "mistral_list"
    first_phase: ClassVar[str] = "text"
    marker: ClassVar[str] = MARKER
    resume_phase: ClassVar[str] = "text"
    string_args: ClassVar[bool] = True
    stop_markers: ClassVar[tuple[str, ...]] = (MARKER,)
    id_shape: ClassVar[str] = "mistral"
    marker_tokens: ClassVar[tuple[str, ...]] = (MARKER, ARGS)

    def _lead(self, st: Work) -> Sequence[str]:
        if st.phase == "ohead":
            return (MARKER,)
        return (",",) if st.phase == "next" else (MARKER, "[")

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, MARKER, "head")

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if st.phase == "head":
            j = skip_ws(s, skip_ws(s, pos) + len(MARKER))
            if j - pos > _V11_LIMIT:  # past every header's bound: content, never held
                # (whichever header follows, the batch makes these characters content too)
                self._content(st, out, s[pos : pos + _V11_LIMIT])
                st.phase = "text"
                return pos + _V11_LIMIT, False
            if j == len(s):
                if final:  # cut right after the marker: vLLM's engine drops it
                    st.phase = "text"
                    return j, False
                return pos, True
            if j < len(s) and s[j] == "{":
                st.phase = "ohead"  # one call object without its list, as vLLM's json.loads
                return pos, False
            if j < len(s) and s[j] != "[":
                return self._v11_head(st, s, pos, out, final)
        return super()._on_head(st, s, pos, out, final)

    def _on_ohead(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return super()._on_head(st, s, pos, out, final)

    def _v11_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        h = parse_v11_header(s[pos : pos + _V11_LIMIT])
        if h.kind == "need":
            rest = len(s) - pos
            if rest <= _V11_LIMIT:
                if not final:
                    return pos, True
                # cut inside the header (a length cut): vLLM's engine names the call with the
                # text after the marker (up to [ARGS]), arguments {} (its stream: "")
                j = skip_ws(s, pos) + len(MARKER)
                k = s.find(ARGS, j)
                self._start_call(st, out, s[j : len(s) if k == -1 else k].strip())
                out.args(st, "{}")
                self._end_call(st)
                st.phase = "text"
                return len(s), False
            h = Header("invalid", min(rest, _V11_LIMIT))
        if h.kind == "invalid":
            self._content(st, out, s[pos : pos + h.pos])
            st.phase = "text"
            return pos + h.pos, False
        self._start_call(st, out, h.name)
        st.phase = "vargs"
        return pos + h.pos, False

    def _on_vargs(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        kind, i = scan(st, s, pos, self._interrupts())
        out.args(st, s[pos:i])
        if kind == "done":
            self._end_call(st)
            st.phase = "text"
            return i, False
        if kind == "more":
            return i, False
        return self._interrupt(st, s, i, out, final, emit=True)

    def _is_open(self, st: Work) -> bool:
        return st.phase in ("args", "sargs", "vargs")


@dataclass(frozen=True)
class MistralListParser(MistralParser):
    """``tool_choice`` required / named on mistral. vLLM's mistral parser has no forced-call
    path of its own (``supports_required_and_named`` is False): it reads them as ``auto``
    (text, then ``[TOOL_CALLS]`` and the calls, whatever their names), and also takes the bare
    list ``[{name, arguments}]`` (or one call object) that render's schema forces, when the
    output starts with it (phases ``bare`` / ``bobj``, after leading whitespace). Recorded:
    ``conformance/goldens/derender_chat_mistral.json``, and ``derender_fuzz``
    ``forced_text_mistral_required``.

    vLLM reads the bare form only when the output holds no ``[TOOL_CALLS]`` at all: with one,
    everything before it is content, leading whitespace included. tito decides as the first
    call's header is read (held, at most :data:`._base.HEADER_LIMIT` characters): a marker
    before that header is complete makes what came before it content, as vLLM; a marker after
    a bare call was made is a documented deviation (a stream cannot take a sent call back:
    ``forced_bare_marker_mistral``). Leading whitespace is held with the header (up to
    :data:`._base.WS_LIMIT` characters) and dropped when the bare call is made (vLLM strips it).
    """

    first_phase: ClassVar[str] = "start"

    def _lead(self, st: Work) -> Sequence[str]:
        if st.phase == "bare":
            return ("[",)
        return () if st.phase == "bobj" else super()._lead(st)

    def _on_start(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = skip_ws(s, pos)
        if i == len(s):
            if final:  # only whitespace: no call and no content (vLLM: content null)
                return i, False
            if i - pos <= WS_LIMIT:
                return pos, True
        elif not final and is_proper_prefix(s[i:], (MARKER,)):
            return pos, True
        st.phase = "text"
        if i < len(s) and not s.startswith(MARKER, i):
            st.phase = {"[": "bare", "{": "bobj"}.get(s[i], "text")
        return pos, False  # (bare: the whitespace is held with the header, see _on_bare)

    def _on_bare(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = skip_ws(s, pos)
        if i - pos > WS_LIMIT:
            pos = i  # (bounded: a longer run is dropped at once, as the bare call drops it)
        lead = self._lead_at(st, s, i)
        limit = HEADER_LIMIT + sum(len(t) for t in lead)
        k = s.find(MARKER, i, i + limit)
        if k != -1 and self._object_header(s[i:k], lead, "").kind in ("need", "invalid"):
            self._content(st, out, s[pos:k])  # the marker comes first: vLLM's auto reading
            st.phase = "text"
            return k, False
        at, hold = ObjectCallParser._on_head(self, st, s, i, out, final)
        return (pos, True) if hold else (at, False)

    _on_bobj = _on_bare
