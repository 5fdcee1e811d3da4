"""Seeded model outputs for the parser fuzzer (``conformance/fuzz_parsers.py``), every format.

Pure data, no vLLM, no tito: ``generate(name, rng, n)`` gives ``n`` cases in
``tests/goldens/parser_cases.py``'s shape (``id``, ``tool``, ``reasoning``, ``tools``, ``text``,
optional ``kwargs``). A case is calls (known and unknown tools, arguments with unicode, escapes,
nesting, numbers, booleans, null, or none) written in the format's markup with text around them
and optionally a reasoning block, then maybe mutated: cut at a random point (a ``length``
finish), a character of the markup or JSON dropped or doubled, a marker written into content,
whitespace added around markers. ``tags`` name what went in, for grouping differences.
"""

from __future__ import annotations

import random

from fuzz_parser_markup import (  # noqa: F401 (fuzz_parsers reads FORMATS here)
    FORMATS, _AT_START, _INKLING_PROMPT)
from fuzz_parser_values import TOOLS, _TEXTS, _calls

#: reasoning parser -> (start, end, template kwargs that switch it on or None)
REASONING = {
    "qwen3": ("<think>", "</think>", None),
    "deepseek_r1": ("<think>", "</think>", None),
    "deepseek_v3": ("<think>", "</think>", {"thinking": True}),
    "mistral": ("[THINK]", "[/THINK]", None),
    "granite": ("Here is my thought process:", "Here is my response:", None),
    "hunyuan_a13b": ("<think>\n", "\n</think>\n<answer>\n", None),
    "glm45": ("<think>", "</think>", None),
    "glm47": ("<think>", "</think>", None),
    "kimi_k2": ("<think>", "</think>", None),
    "minimax_m2": ("<think>", "</think>", None),
    "minimax_m2_append_think": ("<think>", "</think>", None),
    "seed_oss": ("<seed:think>", "</seed:think>", None),
    "step5": ("<think>", "</think>", None),
    "olmo3": ("<think>", "</think>", None),
    "holo2": ("<think>", "</think>", None),
    "step3p5": ("<think>", "</think>", None),
    "mimo": ("<think>", "</think>", None),
    "nemotron_v3": ("<think>", "</think>", None),
    "ling3": ("<think>", "</think>", None),
    "deepseek_v4": ("<think>", "</think>", None),
    "deepseek_v41": ("<think>", "</think>", None),
    # newparsers
    "gemma4": ("<|channel>thought\n", "<channel|>", None),
    "granite_thinking_parser": ("<think>", "</think>", None),
    "ernie45": ("<think>", "</think>", None),
    "hy_v3": ("<think>", "</think>", {"reasoning_effort": "high"}),
    "step3": ("<think>", "</think>", None),
    # newparsers4
    "poolside_v1": ("<think>", "</think>", {"thinking": True}),
    "plamo3": ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>", None),
    # newparsers5
    "minimax_m3": ("<mm:think>", "</mm:think>", {"thinking_mode": "enabled"}),
    "hy_v4": ("<think>", "</think>", {"reasoning_effort": "high"}),
    # parsers6b
    "kimi_k3": ("<|open|>think<|sep|>", "<|close|>think<|sep|>", None),
}
#: each model's (tool parser, reasoning parser)
PAIRS = [
    ("hermes", "qwen3"), ("qwen3_coder", "qwen3"), ("mistral", "mistral"),
    ("deepseek_v3", "deepseek_r1"), ("deepseek_v31", "deepseek_v3"), ("glm45", "glm45"),
    ("glm47", "glm47"), ("kimi_k2", "kimi_k2"), ("minimax_m2", "minimax_m2"),
    ("seed_oss", "seed_oss"), ("hunyuan_a13b", "hunyuan_a13b"), ("granite", "granite"),
    ("qwen3_json", "qwen3"), ("step3p5", "step3p5"), ("mimo", "mimo"), ("ling3", "ling3"),
    ("qwen3_coder", "nemotron_v3"), ("deepseek_v4", "deepseek_v4"), ("deepseek_v41", "deepseek_v41"),
    ("gemma4", "gemma4"), ("step5", "step5"), ("qwen3_coder", "granite_thinking_parser"),
    ("ernie45", "ernie45"), ("hy_v3", "hy_v3"), ("step3", "step3"),
    ("poolside_v1", "poolside_v1"), ("plamo3", "plamo3"), ("hy_v4", "hy_v4"),
    ("kimi_k3", "kimi_k3"),  # parsers6b
    ("muse", "muse"),  # muse7 (one channel router; its reasoning side has no think block)
    ("muse_glimmer", "muse_glimmer"),  # glimmer8
    ("inkling", "inkling"),  # inkling10
]

#: the reasoning formats whose tito row opens the block again after a call's end marker, as
#: vLLM 0.33's grammar (gemma4's ``<tool_call|>``; glm45/47's ``</tool_call>`` is a known gap,
#: docs/conformance.md, so none is written for them yet)
_REOPEN_AFTER_CALL = frozenset({"gemma4"})

_THOUGHTS = ["Let me think.", "The user wants weather.\nI should call a tool.", "嗯，想一想。", "",
             "  spaced thought  ", "ok\n\n"]


def _mutate(rng: random.Random, text: str, region: tuple[int, int], markers: list[str],
            tags: list[str]) -> str:
    lo, hi = region
    r = rng.random()
    if r < 0.2 and hi > lo:  # cut by the length limit
        tags.append("trunc")
        return text[: rng.randint(lo, hi)]
    if r < 0.3 and hi > lo:  # a character of the markup / JSON dropped
        i = rng.randrange(lo, hi)
        tags.append(f"drop:{text[i]!r}")
        return text[:i] + text[i + 1:]
    if r < 0.35 and hi > lo:
        i = rng.randrange(lo, hi)
        tags.append(f"dup:{text[i]!r}")
        return text[:i] + text[i] + text[i:]
    if r < 0.42 and markers:  # a marker written in the content
        m = rng.choice(markers)
        tags.append("marker_in_text")
        return rng.choice([f"Use {m} to call. ", f"{m}", f"The {m} token "]) + text \
            if rng.random() < 0.5 else text + f" see {m}"
    if r < 0.5 and markers:  # whitespace around a marker
        m = rng.choice(markers)
        if m in text:
            tags.append("ws")
            return text.replace(m, rng.choice([" ", "\n", "  \n"]) + m + rng.choice(["", " ", "\n"]), 1)
    return text


def _tool_case(name: str, rng: random.Random, i: int, reasoning: str | None) -> dict:
    write, markers = FORMATS[name]
    tags: list[str] = []
    calls = _calls(rng) if rng.random() < 0.9 else []
    if not calls:
        tags.append("nocall")
    at_start = name in _AT_START
    pre = "" if at_start and rng.random() < 0.8 else rng.choice(["", *_TEXTS])
    post = rng.choice(["", "", *_TEXTS])
    if calls and len(calls) > 1 and rng.random() < 0.3 and not at_start:
        # text between calls (each call written alone)
        mid = rng.choice(_TEXTS)
        body = write(rng, calls[:1]) + mid + write(rng, calls[1:])
        tags.append("text_between")
    else:
        body = write(rng, calls) if calls else ""
    if pre.strip():
        tags.append("text_before")
    if post.strip():
        tags.append("text_after")
    if len(calls) > 1:
        tags.append("parallel")
    if any(n == "not_a_tool" for n, _ in calls):
        tags.append("unknown_tool")
    text = pre + body + post
    region = (len(pre), len(pre) + len(body))
    kwargs = None
    if reasoning is not None and reasoning in REASONING:  # (muse: the writer's own messages)
        start, end, kwargs = REASONING[reasoning]
        thought = rng.choice(_THOUGHTS)
        form = rng.choice(["block", "block", "noend", "nostart"])
        tags.append(f"think:{form}")
        if form == "block":
            text = start + thought + end + text
        elif form == "nostart":
            text = thought + end + text
        else:
            text = start + thought + text
        region = (region[0] + len(text) - len(pre + body + post), region[1] + len(text) - len(pre + body + post))
        if calls and reasoning in _REOPEN_AFTER_CALL:
            # a block after the calls (vLLM's grammar opens it again once a call closed); its
            # own generator, seeded by the text, so the main one's draws stay as they were
            extra = random.Random(text)
            if extra.random() < 0.4:
                later = start + extra.choice(_THOUGHTS) + extra.choice([end, end, ""])
                text = text[: region[1]] + later + text[region[1] :]
                tags.append("think:after_call")
    text = _mutate(rng, text, region, markers, tags)
    return {"id": f"fuzz/{name}{'+' + reasoning if reasoning else ''}/{i}:{','.join(tags)}",
            "tool": name, "reasoning": reasoning, "tools": TOOLS, "text": text,
            **({"kwargs": kwargs} if kwargs else {}),
            **({"prompt": _INKLING_PROMPT} if name == "inkling" else {})}


def _reasoning_case(name: str, rng: random.Random, i: int) -> dict:
    start, end, kwargs = REASONING[name]
    tags: list[str] = []
    thought, answer = rng.choice(_THOUGHTS), rng.choice(["The answer is 4.", "", " 42 ", "答案。", "\nok"])
    form = rng.choice(["block", "block", "noend", "nostart", "empty", "repeat", "plain", "marker_in_answer"])
    tags.append(form)
    text = {
        "block": start + thought + end + answer,
        "noend": start + thought,
        "nostart": thought + end + answer,
        "empty": start + end + answer,
        "repeat": start + thought + start + "x" + end + answer + end,
        "plain": answer or "plain",
        "marker_in_answer": start + thought + end + answer + f" about {start} and {end}",
    }[form]
    if rng.random() < 0.25:
        cut = rng.randint(0, len(text))
        text = text[:cut]
        tags.append("trunc")
    if kwargs is None and rng.random() < 0.2:
        kwargs = {"enable_thinking": False, "thinking": False}
        tags.append("off")
    elif kwargs is not None and rng.random() < 0.2:
        kwargs = None
        tags.append("no_kwargs")
    return {"id": f"fuzz/reasoning:{name}/{i}:{','.join(tags)}", "tool": None, "reasoning": name,
            "tools": [], "text": text or "x", **({"kwargs": kwargs} if kwargs else {})}


def generate(name: str, rng: random.Random, n: int) -> list[dict]:
    """``n`` cases for ``name``: a tool parser, ``reasoning:R``, or ``TOOL+R``."""
    if name.startswith("reasoning:"):
        return [_reasoning_case(name.split(":", 1)[1], rng, i) for i in range(n)]
    tool, _, reasoning = name.partition("+")
    return [_tool_case(tool, rng, i, reasoning or None) for i in range(n)]
