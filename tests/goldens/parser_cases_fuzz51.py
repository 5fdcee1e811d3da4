"""Parser cases: what session 51 settled (issue 10), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz51_``).
"""

from __future__ import annotations

from parser_cases_inkling import PROMPT, TOOLS

M, TX, TH = "<|message_model|>", "<|content_text|>", "<|content_thinking|>"
TJ, E = "<|content_invoke_tool_json|>", "<|end_message|>"

#: Inkling (parser fuzz seed 172, ``fuzz/inkling+inkling/2``): a tool marker written in text,
#: its body no JSON, with a thinking block opened inside it. vLLM's batch reasoning pass reads
#: the tool block as text and reopens reasoning at ``<|content_thinking|>``, its framing
#: markers and the answer in it; its stream hands the block to the tool grammar, which drops
#: it. tito gives vLLM's stream (``reopen_after_call``).
INKLING_REOPEN = {
    "thinking_in_call_text": f"The {TJ} token Sure.{TH}Let me check.{E}{M}{TX}Done.{E}",
    "thinking_in_call_text_after_reasoning":
        f"{TH}Let me check.{E}{M}The {TJ} token Sure.{TH}more{E}{M}{TX}Done.{E}",
}


def cases() -> list[dict]:
    """The cases, ids ``TOOL+REASONING/fz51_NAME``."""
    return [{"id": f"inkling+inkling/fz51_{name}", "tool": "inkling", "reasoning": "inkling",
             "tools": TOOLS, "prompt": PROMPT, "text": text}
            for name, text in INKLING_REOPEN.items()]
