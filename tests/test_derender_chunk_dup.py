"""Two choices of one index in ONE streaming derender chunk: vLLM 0.33 refuses any chunk of more
than one choice (chat: "derender_chat_stream expects at most one choice per chunk (got 2).",
completions: its derenderer's words), duplicates of an index included, on a first call and on a
carried state (goldens ``derender_chunk_dup`` / ``stream_chunk_dup``). tito must refuse it on
every path a call can take (the hand-read call on a state it issued, a state it did not issue,
``generate_chunks``) and leave the stream's state as it was: the stream continued after the 400
is the stream that never saw that chunk."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/derender"
COMPLETIONS = "/v1/completions/derender"
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
_MSG = {CHAT: "derender_chat_stream expects at most one choice per chunk (got 2).",
        COMPLETIONS: "derender_completion_stream expects at most one choice per chunk"}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_derender", "completions_derender"]),
                      raise_server_exceptions=False)


def _choice(ids: list[int], finish: str | None = None) -> dict[str, object]:
    return {"index": 0, "token_ids": ids, "finish_reason": finish, "logprobs": {"content": [
        {"token_id": t, "logprob": -0.5, "rank": 1,
         "top_logprobs": [{"token_id": t, "logprob": -0.5, "rank": 1}]} for t in ids]}}


def _settings(path: str) -> dict[str, object]:
    if path == CHAT:
        return {"chat_request": {"model": "qwen3", "messages": [{"role": "user", "content": "x"}],
                                 "tools": [TOOL], "logprobs": True, "top_logprobs": 1,
                                 "stop": ["world"]}}
    return {"completion_request": {"model": "qwen3", "prompt": "x", "logprobs": 1,
                                   "stop": ["world"]}}


def _call(client: TestClient, path: str, state: object, chunk: dict[str, object],
          first: bool = False, key: str = "generate_chunk") -> tuple[int, dict[str, object]]:
    body = {"stream": True, "model": "qwen3", "stream_state": state,
            key: chunk if key == "generate_chunk" else [chunk]}
    if first:
        body.update(prompt_token_ids=[100, 200], **_settings(path))
    r = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
    return r.status_code, r.json()


@pytest.mark.parametrize("path", [CHAT, COMPLETIONS])
def test_a_chunk_repeating_an_index_is_refused_and_leaves_the_state(client, vocabs, path):
    vocab = vocabs["qwen3"]
    head = vocab.encode("<think>\nr\n</think>\n\nHi") if path == CHAT else vocab.encode("Hi")
    call = vocab.encode('<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}}\n'
                        "</tool_call>") if path == CHAT else vocab.encode(" there, world")
    dup = {"request_id": "r", "choices": [_choice(call[:3]), _choice(call[3:6])]}
    status, body = _call(client, path, None, dup, first=True)  # a first call
    assert (status, body["error"]["message"]) == (400, _MSG[path])
    assert body["error"]["param"] == "generate_chunk.choices"
    status, first = _call(client, path, None, {"request_id": "r", "choices": [_choice(head)]},
                          first=True)
    assert status == 200
    state = first["stream_state"]
    # the state as issued (kept by this process), a copy of it (decoded), several chunks a call
    for carried, key in ((state, "generate_chunk"), (json.loads(json.dumps(state)),
                                                      "generate_chunk"),
                         (state, "generate_chunks")):
        status, body = _call(client, path, carried, dup, key=key)
        assert status == 400, body
        assert body["error"]["message"] == _MSG[path]
        param = "generate_chunk" if key == "generate_chunk" else "generate_chunks.0"
        assert body["error"]["param"] == f"{param}.choices"
    # the refused chunk advanced nothing: the state continues as if it never came
    rest = {"request_id": "r", "choices": [_choice(call, "stop")]}
    status, after = _call(client, path, state, rest)
    status2, fresh = _call(client, path, json.loads(json.dumps(state)), rest)
    assert status == status2 == 200
    for out in (after, fresh):
        out["chunk"].pop("created", None)
    assert after["chunk"] == fresh["chunk"]
    if path == CHAT:
        calls = after["chunk"]["choices"][0]["delta"]["tool_calls"]
        assert [c["function"]["name"] for c in calls] == ["get_weather"]
    else:
        assert after["chunk"]["choices"][0]["text"] == " there, "
