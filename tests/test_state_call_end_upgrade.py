"""A reasoning state issued before its format read a call end (gemma4, glm45/47 and ling3 gained
``call_end_id`` in issue 10) is served on, through the app: the stream continues and gives
what a state of this release gives (the block opening again after the call), while a call end
that is not this model's stays a 400. Why: a stream in flight across that deploy would
otherwise end with "reasoning marker ids are not this model's".

A glm45 model: Qwen3's tokenizer with every format's markers added (:mod:`conformance.markers`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import marker_model_app, post_raw, stream_chunk


CHAT_DERENDER = "/v1/chat/completions/derender"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
REQ = {"messages": [{"role": "user", "content": "x"}], "tools": TOOLS}
CALL = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>"
OUTPUT = f"Need weather.{CALL}<think>More.</think>Done."


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with marker_model_app(tmp_path_factory.mktemp("markers"), "glm45", "glm45") as served:
        yield served


def _stream(client: TestClient, ids: list[int], prompt: list[int],
            old_from: int | None = None) -> tuple[str, str, list[list[str]]]:
    """One id per call (reasoning, content, calls); from call ``old_from`` on, every state goes
    back without its call-end ids, as the release before wrote it."""
    state, reasoning, content, calls = None, "", "", {}
    for i, tid in enumerate(ids):
        body: dict[str, Any] = {"stream": True, "model": "qwen3", "generate_chunk": stream_chunk(
            [tid], finish_reason="stop" if i == len(ids) - 1 else None)}
        if state is None:
            body.update(prompt_token_ids=prompt, chat_request=REQ)
        else:
            if old_from is not None and i >= old_from:
                state = copy.deepcopy(state)
                st = state["tito"]["st"].get("reasoning") or {}
                st.pop("call_end_id", None)
                st.pop("call_end_ids", None)
            body["stream_state"] = state
        resp = post_raw(client, CHAT_DERENDER, body)
        assert resp.status_code == 200, resp.text
        data = resp.json()
        state = data["stream_state"]
        for choice in (data["chunk"] or {}).get("choices") or []:
            delta = choice["delta"]
            reasoning += delta.get("reasoning") or ""
            content += delta.get("content") or ""
            for tc in delta.get("tool_calls") or []:
                c = calls.setdefault(tc["index"], ["", ""])
                c[0] += tc["function"].get("name") or ""
                c[1] += tc["function"].get("arguments") or ""
    return reasoning, content, list(calls.values())


def _ids(vocab: Any) -> tuple[list[int], list[int]]:
    return vocab.encode("<|im_start|>assistant\n"), vocab.encode(OUTPUT) + [
        vocab.token_id("<|im_end|>")]


def test_a_state_without_call_end_ids_streams_on_as_this_release(app) -> None:
    client, vocab = app
    prompt, ids = _ids(vocab)
    now = _stream(client, ids, prompt)
    assert now == ("Need weather.More.", "Done.", [["get_weather", '{"city": "SF"}']])
    for old_from in (1, 3, len(vocab.encode("Need weather.")) + 2):
        assert _stream(client, ids, prompt, old_from=old_from) == now


def test_a_call_end_not_this_models_is_a_400(app) -> None:
    client, vocab = app
    prompt, ids = _ids(vocab)
    first = post_raw(client, CHAT_DERENDER, {"stream": True, "model": "qwen3", "prompt_token_ids": prompt,
                           "chat_request": REQ, "generate_chunk": stream_chunk(ids[:2])})
    assert first.status_code == 200, first.text
    state = first.json()["stream_state"]
    reasoning = state["tito"]["st"]["reasoning"]
    assert reasoning["call_end_id"] == vocab.token_id("</tool_call>")
    for wrong in ({"call_end_id": 13}, {"call_end_id": None, "call_end_ids": [13, 14]},
                  {"call_end_id": None, "end_id": 13}):
        bad = copy.deepcopy(state)
        bad["tito"]["st"]["reasoning"].update(wrong)
        resp = post_raw(client, CHAT_DERENDER, {"stream": True, "model": "qwen3", "stream_state": bad,
                              "generate_chunk": stream_chunk(ids[2:3])})
        assert resp.status_code == 400, resp.text
        assert resp.json()["error"]["param"] == "stream_state.tito.st.reasoning"
