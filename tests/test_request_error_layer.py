"""Which layer reports a bad ``tool_choice``, ``response_format`` or history tool call.

Why: vLLM 0.33 reports some of these as request rules (``BadRequestError`` naming the field:
its ``check_tool_usage`` on the raw body) and others as schema errors of the body (``Bad
Request``: its pydantic types for ``response_format`` and the assistant's tool calls). The
expected type and param of every case below are vLLM 0.33's answers to the same bodies
(recorded in ``conformance/goldens/render_chat_edge_errors.json`` and
``render_completion_errors.json``); the params of tito's schema errors use its own ``body.``
notation where vLLM names pydantic's union members. Also a completions field vLLM passes on.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tito.adapters.app import create_app

USER = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
RULE, SCHEMA = "BadRequestError", "Bad Request"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_render", "completions_render"]))


def _assistant(call: dict) -> list[dict]:
    return [*USER, {"role": "assistant", "tool_calls": [call]}]


@pytest.mark.parametrize("fields, kind, param", [
    ({"tools": TOOLS, "tool_choice": "sometimes"}, RULE, "tool_choice"),
    ({"tools": TOOLS, "tool_choice": 5}, RULE, "tool_choice"),
    ({"tool_choice": "sometimes"}, RULE, "tool_choice"),  # no tools: that rule first
    ({"tools": TOOLS, "tool_choice": {"type": "function"}}, RULE, "tool_choice.function"),
    ({"tools": TOOLS, "tool_choice": {"type": "function", "function": "get_weather"}}, RULE,
     "tool_choice.function"),
    ({"tools": TOOLS, "tool_choice": {"type": "function", "function": {}}}, RULE,
     "tool_choice.function.name"),
    ({"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": ""}}}, RULE,
     "tool_choice.function.name"),
    ({"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "nope"}}}, RULE,
     "tool_choice"),
    ({"response_format": {"type": "xml"}}, SCHEMA, "body.response_format.type"),
    ({"response_format": {}}, SCHEMA, "body.response_format.type"),
    ({"response_format": "json"}, SCHEMA, "body.response_format"),
    ({"response_format": {"type": "json_schema"}}, RULE, "response_format"),
    ({"messages": _assistant({"id": "c", "type": "function"})}, SCHEMA,
     "body.messages.1.tool_calls.0.function"),
    ({"messages": _assistant({"id": "c", "type": "function", "function": "get_weather"})},
     SCHEMA, "body.messages.1.tool_calls.0.function"),
    ({"messages": _assistant({"id": "c", "type": "function", "function": {"arguments": "{}"}})},
     SCHEMA, "body.messages.1.tool_calls.0.function"),
])
def test_chat_error_layer_as_vllm(client: TestClient, fields: dict, kind: str, param: str) -> None:
    r = client.post("/v1/chat/completions/render",
                    json={"model": "qwen3", "messages": USER, **fields})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert (error["type"], error["param"], error["code"]) == (kind, param, 400)


def test_quoted_input_stays_bounded(client: TestClient) -> None:
    r = client.post("/v1/chat/completions/render",
                    json={"model": "qwen3", "messages": USER, "tools": TOOLS,
                          "tool_choice": "x" * 100_000})
    assert r.status_code == 400 and len(r.json()["error"]["message"]) < 300


def test_valid_choices_and_formats_still_render(client: TestClient) -> None:
    for fields in ({"tools": TOOLS, "tool_choice": "auto"}, {"tools": TOOLS, "tool_choice": "none"},
                   {"tools": TOOLS, "tool_choice": {"type": "function",
                                                    "function": {"name": "get_weather"}}},
                   {"tool_choice": "none"}, {"response_format": {"type": "text"}},
                   {"response_format": {"type": "json_object"}}):
        r = client.post("/v1/chat/completions/render",
                        json={"model": "qwen3", "messages": USER, **fields})
        assert r.status_code == 200, (fields, r.text)


def test_completions_response_format_type_is_a_schema_error(client: TestClient) -> None:
    r = client.post("/v1/completions/render", json={"model": "gpt2", "prompt": "Hi",
                                                    "response_format": {"type": "xml"}})
    assert r.status_code == 400
    error = r.json()["error"]
    assert (error["type"], error["param"]) == (SCHEMA, "body.response_format.type")


@pytest.mark.parametrize("value", [True, False])
def test_completions_watermarking_reaches_the_engine(client: TestClient, value: bool) -> None:
    # vLLM 0.33 (conformance goldens render_completion watermarking*): SamplingParams field
    r = client.post("/v1/completions/render", json={"model": "gpt2", "prompt": "Hi",
                                                    "watermarking": value})
    assert r.status_code == 200 and r.json()[0]["sampling_params"]["watermarking"] is value
