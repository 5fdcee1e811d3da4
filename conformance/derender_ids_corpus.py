"""Logprob token ids past the tokenizers' 32-bit ids, derendered (group ``derender_logprob_ids``).

Why: an engine's logprob entry or candidate names any integer id; vLLM 0.33's derender decodes
those it reports (the sampled one, the candidates within ``top_logprobs`` / ``logprobs``) and
its tokenizer's decode refuses an id past ``u32`` (a 400, "number too large to fit in target
type"), batch and stream, while an id between the vocabulary and ``2**32 - 1`` is ``""``. tito
took every such id as ``""`` (a 200; session 41's bad-input probe). Single calls on qwen3 and
gpt2: each id decoded or cut away, chat and completions, batch and a first stream call.
"""

from __future__ import annotations

from typing import Any

CHAT_D, CMPL_D = "/v1/chat/completions/derender", "/v1/completions/derender"
#: "Hi" on each model, and the ids tried as a candidate / the sampled entry
HI = {"qwen3": 13048, "gpt2": 17250}
IDS = {"u32_max": 2**32 - 1, "u32_past": 2**32, "i63_past": 2**63, "u64_past": 2**64 + 1}


def _logprobs(model: str, cand: int | None = None, sampled: int | None = None) -> dict[str, Any]:
    hi = HI[model]
    top = [{"token_id": hi, "logprob": -0.5, "rank": 1}]
    if cand is not None:
        top.append({"token_id": cand, "logprob": -1.0, "rank": 2})
    return {"content": [{"token_id": hi if sampled is None else sampled, "logprob": -0.5,
                         "rank": 1, "top_logprobs": top}]}


def _choice(model: str, lp: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {"index": 0, "token_ids": [HI[model]], "finish_reason": finish, "logprobs": lp}


def _chat(model: str, lp: dict[str, Any], top: int, stream: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "prompt_token_ids": [HI[model]], "chat_request": {
        "model": model, "messages": [{"role": "user", "content": "x"}], "logprobs": True,
        "top_logprobs": top}}
    if stream:
        return {**body, "stream": True, "stream_state": None, "generate_chunk": {
            "request_id": "r", "choices": [_choice(model, lp, None)]}}
    return {**body, "generate_response": {"request_id": "r",
                                          "choices": [_choice(model, lp, "length")]}}


def _cmpl(model: str, lp: dict[str, Any], top: int, stream: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "prompt_token_ids": [[HI[model]]],
                            "completion_request": {"model": model, "prompt": "x",
                                                   "logprobs": top}}
    if stream:
        return {**body, "prompt_token_ids": [HI[model]], "stream": True, "stream_state": None,
                "generate_chunk": {"request_id": "r", "choices": [_choice(model, lp, None)]}}
    return {**body, "generate_responses": [{"request_id": "r",
                                            "choices": [_choice(model, lp, "length")]}]}


DERENDER_LOGPROB_IDS: dict[str, tuple[str, str, dict[str, Any]]] = {}
for _name, _id in IDS.items():
    for _model in ("qwen3", "gpt2"):
        DERENDER_LOGPROB_IDS[f"{_model}_cmpl_cand_{_name}"] = (
            _model, CMPL_D, _cmpl(_model, _logprobs(_model, cand=_id), 1, False))
    DERENDER_LOGPROB_IDS[f"qwen3_cmpl_cand_cut_{_name}"] = (
        "qwen3", CMPL_D, _cmpl("qwen3", _logprobs("qwen3", cand=_id), 0, False))
    DERENDER_LOGPROB_IDS[f"qwen3_chat_cand_{_name}"] = (
        "qwen3", CHAT_D, _chat("qwen3", _logprobs("qwen3", cand=_id), 2, False))
    DERENDER_LOGPROB_IDS[f"qwen3_chat_cand_cut_{_name}"] = (
        "qwen3", CHAT_D, _chat("qwen3", _logprobs("qwen3", cand=_id), 1, False))
    DERENDER_LOGPROB_IDS[f"qwen3_chat_sampled_{_name}"] = (
        "qwen3", CHAT_D, _chat("qwen3", _logprobs("qwen3", sampled=_id), 0, False))
    if _id > IDS["u32_max"]:  # (a stream's 200 carries each server's own state: not compared)
        DERENDER_LOGPROB_IDS[f"qwen3_chat_stream_cand_{_name}"] = (
            "qwen3", CHAT_D, _chat("qwen3", _logprobs("qwen3", cand=_id), 2, True))
        DERENDER_LOGPROB_IDS[f"qwen3_cmpl_stream_cand_{_name}"] = (
            "qwen3", CMPL_D, _cmpl("qwen3", _logprobs("qwen3", cand=_id), 1, True))
