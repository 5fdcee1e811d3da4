"""An engine that reports a stop string (``stop_reason`` a string) while its last token id is an
EOS or a stop id (groups ``derender_stop_reason_eos``, batch, and ``stream_stop_reason_eos``,
streams).

Why: vLLM's engine checks stop strings on the text of a step's ids but the last (the one the
scheduler stopped on), so a step of several ids (speculative decoding) can end on an EOS and
still report the string it found before it. vLLM 0.33's derender (``_drop_stop_token``) then
reads no stop token at all: the last id is output (decoded as any id, "" when special ones are
skipped), the text is cut at the reported string (batch; its stream cuts at nothing) and the
``stop_reason`` is the string. tito left the EOS out and reported null (the primary EOS's
reason) until session 43. The cases: the reported string absent from the text, listed in the
request's ``stop`` or not; present and listed (both cut there); the model's primary EOS, an
extra EOS id of its generation config, ``skip_special_tokens`` off; qwen3 chat (its parsers,
with tools) and completions, gpt2 chat and completions, gpt-oss. A stream ends on the EOS in its
finishing chunk, or holds it at the end of a chunk before a finish-only one.
"""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import derender_batch, derender_stream, ids
from conformance.corpus_base import one_logprob as _lp
_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
#: name -> (server, chat?, output text, extra request fields, primary EOS, an extra EOS)
_OUTPUTS: dict[str, tuple[str, bool, str, dict[str, Any], int, int | None]] = {
    "qwen3_chat": ("qwen3", True, "<think>\nr\n</think>\n\nHello world", {}, 151645, 151643),
    "qwen3_chat_tools": ("qwen3", True, '<think>\nr\n</think>\n\nHi<tool_call>\n{"name": '
                         '"get_weather", "arguments": {"city": "P"}}\n</tool_call>',
                         {"tools": [_WEATHER]}, 151645, 151643),
    "qwen3_cmpl": ("qwen3", False, "Hello world", {}, 151645, 151643),
    "gpt2_chat": ("gpt2", True, "Hello world", {}, 50256, None),
    "gpt2_cmpl": ("gpt2", False, "Hello world", {}, 50256, None),
    "gptoss_chat": ("gpt-oss", True, "<|channel|>analysis<|message|>r<|end|><|start|>assistant"
                    "<|channel|>final<|message|>Hello world", {}, 200002, 200012),
}
#: variant -> (reported string, request fields, which EOS ends the output)
_VARIANTS: dict[str, tuple[str, dict[str, Any], str]] = {
    "absent": ("zzz", {}, "primary"),
    "absent_listed": ("zzz", {"stop": ["zzz"]}, "primary"),
    "present_listed": ("world", {"stop": ["world"]}, "primary"),
    "absent_extra_eos": ("zzz", {}, "extra"),
    "absent_keep_special": ("zzz", {"skip_special_tokens": False}, "primary"),
    "absent_include": ("zzz", {"include_stop_str_in_output": True}, "primary"),
}
#: stream variants (no stop strings: vLLM's stream refuses them) -> (reported, fields, EOS,
#: a finish-only last chunk?)
_STREAM_VARIANTS: dict[str, tuple[str, dict[str, Any], str, bool]] = {
    "absent": ("zzz", {}, "primary", False),
    "absent_held": ("zzz", {}, "primary", True),
    "absent_extra_eos_held": ("zzz", {}, "extra", True),
    "absent_keep_special": ("zzz", {"skip_special_tokens": False}, "primary", False),
}


def _eos(name: str, which: str) -> int | None:
    _, _, _, _, primary, extra = _OUTPUTS[name]
    return primary if which == "primary" else extra


def _case(name: str, variant: str) -> tuple[str, str, dict[str, Any]]:
    server, chat, text, extra, _, _ = _OUTPUTS[name]
    reported, fields, which = _VARIANTS[variant]
    token_ids = ids(text, server) + [_eos(name, which)]
    choice = {"index": 0, "token_ids": token_ids, "finish_reason": "stop",
              "stop_reason": reported, "logprobs": _lp(token_ids)}
    return derender_batch(server, chat, {**extra, **fields}, [choice])


def _stream(name: str, variant: str) -> tuple[str, str, str, dict[str, Any], list[int],
                                              list[dict[str, Any]]]:
    server, chat, text, extra, _, _ = _OUTPUTS[name]
    reported, fields, which, held = _STREAM_VARIANTS[variant]
    token_ids = ids(text, server) + [_eos(name, which)]
    parts = [token_ids[:3], token_ids[3:]] + ([[]] if held else [])
    chunks = []
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        chunks.append({"request_id": "r", "choices": [{
            "index": 0, "token_ids": part, "finish_reason": "stop" if last else None,
            "stop_reason": reported if last else None, "logprobs": _lp(part)}]})
    return derender_stream(server, chat, {**extra, **fields}, chunks)


DERENDER_STOP_REASON_EOS = {
    f"{name}_{variant}": _case(name, variant) for name in _OUTPUTS for variant in _VARIANTS
    if _eos(name, _VARIANTS[variant][2]) is not None}
STREAM_STOP_REASON_EOS = {
    f"{name}_{variant}": _stream(name, variant) for name in _OUTPUTS
    for variant in _STREAM_VARIANTS if _eos(name, _STREAM_VARIANTS[variant][2]) is not None}
