"""Muse through tito's app: a model folder naming ``muse`` for both parsers (Qwen3's tokenizer
with every format's markers added, :mod:`conformance.markers`, as the structural goldens), its
streamed derender (one id per call, the state round-tripping as JSON through the client) equal
to the batch one, and a tampered router state refused with a 400 naming the field (never a 500,
never a stream continued on a state the request could not have).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import marker_model_app, post_raw, stream_chunk

sys.path.insert(0, str(Path(__file__).resolve().parent / "goldens"))
import parser_cases_muse as cases  # noqa: E402


CHAT_DERENDER = "/v1/chat/completions/derender"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
REQ = {"messages": [{"role": "user", "content": "x"}], "tools": TOOLS}
PROMPT = "<|start|>assistant"
OUTPUT = (" to=self<|message|>Need weather.<|eom|><|start|>assistant to=get_weather<|message|>"
          + cases.calls(cases.invoke("get_weather", ("city", "Paris"))) + "<|eom|>")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with marker_model_app(tmp_path_factory.mktemp("markers"), "muse", "muse") as served:
        yield served


def test_stream_one_id_per_call_equals_batch(app) -> None:
    client, vocab = app
    ids, prompt = vocab.encode(OUTPUT), vocab.encode(PROMPT)
    batch = post_raw(client, CHAT_DERENDER, {"model": "qwen3", "chat_request": REQ, "prompt_token_ids": prompt,
                           "generate_response": {"request_id": "r", "choices": [{
                               "index": 0, "token_ids": ids, "finish_reason": "stop"}]}})
    assert batch.status_code == 200, batch.text
    message = batch.json()["choices"][0]["message"]
    assert message["reasoning"] == "Need weather."
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
             for c in message["tool_calls"]]
    assert calls == [("get_weather", {"city": "Paris"})]
    state, reasoning, args, names = None, "", "", []
    for i, tid in enumerate(ids):
        body: dict[str, Any] = {"stream": True, "model": "qwen3", "generate_chunk": stream_chunk(
            [tid], finish_reason="stop" if i == len(ids) - 1 else None)}
        if state is None:
            body.update(chat_request=REQ, prompt_token_ids=prompt)
        else:
            body["stream_state"] = json.loads(json.dumps(state))
        resp = post_raw(client, CHAT_DERENDER, body)
        assert resp.status_code == 200, resp.text
        out = resp.json()
        state = out["stream_state"]
        for choice in out["chunk"]["choices"]:
            delta = choice["delta"]
            reasoning += delta.get("reasoning") or ""
            for call in delta.get("tool_calls") or []:
                fn = call.get("function") or {}
                names += [fn["name"]] if fn.get("name") else []
                args += fn.get("arguments") or ""
    assert reasoning == message["reasoning"]
    assert names == ["get_weather"] and json.loads(args) == {"city": "Paris"}


@pytest.mark.parametrize(("mutate", "param"), [
    (lambda st: st["muse"]["tools"].update(phase="zzz"), "stream_state.tito.st.muse.tools.phase"),
    (lambda st: st["muse"].update(tools=None), "stream_state.tito.st.muse.tools"),
    (lambda st: st.pop("muse"), "stream_state.tito.st.muse"),
    (lambda st: st.update(inkling={}), "stream_state.tito.st.inkling"),
])
def test_tampered_router_state_is_a_400(app, mutate, param) -> None:
    """Before, the last three were a 200: the stream went on without the call parser, with
    a fresh router, or with Inkling's router state beside Muse's."""
    client, vocab = app
    first = post_raw(client, CHAT_DERENDER, {
        "stream": True, "model": "qwen3", "prompt_token_ids": vocab.encode(PROMPT),
        "chat_request": REQ,
        "generate_chunk": stream_chunk(vocab.encode(" to=get_weather<|message|>"
                                                    "<atem:function_calls>"))})
    assert first.status_code == 200, first.text
    state = copy.deepcopy(first.json()["stream_state"])
    mutate(state["tito"]["st"])
    resp = post_raw(client, CHAT_DERENDER, {"stream": True, "model": "qwen3", "stream_state": state,
                          "generate_chunk": stream_chunk(vocab.encode('<atem:invoke name="x">'))})
    assert resp.status_code == 400, resp.text
    assert resp.json()["error"]["param"] == param
