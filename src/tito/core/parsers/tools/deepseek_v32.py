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
(vLLM's ``_dsml_arg_converter``); then the tool schema types it, nested objects and arrays
included (:mod:`._schema`, vLLM 0.33's ``_fix_arg_types``).

Lone wrapper (vLLM's ``_unwrap_wrapper_args``): a call whose only parameter is ``arguments`` or
``input``, when the tool has properties and that name is not one of them, holding an object (or a
string holding one) whose keys are all the tool's properties, has that object, schema-typed, as
its arguments. Such a first parameter is held (:data:`._base.VALUE_LIMIT` characters, in ``val``;
``vt`` is ``w`` + the key's initial + ``s``/``j`` for ``string="true"``/not) until the next
marker shows whether it is alone (``_settle``; the end of the output counts as the call's end);
a longer value stays wrapped (tito never buffers more).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import VALUE_LIMIT, Out, Work
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult, quoted_attr

_DSML = "｜DSML｜"
_ATTR = re.compile(r'\s+name="([^"]+)"(?:\s+string="([^"]*)")?\s*>')
#: a key header that more text may still make an ``_ATTR`` match: its key's quote not closed
#: yet (vLLM's ``[^"]+`` reads ``>``, ``<`` and newlines too: ``name="a>b<c">`` is ``a>b<c``),
#: or a cut of ``name=``, of the closing ``"`` and its spaces, or of ``string="..."``
_ATTR_PREFIX = re.compile(
    r'\s*$'
    r'|\s+(?:n(?:a(?:m(?:e(?:=(?:"[^"]*)?)?)?)?)?)?$'
    r'|\s+name="[^"]+"\s+(?:s(?:t(?:r(?:i(?:n(?:g(?:=(?:"[^"]*(?:"\s*)?)?)?)?)?)?)?)?)?$'
    r'|\s+name="[^"]+"$'
)
_WRAPPERS = ("arguments", "input")


@dataclass(frozen=True)
class DeepSeekV32Parser(XmlCallParser):
    name: ClassVar[str] = "deepseek_v32"
    structural_tag_model: ClassVar[str | None] = "deepseek_v3_2"
    section_start: ClassVar[str] = f"<{_DSML}function_calls>"
    section_end: ClassVar[str] = f"</{_DSML}function_calls>"
    call_open: ClassVar[str] = f"<{_DSML}invoke name="
    call_close: ClassVar[str] = f"</{_DSML}invoke>"
    param_open: ClassVar[str] = f"<{_DSML}parameter"
    param_close: ClassVar[str] = f"</{_DSML}parameter>"

    def _name(self, h: str) -> HeadResult:
        # vLLM's call prefix is ``name="``: a name not in double quotes right after the ``=``
        # (``name='f'``, ``name=f``, ``name=="f"``) is no call (parser fuzz seed 169)
        if h[:1] != '"':
            return NEED if not h else BAD
        return quoted_attr(h, 0, ">")

    def _cut_name(self, h: str) -> str:
        # vLLM's name starts after ``name="`` (its closing ``"`` too is name until ``>`` comes)
        return h[1:].strip() if h[:1] == '"' else ""

    def _key(self, h: str) -> HeadResult:
        m = _ATTR.match(h)
        if m is None:  # (undecided only while more text can still make it match: a stream
            # cut inside ``name="a>b`` waits for its quote, as the batch reads it; session 50)
            return NEED if _ATTR_PREFIX.match(h) else BAD
        return "ok", m.end(), m.group(1), m.group(2) or ""

    # -- typing: JSON values follow the schema's nested nodes ------------------------------------

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        if attr == "true":
            return super()._value_code(st, key, attr)
        params = self._params(st)
        if params.get(key) is None:
            return "j-"
        return "j#" + str(list(params).index(key))  # the node is looked up again at the end

    def _params(self, st: Work) -> Mapping[str, Any]:
        return (self.tool_params.get(st.fn) or {}) if self.tool_params else {}

    def _typed(self, st: Work, text: str) -> str:
        if st.vt[:1] != "j":
            return super()._typed(st, text)
        params = self._params(st)
        n = None if st.vt[1:] == "-" else params[list(params)[int(st.vt[2:])]]
        ok, value = _schema.loads(text)
        if not ok:
            return _schema.dumps(
                text if n is None else _schema.coerce(text, _schema.letters_of(n) or ""))
        return _schema.dumps(_schema.coerce_parsed(value, n))

    # -- the lone wrapper ------------------------------------------------------------------------

    def _open_value(self, st: Work, out: Out, key: str, attr: str) -> None:
        params = self._params(st)
        if st.args_sent == 0 and key in _WRAPPERS and params and key not in params:
            st.vt = "w" + key[0] + ("s" if attr == "true" else "j")
            st.val = ""
            st.vs = False
            st.phase = "vbuf"
            return
        super()._open_value(st, out, key, attr)

    def _feed(self, st: Work, out: Out, text: str) -> None:
        if st.vt[:1] == "w" and len(st.val) + len(text) > VALUE_LIMIT:
            out.args(st, "{" + json.dumps(self._wrapper_key(st)) + ": ")  # too long: stays wrapped
            st.vt = "bs" if st.vt[2] == "s" else "j-"
        super()._feed(st, out, text)

    def _end_value(self, st: Work, out: Out) -> None:
        if st.vt[:1] != "w":  # a wrapper waits for ``_settle``
            super()._end_value(st, out)

    def _settle(self, st: Work, out: Out, marker: str | None) -> None:
        if st.vt[:1] != "w":
            return
        key, raw, string = self._wrapper_key(st), st.val, st.vt[2] == "s"
        st.val = st.vt = ""
        st.vs = False
        value: Any = raw
        if not string:
            ok, parsed = _schema.loads(raw)
            value = parsed if ok else raw
        if marker != self.param_open:  # the call ends here: the wrapper is its only parameter
            ok, inner = _schema.loads(value) if isinstance(value, str) else (True, value)
            params = self._params(st)
            if ok and isinstance(inner, dict) and set(inner) <= set(params):
                out.args(st, _schema.dumps(_schema.coerce_args(inner, params))[:-1])  # "}" follows
                return
        out.args(st, "{" + json.dumps(key) + ": " + _schema.dumps(value))

    @staticmethod
    def _wrapper_key(st: Work) -> str:
        return "arguments" if st.vt[1] == "a" else "input"
