"""Parser cases: what session 42 settled (issue 10), as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz42_``).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import TOOLS

_DSB, _DSE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_CE = "<｜tool▁call▁end｜>"


def _ds3(args: str, name: str = "get_weather") -> str:
    """A whole DeepSeek-V3 call whose fenced arguments are ``args``."""
    return f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```{_CE}"


#: (tool, reasoning, id, text)
_CASES: list[tuple[str | None, str | None, str, str]] = [
    # deepseek_v3: a dropped quote leaves a JSON string unclosed; vLLM's regex ends the
    # arguments at the first \n```<｜tool▁call▁end｜> whatever they hold; tito's string ran on
    # over the fence and the markers into the text after the section (fuzz seed 120,
    # fuzz/deepseek_v3/5; fixed)
    ('deepseek_v3', None, 'unclosed_string',
     "Done!" + _DSB + _ds3('{note":"it\'s","days":-7,"temp":1e-05}') + _DSE + "I'll look it up.\n"),
    ('deepseek_v3', None, 'unclosed_string_value', _DSB + _ds3('{"city": "Par}') + _DSE + "ok"),
    ('deepseek_v3', None, 'unclosed_string_then_call',
     _DSB + _ds3('{"city": "Par') + _ds3('{}', 'get_time') + _DSE),
    ('deepseek_v3', None, 'unclosed_string_escape', _DSB + _ds3('{"city": "a\\') + _DSE + "after"),
]


#: the cases whose calls' arguments are not JSON (as the model wrote them: vLLM's too)
NOT_JSON = {f"{tool}/fz42_{name}" for tool, _, name, _ in _CASES if "unclosed" in name}


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz42_NAME``."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/fz42_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS if tool else [], "text": text}
            for tool, reasoning, name, text in _CASES]
