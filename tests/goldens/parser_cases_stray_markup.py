"""Parser cases: the residue of ``conformance/fuzz_parsers.py`` seeds 9-14 (issue 10, session
32): stray, misspelt or broken markup (a call marker written as text, a misspelt call opener or
closer, a broken list element, an unclosed string), settled as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). The texts marked with a seed are the
fuzzer's outputs as it generated them (its tools, copied in
``parser_cases_fuzz9_granite_glm.TOOLS``); the others isolate one rule each. Expected outputs are
recorded from vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold
``/fz_``); where tito deliberately differs, ``parser_deviations_stray_markup`` says what tito
gives and why (docs/conformance.md names each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import rows_to_cases

#: (tool, reasoning, id, text)
_CASES: list[tuple[str, str | None, str, str]] = [
    # granite: a broken list element (a stray quote, a missing comma): vLLM's engine still greps
    # its name and carves its arguments (``{}`` when none); tito makes it content (element_loose),
    # and string arguments (string_args)
    ('granite', None, 'loose_quote_args',  # seed 10, granite/11
     'OK<tool_call>[{"name": "get_time", "arguments"": {}}]Done!'),
    ('granite', None, 'loose_quote_name',  # seed 11, granite/29
     'Sure.<|tool_call|>[{""name": "get_time", "arguments": {}}]Result below 🎉'),
    ('granite', 'granite', 'loose_missing_comma',  # seed 14, granite+granite/4
     '  spaced thought  Here is my response:Calling the tool now.\n'
     '\n<tool_call>[{"name": "get_time", "arguments": {}}, {"name": "get_weather" "arguments"'
     ': {"tags":["say \\"hi\\"",{}],"detailed":false,"days":-7,"options":{"a":[]}}}]Here you '
     'go:'),
    ('granite', None, 'args_string',  # seed 11, granite/16
     'Calling the tool now.\n\n<|tool_call|>[{"name": "search", "arguments": {"limit": {"x y"'
     ': 42, "k": 1e-05, "\\u540d": "null"}, "query": "say \\"hi\\""}}, {"name": "search", "ar'
     'guments": "limit": 42, "query": "back\\\\slash"}}]'),
    # step3 / hy_v3 / kimi_k2: text in a section that is no call (a misspelt call marker, a broken
    # header): the next call is read (fixed); step3's misspelt ``function``: vLLM's stream
    ('step3', None, 'misspelt_function',  # seed 9, step3/17
     'Calling the tool now.\n\n<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><st'
     'eptml:invoke name="not_a_tool"><steptml:parameter name="tags">[]</steptml:parameter></s'
     'teptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>funcction<｜tool_sep｜><steptml:invoke '
     'name="get_weather"><steptml:parameter name="days">12345678901</steptml:parameter></step'
     'tml:invoke><｜tool_call_end｜><｜tool_calls_end｜>Done!'),
    ('step3', None, 'misspelt_call_begin',  # seed 10, step3/2
     'Done!<｜tool_calls_begin｜><｜tol_call_begin｜>function<｜tool_sep｜><steptml:invoke name="no'
     't_a_tool"><steptml:parameter name="options">{}</steptml:parameter><steptml:parameter na'
     'me="temp">-0.5</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>'
     'function<｜tool_sep｜><steptml:invoke name="not_a_tool"><steptml:parameter name="detailed'
     '">false</steptml:parameter><steptml:parameter name="tags">[]</steptml:parameter><steptm'
     'l:parameter name="temp">15000000000.0</steptml:parameter></steptml:invoke><｜tool_call_e'
     "nd｜><｜tool_calls_end｜>I'll look it up.\n"),
    ('step3', None, 'broken_invoke',  # seed 13, step3/8
     'Here you go:<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke '
     'nae="search"><steptml:parameter name="limit">42</steptml:parameter><steptml:parameter n'
     'ame="query">東京</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>'
     'function<｜tool_sep｜><steptml:invoke name="search"><steptml:parameter name="query">true<'
     '/steptml:parameter><steptml:parameter name="limit">12345678901</steptml:parameter></ste'
     'ptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>'),
    ('hy_v3', None, 'misspelt_call_begin',  # seed 13, hy_v3/0
     'OK<tool_calls>\n<tol_call>not_a_tool<tool_sep>\n'
     '<arg_key>days</arg_key>\n<arg_value>-7</arg_value>\n'
     '<arg_key>note</arg_key>\n<arg_value>null</arg_value>\n'
     '<arg_key>temp</arg_key>\n<arg_value>0</arg_value>\n'
     '</tool_call>\n<tool_call>get_weather<tool_sep>\n'
     '<arg_key>note</arg_key>\n<arg_value>ünïcödé ∑</arg_value>\n'
     '<arg_key>city</arg_key>\n<arg_value>back\\slash</arg_value>\n'
     '<arg_key>detailed</arg_key>\n<arg_value>false</arg_value>\n'
     '</tool_call>\n</tool_calls>  '),
    ('kimi_k2', 'kimi_k2', 'misspelt_call_begin',  # seed 14, kimi_k2+kimi_k2/0
     '<think>Let me think.</think>\n<|tool_calls_section_begin|><|toool_call_begin|>functions'
     '.get_time:0 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>functions'
     '.search:1 <|tool_call_argument_begin|>{\n  "limit": 12345678901\n'
     '}<|tool_call_end|><|tool_calls_section_end|>Done!'),
    ('kimi_k2', 'kimi_k2', 'misspelt_call_end',  # seed 9, kimi_k2+kimi_k2/15
     '<think>嗯，想一想。</think>Result below 🎉<|tool_calls_section_begin|><|tool_call_begin|>funct'
     'ions.get_weather:0 <|tool_call_argument_begin|>{"tags":[],"options":{"a":15000000000.0,'
     '"名":false},"days":-7}<|tool_call_end|><|tool_call_begin|>functions.not_a_tool:1 <|tool_'
     'call_argument_begin|>{"options": {}, "tags": [], "city": "null"}|tool_call_end|><|tool_'
     'call_begin|>functions.search:2 <|tool_call_argument_begin|>{"query": 0, "limit": 123456'
     '78901}<|tool_call_end|><|tool_calls_section_end|>'),
    # GLM / deepseek_v32: a call opener written as text before a real call, a misspelt closer:
    # vLLM's call runs to the next closer (call_unclosed)
    ('glm45', None, 'marker_as_text',  # seed 10, glm45/24
     'Use <tool_call> to call. Here you go:<tool_call>get_time\n'
     '</tool_call>Result below 🎉'),
    ('ling3', None, 'marker_as_text',  # seed 12, ling3/1
     'The <tool_call> token 好的，我来查一下。<tool_call>get_weather<arg_key>note</arg_key><arg_value>'
     "null</arg_value><arg_key>city</arg_key><arg_value>it's</arg_value><arg_key>tags</arg_ke"
     'y><arg_value>[100000, 3, 0]</arg_value></tool_call>好的，我来查一下。'),
    ('glm47', 'glm47', 'marker_as_text',  # seed 14, glm47+glm47/7
     'Use <tool_call> to call. ok\n\n</think>Calling the tool now.\n'
     '\n<tool_call>get_weather<arg_key>note</arg_key><arg_value>tab\there</arg_value><arg_key'
     '>temp</arg_key><arg_value>1e-05</arg_value></tool_call>\n'
     '<tool_call>get_weather<arg_key>tags</arg_key><arg_value>[100000]</arg_value><arg_key>no'
     'te</arg_key><arg_value>null</arg_value><arg_key>days</arg_key><arg_value>-7</arg_value>'
     '</tool_call>\n<tool_call>search<arg_key>limit</arg_key><arg_value>12345678901</arg_valu'
     'e></tool_call>Calling the tool now.\n\n'),
    ('ling3', None, 'misspelt_call_end',  # seed 12, ling3/4
     'Sure.<tool_call>get_weather<arg_key>city</arg_key><arg_value>\\u00e9 literal</arg_value'
     '></tool_call>\n<tool_call>get_weather<arg_key>detailed</arg_key><arg_value>false</arg_v'
     'alue></toolcall>\n<tool_call>not_a_tool<arg_key>temp</arg_key><arg_value>98.6</arg_valu'
     'e></tool_call>Done!'),
    ('glm47', 'glm47', 'misspelt_call_end',  # seed 13, glm47+glm47/0
     '<think>  spaced thought  </think>  <tool_call>search<arg_key>query</arg_key><arg_value>'
     '{not json}</arg_value><arg_key>limit</arg_key><arg_value>-7</arg_value></tool__call>\n'
     '<tool_call>get_time</tool_call>  '),
    ('deepseek_v4', 'deepseek_v4', 'misspelt_invoke_end',  # seed 104, deepseek_v4+deepseek_v4/5
     '<think>The user wants weather.\nI should call a tool.</think>\n<｜DSML｜tool_calls>\n'
     '<｜DSML｜invoke name="get_time">\n</｜DSML｜｜invoke>\n<｜DSML｜invoke name="not_a_tool">'
     '\n<｜DSML｜parameter name="days" string="false">42</｜DSML｜parameter>\n<｜DSML｜paramet'
     'er name="tags" string="false">[3.14, {"a": 1e-05, "名": 98.6}]</｜DSML｜parameter>\n'
     '<｜DSML｜parameter name="note" string="false">null</｜DSML｜parameter>\n</｜DSML｜invok'
     'e>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="options" string="fal'
     'se">{"a": "null", "x y": {"名": {}}}</｜DSML｜parameter>\n<｜DSML｜parameter name="tem'
     'p" string="false">1e-05</｜DSML｜parameter>\n<｜DSML｜parameter name="note" string="f'
     'alse">null</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>OK'),
    ('deepseek_v32', None, 'misspelt_invoke_end',  # seed 14, deepseek_v32/1
     'Result below 🎉<｜DSML｜function_calls>\n<｜DSML｜invoke name="not_a_tool">\n'
     '<｜DSML｜parameter name="temp" string="false">1e-05</｜DSML｜parameter>\n'
     '<｜DSML｜parameter name="tags" string="false">[]</｜DSML｜parameter>\n'
     '</｜DSML｜invoke>\n<｜DSML｜invoke name="get_weather">\n'
     '<｜DSML｜parameter name="city" string="true">it\'s</｜DSML｜parameter>\n'
     '<｜DSML｜parameter name="days" string="false">-7</｜DSML｜parameter>\n'
     '<｜DSML｜parameter name="detailed" string="false">true</｜DSML｜parameter>\n'
     '</｜DSML｜nvoke>\n<｜DSML｜invoke name="search">\n'
     '<｜DSML｜parameter name="limit" string="false">42</｜DSML｜parameter>\n'
     '<｜DSML｜parameter name="query" string="true">Paris</｜DSML｜parameter>\n'
     '</｜DSML｜invoke>\n</｜DSML｜function_calls>'),
    # qwen3_xml / mimo: ``<function=`` written as text: vLLM names a call with the text (markup_name)
    ('qwen3_xml', None, 'function_as_text',  # seed 13, qwen3_xml/6
     'The <function= token   <tool_call>\n<function=get_weather>\n'
     '</function>\n</tool_call>'),
    ('mimo', None, 'function_as_text',  # seed 14, mimo/7
     'The <function= token \n<tool_call><function=get_weather></function></tool_call><tool_ca'
     'll><function=get_weather></function></tool_call>Calling the tool now.\n'
     '\n'),
    # gemma4: a misspelt <tool_call|> after the arguments (gemma4_after_args); an unclosed string
    # (fixed: the call's ``}`` and trailing whitespace are not its text)
    ('gemma4', 'gemma4', 'misspelt_call_end',  # seed 10, gemma4+gemma4/10
     '<|channel>thought\nThe user wants weather.\n'
     'I should call a tool.  <|tool_call>call:not_a_tool{note:null,options:{},tags:[42, 2.0],'
     'city:<|"|>東京<|"|>}<too_call|>\n<|tool_call>call:not_a_tool{temp:3.14,options:{k:1e-05}}'
     '<tool_call|><|channel>thought\nok\n\n  '),
    ('gemma4', 'gemma4', 'cut_call_end',  # seed 14, gemma4+gemma4/1
     "<|channel>thought\nok\n\nI'll look it up.\n<|tool_call>call:get_time{}<tool_call|<|tool"
     '_call>call:not_a_tool{options:{}}<tool_call|>OK'),
    ('gemma4', 'gemma4', 'unclosed_string',  # seed 14, gemma4+gemma4/6
     'Let me think.<channel|>  <|tool_call>call:get_weather{tags:[],note:<|"|> padded <|"|,da'
     'ys:42}<tool_call|>'),
    ('gemma4', None, 'unclosed_string',
     '<|tool_call>call:get_weather{tags:[],note:<|"|> padded <|"|,days:42}<tool_call|>'),
    ('gemma4', None, 'unclosed_string_ws',
     '<|tool_call>call:get_weather{city:<|"|>x  }  <tool_call|>'),
    ('gemma4', None, 'unclosed_string_nested',
     '<|tool_call>call:get_weather{options:{b:<|"|>x}}<tool_call|>'),
    ('gemma4', None, 'unclosed_string_typed',
     '<|tool_call>call:get_weather{days:<|"|>42 } <tool_call|>'),
    ('gemma4', None, 'unclosed_string_text_after',
     '<|tool_call>call:get_weather{city:<|"|>x}y<tool_call|>'),
    ('gemma4', None, 'string_closed_brace',
     '<|tool_call>call:get_weather{days:<|"|>42 }<|"|>}<tool_call|>'),
    # deepseek_v31: the arguments are the raw text between the separator and the call's end,
    # whitespace included (fixed)
    ('deepseek_v31', None, 'args_ws',  # seed 10, deepseek_v31/0
     '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{} <｜tool▁call▁end｜>\n'
     '<｜tool▁call▁begin｜>search<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'),
    ('deepseek_v31', None, 'args_ws_newline',  # seed 14, deepseek_v31/3
     'Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>not_a_tool<｜tool▁sep｜>{"days": -7, "tags": '
     '[], "detailed": true}  \n<｜tool▁call▁end｜><｜tool▁calls▁end｜>'),
    ('deepseek_v31', None, 'args_ws_around',
     '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜> {"city": "x"} <｜tool▁cal'
     'l▁end｜><｜tool▁calls▁end｜>'),
    ('deepseek_v31', None, 'args_ws_then_section_end',
     '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{}   <｜tool▁calls▁end｜>x'),
    # kimi_k2: a misspelt argument marker (args_marker_broken); deepseek_v31: a string the model
    # never closed ends at the call's end marker (fixed); hy_v3: a misspelt closer (call_unclosed)
    ('kimi_k2', None, 'misspelt_arg_begin',  # seed 11, kimi_k2/25
     'Calling the tool now.\n\n<|tool_calls_section_begin|><|tool_call_begin|>functions.get_w'
     'eather:0 <|tool_call_argument_begin|>{\n  "city": "Paris"\n'
     '}<|tool_call_end|><|tool_call_begin|>functions.not_a_tool:1 <|tool_call_argumet_begin|>'
     '{"tags": ["Paris"], "temp": 0, "days": 42}<|tool_call_end|><|tool_calls_section_end|>He'
     're you go:'),
    ('deepseek_v31', None, 'open_string',  # seed 13, deepseek_v31/29
     'OK<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>not_a_tool<｜tool▁sep｜>{note": null, "days": 42'
     '}<｜tool▁call▁end｜><｜tool▁calls▁end｜>OK'),
    ('hy_v3', 'hy_v3', 'misspelt_call_end',  # seed 13, hy_v3+hy_v3/22
     '<think>  spaced thought  </think>Result below 🎉<tool_calls>\n'
     '<tool_call>not_a_tool<tool_sep>\n<arg_key>days</arg_key>\n'
     '<arg_value>42</arg_value>\n</ttool_call>\n<tool_call>get_weather<tool_sep><arg_key>city'
     '</arg_key><arg_value>back\\slash</arg_value><arg_key>tags</arg_key><arg_value>[false, f'
     'alse, 100000]</arg_value><arg_key>note</arg_key><arg_value>\\u00e9 literal</arg_value><'
     'arg_key>temp</arg_key><arg_value>15000000000.0</arg_value></tool_call>\n'
     "</tool_calls>I'll look it up.\n"),
    # the same outputs with the marker written as text left out or the misspelt closer spelt
    # right: vLLM's calls there are the calls tito makes of the outputs above (the deviations' reference)
    ('glm45', None, 'marker_as_text_alone',
     'Here you go:<tool_call>get_time\n</tool_call>Result below 🎉'),
    ('ling3', None, 'marker_as_text_alone',
     '好的，我来查一下。<tool_call>get_weather<arg_key>note</arg_key><arg_value>null</arg_value><arg_k'
     "ey>city</arg_key><arg_value>it's</arg_value><arg_key>tags</arg_key><arg_value>[100000, "
     '3, 0]</arg_value></tool_call>好的，我来查一下。'),
    ('glm47', 'glm47', 'marker_as_text_alone',
     'ok\n\n</think>Calling the tool now.\n\n<tool_call>get_weather<arg_key>note</arg_key><ar'
     'g_value>tab\there</arg_value><arg_key>temp</arg_key><arg_value>1e-05</arg_value></tool_'
     'call>\n<tool_call>get_weather<arg_key>tags</arg_key><arg_value>[100000]</arg_value><arg'
     '_key>note</arg_key><arg_value>null</arg_value><arg_key>days</arg_key><arg_value>-7</arg'
     '_value></tool_call>\n<tool_call>search<arg_key>limit</arg_key><arg_value>12345678901</a'
     'rg_value></tool_call>Calling the tool now.\n'
     '\n'),
    ('gemma4', 'gemma4', 'misspelt_call_end_fixed',
     '<|channel>thought\nThe user wants weather.\n'
     'I should call a tool.  <|tool_call>call:not_a_tool{note:null,options:{},tags:[42, 2.0],'
     'city:<|"|>東京<|"|>}<tool_call|>\n<|tool_call>call:not_a_tool{temp:3.14,options:{k:1e-05}'
     '}<tool_call|><|channel>thought\nok\n\n  '),
    ('gemma4', 'gemma4', 'cut_call_end_fixed',
     "<|channel>thought\nok\n\nI'll look it up.\n<|tool_call>call:get_time{}<tool_call|><|too"
     'l_call>call:not_a_tool{options:{}}<tool_call|>OK'),
    ('hy_v3', 'hy_v3', 'misspelt_call_end_fixed',
     '<think>  spaced thought  </think>Result below 🎉<tool_calls>\n'
     '<tool_call>not_a_tool<tool_sep>\n<arg_key>days</arg_key>\n'
     '<arg_value>42</arg_value>\n</tool_call>\n<tool_call>get_weather<tool_sep><arg_key>city<'
     '/arg_key><arg_value>back\\slash</arg_value><arg_key>tags</arg_key><arg_value>[false, fa'
     'lse, 100000]</arg_value><arg_key>note</arg_key><arg_value>\\u00e9 literal</arg_value><a'
     'rg_key>temp</arg_key><arg_value>15000000000.0</arg_value></tool_call>\n'
     "</tool_calls>I'll look it up.\n"),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz_NAME``."""
    return rows_to_cases(_CASES, "fz_")
