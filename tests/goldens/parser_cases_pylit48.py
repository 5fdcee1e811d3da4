"""Parser cases: comments between the pythonic family's calls (issue 10, session 48), as fixed
cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/py48_``).
vLLM parses the list with Python's ``ast``, which skips a comment wherever whitespace may stand:
between the calls (after a call's ``)``, after the ``,``, before the list's ``]``) as inside
them. tito ended the list at such a comment (the rest content; a documented deviation of
session 45). vLLM's batch path first matches its ``TOOL_CALL_REGEX``, whose ``.*`` spans a
comment only inside a call with arguments (``[f(), # c\\n g()]`` and a comment after the last
call are content there, lfm2 excepted); its stream path closes the brackets and quotes it
counts (a quote or bracket inside a comment breaks it): tito reads what Python reads. The same
holds for whitespace inside a later call's header (``, get (a = 1)``): vLLM's regex spans it
inside the first call's ``.*`` and its stream reads Python; the first call's header stays
adjacent, as the regex requires.
"""

from __future__ import annotations

from parser_cases_muse import TOOLS
from parser_cases_pylit45 import _BLOCKS

_LISTS = {
    "comma_comment": "[get_weather(city='a'), # c\n get_time(zone='b')]",
    "comment_comma": "[get_weather(city='a') # c\n, get_time(zone='b')]",
    "comment_lines": "[get_weather(city='a'),# c\n  # d, e\nget_time(zone='b'), # f\n"
                     "get_weather(city='g')]",
    "comment_quote": "[get_weather(city='a'), # it's [x) \"\n get_time(zone='b')]",
    "comment_no_args": "[get_weather(), # c\n get_time()]",
    "comment_trailing_comma": "[get_weather(city='a'), # c\n]",
    "comment_after_last": "[get_weather(city='a'), get_time(zone='b') # c\n]",
    "comment_in_and_between": "[get_weather(city='a', # x\n days=2) # y\n, # z\n get_time()]",
    # whitespace inside a later call's header, as Python reads it (parser fuzz seed 158,
    # ``fuzz/pythonic/0``: ``, \nget_weather(\noptions={}...``; tito made it content)
    "later_ws_paren": "[get_weather(city='a'), get_time( zone='b')]",
    "later_ws_name": "[get_weather(city='a'), get_time (zone='b'), get_weather(\ncity = 'c')]",
    "later_ws_closed": "[get_weather(city='a'), get_time( )]",
    "later_ws_first_no_args": "[get_weather(), get_time( zone='b')]",
}

#: (tool, id, text); olmo3's calls are lines, and vLLM's olmo3 reads no comment between them
_CASES: list[tuple[str, str, str]] = [
    *((tool, name, before + text + after)
      for tool, (before, after) in _BLOCKS.items() if tool != "olmo3"
      for name, text in _LISTS.items()),
    ("olmo3", "comment_line", _BLOCKS["olmo3"][0] + "get_weather(city='a')\n# c\n"
     "get_time(zone='b')" + _BLOCKS["olmo3"][1]),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL/py48_NAME``."""
    return [{"id": f"{tool}/py48_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
             "text": text} for tool, name, text in _CASES]
