"""``olmo3``: OLMo 3 tool calls, pythonic calls one per line in ``<function_calls>``.

Format (vLLM 0.33's ``Olmo3PythonicToolParser``)::

    <function_calls>
    get_weather(city="Paris", days=3)
    get_time()
    </function_calls>

Grammar: :mod:`.pythonic`'s calls and literals (``null`` / ``true`` / ``false`` too), without the
list's brackets: ``<function_calls>`` must open the output (vLLM's stream reads calls only then;
its batch also takes an output that is nothing but calls), then calls separated by whitespace
(a newline), then ``</function_calls>`` (dropped); anything else ends the calls and is content,
as is the text after the closing tag (vLLM's batch drops it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools.pythonic import PythonicParser
from tito.core.parsers.tools.pythonic_scalars import PY_IDENT

START = "<function_calls>"
END = "</function_calls>"


@dataclass(frozen=True)
class Olmo3Parser(PythonicParser):
    name: ClassVar[str] = "olmo3"
    optional_lead: ClassVar[str] = START
    list_lead: ClassVar[str] = ""
    next_lead: ClassVar[str] = ""
    marker_tokens: ClassVar[tuple[str, ...]] = (START, END)

    def _on_start(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if not final and is_proper_prefix(s[pos:], (START,)):
            return pos, True
        st.phase = "head" if s.startswith(START, pos) else "rest"
        return pos, False

    def _on_psep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, run, hold = self._structural_ws(st, s, pos, out, final)
        if hold:
            return pos, True
        if s.startswith(END, i):
            st.phase = self.closed_phase
            return i + len(END), False
        if not final and is_proper_prefix(s[i:], (END,)):
            return pos, True
        if run and PY_IDENT.match(s, i):  # the next call, on its own line (any identifier)
            st.phase = "next"
            return i, False
        self._content(st, out, run)
        if i < len(s):
            st.phase = "rest"
        return i, False
