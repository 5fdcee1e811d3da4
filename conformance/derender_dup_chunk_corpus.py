"""Two choices of one index inside ONE streaming derender chunk (groups ``derender_chunk_dup``,
single calls, and ``stream_chunk_dup``, streams whose later chunk holds them).

Why: tito's batch derender gives two choices of one index distinct tool-call ids (a repeated
index salts the response id, ``tito.service.derender``); a stream call has one state, so a
chunk whose choices repeat an index would have to continue that one state twice. What vLLM 0.33
answers there had never been recorded: its chat route refuses any chunk of more than one choice
before it touches the tokenizer (after its stop-string, ``chat_request`` and
``prompt_token_ids`` checks), its completions derenderer refuses it after its own stop-string
and prompt-id checks. The cases: qwen3 (reasoning + hermes tools) chat with and without a tool
call in the output, with logprobs, with stop strings (which vLLM's stream refuses first), with
a finish in the chunk or not, indexes ``[0, 0]`` and ``[1, 1]``, a stream's first call and a
later one (carried state); qwen3 completions the same (no tools); gpt-oss chat (harmony).
"""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import (
    CHAT_D,
    CMPL_D,
    DERENDER_PROMPT,
    EOS_IDS,
    derender_settings,
    ids,
)
from conformance.corpus_base import one_logprob as _lp

_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}}\n</tool_call>'
#: name -> (server, chat?, output text, extra request fields)
_OUTPUTS: dict[str, tuple[str, bool, str, dict[str, Any]]] = {
    "qwen3_chat_tool": ("qwen3", True, f"<think>\nr\n</think>\n\nHi{_CALL}",
                        {"tools": [_WEATHER]}),
    "qwen3_chat_text": ("qwen3", True, "<think>\nr\n</think>\n\nHello world", {}),
    "qwen3_chat_text_tools": ("qwen3", True, "Hello world", {"tools": [_WEATHER]}),
    "qwen3_cmpl": ("qwen3", False, "Hello world", {}),
    "gptoss_chat": ("gpt-oss", True, "<|channel|>final<|message|>Hello world", {}),
}
#: variant -> (extra request fields, logprobs asked and sent by the engine?)
_VARIANTS: dict[str, tuple[dict[str, Any], bool]] = {
    "plain": ({}, False),
    "lp": ({}, True),
    "stop": ({"stop": ["world"]}, True),
    "stop_lp_off": ({"stop": ["o"]}, False),
    "ids": ({"return_token_ids": True}, True),
}


def _settings(name: str, variant: str) -> tuple[str, bool, str, dict[str, Any], bool,
                                                 list[int]]:
    """(server, chat?, settings key, settings, logprobs?, the output's ids)."""
    server, chat, text, extra = _OUTPUTS[name]
    fields, with_lp = _VARIANTS[variant]
    key, settings = derender_settings(server, chat, {**extra, **fields})
    if not with_lp:
        settings = {k: v for k, v in settings.items() if k not in ("logprobs", "top_logprobs")}
    return server, chat, key, settings, with_lp, ids(text, server) + [EOS_IDS[server]]


def _choice(index: Any, token_ids: list[int], finish: str | None, with_lp: bool
            ) -> dict[str, Any]:
    c: dict[str, Any] = {"index": index, "token_ids": token_ids, "finish_reason": finish}
    if with_lp:
        c["logprobs"] = _lp(token_ids)
    return c


def _first_call(name: str, variant: str, indexes: list[Any], finish: str | None
                ) -> tuple[str, str, dict[str, Any]]:
    """A stream's first call whose chunk carries a choice per entry of ``indexes``."""
    server, chat, key, settings, with_lp, token_ids = _settings(name, variant)
    return server, CHAT_D if chat else CMPL_D, {
        "model": server, "stream": True, "stream_state": None,
        "prompt_token_ids": DERENDER_PROMPT, "prompt_tokens": len(DERENDER_PROMPT),
        key: settings, "generate_chunk": {"request_id": "r", "choices": [
            _choice(i, token_ids, finish, with_lp) for i in indexes]}}


def _stream(name: str, variant: str, index: int) -> tuple[
        str, str, str, dict[str, Any], list[int], list[dict[str, Any]]]:
    """Three chunks of one choice ``index``; the second carries it twice (the ids cut in two,
    each half a choice of that index), the last finishes."""
    server, chat, key, settings, with_lp, token_ids = _settings(name, variant)
    cut = [0, 1, 2, 3, len(token_ids)]
    part = [token_ids[cut[k]:cut[k + 1]] for k in range(4)]
    chunks = [
        {"request_id": "r", "choices": [_choice(index, part[0], None, with_lp)]},
        {"request_id": "r", "choices": [_choice(index, part[1], None, with_lp),
                                        _choice(index, part[2], None, with_lp)]},
        {"request_id": "r", "choices": [_choice(index, part[3], "stop", with_lp)]},
    ]
    return server, CHAT_D if chat else CMPL_D, key, settings, DERENDER_PROMPT, chunks


DERENDER_CHUNK_DUP: dict[str, tuple[str, str, dict[str, Any]]] = {}
STREAM_CHUNK_DUP: dict[str, tuple[str, str, str, dict[str, Any], list[int],
                                  list[dict[str, Any]]]] = {}
for _name in _OUTPUTS:
    for _variant in _VARIANTS:
        for _label, _indexes in (("dup00", [0, 0]), ("dup11", [1, 1])):
            for _finish in (None, "stop"):
                DERENDER_CHUNK_DUP[f"{_name}_{_variant}_{_label}_{_finish or 'open'}"] = (
                    _first_call(_name, _variant, _indexes, _finish))
        STREAM_CHUNK_DUP[f"{_name}_{_variant}"] = _stream(_name, _variant, 0)
#: two distinct indexes in one chunk (the same refusal, for comparison)
for _name in ("qwen3_chat_tool", "qwen3_cmpl"):
    DERENDER_CHUNK_DUP[f"{_name}_lp_pair01_open"] = _first_call(_name, "lp", [0, 1], None)
