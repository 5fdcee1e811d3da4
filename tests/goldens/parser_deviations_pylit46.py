"""The deliberate deviations of ``parser_cases_pylit46``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built from the cases' own text, never
tito's output copied back; the rule is ``parser_deviations_pylit45``'s: a value that is no JSON
literal ends the call where it stands, the rest content (vLLM's batch: all content).
"""

from __future__ import annotations

from parser_deviations_pylit45 import _ENDS

#: name -> (the content from the refused value on, what is refused)
_REFUSED = {
    "signed_paren_bool": ("-(True)), get_time()]", "a sign over a bool"),
    "signed_paren_tuple": ("-(1, 2)), get_time()]", "a sign over a tuple"),
}

_PYLIT46_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{tool}/py46_{name}": (
        {"reasoning": None, "content": content + end,
         "calls": [["get_weather", '{"days": 1, "n": ']]},
        f"{why}: no JSON literal (vLLM's get_parameter_value takes a sign over a number "
        "only); vLLM's batch makes the whole output content, tito ends the call there "
        "(arguments as far as they got) and the rest is content")
    for tool, end in _ENDS.items() for name, (content, why) in _REFUSED.items()
}
