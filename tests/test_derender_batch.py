"""Batch derender over HTTP with the real tokenizers (issue: batch derender on Lambda)."""

from __future__ import annotations

import json
import re

import openai.types as oa
import openai.types.chat as oac
import pytest
from fastapi.testclient import TestClient
from helpers import SAMPLE_TEXTS, generate_response, post, stream_chunk
from tokenizers.decoders import DecodeStream

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/derender"
COMPLETIONS = "/v1/completions/derender"


def plain_text_request(model: str) -> dict:
    """The body's ``chat_request`` for a test of plain decoding: qwen3's reasoning parser
    switched off (vLLM's rule makes an output without ``</think>`` reasoning), none for the
    models without a parser."""
    if model != "qwen3":
        return {}
    return {"chat_request": {"model": model, "messages": [{"role": "user", "content": "hi"}],
                             "chat_template_kwargs": {"enable_thinking": False}}}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_derender", "completions_derender"]), raise_server_exceptions=False)


@pytest.mark.parametrize("model", ["qwen3", "mistral-v3", "gpt2"])
@pytest.mark.parametrize("text", SAMPLE_TEXTS)
def test_round_trip_equals_full_decode(client, vocabs, model, text):
    vocab = vocabs[model]
    ids = vocab.encode(text)
    body = {"model": model, "generate_response": generate_response(ids, finish_reason="length"),
            **plain_text_request(model)}
    out = post(client, CHAT, body)
    oac.ChatCompletion.model_validate(out)
    content = out["choices"][0]["message"]["content"]
    assert content == vocab.tokenizer.decode(ids, skip_special_tokens=True)
    if model == "gpt2":  # byte-level BPE without normalizer: the exact original text
        assert content == text
    comp = post(client, COMPLETIONS, {"model": model, "generate_responses": [body["generate_response"]]})
    oa.Completion.model_validate(comp)
    assert comp["choices"][0]["text"] == content


@pytest.mark.parametrize("model", ["qwen3", "mistral-v3", "gpt2"])
@pytest.mark.parametrize("text", SAMPLE_TEXTS[1:5])
def test_seeded_equals_decode_stream(client, vocabs, model, text):
    vocab = vocabs[model]
    prompt = vocab.encode("Some prompt text ending here:")
    ids = vocab.encode(" " + text)
    ds = DecodeStream(ids=prompt, skip_special_tokens=True)
    expected = "".join(piece or "" for piece in (ds.step(vocab.tokenizer, i) for i in ids))
    body = {
        "model": model,
        "prompt_token_ids": prompt,
        "generate_response": generate_response(ids, finish_reason="length"),
        **plain_text_request(model),
    }
    out = post(client, CHAT, body)
    assert out["choices"][0]["message"]["content"] == expected


def test_envelope_usage_and_passthrough(client, vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello there")
    resp = generate_response(ids, request_id="generate-tokens-chatcmpl-abc", n=2)
    resp["kv_transfer_params"] = {"remote": "x"}
    out = post(client, CHAT, {"model": "gpt2", "prompt_tokens": 12, "generate_response": resp})
    assert out["id"] == "generate-tokens-chatcmpl-abc"
    assert out["object"] == "chat.completion" and out["model"] == "gpt2"
    assert [c["index"] for c in out["choices"]] == [0, 1]
    assert out["usage"] == {
        "prompt_tokens": 12,
        "completion_tokens": 2 * len(ids),
        "total_tokens": 12 + 2 * len(ids),
        "prompt_tokens_details": None,
        "completion_tokens_details": None,
    }
    assert out["kv_transfer_params"] == {"remote": "x"}
    msg = out["choices"][0]["message"]
    assert "tool_calls" not in msg and msg["role"] == "assistant"


def test_empty_token_ids_is_empty_content(client):
    out = post(client, CHAT, {"model": "gpt2", "generate_response": generate_response([], finish_reason="abort")})
    assert out["choices"][0]["message"]["content"] == ""
    assert out["choices"][0]["finish_reason"] == "abort"
    assert out["usage"]["completion_tokens"] == 0


def test_completions_multi_response_indices_and_usage(client, vocabs):
    vocab = vocabs["gpt2"]
    a, b = vocab.encode("one two"), vocab.encode("three")
    body = {
        "model": "gpt2",
        "prompt_tokens": [5, 10],
        "generate_responses": [
            generate_response(a, request_id="cmpl-a", n=2),
            generate_response(b, request_id="cmpl-b"),
        ],
    }
    out = post(client, COMPLETIONS, body)
    oa.Completion.model_validate(out)
    assert [c["index"] for c in out["choices"]] == [0, 1, 2]
    assert [c["text"] for c in out["choices"]] == ["one two", "one two", "three"]
    assert out["id"] == "cmpl-a"
    assert out["usage"]["prompt_tokens"] == 15
    assert out["usage"]["completion_tokens"] == 2 * len(a) + len(b)


def _int_logprobs(ids, vocab_size):
    return {
        "content": [
            {
                "token_id": i,
                "logprob": -0.5,
                "rank": 1,
                "top_logprobs": [
                    {"token_id": i, "logprob": -0.5, "rank": 1},
                    {"token_id": (i + 1) % vocab_size, "logprob": -1.5, "rank": 2},
                ],
            }
            for i in ids
        ]
    }


def test_chat_logprobs_tokens_and_bytes(client, vocabs):
    vocab = vocabs["qwen3"]
    ids = vocab.encode("Hi 😀 中")
    body = {"model": "qwen3", "generate_response": generate_response(ids, finish_reason="length",
                                                                    logprobs=_int_logprobs(ids, vocab.size))}
    out = post(client, CHAT, body)
    oac.ChatCompletion.model_validate(out)
    content = out["choices"][0]["logprobs"]["content"]
    assert len(content) == len(ids)
    joined = b"".join(bytes(e["bytes"]) for e in content)
    assert joined.decode("utf-8") == "Hi 😀 中"
    assert all(len(e["top_logprobs"]) == 2 for e in content)


def test_legacy_token_id_logprobs(client, vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello world")
    legacy = {
        "content": [
            {"token": f"token_id:{i}", "logprob": -0.25, "bytes": None,
             "top_logprobs": [{"token": f"token_id:{i}", "logprob": -0.25, "bytes": None}]}
            for i in ids
        ]
    }
    body = {"model": "gpt2", "generate_response": generate_response(ids, logprobs=legacy, finish_reason="length")}
    out = post(client, CHAT, body)
    tokens = [e["token"] for e in out["choices"][0]["logprobs"]["content"]]
    assert "".join(tokens) == "Hello world"


def test_completion_logprobs_text_offset(client, vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello big world")
    body = {"model": "gpt2", "generate_responses": [
        generate_response(ids, logprobs=_int_logprobs(ids, vocab.size), finish_reason="length")]}
    out = post(client, COMPLETIONS, body)
    oa.Completion.model_validate(out)
    lp = out["choices"][0]["logprobs"]
    assert lp["text_offset"][0] == 0
    assert lp["tokens"] == ["Hello", " big", " world"]
    assert lp["text_offset"] == [0, 5, 9]


def test_models_and_health(client):
    resp = client.get("/v1/models")
    assert resp.status_code == 200
    ids = {m["id"] for m in resp.json()["data"]}
    assert {"qwen3", "mistral-v3", "gpt2"} <= ids
    # vLLM's card shape: a permission id of 16 hex digits (its random_uuid), stable here
    perms = [m["permission"][0]["id"] for m in resp.json()["data"]]
    assert all(re.fullmatch(r"modelperm-[0-9a-f]{16}", p) for p in perms), perms
    assert perms == [m["permission"][0]["id"] for m in client.get("/v1/models").json()["data"]]
    assert client.get("/health").status_code == 200
    assert "/v1/chat/completions/derender" in client.get("/openapi.json").json()["paths"]


# -- bad input: always a 4xx in the error shape, never a 500 --------------------------------


def _error(resp, status):
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["code"] == status
    return body["error"]


def _raw(client, path, data, ctype="application/json"):
    return client.post(path, content=data, headers={"content-type": ctype})


@pytest.mark.parametrize("path", [CHAT, COMPLETIONS])
def test_malformed_json(client, path):
    _error(_raw(client, path, b'{"model": "gpt2", '), 400)


@pytest.mark.parametrize("path", [CHAT, COMPLETIONS])
def test_non_json_content_type(client, path):
    err = _error(_raw(client, path, b"{}", "text/plain"), 400)
    assert "application/json" in err["message"]


def test_non_object_body(client):
    _error(_raw(client, CHAT, b"[1, 2]"), 400)


def test_wrong_types(client):
    body = {"model": "gpt2", "generate_response": {"request_id": "x", "choices": [
        {"index": 0, "token_ids": ["a"], "finish_reason": "stop"}]}}
    err = _error(_raw(client, CHAT, json.dumps(body)), 400)
    assert err["param"] == "body.generate_response.choices.0.token_ids.0"


def test_negative_ids(client):
    body = {"model": "gpt2", "generate_response": generate_response([1, -5])}
    err = _error(_raw(client, CHAT, json.dumps(body)), 400)
    assert "token_ids" in err["param"]


def test_ids_past_vocabulary(client):
    body = {"model": "gpt2", "generate_response": generate_response([1, 50257])}
    err = _error(_raw(client, CHAT, json.dumps(body)), 400)
    assert "50257" in err["message"] and "token_ids" in err["param"]


def test_too_many_ids(client):
    body = {"model": "gpt2", "generate_response": generate_response([1] * 1025)}
    err = _error(_raw(client, CHAT, json.dumps(body)), 400)
    assert "max_model_len" in err["message"]


def test_too_many_choices(client):
    resp = generate_response([1], n=16385)
    err = _error(_raw(client, CHAT, json.dumps({"model": "gpt2", "generate_response": resp})), 400)
    assert "choices count" in err["message"]


def test_too_many_responses(client):
    body = {"model": "gpt2", "generate_responses": [generate_response([1])] * 16385}
    err = _error(_raw(client, COMPLETIONS, json.dumps(body)), 400)
    assert "generate_responses count" in err["message"]


def test_too_many_top_logprobs(client, vocabs):
    lp = {"content": [{"token_id": 1, "logprob": -1.0, "top_logprobs": [
        {"token_id": i, "logprob": -1.0} for i in range(25)]}]}
    body = {"model": "gpt2", "generate_response": generate_response([1], logprobs=lp)}
    err = _error(_raw(client, CHAT, json.dumps(body)), 400)
    assert "top_logprobs count" in err["message"] and "max_logprobs" in err["message"]


def test_unknown_model(client):
    body = {"model": "nope", "generate_response": generate_response([1])}
    err = _error(_raw(client, CHAT, json.dumps(body)), 404)
    assert err["type"] == "NotFoundError" and err["param"] == "model"
    assert err["message"].startswith("The model `nope` does not exist. Valid aliases: ")


def test_completions_empty_and_mismatched(client):
    _error(_raw(client, COMPLETIONS, json.dumps({"model": "gpt2", "generate_responses": []})), 400)
    body = {"model": "gpt2", "prompt_tokens": [1, 2], "generate_responses": [generate_response([1])]}
    err = _error(_raw(client, COMPLETIONS, json.dumps(body)), 400)
    assert err["param"] == "prompt_tokens"


def test_text_mode_rejected(client):
    resp = generate_response([1])
    resp["output_mode"] = "text"
    resp["choices"][0]["text"] = "x"
    _error(_raw(client, CHAT, json.dumps({"model": "gpt2", "generate_response": resp})), 400)


def test_oversized_body_is_413(client, monkeypatch):
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", "1000")
    body = {"model": "gpt2", "generate_response": generate_response([1] * 400)}
    err = _error(_raw(client, CHAT, json.dumps(body)), 413)
    assert "1000 bytes" in err["message"]


@pytest.mark.parametrize("path", [CHAT, COMPLETIONS])
def test_engine_prompt_ids_past_vocabulary_batch_and_stream(client, path):
    """An engine event's own ``prompt_token_ids`` past the vocabulary are refused as its
    output ids are, the same in batch and in every stream call (the first one, a later one,
    one of several chunks, a state this process issued): stream and batch agree."""
    resp = {**generate_response([1]), "prompt_token_ids": [1, 50257]}
    body = {"model": "gpt2", **({"generate_response": resp} if path == CHAT
                                else {"generate_responses": [resp]})}
    assert "50257" in _error(_raw(client, path, json.dumps(body)), 400)["message"]
    first = {**stream_chunk([1]), "prompt_token_ids": [1, 50257]}
    for shape in ({"generate_chunk": first}, {"generate_chunks": [stream_chunk([2]), first]}):
        body = {"model": "gpt2", "stream": True, "prompt_token_ids": [1], **shape}
        err = _error(_raw(client, path, json.dumps(body)), 400)
        assert "50257" in err["message"] and err["param"].endswith("prompt_token_ids")
    ok = post(client, path, {"model": "gpt2", "stream": True, "prompt_token_ids": [1],
                             "generate_chunk": stream_chunk([1])})
    later = {"model": "gpt2", "stream": True, "stream_state": ok["stream_state"],
             "generate_chunk": {**stream_chunk([2]), "prompt_token_ids": [50257]}}
    assert "50257" in _error(_raw(client, path, json.dumps(later)), 400)["message"]
