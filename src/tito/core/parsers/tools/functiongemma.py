"""``functiongemma``: FunctionGemma 270M's calls, gemma4's call syntax with ``<escape>`` quotes.

A module of its own so :mod:`.gemma4` stays one format; its phases and rules are gemma4's but
for the differences the class states (vLLM's ``FunctionGemmaToolParser`` is a regex parser, not
gemma4's engine).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Work
from tito.core.parsers.tools.gemma4 import Gemma4Parser


@dataclass(frozen=True)
class FunctionGemmaParser(Gemma4Parser):
    """``functiongemma``: FunctionGemma 270M, the same call syntax with ``<escape>`` quotes
    (vLLM's ``FunctionGemmaToolParser``: ``<start_function_call>call:NAME{KEY:<escape>VALUE
    <escape>}<end_function_call>``). Its values are not typed by the schema: each is JSON when
    its text parses as JSON, else the text (vLLM reads only quoted values; a bare one is read
    the same way here)."""

    name: ClassVar[str] = "functiongemma"
    call_open: ClassVar[str] = "<start_function_call>"
    call_close: ClassVar[str] = "<end_function_call>"
    param_close: ClassVar[str] = "<escape>"
    engine_reads_special_without_tools: ClassVar[bool] = False
    forced_calls: ClassVar[str] = "json_list"
    absorb_stray_end: ClassVar[bool] = False  # vLLM's regex leaves it in the content
    drops_call_closer: ClassVar[bool] = False  # (vLLM's regex needs the closing <escape>)
    cut_calls: ClassVar[bool] = False  # a cut header is content (vLLM's regex needs the ``{``)

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        return "b"  # no known type: JSON when it parses, else the text (vLLM's json.loads)
