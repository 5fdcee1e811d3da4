"""Parser cases: the pythonic family's Python literals that vLLM 0.33 reads (issue 10,
session 45), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/py45_``).
vLLM's ``tool_parsers.utils.get_parameter_value`` reads ``ast`` nodes: a set is a list (source
order), a placeholder-free f-string its text, string prefixes (``r``, ``u``, ``f``) and
adjacent literals as Python does, a unary sign on a number, a parenthesised value as the value;
a dict key only as an ``ast.Constant`` (no signed number). tito ended the call at each of these
(found by hand, session 44).
"""

from __future__ import annotations

from parser_cases_fuzz44 import _BLOCKS as _LIST_BLOCKS
from parser_cases_muse import TOOLS

#: the family's block around a call list (tool -> (before, after)); olmo3's calls are lines
_BLOCKS = {**_LIST_BLOCKS, "olmo3": ("<function_calls>\n", "\n</function_calls>")}

#: name -> the call list, as the pythonic format writes it
_LISTS = {
    "set": "[get_weather(tags={'a', 'b', 'a'}, days=2)]",
    "set_mixed": "[get_weather(tags={1, 2.5, None, True, 'x',}, more={(1, 2), 'z'})]",
    "set_nested": "[get_weather(options={'k': {'x'}, 'n': [{1}, {}]}), get_time()]",
    "set_first_container": "[get_weather(tags={[1, 2], (3,), {'a': {4}}})]",
    "dict_bare_keys": "[get_weather(tags={None: 1, True: 2, 1.5: 3, 0x1F: 4, 'k': {5}})]",
    "fstring": "[get_weather(city=f'Paris', state=F\"\", unit=f'{{c}}')]",
    "raw": "[get_weather(city=r'a\\d', state=R\"a\\\"b\", unit=rf'\\{{x}}')]",
    "prefix_u": "[get_weather(city=u'x', state=U\"\"\"y\"\"\")]",
    "adjacent": "[get_weather(city='a' \"b\" '''c''', state=('d' r'\\e'), unit={'k' 'l': 'm'})]",
    "adjacent_set": "[get_weather(tags={'a' 'b', 'c'}), get_time(zone='x''y')]",
    "signs": "[get_weather(days=- 1, lat=--2.5, lon=+ -3, n=-0x1F, z=+.5)]",
    "parenthesised": "[get_weather(days=(1), city=('x'), unit=(None), tags=(1, ), t=())]",
    "bytes": "[get_weather(days=1, city=b'x')]",
    "signed_key": "[get_weather(days=1, tags={-1: 'x'})]",
    "fstring_field": "[get_weather(days=1, city=f'a{x}')]",
    "comment": "[get_weather(city='Paris',  # a city, 'quoted'\n    "
               "tags=['a' # one\n, 'b'],\n    days=3)]",
}
#: vLLM's lfm2 reads adjacent literals only where the block parses as written; tito's lfm2
#: takes a quote before another quote as the string's text (nested quotes: docs/conformance.md)
_NOT_LFM2 = {"adjacent", "adjacent_set"}
#: olmo3 calls without a list (no lead, one per line): the lists tito and vLLM read alike there
_OLMO3 = {"set", "fstring", "raw", "adjacent", "signs", "parenthesised"}

#: (tool, id, text)
_CASES: list[tuple[str, str, str]] = [
    *((tool, name, before + text + after)
      for tool, (before, after) in _BLOCKS.items() if tool != "olmo3"
      for name, text in _LISTS.items() if not (tool == "lfm2" and name in _NOT_LFM2)),
    *(("olmo3", name, _BLOCKS["olmo3"][0] + text[1:-1] + _BLOCKS["olmo3"][1])
      for name, text in _LISTS.items() if name in _OLMO3),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL/py45_NAME``."""
    return [{"id": f"{tool}/py45_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
             "text": text} for tool, name, text in _CASES]
