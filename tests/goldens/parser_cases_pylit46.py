"""Parser cases: a unary sign over a parenthesised number in the pythonic family (issue 10,
session 46), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/py46_``).
vLLM's ``get_parameter_value`` reads ``-(1)`` as a unary operation over a numeric operand,
whatever parentheses group it (``-(-(2.5))``); tito ended the call at the ``(`` (a documented
deviation of session 45).
"""

from __future__ import annotations

from parser_cases_muse import TOOLS
from parser_cases_pylit45 import _BLOCKS

_LISTS = {
    "signed_paren": "[get_weather(days=-(1), lat=- ( -2.5e-3 ) , lon=-((3)), n=(-(1)), "
                    "tags=[+(4)], options={1: -(5)}, z=-(0x1F))]",
    "signed_paren_bool": "[get_weather(days=1, n=-(True)), get_time()]",
    "signed_paren_tuple": "[get_weather(days=1, n=-(1, 2)), get_time()]",
}
#: olmo3 writes one call a line, without the list's brackets
_OLMO3 = {"signed_paren"}

#: (tool, id, text)
_CASES: list[tuple[str, str, str]] = [
    *((tool, name, before + text + after)
      for tool, (before, after) in _BLOCKS.items() if tool != "olmo3"
      for name, text in _LISTS.items()),
    *(("olmo3", name, _BLOCKS["olmo3"][0] + text[1:-1] + _BLOCKS["olmo3"][1])
      for name, text in _LISTS.items() if name in _OLMO3),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL/py46_NAME``."""
    return [{"id": f"{tool}/py46_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
             "text": text} for tool, name, text in _CASES]
