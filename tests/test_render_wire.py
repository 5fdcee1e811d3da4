"""tito.service.render_wire: the wire dict without the models is the models' wire dict.

References: ``SamplingParams(**fields).to_wire()``, ``render_chat_request(...).to_wire()`` and
``render_completion_request(...)``'s ``to_wire()``
(the validated path, which the FastAPI app and every other caller use), on generated values and
requests, good, bad and mutated: the same bytes when both succeed, the same error otherwise.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tito.adapters.splice import dump_json
from tito.errors import TitoError
from tito.protocol import ChatCompletionRequest, CompletionRequest, SamplingParams
from tito.service.render import (
    render_chat_request,
    render_chat_wire,
    render_completion_request,
    render_completion_wire,
)
from tito.service.render_wire import sampling_params_wire

_NUMBERS = (st.integers(-3, 20) | st.floats(allow_nan=True, allow_infinity=True)
            | st.sampled_from([0, 1, -1, 2, 0.0, 1.0, 2.0, -2.0, 0.5, 2**53, 2**63, -(2**63) - 1,
                               16384, 16385, 1e-9]))
_ODD = st.sampled_from([None, True, False, "1", "x", [], {}, [1], [-1], ["a"], [True], [1.0]])
_VALUE = _NUMBERS | _ODD
_SAMPLING_FIELDS = list(SamplingParams.model_fields)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.sampled_from([*_SAMPLING_FIELDS, "unknown"]), _VALUE, max_size=8))
def test_sampling_params_wire_is_the_models_or_none(fields):
    wire = sampling_params_wire(fields)
    try:
        expected = SamplingParams(**fields).to_wire()
    except ValidationError:
        assert wire is None
        return
    if wire is not None:
        assert dump_json(wire) == dump_json(expected)


def test_sampling_params_wire_takes_the_common_fields():
    fields = {"repetition_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0,
              "temperature": 2, "top_p": 0.9, "top_k": 0, "min_p": 0.0, "n": 2, "seed": 7,
              "stop_token_ids": [1, 2], "logprobs": None, "prompt_logprobs": None,
              "max_tokens": 16, "min_tokens": 0, "ignore_eos": False,
              "include_stop_str_in_output": False, "skip_special_tokens": True,
              "spaces_between_special_tokens": True, "output_kind": 2, "skip_clone": True}
    wire = sampling_params_wire(fields)
    assert wire == SamplingParams(**fields).to_wire()
    assert wire["temperature"] == 2.0 and type(wire["temperature"]) is float
    assert wire["max_tokens"] == 16  # kept though it is the default: it was set
    for bad in ({"seed": -1}, {"min_tokens": 17}, {"temperature": math.nan},
                {"structured_outputs": {"json": {}}}, {"top_p": 0}, {"n": True}):
        assert sampling_params_wire({**fields, **bad}) is None, bad


_MESSAGES = [
    [{"role": "user", "content": "Hi!"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of Peru?"}],
    [{"role": "user", "content": "Weather?"},
     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
      "function": {"name": "get_weather", "arguments": "{\"city\": \"Lima\"}"}}]},
     {"role": "tool", "tool_call_id": "c1", "content": "{\"t\": 20}"}],
    [{"role": "user", "content": [{"type": "text", "text": "café ☕"}]}],
]
_TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]

_REQUEST_FIELDS = {
    "temperature": _VALUE, "top_p": _VALUE, "top_k": _VALUE, "min_p": _VALUE, "n": _VALUE,
    "presence_penalty": _VALUE, "frequency_penalty": _VALUE, "repetition_penalty": _VALUE,
    "seed": _VALUE, "max_tokens": _VALUE, "max_completion_tokens": _VALUE,
    "min_tokens": _VALUE, "stop_token_ids": _VALUE, "stop": st.sampled_from(["x", ["a", "b"], []]),
    "logprobs": st.booleans(), "top_logprobs": st.integers(-2, 30),
    "stream": st.booleans(), "stream_options": st.sampled_from([None, {"include_usage": True}]),
    "ignore_eos": _VALUE, "skip_special_tokens": _VALUE, "logit_bias": st.sampled_from(
        [None, {"1": 2.0}, {"x": 1}]), "bad_words": st.sampled_from([["no"], [], None]),
    "priority": st.integers(-3, 3), "cache_salt": st.sampled_from(["s", None]),
    "chat_template_kwargs": st.sampled_from([None, {"enable_thinking": False}, {"x": math.inf}]),
    "kv_transfer_params": st.sampled_from([None, {"a": 1}, {"prompt_token_ids": [1, 2, 3]}]),
    "response_format": st.sampled_from([None, {"type": "json_object"}, {"type": "text"}]),
    "return_token_ids": st.sampled_from([None, True]), "return_token_offsets": st.booleans(),
    "tools": st.sampled_from([None, _TOOLS]), "tool_choice": st.sampled_from(
        ["none", "auto", "required"]), "include_reasoning": st.booleans(),
    "reasoning_effort": st.sampled_from(["none", "low", None]),
    "vllm_xargs": st.sampled_from([None, {"k": 1}]),
    "thinking_token_budget": st.sampled_from([None, 5]),
}


def _request(model_type, data, body, fields):
    """``body`` plus up to six drawn ``fields``, validated by ``model_type``; None when the
    body is invalid (both apps answer its validation error before either path runs)."""
    keys = data.draw(st.sets(st.sampled_from(sorted(fields)), max_size=6))
    for key in sorted(keys):
        body[key] = data.draw(fields[key], label=key)
    try:
        return model_type.model_validate(body)
    except (ValidationError, TitoError):
        return None


def _outcome(fn):
    try:
        return "ok", dump_json(fn())
    except TitoError as exc:
        return "error", (exc.status, exc.type, exc.message, exc.param)


@pytest.mark.parametrize("model", ["qwen3", "gpt2", "mistral-v3"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_chat_wire_equals_the_validated_wire(model, data):
    body = {"model": model, "request_id": "fixed", "messages": data.draw(st.sampled_from(_MESSAGES))}
    request = _request(ChatCompletionRequest, data, body, _REQUEST_FIELDS)
    if request is None:
        return
    expected = _outcome(lambda: render_chat_request(request, header_request_id="h").to_wire())
    assert _outcome(lambda: render_chat_wire(request, header_request_id="h")) == expected


def test_common_chat_skips_the_models(monkeypatch):
    import tito.service.render as render

    def fail(*args, **kwargs):
        raise AssertionError("the models were built")

    request = ChatCompletionRequest.model_validate(
        {"model": "qwen3", "messages": _MESSAGES[1], "temperature": 0.6, "max_tokens": 64,
         "request_id": "r"})
    expected = dump_json(render_chat_request(request).to_wire())
    monkeypatch.setattr(render, "_sampling_params", fail)
    monkeypatch.setattr(render, "GenerateRequest", fail)
    assert dump_json(render_chat_wire(request)) == expected


_PROMPTS = st.sampled_from(["Once upon a time", "café ☕", ["a", "b c"], [1, 2, 3], [[5, 6], [7]],
                            [], "", [10**9], [-1], [True, 2]])
_COMPLETION_FIELDS = {
    **{k: v for k, v in _REQUEST_FIELDS.items() if k not in {
        "max_completion_tokens", "logprobs", "top_logprobs", "tools", "tool_choice",
        "include_reasoning", "reasoning_effort", "thinking_token_budget",
        "chat_template_kwargs"}},
    "logprobs": st.sampled_from([None, 0, 1, 5, 30]), "echo": st.booleans(),
    "add_special_tokens": st.booleans(), "truncate_prompt_tokens": st.sampled_from([None, 2, -1]),
    "ec_transfer_params": st.sampled_from([None, {"e": 1}]),
}


@pytest.mark.parametrize("model", ["qwen3", "gpt2"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_completion_wire_equals_the_validated_wire(model, data):
    body = {"model": model, "request_id": "fixed", "prompt": data.draw(_PROMPTS)}
    request = _request(CompletionRequest, data, body, _COMPLETION_FIELDS)
    if request is None:
        return
    expected = _outcome(lambda: [g.to_wire() for g in render_completion_request(
        request, header_request_id="h")])
    assert _outcome(lambda: render_completion_wire(request, header_request_id="h")) == expected


def test_common_completion_skips_the_models(monkeypatch):
    import tito.service.render_completions as completions

    def fail(*args, **kwargs):
        raise AssertionError("the models were built")

    request = CompletionRequest.model_validate(
        {"model": "gpt2", "prompt": ["The capital of France is", "Hi"], "temperature": 0.0,
         "max_tokens": 32, "logprobs": 1, "request_id": "r"})
    expected = dump_json([g.to_wire() for g in render_completion_request(request)])
    monkeypatch.setattr(completions, "_sampling_params", fail)
    monkeypatch.setattr(completions, "GenerateRequest", fail)
    assert dump_json(render_completion_wire(request)) == expected


_RESPONSES_INPUTS = st.sampled_from([
    "What is the capital of France?", "café ☕", [],
    [{"role": "user", "content": "Hi"}],
    [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
     {"type": "function_call", "call_id": "c1", "name": "get_weather",
      "arguments": "{\"city\": \"Lima\"}"},
     {"type": "function_call_output", "call_id": "c1", "output": "20"}],
])
_RESPONSES_FIELDS = {
    "instructions": st.sampled_from([None, "Be brief.", ""]),
    "max_output_tokens": st.sampled_from([None, 0, 1, 64, 10**6]),
    "temperature": _VALUE, "top_p": _VALUE, "top_k": _VALUE, "min_p": _VALUE, "seed": _VALUE,
    "presence_penalty": _VALUE, "repetition_penalty": _VALUE,
    "stop": st.sampled_from([None, [], "x", ["a", "b"]]),
    "stop_token_ids": st.sampled_from([None, [], [1, 2]]),
    "cache_salt": st.sampled_from([None, "s"]), "priority": st.integers(-2, 2),
    "logit_bias": st.sampled_from([None, {"1": 2.0}]), "ignore_eos": st.booleans(),
    "skip_special_tokens": st.sampled_from([None, True, False]),
    "include": st.sampled_from([None, ["message.output_text.logprobs"]]),
    "top_logprobs": st.sampled_from([None, 0, 3]), "include_reasoning": st.booleans(),
    "reasoning": st.sampled_from([None, {"effort": "low"}, {"effort": "none"}]),
    "text": st.sampled_from([None, {"format": {"type": "json_object"}},
                             {"format": {"type": "text"}}]),
    "tools": st.sampled_from([[], [{"type": "function", "name": "get_weather",
                                    "parameters": {"type": "object"}}]]),
    "tool_choice": st.sampled_from(["auto", "none", "required"]),
    "chat_template_kwargs": st.sampled_from([None, {}, {"enable_thinking": False}]),
    "kv_transfer_params": st.sampled_from([None, {}, {"a": 1}]),
    "structured_outputs": st.sampled_from([None, {"regex": "a+"}]),
    "vllm_xargs": st.sampled_from([None, {}, {"k": 1}]), "stream": st.booleans(),
}


@pytest.mark.parametrize("model", ["qwen3", "gpt2"])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_responses_wire_equals_the_validated_wire(model, data):
    from tito.protocol import ResponsesRequest
    from tito.service import chat_body, responses, responses_render

    body = {"model": model, "request_id": "resp_fixed", "input": data.draw(_RESPONSES_INPUTS)}
    request = _request(ResponsesRequest, data, body, _RESPONSES_FIELDS)
    if request is None:
        return
    wire = _outcome(lambda: responses_render.render_responses_wire(request))
    chat = _outcome(lambda: (lambda c: (c.model_dump(), sorted(c.model_fields_set)))(
        responses.chat_request_for(request)))
    with pytest.MonkeyPatch.context() as patch:  # the reference: every chat request validated
        patch.setattr(chat_body, "read", lambda data: None)
        assert _outcome(lambda: (lambda c: (c.model_dump(), sorted(c.model_fields_set)))(
            responses.chat_request_for(request))) == chat
        assert _outcome(lambda: responses_render.render_responses_request(request).to_wire()) == wire


def test_common_responses_render_skips_the_models(monkeypatch):
    import tito.service.render as render
    from tito.protocol import ResponsesRequest
    from tito.service import responses_render

    request = ResponsesRequest.model_validate(
        {"model": "qwen3", "instructions": "Answer briefly.", "input": "Capital of Peru?",
         "max_output_tokens": 64, "request_id": "resp_r"})
    expected = dump_json(responses_render.render_responses_request(request).to_wire())

    def fail(*args, **kwargs):
        raise AssertionError("a model was validated")

    monkeypatch.setattr(render, "_sampling_params", fail)
    monkeypatch.setattr(render, "GenerateRequest", fail)
    monkeypatch.setattr(ChatCompletionRequest, "model_validate", fail)
    assert dump_json(responses_render.render_responses_wire(request)) == expected


def test_common_chat_tokenize_skips_the_models(monkeypatch):
    import tito.service.render as render
    from tito.protocol import TokenizeChatRequest
    from tito.service.tokenize import tokenize

    request = TokenizeChatRequest.model_validate(
        {"model": "qwen3", "messages": _MESSAGES[1], "return_token_strs": True})
    expected = tokenize(request).model_dump()
    chat = ChatCompletionRequest.model_validate({"model": "qwen3", "messages": _MESSAGES[1],
                                                 "add_special_tokens": False})
    assert expected["tokens"] == render_chat_request(chat).token_ids

    def fail(*args, **kwargs):
        raise AssertionError("a model was validated")

    monkeypatch.setattr(render, "_sampling_params", fail)
    monkeypatch.setattr(render, "GenerateRequest", fail)
    monkeypatch.setattr(ChatCompletionRequest, "model_validate", fail)
    assert tokenize(request).model_dump() == expected
