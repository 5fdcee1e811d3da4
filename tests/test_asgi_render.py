"""The render functions' plain ASGI app answers exactly as the FastAPI app does.

Why: the Lambda render functions (chat, completions and Responses render, tokenize) serve
:class:`tito.adapters.asgi_render.RenderApp` while ``tito serve`` serves the FastAPI routes; a
client must not be able to tell them apart. The reference is the FastAPI app: same status, same
headers, same body bytes (the random default request ids aside) for valid bodies, bad bodies,
service errors, wrong methods, unknown paths and hypothesis-mutated bodies.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_asgi import JUNK, _paths  # the same mutations as the derender app's comparison

from tito.adapters.app import create_app
from tito.adapters.asgi_render import RENDER_ENDPOINTS, RenderApp
from tito.adapters.payload import event_bytes

CHAT = "/v1/chat/completions/render"
COMPLETIONS = "/v1/completions/render"
RESPONSES = "/v1/responses/render"
MESSAGES = "/v1/messages/render"
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
USER = [{"role": "user", "content": "Hello"}]
CALL = {"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}

def _nested(depth: int) -> dict[str, Any]:
    """A JSON object nested ``depth`` levels deep (past pydantic's serializer recursion guard,
    which made the FastAPI app answer 500 for a deep ``kv_transfer_params``)."""
    out: dict[str, Any] = {}
    for _ in range(depth):
        out = {"a": out}
    return out


DEEP = _nested(300)

#: (path, JSON body, headers)
BODIES: list[tuple[str, Any, dict[str, str]]] = [
    # chat: good
    (CHAT, {"model": "qwen3", "messages": USER}, {}),
    (CHAT, {"model": "qwen3", "messages": USER, "request_id": "abc", "temperature": 0.5,
            "stop": ["###"], "stream": True, "stream_options": {"include_usage": True},
            "logprobs": True, "top_logprobs": 3, "max_completion_tokens": 64},
     {"X-Request-Id": "hdr-1"}),
    (CHAT, {"model": "qwen3", "tools": TOOLS, "tool_choice": "required", "messages": [
        {"role": "system", "content": "Be brief."}, *USER,
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]}, {}),
    (CHAT, {"model": "qwen3", "messages": [*USER, {"role": "assistant", "content": "Hi, I"}],
            "add_generation_prompt": False, "continue_final_message": True,
            "return_token_offsets": True,
            "response_format": {"type": "json_schema", "json_schema": {
                "name": "x", "schema": {"type": "object"}}}}, {"x-request-id": ""}),
    (CHAT, {"model": "gpt-oss", "messages": USER, "reasoning_effort": "low"}, {}),
    (CHAT, {"model": "mistral-v3", "messages": USER, "n": 2}, {}),
    # chat: bad
    (CHAT, {"model": "qwen3"}, {}),
    (CHAT, {"model": "qwen3", "messages": "hi"}, {}),
    (CHAT, {"model": "qwen3", "messages": USER, "temperature": "hot"}, {}),
    (CHAT, {"model": "qwen3", "messages": USER, "add_generation_prompt": True,
            "continue_final_message": True}, {}),
    (CHAT, {"model": "nope", "messages": USER}, {}),
    (CHAT, {"model": "qwen3", "messages": USER, "use_beam_search": True}, {}),
    (CHAT, {"model": "qwen3", "messages": USER, "chat_template": "{{ 1 }}"}, {}),
    (CHAT, {"model": "qwen3", "messages": USER, "max_completion_tokens": 10**9}, {}),
    (CHAT, {"model": "qwen3", "messages": [*USER, {"role": "assistant", "tool_calls": [
        {**CALL, "function": {"name": "f", "arguments": "{not json"}}]}]}, {}),
    (CHAT, {"model": "qwen3", "messages": USER}, {"X-Request-Id": "x" * 300}),
    (CHAT, {"model": "qwen3", "messages": USER, "kv_transfer_params": DEEP}, {}),
    # completions
    (COMPLETIONS, {"model": "gpt2", "prompt": "Hello, world", "max_tokens": 5, "echo": True,
                   "logprobs": 2, "stop": "a"}, {"X-Request-Id": "c-1"}),
    (COMPLETIONS, {"model": "gpt2", "prompt": [[15496, 11], [995]], "request_id": "r"}, {}),
    (COMPLETIONS, {"model": "qwen3", "prompt": ["a", "b"], "return_token_offsets": True}, {}),
    (COMPLETIONS, {"model": "gpt2", "prompt": "x", "suffix": "y"}, {}),
    (COMPLETIONS, {"model": "gpt2", "prompt": [10**9]}, {}),
    (COMPLETIONS, {"model": "gpt2", "prompt": []}, {}),
    (COMPLETIONS, {"model": "gpt2"}, {}),
    (COMPLETIONS, {"model": "gpt2", "prompt": "x", "kv_transfer_params": DEEP}, {}),
    # responses
    (RESPONSES, {"model": "qwen3", "input": "Hello", "instructions": "Be brief.",
                 "request_id": "resp_1"}, {"X-Request-Id": "ignored"}),
    (RESPONSES, {"model": "qwen3", "input": [{"role": "user", "content": "Hi"}], "tools": [
        {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]}, {}),
    (RESPONSES, {"model": "qwen3"}, {}),
    (RESPONSES, {"model": "qwen3", "input": 5}, {}),
    (RESPONSES, {"model": "qwen3", "input": "Hi", "kv_transfer_params": DEEP}, {}),
    # messages
    (MESSAGES, {"model": "qwen3", "max_tokens": 32, "messages": USER,
                "system": [{"type": "text", "text": "Be brief."}]}, {"X-Request-Id": "m-1"}),
    (MESSAGES, {"model": "qwen3", "max_tokens": 32, "thinking": {"type": "disabled"},
                "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
                "tool_choice": {"type": "any"}, "messages": [*USER, {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "P"}}]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}]}]}, {}),
    (MESSAGES, {"model": "qwen3", "messages": USER}, {}),
    (MESSAGES, {"model": "qwen3", "max_tokens": 2000, "messages": USER,
                "thinking": {"type": "enabled", "budget_tokens": 4000}}, {}),
    (MESSAGES, {"model": "nope", "max_tokens": 8, "messages": USER}, {}),
    (MESSAGES, {"model": "qwen3", "max_tokens": 8, "messages": USER, "kv_transfer_params": DEEP}, {}),
    # tokenize
    ("/tokenize", {"model": "qwen3", "prompt": "Hello there", "return_token_strs": True}, {}),
    ("/tokenize", {"model": "qwen3", "messages": USER}, {}),
    ("/tokenize", {"model": "qwen3", "messages": []}, {}),
    ("/tokenize", {"model": "qwen3"}, {}),
    ("/detokenize", {"model": "qwen3", "tokens": [9707, 151645]}, {}),
    ("/detokenize", {"model": "qwen3", "tokens": ["a"]}, {}),
]

RAW: list[tuple[str, str, bytes, str]] = [
    ("POST", CHAT, b'{"model": "qwen3", "messages": ', "application/json"),
    ("POST", CHAT, b"[1, 2, 3]", "application/json"),
    ("POST", CHAT, b'{"model": "qwen3"}', "text/plain"),
    ("POST", CHAT, b'{"model": "qwen3"}', ""),
    ("POST", CHAT, b'{"a": "\xff"}', "application/json"),
    ("POST", CHAT, b"", "application/json"),
    ("POST", CHAT, b'{"model": "qwen3", "messages": [{"role": "user", "content": "\\udc00"}]}',
     "application/json"),
    ("POST", CHAT, b'{"model": "qwen3", "messages": [{"role": "user", "content": "hi"}], '
                   b'"kv_transfer_params": {"x": Infinity, "y": [NaN]}}', "application/json"),
    ("GET", CHAT, b"", ""),
    ("PUT", "/tokenize", b"{}", "application/json"),
    ("POST", "/health", b"{}", "application/json"),
    ("GET", "/health", b"", ""),
    ("GET", "/v1/models", b"", ""),
    ("GET", "/version", b"", ""),
    ("GET", "/nowhere", b"", ""),
    ("POST", "/v1/chat/completions/derender", b"{}", "application/json"),
]

_RANDOM_ID = re.compile(rb"[0-9a-f]{16}")


@pytest.fixture(scope="module")
def clients() -> tuple[TestClient, TestClient]:
    names = sorted(RENDER_ENDPOINTS)
    return (TestClient(create_app(endpoints=names), raise_server_exceptions=False),
            TestClient(RenderApp(names), raise_server_exceptions=False))


def _same(clients: tuple[TestClient, TestClient], method: str, path: str, content: bytes,
          headers: dict[str, str]) -> int:
    ref, lean = (c.request(method, path, content=content, headers=headers) for c in clients)
    assert lean.status_code == ref.status_code, (path, content, ref.text, lean.text)
    assert lean.headers.items() == ref.headers.items()
    assert _RANDOM_ID.sub(b"<id>", lean.content) == _RANDOM_ID.sub(b"<id>", ref.content)
    return ref.status_code


@pytest.mark.parametrize(("path", "body", "headers"), BODIES)
def test_same_answer_as_fastapi(clients: Any, path: str, body: Any, headers: dict[str, str]) -> None:
    _same(clients, "POST", path, json.dumps(body).encode(),
          {"content-type": "application/json", **headers})


def test_the_cases_cover_answers_and_errors(clients: Any) -> None:
    """The table above holds both served requests and every kind of error (not all 400s)."""
    statuses = {_same(clients, "POST", path, json.dumps(body).encode(),
                      {"content-type": "application/json", **headers})
                for path, body, headers in BODIES}
    assert statuses == {200, 400, 404}


@pytest.mark.parametrize(("method", "path", "content", "content_type"), RAW)
def test_same_answer_for_raw_requests(clients: Any, method: str, path: str, content: bytes,
                                      content_type: str) -> None:
    _same(clients, method, path, content, {"content-type": content_type} if content_type else {})


GOOD = [b for b in BODIES if b[0] != CHAT or b[1].get("model") == "qwen3"][:4] + [
    b for b in BODIES if b[0] in (COMPLETIONS, RESPONSES, "/tokenize")][:6] + [
    b for b in BODIES if b[0] == MESSAGES][:2]


@given(data=st.data())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_mutated_bodies_same_answer(clients: Any, data: st.DataObject) -> None:
    path, body, headers = data.draw(st.sampled_from(GOOD))
    body = copy.deepcopy(body)
    where = data.draw(st.sampled_from(_paths(body)))
    value = data.draw(JUNK)
    if not where:
        body = value
    else:
        target = body
        for key in where[:-1]:
            target = target[key]
        target[where[-1]] = value
    _same(clients, "POST", path, json.dumps(body).encode(),
          {"content-type": "application/json", **headers})


def test_lambda_render_functions_serve_the_render_app() -> None:
    """Each render function's handler is built on :class:`RenderApp` (not FastAPI)."""
    from tito.handlers._lambda import make_handler

    for name in sorted(RENDER_ENDPOINTS):
        assert type(make_handler([name], load_models=False).app) is RenderApp


@pytest.mark.parametrize(("path", "body"), [(p, b) for p, b, _ in BODIES if p != "/tokenize"
                                            and p != "/detokenize"
                                            and b.get("kv_transfer_params") is not DEEP])
def test_engine_request_wire_is_its_json_dump(path: str, body: Any) -> None:
    """``GenerateRequest.to_wire`` (what the render app sends) is pydantic's JSON dump (not for
    a ``DEEP`` value: pydantic's own dump of it fails its recursion guard; ``to_wire`` does not)."""
    from tito.adapters.asgi import dump_json
    from tito.errors import TitoError
    from tito.protocol import ChatCompletionRequest, CompletionRequest, ResponsesRequest
    from tito.service.render import render_chat_request, render_completion_request
    from tito.protocol.anthropic import AnthropicMessagesRequest
    from tito.service.messages import render_messages_request
    from tito.service.responses_render import render_responses_request

    try:
        if path == CHAT:
            out = [render_chat_request(ChatCompletionRequest.model_validate(body))]
        elif path == COMPLETIONS:
            out = render_completion_request(CompletionRequest.model_validate(body))
        elif path == MESSAGES:
            out = [render_messages_request(AnthropicMessagesRequest.model_validate(body))]
        else:
            out = [render_responses_request(ResponsesRequest.model_validate(body))]
    except (TitoError, ValueError):
        pytest.skip("an error case")
    for generate in out:
        dumped = generate.model_dump(mode="json")
        assert json.loads(dump_json(generate.to_wire())) == dumped
        assert dump_json(generate.to_wire()) == dump_json(dumped)


def test_render_answer_over_the_payload_limit_is_a_clear_413(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A render answer repeats the request's constraint (structured_outputs, derender_context):
    one Lambda could not return is a 413 saying so, not a failed invocation."""
    schema = {"type": "object", "properties": {f"field_{k}": {"type": "string",
              "description": "x" * 40} for k in range(40)}}
    raw = json.dumps({"model": "qwen3", "messages": [{"role": "user", "content": "hi"}],
                      "response_format": {"type": "json_schema", "json_schema": {
                          "name": "big", "schema": schema}}}).encode()
    path, headers = "/v1/chat/completions/render", {"content-type": "application/json"}
    served = TestClient(RenderApp(["chat_render"])).post(path, content=raw, headers=headers)
    assert served.status_code == 200 and event_bytes(served.content) > event_bytes(raw)
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", str(event_bytes(raw)))  # the request just fits
    resp = TestClient(RenderApp(["chat_render"])).post(path, content=raw, headers=headers)
    assert resp.status_code == 413, resp.text
    err = resp.json()["error"]
    assert err["code"] == 413 and err["type"] == "Request Entity Too Large"
    assert "Response too large" in err["message"] and "response_format" in err["message"]
