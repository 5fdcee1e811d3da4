"""The derender fuzzer's vocabulary: its models, the pieces it writes outputs from, and a case.

Why a module of its own: the drawing (``fuzz_derender_draw``, ``fuzz_derender_outputs``,
``fuzz_derender_more``), the driving (``fuzz_derender_drive``) and the classifying
(``fuzz_derender_classify``) of a case all read these; none of them depends on another's code.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from conformance import corpus

#: fuzz model -> (served model, completions?)
MODELS = {"qwen3": ("qwen3", False), "gpt-oss": ("gpt-oss", False),
          "mistral-v3": ("mistral-v3", False), "gpt2": ("gpt2", True),
          "mistral-v3-hf": ("mistral-v3-hf", False),
          "qwen3-cmpl": ("qwen3", True), "mistral-v3-hf-cmpl": ("mistral-v3-hf", True)}

#: mistral-v3 served through mistral-common and from its tokenizer.json (``--tokenizer-mode hf``):
#: the same ids, outputs and deviations
MISTRAL = ("mistral-v3", "mistral-v3-hf")

# -- vocabulary pieces --------------------------------------------------------------------------

WORDS = ["It", " is", " sunny", " today", ".", " The", " weather", " in", " Paris", ",", " ok",
         "\n", " ", "  ", "Grüße", " 🌍", "🌧️", " 中文", "日本語", " ✓", " —", " é", "ß", " 👍🏽",
         " a", "b", "c", " abc", "ab", "bc", "\n\n", " {", "}", '"', " 123", "x"]
Q_SPECIAL = {"im_end": corpus.IM_END, "im_start": corpus.IM_START, "eot": corpus.EOT,
             "think": corpus.THINK, "end_think": corpus.END_THINK,
             "tool_call": corpus.TOOL_CALL, "end_tool_call": corpus.END_TOOL_CALL}
VOCAB = {"qwen3": (151669, 151936), "gpt2": (50257, 50257), "gpt-oss": (200019, 201088),
         "mistral-v3": (32768, 32768), "mistral-v3-hf": (32768, 32768)}
TOOL_ARGS = {"get_weather": [{"city": "Paris"}, {"city": "Köln", "unit": "c"}, {},
                             {"city": "東京 🌸"}],
             "get_time": [{"tz": "Europe/Paris"}, {}, {"tz": "UTC", "x": [1, 2.5, None, True]}]}


def text(rnd: random.Random, lo: int = 1, hi: int = 8) -> str:
    return "".join(rnd.choice(WORDS) for _ in range(rnd.randint(lo, hi)))


@dataclass
class Case:
    """One fuzz case: the request, the engine choices, extras, and its tags."""

    cid: str
    model: str
    request: dict[str, Any]
    choices: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    tags: set[str] = field(default_factory=set)
    sizes: dict[int, list[int]] = field(default_factory=dict)
    #: the engine's response (its first stream event) carries the prompt's ids too
    engine_prompt: bool = False
    usage: dict[str, Any] | None = None  #: the engine's usage (streams)
    usage_event: bool = False  #: ... in an event without choices after the last one
    #: the engine's ``prompt_logprobs`` (batch only: vLLM's stream chunks carry none): this many
    #: candidates beside each prompt token's own entry, None for none at all
    prompt_lp: int | None = None
    #: derender body keys left out (``fuzz_derender_more.OMITTABLE``)
    omit: set[str] = field(default_factory=set)
    #: completions of several prompts: each further prompt's engine response (its
    #: ``choices``, ``kv_transfer_params`` / ``metrics``; ``engine_prompt``: it carries its
    #: prompt's ids; ``body_prompt``: the body's ``prompt_token_ids`` has them, else null;
    #: ``ids``: the prompt's ids, from render)
    more: list[dict[str, Any]] = field(default_factory=list)
    #: stream events with no choice at all (an engine keeping the connection alive) inserted
    #: before these event positions of every stream (``fuzz_derender_more3``)
    keepalive: list[int] = field(default_factory=list)
    #: the events a chunking's 0 sizes make carry ``token_ids`` null instead of ``[]``
    null_empty: bool = False
    #: vLLM's generate stream with ``continuous_usage_stats``: this prompt count, and usage on
    #: every event (the choice's tokens so far), then a usage-only last event (None: not so)
    continuous_usage: int | None = None
    #: engine response fields of the batch derender alone (``model``, ``usage``, ...)
    batch_extra: dict[str, Any] = field(default_factory=dict)
    #: choices whose logprob list is longer or shorter than their ids (``fuzz_derender_more4``):
    #: index -> the entries of each of its stream's chunks (its ids', changed the same way)
    lp_split: dict[int, list[list[dict[str, Any]]]] = field(default_factory=dict)



def isjson(s: str) -> bool:
    try:
        json.loads(s)
        return True
    except ValueError:
        return False



def decode(model: str, toks: list[int], skip: bool) -> str:
    served = MODELS[model][0]
    tok = corpus._tok("mistral-v3-hf" if served in MISTRAL else served)
    return str(tok.decode(toks, skip_special_tokens=skip))

