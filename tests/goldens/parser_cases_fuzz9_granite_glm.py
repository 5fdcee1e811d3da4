"""Parser cases: what ``conformance/fuzz_parsers.py --seed 9`` found in granite, step3,
glm45 and kimi_k2 (issue 10), settled as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). The texts marked ``seed 9`` are the
fuzzer's outputs as it generated them (its tools: ``conformance/fuzz_parser_cases.py``'s, copied
here so the goldens stay pure data); the others isolate one rule each. Expected outputs are
recorded from vLLM 0.33's classes (``record_parsers.py fuzz9``); where tito deliberately
differs, ``parser_deviations._FUZZ9_DEVIATIONS`` says what tito gives and why.
"""

from __future__ import annotations

#: the fuzzer's tools (``fuzz_parser_cases.FUZZ_TOOL``, ``SEARCH``, ``NOARG``)
FUZZ_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "temp": {"type": "number"},
                "detailed": {"type": "boolean"},
                "options": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"},
                                                         "limit": {"type": "integer"}}},
    },
}
NOARG = {"type": "function",
         "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
TOOLS = [FUZZ_TOOL, SEARCH, NOARG]

_G = "<|tool_call|>"
_GLM_SEARCH = ("<tool_call>search\n<arg_key>query</arg_key>\n<argvalue>it's</arg_value>\n"
               "<arg_key>limit</arg_key>\n<arg_value>42</arg_value>\n</tool_call>")
_S = "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
_SE = "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
_SP = '<steptml:parameter name="'

#: (tool, reasoning, id, text)
_CASES: list[tuple[str, str | None, str, str]] = [
    # granite: a list element that is no call (a missing ":", no "name") is dropped by vLLM's
    # array splitter and the list goes on; tito keeps its text as content and goes on too
    ("granite", None, "element_no_colon",  # seed 9, granite/0
     'Let me check that for you.<tool_call>[{"name": "get_weather", "arguments": {"days": "東京", '
     '"options": {"k": false, "a": {"名": 2.0, "k": "{not json}"}}, "detailed": false, "tags": []}}, '
     '{"name" "not_a_tool", "arguments": {"days": -7, "tags": []}}, {"name": "get_weather", '
     '"arguments": {"note":null,"options":{"k":[]},"temp":"tab\\there","days":0}}]  '),
    ("granite", None, "element_no_name",
     f'Hi {_G}[{{"namme": "get_time", "arguments": {{"a": [1, "}}"]}}}}, '
     '{"name": "get_time", "arguments": {}}]'),
    ("granite", None, "first_element_no_name",
     f'{_G}[{{"arguments": {{}}}}, {{"name": "search", "arguments": {{"query": "x"}}}}]'),
    ("granite", None, "element_cut",
     f'Hi {_G}[{{"name": "get_time", "arguments": {{}}}}, {{"name" "x", "arguments": {{"a": "b'),
    ("granite", None, "element_marker",
     f'Hi {_G}[{{"name" "x", "a": 1 {_G}[{{"name": "get_time", "arguments": {{}}}}]'),
    # a list with no call at all: vLLM's tool parser drops it ("Hi  bye"); composed with
    # granite's reasoning parser its batch and stream give the whole text
    *(("granite", r, "list_no_call",
       'Hi <tool_call>[{"namee": "get_time", "arguments": {}}, {"name" "x"}] bye')
      for r in (None, "granite")),
    ("granite", "granite", "element_no_name",  # seed 9, granite+granite/7
     'Here is my thought process:ok\n\nHere is my response:  <tool_call>[{"namme": "get_weather", '
     '"arguments": {"temp":15000000000.0,"tags":[false,2.0,{"x y":3.14}]}}, {"name": "not_a_tool", '
     '"arguments": {"tags": [3, false]}}]Here you go:'),
    # granite: vLLM's batch types the values from the schema (its stream only while the bytes it
    # sent stay a prefix); tito sends the model's text
    ("granite", None, "typed_values",  # seed 9, granite/3
     'I\'ll look it up.\n<tool_call>[{"name": "search", "arguments": {"query": "say \\"hi\\"", '
     '"limt": 100000}}, {"name": "get_weather", "arguments": {"note": "null", "city": "emoji '
     '\\ud83c\\udf89 ok", "tags": [{"a": 0, "x y": 0}, 0]}}]I\'ll look it up.\n'),
    ("granite", "granite", "typed_values",  # seed 9, granite+granite/3
     'Here is my thought process:  spaced thought  Here is my response:  <tool_call>[{"name": '
     '"get_weather", "arguments": {\n  "options": {\n    "k": true\n  },\n  "tags": [\n    -7\n  ],'
     '\n  "days": "42"\n}}]OK\n<|tool_call|>\n[{"name": "get_weather", "arguments": {"detailed":true,'
     '"tags":[1e-05],"options":{},"note":"ünïcödé ∑"}}]'),
    # step3: a misspelt </steptml:parameter> (vLLM drops that parameter; tito keeps its text) and
    # a second section (vLLM reads one)
    ("step3", None, "misspelt_param_close",  # seed 9, step3/10
     f'好的，我来查一下。{_S}<steptml:invoke name="get_weather">{_SP}note">null</steptml:parameter>'
     f'{_SP}city">back\\slash</steptml:parameter>{_SP}tags">[0, "\\\\u00e9 literal"]'
     f'</steptml:paraeter>{_SE}OK{_S}<steptml:invoke name="get_weather">{_SP}options">'
     f'{{"x y": [false, "a, b; c", 3]}}</steptml:parameter>{_SP}detailed">true</steptml:parameter>'
     f'{_SP}city">say "hi"</steptml:parameter>{_SE}Result below 🎉'),
    # glm45: a misspelt <arg_value>: the key runs on to the next </arg_key> that <arg_value>
    # follows (vLLM's regex), markup and all
    ("glm45", "glm45", "misspelt_value_open",  # seed 9, glm45+glm45/3
     "  spaced thought  </think>Here you go:<tool_call>get_weather\n</tool_call>\n"
     + _GLM_SEARCH + "Done!"),
    ("glm45", None, "misspelt_value_open", _GLM_SEARCH),
    ("glm45", None, "misspelt_value_open_last",
     "<tool_call>search\n<arg_key>query</arg_key>\n<argvalue>it's</arg_value>\n</tool_call>"),
    ("glm45", None, "misspelt_value_open_next_call",
     "<tool_call>search\n<arg_key>query</arg_key><argvalue>a</arg_value></tool_call>"
     "<tool_call>search\n<arg_key>limit</arg_key><arg_value>3</arg_value></tool_call>"),
    # kimi_k2: the end cuts the second call's header before its id: vLLM draws an id
    ("kimi_k2", None, "cut_second_header",  # seed 9, kimi_k2/9
     "好的，我来查一下。<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0 "
     '<|tool_call_argument_begin|>{"query": "[1, 2]", "limit": -7}<|tool_call_end|>'
     "<|tool_call_begin|>functions.get_weath"),
]


def rows_to_cases(rows: list[tuple[str, str | None, str, str]], prefix: str) -> list[dict]:
    """Fuzz rows ``(tool, reasoning, name, text)`` as golden cases with the fuzzer's tools, ids
    ``TOOL[+REASONING]/PREFIXNAME`` (shared by the fuzz golden modules)."""
    return [{"id": f"{tool}{'+' + reasoning if reasoning else ''}/{prefix}{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS, "text": text}
            for tool, reasoning, name, text in rows]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fuzz9_NAME``."""
    return rows_to_cases(_CASES, "fuzz9_")
