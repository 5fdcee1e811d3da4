"""Engine chunks a stream state does not expect: after a choice's finish (group
``stream_after_finish``), of another stream's ``request_id`` (group ``stream_request_id_change``).

Why: an engine sends nothing for a choice after its finish, but nothing on the wire forbids it
(a misbehaving engine, a client feeding two streams as one). vLLM 0.33's stream state holds no
finish, so its derender reads every later chunk as more output: text after the finish and a
second ``finish_reason`` on the same choice. tito's state marks the choice finished (its stop
strings need that: the engine runs on past them) and derenders nothing after it, one finish per
choice; a client keeping only vLLM's fields, which cannot say the choice finished, gets vLLM's
answer (deviation ``*after_finish*``). The cases: qwen3 chat (reasoning, a hermes call after a
``length`` finish, more text after an EOS ``stop`` finish, an ``abort``), qwen3 and gpt2
completions (logprobs' ``text_offset`` running on, a repeated finish-only chunk,
``return_token_ids``), gpt2 chat, gpt-oss (a final message, then more after its
``<|return|>``).

A chunk whose ``request_id`` is not the one the state was issued for: vLLM's state holds no id,
so it derenders the chunk as the stream's next (each chunk's id its own); tito's README client
gets a 400 (a state is bound to its stream; deviation ``stream_request_id_change``), a client
keeping only vLLM's fields vLLM's answer.
"""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import (
    DERENDER_PROMPT, EOS_IDS, derender_settings, ids, one_logprob,
)

_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}}\n</tool_call>'
CHAT_D, CMPL_D = "/v1/chat/completions/derender", "/v1/completions/derender"


def _case(server: str, chat: bool, extra: dict[str, Any],
          parts: list[tuple[str, str | None, bool]], lp: bool = True) -> tuple[
        str, str, str, dict[str, Any], list[int], list[dict[str, Any]]]:
    """A stream of ``parts`` (text, finish, EOS after the text?), one chunk each."""
    key, settings = derender_settings(server, chat, extra)
    if not lp:
        settings = {k: v for k, v in settings.items() if k not in ("logprobs", "top_logprobs")}
    chunks = []
    for text, finish, eos in parts:
        token_ids = ids(text, server) + ([EOS_IDS[server]] if eos else [])
        choice: dict[str, Any] = {"index": 0, "token_ids": token_ids, "finish_reason": finish}
        if lp:
            choice["logprobs"] = one_logprob(token_ids)
        chunks.append({"request_id": "r", "choices": [choice]})
    return server, CHAT_D if chat else CMPL_D, key, settings, DERENDER_PROMPT, chunks


STREAM_AFTER_FINISH = {
    "qwen3_chat_length_then_text": _case("qwen3", True, {}, [
        ("<think>\nr\n</think>\n\nHello", "length", False), (" world", None, False),
        ("", "stop", True)]),
    "qwen3_chat_tool_after_length": _case("qwen3", True, {"tools": [_WEATHER]}, [
        ("Hi", "length", False), (_CALL, "stop", True)], lp=False),
    "qwen3_chat_after_eos_stop": _case("qwen3", True, {}, [
        ("Hello", "stop", True), (" more", None, False), ("", "stop", True)]),
    "qwen3_chat_abort_then_text": _case("qwen3", True, {"return_token_ids": True}, [
        ("<think>\nr", "abort", False), ("\n</think>\n\nHi", "stop", True)]),
    "qwen3_cmpl_length_then_text": _case("qwen3", False, {}, [
        ("Hello", "length", False), (" world", "length", False)]),
    "gpt2_cmpl_length_then_text": _case("gpt2", False, {}, [
        ("Hello", "length", False), (" world", None, False), ("", "length", False)]),
    "gpt2_cmpl_finish_repeated": _case("gpt2", False, {}, [
        ("Hello", "length", False), ("", "length", False)], lp=False),
    "gpt2_cmpl_ids_after_stop": _case("gpt2", False, {"return_token_ids": True}, [
        ("Hello", "stop", True), (" again", "stop", True)]),
    "gpt2_chat_length_then_text": _case("gpt2", True, {}, [
        ("Hello", "length", False), (" world", "stop", True)]),
    "gptoss_chat_after_return": _case("gpt-oss", True, {}, [
        ("<|channel|>final<|message|>Hello", "stop", True),
        ("<|start|>assistant<|channel|>final<|message|>More", "stop", True)]),
}


def _renamed(case: tuple[str, str, str, dict[str, Any], list[int], list[dict[str, Any]]],
             at: int, until: int = 99) -> tuple[str, str, str, dict[str, Any], list[int], list[dict[str, Any]]]:
    """``case`` with the chunks ``at`` to ``until`` (excluded) under another ``request_id``."""
    chunks = [dict(c, request_id="other") if at <= k < until else c for k, c in enumerate(case[5])]
    return (*case[:5], chunks)


STREAM_REQUEST_ID_CHANGE = {
    "qwen3_chat_text": _renamed(_case("qwen3", True, {}, [
        ("<think>\nr\n</think>\n\nHello", None, False), (" world", "stop", True)]), 1),
    "qwen3_chat_mid_call": _renamed(_case("qwen3", True, {"tools": [_WEATHER]}, [
        ("Hi" + _CALL[:20], None, False), (_CALL[20:], "stop", True)], lp=False), 1),
    "qwen3_chat_back_again": _renamed(_case("qwen3", True, {}, [
        ("Hello", None, False), (" there", None, False), (" world", "stop", True)]), 1, 2),
    "gpt2_cmpl_lp": _renamed(_case("gpt2", False, {}, [
        ("Hello", None, False), (" world", "length", False)]), 1),
    "gptoss_chat": _renamed(_case("gpt-oss", True, {}, [
        ("<|channel|>final<|message|>Hel", None, False), ("lo", "stop", True)]), 1),
    "gptoss_chat_analysis_then_final": _renamed(_case("gpt-oss", True, {}, [
        ("<|channel|>analysis<|message|>r<|end|>", None, False),
        ("<|start|>assistant<|channel|>final<|message|>Hi", "stop", True)]), 1),
    "qwen3_cmpl_ids": _renamed(_case("qwen3", False, {"return_token_ids": True}, [
        ("Hello", None, False), (" world", "length", False)]), 1),
    "qwen3_chat_finish_only": _renamed(_case("qwen3", True, {}, [
        ("<think>\nr\n</think>\n\nHello", None, False), ("", "stop", True)]), 1),
    "gpt2_chat": _renamed(_case("gpt2", True, {}, [
        ("Hello", None, False), (" world", "stop", True)], lp=False), 1),
    "gpt2_cmpl_third_chunk": _renamed(_case("gpt2", False, {}, [
        ("Hello", None, False), (" big", None, False), (" world", "length", False)]), 2),
}
