"""Parser cases: what ``conformance/fuzz_parsers.py`` found in session 36 (seeds 23, 24, 106 and
the seeds run after them), settled as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). The texts marked with a seed are the
fuzzer's outputs as it generated them (its tools, ``parser_cases_fuzz9_granite_glm.TOOLS``); the
others isolate one rule each. Expected outputs are recorded from vLLM 0.33's classes
(``record_parsers.py`` with the ids' prefixes: they hold ``/fz36_``); where tito deliberately
differs, ``parser_deviations_fuzz36`` says what tito gives and why (docs/conformance.md names
each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import rows_to_cases

_DB, _DE = "<dots_function_call>", "</dots_function_call>"
_O, _C, _S = "<|open|>", "<|close|>", "<|sep|>"
_K3_WEATHER = (f'{_O}call tool="get_weather" index="2"{_S}{_O}argument key="note" type="string"'
               f"{_S} padded {_C}argument{_S}{_C}call{_S}")
_LONG = "a long value " * 16  # an invoke past dots' CALL_HOLD (200 characters) before its closer

#: (tool, reasoning, id, text)
_CASES: list[tuple[str, str | None, str, str]] = [
    # dots: an invoke whose </invoke> is misspelt before the block's end is no call (vLLM's
    # regexes, batch and stream); its text is content, as vLLM's stream gives a block without a
    # call (fixed: tito made the call)
    ('dots', None, 'misspelt_invoke_end',  # seed 23, dots/5
     f'Sure.{_DB}\n<invoke name="get_weather">\n<parameter name="note">東京</parameter>\n<parame'
     f'ter name="days">100000</parameter>\n<parameter name="detailed">true</parameter>\n<parameter'
     f' name="city">42</parameter>\n</invoke>\n{_DE}Done!{_DB}\n<invoke name="search">\n<parameter '
     f'name="limit">100000</parameter>\n<invoke>\n{_DE}Result below 🎉'),
    ('dots', None, 'misspelt_invoke_end_only',
     f'Hi{_DB}\n<invoke name="search">\n<parameter name="query">x</parameter>\n</invok>\n{_DE}Bye'),
    ('dots', None, 'misspelt_invoke_end_after_call',
     f'{_DB}\n<invoke name="get_time">\n</invoke>\n<invoke name="search">\n<parameter name="query">'
     f'x</parameter>\n</invok>\n{_DE}Bye'),
    # dots: an invoke past CALL_HOLD streams before its closer shows: a misspelt closer there
    # leaves it a call (call_unclosed; vLLM drops it)
    ('dots', None, 'long_misspelt_invoke_end',
     f'{_DB}\n<invoke name="search">\n<parameter name="query">{_LONG}</parameter>\n</invok>\n{_DE}'),
    ('dots', None, 'long_misspelt_invoke_end_fixed',
     f'{_DB}\n<invoke name="search">\n<parameter name="query">{_LONG}</parameter>\n</invoke>\n{_DE}'),
    # kimi_k3: text in the section that is no call (a misspelt <|open>call first) does not end it:
    # the next call is read, as vLLM's regex finds every call of the section (fixed)
    ('kimi_k3', None, 'misspelt_call_open',  # seed 24, kimi_k3/0
     f'{_C}response{_S}{_O}tools{_S}<|open>call tool="get_time" index="1"{_S}{_C}call{_S}'
     f'{_K3_WEATHER}{_C}tools{_S}{_C}message{_S}'),
    ('kimi_k3', None, 'misspelt_call_open_text',  # seed 24, kimi_k3/5
     f'Let me check that for you.{_C}response{_S}{_O}tools{_S}<|oen|>call tool="get_weather" inde'
     f'x="1"{_S}{_O}argument key="tags" type="array"{_S}[false, {{"k": 3.14, "x y": "back\\\\slash'
     f'"}}]{_C}argument{_S}{_C}call{_S}{_O}call tool="get_weather" index="2"{_S}{_O}argument key="'
     f'note" type="null"{_S}null{_C}argument{_S}{_C}call{_S}{_C}tools{_S}\n'),
    ('kimi_k3', None, 'text_between_calls',
     f'{_O}tools{_S}{_O}call tool="get_time" index="1"{_S}{_C}call{_S}stray{_K3_WEATHER}'
     f'{_C}tools{_S}after'),
    # minimax_m2: an '<invoke name="' written as text before the section: vLLM's call runs from it
    # over the section (its name is no tool: dropped), the real call lost; tito keeps the text as
    # content and reads the call (call_unclosed)
    ('minimax_m2', None, 'invoke_as_text',  # seed 106, minimax_m2/1
     'The <invoke name=" token I\'ll look it up.\n<minimax:tool_call>\n<invoke name="search">\n<pa'
     'rameter name="limit">0</parameter>\n<parameter name="query">東京</parameter>\n</invoke>\n</mi'
     'nimax:tool_call>Let me check that for you.'),
    ('minimax_m2', None, 'invoke_as_text_fixed',
     'The token I\'ll look it up.\n<minimax:tool_call>\n<invoke name="search">\n<parameter name="l'
     'imit">0</parameter>\n<parameter name="query">東京</parameter>\n</invoke>\n</minimax:tool_call'
     '>Let me check that for you.'),
    # hunyuan_a13b: a list element without "arguments" (misspelt) is no call and the list goes
    # on, as vLLM's batch skips it (fixed: tito called it with {}; its text is content: text_kept)
    ('hunyuan_a13b', 'hunyuan_a13b', 'argless_element',  # seed 25, hunyuan_a13b+hunyuan_a13b/4
     '<think>\nok\n\n\n</think>\n<answer>\nI\'ll look it up.\n<tool_calls>[{"name": "get_time", "a'
     'rguments": {}}, {"name": "get_time", "arguments": {}}, {"name": "get_weather", "aguments": {'
     '}}]</tool_calls>'),
    ('hunyuan_a13b', None, 'argless_first',
     'Hi\n<tool_calls>[{"name": "get_weather", "aguments": {}}, {"name": "get_time", "arguments": '
     '{}}]</tool_calls>'),
    ('hunyuan_a13b', None, 'argless_only',
     'Hi\n<tool_calls>[{"name": "get_weather", "aguments": {"city": "Paris"}}]</tool_calls>'),
    # ernie45: a misspelt </tool_call>: vLLM needs the closer (batch and stream: no call, its text
    # dropped); tito makes the call, the misspelt closer content (call_unclosed)
    ('ernie45', 'ernie45', 'misspelt_call_end',  # seed 25, ernie45+ernie45/3
     '<think>嗯，想一想。</think>OK<tool_call>{"name": "get_time", "arguments": {}}</tool_calll>'),
    ('ernie45', 'ernie45', 'misspelt_call_end_fixed',
     '<think>嗯，想一想。</think>OK<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'),
    # mistral: arguments whose '[' was dropped: tito's scanner counts brackets, not their kinds,
    # so the ']' ends the arguments and the rest is content; vLLM's run on to the next marker
    # (bracket_kinds; neither is JSON)
    ('mistral', 'mistral', 'mismatched_bracket',  # seed 107, mistral+mistral/4
     'Let me think.[/THINK]Result below 🎉[TOOL_CALLS]not_a_tool[ARGS]{"options": {}, "city": "nu'
     'll", "tags": ], "temp": 2.0}[TOOL_CALLS]not_a_tool[ARGS]{"detailed": true, "note": 15000000'
     '000.0}OK'),
    # hermes+qwen3: a <tool_call> written as text before </think> ends the block there, and vLLM's
    # hermes regex then reads it as a call running over the real one: not JSON, so its batch makes
    # the whole output content (batch_whole_text; its stream makes the calls, as tito)
    ('hermes', 'qwen3', 'marker_before_think_end',  # seed 26, hermes+qwen3/5
     'Use <tool_call> to call. Let me think.</think>好的，我来查一下。<tool_call>\n{"name": "get_wea'
     'ther", "arguments": {"tags":[-0.5,100000,"\\\\u00e9 literal"]}}\n</tool_call>\n<tool_call>\n{"'
     'name": "not_a_tool", "arguments": {"options":{},"detailed":false,"temp":-0.5}}\n</tool_call>'
     '\n<tool_call>\n{"name": "get_weather", "arguments": {"tags":[0],"detailed":true,"note":"50% '
     'off & more"}}\n</tool_call>Let me check that for you.'),
    ('hermes', 'qwen3', 'marker_before_think_end_fixed',
     'Use it to call. Let me think.</think>好的，我来查一下。<tool_call>\n{"name": "get_weather", "a'
     'rguments": {"tags":[-0.5,100000,"\\\\u00e9 literal"]}}\n</tool_call>\n<tool_call>\n{"name": '
     '"not_a_tool", "arguments": {"options":{},"detailed":false,"temp":-0.5}}\n</tool_call>\n<too'
     'l_call>\n{"name": "get_weather", "arguments": {"tags":[0],"detailed":true,"note":"50% off &'
     ' more"}}\n</tool_call>Let me check that for you.'),
    # deepseek_v41: a <think> after the call start written as text: vLLM's batch reopens the
    # block there, its one-token stream hands over to the tool grammar (reopen_after_call)
    ('deepseek_v41', 'deepseek_v41', 'start_after_call_marker',  # seed 27, deepseek_v41+.../3
     '<｜DSML｜ calls><think>Done!\n'),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz36_NAME``."""
    return rows_to_cases(_CASES, "fz36_")
