"""The derender fuzzer's third set of added draws (session 39), from a generator of their own.

Why a generator of its own: a seed's earlier draws, and the goldens found with them, must stay
as they were; these run after them on ``random.Random("more3:MODEL:SEED:I")``.

What they draw is what an engine or a client sends vLLM 0.33's derender and the earlier draws
did not (``vllm/entrypoints/scale_out/token_in_token_out/protocol.py``, found by probing it):

- finishes other than ``stop`` with a ``stop_reason``: vLLM 0.33's engine ends a repetition with
  ``repetition`` and "repetition_detected" (``check_stop``), ``error`` has none, and an engine
  may report a reason beside ``length`` / ``abort`` (vLLM's derender passes it on);
- stream events without tokens in the middle of a stream (``token_ids`` ``[]`` or null, an event
  with no choice at all), as an engine that flushes metadata or keeps the connection alive
  (vLLM's own generate stream sends neither: it skips an output without tokens or finish);
- the usage vLLM's generate stream writes on every chunk with ``continuous_usage_stats``
  (the prompt's count, the choice's tokens so far), then a usage-only last event;
- the engine response's fields derender reads nothing from (``model``, ``created``,
  ``output_mode: "tokens"``, ``usage`` in a batch, ``ec_transfer_params``,
  ``prompt_token_id_logprobs``, ``mm_placeholders``) and a choice's (``routed_experts``,
  ``sampling_mask``, ``weight_versions``);
- logprob entries whose ``rank`` is null or that have no ``top_logprobs`` key (the schema's
  default, an empty list), and a batch's choices out of index order.
"""

from __future__ import annotations

import random
from typing import Any

from conformance.fuzz_derender_case import Case


def more3(case: Case, rnd: random.Random) -> None:
    """Draw the third set of additions into ``case`` (see the module docstring)."""
    for ch in case.choices:
        _finish(case, ch, rnd)
        _logprobs(case, ch, rnd)
        if rnd.random() < 0.08:
            n = len(ch["token_ids"])
            ch.update(routed_experts="k05VTVBZAQB2AHsnZGVzY3InOiAnfHUxJywgfQo=",
                      sampling_mask=[[0, 1]] * max(n - 1, 0),
                      weight_versions=[{"version": "v1", "start": 0, "end": n}])
            case.tags.add("choice_extras")
    for idx, sizes in case.sizes.items():
        if rnd.random() < 0.15 and sizes:  # an event without tokens before some event
            at = rnd.randrange(len(sizes))
            sizes.insert(at, 0)
            case.tags.add("empty_mid_chunk")
    if "empty_mid_chunk" in case.tags and rnd.random() < 0.4:
        case.null_empty = True  # ... written with token_ids null
    if rnd.random() < 0.1:  # (after the first event: tito's echo rides on the first choice)
        most = min(len(s) for s in case.sizes.values()) if case.sizes else 0
        case.keepalive = sorted({rnd.randint(1, max(most, 1)) for _ in range(rnd.choice([1, 2]))})
        case.tags.add("keepalive_event")
    opts = case.request.get("stream_options") or {}
    if opts.get("include_usage") and opts.get("continuous_usage_stats") and rnd.random() < 0.6:
        case.continuous_usage = rnd.randint(1, 40)  # vLLM's generate: usage on every chunk
        case.tags.add("continuous_usage")
    if rnd.random() < 0.1:
        out = sum(len(ch["token_ids"]) for ch in case.choices)
        extra: dict[str, Any] = {"output_mode": "tokens", "model": "engine-side-name",
                                 "created": 1796400000 + rnd.randrange(1000),
                                 "usage": {"prompt_tokens": 3, "completion_tokens": out,
                                           "total_tokens": out + 3},
                                 "ec_transfer_params": {"ec": rnd.randrange(5)},
                                 "prompt_token_id_logprobs": None, "mm_placeholders": {}}
        case.batch_extra = {k: v for k, v in extra.items() if rnd.random() < 0.6}
        case.tags.add("response_extras")
    if len(case.choices) > 1 and rnd.random() < 0.3:
        case.choices.reverse()  # (a batch; streams are per index)
        case.tags.add("choices_reversed")


def _finish(case: Case, ch: dict[str, Any], rnd: random.Random) -> None:
    """A non-stop finish: repetition (vLLM 0.33's engine's reason), error, or a reason beside."""
    if ch["finish_reason"] not in ("length", "abort"):
        return
    r = rnd.random()
    if r < 0.2 and ch["finish_reason"] == "length":
        ch["finish_reason"], ch["stop_reason"] = "repetition", "repetition_detected"
        case.tags.add("finish_repetition")
    elif r < 0.25 and ch["finish_reason"] == "length":
        ch["finish_reason"] = "error"
        ch.pop("stop_reason", None)
        case.tags.add("finish_error")
    elif r < 0.35:
        ch["stop_reason"] = rnd.choice([rnd.randrange(10, 1000), "x", "\n"])
        case.tags.add("stop_reason_other_finish")


def _logprobs(case: Case, ch: dict[str, Any], rnd: random.Random) -> None:
    """Engine logprob entries with a null rank, or without their ``top_logprobs`` key."""
    content = (ch.get("logprobs") or {}).get("content")
    if not content:
        return
    r = rnd.random()
    if r < 0.06:
        for e in content:
            e["rank"] = None
            for t in e.get("top_logprobs") or []:
                t["rank"] = None
        case.tags.add("logprobs_rank_null")
    elif r < 0.12:
        for e in content:
            e.pop("top_logprobs", None)
        case.tags.add("logprobs_no_top_key")
