"""Parser cases: a string left open before hunyuan_a13b's ``</tool_calls>`` (session 52, lead;
issue 10).

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/ld52_``).
Found by parser fuzz seed 177 (``fuzz/hunyuan_a13b/0``): a value's opening quote dropped, its
closing quote opened a string that ran to the end of the output, so the call's arguments took
``</tool_calls>``, the next section's calls and the text after. vLLM's regex ends a section at
the first ``</tool_calls>``, inside a string too; so does tito now (``string_stop_markers``).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import TOOLS

_S, _E = "<tool_calls>", "</tool_calls>"
_OPEN = '[{"name": "get_weather", "arguments": {"city":Paris"}}]'
_GOOD = '[{"name": "get_time", "arguments": {}}]'

_CASES: list[tuple[str, str | None, str, str]] = [
    ("hunyuan_a13b", None, name, text) for name, text in (
        ("open_string", f"a{_S}{_OPEN}{_E}tail"),
        ("open_string_then_call", f"a{_S}{_OPEN}{_E}mid{_S}{_GOOD}{_E}end"),
        ("open_string_unicode", 'Calling the tool now.\n\n<tool_calls>[{"name": "get_weather", '
         '"arguments": {"city":ünïcödé ∑"}}]</tool_calls>Let me check that for you.'
         '<tool_calls>[{"name": "not_a_tool", "arguments": {"options":{"名":12345678901,'
         '"x y":true}}}, {"name": "get_time", "arguments": {}}]</tool_calls>好的，我来查一下。'),
        ("open_string_no_end", f"a{_S}{_OPEN}"),
    )
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL/ld52_NAME``."""
    return [{"id": f"{tool}/ld52_{name}", "tool": tool, "reasoning": reasoning, "tools": TOOLS,
             "text": text} for tool, reasoning, name, text in _CASES]
