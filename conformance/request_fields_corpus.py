"""The ``render_request_fields`` group: vLLM 0.33 request fields no other corpus sends, with
good and bad values, on the chat, completions and Responses renders (recorded per server by
``record.py``; a probe of every field vLLM's request models declare found these undrawn).

What vLLM 0.33 does, measured:

- chat and completions: ``session_id`` a string or null; ``return_weight_versions`` a bool
  (null is its 400); ``routed_experts_prompt_start`` an int >= 0 (0, the default, is left out
  of the engine's sampling params; null is a 400); ``return_token_offsets`` and
  ``return_mm_kwargs`` a bool or null; ``mm_payload`` ``"tensors"`` or ``"none"`` (null is a
  400); ``stream_interval`` an int >= 1 or null; ``repetition_detection`` its
  ``RepetitionDetectionParams`` (ints, lax; unknown keys dropped; every field written to the
  sampling params; ``min_pattern_size > max_pattern_size``, a negative size, or a
  ``max_pattern_size`` without ``min_count >= 2`` is its ``BadRequestError``);
- ``return_token_offsets`` on a mistral-common model: offsets null (its tokenizer is not a
  fast one), never a 400;
- Responses: ``prompt_cache_options`` its ``PromptCacheOptionsParam`` (``mode`` implicit or
  explicit, ``ttl`` "30m"); ``previous_input_messages`` a list of objects (unread by the
  template models' render).
"""

from __future__ import annotations

from typing import Any

CHAT_R, CMPL_R, RESPONSES_R = ("/v1/chat/completions/render", "/v1/completions/render",
                               "/v1/responses/render")

#: field -> values sent on the chat and completions renders
_COMMON: dict[str, list[Any]] = {
    "session_id": ["s1", 5, None],
    "return_weight_versions": [True, "x", None],
    "routed_experts_prompt_start": [0, 3, -1, None, 1.5],
    "return_token_offsets": [True, None, "x"],
    "mm_payload": ["none", "x", None],
    "return_mm_kwargs": [False, None, "x"],
    "stream_interval": [1, 5, 0, None, "x"],
    "repetition_detection": [
        None, {}, {"max_pattern_size": 3, "min_count": 2}, {"max_pattern_size": 3, "min_count": 1},
        {"max_pattern_size": -1}, {"min_pattern_size": 2, "max_pattern_size": 1, "min_count": 3},
        {"max_pattern_size": 2, "min_pattern_size": 1, "min_count": 2},
        {"max_pattern_size": "3", "min_count": 2}, {"x": 1}, "x", 5,
        {"max_pattern_size": 1.5, "min_count": 2}, {"max_pattern_size": True, "min_count": 2}],
}
_RESPONSES: dict[str, list[Any]] = {
    "prompt_cache_options": [None, {}, {"mode": "explicit", "prewarm": True}, {"mode": "x"},
                             {"ttl": 5}, "x", {"bogus": 1}],
    "previous_input_messages": [None, [], [{"role": "user", "content": "x"}], "x", [5]],
}


def _cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for field, values in _COMMON.items():
        for i, value in enumerate(values):
            out[f"chat_{field}_{i}"] = ("qwen3", CHAT_R, {
                "model": "qwen3", "messages": [{"role": "user", "content": "hi"}], field: value})
            out[f"cmpl_{field}_{i}"] = ("gpt2", CMPL_R, {"model": "gpt2", "prompt": "hi",
                                                         field: value})
    for field, values in _RESPONSES.items():
        for i, value in enumerate(values):
            out[f"responses_{field}_{i}"] = ("qwen3", RESPONSES_R, {"model": "qwen3",
                                                                     "input": "hi", field: value})
    for kind, path, body in (("chat", CHAT_R, {"messages": [{"role": "user", "content": "hi"}]}),
                             ("cmpl", CMPL_R, {"prompt": "hi"}),
                             ("cmpl_two", CMPL_R, {"prompt": ["hi", "yo"]})):
        out[f"mistral_{kind}_token_offsets"] = ("mistral-v3", path, {
            "model": "mistral-v3", **body, "return_token_offsets": True})
    return out


RENDER_REQUEST_FIELDS = _cases()
