"""Parser cases: DSML keys whose quotes hold ``>`` (session 50, helper hpar; issue 10).

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/hp50_``).
Found by hand after minimax_m2's quoted keys (seed 165): tito's stream differed from its batch.
"""

from __future__ import annotations

from parser_cases_muse import TOOLS

_D = "｜DSML｜"
_WRAP = {"deepseek_v32": "function_calls", "deepseek_v4": "tool_calls"}

#: DSML keys whose quoted text holds ``>`` (vLLM's ``name="([^"]+)"``, batch and stream): tito's
#: batch read them, its stream decided ``no key`` at the first ``>`` before the quote closed
#: (one token per delta: the parameter lost), so stream != batch
_DSML_KEYS = {
    "key_gt_inside": f'<{_D}parameter name="a>b<c">3</{_D}parameter>\n',
    "key_gt_string": f'<{_D}parameter name="a>b" string="true">3</{_D}parameter>\n',
    "key_gt_newline": f'<{_D}parameter name="a>\nb" string="false">[1]</{_D}parameter>\n',
    "key_unclosed_then": f'<{_D}parameter name="days>3</{_D}parameter>\n<{_D}parameter name="n" '
                         f'string="false">2</{_D}parameter>\n',
}


def cases() -> list[dict]:
    """The cases, ids ``TOOL/hp50_NAME``."""
    out = []
    for tool, wrap in _WRAP.items():
        head = (f'Hi <{_D}{wrap}>\n<{_D}invoke name="get_weather">\n<{_D}parameter name="city" '
                f'string="true">x</{_D}parameter>\n')
        out += [{"id": f"{tool}/hp50_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
                 "text": head + body + f"</{_D}invoke>\n</{_D}{wrap}>"}
                for name, body in _DSML_KEYS.items()]
    return out
