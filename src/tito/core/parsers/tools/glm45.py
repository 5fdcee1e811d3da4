"""``glm45`` / ``glm47``: GLM-4.5 / 4.6 / 4.7 tool calls (and ``ling3``: Ling 3, the same).

Format (GLM's template; ``<tool_call>`` and ``</tool_call>`` are tokens)::

    TEXT <tool_call>NAME
    <arg_key>KEY</arg_key>
    <arg_value>VALUE</arg_value>
    </tool_call> TEXT

Grammar (phases and shared rules in :mod:`._xml`): each ``<tool_call>`` is one call (no outer
section). NAME runs to the first ``<arg_key>`` or ``</tool_call>`` (stripped; GLM-4.7 writes no
newline before ``<arg_key>``); ``<arg_key>KEY</arg_key>`` (KEY runs to the
first ``</arg_key>`` that whitespace and ``<arg_value>`` follow, whatever it holds, as vLLM's
regex, and is stripped), optional whitespace,
``<arg_value>VALUE</arg_value>``; VALUE is kept verbatim (no trimming, as vLLM) and typed from the
tool schema (:mod:`._schema`). A call without arguments is ``<tool_call>NAME</tool_call>``.
Tool names are checked against the request's tools, as vLLM does (``validate_tool_names``): a
call of an unknown tool is not a call (vLLM drops it; tito keeps its text as content).
``ling3`` (vLLM's ``Ling3ToolParser``: GLM-4.7's grammar) differs only in render: its tool
strict level defaults to ``auto``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first, is_proper_prefix
from tito.core.parsers.tools._json import skip_ws
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult

KEY_END = "</arg_key>"
VALUE_START = "<arg_value>"


@dataclass(frozen=True)
class Glm45Parser(XmlCallParser):
    name: ClassVar[str] = "glm45"
    structural_tag_model: ClassVar[str | None] = "glm_4_7"
    default_tool_strict_level: ClassVar[str] = "function"
    call_open: ClassVar[str] = "<tool_call>"
    call_close: ClassVar[str] = "</tool_call>"
    param_open: ClassVar[str] = "<arg_key>"
    param_close: ClassVar[str] = "</arg_value>"
    open_ends_value: ClassVar[bool] = False
    validate_names: ClassVar[bool] = True
    header_markers: ClassVar[tuple[str, ...]] = (KEY_END, VALUE_START)

    def _name(self, h: str) -> HeadResult:
        hit, _ = find_first(h, (self.param_open, self.call_close))
        if hit == -1:
            return NEED
        name = h[:hit].strip()
        return ("ok", hit, name, "") if name and "<" not in name else BAD

    def _key(self, h: str) -> HeadResult:
        # KEY runs to the first </arg_key> that whitespace and <arg_value> follow, whatever it
        # holds (vLLM's ``<arg_key>(?P<key>.*?)</arg_key>\s*<arg_value>``, markup included: a
        # pair whose <arg_value> is misspelt becomes part of the next pair's key); wait for it
        # within the header limit and never decide on a partial key (stream == batch). The call's
        # </tool_call> before such a </arg_key> makes it no key (the regex reads one call)
        j = h.find(KEY_END)
        while True:
            if j == -1:
                return BAD if self.call_close in h else NEED
            if self.call_close in h[:j]:
                return BAD
            i = skip_ws(h, j + len(KEY_END))
            if i == len(h) or is_proper_prefix(h[i:], (VALUE_START,)):
                return NEED
            if h.startswith(VALUE_START, i):
                key = h[:j].strip()
                return ("ok", i + len(VALUE_START), key, "") if key else BAD
            j = h.find(KEY_END, j + len(KEY_END))


@dataclass(frozen=True)
class Ling3Parser(Glm45Parser):
    name: ClassVar[str] = "ling3"
    default_tool_strict_level: ClassVar[str] = "auto"
