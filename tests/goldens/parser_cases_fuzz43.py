"""Parser cases: what session 43 settled (issue 10), as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz43_``).
"""

from __future__ import annotations

from parser_cases_muse import TOOLS

_A = "<|start|>assistant"
_FC, _FCE = "<atem:function_calls>\n", "</atem:function_calls>"


def _param(key: str, value: str) -> str:
    return f'<atem:parameter name="{key}">{value}</atem:parameter>\n'


#: a tool channel whose invoke's closer is misspelt (``<atem:invoke>``: a dropped ``/``)
_MISSPELT = (f' to=run<|message|>{_FC}<atem:invoke name="run">\n' + _param("code", "x")
             + f"<atem:invoke>\n{_FCE}<|eom|>")
_WEATHER = (f'{_A} to=get_weather<|message|>{_FC}<atem:invoke name="get_weather">\n'
            + _param("city", "Paris") + f"</atem:invoke>\n{_FCE}<|eom|>")

#: (tool, reasoning, id, text)
_CASES: list[tuple[str | None, str | None, str, str]] = [
    # muse: an invoke whose closer is misspelt runs on, in vLLM (batch and stream), into the
    # next tool channel (the channels' bodies joined with \n), whose invoke opener it skips and
    # whose parameters it takes, to that invoke's </atem:invoke>: one call; tito ends it with
    # its channel (truncated_call; fuzz seed 120, fuzz/muse/0)
    *((t, r, "misspelt_closer_next_channel", _MISSPELT + _WEATHER)
      for t, r in (("muse", None), ("muse", "muse"))),
    *((t, r, "misspelt_closer_then_answer", _MISSPELT + f"{_A} to=user<|message|>ok<|eot|>")
      for t, r in (("muse", None), ("muse", "muse"))),
    # muse_glimmer: a reasoning message whose <|eom|> is misspelt (<||eom|>) ends at the next
    # header; Glimmer's reasoning parser's body runs to its to=NAME, the <|start|>assistant
    # framing included (fuzz seed 120, fuzz/muse_glimmer+muse_glimmer/0)
    *((t, r, f"misspelt_eom{k}",
       f" to=self<|message|>Let me check.<||eom|>{_A}{sp}to=get_weather<|message|>{_FC}"
       f'<atem:invoke name="get_weather">\n' + _param("city", "Paris")
       + f"</atem:invoke>\n{_FCE}<|eom|>")
      for t, r in (("muse_glimmer", None), ("muse_glimmer", "muse_glimmer"))
      for k, sp in (("", " "), ("_no_space", ""))),
    # lfm2: a quote not followed by , ) ] } : is a nested quote, the string's text, as vLLM's
    # requote repair reads it (fuzz seed 122, fuzz/lfm2/3: tito closed the string there and
    # made the rest content); ambiguous: vLLM's needs exactly one closing quote after which the
    # whole block parses (else the block is content), tito takes the first
    *(("lfm2", None, f"nested_quote_{k}", f"<|tool_call_start|>[{call}]<|tool_call_end|>{after}")
      for k, call, after in (
          ("doubled", "get_weather(n=2, city='true''), run()", "\n"),
          ("word", "get_weather(city='it's ok')", ""),
          ("double_quotes", 'get_weather(city="say "hi" now")', ""),
          ("spaced", "get_weather(city='a' b'  , n=1)", ""),
          ("key", "run(opts={'a'b': 1})", ""),
          ("ambiguous", "get_weather(city='a'b', code='c')", ""))),
    # step5: the output ends in a bare <function= (a cut header, no name): vLLM's batch keeps it
    # as content, its stream drops it, as tito (fuzz seed 124, fuzz/step5+step5/5)
    *((t, r, "cut_bare_opener", f"{lead}see <function=")
      for t, r, lead in (("step5", "step5", "<think>r</think>"), ("step5", None, ""))),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz43_NAME``."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/fz43_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS if tool else [], "text": text}
            for tool, reasoning, name, text in _CASES]
