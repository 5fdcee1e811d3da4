"""The deliberate deviations of ``parser_cases_pylit45``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built from the cases' own text, never
tito's output copied back; the rule is the pythonic family's (``pythonic.py``'s header,
``docs/conformance.md``): a value that is no JSON literal ends the call where it stands, its
arguments as far as they got, and the text from there on is content; vLLM's batch makes the
whole output content when any part fails.
"""

from __future__ import annotations

#: the block's end marker after the list (tool -> marker)
_ENDS = {"pythonic": "", "llama4_pythonic": "<|python_end|>", "lfm2": "<|tool_call_end|>"}

#: name -> (arguments as far as they got, the content from the refused value on, what is refused)
_REFUSED = {
    "bytes": ('{"days": 1, "city": ', "b'x')]", "a bytes literal"),
    "signed_key": ('{"days": 1, "tags": {', "-1: 'x'})]",
                   "a signed dict key (vLLM takes an ast.Constant key only)"),
    "fstring_field": ('{"days": 1, "city": "a', "{x}')]", "an f-string with a field"),
}

_PYLIT45_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{tool}/py45_{name}": (
        {"reasoning": None, "content": content + end, "calls": [["get_weather", args]]},
        f"{why}: no JSON literal; vLLM's batch makes the whole output content, tito ends the "
        "call there (arguments as far as they got) and the rest is content")
    for tool, end in _ENDS.items() for name, (args, content, why) in _REFUSED.items()
}
