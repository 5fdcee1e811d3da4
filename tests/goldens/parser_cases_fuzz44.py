"""Parser cases: what session 44 settled (issue 10), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz44_``).
"""

from __future__ import annotations

from parser_cases_muse import TOOLS

#: the pythonic family's block around a call list (tool -> (before, after))
_BLOCKS = {
    "pythonic": ("", ""),
    "llama4_pythonic": ("<|python_start|>", "<|python_end|>"),
    "lfm2": ("<|tool_call_start|>", "<|tool_call_end|>"),
}

#: a tuple argument is a list, as vLLM 0.33's get_parameter_value reads ast.Tuple (found by
#: hand, session 44: tito ended the call at the ``(``, its arguments cut, the rest content)
_TUPLES = {
    "tuple": "[get_weather(city='Paris', tags=('a', 'b'))]",
    "tuple_one": "[get_weather(tags=('a',), days=2)]",
    "tuple_empty": "[get_weather(tags=())]",
    "tuple_nested": "[get_weather(options={'size': (800, 600), 'k': [(1, 2), ()]}), run()]",
}

#: gemma4: an array ends at its ``]`` only, a ``}`` in it is an item's text, as vLLM's engine
#: finds an array's extent by its brackets alone (parser fuzz seed 131, ``fuzz/gemma4/0``: tito's
#: ``}`` closed the array, the next object's text became a key)
_Q = '<|"|>'
_GEMMA4 = {
    "array_brace": "Hi<|tool_call>call:get_weather{tags:[false, }, {x y:[],k:[1]}],"
                   "detailed:false}<tool_call|>",
    "array_brace_mid": "<|tool_call>call:get_weather{tags:[a}b, c],city:x}<tool_call|>",
    "array_brace_only": "<|tool_call>call:get_weather{tags:[}],city:x}<tool_call|>",
    "array_brace_after_object": "<|tool_call>call:get_weather{tags:[{a:1}}],city:x}<tool_call|>",
    "array_brace_after_string": f"<|tool_call>call:get_weather{{tags:[{_Q}a{_Q}}}],city:x}}"
                                "<tool_call|>",
}

#: olmo3: text before ``<function_calls>`` (here a stray ``<``, parser fuzz seed 132): content,
#: the block too (the start-only rule); vLLM's batch reads the block anywhere, its stream no call
TEXT_OPENS_BLOCK = "<<function_calls>\nsearch(query=3)\n</function_calls>"

#: (tool, reasoning, id, text)
_CASES: list[tuple[str | None, str | None, str, str]] = [
    ("olmo3", None, "text_opens_block", TEXT_OPENS_BLOCK),
    *(("gemma4", None, name, text) for name, text in _GEMMA4.items()),
    *((tool, None, name, before + text + after)
      for tool, (before, after) in _BLOCKS.items() for name, text in _TUPLES.items()),
    *(("olmo3", None, name, "<function_calls>\n" + text[1:-1] + "\n</function_calls>")
      for name, text in _TUPLES.items() if name != "tuple_nested"),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz44_NAME``."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/fz44_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS if tool else [], "text": text}
            for tool, reasoning, name, text in _CASES]
