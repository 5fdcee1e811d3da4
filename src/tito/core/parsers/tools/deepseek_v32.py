"""``deepseek_v32``: DeepSeek-V3.2 DSML tool calls.

Format (markers are text; ``｜`` is U+FF5C)::

    TEXT <｜DSML｜function_calls>
    <｜DSML｜invoke name="NAME">
    <｜DSML｜parameter name="KEY" string="true">VALUE</｜DSML｜parameter>
    <｜DSML｜parameter name="N" string="false">5</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls> TEXT

Grammar (phases and shared rules in :mod:`._xml`): ``<｜DSML｜function_calls>`` opens a section of
``<｜DSML｜invoke name="NAME">...</｜DSML｜invoke>`` calls (an invoke in plain text also starts
one, as vLLM). A parameter header is ``name="KEY"``, optionally ``string="..."``, then ``>``;
VALUE runs verbatim to ``</｜DSML｜parameter>`` or the next parameter. ``string="true"``: VALUE is
a string; otherwise (``false`` or absent) it is parsed as JSON when it can be, else a string
(vLLM's ``_dsml_arg_converter``); then the tool schema types it (:mod:`._schema`, nested schemas
not followed). vLLM's unwrapping of a lone ``arguments``/``input`` wrapper parameter is not done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import Work
from tito.core.parsers.tools._xml import BAD, NEED, HeadResult, XmlCallParser, quoted_attr

_DSML = "｜DSML｜"
_ATTR = re.compile(r'\s+name="([^"]+)"(?:\s+string="([^"]*)")?\s*>')


@dataclass(frozen=True)
class DeepSeekV32Parser(XmlCallParser):
    name: ClassVar[str] = "deepseek_v32"
    section_start: ClassVar[str] = f"<{_DSML}function_calls>"
    section_end: ClassVar[str] = f"</{_DSML}function_calls>"
    call_open: ClassVar[str] = f"<{_DSML}invoke name="
    call_close: ClassVar[str] = f"</{_DSML}invoke>"
    param_open: ClassVar[str] = f"<{_DSML}parameter"
    param_close: ClassVar[str] = f"</{_DSML}parameter>"

    def _name(self, h: str) -> HeadResult:
        return quoted_attr(h, 0, ">")

    def _key(self, h: str) -> HeadResult:
        m = _ATTR.match(h)
        if m is None:
            return NEED if ">" not in h else BAD
        return "ok", m.end(), m.group(1), m.group(2) or ""

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        if attr == "true":
            return super()._value_code(st, key, attr)
        code = self.tool_params.get(st.fn, {}).get(key) if self.tool_params else None
        return "j" + ("-" if code is None else code)

    def _typed(self, st: Work, text: str) -> str:
        if st.vt[:1] != "j":
            return super()._typed(st, text)
        ok, value = _schema.loads(text)
        schema = None if st.vt[1:] == "-" else st.vt[1:]
        if not ok:
            return _schema.dumps(text if schema is None else _schema.coerce(text, schema))
        return _schema.dumps(_schema.coerce_parsed(value, schema))
