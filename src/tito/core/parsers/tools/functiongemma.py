"""``functiongemma``: FunctionGemma 270M's calls, gemma4's call syntax with ``<escape>`` quotes.

A module of its own so :mod:`.gemma4` stays one format; its phases and rules are gemma4's but
for the differences the class states (vLLM's ``FunctionGemmaToolParser`` is a regex parser, not
gemma4's engine):

- the header is exactly ``call:NAME{`` right after ``<start_function_call>``, NAME a run of word
  characters (vLLM's ``call:(\\w+)\\{``): anything else (a space or ``>`` before ``call:``, a
  missing ``:``, ``call:NAME<end_function_call>``) is no call and its text is content (vLLM
  drops it, batch and stream: ``text_kept``);
- a KEY is the run of word characters before its ``:`` (vLLM's ``(\\w+):<escape>`` found
  anywhere in the arguments): text before it, the rest of a broken value, is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import HEADER_LIMIT, Out, Work
from tito.core.parsers.tools.gemma4 import Gemma4Parser

_HEADER = re.compile(r"call:(\w+)\{")
_HEADER_PART = re.compile(r"(?:c(?:a(?:l(?:l(?::\w*)?)?)?)?)?")  # what more text may complete
_WORD_TAIL = re.compile(r"\w+\Z")


@dataclass(frozen=True)
class FunctionGemmaParser(Gemma4Parser):
    """``functiongemma``: FunctionGemma 270M, the same call syntax with ``<escape>`` quotes
    (vLLM's ``FunctionGemmaToolParser``: ``<start_function_call>call:NAME{KEY:<escape>VALUE
    <escape>}<end_function_call>``). Its values are not typed by the schema: each is JSON when
    its text parses as JSON, else the text (vLLM reads only quoted values; a bare one is read
    the same way here)."""

    name: ClassVar[str] = "functiongemma"
    call_open: ClassVar[str] = "<start_function_call>"
    call_close: ClassVar[str] = "<end_function_call>"
    param_close: ClassVar[str] = "<escape>"
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
