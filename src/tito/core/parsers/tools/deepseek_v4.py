"""``deepseek_v4`` / ``deepseek_v41``: DeepSeek-V4 and V4.1 DSML tool calls.

Format (markers are text; ``｜`` is U+FF5C)::

    V4:    TEXT <｜DSML｜tool_calls>
           <｜DSML｜invoke name="NAME">
           <｜DSML｜parameter name="KEY" string="true">VALUE</｜DSML｜parameter>
           </｜DSML｜invoke>
           </｜DSML｜tool_calls> TEXT
    V4.1:  the same with a space after ``｜DSML｜``: ``<｜DSML｜ calls>``, ``<｜DSML｜ invoke name=``,
           ``<｜DSML｜ parameter``, ``</｜DSML｜ parameter>``, ``</｜DSML｜ invoke>``, ``</｜DSML｜ calls>``

Grammar and rules: :mod:`.deepseek_v32`'s (vLLM 0.33's ``DeepSeekV4Parser`` shares V3.2's
argument converter, its lone-wrapper unwrapping and the engine's schema typing); only the
markers differ. vLLM also accepts two misspellings of V4's section start
(``<｜DSML｜toolcalls>``, ``<｜DSML｜tool>``); tito reads only the template's spelling (an invoke
in plain text still starts a call, as in V3.2). vLLM drops the text after a calls block
(its grammar stays between calls); tito keeps it as content, as for every format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools.deepseek_v32 import DeepSeekV32Parser

_DSML = "｜DSML｜"


@dataclass(frozen=True)
class DeepSeekV4Parser(DeepSeekV32Parser):
    name: ClassVar[str] = "deepseek_v4"
    structural_tag_model: ClassVar[str | None] = "deepseek_v4"
    section_start: ClassVar[str] = f"<{_DSML}tool_calls>"
    section_end: ClassVar[str] = f"</{_DSML}tool_calls>"


@dataclass(frozen=True)
class DeepSeekV41Parser(DeepSeekV32Parser):
    name: ClassVar[str] = "deepseek_v41"
    structural_tag_model: ClassVar[str | None] = "deepseek_v4_1"
    section_start: ClassVar[str] = f"<{_DSML} calls>"
    section_end: ClassVar[str] = f"</{_DSML} calls>"
    call_open: ClassVar[str] = f"<{_DSML} invoke name="
    call_close: ClassVar[str] = f"</{_DSML} invoke>"
    param_open: ClassVar[str] = f"<{_DSML} parameter"
    param_close: ClassVar[str] = f"</{_DSML} parameter>"
