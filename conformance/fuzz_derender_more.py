"""The derender fuzzer's second set of added draws (session 38), from a generator of their own.

Why a generator of its own: a seed's earlier draws, and the goldens found with them, must stay
as they were; these run after them on ``random.Random("more2:MODEL:SEED:I")``.

What they draw is what vLLM 0.33's derender reads and the fuzzer had not varied
(``vllm/entrypoints/scale_out/derender/serving.py`` and ``vllm/renderers/online_derenderer.py``):

- the derender body without ``prompt_token_ids`` (vLLM seeds the decode from the engine's
  ``prompt_token_ids`` then, and its parser path refuses such a stream), without
  ``prompt_tokens`` (usage: 0 in batch, the engine usage's count in a stream), without
  ``model`` (the served name);
- completions of several prompts: one ``GenerateResponse`` per prompt, each with its own
  choices, ``kv_transfer_params`` (null when they differ), ``metrics`` (kept only for one
  prompt) and engine ``prompt_token_ids``, a ``prompt_token_ids`` entry of the body null
  (the engine's seed it then);
- engine logprobs nobody asked for (no cut then), ``logprobs.content: null``, positions with
  no candidates at all (completions: ``null`` there);
- ``stop`` as one bare string; a ``stop_reason`` string the request does not list (vLLM's batch
  cuts at it), an int ``stop_reason`` that is not the last id (the id is text then);
- qwen3's ``reasoning_effort`` (vLLM's ``build_chat_params``: ``none`` turns thinking off),
  chat ``echo``, and the request's own ``prompt_logprobs`` (derender reads neither).
"""

from __future__ import annotations

import random
from typing import Any

from conformance.corpus import ids
from conformance.fuzz_derender_case import MODELS, Case, decode, text
from conformance.fuzz_derender_outputs import (chunking, finish_output, first_stop, gen_logprobs,
                                               sprinkle)

#: derender body keys a case may leave out (batch and stream bodies alike)
OMITTABLE = ("prompt_token_ids", "prompt_tokens", "model")


def more2(case: Case, rnd: random.Random) -> None:
    """Draw the second set of additions into ``case`` (see the module docstring)."""
    req = case.request
    served, completion = MODELS[case.model]
    for key, p in zip(OMITTABLE, (0.12, 0.12, 0.08)):
        # (no model: vLLM's server serves one; tito's the deployment's default, qwen3 here)
        if rnd.random() < p and (key != "model" or served == "qwen3"):
            case.omit.add(key)
            case.tags.add(f"omit_{key}")
    if not completion and case.model == "qwen3" and rnd.random() < 0.15 \
            and "chat_template_kwargs" not in req:
        req["reasoning_effort"] = rnd.choice(["none", "low", "high"])
        if req["reasoning_effort"] == "none":
            case.tags.add("thinking_off")
    if not completion and rnd.random() < 0.08:
        req["echo"] = True
        case.tags.add("chat_echo")
    if rnd.random() < 0.08:
        req["prompt_logprobs"] = rnd.choice([0, 1, 3])
        case.tags.add("request_prompt_logprobs")
    for ch in case.choices:
        _engine_quirks(case, ch, rnd)
    if completion and rnd.random() < 0.2:
        _more_prompts(case, rnd)
    if isinstance(req.get("stop"), list) and len(req["stop"]) == 1 and rnd.random() < 0.5:
        req["stop"] = req["stop"][0]  # (last: the draws above read it as a list)
    body = "prompt_token_ids" not in case.omit  # (else no entry of the body's list is sent)
    if req.get("echo") and completion and (
            (not body and not case.engine_prompt)
            or any(not (body and m["body_prompt"]) and not m["engine_prompt"]
                   for m in case.more)):
        case.tags.add("echo_no_prompt")  # tito cannot echo a prompt it was not sent: a 400


def _engine_quirks(case: Case, ch: dict[str, Any], rnd: random.Random) -> None:
    """One choice's engine-side oddities: unasked / empty logprobs, unlisted stop reasons."""
    served, _ = MODELS[case.model]
    if ch.get("logprobs") is None and ch["token_ids"] and rnd.random() < 0.1:
        ch["logprobs"] = gen_logprobs(rnd, ch["token_ids"], rnd.randint(0, 3), served)
        case.tags.add("logprobs_unasked")
    if ch.get("logprobs") is not None:
        r = rnd.random()
        if r < 0.04:
            ch["logprobs"] = {"content": None}
            case.tags.add("logprobs_content_null")
        elif r < 0.14:
            for e in ch["logprobs"]["content"]:
                if rnd.random() < 0.4:
                    e["top_logprobs"] = []
            case.tags.add("logprobs_no_candidates")
    if ch["finish_reason"] != "stop" or not ch["token_ids"]:
        return
    r = rnd.random()
    if r < 0.04 and len(ch["token_ids"]) > 1:  # an int stop_reason naming another id
        ch["stop_reason"] = ch["token_ids"][-2] if ch["token_ids"][-2] != ch["token_ids"][-1] \
            else ch["token_ids"][-1] + 1
        # (the last id is then output: a special one is text or not by skip_special_tokens)
        case.tags.update({"stop_reason_not_last", "special_plain_skip", "special_x"})
        if case.request.get("stop"):  # (tito's stop strings still apply: deviations.py)
            case.tags.add("stop_string_int_reason")
    elif r < 0.08:  # a stop string the engine had from elsewhere (not the request's)
        skip = case.request.get("skip_special_tokens", True) and not (
            served == "qwen3" and not MODELS[case.model][1])
        full = decode(case.model, ch["token_ids"], skip)
        if len(full.strip()) < 2:
            return
        at = rnd.randrange(len(full) - 1)
        s = full[at:at + rnd.randint(1, 3)]
        if not s.strip() or s in (case.request.get("stop") or ()):
            return
        hit = first_stop(case.model, ch["token_ids"], [s], skip)
        if hit is None:
            return
        last = ch["token_ids"][hit[0] - 1]
        if last in (case.request.get("stop_token_ids") or ()) or (
                decode(case.model, [last], True) != decode(case.model, [last], False)):
            return  # a stop or special id the engine would have stopped on first: inconsistent
        ch["token_ids"] = ch["token_ids"][:hit[0]]
        if ch.get("logprobs") and ch["logprobs"].get("content"):
            ch["logprobs"]["content"] = ch["logprobs"]["content"][:hit[0]]
        ch["stop_reason"] = s
        case.sizes[ch["index"]] = chunking(rnd, len(ch["token_ids"]), case.tags)
        case.tags.update({"stop_reason_unlisted", "stop_string_engine_cut"})


def _more_prompts(case: Case, rnd: random.Random) -> None:
    """Completions of 2-3 prompts: each further prompt's engine response (batch only)."""
    req = case.request
    served, _ = MODELS[case.model]
    extra_prompts = [rnd.choice(["Hello", "Grüße 🌍", " a b", "x"])
                     for _ in range(rnd.choice([1, 1, 2]))]
    req["prompt"] = [req["prompt"], *extra_prompts]
    case.tags.add("multi_prompt")
    for _ in extra_prompts:
        choices = []
        for idx in range(req.get("n", 1)):
            toks = sprinkle(rnd, ids(text(rnd, 1, 10), served), served, case.tags)
            ch = finish_output(rnd, toks, case.model, req, None, case.tags)
            ch["index"] = idx
            if req.get("logprobs") is not None and req.get("logprobs") is not False:
                ch["logprobs"] = gen_logprobs(rnd, ch["token_ids"], req["logprobs"], served)
            choices.append(ch)
        resp: dict[str, Any] = {"choices": choices}
        if rnd.random() < 0.5:
            resp["kv_transfer_params"] = rnd.choice([
                case.extra.get("kv_transfer_params"), {"remote_block_ids": [3]}])
        if rnd.random() < 0.3:
            resp["metrics"] = {"queue_time_ms": round(rnd.random() * 10, 2)}
        resp["engine_prompt"] = rnd.random() < 0.5
        resp["body_prompt"] = rnd.random() < 0.7  # else null in the body's list
        case.more.append(resp)
