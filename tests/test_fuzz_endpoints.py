"""Fuzzing every POST endpoint: whatever the body, the answer is a 200 or a 4xx in the error
shape, never a 500 (an unexpected exception) and never a hang."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, stream_chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.fuzz_hard import paths
from tito.adapters import app as app_module
from tito.adapters.app import create_app

QWEN_IDS = [151667, 198, 785, 151668, 271, 9707, 0, 151657, 151658, 151645]

VALID: dict[str, list[dict[str, Any]]] = {
    "/v1/chat/completions/derender": [
        {"model": "qwen3", "prompt_token_ids": [151644, 77091, 198],
         "chat_request": {"messages": [{"role": "user", "content": "hi"}],
                          "tools": [{"type": "function", "function": {"name": "f"}}], "stop": ["x"]},
         "generate_response": generate_response(QWEN_IDS, logprobs={"content": [
             {"token_id": i, "logprob": -1.0, "top_logprobs": [{"token_id": i, "logprob": -1.0}]}
             for i in QWEN_IDS]})},
        {"stream": True, "model": "qwen3", "stream_state": None, "prompt_token_ids": [151644],
         "generate_chunk": stream_chunk(QWEN_IDS[:4])},
    ],
    "/v1/completions/derender": [
        {"model": "gpt2", "prompt_token_ids": [[15496]], "prompt_tokens": [1],
         "completion_request": {"prompt": "x", "echo": True, "stop": "a"},
         "generate_responses": [generate_response([15496, 11, 50256])]},
        {"stream": True, "model": "gpt2", "generate_chunks": [stream_chunk([15496]), stream_chunk(None)]},
    ],
    "/v1/chat/completions/render": [
        {"model": "qwen3", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5,
         "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
         "tool_choice": "auto", "stop": ["x"], "logprobs": True, "top_logprobs": 2},
        {"model": "mistral-v3", "messages": [{"role": "system", "content": "s"},
                                             {"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
    ],
    "/v1/completions/render": [
        {"model": "gpt2", "prompt": ["a", "b"], "max_tokens": 3, "echo": True, "logprobs": 1},
        {"model": "gpt2", "prompt": [[1, 2, 3]], "truncate_prompt_tokens": 2},
    ],
}

JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def _set(obj: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return obj


@pytest.fixture(scope="module")
def client() -> TestClient:
    c = TestClient(create_app(), raise_server_exceptions=False)
    # bodies that carry a real stream_state (with a signature), so mutations reach its fields
    for path, model, chunk, extra in [
        ("/v1/chat/completions/derender", "qwen3", stream_chunk(QWEN_IDS[:5]),
         {"chat_request": {"messages": [{"role": "user", "content": "hi"}], "stop": ["ab"]}}),
        ("/v1/completions/derender", "gpt2", stream_chunk([15496, 11]), {}),
    ]:
        first = {"stream": True, "model": model, "stream_state": None, "generate_chunk": chunk, **extra}
        state = c.post(path, json=first).json()["stream_state"]
        VALID[path].append({"stream": True, "model": model, "stream_state": state,
                            "generate_chunk": stream_chunk(chunk["choices"][0]["token_ids"][:2])})
    return c


@pytest.fixture(autouse=True)
def _no_unhandled(monkeypatch):
    seen: list[BaseException] = []
    monkeypatch.setattr(app_module, "on_unhandled", [seen.append])
    yield seen


@pytest.mark.parametrize("path", sorted(VALID))
def test_valid_bodies_pass(client, path):
    for body in VALID[path]:
        resp = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
        assert resp.status_code == 200, resp.text


@given(data=st.data())
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_mutated_bodies_never_500(client, _no_unhandled, data):
    path = data.draw(st.sampled_from(sorted(VALID)))
    body = copy.deepcopy(data.draw(st.sampled_from(VALID[path])))
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(paths(body)))
        body = _set(body, where, data.draw(JUNK))
    resp = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
    assert resp.status_code < 500, (path, body, resp.text)
    assert not _no_unhandled, (path, body, _no_unhandled)
    if resp.status_code != 200:
        err = resp.json()["error"]
        assert err["code"] == resp.status_code and isinstance(err["message"], str)
