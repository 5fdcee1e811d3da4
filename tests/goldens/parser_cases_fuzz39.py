"""Parser cases: what ``conformance/fuzz_parsers.py`` found in session 39 (seeds 37+ and 114+,
``-n 6``, all names), settled as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). The texts marked with a seed are the
fuzzer's outputs as it generated them (its tools, ``parser_cases_fuzz9_granite_glm.TOOLS``); the
others isolate one rule each. Expected outputs are recorded from vLLM 0.33's classes
(``record_parsers.py`` with the ids' prefixes: they hold ``/fz39_``); where tito deliberately
differs, ``parser_deviations_fuzz39`` says what tito gives and why (docs/conformance.md names
each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import TOOLS

_KO, _KC = "<|open|>think<|sep|>", "<|close|>think<|sep|>"
_DSB, _DSE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"


def _ds3(args: str, name: str = "get_weather") -> str:
    """A DeepSeek-V3 call whose fenced arguments are ``args``."""
    return f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>"


_A = '{"city": "Paris"}'

#: (tool, reasoning, id, text)
_CASES: list[tuple[str | None, str | None, str, str]] = [
    # kimi_k3: the block is open from the output's start; text before a written
    # <|open|>think<|sep|> stays reasoning, the opener dropped (vLLM's stream, one token per
    # delta; its batch starts the reasoning after the opener and drops the text before it:
    # documented, text_kept, as deepseek_r1's / hy_v4's <think>)
    ('kimi_k3', 'kimi_k3', 'text_before_open',  # seed 37, kimi_k3+kimi_k3/0
     f"The <|close|>argument<|sep|> token {_KO}{_KC}Done!OK"),
    (None, 'kimi_k3', 'reasoning_text_before_open', f"a {_KO}b{_KC}answer"),
    (None, 'kimi_k3', 'reasoning_text_before_empty_block', f"a {_KO}{_KC}answer"),
    # deepseek_v3: the arguments are the text between the fence's newline and the closing
    # fence's, whitespace around the JSON included (vLLM's regex, batch; its stream drops a
    # trailing newline run); fixed: tito stripped it
    ('deepseek_v3', None, 'args_ws_lead_newline',  # seed 114, deepseek_v3/4
     'Let me check that for you.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_w'
     'eather\n```json\n{"detailed":false,"temp":15000000000.0}\n```<｜tool▁call▁end｜><｜tool▁call▁be'
     'gin｜>function<｜tool▁sep｜>not_a_tool\n```json\n\n{"note": "\\u00fcn\\u00efc\\u00f6d\\u00e9 \\u'
     '2211", "days": 42}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>Result below 🎉'),
    *(('deepseek_v3', None, f'args_ws_{k}', f"{_DSB}{_ds3(a)}{_DSE}")
      for k, a in (('lead_space', f" {_A}"), ('lead_newline_spaces', f"\n  {_A}"),
                   ('trail_spaces', f"{_A}  "), ('trail_newline', f"{_A}\n"),
                   ('both_newlines', f"\n{_A}\n"))),
    # gigachat3: vLLM's batch re-serializes the arguments (json.dumps), its stream sends them
    # as written, as tito (documented: batch_reserializes; the classifier lacked gigachat3)
    ('gigachat3', None, 'misspelt_sep_args_ws',  # seed 38, gigachat3/5
     'Let me check that for you.<|messsage_sep|>\n\nfunction call<|role_sep|>\n{"name": "search'
     '", "arguments": {\n  "query": "a, b; c"\n}}\n'),
    ('gigachat3', None, 'args_ws',
     '<|message_sep|>function call<|role_sep|>\n{"name": "search", "arguments": {\n  "query": '
     '"x",\n  "limit":3\n}}'),
    ('deepseek_v3', None, 'args_ws_second_call',
     f"{_DSB}{_ds3(_A)}{_ds3(chr(10) + _A, 'get_time')}{_DSE}x"),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz39_NAME`` (``REASONING/fz39_NAME`` for a reasoning
    parser alone: no tool parser, no tools)."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/fz39_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS if tool else [], "text": text}
            for tool, reasoning, name, text in _CASES]
