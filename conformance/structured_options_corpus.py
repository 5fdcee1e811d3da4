"""``structured_outputs`` options and unknown keys as vLLM 0.33's body takes them: the
``render_structured_options`` group.

Why: vLLM's ``StructuredOutputsParams`` is a dataclass of the constraint kinds and three options
(``disable_any_whitespace`` and ``disable_additional_properties`` lax bools, not nullable;
``whitespace_pattern`` a string or null); any other key (a typo, ``disable_fallback``, its own
``_backend``) is dropped with the body, so the engine's sampling params never see it. tito kept
unknown keys as extras and passed them on (chat, completions and Responses), and took any value
for the options.
"""

from __future__ import annotations

from typing import Any

CHAT_R, CMPL_R = "/v1/chat/completions/render", "/v1/completions/render"
RESP_R = "/v1/responses/render"
_M = [{"role": "user", "content": "hi"}]
_SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}}
_OPTS = {"disable_any_whitespace": True, "disable_additional_properties": True,
         "whitespace_pattern": " "}


def _chat(server: str, so: Any) -> tuple[str, str, dict[str, Any]]:
    return server, CHAT_R, {"model": server, "messages": _M, "structured_outputs": so}


def _resp(server: str, so: Any, **extra: Any) -> tuple[str, str, dict[str, Any]]:
    return server, RESP_R, {"model": server, "input": "hi", "structured_outputs": so, **extra}


RENDER_STRUCTURED_OPTIONS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "chat_unknown_key": _chat("qwen3", {"regex": "a", "extra_x": [1]}),
    "chat_backend_keys": _chat("qwen3", {"regex": "a", "_backend": "xgrammar",
                                         "_backend_was_auto": True, "disable_fallback": True}),
    "chat_unknown_null": _chat("qwen3", {"json": _SCHEMA, "x": None}),
    "chat_options": _chat("qwen3", {"json": _SCHEMA, **_OPTS}),
    "chat_option_lax_bool": _chat("qwen3", {"regex": "a", "disable_any_whitespace": "yes"}),
    "chat_option_false": _chat("qwen3", {"regex": "a", "disable_additional_properties": "off"}),
    "chat_option_int": _chat("qwen3", {"regex": "a", "disable_any_whitespace": 5}),
    "chat_option_null": _chat("qwen3", {"regex": "a", "disable_any_whitespace": None}),
    "chat_pattern_int": _chat("qwen3", {"regex": "a", "whitespace_pattern": 5}),
    "chat_pattern_null": _chat("qwen3", {"regex": "a", "whitespace_pattern": None}),
    "completion_unknown_key": ("qwen3", CMPL_R, {"model": "qwen3", "prompt": "hi",
                                                 "structured_outputs": {"choice": ["a", "b"],
                                                                        "extra_x": 1}}),
    "completion_options": ("qwen3", CMPL_R, {"model": "qwen3", "prompt": "hi",
                                             "structured_outputs": {"json": _SCHEMA, **_OPTS}}),
    "responses_unknown_key": _resp("qwen3", {"regex": "a", "extra_x": [1]}),
    "responses_options": _resp("qwen3", {"json": _SCHEMA, **_OPTS}),
    "responses_option_int": _resp("qwen3", {"regex": "a", "disable_any_whitespace": 5}),
    "gptoss_chat_unknown_key": _chat("gpt-oss", {"regex": "a", "extra_x": [1]}),
    "gptoss_chat_options": _chat("gpt-oss", {"json": _SCHEMA, **_OPTS, "extra_x": 1}),
    "gptoss_responses_unknown_key": _resp("gpt-oss", {"regex": "a", "extra_x": [1]}),
    "gptoss_responses_options": _resp("gpt-oss", {"json": _SCHEMA, **_OPTS, "extra_x": 1}),
    "gptoss_responses_option_null": _resp("gpt-oss", {"regex": "a",
                                                      "disable_any_whitespace": None}),
}
