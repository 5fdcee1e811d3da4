"""Render bodies holding non-finite numbers (``NaN``, ``Infinity``: Python's ``json`` reads them)
or values nested deep: a 4xx in vLLM's shape or an answer, never a 500, a RecursionError or
unbounded time. What vLLM 0.33 answers for the shallower ones is in
``conformance/goldens/render_json_values.json`` (``tests/test_conformance.py`` replays them);
these are the cases a golden cannot hold (nesting near the body parser's limit) and the writer's
own rules."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tito.adapters.app import create_app
from tito.adapters.asgi_render import RENDER_ENDPOINTS, RenderApp
from tito.adapters.splice import dump_json
from tito.errors import BadRequest
from tito.models.registry import get_registry

CHAT, COMPL, RESP = "/v1/chat/completions/render", "/v1/completions/render", "/v1/responses/render"


@pytest.fixture(scope="module")
def clients() -> list[TestClient]:
    """The FastAPI app and the plain render app: the same answers (every model loaded first:
    a model's first use loads it, which is no request's own time)."""
    get_registry().load_all()
    return [TestClient(create_app(), raise_server_exceptions=False),
            TestClient(RenderApp(sorted(RENDER_ENDPOINTS)), raise_server_exceptions=False)]


def deep(levels: int, leaf: str) -> str:
    """``leaf`` inside ``levels`` containers (lists and objects in turn), as JSON text."""
    for i in range(levels):
        leaf = '{"a": ' + leaf + "}" if i % 2 else "[" + leaf + "]"
    return leaf


def _tools(model: str, params: str) -> str:
    return ('{"model": "%s", "messages": [{"role": "user", "content": "Hi"}], "tools": [{"type": '
            '"function", "function": {"name": "f", "parameters": %s}}]}' % (model, params))


def _post(clients: list[TestClient], path: str, body: str, *, same: bool = True) -> tuple[int, Any]:
    """The FastAPI app's status and response, both apps asked (the same status unless not
    ``same``; errors in vLLM's shape; no 500), under 1 s of CPU each. A deep answer is not
    parsed here: reading it back would recurse as deep as writing it."""
    answers = []
    for client in clients:
        t0 = time.process_time()
        resp = client.post(path, content=body.encode(), headers={"content-type": "application/json"})
        assert time.process_time() - t0 < 1.0
        answers.append(resp)
    statuses = {r.status_code for r in answers}
    assert len(statuses) == 1 or not same, [(r.status_code, r.text[:200]) for r in answers]
    for resp in answers:
        assert resp.status_code < 500, resp.text[:300]
        if resp.status_code >= 400:
            assert set(resp.json()["error"]) == {"message", "type", "param", "code"}
    return answers[0].status_code, answers[0]


def test_gptoss_nan_deep_in_tool_parameters_is_harmonys_400(clients: list[TestClient]) -> None:
    """fuzz_hard seed 124 case 1039: a NaN ~500 levels down a gpt-oss tool's parameters was a
    500 (the answer's JSON fallback recursed); vLLM refuses the conversation's JSON (400)."""
    status, resp = _post(clients, CHAT, _tools("gpt-oss", '{"type": %s}' % deep(500, "NaN")))
    assert status == 400
    body = resp.json()
    assert body["error"]["type"] == "BadRequestError" and body["error"]["param"] is None


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", '{"default": NaN}'])
def test_gptoss_non_finite_tool_parameters_are_a_400(clients: list[TestClient], value: str) -> None:
    status, resp = _post(clients, CHAT, _tools("gpt-oss", '{"type": "object", "x": %s}' % value))
    assert status == 400 and "invalid conversation JSON" in resp.json()["error"]["message"]


def test_qwen3_deep_nan_is_null_at_any_depth(clients: list[TestClient]) -> None:
    """Past orjson's 254 levels vLLM's writer refuses a NaN (400); tito writes null as it does
    at any shallower depth (the documented deviation)."""
    status, resp = _post(clients, CHAT, _tools("qwen3", '{"x": %s}' % deep(500, "NaN")))
    assert status == 200
    leaf = resp.json()["parse_context"]["tools"][0]["function"]["parameters"]["x"]
    while isinstance(leaf, list | dict):
        leaf = leaf[0] if isinstance(leaf, list) else leaf["a"]
    assert leaf is None


@pytest.mark.parametrize("path,template", [
    (COMPL, '{"model": "qwen3", "prompt": "Hi", "kv_transfer_params": {"x": %s}}'),
    (COMPL, '{"model": "qwen3", "prompt": "Hi", "structured_outputs": {"json": {"x": %s}}}'),
    (CHAT, '{"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], '
           '"tools": [{"type": "function", "function": {"name": "f", "parameters": {"x": %s}}}]}'),
    (RESP, '{"model": "qwen3", "input": "Hi", "text": {"format": {"type": "json_schema", '
           '"name": "s", "schema": {"x": %s}}}}'),
    (RESP, '{"model": "gpt-oss", "input": "Hi", "text": {"format": {"type": "json_schema", '
           '"name": "s", "schema": {"x": %s}}}}'),
])
@pytest.mark.parametrize("levels", [930, 945, 954])
def test_nesting_near_the_parsers_limit_is_never_a_500(
        clients: list[TestClient], path: str, template: str, levels: int) -> None:
    """Values nested just below the body parser's limit: the answer repeating them (or
    gpt-oss's structural tag holding them) is a few levels deeper, past what ``json`` writes;
    vLLM answers 500 there, tito 400 (or the answer). Where the interpreter's stack runs out
    depends on the app's own frames, so the two apps may answer differently here."""
    _post(clients, path, template % deep(levels, "NaN"), same=False)


def test_kwargs_nested_past_parse_contexts_limit(clients: list[TestClient]) -> None:
    """vLLM's ParseContext validates template kwargs as JsonValue (254 containers at most); its
    Responses render and /tokenize build none (goldens: render_json_values)."""
    chat = ('{"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], '
            '"chat_template_kwargs": {"x": %s}}')
    assert _post(clients, CHAT, chat % deep(254, "1"))[0] == 200
    assert _post(clients, CHAT, chat % deep(255, "1"))[0] == 400
    resp = '{"model": "qwen3", "input": "Hi", "chat_template_kwargs": {"x": %s}}'
    assert _post(clients, RESP, resp % deep(600, "1"))[0] == 200


def _nested(levels: int, leaf: Any) -> Any:
    for _ in range(levels):
        leaf = [leaf]
    return leaf


def test_dump_json_writes_non_finite_floats_as_null_without_recursing() -> None:
    value = {"a": _nested(900, float("nan")), "b": [float("inf"), -float("inf"), 1.5]}
    out = dump_json(value, checked_floats=True)
    assert out.endswith(b'"b":[null,null,1.5]}') and b"null" + b"]" * 900 in out


def test_dump_json_past_the_writers_depth_is_a_400() -> None:
    with pytest.raises(BadRequest):
        dump_json({"a": _nested(2000, 1)})
