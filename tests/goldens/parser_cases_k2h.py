"""issue 10's parser cases: vLLM 0.33's k2_horizon reasoning parser (markers by effort).

A module of its own (``parser_cases.CASES`` includes it). Shapes from vLLM's class
(``k2_horizon_reasoning_parser.py``: DeepSeek-R1's rule, a start marker stripped only where the
output starts, ``<ifm|tool_calls>`` ends the block) and ours, for each ``reasoning_effort``
(absent: ``high``); expected outputs are recorded from vLLM's classes.
"""

from __future__ import annotations

TOOLS_START = "<ifm|tool_calls>"
EFFORTS = {"high": ("<ifm|think>", "</ifm|think>"),
           "medium": ("<ifm|think_fast>", "</ifm|think_fast>"),
           "low": ("<ifm|think_faster>", "</ifm|think_faster>")}
#: the markers, special tokens of the test tokenizer
MARKERS = [m for pair in EFFORTS.values() for m in pair] + [TOOLS_START]


def _texts(s: str, e: str, other: tuple[str, str]) -> dict[str, str]:
    return {
        "block": f"{s}hm{e}answer",
        "no_start": f"hm{e}answer",
        "ws": f"{s}\nhm\n{e}\n\nanswer",
        "empty_block": f"{s}{e}answer",
        "unclosed": f"{s}still thinking",
        "plain": "just text",
        "start_in_block": f"a{s}b{e}c",
        "repeated_end": f"a{e}b{e}c",
        "tool_start": f"hm{TOOLS_START}x",
        "end_after_tool": f"hm{TOOLS_START}x{e}y",
        "tool_after_end": f"hm{e}ok{TOOLS_START}x",
        "other_effort": f"{other[0]}hm{other[1]}answer{e}tail",
        "unicode": f"{s}想一想 é{e}答案",
    }


def cases() -> list[dict]:
    out = []
    names = list(EFFORTS)
    for tag, kw in (("", None), ("high_", {"reasoning_effort": "high"}),
                    ("medium_", {"reasoning_effort": "medium"}),
                    ("low_", {"reasoning_effort": "low"})):
        effort = (kw or {}).get("reasoning_effort", "high")
        other = EFFORTS[names[(names.index(effort) + 1) % 3]]
        for cid, text in _texts(*EFFORTS[effort], other).items():
            case = {"id": f"k2_horizon/reasoning_{tag}{cid}", "tool": None,
                    "reasoning": "k2_horizon", "tools": [], "text": text}
            if kw:
                case["kwargs"] = kw
            out.append(case)
    return out


#: prompts for render's ``reasoning_ended`` (vLLM: the whole prompt scanned back)
ENDED_PROMPTS = [
    "<|im_start|>assistant\n",
    "<|im_start|>assistant\n<ifm|think>",
    "<|im_start|>assistant\n<ifm|think>x</ifm|think>",
    "<|im_start|>assistant\n<ifm|think_fast>x</ifm|think_fast>",
    "<|im_start|>assistant\n<ifm|think_faster>",
    "<|im_start|>assistant\n<ifm|think>x<ifm|tool_calls>",
    "<ifm|think>x</ifm|think><|im_start|>user\nq<|im_start|>assistant\n",
]
