"""Odd choice indexes in engine output (groups ``derender_choice_index``, single calls, and
``stream_choice_index``, streams).

Why: a choice's ``index`` is any JSON integer on vLLM's wire (pydantic ``int``, lax: a bool, an
integral float, a numeric string), never sized or checked against ``n``. vLLM 0.33's chat
derender passes it on (batch and every chunk), its completions batch numbers choices by position
and its completions stream passes the chunk's on. tito must answer the same, never a 5xx, and an
index must never size anything. The cases: huge (``2**40`` to ``10**30``), negative, bool, float,
string, null; several choices with duplicate indexes, indexes not starting at 0, out of order;
qwen3 (reasoning + hermes tools; chat and completions), gpt2 (no parser), gpt-oss (harmony); a
first stream call of each (its state is each server's own: not compared), and streams whose
index changes between chunks.
"""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import (
    CHAT_D,
    CMPL_D,
    DERENDER_PROMPT,
    EOS_IDS,
    derender_batch,
    derender_settings,
    derender_stream,
    ids,
)
from conformance.corpus_base import one_logprob as _lp
_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
#: name -> (server, chat?, output text, extra request fields)
_OUTPUTS: dict[str, tuple[str, bool, str, dict[str, Any]]] = {
    "qwen3_chat": ("qwen3", True, '<think>\nr\n</think>\n\nHi<tool_call>\n{"name": '
                   '"get_weather", "arguments": {"city": "P"}}\n</tool_call>',
                   {"tools": [_WEATHER]}),
    "qwen3_cmpl": ("qwen3", False, "Hello world", {}),
    "gpt2_chat": ("gpt2", True, "Hello world", {}),
    "gpt2_cmpl": ("gpt2", False, "Hello world", {}),
    "gptoss_chat": ("gpt-oss", True, "<|channel|>analysis<|message|>r<|end|><|start|>assistant"
                    "<|channel|>commentary to=functions.get_weather <|constrain|>json"
                    '<|message|>{"city": "P"}<|call|>', {"tools": [_WEATHER]}),
}
#: one choice's index
INDEXES: dict[str, Any] = {
    "2p40": 2**40, "2p63": 2**63, "2p64": 2**64, "1e30": 10**30, "five": 5, "neg1": -1,
    "neg2p40": -(2**40), "true": True, "false": False, "float1": 1.0, "float1e3": 1e3,
    "float1p5": 1.5, "float1e19": 1e19, "str7": "7", "str_big": "1" * 30, "null": None,
}
#: several choices' indexes
SEVERAL: dict[str, list[Any]] = {
    "dup00": [0, 0], "dup11": [1, 1], "from1": [1, 2], "order20": [2, 0],
    "zero_2p40": [0, 2**40], "dup2p40": [2**40, 2**40],
}
#: a stream's index chunk by chunk (three chunks)
CHANGES: dict[str, list[Any]] = {
    "same_2p40": [2**40] * 3, "from0_to2p40": [0, 2**40, 0], "from2p40_to0": [2**40, 0, 2**40],
    "counting": [0, 1, 2],
}


def _extra(extra: dict[str, Any]) -> dict[str, Any]:
    return {"return_token_ids": True, **extra}  # (ids show which choice is which)


def _batch(name: str, indexes: list[Any]) -> tuple[str, str, dict[str, Any]]:
    server, chat, text, extra = _OUTPUTS[name]
    token_ids = ids(text, server) + [EOS_IDS[server]]
    choices = [{"index": i, "token_ids": token_ids, "finish_reason": "stop",
                "logprobs": _lp(token_ids)} for i in indexes]
    return derender_batch(server, chat, _extra(extra), choices)


def _first_call(name: str, index: Any, finish: str | None) -> tuple[str, str, dict[str, Any]]:
    server, chat, text, extra = _OUTPUTS[name]
    token_ids = ids(text, server) + [EOS_IDS[server]]
    key, settings = derender_settings(server, chat, _extra(extra))
    return server, CHAT_D if chat else CMPL_D, {
        "model": server, "stream": True, "stream_state": None,
        "prompt_token_ids": DERENDER_PROMPT, key: settings, "generate_chunk": {"request_id": "r", "choices": [{
            "index": index, "token_ids": token_ids, "finish_reason": finish,
            "logprobs": _lp(token_ids)}]}}


def _stream(name: str, indexes: list[Any]) -> tuple[str, str, str, dict[str, Any], list[int],
                                                     list[dict[str, Any]]]:
    server, chat, text, extra = _OUTPUTS[name]
    token_ids = ids(text, server) + [EOS_IDS[server]]
    cuts = [0, 2, 4, len(token_ids)]
    chunks = [{"request_id": "r", "choices": [{
        "index": index, "token_ids": token_ids[cuts[k]:cuts[k + 1]],
        "finish_reason": "stop" if k == 2 else None,
        "logprobs": _lp(token_ids[cuts[k]:cuts[k + 1]])}]} for k, index in enumerate(indexes)]
    return derender_stream(server, chat, _extra(extra), chunks)


DERENDER_CHOICE_INDEX: dict[str, tuple[str, str, dict[str, Any]]] = {}
for _name in _OUTPUTS:
    for _label, _index in INDEXES.items():
        DERENDER_CHOICE_INDEX[f"{_name}_{_label}"] = _batch(_name, [_index])
        DERENDER_CHOICE_INDEX[f"{_name}_stream_{_label}"] = _first_call(_name, _index, None)
        DERENDER_CHOICE_INDEX[f"{_name}_stream_stop_{_label}"] = _first_call(_name, _index,
                                                                             "stop")
    for _label, _several in SEVERAL.items():
        DERENDER_CHOICE_INDEX[f"{_name}_{_label}"] = _batch(_name, _several)
STREAM_CHOICE_INDEX = {f"{name}_{label}": _stream(name, indexes)
                       for name in _OUTPUTS for label, indexes in CHANGES.items()}
