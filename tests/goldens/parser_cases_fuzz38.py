"""Parser cases: what ``conformance/fuzz_parsers.py`` found in session 38 (seed 110's two open
findings, then seeds 36+ and 114+), settled as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). The texts marked with a seed are the
fuzzer's outputs as it generated them (its tools, ``parser_cases_fuzz9_granite_glm.TOOLS``); the
others isolate one rule each. Expected outputs are recorded from vLLM 0.33's classes
(``record_parsers.py`` with the ids' prefixes: they hold ``/fz38_``); where tito deliberately
differs, ``parser_deviations_fuzz38`` says what tito gives and why (docs/conformance.md names
each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import rows_to_cases

_DB, _DE = "<dots_function_call>\n", "\n</dots_function_call>"
_MW = ('<atem:function_calls>\n<atem:invoke name="get_weather">\n</atem:invoke>\n'
       '</atem:function_calls>')

#: (tool, reasoning, id, text)
_CASES: list[tuple[str, str | None, str, str]] = [
    # dots: a quoted name keeps the spaces inside its quotes (vLLM's _extract_name strips around
    # the quotes, not inside): `" get_time"` names no tool, batch and stream (fixed: tito
    # stripped it and made the call)
    ('dots', None, 'spaced_name',  # seed 110, dots/5
     '好的，我来查一下。<dots_function_call>\n <invoke name=" get_time">\n</invoke>\n</dots_functi'
     'on_call>\n<dots_function_call>\n<invoke name="not_a_tool">\n<parameter name="detailed">true'
     '</parameter>\n<parameter name="temp">-0.5</parameter>\n<parameter name="city">it\'s</param'
     'eter>\n<parameter name="tags">[true]</parameter>\n</invoke>\n<invoke name="get_time">\n</in'
     'voke>\n</dots_function_call>Here you go:'),
    ('dots', None, 'spaced_name_then_call',
     f'{_DB}<invoke name="get_time ">\n</invoke>\n<invoke name="get_weather">\n<parameter name="c'
     f'ity">Paris</parameter>\n</invoke>{_DE}'),
    ('dots', None, 'spaced_key',
     f'{_DB}<invoke name="get_weather">\n<parameter name=" city">Paris</parameter>\n<parameter '
     f'name="days "> 3 </parameter>\n<parameter name="temp">2.5</parameter>\n</invoke>{_DE}'),
    ('dots', None, 'spaces_outside_quotes',
     f'{_DB}<invoke name= "get_weather" >\n<parameter name= \'days\' >3</parameter>\n</invoke>{_DE}'),
    # minimax_m2: a name's quotes may be missing or mismatched (vLLM's engine: an optional
    # quote, the name up to '>', an optional quote before it; batch and stream); fixed: tito's
    # name header failed and the invoke was content
    ('minimax_m2', None, 'name_open_quote_dropped',  # seed 36, minimax_m2/1
     '好的，我来查一下。<minimax:tool_call>\n<invoke name=get_weather">\n<parameter name="tags">[fa'
     'lse]</parameter>\n</invoke>\n</minimax:tool_call>Calling the tool now.\n\n'),
    *(('minimax_m2', None, f'name_quotes_{k}',
       f'<minimax:tool_call>\n<invoke {h}\n<parameter name="city">Paris</parameter>\n</invoke>\n'
       '</minimax:tool_call>')
      for k, h in (('close_dropped', 'name="get_weather>'), ('mixed', "name=\"get_weather'>"),
                   ('single_double', 'name=\'get_weather">'), ('bare_single', "name=get_weather'>"),
                   ('spaced_quotes', 'name= "get_weather" >'), ('space_before_gt', 'name="get_weather" >'))),
    # muse, the tool parser alone: a <|message|> written in the text opens a reasoning message
    # that a header without <|eom|> ends; the spaces before that header are the reasoning's, as
    # vLLM's composed parsers and its reasoning parser alone (batch and stream); vLLM's tool
    # parser alone gives no reasoning in its batch, and its stream gives them to the header or,
    # one token per delta, leaks its held " to" (documented: muse_no_eom_before_header)
    ('muse', None, 'message_as_text',  # seed 110, muse/0
     f"The <|message|> token I'll look it up.\n to=get_weather<|message|>{_MW}<|eom|>\n"),
    ('muse', 'muse', 'message_as_text',
     f"The <|message|> token I'll look it up.\n to=get_weather<|message|>{_MW}<|eom|>\n"),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz38_NAME``."""
    return rows_to_cases(_CASES, "fz38_")
