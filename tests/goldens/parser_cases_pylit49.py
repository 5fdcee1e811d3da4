"""Parser cases: comments inside a later call's header in the pythonic family (issue 10,
session 49), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/py49_``).
vLLM parses the list with Python's ``ast``, which skips a comment wherever whitespace may
stand, inside a call's header too: ``[f(a=1), g( # c\\n b=2)]`` is two calls (its batch's
``TOOL_CALL_REGEX`` spans a later call inside the first call's ``.*``). tito made a later
header with a comment content (session 48's note). The first call's header stays adjacent,
as the regex requires. A lone ``\\r`` ends a comment's line as ``\\n`` does (Python's
tokenizer; tito's comments ran to a ``\\n``). Names and keywords are Python identifiers of
any script (``città=``, NFKC-normalised), the first call's with an ASCII letter first (the
regex's ``[a-zA-Z]+\\w*``); tito read ASCII ones only.
"""

from __future__ import annotations

from parser_cases_muse import TOOLS
from parser_cases_pylit45 import _BLOCKS

_LISTS = {
    "header_comment_paren": "[get_weather(city='a'), get_time( # c\n zone='b')]",
    "header_comment_name": "[get_weather(city='a'), get_time # c\n (zone='b')]",
    "header_comment_key": "[get_weather(city='a'), get_time(zone # c\n ='b')]",
    "header_comment_value": "[get_weather(city='a'), get_time(zone= # c\n 'b')]",
    "header_comment_closed": "[get_weather(city='a'), get_time( # c\n )]",
    "header_comment_lines": "[get_weather(city='a'), # x\n get_time( # c\n  # d\n zone='b')]",
    # a quote and a bracket inside: vLLM's stream breaks its bracket counting there (one
    # call); its batch and Python read both
    "header_comment_quote": "[get_weather(city='a'), get_time( # it's (\n zone='b')]",
    # a lone carriage return ends a comment (Python's tokenizer; tito read only "\n")
    "comment_cr": "[get_weather(city='a', # c\r days=2), # d\r get_time( # e\r zone='b')]",
    # names and keywords in other scripts (Python identifiers; tito read ASCII ones only): the
    # first call's an ASCII letter first (vLLM's batch regex), the others any identifier
    "ident_kw_first": "[get_weather(città='Roma')]",
    "ident_kw_later": "[get_weather(city='a', größe=2, Ünit='c')]",
    "ident_later_call": "[get_weather(city='a'), get_time(名前='x', _tz=1)]",
    "ident_nfkc": "[get_weather(city='a', ｄａｙｓ=2), get_time(ﬁle=1)]",
    "ident_name": "[get_wéather(city='a')]",
    "ident_kw_first_cjk": "[get_weather(名前='x')]",
    "ident_not_python": "[get_weather(city='a'), get_time(a²=1)]",
}

#: (tool, id, text); olmo3's calls are lines, and vLLM's olmo3 reads no comment between them
#: olmo3's calls are lines: a later line's names and keywords are any identifier
_OLMO3 = {
    "ident_later_lines": "get_weather(città='a')\n_get_time(zone='b')\nget_time(名前='b', _z=1)"
                         "\n名前(zone='b')",
    "ident_first_underscore": "_get_weather(city='a')\nget_time(zone='b')",
}

_CASES: list[tuple[str, str, str]] = [
    *((tool, name, before + text + after)
      for tool, (before, after) in _BLOCKS.items() if tool != "olmo3"
      for name, text in _LISTS.items()),
    *(("olmo3", name, _BLOCKS["olmo3"][0] + text + _BLOCKS["olmo3"][1])
      for name, text in _OLMO3.items()),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL/py49_NAME``."""
    return [{"id": f"{tool}/py49_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
             "text": text} for tool, name, text in _CASES]
