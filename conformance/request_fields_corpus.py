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
- completions ``prompt_embeds: []`` adds no prompt: the text prompt renders (its echo and
  ``prompt_logprobs`` rules still apply); any other value is a 400 (no embeddings here);
- a Responses ``stop`` of ``""`` or null is no stop (its ``to_sampling_params``); ``[""]`` is
  a 400 as on chat;
- ``ec_transfer_params``: ``{}`` is null in the engine request (as ``kv_transfer_params``);
- ``return_token_offsets`` on a mistral-common model: offsets null (its tokenizer is not a
  fast one), never a 400;
- Responses: ``prompt_cache_options`` its ``PromptCacheOptionsParam`` (``mode`` implicit or
  explicit, ``ttl`` "30m"); ``previous_input_messages`` a list of objects, unread by the
  template models' render and rendered by gpt-oss's after its preamble
  (:mod:`tito.core.harmony.previous` states the rules; ``gptoss_previous_*``); a part that is
  not an object is vLLM's 500 (``*.vllm500``), tito's 400.
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
    "ec_transfer_params": [{}, {"a": 1}, None, "x"],
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
    "ec_transfer_params": [{}, {"a": 1}],
    "stop": ["", None, [""], "x"],
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
    for name, extra in (("empty", {}), ("empty_echo", {"echo": True}),
                        ("empty_prompt_logprobs", {"prompt_logprobs": 1}),
                        ("empty_no_prompt", {"prompt": None}), ("empty_string", {"prompt_embeds": ""}),
                        ("list", {"prompt_embeds": ["x"]})):
        out[f"cmpl_prompt_embeds_{name}"] = ("gpt2", CMPL_R, {
            "model": "gpt2", "prompt": "hi", "prompt_embeds": [], **extra})
    for kind, path, body in (("chat", CHAT_R, {"messages": [{"role": "user", "content": "hi"}]}),
                             ("cmpl", CMPL_R, {"prompt": "hi"}),
                             ("cmpl_two", CMPL_R, {"prompt": ["hi", "yo"]})):
        out[f"mistral_{kind}_token_offsets"] = ("mistral-v3", path, {
            "model": "mistral-v3", **body, "return_token_offsets": True})
    return out


#: gpt-oss renders ``previous_input_messages`` before the input (vLLM's
#: ``construct_harmony_previous_input_messages``): chat-shaped or harmony-shaped dicts
_TC = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]
_PREVIOUS: dict[str, tuple[Any, list[Any]]] = {
    "user": ("next", [{"role": "user", "content": "x"}]),
    "turns": ("c", [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]),
    "parts": ("c", [{"role": "user", "content": [{"type": "input_text", "text": "a"},
                                                 {"type": "input_text", "text": "b"}, {}]}]),
    "system_dropped": ("c", [{"role": "system", "content": "sys"},
                             {"role": "developer", "content": "dev"},
                             {"role": "user", "content": "u"}]),
    "calls": ("go", [{"role": "user", "content": "u"},
                     {"role": "assistant", "content": "ignored", "tool_calls": _TC},
                     {"role": "tool", "name": "f", "content": "ok"},
                     {"role": "tool", "name": "functions.g", "content": [
                         {"type": "input_text", "text": "r"}]},
                     {"role": "tool", "content": None}]),
    "harmony": ("c", [{"author": {"role": "user"}, "content": [{"type": "text", "text": "hey"}]},
                      {"author": {"role": "assistant"}, "channel": "analysis",
                       "content": [{"type": "text", "text": "think"}]},
                      {"author": {"role": "assistant"}, "channel": "commentary",
                       "recipient": "functions.f", "content_type": "json", "content": "{}"},
                      {"author": {"role": "tool", "name": "functions.f"}, "channel": "commentary",
                       "recipient": "assistant", "content": "r"},
                      {"author": {"role": "assistant"}, "channel": "final", "content": "done"},
                      {"author": {"role": "system"}, "content": "dropped"},
                      {"author": {"role": "user"}, "content": 5}]),
    "analysis_kept_after_final": ("c", [
        {"author": {"role": "assistant"}, "channel": "final", "content": "a"},
        {"author": {"role": "assistant"}, "channel": "analysis", "content": "t"}]),
    "empty_input": ("", [{"role": "user", "content": "only"}]),
    "empty_list": ("", []),
    "with_instructions": ("c", [{"role": "user", "content": "u"}]),
    "no_role": ("c", [{"content": "x"}]),
    "bad_role": ("c", [{"role": "foo", "content": "x"}]),
    "bad_author_role": ("c", [{"author": {"role": "foo"}, "content": "x"}]),
    "part_not_object.vllm500": ("c", [{"role": "user", "content": [5]}]),
    "harmony_part_not_object.vllm500": ("c", [{"author": {"role": "user"}, "content": ["x"]}]),
    "text_not_string": ("c", [{"role": "user", "content": [{"type": "text", "text": 5}]}]),
    "content_null": ("c", [{"role": "user", "content": None}]),
    "author_not_object": ("c", [{"author": "user", "role": "user", "content": "x"}]),
    "call_no_function": ("c", [{"role": "assistant", "tool_calls": [{"id": "c"}]}]),
    "call_null_arguments": ("c", [{"role": "assistant", "tool_calls": [
        {"function": {"name": "f", "arguments": None}}]}]),
}


def _previous_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for name, (text, previous) in _PREVIOUS.items():
        body: dict[str, Any] = {"model": "gpt-oss", "input": text,
                                "previous_input_messages": previous}
        if name == "with_instructions":
            body["instructions"] = "Be brief."
        out[f"gptoss_previous_{name}"] = ("gpt-oss", RESPONSES_R, body)
    return out


#: a derender body's ``stream``: vLLM's union reads a number equal to false (``0``, ``0.0``) as
#: its batch member's ``Literal[False]`` (tito refused it); ``null`` is its 400, tito's batch
#: (``stream_null``, a deviation)
_CHOICE = {"index": 0, "token_ids": [9707, 0], "finish_reason": "length"}


def _derender_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for name, value in (("0", 0), ("0_float", 0.0), ("false", False), ("stream_null", None)):
        out[f"derender_chat_stream_{name}"] = ("qwen3", "/v1/chat/completions/derender", {
            "model": "qwen3", "stream": value,
            "generate_response": {"request_id": "r1", "choices": [_CHOICE]},
            "chat_request": {"messages": [{"role": "user", "content": "hi"}]}})
        out[f"derender_cmpl_stream_{name}"] = ("qwen3", "/v1/completions/derender", {
            "model": "qwen3", "stream": value,
            "generate_responses": [{"request_id": "r1", "choices": [_CHOICE]}],
            "completion_request": {"prompt": "hi"}})
    return out


#: ``response_format.json_schema`` as vLLM's ``JsonSchemaResponseFormat`` types it: ``schema``
#: an object (null passes the type, then its rule's 400), ``description`` a string, ``strict``
#: a bool (lax); tito took any falsy ``schema`` and any ``strict``
_JSON_SCHEMAS = {"schema_empty_string": {"schema": ""}, "schema_list": {"schema": []},
                 "schema_null": {"schema": None}, "strict_x": {"schema": {}, "strict": "x"},
                 "strict_true_string": {"schema": {}, "strict": "true"},
                 "strict_float": {"schema": {}, "strict": 1.5},
                 "strict_one": {"schema": {}, "strict": 1},
                 "description_int": {"schema": {}, "description": 5}}


def _json_schema_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for name, spec in _JSON_SCHEMAS.items():
        rf = {"type": "json_schema", "json_schema": {"name": "n", **spec}}
        out[f"chat_json_schema_{name}"] = ("qwen3", CHAT_R, {
            "model": "qwen3", "messages": [{"role": "user", "content": "hi"}],
            "response_format": rf})
        out[f"cmpl_json_schema_{name}"] = ("gpt2", CMPL_R, {"model": "gpt2", "prompt": "hi",
                                                            "response_format": rf})
    return out


def _tokenize_kwargs_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    """qwen3's reasoning parser refuses a list or object ``enable_thinking`` when vLLM builds it
    (chat render: 400); its ``/tokenize`` never builds it (200; tito refused it there too)."""
    out = {}
    for name, value in (("list", []), ("object", {}), ("list_items", ["a"]), ("true", True),
                        ("false", False), ("string", "yes")):
        for route, path in (("tokenize", "/tokenize"), ("chat", CHAT_R)):
            out[f"{route}_enable_thinking_{name}"] = ("qwen3", path, {
                "model": "qwen3", "messages": [{"role": "user", "content": "hi"}],
                "chat_template_kwargs": {"enable_thinking": value}})
    return out


RENDER_REQUEST_FIELDS = {**_cases(), **_previous_cases(), **_derender_cases(),
                         **_json_schema_cases()}
#: its own group (one server): ``render_tokenize_kwargs``
RENDER_TOKENIZE_KWARGS = _tokenize_kwargs_cases()
