"""Parser cases: what session 49 settled (issue 10), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz49_``).
"""

from __future__ import annotations

from parser_cases_muse import TOOLS

_CALL = '<minimax:tool_call>\n<invoke name="get_weather">\n'
_END = "</invoke>\n</minimax:tool_call>"

#: a minimax_m2 parameter name whose quote does not close before its ``>`` (parser fuzz seed
#: 165, ``fuzz/minimax_m2+minimax_m2/5``): vLLM's engine reads a quoted key to its closing
#: quote and ``>`` (``"a>b"``), else the text up to the first ``>``, quotes kept; tito dropped
#: the parameter
_KEYS = {
    "key_quote_unclosed": '<parameter name="city">x</parameter>\n<parameter name="days>3'
                          '</parameter>\n',
    "key_quote_unclosed_first": '<parameter name="days>3</parameter>\n<parameter name="city">x'
                                '</parameter>\n',
    "key_quote_single": "<parameter name='days>3</parameter>\n",
    "key_quote_space": '<parameter name="days >3</parameter>\n',
    "key_quote_later": '<parameter name="city>a"b</parameter>\n',
    "key_quote_mixed": "<parameter name=\"city'>3</parameter>\n",
    "key_quote_inner": '<parameter name="ci"ty">3</parameter>\n',
    "key_quote_lone": '<parameter name=">3</parameter>\n',
    "key_quote_gt_inside": '<parameter name="a>b<c">3</parameter>\n',
    "key_quote_empty": '<parameter name="">3</parameter>\n',
}


def cases() -> list[dict]:
    """The cases, ids ``minimax_m2/fz49_NAME``."""
    return [{"id": f"minimax_m2/fz49_{name}", "tool": "minimax_m2", "reasoning": None,
             "tools": TOOLS, "text": _CALL + body + _END} for name, body in _KEYS.items()]
