"""Issue 10's small conformance items, each as vLLM 0.33.0's render server answers it.

The expected answers were read off a vLLM 0.33.0 render server (``vllm launch render`` on the
qwen3 folder with ``--reasoning-parser qwen3``), never from tito:

- ``chat_template_kwargs: {"enable_thinking": []}`` (or ``{}``): vLLM's Qwen3Parser hands the
  value to its ``functools.cache``d grammar builder, whose ``TypeError`` is a 400
  ``unhashable type: 'list'`` on render and derender alike;
- ``enable_thinking: null`` is no switch (``merge_kwargs`` leaves null out): thinking stays on
  in the derender's parser as in the render's template; ``""`` turns it off;
- a body with several schema errors: each error written as its dict, vLLM's handler's text;
- an engine ``stop_reason`` string: vLLM's batch derender cuts the text at it (``Hello `` for
  ``Hello world. Bye now.`` and ``"world"``, with or without ``stop: ["world"]``, and with
  ``["Bye", "world"]``), its stream derender does not (``Hello world. Bye now.``); tito cuts at
  the request's own stop strings in both, so it gives vLLM's batch answer when the request
  named the string and vLLM's stream answer when it did not (docs/conformance.md).
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, post, stream_chunk

from tito.adapters.app import create_app
from tito.core.parsers.reasoning_formats import REASONING_PARSERS
from tito.core.parsers.reasoning_row import RAW_ENABLE_THINKING
from tito.core.vocab import Vocab
from tito.errors import BadRequest

PROMPT = [151644, 872, 198, 6023, 151645, 198, 151644, 77091, 198]
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def output_ids() -> list[int]:
    vocab = Vocab.from_file("layers/tokenizer/models/qwen3/tokenizer.json")
    return vocab.encode("<think>hm</think>\nanswer")


def _derender(client: TestClient, ids: list[int], kwargs: dict) -> tuple[int, dict]:
    body = {"model": "qwen3", "prompt_token_ids": PROMPT, "generate_response": generate_response(ids),
            "chat_request": {"model": "qwen3", "messages": MESSAGES,
                             "chat_template_kwargs": kwargs}}
    res = client.post("/v1/chat/completions/derender", json=body)
    return res.status_code, res.json()


@pytest.mark.parametrize(("value", "kind"), [([], "list"), ({}, "dict"), ([True], "list")])
def test_unhashable_enable_thinking_is_vllms_400(client, output_ids, value, kind):
    want = {"message": f"unhashable type: '{kind}'", "type": "BadRequestError", "param": None,
            "code": 400}
    res = client.post("/v1/chat/completions/render", json={
        "model": "qwen3", "messages": MESSAGES, "chat_template_kwargs": {"enable_thinking": value}})
    assert (res.status_code, res.json()) == (400, {"error": want})
    assert _derender(client, output_ids, {"enable_thinking": value}) == (400, {"error": want})


@pytest.mark.parametrize(("value", "reasoning", "content"), [
    (None, "hm", "\nanswer"), ("", None, "<think>hm</think>\nanswer"),
    (0, None, "<think>hm</think>\nanswer"), ("x", "hm", "\nanswer")])
def test_enable_thinking_values_in_the_derender(client, output_ids, value, reasoning, content):
    status, out = _derender(client, output_ids, {"enable_thinking": value})
    message = out["choices"][0]["message"]
    assert (status, message["reasoning"], message["content"]) == (200, reasoning, content)


def test_only_the_rows_vllm_hands_the_raw_value_refuse_it():
    """vLLM's glm45, kimi_k2, deepseek_v4... turn ``enable_thinking`` into a bool first (no
    error); the rows of :data:`RAW_ENABLE_THINKING` pass it on as given."""
    for name, row in REASONING_PARSERS.items():
        for value in ([], {"a": 1}):
            if name in RAW_ENABLE_THINKING:
                with pytest.raises(BadRequest, match="unhashable type"):
                    row.check_kwargs({"enable_thinking": value})
            else:
                row.check_kwargs({"enable_thinking": value})
        row.check_kwargs({"enable_thinking": "x"})  # (hashable: no error anywhere)
    assert {"qwen3", "gemma4", "plamo3"} <= RAW_ENABLE_THINKING


def test_several_schema_errors_are_written_as_vllms_handler_writes_them(client):
    res = client.post("/v1/chat/completions/render", json={
        "model": "qwen3", "messages": MESSAGES, "n": "a", "max_tokens": "b", "seed": "c"})
    int_msg = "Input should be a valid integer, unable to parse string as an integer"
    lines = [f"{{'type': 'int_parsing', 'loc': 'body.{f}', 'msg': '{int_msg}', 'input': '{v}'}}"
             for f, v in (("max_tokens", "b"), ("n", "a"), ("seed", "c"))]
    assert res.status_code == 400
    assert res.json()["error"] == {"message": "3 validation errors:\n  " + "\n  ".join(lines),
                                   "type": "Bad Request", "param": "body.max_tokens",
                                   "code": 400}


def test_tokenize_union_errors_name_no_member(client):
    res = client.post("/tokenize", json={"model": "qwen3", "prompt": 5})
    assert res.json()["error"] == {
        "message": "2 validation errors:\n"
                   "  {'type': 'string_type', 'loc': 'body.prompt', 'msg': 'Input should be a "
                   "valid string', 'input': '5'}\n"
                   "  {'type': 'missing', 'loc': 'body.messages', 'msg': 'Field required', "
                   "'input': '<dict of 2 items>'}",
        "type": "Bad Request", "param": "body.prompt", "code": 400}


@pytest.mark.parametrize(("stop", "content"), [
    (["world"], "Hello "), (["Bye", "world"], "Hello "),  # vLLM's batch (and tito's)
    ([], "Hello world. Bye now.")])  # vLLM's stream: a reported string the request never named
def test_reported_stop_string(client, stop, content):
    vocab = Vocab.from_file("layers/tokenizer/models/qwen3/tokenizer.json")
    ids = vocab.encode("Hello world. Bye now.")
    req = {"model": "qwen3", "messages": MESSAGES, "chat_template_kwargs": {"enable_thinking": False},
           **({"stop": stop} if stop else {})}
    response = generate_response(ids)
    response["choices"][0]["stop_reason"] = "world"
    out = post(client, "/v1/chat/completions/derender", {
        "model": "qwen3", "prompt_token_ids": PROMPT, "chat_request": req,
        "generate_response": response})
    choice = out["choices"][0]
    assert (choice["message"]["content"], choice["stop_reason"]) == (content, "world")
    chunk = stream_chunk(ids, finish_reason="stop")
    chunk["choices"][0]["stop_reason"] = "world"
    res = post(client, "/v1/chat/completions/derender", {
        "stream": True, "model": "qwen3", "prompt_token_ids": PROMPT,
        "chat_request": dict(req, stream=True), "generate_chunk": chunk})
    streamed = "".join(c["delta"].get("content") or "" for c in res["chunk"]["choices"])
    assert streamed == content  # (tito's stream is its batch)
