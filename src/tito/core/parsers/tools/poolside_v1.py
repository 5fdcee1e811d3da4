"""``poolside_v1``: Poolside Laguna tool calls, GLM-4's argument tags with their own typing.

Format (vLLM 0.33's ``PoolsideV1ToolParser``, a GLM-4 parser that streams string values)::

    TEXT <tool_call>NAME
    <arg_key>KEY</arg_key>
    <arg_value>VALUE</arg_value>
    </tool_call> TEXT

Grammar: :mod:`.glm45`'s (phases and shared rules in :mod:`._xml`): each ``<tool_call>`` is one
call; NAME (after optional whitespace) runs to the first newline, ``<arg_key>`` or
``</tool_call>`` and holds no ``<`` (vLLM's ``([^\n<]+?)``; stripped, never empty); KEY runs
to ``</arg_key>`` (stripped), optional whitespace, ``<arg_value>``, VALUE to ``</arg_value>``.
Names are not checked against the request's tools (vLLM's parser does not). A header the end
of the output cuts before its name ended makes no call (its markup is dropped, as vLLM's stream).

Typing (vLLM's ``_is_string_type`` / ``_deserialize``): a parameter whose schema says
``"type": "string"`` keeps its value verbatim (streamed); any other value, with or without a
schema, is stripped and read as JSON, else as a Python literal (``True``, ``(1, 2)``,
``'x'``), else it stays the stripped text. tito reads "string" from the parameter's type
letters (:mod:`._schema`), so an ``enum`` of strings without a ``type`` also streams verbatim
where vLLM would strip and decode it.

vLLM's batch path makes only the text before the first call content; its stream keeps text
between and after calls: tito keeps it (the rule every format here follows). A call whose
``</tool_call>`` is misspelt is dropped by vLLM's batch (its regex needs the closer) and made by
its stream: tito makes it, ended by the next call or the output's end (``call_unclosed``), and
keeps the text before the next call (the misspelt closer and what follows) as content, which
vLLM loses in both paths (its stream reads it as stray text in the call). vLLM's stream keeps
a repeated key's first value, its batch the last: tito writes both (a JSON reader keeps the
last, as vLLM's batch). ``tool_choice`` required / named are read as ``auto`` (vLLM's
``supports_required_and_named = False``: no constraint).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first
from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import Work
from tito.core.parsers.tools._json import skip_ws
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult
from tito.core.parsers.tools.glm45 import Glm45Parser


@dataclass(frozen=True)
class PoolsideV1Parser(Glm45Parser):
    name: ClassVar[str] = "poolside_v1"
    #: vLLM's poolside_v1 is no parser engine: skip_special_tokens off only with tools
    engine_reads_special_without_tools: ClassVar[bool] = False
    structural_tag_model: ClassVar[str | None] = None
    default_tool_strict_level: ClassVar[str] = "auto"
    forced_calls: ClassVar[str] = "native"
    validate_names: ClassVar[bool] = False

    def _name(self, h: str) -> HeadResult:
        i = skip_ws(h, 0)
        hit, marker = find_first(h, ("\n", "<"), i)
        if hit == -1:
            return NEED
        name = h[i:hit].strip()
        if not name:
            return BAD
        if marker == "<" and not h.startswith((self.param_open, self.call_close), hit):
            rest = h[hit:]
            return NEED if self.param_open.startswith(rest) or self.call_close.startswith(rest) \
                else BAD
        return "ok", hit, name, ""

    def _cut_name(self, h: str) -> str:
        return ""  # vLLM's stream sends no name before its end; its batch makes it content

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        return "s" if _schema.letters_of(self._node(st, key)) == "s" else "b"

    def _typed(self, st: Work, text: str) -> str:
        return _schema.dumps(_schema.literal(text.strip()))

