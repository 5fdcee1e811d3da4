"""The deliberate deviations of ``parser_cases_lead52``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), written from the cases' own text,
never tito's output copied back.

The rule (``docs/conformance.md``, hunyuan_a13b): a string the model left open ends at
``</tool_calls>``, the call is made with the arguments written before it (a malformed call is a
call, as hermes'), and the sections after it are read as usual; the text outside the sections
is content. vLLM's batch makes the broken section content (markup included) and drops the text
after the last section; its stream makes no call at all.
"""

from __future__ import annotations

import json

from parser_cases_lead52 import cases

_S, _E = "<tool_calls>", "</tool_calls>"
_ARGS = '"arguments": '


def _outside(text: str) -> str:
    """The text outside the sections (an unclosed one runs to the end)."""
    out, rest = [], text
    while _S in rest:
        before, rest = rest.split(_S, 1)
        out.append(before)
        rest = rest.split(_E, 1)[1] if _E in rest else ""
    return "".join([*out, rest])


def _calls(text: str) -> list[list[str]]:
    """Each element's name and its arguments as written: a JSON object read whole, or (a string
    left open) the text up to the section's end."""
    calls = []
    for section in text.split(_S)[1:]:
        body = section.split(_E, 1)[0]
        for head in body.split('{"name": "')[1:]:
            name, rest = head.split('"', 1)
            raw = rest.split(_ARGS, 1)[1]
            try:
                _, end = json.JSONDecoder().raw_decode(raw)
                calls.append([name, raw[:end]])
            except ValueError:
                calls.append([name, raw])
                break  # (the open string took the rest of the section)
    return calls


_WHY = ("open_string_at_end: a string the model left open ends at </tool_calls>: the call is "
        "made with the arguments written before it and the sections after it are read; vLLM's "
        "batch makes that section content (its regex stops there, the JSON fails), its stream "
        "makes no call")
_LEAD52_DEVIATIONS: dict[str, tuple[dict, str]] = {
    c["id"]: ({"reasoning": None, "content": _outside(c["text"]), "calls": _calls(c["text"])},
              _WHY) for c in cases()
}
#: every case: the open string's arguments are no JSON (in vLLM they make no call)
NOT_JSON = set(_LEAD52_DEVIATIONS)
