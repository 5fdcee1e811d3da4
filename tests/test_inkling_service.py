"""Inkling through tito's app: a model folder naming ``inkling`` (Qwen3's tokenizer with every
format's markers added, :mod:`conformance.markers`, as the structural goldens), its streamed
derender (one id per call, the state round-tripping as JSON through the client) equal to the
batch one, usage's reasoning tokens, render's ``reasoning_ended``, and a tampered router state
refused with a 400 (never a 500).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import marker_model_app, post_raw, stream_chunk


CHAT_DERENDER = "/v1/chat/completions/derender"
CHAT_RENDER = "/v1/chat/completions/render"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
REQ = {"messages": [{"role": "user", "content": "x"}], "tools": TOOLS}
OUTPUT = ("<|content_thinking|>Need weather.<|end_message|><|message_model|>"
          '<|content_invoke_tool_json|>{"name":"get_weather","args":{"city":"SF"}}'
          "<|end_message|><|message_model|><|content_text|>Done.<|end_message|>")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with marker_model_app(tmp_path_factory.mktemp("markers"), "inkling", "inkling") as served:
        yield served


def _stream(client: TestClient, ids: list[int], prompt: list[int]) -> tuple[dict, list]:
    """One id per call; the joined deltas and every returned state."""
    state, out, states = None, {"reasoning": "", "content": "", "calls": {}}, []
    for i, tid in enumerate(ids):
        body: dict[str, Any] = {"stream": True, "model": "qwen3",
                                "generate_chunk": stream_chunk(
                                    [tid], finish_reason="stop" if i == len(ids) - 1 else None)}
        if state is None:
            body.update(prompt_token_ids=prompt, chat_request=REQ)
        else:
            body["stream_state"] = state
        resp = post_raw(client, CHAT_DERENDER, body)
        assert resp.status_code == 200, resp.text
        data = resp.json()
        state = data["stream_state"]
        states.append(copy.deepcopy(state))
        chunk = data["chunk"]
        if chunk is not None:
            for choice in chunk["choices"]:
                delta = choice["delta"]
                out["reasoning"] += delta.get("reasoning") or ""
                out["content"] += delta.get("content") or ""
                for tc in delta.get("tool_calls") or []:
                    c = out["calls"].setdefault(tc["index"], ["", ""])
                    c[0] += tc["function"].get("name") or ""
                    c[1] += tc["function"].get("arguments") or ""
    return out, states


def test_stream_equals_batch_through_the_app(app) -> None:
    client, vocab = app
    prompt = vocab.encode("<|message_model|><|content_text|>x<|end_message|><|message_model|>")
    ids = vocab.encode(OUTPUT) + [vocab.token_id("<|im_end|>")]
    batch = post_raw(client, CHAT_DERENDER, {
        "model": "qwen3", "chat_request": REQ, "prompt_token_ids": prompt,
        "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": ids, "finish_reason": "stop"}]}})
    assert batch.status_code == 200, batch.text
    body = batch.json()
    message = body["choices"][0]["message"]
    assert message["reasoning"] == "Need weather."
    assert message["content"] == "Done."
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]] \
        == [("get_weather", '{"city":"SF"}')]
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] == len(
        vocab.encode("Need weather."))
    got, states = _stream(client, ids, prompt)
    assert got["reasoning"] == "Need weather." and got["content"] == "Done."
    assert list(got["calls"].values()) == [["get_weather", '{"city":"SF"}']]
    assert all("inkling" in s["tito"]["st"] for s in states[:-1])


@pytest.mark.parametrize(("mutate", "param"), [
    (lambda st: st["inkling"].update(tools={"phase": "zzz"}), "stream_state.tito.st.inkling.tools.phase"),
    (lambda st: st["inkling"].update(tools=None, phase="tool"), "stream_state.tito.st.inkling.tools"),
    (lambda st: st.pop("inkling"), "stream_state.tito.st.inkling"),
])
def test_tampered_router_state_is_a_400(app, mutate, param) -> None:
    client, vocab = app
    prompt = vocab.encode("<|message_model|>")
    first = post_raw(client, CHAT_DERENDER, {
        "stream": True, "model": "qwen3", "prompt_token_ids": prompt, "chat_request": REQ,
        "generate_chunk": stream_chunk(vocab.encode("<|content_invoke_tool_json|>{"))})
    assert first.status_code == 200, first.text
    state = first.json()["stream_state"]
    mutate(state["tito"]["st"])
    resp = post_raw(client, CHAT_DERENDER, {"stream": True, "model": "qwen3", "stream_state": state,
                                         "generate_chunk": stream_chunk(vocab.encode('"name"'))})
    assert resp.status_code == 400, resp.text
    assert resp.json()["error"]["param"] == param


@pytest.mark.parametrize(("tail", "ended"), [
    ("<|message_model|>", False), ("<|message_model|><|content_text|>part", True),
    ("<|message_model|><|content_thinking|>x<|end_message|>", False)])
def test_render_reasoning_ended(app, tail, ended) -> None:
    """Render's ``reasoning_ended``: vLLM's ``InklingParser.is_reasoning_end`` on the prompt ids
    (a continued final message ends the prompt with the model's own blocks)."""
    client, _ = app
    resp = post_raw(client, CHAT_RENDER, {
        "model": "qwen3", "messages": [{"role": "user", "content": "x"},
                                       {"role": "assistant", "content": tail}],
        "continue_final_message": True, "add_generation_prompt": False})
    assert resp.status_code == 200, resp.text
    assert resp.json()["reasoning_ended"] is ended
