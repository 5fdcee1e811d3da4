"""Parser cases: holds past ``buf``'s bound after a spelt parameter opener (session 51, helper
hpar; issue 10).

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/hp51_``).
Found by the whitespace sweep (``parser_ws_sweep.py 157 --pairs``, seed_oss): with spelt
``<\\s*parameter\\s*=`` tags (session 50) a stream's held text could pass ``buf``'s bound
(``HEADER_LIMIT + LEAD_LIMIT``, 264): stray text in a call held its 200-character window and a
``<`` with 64 newlines after it, and a key header was held with its spelt opener (up to 207
characters) before it; the state failed to load (a StateError, a 400) where the batch read the
call. One token per delta reaches both holds.
"""

from __future__ import annotations

from parser_cases_muse import TOOLS

_Q_FORMATS = {"qwen3_coder": ("<tool_call>", "</tool_call>"),
              "qwen3_xml": ("<tool_call>", "</tool_call>"),
              "mimo": ("<tool_call>", "</tool_call>"),
              "seed_oss": ("<seed:tool_call>", "</seed:tool_call>")}
_KEY = "k" * 150
#: a spelt opener of 131 characters and a 150-character key: held together, 281 > 264
_Q_BODIES = {
    "long_open_long_key": "<" + " " * 60 + "parameter" + "\n" * 60 + "=" + _KEY + ">\nParis\n"
                          "</parameter>",
    "stray_lt_newlines": "a" + " " * 200 + "<" + "\n" * 64 + "x<parameter=city>\nParis\n"
                         "</parameter>",
}
_M_BODIES = {
    "long_open_long_key": "<" + " " * 60 + "parameter" + "\n" * 60 + "name" + " " * 60 + '="'
                          + _KEY + '">Paris</parameter>',
    "stray_lt_newlines": "a" + " " * 200 + "<" + "\n" * 64 + 'x<parameter name="city">Paris'
                         "</parameter>",
}


def cases() -> list[dict]:
    """The cases, ids ``TOOL/hp51_NAME``."""
    out = []
    for tool, (start, end) in _Q_FORMATS.items():
        out += [{"id": f"{tool}/hp51_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
                 "text": f"{start}\n<function=get_weather>\n{body}\n</function>\n{end}"}
                for name, body in _Q_BODIES.items()]
    out += [{"id": f"minimax_m2/hp51_{name}", "tool": "minimax_m2", "reasoning": None,
             "tools": TOOLS, "text": '<minimax:tool_call>\n<invoke name="get_weather">\n'
             + body + "\n</invoke>\n</minimax:tool_call>"} for name, body in _M_BODIES.items()]
    return out
