"""Parser cases: the residue ``conformance/fuzz_parsers.py`` still found after seeds 9-14's was
settled (session 33): functiongemma's headers and keys (seeds 10-13), hy_v3's calls after the
section's end, and what later seeds (15-18, ...) found, settled as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). The texts marked with a seed are the
fuzzer's outputs as it generated them (its tools, ``parser_cases_fuzz9_granite_glm.TOOLS``); the
others isolate one rule each. Expected outputs are recorded from vLLM 0.33's classes
(``record_parsers.py`` with the ids' prefixes: they hold ``/fr_``); where tito deliberately
differs, ``parser_deviations_fuzz_residue`` says what tito gives and why (docs/conformance.md
names each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import rows_to_cases

_FS, _FE, _E = "<start_function_call>", "<end_function_call>", "<escape>"

#: (tool, reasoning, id, text)
_CASES: list[tuple[str, str | None, str, str]] = [
    # functiongemma: a header that is not exactly call:NAME{ is no call (vLLM's regex, batch and
    # stream); tito keeps its text as content (text_kept)
    ('functiongemma', None, 'newline_before_call',  # seed 10, functiongemma/22
     f'Result below 🎉\n{_FS}\ncall:get_weather{{tags:{_E}[42]{_E},options:{_E}{{}}{_E},days:'
     f'{_E}12345678901{_E},temp:{_E}-0.5{_E}}}{_FE}{_FS}call:get_time{{}}{_FE}{_FS}call:search{{'
     f'limit:{_E}3{_E},query:{_E}42{_E}}}{_FE}\n'),
    ('functiongemma', None, 'space_before_call',  # seed 12, functiongemma/21
     f'\n  \n{_FS} call:not_a_tool{{temp:{_E}98.6{_E}}}{_FE}{_FS}call:search{{query:{_E}a, b; c'
     f'{_E},limit:{_E}12345678901{_E}}}{_FE}{_FS}call:not_a_tool{{options:{_E}{{"x y": [false]}}'
     f'{_E},city:{_E}back\\slash{_E},detailed:{_E}true{_E},note:{_E}null{_E}}}{_FE}\n'),
    ('functiongemma', None, 'gt_before_call',  # seed 13, functiongemma/19
     f'Calling the tool now.\n\n{_FS}call:get_weather{{note:{_E}null{_E},options:{_E}{{"k": fal'
     f'se, "名": 2.0}}{_E}}}{_FE}\n{_FS}>call:get_weather{{options:{_E}{{"a": "true", "名": -7}}'
     f'{_E},city:{_E}50% off & more{_E},tags:{_E}["say \\"hi\\"", false, "emoji 🎉 ok"]{_E}}}'
     f'{_FE}Calling the tool now.\n\n'),
    ('functiongemma', None, 'missing_colon',  # seed 10, functiongemma/21
     f'OK{_FS}call:get_weather{{days:{_E}-7{_E}}}{_FE}{_FS}callsearch{{query:{_E}a, b; c{_E},li'
     f'mit:{_E}100000{_E}}}{_FE}Sure.'),
    ('functiongemma', None, 'name_hyphen',
     f'{_FS}call:get-weather{{city:{_E}Paris{_E}}}{_FE}{_FS}call:get_time{{}}{_FE}'),
    ('functiongemma', None, 'no_brace',
     f'{_FS}call:get_time{_FE}{_FS}call:search{{query:{_E}x{_E}}}{_FE}'),
    # functiongemma: a key is the word before ':' (vLLM's (\w+):<escape>): the rest of a value
    # whose closing <escape> is misspelt is dropped (fixed)
    ('functiongemma', None, 'broken_value_key',  # seed 13, functiongemma/22
     f'Result below 🎉{_FS}call:not_a_tool{{temp:{_E}-0.5<escappe>,note:{_E}null{_E},days:{_E}'
     f'12345678901{_E}}}{_FE}'),
    ('functiongemma', None, 'key_after_text',
     f'{_FS}call:search{{the query:{_E}x{_E},limit:{_E}3{_E}}}{_FE}'),
    # functiongemma: whitespace between the arguments' '}' and <end_function_call>: vLLM's regex
    # runs the call on to the next call's '}<end_function_call>' (call_unclosed)
    ('functiongemma', None, 'ws_before_end',  # seed 10, functiongemma/16
     f'Done!{_FS}call:not_a_tool{{city:{_E}a, b; c{_E},detailed:{_E}false{_E},temp:{_E}0{_E}}}\n'
     f'{_FE}\nSure.{_FS}call:get_weather{{options:{_E}{{"a": {{}}, "k": {{"a": "null", "x y": {{}}'
     f'}}}}{_E},note:{_E}true{_E},days:{_E}42{_E}}}{_FE}{_FS}call:search{{limit:{_E}{{"名": -7}}'
     f'{_E}}}{_FE}\n'),
    ('functiongemma', None, 'ws_before_end_fixed',
     f'Done!{_FS}call:not_a_tool{{city:{_E}a, b; c{_E},detailed:{_E}false{_E},temp:{_E}0{_E}}}'
     f'{_FE}\nSure.{_FS}call:get_weather{{options:{_E}{{"a": {{}}, "k": {{"a": "null", "x y": {{}}'
     f'}}}}{_E},note:{_E}true{_E},days:{_E}42{_E}}}{_FE}{_FS}call:search{{limit:{_E}{{"名": -7}}'
     f'{_E}}}{_FE}\n'),
    # hy_v3: a <tool_call> after the section's </tool_calls> is a call (vLLM's batch; fixed)
    ('hy_v3', None, 'call_after_section',
     'Sure.<tool_calls>\n<tool_call>get_time<tool_sep>\n</tool_call>\n</tool_calls><tool_call>'
     'search<tool_sep><arg_key>query</arg_key><arg_value>x</arg_value></tool_call>'),
    ('hy_v3', None, 'call_after_section_text',
     'Sure.<tool_calls>\n<tool_call>get_time<tool_sep>\n</tool_call>\n</tool_calls>Then: <tool_'
     'call>search<tool_sep><arg_key>limit</arg_key><arg_value>3</arg_value></tool_call> done'
     '</tool_calls>'),
    # kimi_k2: a misspelt argument marker with a call after it (args_marker_broken: vLLM's
    # header reads on into the next call and takes its arguments)
    ('kimi_k2', None, 'misspelt_arg_begin_first',  # seed 15, kimi_k2/7
     'Calling the tool now.\n\n<|tool_calls_section_begin|><|tool_call_begin|>functions.get_w'
     'eather:0 <|too_call_argument_begin|>{\n  "temp": 2.0\n}<|tool_call_end|><|tool_call_begi'
     'n|>functions.get_time:1 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|'
     '>functions.search:2 <|tool_call_argument_begin|>{"limit": 0, "query": "S\\u00e3o Paulo"}'
     '<|tool_call_end|><|tool_calls_section_end|>好的，我来查一下。'),
    ('kimi_k2', None, 'misspelt_arg_begin_first_fixed',
     'Calling the tool now.\n\n<|tool_calls_section_begin|><|tool_call_begin|>functions.get_w'
     'eather:0 <|tool_call_argument_begin|>{\n  "temp": 2.0\n}<|tool_call_end|><|tool_call_beg'
     'in|>functions.get_time:1 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin'
     '|>functions.search:2 <|tool_call_argument_begin|>{"limit": 0, "query": "S\\u00e3o Paulo"'
     '}<|tool_call_end|><|tool_calls_section_end|>好的，我来查一下。'),
    # mistral v11: [TOOL_CALLS] ends the arguments inside a string a stray '"' left open (fixed)
    ('mistral', 'mistral', 'stray_quote',  # seed 15, mistral+mistral/2
     '[THINK]The user wants weather.\nI should call a tool.[/THINK]Let me check that for you.[T'
     'OOL_CALLS]get_weather{"note": null, "tags": [3.14, true, 100000], "city"": "42", "days": '
     '100000}[TOOL_CALLS]get_time{}[TOOL_CALLS]get_weather{\n  "days": -7,\n  "detailed": tru'
     'e,\n  "city": 3\n}'),
    # deepseek_v3: unbalanced arguments end at the closing fence and end marker (fixed)
    ('deepseek_v3', 'deepseek_r1', 'unbalanced_fence',  # seed 15, deepseek_v3+deepseek_r1/4
     '<think>ok\n\n</think>Let me check that for you.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>fu'
     'nction<｜tool▁sep｜>get_time\n```json\n{\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>Done!'),
    # hy_v4: calls after the section (behind a misspelt <tool_callss>) stay text: vLLM's strict
    # batch reads the first section only (text_after_calls; Hy3's rule is not Hy4's)
    ('hy_v4', None, 'calls_after_section',  # seed 16, hy_v4/2
     "I'll look it up.\n<tool_calls><tool_call>get_time</tool_call></tool_calls>好的，我来查一下。<t"
     'ool_callss><tool_call>not_a_tool<arg_key>days</arg_key><arg_value>42</arg_value></tool_c'
     'all><tool_call>get_time</tool_call></tool_calls>Sure.'),
    # step3: a misspelt <｜tool_call_end｜> (call_unclosed: vLLM's batch drops that call)
    ('step3', 'step3', 'misspelt_call_end',  # seed 16, step3+step3/4
     '<think>Let me think.</think>好的，我来查一下。<｜tool_calls_begin｜><｜tool_call_begin｜>function<'
     '｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="detailed">true</st'
     'eptml:parameter><steptml:parameter name="tags">[3.14, 42]</steptml:parameter></steptml:in'
     'voke><｜tool_call_ed｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_wea'
     'ther"><steptml:parameter name="temp">-0.5</steptml:parameter></steptml:invoke><｜tool_call'
     '_end｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="not_a_tool"><steptml:p'
     'arameter name="tags">[]</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls'
     '_end｜>Sure.'),
    ('step3', 'step3', 'misspelt_call_end_fixed',
     '<think>Let me think.</think>好的，我来查一下。<｜tool_calls_begin｜><｜tool_call_begin｜>function<'
     '｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="detailed">true</st'
     'eptml:parameter><steptml:parameter name="tags">[3.14, 42]</steptml:parameter></steptml:in'
     'voke><｜tool_call_end｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_we'
     'ather"><steptml:parameter name="temp">-0.5</steptml:parameter></steptml:invoke><｜tool_cal'
     'l_end｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="not_a_tool"><steptml:'
     'parameter name="tags">[]</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call'
     's_end｜>Sure.'),
    # step3: a section with no call (a misspelt call marker): section_end_dropped
    ('step3', None, 'no_call_section',  # seed 17, step3/5
     "I'll look it up.\n<｜tool_calls_begin｜><｜tool__call_begin｜>function<｜tool_sep｜><steptml:i"
     'nvoke name="get_time"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>OK'),
    # functiongemma: a value whose opening <escape> is misspelt is skipped with its key, as
    # vLLM's regex (fixed: tito read it as a bare value up to its own '}', losing the rest)
    ('functiongemma', None, 'misspelt_value_open',  # seed 18, functiongemma/3
     f'  {_FS}call:get_weather{{temp:{_E}2.0{_E},options:<escae>{{"名": 12345678901}}{_E},note:'
     f'{_E}null{_E},detailed:{_E}false{_E}}}{_FE}\n'),
    ('functiongemma', None, 'misspelt_value_open_last',
     f'{_FS}call:search{{query:{_E}x{_E},limit:<escpe>3{_E}}}{_FE}Done.'),
    # gigachat3: the function-call role without <|message_sep|> before it is still a call
    # (vLLM's regex finds it anywhere; fixed); vLLM's batch content is the whole output
    # (role_without_sep)
    ('gigachat3', None, 'role_without_sep',  # seed 18, gigachat3/0
     'Here you go:<|message_ep|>\n\nfunction call<|role_sep|>\n{"name": "get_time", "argumen'
     'ts": {}}'),
    # poolside_v1: a misspelt </tool_call> (call_unclosed: vLLM's batch drops that call)
    ('poolside_v1', None, 'misspelt_call_end',  # seed 18, poolside_v1+poolside_v1/3
     'Result below 🎉<tool_call>get_weather\n<arg_key>days</arg_key>\n<arg_value>100000</arg_v'
     'alue>\n</tool_call>Calling the tool now.\n\n<tool_call>get_time\n<//tool_call>  '),
    ('poolside_v1', None, 'misspelt_call_end_fixed',
     'Result below 🎉<tool_call>get_weather\n<arg_key>days</arg_key>\n<arg_value>100000</arg_v'
     'alue>\n</tool_call>Calling the tool now.\n\n<tool_call>get_time\n</tool_call>  '),
    # poolside_v1: text between a call whose </tool_call> is misspelt and the next call: vLLM
    # loses it in both paths (call_unclosed; tito keeps it as content)
    ('poolside_v1', None, 'misspelt_call_end_text',
     'Sure.<tool_call>get_time\n<//tool_call>Between calls.<tool_call>search\n<arg_key>query</'
     'arg_key>\n<arg_value>x</arg_value>\n</tool_call>Done.'),
    ('poolside_v1', None, 'misspelt_call_end_text_fixed',
     'Sure.<tool_call>get_time\n</tool_call>Between calls.<tool_call>search\n<arg_key>query</'
     'arg_key>\n<arg_value>x</arg_value>\n</tool_call>Done.'),
    # hy_v4: a section with no call (a misspelt </tool_call>): section_end_dropped
    ('hy_v4', None, 'no_call_section',  # seed 18, hy_v4+hy_v4/5
     "Here you go:<tool_calls><tool_call>get_time</tool_caall></tool_calls>I'll look it up.\n"),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fr_NAME``."""
    return rows_to_cases(_CASES, "fr_")
