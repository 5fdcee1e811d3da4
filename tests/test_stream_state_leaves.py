"""Every field of a carried stream state, set to a bad value: a 4xx in OpenAI's error shape, the
same answer from the fast path as from the validated one, never a 5xx.

Why: the state is the client's to keep, so any of its values may come back wrong (a buggy
client, a tampered state, a state of another version). ``conformance/fuzz_hard.py`` mutates
states at random; this sweeps them: each leaf of a real mid-stream state (qwen3 with its
reasoning and hermes parsers, logprobs, stop strings and usage; gpt2 completions with echo,
logprobs and an included stop string; gpt-oss harmony inside a call; mistral inside a call),
and each key removed, through the plain derender app with and without its fast path. Session
41 ran it with a wider pool (26 values, the first bodies' leaves and batch bodies too): no
finding; this is its regression guard.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tito.adapters.asgi import DerenderApp
from tito.models import get_registry

CHAT, CMPL = "/v1/chat/completions/derender", "/v1/completions/derender"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
USER = [{"role": "user", "content": "x"}]
#: bad values for any leaf: wrong types, out of range numbers, empty and long strings
POOL: list[Any] = [None, -1, 2**64, 1.5, True, "", "x" * 3000, [], [-1], {}, {"a": 1}]

#: name -> (route, model, request key, request, first output text)
STREAMS: dict[str, tuple[str, str, str, dict[str, Any], str]] = {
    "qwen3_parsers": (CHAT, "qwen3", "chat_request", {
        "model": "qwen3", "messages": USER, "tools": TOOLS, "logprobs": True, "top_logprobs": 2,
        "stop": ["zz"], "stream": True, "return_token_ids": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": True}},
        '<think>a</think>b <tool_call>\n{"name": "get_weather", "arguments": {"city": "P'),
    "gpt2_echo_stop": (CMPL, "gpt2", "completion_request", {
        "model": "gpt2", "prompt": "hi", "logprobs": 2, "echo": True, "stop": ["zz"],
        "include_stop_str_in_output": True}, " hello z"),
    "gptoss_call": (CHAT, "gpt-oss", "chat_request", {
        "model": "gpt-oss", "messages": USER, "tools": TOOLS},
        "<|channel|>analysis<|message|>hm<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.get_weather <|constrain|>json<|message|>{"city"'),
    "mistral_call": (CHAT, "mistral-v3", "chat_request", {
        "model": "mistral-v3", "messages": USER, "tools": TOOLS},
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "P'),
}


@pytest.fixture(scope="module")
def apps() -> tuple[TestClient, TestClient]:
    names = ["chat_derender", "completions_derender"]
    slow = DerenderApp(names)
    slow._fast = {}  # the plain app without its fast path: pydantic for every body
    return (TestClient(DerenderApp(names), raise_server_exceptions=False),
            TestClient(slow, raise_server_exceptions=False))


def _logprobs(ids: list[int]) -> dict[str, Any]:
    return {"content": [{"token_id": i, "logprob": -0.5, "rank": 1, "top_logprobs": [
        {"token_id": i, "logprob": -0.5, "rank": 1}, {"token_id": 100, "logprob": -1.0}]}
        for i in ids]}


def _chunk(ids: list[int], logprobs: bool) -> dict[str, Any]:
    return {"request_id": "generate-tokens-x", "output_mode": "tokens", "choices": [
        {"index": 0, "token_ids": ids, "finish_reason": None,
         "logprobs": _logprobs(ids) if logprobs else None}]}


def _leaves(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if path:
        yield path
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(obj, list):
        for k, value in enumerate(obj[:2]):
            yield from _leaves(value, (*path, k))


def _set(obj: Any, path: tuple[Any, ...], value: Any, *, delete: bool = False) -> Any:
    out = copy.deepcopy(obj)
    at = out
    for step in path[:-1]:
        at = at[step]
    if delete:
        del at[path[-1]]
    else:
        at[path[-1]] = value
    return out


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_every_state_leaf_set_wrong_is_a_4xx_alike_on_both_paths(
        apps: tuple[TestClient, TestClient], name: str) -> None:
    lean, validated = apps
    route, model, key, request, text = STREAMS[name]
    vocab = get_registry().get(model).vocab
    logprobs = bool(request.get("logprobs"))
    first = {"stream": True, "model": model, "stream_state": None, key: request,
             "prompt_token_ids": vocab.encode("hi"),
             "generate_chunk": _chunk(vocab.encode(text), logprobs)}
    resp = lean.post(route, json=first)
    assert resp.status_code == 200, resp.text
    state = resp.json()["stream_state"]
    cont = {"stream": True, "model": model, "generate_chunk": _chunk(vocab.encode("xyz"), logprobs)}
    assert lean.post(route, json={**cont, "stream_state": state}).status_code == 200
    tried = 0
    for path in _leaves(state):
        bad = [_set(state, path, value) for value in POOL] + [_set(state, path, None, delete=True)]
        for bad_state in bad:
            raw = json.dumps({**cont, "stream_state": bad_state}).encode()
            headers = {"content-type": "application/json"}
            got = lean.post(route, content=raw, headers=headers)
            want = validated.post(route, content=raw, headers=headers)
            where = f"{name} {list(path)}"
            assert got.status_code < 500, (where, got.text[:300])
            assert got.status_code == want.status_code, (where, got.text[:200], want.text[:200])
            if got.status_code >= 400:
                error = got.json()["error"]
                assert {"message", "type", "param", "code"} <= set(error), (where, error)
                assert got.json() == want.json(), where
            tried += 1
    assert tried > 100  # (the state is walked: dozens of leaves, each with the whole pool)
