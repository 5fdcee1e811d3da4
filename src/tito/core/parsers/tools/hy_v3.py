"""``hy_v3``: Tencent Hunyuan 3 (Hy3) tool calls: GLM's argument tags in a calls section.

Format (vLLM 0.33's ``HYV3ToolParser``; the markers are special tokens)::

    TEXT <tool_calls>
    <tool_call>NAME<tool_sep>
    <arg_key>KEY</arg_key>
    <arg_value>VALUE</arg_value>
    </tool_call>
    </tool_calls>

Grammar (phases and shared rules in :mod:`._xml`): ``<tool_calls>`` opens a section of
``<tool_call>`` calls (a ``<tool_call>`` outside a section is text: vLLM reads calls only once
``<tool_calls>`` came). NAME runs to ``<tool_sep>`` (stripped, non-empty); KEY runs to
``</arg_key>`` (stripped), optional whitespace, ``<arg_value>``; VALUE is verbatim up to
``</arg_value>``. Unknown tools pass through (vLLM does not check names). Once a section began,
a ``<tool_call>`` is a call wherever it stands, after ``</tool_calls>`` too (``_xml``'s
``calls_after_section``: ``insec`` stays set; a later ``</tool_calls>`` is dropped): vLLM's
batch finds every call in the output with its regexes once ``<tool_calls>`` is in it (its stream
names such a call with the text before it). A ``<tool_call>`` before the first section stays
text (vLLM's stream's; its batch reads it too, which a stream cannot know then).

Typing (vLLM's ``HYV3ToolParser._parse_value``, not the shared ``coerce_to_schema_type``): the
parameter's types without ``null``; a pure ``string`` streams; otherwise, in order: boolean
(``true``/``false``, any case), integer, number (a float when the text holds ``.``/``e``/``E``:
``5.0`` stays ``5.0``), JSON for object / array / unknown types, the text for a string type,
else JSON, then a Python literal (``[1, 'x']``, ``(1, 2)``), then the text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import Work
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_head import HeadResult, up_to
from tito.core.parsers.tools.glm45 import Glm45Parser

SEP = "<tool_sep>"


@dataclass(frozen=True)
class HyV3Parser(XmlCallParser):
    name: ClassVar[str] = "hy_v3"
    section_start: ClassVar[str] = "<tool_calls>"
    section_end: ClassVar[str] = "</tool_calls>"
    call_open: ClassVar[str] = "<tool_call>"
    call_close: ClassVar[str] = "</tool_call>"
    param_open: ClassVar[str] = "<arg_key>"
    param_close: ClassVar[str] = "</arg_value>"
    open_ends_value: ClassVar[bool] = False
    bare_calls: ClassVar[bool] = False
    section_goes_on: ClassVar[bool] = True  # vLLM reads every call of a section
    engine_reads_special: ClassVar[bool] = False  # vLLM's hy_v3 leaves skip_special_tokens
    engine_reads_special_without_tools: ClassVar[bool] = False
    header_markers: ClassVar[tuple[str, ...]] = (SEP, "</arg_key>", "<arg_value>")

    def _name(self, h: str) -> HeadResult:
        return up_to(h, SEP)

    def _cut_name(self, h: str) -> str:
        return ""  # vLLM's regex parser makes no call of a header cut by the end (markup dropped)

    _key = Glm45Parser._key

    #: once a section began, calls are read anywhere after it (module header; hy_v4's strict
    #: batch reads the first section only: False there)
    calls_after_section: ClassVar[bool] = True

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        letters = _schema.letters_of(self._node(st, key))
        if letters is None:
            return "s"
        letters = letters.replace("z", "")
        return "s" if letters == "s" else "b" + letters

    def _typed(self, st: Work, text: str) -> str:
        return _schema.dumps(_hy_value(text, st.vt[1:]))


def _hy_value(text: str, letters: str) -> Any:
    """vLLM's ``HYV3ToolParser._parse_value`` for a value's text and its type letters (no
    ``null``; ``""``: types given, none known)."""
    if "b" in letters and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if "i" in letters:
        try:
            return int(text)
        except ValueError:
            pass
    if "n" in letters:
        try:
            v = float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            pass
        else:
            if not isinstance(v, float) or math.isfinite(v):  # (vLLM writes Infinity: not JSON)
                return v
    if letters.strip("sbin") or not letters:  # object, array or an unknown type
        ok, v = _schema.loads(text)
        if ok:
            return v
    if "s" in letters:
        return text
    return _schema.literal(text)
