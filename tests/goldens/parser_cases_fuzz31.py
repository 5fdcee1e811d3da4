"""Parser cases: what ``conformance/fuzz_parsers.py`` found at seeds 31 and 32 (session 37),
settled as documented cases.

A module of its own (``parser_cases.CASES`` includes it). The texts marked with a seed are the
fuzzer's outputs as it generated them (its tools, ``parser_cases_fuzz9_granite_glm.TOOLS``); the
others isolate one rule each. Expected outputs are recorded from vLLM 0.33's classes
(``record_parsers.py deepseek_v31/fz31_ qwen3_coder/fz31_ minimax_m2/fz31_``); where tito deliberately differs,
``parser_deviations_fuzz31`` says what tito gives and why (docs/conformance.md names each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import rows_to_cases

_CS, _CE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_C, _S, _E = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"

#: (tool, reasoning, id, text)
_CASES: list[tuple[str, str | None, str, str]] = [
    # deepseek_v31: a call whose arguments do not open as a JSON object (a '>' before the '{'):
    # vLLM makes the call with that text as its arguments (batch and one-token stream; its
    # stream in chunks loses them); tito keeps the call's text as content (args_not_json)
    ('deepseek_v31', None, 'args_not_json',  # seed 31, deepseek_v31+deepseek_v3/4, its block cut
     f'OK{_CS}{_C}get_weather{_S}{{}}{_E}{_C}get_time{_S}>{{}}{_E}{_CE}好的，我来查一下。'),
    ('deepseek_v31', None, 'args_not_json_first',
     f'OK{_CS}{_C}get_time{_S}>{{}}{_E}{_C}get_weather{_S}{{"city": "Paris"}}{_E}{_CE}done'),
    ('deepseek_v31', None, 'args_not_json_only',
     f'OK{_CS}{_C}get_weather{_S}x{{"city": "Paris"}}{_E}{_CE}done'),
    # qwen3_coder: '<function=' written as text right before the section's token: vLLM's engine
    # opens a call there named with the text up to that token ('Sure.'); tito's name header
    # must end with '>', so that text is content (markup_name, as qwen3_xml/fz_function_as_text)
    ('qwen3_coder', None, 'function_name_cut',  # seed 31, qwen3_coder/0
     '<function=Sure.<tool_call>\n<function=get_weather>\n<parameter=city>\n50% off & more\n</pa'
     'rameter>\n</function>\n<function=get_weather>\n<parameter=city>\n[1, 2]\n</parameter>\n</fu'
     'nction>\n</tool_call>'),
    # minimax_m2: an invoke whose header lost its '>' inside a section: vLLM's name runs to the
    # next invoke's (no tool: both lost, batch and stream); tito keeps its text as content and
    # makes the next call (call_unclosed)
    ('minimax_m2', None, 'invoke_header_cut',  # seed 32, minimax_m2/0
     'Let me check that for you.<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n</minima'
     'x:tool_call>Calling the tool now.\n\n<minimax:tool_call>\n<invoke name="get_weather"\n</in'
     'voke>\n<invoke name="get_weather">\n<parameter name="city">two\nlines</parameter>\n<parame'
     'ter name="temp">-0.5</parameter>\n<parameter name="note">null</parameter>\n<parameter name='
     '"tags">[42, {}, true]</parameter>\n</invoke>\n</minimax:tool_call>Let me check that for you.'),
    ('minimax_m2', None, 'invoke_header_cut_fixed',
     'Let me check that for you.<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n</minima'
     'x:tool_call>Calling the tool now.\n\n<minimax:tool_call>\n<invoke name="get_weather">\n<par'
     'ameter name="city">two\nlines</parameter>\n<parameter name="temp">-0.5</parameter>\n<param'
     'eter name="note">null</parameter>\n<parameter name="tags">[42, {}, true]</parameter>\n</inv'
     'oke>\n</minimax:tool_call>Let me check that for you.'),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz31_NAME``."""
    return rows_to_cases(_CASES, "fz31_")
