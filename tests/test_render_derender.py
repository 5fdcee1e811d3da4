"""Render -> (fake engine) -> derender round trips, with render's ``derender_context`` alone."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, post, stream_chunk

from tito.adapters.app import create_app

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=False)


@pytest.mark.parametrize("model", ["qwen3", "mistral-v3"])
def test_rendered_prompt_then_reply_decodes_to_the_same_text(client, vocabs, model):
    vocab = vocabs[model]
    request = {"model": model, "messages": [{"role": "user", "content": "Say hi in French"}]}
    gen = post(client, "/v1/chat/completions/render", request)
    reply = "Bonjour ! Ça va ? 😀"
    # Qwen3 thinks first (with vLLM's qwen3 rule an output without </think> is reasoning)
    thought = "<think>\nA greeting in French.\n</think>\n\n" if model == "qwen3" else ""
    ids = vocab.encode(thought + reply) + [vocab.eos_token_id]
    out = post(client, "/v1/chat/completions/derender", {
        "model": model, "prompt_token_ids": gen["token_ids"],
        "generate_response": generate_response(ids), "chat_request": request})
    msg = out["choices"][0]["message"]
    assert (msg["content"] or "").strip() == reply
    if thought:
        assert msg["reasoning"] == "\nA greeting in French.\n"
    assert out["choices"][0]["finish_reason"] == "stop"


def test_context_replaces_the_original_request(client, vocabs):
    """Tools, stop strings and prompt seeding travel in derender_context: same output as with
    the full chat_request, batch and stream."""
    vocab = vocabs["qwen3"]
    request = {"model": "qwen3", "messages": [{"role": "user", "content": "Weather in Paris?"}],
               "tools": TOOLS, "stop": ["STOP"], "chat_template_kwargs": {"enable_thinking": False}}
    gen = post(client, "/v1/chat/completions/render", request)
    ctx = gen["derender_context"]
    assert "stop" not in gen["sampling_params"]  # the engine never sees stop strings
    text = ('Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')
    ids = vocab.encode(text) + [151645]
    with_request = post(client, "/v1/chat/completions/derender", {
        "model": "qwen3", "prompt_token_ids": gen["token_ids"], "chat_request": request,
        "prompt_tokens": len(gen["token_ids"]),
        "generate_response": generate_response(ids)})
    with_context = post(client, "/v1/chat/completions/derender", {
        "model": "qwen3", "derender_context": ctx, "generate_response": generate_response(ids)})
    for out in (with_request, with_context):
        out.pop("created")
    assert with_context == with_request
    assert with_context["choices"][0]["finish_reason"] == "tool_calls"
    assert with_context["usage"]["prompt_tokens"] == len(gen["token_ids"])
    # streaming with the context on the first call only
    state, args = None, ""
    for k, i in enumerate(ids):
        body = {"stream": True, "model": "qwen3", "stream_state": state,
                "generate_chunk": stream_chunk([i], finish_reason="stop" if k == len(ids) - 1 else None)}
        if state is None:
            body["derender_context"] = ctx
        res = post(client, "/v1/chat/completions/derender", body)
        for tc in res["chunk"]["choices"][0]["delta"].get("tool_calls", []):
            args += tc["function"]["arguments"] or ""
        state = json.loads(json.dumps(res["stream_state"]))
    assert args == with_request["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]


def test_stop_string_from_context(client, vocabs):
    vocab = vocabs["gpt2"]
    gen = post(client, "/v1/completions/render", {"model": "gpt2", "prompt": "Count:", "stop": [" three"]})[0]
    ids = vocab.encode(" one two three four")
    out = post(client, "/v1/completions/derender", {
        "model": "gpt2", "derender_context": gen["derender_context"],
        "generate_responses": [generate_response(ids, finish_reason="length")]})
    assert out["choices"][0]["text"] == " one two" and out["choices"][0]["stop_reason"] == " three"


def test_completions_echo_through_renders_derender_context():
    """The gateway's path (issue 10.11): derender gets render's ``derender_context`` instead of
    the ``completion_request``; ``echo`` still prepends the whole prompt, batch and stream."""
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app

    client = TestClient(create_app())
    prompt = "Once upon a time, " * 12  # longer than the context's prompt tail
    gen = client.post("/v1/completions/render", json={
        "model": "gpt2", "prompt": prompt, "echo": True, "max_tokens": 4}).json()[0]
    ctx = gen["derender_context"]
    assert ctx["echo"] is True and ctx["prompt_token_ids"] == gen["token_ids"]
    out_ids = [995, 11]  # " world,"
    batch = client.post("/v1/completions/derender", json={
        "model": "gpt2", "derender_context": ctx, "generate_responses": [{
            "request_id": "cmpl-1", "choices": [
                {"index": 0, "token_ids": out_ids, "finish_reason": "length"}]}]}).json()
    assert batch["choices"][0]["text"] == prompt + " world,"
    first = client.post("/v1/completions/derender", json={
        "stream": True, "model": "gpt2", "derender_context": ctx, "stream_state": None,
        "generate_chunk": {"request_id": "cmpl-1", "choices": [
            {"index": 0, "token_ids": out_ids[:1], "finish_reason": None}]}}).json()
    second = client.post("/v1/completions/derender", json={
        "stream": True, "model": "gpt2", "stream_state": first["stream_state"],
        "generate_chunk": {"request_id": "cmpl-1", "choices": [
            {"index": 0, "token_ids": out_ids[1:], "finish_reason": "length"}]}}).json()
    text = first["chunk"]["choices"][0]["text"] + second["chunk"]["choices"][0]["text"]
    assert text == prompt + " world,"
