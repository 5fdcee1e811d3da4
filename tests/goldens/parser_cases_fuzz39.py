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
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz39_NAME`` (``REASONING/fz39_NAME`` for a reasoning
    parser alone: no tool parser, no tools)."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/fz39_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS if tool else [], "text": text}
            for tool, reasoning, name, text in _CASES]
