"""``functiongemma``: FunctionGemma 270M's calls, gemma4's call syntax with ``<escape>`` quotes.

A module of its own so :mod:`.gemma4` stays one format; its phases and rules are gemma4's but
for the differences the class states (vLLM's ``FunctionGemmaToolParser`` is a regex parser, not
gemma4's engine):

- the header is exactly ``call:NAME{`` right after ``<start_function_call>``, NAME a run of word
  characters (vLLM's ``call:(\\w+)\\{``): anything else (a space or ``>`` before ``call:``, a
  missing ``:``, ``call:NAME<end_function_call>``) is no call and its text is content (vLLM
  drops it, batch and stream: ``text_kept``);
- a KEY is the run of word characters before its ``:`` (vLLM's ``(\\w+):<escape>`` found
  anywhere in the arguments): text before it, the rest of a broken value, is dropped;
- a value that starts with ``<`` but not ``<escape>`` (a misspelt opener, ``<escae>``) is no
  member: its key and its text up to the next ``<escape>`` (the value's own closer) are dropped
  (phase ``skip``; the call's end or the next call ends it too), as vLLM's regex skips the key
  and finds the next ``KEY:<escape>``. A bare value (FunctionGemma's unquoted numbers, kept
  where vLLM drops them: ``value_kept``) never starts with ``<``, so it does not run on
  through the misspelt value to its own ``}`` and lose the rest of the call. The key is held
  until that first character comes, so it is looked for at most :data:`_LOOK` characters past
  the member's start (a 200-character key and 45 spaces): further on, the value is gemma4's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix, scan_to
from tito.core.parsers.tools._base import HEADER_LIMIT, LEAD_LIMIT, WS_LIMIT, Out, Work
from tito.core.parsers.tools.gemma4 import _CLOSERS, _SKIP, _VALUE_WS, Gemma4Parser

_HEADER = re.compile(r"call:(\w+)\{")
_HEADER_PART = re.compile(r"(?:c(?:a(?:l(?:l(?::\w*)?)?)?)?)?")  # what more text may complete
_WORD_TAIL = re.compile(r"\w+\Z")
ESCAPE = "<escape>"
_END = "<end_function_call>"
#: how far past a member's start (its key, ``:`` and whitespace) its value's first character is
#: looked for: the hold, this and a marker's proper prefix, fits ``ToolState.buf``
_LOOK = HEADER_LIMIT + LEAD_LIMIT - len(_END)


@dataclass(frozen=True)
class FunctionGemmaParser(Gemma4Parser):
    """``functiongemma``: FunctionGemma 270M, the same call syntax with ``<escape>`` quotes
    (vLLM's ``FunctionGemmaToolParser``: ``<start_function_call>call:NAME{KEY:<escape>VALUE
    <escape>}<end_function_call>``). Its values are not typed by the schema: each is JSON when
    its text parses as JSON, else the text (vLLM reads only quoted values; a bare one is read
    the same way here)."""

    name: ClassVar[str] = "functiongemma"
    call_open: ClassVar[str] = "<start_function_call>"
    call_close: ClassVar[str] = _END
    param_close: ClassVar[str] = ESCAPE
    engine_reads_special_without_tools: ClassVar[bool] = False
    forced_calls: ClassVar[str] = "json_list"
    absorb_stray_end: ClassVar[bool] = False  # vLLM's regex leaves it in the content
    drops_call_closer: ClassVar[bool] = False  # (vLLM's regex needs the closing <escape>)
    cut_calls: ClassVar[bool] = False  # a cut header is content (vLLM's regex needs the ``{``)

    def _on_name(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """The header, vLLM's ``call:(\\w+)\\{`` and nothing else (gemma4's engine takes any
        text up to a ``:`` and a ``(`` form): not one, the marker is content."""
        i = pos + len(self.call_open)
        h = s[i : i + HEADER_LIMIT + 1]
        m = _HEADER.match(h)
        if m:
            name = m.group(1)
            self._start_call(st, out, name)
            st.fn = name
            st.key = st.tok = ""
            out.args(st, "{")
            st.stack = "O"
            st.phase = "args"
            return i + m.end(), False
        if not final and len(h) <= HEADER_LIMIT and _HEADER_PART.fullmatch(h):
            return pos, True
        self._content(st, out, self.call_open)
        st.phase = "text"
        return i, False

    def _key(self, raw: str) -> str:
        """The word before the ``:``, as vLLM's ``(\\w+):<escape>`` finds it (the text before it
        is what was left of a broken value)."""
        key = super()._key(raw)
        m = _WORD_TAIL.search(key)
        return m.group() if m else key

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        return "b"  # no known type: JSON when it parses, else the text (vLLM's json.loads)

    def _on_args(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """A member whose value opens with a misspelt ``<escape>`` is skipped whole (module
        header); anything else is gemma4's. The key is held until its value's first character
        shows which (a key, its ``:``, whitespace and a marker's prefix: at most :data:`_LOOK`
        characters and a prefix, within ``ToolState.buf``'s bound; the separators before the key
        are consumed, not held: a long run of them held with the key was a StateError, session
        42; a value further away is gemma4's)."""
        n, i = len(s), pos
        while i < n and s[i] in _SKIP:
            i += 1
        if i == n or st.stack[-1:] not in ("O", "o") or s[i] in _CLOSERS:
            return super()._on_args(st, s, pos, out, final)
        colon = s.find(":", i, i + HEADER_LIMIT + 1)
        end_at = s.find(self.call_close, i, colon)
        if colon == -1 or end_at != -1:
            return super()._on_args(st, s, pos, out, final)
        j = colon + 1
        while j < n and s[j] in _VALUE_WS and j - colon <= WS_LIMIT:
            j += 1
        if j - i > _LOOK:
            return super()._on_args(st, s, pos, out, final)
        if j == n and not final:
            return i, True  # the value's first character decides
        if j < n and s[j] == "<" and not s.startswith(ESCAPE, j):
            if not final and is_proper_prefix(s[j:], (ESCAPE, self.call_close)):
                return i, True
            st.phase = "skip"
            return j, False
        return super()._on_args(st, s, pos, out, final)

    def _on_skip(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """A value opened by a misspelt ``<escape>``: dropped up to the next ``<escape>`` (then
        the next member), or the call's end (or the next call's start), which ends the call."""
        hit, marker, stop = scan_to(s, (ESCAPE, self.call_close, self.call_open), pos, final)
        if hit == -1:
            return stop, stop < len(s)
        if marker == ESCAPE:
            st.phase = "args"
            return hit + len(ESCAPE), False
        self._close_all(st, out)
        st.phase = "text"
        return hit + (len(marker) if marker == self.call_close else 0), False

    def _is_open(self, st: Work) -> bool:
        return st.phase == "skip" or super()._is_open(st)
