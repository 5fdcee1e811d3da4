"""``seed_oss``: ByteDance Seed-OSS tool calls: Qwen3-Coder's grammar in ``<seed:tool_call>``.

Format::

    TEXT <seed:tool_call>
    <function=NAME>
    <parameter=KEY>VALUE</parameter>
    </function>
    </seed:tool_call> TEXT

Everything inside the section is :mod:`.qwen3_coder`'s (same phases, typing and rules, as
vLLM's ``SeedOssParser`` inherits ``Qwen3Parser``); only the section markers differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools.qwen3_coder import Qwen3CoderParser


@dataclass(frozen=True)
class SeedOssParser(Qwen3CoderParser):
    name: ClassVar[str] = "seed_oss"
    #: vLLM's seed_oss parser has no structural tag (unlike qwen3_coder's)
    structural_tag_model: ClassVar[str | None] = None
    section_start: ClassVar[str] = "<seed:tool_call>"
    section_end: ClassVar[str] = "</seed:tool_call>"
