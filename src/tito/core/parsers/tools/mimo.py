"""``mimo``: Xiaomi MiMo tool calls: Qwen3-Coder's grammar with values kept verbatim.

Format (vLLM's ``MiMoParser``, a ``Qwen3Parser`` with its own argument converter)::

    TEXT <tool_call>
    <function=NAME>
    <parameter=KEY>VALUE</parameter>
    </function>
    </tool_call> TEXT

Everything is :mod:`.qwen3_coder`'s (phases, section, fallback ``<function=``, typing from the
request's tool schema), except that VALUE keeps its newlines: the template writes the value
right after ``>`` and vLLM's converter trims nothing (``_param_value_extender(trim_newlines=
False)``), so ``<parameter=city>\\nParis\\n</parameter>`` is the string ``"\\nParis\\n"``; typed
values (numbers, booleans, JSON) are read as Qwen3-Coder's are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools.qwen3_coder import Qwen3CoderParser


@dataclass(frozen=True)
class MiMoParser(Qwen3CoderParser):
    name: ClassVar[str] = "mimo"
    structural_tag_model: ClassVar[str | None] = "mimo"
    trim_newlines: ClassVar[bool] = False
