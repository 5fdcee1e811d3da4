"""The derender functions' plain ASGI app answers exactly as the FastAPI app does.

Why: the Lambda derender functions serve :class:`tito.adapters.asgi.DerenderApp` (no FastAPI on
the per-chunk path) while ``tito serve`` serves the FastAPI routes; a client must not be able to
tell them apart. The reference is the FastAPI app: same status, same JSON body (``created``, a
clock reading, aside) for valid bodies, bad bodies, bad states, wrong methods and unknown paths,
and for hypothesis-mutated bodies.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, stream_chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.adapters.app import create_app
from tito.adapters.asgi import DerenderApp
from tito.adapters.payload import event_bytes

QWEN_IDS = [151667, 198, 785, 151668, 271, 9707, 0, 151657, 151658, 151645]
CHAT = "/v1/chat/completions/derender"
COMPLETIONS = "/v1/completions/derender"
RESPONSES = "/v1/responses/derender"

BODIES: list[tuple[str, Any]] = [
    (CHAT, {"model": "qwen3", "prompt_token_ids": [151644, 77091, 198],
            "chat_request": {"messages": [{"role": "user", "content": "hi"}],
                             "tools": [{"type": "function", "function": {"name": "f"}}]},
            "generate_response": generate_response(QWEN_IDS, logprobs={"content": [
                {"token_id": i, "logprob": -1.5, "top_logprobs": [{"token_id": i, "logprob": -1.5}]}
                for i in QWEN_IDS]})}),
    (CHAT, {"stream": True, "model": "qwen3", "stream_state": None, "prompt_token_ids": [151644],
            "generate_chunk": stream_chunk(QWEN_IDS[:4])}),
    (CHAT, {"stream": True, "model": "qwen3", "generate_chunks": [stream_chunk([9707]),
                                                                  stream_chunk(None)]}),
    (COMPLETIONS, {"model": "gpt2", "prompt_token_ids": [[15496]], "prompt_tokens": [1],
                   "completion_request": {"prompt": "x", "echo": True, "stop": "a"},
                   "generate_responses": [generate_response([15496, 11, 50256])]}),
    (COMPLETIONS, {"stream": True, "model": "gpt2", "stream_state": None,
                   "generate_chunk": stream_chunk([15496, 11])}),
    # bad bodies: validation, service errors, unknown model, bad state
    (CHAT, {"model": "qwen3"}),
    (CHAT, {"model": "qwen3", "stream": "yes", "generate_chunk": stream_chunk([1])}),
    (CHAT, {"model": "qwen3", "stream": 0, "generate_response": generate_response([9707])}),
    (COMPLETIONS, {"model": "gpt2", "stream": 0.0,
                   "generate_responses": [generate_response([15496])]}),
    (CHAT, {"model": "nope", "generate_response": generate_response([1])}),
    (CHAT, {"model": "qwen3", "generate_response": generate_response([10**9])}),
    (COMPLETIONS, {"stream": True, "model": "gpt2", "generate_chunk": stream_chunk([1]),
                   "stream_state": {"prev_tokens": ["not a token"], "read_offset": 1}}),
    (COMPLETIONS, {"stream": True, "model": "gpt2", "generate_chunk": stream_chunk([1]),
                   "stream_state": {"tito": {"v": 99}}}),
    (COMPLETIONS, {"stream": True, "model": "gpt2", "generate_chunk": stream_chunk([1]),
                   "generate_chunks": [stream_chunk([1])]}),
    (COMPLETIONS, {"generate_responses": []}),
]

RAW: list[tuple[str, str, bytes, str]] = [
    ("POST", CHAT, b'{"model": "qwen3", "generate_response": ', "application/json"),
    ("POST", CHAT, b"[1, 2, 3]", "application/json"),
    ("POST", CHAT, b'{"model": "qwen3"}', "text/plain"),
    ("POST", CHAT, b'{"a": "\xff"}', "application/json"),
    ("POST", CHAT, b"", "application/json"),
    ("GET", CHAT, b"", "application/json"),
    ("POST", "/health", b"{}", "application/json"),
    ("GET", "/health", b"", ""),
    ("GET", "/v1/models", b"", ""),
    ("GET", "/version", b"", ""),
    ("POST", CHAT, b'{"model": "qwen3", "x": ["\\ud800"]}', "application/json"),
    # the fast path searches only a body orjson refuses: raw surrogate bytes, a key, a pair
    ("POST", CHAT, b'{"model": "qwen3", "x": "\xed\xa0\x80"}', "application/json"),
    ("POST", CHAT, b'{"stream": true, "model": "qwen3", "\\udc00": 1}', "application/json"),
    ("POST", CHAT, b'{"stream": true, "model": "\\ud83d\\ude00"}', "application/json"),
    ("GET", "/nowhere", b"", ""),
    ("POST", "/v1/chat/completions/render", b"{}", "application/json"),
]


def _without_created(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _without_created(v) for k, v in obj.items() if k != "created"}
    if isinstance(obj, list):
        return [_without_created(v) for v in obj]
    return obj


@pytest.fixture(scope="module")
def clients() -> tuple[TestClient, TestClient, TestClient]:
    """The FastAPI app, the plain app, and the plain app without its fast path (the validated
    path for every body: the reference of the fast path's bytes)."""
    names = ["chat_derender", "completions_derender", "responses_derender"]
    validated = DerenderApp(names)
    validated._fast = {}
    return (TestClient(create_app(endpoints=names), raise_server_exceptions=False),
            TestClient(DerenderApp(names), raise_server_exceptions=False),
            TestClient(validated, raise_server_exceptions=False))


def _clock_free(content: bytes) -> bytes:
    return re.sub(rb'"(created|created_at)":[0-9]+', rb'"\1":0', content)


def _same(clients: tuple[TestClient, ...], method: str, path: str, content: bytes,
          content_type: str) -> int:
    headers = {"content-type": content_type} if content_type else {}
    ref, lean, validated = (c.request(method, path, content=content, headers=headers)
                            for c in clients)
    # the fast path (orjson in and out) gives the validated path's bytes, errors included (a
    # first call's clock reading aside: the two calls may fall in different seconds)
    assert (lean.status_code, _clock_free(lean.content)) == (validated.status_code,
                                                             _clock_free(validated.content))
    assert lean.status_code == ref.status_code, (path, content, ref.text, lean.text)
    assert lean.headers["content-type"] == ref.headers["content-type"]
    if "stream_state" in ref.text or '"created"' in ref.text:
        assert _without_created(lean.json()) == _without_created(ref.json())
    else:
        assert lean.content == ref.content
    return ref.status_code


@pytest.mark.parametrize(("path", "body"), BODIES)
def test_same_answer_as_fastapi(clients: Any, path: str, body: Any) -> None:
    _same(clients, "POST", path, json.dumps(body).encode(), "application/json")


@pytest.mark.parametrize(("method", "path", "content", "content_type"), RAW)
def test_same_answer_for_raw_requests(clients: Any, method: str, path: str, content: bytes,
                                      content_type: str) -> None:
    _same(clients, method, path, content, content_type)


def test_streamed_states_continue_identically(clients: Any) -> None:
    """A whole stream through each app: every chunk and state the same, byte for byte."""
    states: list[Any] = [None, None]
    for k, token in enumerate([15496, 11, 995, 0, 50256]):
        finish = "stop" if k == 4 else None
        out = []
        for c, state in zip(clients[:2], states, strict=True):
            body = {"stream": True, "model": "gpt2", "stream_state": state,
                    "generate_chunk": stream_chunk([token], finish_reason=finish)}
            out.append(c.post(COMPLETIONS, json=body).json())
        assert _without_created(out[0]) == _without_created(out[1])
        states = [o["stream_state"] for o in out]


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6),
                                                                      children, max_size=3),
    max_leaves=8,
)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


@given(data=st.data())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_mutated_bodies_same_answer(clients: Any, data: st.DataObject) -> None:
    path, body = data.draw(st.sampled_from(BODIES[:5]))
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
    _same(clients, "POST", path, json.dumps(body).encode(), "application/json")


def test_response_over_the_payload_limit_is_a_clear_413(monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer Lambda could not return (over its 6 MB, here a small TITO_MAX_BODY_BYTES) is a
    413 telling the client to stream, not a failed invocation; under the limit it is served."""
    ids = [9707, 11, 1879, 0, 151645]
    lp = {"content": [{"token_id": i, "logprob": -0.5,
                       "top_logprobs": [{"token_id": (i + k) % 1000, "logprob": -1.0 - k}
                                        for k in range(5)]} for i in ids]}
    raw = json.dumps({"model": "qwen3", "generate_response": generate_response(ids, logprobs=lp),
                      "chat_request": {"messages": [{"role": "user", "content": "hi"}]}}).encode()
    served = TestClient(DerenderApp(["chat_derender"])).post(
        CHAT, content=raw, headers={"content-type": "application/json"})
    assert served.status_code == 200 and len(served.content) > len(raw)
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", str(event_bytes(raw)))  # the request just fits
    resp = TestClient(DerenderApp(["chat_derender"])).post(
        CHAT, content=raw, headers={"content-type": "application/json"})
    assert resp.status_code == 413
    err = resp.json()["error"]
    assert err["code"] == 413 and err["type"] == "Request Entity Too Large"
    assert "Response too large" in err["message"] and '"stream": true' in err["message"]


def _logprobs(ids: list[int]) -> dict[str, Any]:
    return {"content": [{"token_id": i, "logprob": -0.25 - i / 1e6, "top_logprobs": [
        {"token_id": i, "logprob": -0.25 - i / 1e6}, {"token_id": 11, "logprob": -1e-05}]}
        for i in ids]}


def _continuation(clients: Any, path: str, model: str, first: dict[str, Any],
                  ids: list[int], *, logprobs: bool = False) -> dict[str, Any]:
    """The third call of a real stream (a parser stream's second state has no replay ids)."""
    state = clients[1].post(path, json=first).json()["stream_state"]
    for chunk in ([ids[0]], ids[1:]):
        body = {"stream": True, "model": model, "stream_state": state,
                "generate_chunk": stream_chunk(chunk, logprobs=_logprobs(chunk) if logprobs
                                               else None)}
        state = clients[1].post(path, json=body).json()["stream_state"]
    return body


@pytest.fixture(scope="module")
def continuations(clients: Any) -> list[tuple[str, dict[str, Any]]]:
    chat_first = {"stream": True, "model": "qwen3", "prompt_token_ids": [151644],
                  "chat_request": {"messages": [{"role": "user", "content": "hi"}],
                                   "tools": [{"type": "function", "function": {"name": "f"}}],
                                   "stop": ["zz"]},
                  "generate_chunk": stream_chunk(QWEN_IDS[:2])}
    responses_first = {"stream": True, "model": "qwen3", "prompt_token_ids": [151644],
                       "responses_request": {"model": "qwen3", "input": "hi", "tools": [
                           {"type": "function", "name": "f", "parameters": {}}]},
                       "generate_chunk": stream_chunk(QWEN_IDS[:2])}
    return [(CHAT, _continuation(clients, CHAT, "qwen3", chat_first, QWEN_IDS[2:5])),
            (COMPLETIONS, _continuation(clients, COMPLETIONS, "gpt2", BODIES[4][1], [995, 0])),
            (RESPONSES, _continuation(clients, RESPONSES, "qwen3", responses_first,
                                      QWEN_IDS[2:5])),
            # logprobs on every chunk (the answer holds floats: json writes it)
            (CHAT, _continuation(clients, CHAT, "qwen3", {
                **chat_first, "chat_request": {**chat_first["chat_request"], "logprobs": True,
                                               "top_logprobs": 2}}, QWEN_IDS[2:5],
                logprobs=True)),
            (COMPLETIONS, _continuation(clients, COMPLETIONS, "gpt2", {
                **BODIES[4][1], "completion_request": {"prompt": "x", "logprobs": 1}},
                [995, 0], logprobs=True)),
            (RESPONSES, _continuation(clients, RESPONSES, "qwen3", {
                **responses_first, "responses_request": {
                    **responses_first["responses_request"],
                    "include": ["message.output_text.logprobs"], "top_logprobs": 2}},
                QWEN_IDS[5:8], logprobs=True))]


def test_common_streamed_calls_take_the_unvalidated_path(continuations: Any) -> None:
    """The continuation bodies below are what tito.service.stream_body serves without pydantic
    (so the mutation test exercises that path and its fallback)."""
    from tito.service import stream_body

    for _, body in continuations:
        assert stream_body.read(json.loads(json.dumps(body))) is not None


def test_continuations_same_bytes_on_both_paths(clients: Any, continuations: Any) -> None:
    for path, body in continuations:
        assert _same(clients, "POST", path, json.dumps(body).encode(), "application/json") == 200


EXTRA = st.sampled_from(["last_content", "x", "tito", "stream", "usage", "logprobs", "index"])


@given(data=st.data())
@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_mutated_continuations_same_answer(clients: Any, continuations: Any,
                                           data: st.DataObject) -> None:
    """A continuation body changed anywhere (a value replaced, a key dropped or added): the
    hand-checked path answers as pydantic's, or leaves the body to it (same errors)."""
    path, body = data.draw(st.sampled_from(continuations))
    body = copy.deepcopy(body)
    where = data.draw(st.sampled_from(_paths(body)))
    how = data.draw(st.sampled_from(["replace", "drop", "add"]))
    target = body
    for key in where[:-1]:
        target = target[key]
    if not where:
        body = data.draw(JUNK) if how == "replace" else body
    elif how == "replace":
        target[where[-1]] = data.draw(JUNK)
    elif how == "drop" and isinstance(target, dict):
        del target[where[-1]]
    elif how == "add" and isinstance(target[where[-1]], dict):
        target[where[-1]][data.draw(EXTRA)] = data.draw(JUNK)
    _same(clients, "POST", path, json.dumps(body).encode(), "application/json")
