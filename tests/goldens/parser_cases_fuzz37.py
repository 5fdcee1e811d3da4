"""Parser cases: what ``conformance/fuzz_parsers.py`` found in session 37 (seeds 29 and 109),
settled as fixed or documented cases, and hunyuan_a13b's ``"parameters"``.

A module of its own (``parser_cases.CASES`` includes it). The texts marked with a seed are the
fuzzer's outputs as it generated them (its tools, ``parser_cases_fuzz9_granite_glm.TOOLS``); the
others isolate one rule each. Expected outputs are recorded from vLLM 0.33's classes
(``record_parsers.py`` with the ids' prefixes: they hold ``/fz37_``); where tito deliberately
differs, ``parser_deviations_fuzz37`` says what tito gives and why (docs/conformance.md names
each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import rows_to_cases

_PT = "<|python_tag|>"
_K2 = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 <|tool_call_argument_begin|>"
_K2_END = "<|tool_call_end|><|tool_calls_section_end|>"
_P = "<|plamo:"
_PLAMO_SEARCH = (f"{_P}begin_tool_requests:plamo|>{_P}begin_tool_request:plamo|>{_P}begin_tool_"
                 f"name:plamo|>search{_P}end_tool_name:plamo|>{_P}begin_tool_arguments:plamo|>"
                 f"{_P}constrain|>json{_P}msg|>")
_PLAMO_END = (f"{_P}end_tool_arguments:plamo|>{_P}end_tool_request:plamo|>"
              f"{_P}end_tool_requests:plamo|>")

#: (tool, reasoning, id, text)
_CASES: list[tuple[str, str | None, str, str]] = [
    # llama3_json: a repeated <|python_tag|> before the object: vLLM's batch reads the object
    # wherever it stands (its stream fails on the second tag and sends nothing); tito makes the
    # batch's call (fixed: the whole output was content)
    ('llama3_json', None, 'repeated_tag',  # seed 29, llama3_json/1
     f'{_PT}{_PT}{{"name": "not_a_tool", "parameters": {{"temp":98.6}}}}OK'),
    ('llama3_json', None, 'repeated_tag_only',
     f'{_PT}{_PT}{_PT}{{"name": "get_weather", "parameters": {{"city": "Paris"}}}}'),
    ('llama3_json', None, 'repeated_tag_no_json', f'{_PT}{_PT}Hello there'),
    # olmo3: a positional argument (a doubled '='): vLLM's ast drops it and calls with {};
    # tito's grammar takes keyword arguments only: the block is content (positional_arg)
    ('olmo3', None, 'double_equals',  # seed 29, olmo3/1
     '<function_calls>\nget_weather(temp==2.0)\nget_weather(temp=1e-05)\n</function_calls>'),
    ('olmo3', None, 'double_equals_fixed',
     '<function_calls>\nget_weather(temp=2.0)\nget_weather(temp=1e-05)\n</function_calls>'),
    # granite: a dropped ']' in the arguments: vLLM's batch makes the first call and drops the
    # rest of the output, its stream makes no call; tito's scanner counts brackets (bracket_kinds)
    ('granite', 'granite', 'dropped_bracket',  # seed 29, granite+granite/1
     'Here is my thought process:嗯，想一想。Here is my response:Done!<|tool_call|>[{"name": "get_w'
     'eather", "arguments": {"city": "a, b; c", "tags": [, "days": 100000}}]Calling the tool now.'
     '\n\n<|tool_call|>[{"name": "get_weather", "arguments": {"days": {}}}]Done!'),
    ('granite', 'granite', 'dropped_bracket_fixed',
     'Here is my thought process:嗯，想一想。Here is my response:Done!<|tool_call|>[{"name": "get_w'
     'eather", "arguments": {"city": "a, b; c", "tags": [], "days": 100000}}]Calling the tool now.'
     '\n\n<|tool_call|>[{"name": "get_weather", "arguments": {"days": {}}}]Done!'),
    # plamo3: a dropped '"' leaves a string open: the arguments' end marker ends them there, as
    # vLLM's engine (fixed: tito's ran on through the markers)
    ('plamo3', 'plamo3', 'open_string',  # seed 29, plamo3+plamo3/0
     f'{_P}begin_think:plamo|>好的，我来查一下。{_P}begin_tool_requests:plamo|>{_P}begin_tool_reque'
     f'st:plamo|>{_P}begin_tool_name:plamo|>get_weather{_P}end_tool_name:plamo|>{_P}begin_tool_a'
     f'rguments:plamo|>{_P}constrain|>json{_P}msg|>{{\n  "detailed": true\n}}{_PLAMO_END}  '
     f'{_PLAMO_SEARCH}{{"limit": 42, "query": "a, b; c}}{_PLAMO_END}I\'ll look it up.\n'),
    ('plamo3', None, 'open_string_only', f'{_PLAMO_SEARCH}{{"query": "a, b; c}}{_PLAMO_END}'),
    ('plamo3', None, 'open_string_request_end',
     f'{_PLAMO_SEARCH}{{"query": "x}}{_P}end_tool_request:plamo|>{_P}end_tool_requests:plamo|>'),
    # kimi_k2: arguments that are no JSON (a dropped '{'): vLLM's engine sends their text up to
    # the call's end marker; tito's header needs the '{': the call's text is content
    # (args_not_json, as deepseek_v31's)
    ('kimi_k2', 'kimi_k2', 'args_not_json',  # seed 109, kimi_k2+kimi_k2/2
     'Let me think.</think>  <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather'
     ':0 <|tool_call_argument_begin|>}<|tool_call_end|><|tool_call_begin|>functions.get_weather:1'
     ' <|tool_call_argument_begin|>{"options": {"\\u540d": [{}, -7], "k": {"k": 0}, "a": "tab\\th'
     'ere"}, "days": 100000}<|tool_call_end|><|tool_calls_section_end|>OK'),
    ('kimi_k2', None, 'args_close_only', f'{_K2}}}{_K2_END}'),
    ('kimi_k2', None, 'args_text', f'{_K2} "city": "Paris"}}{_K2_END}'),
    ('kimi_k2', None, 'args_word', f'{_K2}Paris{_K2_END}'),
    # hunyuan_a13b: "parameters" is not vLLM's arguments member: the element is no call
    # (fixed: tito read it as the arguments)
    ('hunyuan_a13b', None, 'parameters',
     'Hi\n<tool_calls>[{"name": "get_weather", "parameters": {"city": "Paris"}}]</tool_calls>'),
    ('hunyuan_a13b', None, 'parameters_then_call',
     'Hi\n<tool_calls>[{"name": "get_weather", "parameters": {"city": "Paris"}}, {"name": "get_ti'
     'me", "arguments": {}}]</tool_calls>'),
    ('hunyuan_a13b', None, 'parameters_arguments',
     'Hi\n<tool_calls>[{"name": "get_weather", "parameters": {"x": 1}, "arguments": {"city": "Pa'
     'ris"}}]</tool_calls>'),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz37_NAME``."""
    return rows_to_cases(_CASES, "fz37_")
