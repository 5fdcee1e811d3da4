"""Parser cases: what session 45 settled (issue 10), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz45_``).
"""

from __future__ import annotations

#: typed nested members, so a dropped leaf's schema path is exercised too
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "integer"}},
            "options": {"type": "object", "properties": {
                "x": {"type": "boolean"},
                "k": {"type": "array", "items": {"type": "number"}},
                "o": {"type": "object", "properties": {"z": {"type": "integer"}}}}}}}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"tz": {"type": "string"}}}}},
]

_C = "<|tool_call>call:get_weather"
_E = "<tool_call|>"
_Q = '<|"|>'

#: gemma4: vLLM's engine drops the call's ``}`` before reading the body and reads a container
#: the call's end leaves open as partial, which drops its trailing bare leaf or ``KEY:``
#: (``tags:[1}`` is ``[]``; ``a:{b:1}`` is ``{"a": {}}``); tito kept it (session 44's note)
_GEMMA4 = {
    "open_array_item": f"{_C}{{tags:[1}}{_E}",
    "open_array_two": f"{_C}{{city:x,tags:[1, 2}}{_E}",
    "open_array_comma": f"{_C}{{tags:[1,}}{_E}",
    "open_array_string": f"{_C}{{tags:[1,{_Q}a{_Q}}}{_E}",
    "open_array_nested": f"{_C}{{tags:[[1}}{_E}",
    "open_array_object_open": f"{_C}{{tags:[{{a:1}}{_E}",
    "open_array_object_closed": f"{_C}{{tags:[{{a:1}}}}{_E}",
    "open_array_objects": f"{_C}{{tags:[{{a:1}},{{b:2}}{_E}",
    "open_array_cut": f"{_C}{{tags:[1,2",
    "closed_array_cut": f"{_C}{{tags:[1,2]",
    "nested_closer": f"{_C}{{options:{{x:true}}{_E}",
    "nested_closer_ws": f"{_C}{{options:{{x:true}}  \n {_E}",
    "nested_two": f"{_C}{{options:{{x:true,o:1}}{_E}",
    "nested_deep": f"{_C}{{options:{{o:{{z:1}}{_E}",
    "nested_deep_closed": f"{_C}{{options:{{o:{{z:1}}}}{_E}",
    "nested_key_only": f"{_C}{{options:{{x:}}{_E}",
    "nested_key_cut": f"{_C}{{options:{{x:{_E}",
    "nested_string": f"{_C}{{options:{{x:{_Q}y{_Q}}}{_E}",
    "nested_then_member": f"{_C}{{options:{{x:true}},days:2}}{_E}",
    "nested_then_text": f"{_C}{{options:{{x:true}}z{_E}",
    "nested_closed": f"{_C}{{options:{{x:true}}}}{_E}",
    "nested_cut": f"{_C}{{options:{{x:true",
    "nested_cut_closer": f"{_C}{{options:{{x:true}}",
    "paren_nested": "<|tool_call>call:get_weather(options:{x:true}" + _E,
    "top_bare_kept": f"{_C}{{city:x,days:3{_E}",
    "parallel": f"A{_C}{{options:{{k:[1.5, 2}}{_E}<|tool_call>call:get_time{{tz:{{a:b}}{_E}",
}

#: dots: a block whose body does not open with ``<invoke`` is no call block up to its closer, a
#: second ``<dots_function_call>`` in it included (vLLM's block regex: first opener to first
#: closer; parser fuzz seed 133, ``fuzz/dots/0``: tito read the doubled opener's block)
_INV = '<invoke name="get_weather">\n<parameter name="city">x</parameter>\n</invoke>'
_DOTS = {
    "doubled_opener": f"<dots_function_call>\n<dots_function_call>\n{_INV}\n</dots_function_call>",
    "doubled_opener_tight": f"A <dots_function_call><dots_function_call>{_INV}"
                            "</dots_function_call> B",
    "text_then_opener": f"<dots_function_call>hi <dots_function_call>\n{_INV}\n"
                        "</dots_function_call>",
    # stray text after a call does not end the block: vLLM's regex finds every invoke in it
    "text_between_invokes": f"<dots_function_call>\n{_INV}\nhello {_INV}\n</dots_function_call>",
    "text_between_unknown": f"<dots_function_call>{_INV} hi <invoke name=\"nope\">\n</invoke> "
                            f"{_INV}</dots_function_call>",
}

#: plamo3: a marker piece before another marker is text (vLLM's stream; tito's rule,
#: ``pipeline_parsers._strip_at_end``), also when the output happens to end with the same piece
#: (ws sweep ``--pairs`` seed 68: tito's batch dropped it, its stream kept it)
PLAMO_PIECE = "<|plamo:end_<|plamo:tag|>o:beo_rmo|<<|plamo:end_"

#: apertus: a list's later element whose text holds a ``{`` the start marker's length past its
#: comma (parser fuzz seed 137, ``fuzz/apertus/0``: tito read it as a lone object and ended the
#: list after it, the rest content)
_APERTUS = {
    "third_element": '<|tools_prefix|>[{"search": {"query": "x"}}, {"not_a_tool": {}}, '
                     '{"not_a_tool": {"day":100000}}]<|tools_suffix|>Done.',
    "third_element_short": '<|tools_prefix|>[{"x": {}}, {"nota": {}}, {"y": {}}]'
                           '<|tools_suffix|>',
}

#: (tool, reasoning, id, text)
_CASES: list[tuple[str | None, str | None, str, str]] = [
    *(("gemma4", None, name, text) for name, text in _GEMMA4.items()),
    *(("dots", None, name, text) for name, text in _DOTS.items()),
    ("plamo3", "plamo3", "piece_then_same_piece_at_end", PLAMO_PIECE),
    *(("apertus", None, name, text) for name, text in _APERTUS.items()),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz45_NAME``."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/fz45_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS if tool else [], "text": text}
            for tool, reasoning, name, text in _CASES]
