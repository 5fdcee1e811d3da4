"""An engine's logprob list longer or shorter than its token ids (groups
``derender_logprob_entries``, batch, and ``stream_logprob_entries``, streams).

Why: an engine's ``logprobs.content`` is meant to hold one entry a token id, but nothing on the
wire says so. vLLM 0.33's derender resolves every entry it is given, in batch and in each
streamed chunk, chat and completions, with or without a parser (completions' ``text_offset``
runs on past the text, the entries' tokens added up); tito cut the list to the ids. The cases:
extra entries at the end or in the middle, fewer entries, none; on qwen3 (reasoning + hermes
tools; chat and completions), gpt2 (no parser) and gpt-oss (harmony). A stream gives each chunk
the entries of its own ids, changed the same way. The ``*_repair_*`` cases put the first byte
token of a character split over several ("a🫠b" on qwen3) at a chunk's end with an entry more or
fewer: the next chunk's U+FFFD pieces are repaired with the sampled ids before them, which vLLM's
batch reads from the entries and its stream from the chunks' ids (tito: the entries, both).
"""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import (
    DERENDER_PROMPT,
    EOS_IDS,
    derender_batch,
    derender_settings,
    derender_stream,
    ids,
)
_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
#: (server, chat?, output text, extra request fields, chunk sizes)
_OUTPUTS: dict[str, tuple[str, bool, str, dict[str, Any], list[int]]] = {
    "qwen3_chat_tools": ("qwen3", True, '<think>\nr\n</think>\n\nHi<tool_call>\n{"name": '
                         '"get_weather", "arguments": {"city": "P"}}\n</tool_call>',
                         {"tools": [_WEATHER]}, [4, 5, 100]),
    "qwen3_chat": ("qwen3", True, "<think>\nr\n</think>\n\nHello world", {}, [2, 2, 100]),
    "qwen3_cmpl": ("qwen3", False, "Hello world again", {}, [2, 100]),
    "gpt2_chat": ("gpt2", True, "Hello world again", {}, [2, 100]),
    "gpt2_cmpl": ("gpt2", False, "Hello world again", {}, [2, 100]),
    "gptoss_chat": ("gpt-oss", True, "<|channel|>analysis<|message|>r<|end|><|start|>assistant"
                    "<|channel|>final<|message|>Hello world", {}, [3, 3, 100]),
}
MODES = ("more", "more_mid", "fewer", "zero")


def _entry(token_id: int, k: int) -> dict[str, Any]:
    return {"token_id": token_id, "logprob": -0.5 - k, "rank": 1,
            "top_logprobs": [{"token_id": token_id, "logprob": -0.5 - k, "rank": 1}]}


def entries(server: str, token_ids: list[int], mode: str) -> list[dict[str, Any]]:
    """The entries of ``token_ids`` (one each), changed by ``mode``."""
    own = [_entry(t, k) for k, t in enumerate(token_ids)]
    extra = [_entry(t, 9) for t in ids(" XY", server)]
    return {"more": own + extra, "more_mid": own[:1] + extra + own[1:], "fewer": own[:1],
            "zero": []}[mode]


def _case(server: str, chat: bool, text: str, extra: dict[str, Any], mode: str,
          ) -> tuple[str, str, dict[str, Any]]:
    token_ids = ids(text, server) + [EOS_IDS[server]]
    choice = {"index": 0, "token_ids": token_ids, "finish_reason": "stop",
              "logprobs": {"content": entries(server, token_ids, mode)}}
    return derender_batch(server, chat, extra, [choice])


def _stream(server: str, chat: bool, text: str, extra: dict[str, Any], sizes: list[int],
            mode: str) -> tuple[str, str, str, dict[str, Any], list[int], list[dict[str, Any]]]:
    token_ids = ids(text, server) + [EOS_IDS[server]]
    chunks, pos = [], 0
    for n in sizes:
        part = token_ids[pos:pos + n]
        pos += n
        last = pos >= len(token_ids)
        chunks.append({"request_id": "r", "choices": [{
            "index": 0, "token_ids": part, "finish_reason": "stop" if last else None,
            "logprobs": {"content": entries(server, part, mode)}}]})
        if last:
            break
    return derender_stream(server, chat, extra, chunks)


DERENDER_LOGPROB_ENTRIES = {f"{name}_{mode}": _case(s, chat, text, extra, mode)
                            for name, (s, chat, text, extra, _) in _OUTPUTS.items()
                            for mode in MODES}
STREAM_LOGPROB_ENTRIES = {f"{name}_{mode}": _stream(s, chat, text, extra, sizes, mode)
                          for name, (s, chat, text, extra, sizes) in _OUTPUTS.items()
                          for mode in MODES}


def _repair(mode: str) -> list[tuple[list[int], list[dict[str, Any]]]]:
    """"a🫠b" + EOS on qwen3 in two chunks, the first ending with the emoji's first byte token
    and one entry more (an extra after it) or fewer (its own left out) than its ids."""
    token_ids = ids("a\U0001fae0b", "qwen3") + [EOS_IDS["qwen3"]]
    first, rest = token_ids[:2], token_ids[2:]
    own = [_entry(t, 0) for t in first]
    lead = own + [_entry(ids(" XY", "qwen3")[0], 9)] if mode == "more" else own[:1]
    return [(first, lead), (rest, [_entry(t, 0) for t in rest])]


for _mode in ("more", "fewer"):
    for _chat in (True, False):
        _name = f"qwen3_{'chat' if _chat else 'cmpl'}_repair_{_mode}"
        _parts = _repair(_mode)
        _key, _settings_ = derender_settings("qwen3", _chat, {"chat_template_kwargs": {
            "enable_thinking": False}} if _chat else {})
        _server, _path, _body = _case("qwen3", _chat, "a\U0001fae0b", {"chat_template_kwargs": {
            "enable_thinking": False}} if _chat else {}, "zero")
        _choice = (_body.get("generate_response") or _body["generate_responses"][0])["choices"][0]
        _choice["logprobs"] = {"content": [e for _, es in _parts for e in es]}
        DERENDER_LOGPROB_ENTRIES[_name] = (_server, _path, _body)
        STREAM_LOGPROB_ENTRIES[_name] = ("qwen3", _path, _key, _settings_, DERENDER_PROMPT, [
            {"request_id": "r", "choices": [{
                "index": 0, "token_ids": part, "finish_reason": "stop" if k else None,
                "logprobs": {"content": es}}]} for k, (part, es) in enumerate(_parts)])
