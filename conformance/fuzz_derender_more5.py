"""The derender fuzzer's fifth set of added draws (session 44), from a generator of their own.

Why a generator of its own: a seed's earlier draws, and the goldens found with them, must stay
as they were; these run after them on ``random.Random("more5:MODEL:SEED:I")``.

What they draw: the engine's choice indexes of an ``n`` > 1 output not numbered ``0..n-1`` (the
fixed cases of ``conformance/derender_index_corpus.py``, here beside every other draw): every
choice one index (tag ``dup_index``: batch only; tito salts a repeated index's tool-call ids,
vLLM's are random, so never shared), or all shifted by 1, 3 or ``2**40`` (``index_shift``;
their streams too, one per index). Completions number a batch's choices by position (vLLM),
its streams pass the chunk's index on; chat passes it on in both.
"""

from __future__ import annotations

import random

from conformance.fuzz_derender_case import Case


def more5(case: Case, rnd: random.Random) -> None:
    """Draw the fifth set of additions into ``case`` (see the module docstring)."""
    if len(case.choices) < 2:
        return
    r = rnd.random()
    if r < 0.15:
        index = rnd.choice([0, 0, 1, 2**40])
        for ch in case.choices:
            ch["index"] = index
        case.tags.add("dup_index")  # (sizes / lp_split keyed by index: no stream is made)
    elif r < 0.3:
        shift = rnd.choice([1, 3, 2**40])
        for ch in case.choices:
            ch["index"] += shift
        case.sizes = {k + shift: v for k, v in case.sizes.items()}
        case.lp_split = {k + shift: v for k, v in case.lp_split.items()}
        case.tags.add("index_shift")
