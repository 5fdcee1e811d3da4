"""``tool_choice`` modes that do not depend on the model's tool format: ``none`` and named.

``none`` (phase ``none``)
    No parsing at all: every character is content, markers included, nothing held back
    (vLLM: ``tool_choice="none"`` never extracts calls).
named function (phase ``named``)
    Structured decoding forces the whole output to be the arguments JSON of that function, so the
    output is streamed verbatim as the arguments of call 0 with the given name (vLLM does the same,
    batch and stream). The name goes out with the first non-whitespace character; leading ASCII
    whitespace is held (up to :data:`WS_LIMIT` characters, then the call starts anyway). An output
    that is only whitespace makes no call and no content (vLLM: no call, ``content`` null).

``required`` is a JSON list of calls: :mod:`.json_list`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import ASCII_WS
from tito.core.parsers.tools._base import WS_LIMIT, Out, ToolParser, Work


@dataclass(frozen=True)
class PassthroughParser(ToolParser):
    """``tool_choice="none"`` (or no tool parser): all text is content."""

    name: ClassVar[str] = "none"
    first_phase: ClassVar[str] = "none"

    def _on_none(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if pos < len(s):
            out.content.append(s[pos:])
        return len(s), False

    def _finish(self, st: Work, out: Out) -> None:
        pass


@dataclass(frozen=True)
class NamedParser(ToolParser):
    """A named ``tool_choice``: the output is the arguments of ``function`` (call 0)."""

    name: ClassVar[str] = "named"
    first_phase: ClassVar[str] = "named"
    function: str = ""

    def _on_named(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if pos >= len(s):
            return pos, False
        if st.name_sent:
            out.args(st, s[pos:])
            return len(s), False
        body = s[pos:].lstrip(ASCII_WS)
        held = st.ws + s[pos : len(s) - len(body)]
        if not body and len(held) <= WS_LIMIT:
            st.ws = held
            return len(s), False
        self._start_call(st, out, self.function)
        out.args(st, held + body)
        return len(s), False

    def _finish(self, st: Work, out: Out) -> None:
        st.ws = ""
        st.truncated = False
