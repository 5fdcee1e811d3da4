"""Parser cases: what session 48 settled (issue 10), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz48_``).
"""

from __future__ import annotations

from parser_cases_muse import TOOLS

_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
_END = "</function>\n</tool_call>"

#: a key header that lost its ``>`` (parser fuzz seed 156, ``fuzz/qwen3_xml/4``): vLLM's regex
#: reads the key on to the next ``>``, its closer's, a key of markup with the value ``""``
#: (dropped by its batch when it is the call's last parameter); tito drops the bad header
_KEY_UNCLOSED = {
    "key_unclosed": _CALL + "<parameter=detailed\nfalse\n</parameter>\n"
                    "<parameter=days>\n3\n</parameter>\n" + _END,
    "key_unclosed_last": _CALL + "<parameter=detailed\nfalse\n</parameter>\n" + _END,
}


def cases() -> list[dict]:
    """The cases, ids ``TOOL/fz48_NAME``."""
    return [{"id": f"{tool}/fz48_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
             "text": text}
            for tool in ("qwen3_xml", "qwen3_coder") for name, text in _KEY_UNCLOSED.items()]
