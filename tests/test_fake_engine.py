"""The fake engine (``tito fake-engine``): vLLM's generate wire, exactly, from a reply script.

Why these tests: every end-to-end test (gateway, replay, load) trusts the fake engine to speak the
engine's wire as vLLM does (spec 2.1-2.3). Shapes are checked on the raw bytes (key order, nulls
present or omitted as vLLM serializes them), then every event is parsed with tito's own models.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tito.adapters.fake_engine import (
    FakeEngine,
    LoopbackServer,
    Reply,
    ReplyScript,
    create_fake_engine_app,
)
from tito.protocol import parse_generate_response, parse_generate_stream_response

GENERATE = "/inference/v1/generate"
ABORT = "/inference/v1/abort_requests"
REPLY = "Hello there, world!"
CHOICE_KEYS = ["index", "finish_reason", "token_ids", "routed_experts", "sampling_mask",
               "weight_versions", "logprobs"]


def engine_client(script: ReplyScript | None = None,
                  **kwargs: Any) -> tuple[TestClient, FakeEngine]:
    engine = FakeEngine(script or ReplyScript.from_text(REPLY), **kwargs)
    return TestClient(create_fake_engine_app(engine), raise_server_exceptions=False), engine


def request(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"request_id": "cmpl-abc", "token_ids": [15496, 11], "model": "gpt2",
                            "sampling_params": {"max_tokens": 64}, "stream": True}
    sp = overrides.pop("sampling_params", {})
    body.update(overrides)
    body["sampling_params"] = {**body["sampling_params"], **sp}
    return body


def sse(text: str) -> list[str]:
    """The ``data:`` payloads of an SSE body, checking the framing on the way."""
    assert text.endswith("data: [DONE]\n\n")
    events = text.split("\n\n")
    assert events[-1] == ""
    payloads = []
    for event in events[:-1]:
        assert event.startswith("data: ") and "\n" not in event, event
        payloads.append(event[len("data: "):])
    assert payloads[-1] == "[DONE]"
    return payloads[:-1]


def stream(client: TestClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    resp = client.post(GENERATE, json=body)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("text/event-stream")
    out = []
    for payload in sse(resp.text):
        event = json.loads(payload)
        if "error" not in event:
            parse_generate_stream_response(payload)  # tito's models accept every event
        out.append(event)
    return out


def ids_of(events: list[dict[str, Any]], index: int = 0) -> list[int]:
    return [t for e in events for c in e["choices"] if c["index"] == index for t in c["token_ids"]]


def finishes(events: list[dict[str, Any]], index: int = 0) -> list[str | None]:
    return [c["finish_reason"] for e in events for c in e["choices"] if c["index"] == index]


@pytest.fixture(scope="module")
def gpt2(vocabs):
    return vocabs["gpt2"]


def test_stream_wire_shape_is_vllms(gpt2) -> None:
    client, _ = engine_client(tokens_per_event=2)
    resp = client.post(GENERATE, json=request())
    payloads = sse(resp.text)
    first = json.loads(payloads[0])
    assert list(first) == ["request_id", "usage", "output_mode", "choices"]
    assert first["request_id"] == "generate-tokens-cmpl-abc"
    assert first["usage"] is None and first["output_mode"] == "tokens"
    assert len(first["choices"]) == 1 and list(first["choices"][0]) == CHOICE_KEYS
    # compact JSON, as pydantic's model_dump_json writes it
    assert payloads[0] == json.dumps(first, separators=(",", ":"), ensure_ascii=False)
    events = [json.loads(p) for p in payloads]
    expected = gpt2.encode(REPLY) + [gpt2.eos_token_id]
    assert ids_of(events) == expected
    assert [len(c["token_ids"]) for e in events for c in e["choices"]][:-1] == \
        [2] * (len(events) - 1)
    assert finishes(events) == [None] * (len(events) - 1) + ["stop"]


def test_tokens_per_event_cycles_and_max_tokens_gives_length(gpt2) -> None:
    client, _ = engine_client(ReplyScript.from_text("one two three four five six seven"),
                              tokens_per_event=[1, 3])
    events = stream(client, request(sampling_params={"max_tokens": 6}))
    assert [len(e["choices"][0]["token_ids"]) for e in events] == [1, 3, 1, 1]
    assert ids_of(events) == gpt2.encode("one two three four five six seven")[:6]
    assert finishes(events)[-1] == "length"


def test_absent_max_tokens_uses_what_is_left_of_the_context() -> None:
    client, _ = engine_client(tokens_per_event=1)
    body = request(stream=False, sampling_params={"ignore_eos": True})
    del body["sampling_params"]["max_tokens"]
    resp = client.post(GENERATE, json=body)
    assert resp.status_code == 200, resp.text
    data = resp.json()
    assert len(data["choices"][0]["token_ids"]) == 1024 - 2  # gpt2 max_model_len - prompt
    assert data["choices"][0]["finish_reason"] == "length"
    too_long = request(token_ids=[11] * 1025)
    resp = client.post(GENERATE, json=too_long)
    assert resp.status_code == 400
    assert "exceeds model's maximum context length (1024)" in resp.json()["error"]["message"]


def test_n_interleaves_choices_each_with_its_own_reply(tmp_path, gpt2) -> None:
    script = tmp_path / "replies.jsonl"
    script.write_text('"Alpha beta gamma."\n\n{"text": "Delta epsilon."}\n', encoding="utf-8")
    client, _ = engine_client(ReplyScript.from_jsonl(script), tokens_per_event=1)
    events = stream(client, request(sampling_params={"n": 2}))
    assert all(len(e["choices"]) == 1 for e in events)
    order = [e["choices"][0]["index"] for e in events]
    assert order[:6] == [0, 1, 0, 1, 0, 1]
    assert gpt2.decode(ids_of(events, 0)) == "Alpha beta gamma."
    assert gpt2.decode(ids_of(events, 1)) == "Delta epsilon."
    assert finishes(events, 0)[-1] == finishes(events, 1)[-1] == "stop"
    # the script cycles: the next request starts over with the first reply
    again = stream(client, request(sampling_params={"n": 1}))
    assert gpt2.decode(ids_of(again)) == "Alpha beta gamma."


def test_stop_token_ids_min_tokens_and_ignore_eos(gpt2) -> None:
    client, _ = engine_client(ReplyScript.from_text("a b c"), tokens_per_event=4)
    base = gpt2.encode("a b c")
    events = stream(client, request(sampling_params={"stop_token_ids": [base[1]]}))
    assert ids_of(events) == base[:2] and finishes(events)[-1] == "stop"
    # EOS is not honoured before min_tokens: the reply repeats
    cycle = base + [gpt2.eos_token_id]
    events = stream(client, request(sampling_params={"min_tokens": 5}))
    assert ids_of(events) == (cycle * 2)[:8] and finishes(events)[-1] == "stop"
    events = stream(client, request(sampling_params={"ignore_eos": True, "max_tokens": 9}))
    assert ids_of(events) == (cycle * 3)[:9] and finishes(events)[-1] == "length"


def test_usage_events_and_return_token_ids() -> None:
    client, _ = engine_client(tokens_per_event=3)
    resp = client.post(GENERATE, json=request(
        return_token_ids=True, sampling_params={"n": 2},
        stream_options={"include_usage": True, "continuous_usage_stats": True}))
    payloads = sse(resp.text)
    events = [json.loads(p) for p in payloads]
    assert events[0]["prompt_token_ids"] == [15496, 11]
    assert all("prompt_token_ids" not in e for e in events[1:])
    seen = {0: 0, 1: 0}
    for e in events[:-1]:
        c = e["choices"][0]
        seen[c["index"]] += len(c["token_ids"])
        assert e["usage"] == {"prompt_tokens": 2, "total_tokens": 2 + seen[c["index"]],
                              "completion_tokens": seen[c["index"]],
                              "prompt_tokens_details": None}
    total = seen[0] + seen[1]
    # the usage-only event is serialized without nulls
    assert payloads[-1] == json.dumps(
        {"request_id": "generate-tokens-cmpl-abc",
         "usage": {"prompt_tokens": 2, "total_tokens": 2 + total, "completion_tokens": total},
         "output_mode": "tokens", "choices": []}, separators=(",", ":"))
    # include_usage alone: no per-event usage
    events = stream(client, request(stream_options={"include_usage": True}))
    assert all(e["usage"] is None for e in events[:-1]) and events[-1]["choices"] == []


def test_logprobs_integer_id_shape_deterministic() -> None:
    client, _ = engine_client(tokens_per_event=2)
    first = client.post(GENERATE, json=request(sampling_params={"logprobs": 3})).text
    assert client.post(GENERATE, json=request(sampling_params={"logprobs": 3})).text == first
    events = [json.loads(p) for p in sse(first)]
    for e in events:
        c = e["choices"][0]
        content = c["logprobs"]["content"]
        assert [x["token_id"] for x in content] == c["token_ids"]
        for x in content:
            assert list(x) == ["token_id", "logprob", "rank", "top_logprobs"]
            assert x["rank"] == 1 and x["logprob"] < 0
            top = x["top_logprobs"]
            assert len(top) == 3
            assert top[0] == {"token_id": x["token_id"], "logprob": x["logprob"], "rank": 1}
            assert [t["rank"] for t in top] == [1, 2, 3]
            assert len({t["token_id"] for t in top}) == 3
    events = stream(client, request(sampling_params={"logprobs": 0}))
    assert all(len(x["top_logprobs"]) == 1 for e in events
               for x in e["choices"][0]["logprobs"]["content"])
    events = stream(client, request())
    assert all(e["choices"][0]["logprobs"] is None for e in events)


def test_non_streaming_response_shape(gpt2) -> None:
    client, engine = engine_client()
    resp = client.post(GENERATE, json=request(stream=False, return_token_ids=True,
                                              sampling_params={"n": 2, "logprobs": 1}))
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/json"
    data = resp.json()
    parse_generate_response(data)
    assert list(data) == ["request_id", "model", "created", "usage", "prompt_logprobs",
                          "prompt_token_id_logprobs", "prompt_token_ids", "mm_placeholders",
                          "metrics", "kv_transfer_params", "ec_transfer_params", "output_mode",
                          "choices"]
    assert data["request_id"] == "generate-tokens-cmpl-abc" and data["model"] == "gpt2"
    assert data["prompt_token_ids"] == [15496, 11]
    expected = gpt2.encode(REPLY) + [gpt2.eos_token_id]
    for i, choice in enumerate(data["choices"]):
        assert list(choice) == CHOICE_KEYS and choice["index"] == i
        assert choice["token_ids"] == expected and choice["finish_reason"] == "stop"
        assert len(choice["logprobs"]["content"]) == len(expected)
    assert data["usage"] == {"prompt_tokens": 2, "total_tokens": 2 + 2 * len(expected),
                             "completion_tokens": 2 * len(expected), "prompt_tokens_details": None}
    assert engine.record("cmpl-abc").finish_reasons == ["stop", "stop"]


def test_request_id_header_and_per_request_reply(gpt2) -> None:
    client, _ = engine_client()
    resp = client.post(GENERATE, json=request(stream=False, sampling_params={
        "extra_args": {"fake_reply": "Pinned."}}), headers={"X-Request-Id": "hdr-1"})
    data = resp.json()
    assert data["request_id"] == "generate-tokens-hdr-1"
    assert gpt2.decode(data["choices"][0]["token_ids"]) == "Pinned."
    resp = client.post(GENERATE, json=request(stream=False, sampling_params={
        "extra_args": {"fake_reply": {"token_ids": [1, 2, 3]}}}))
    assert resp.json()["choices"][0]["token_ids"] == [1, 2, 3]


@pytest.mark.parametrize(("body", "status", "needle"), [
    (request(token_ids=[]), 400, "token_ids"),
    (request(sampling_params={"n": 9}), 400, "max_num_seqs"),
    (request(output_mode="text"), 400, "output_mode"),
    (request(model="nope"), 404, "nope"),
    (request(sampling_params={"temperature": -1}), 400, "temperature"),
])
def test_request_errors_in_vllm_error_shape(body, status, needle) -> None:
    client, _ = engine_client(max_num_seqs=8)
    resp = client.post(GENERATE, json=body)
    assert resp.status_code == status, resp.text
    err = resp.json()["error"]
    assert set(err) == {"message", "type", "param", "code"} and err["code"] == status
    assert needle in err["message"] or needle == err["param"]


def test_scripted_error_mid_stream_and_in_batch() -> None:
    client, _ = engine_client(ReplyScript([Reply(text="partial text", error="GPU on fire")]))
    payloads = sse(client.post(GENERATE, json=request()).text)
    events = [json.loads(p) for p in payloads]
    assert events[-1] == {"error": {"message": "GPU on fire", "type": "InternalServerError",
                                    "param": None, "code": 500}}
    assert all(e["choices"][0]["finish_reason"] is None for e in events[:-1])
    resp = client.post(GENERATE, json=request(stream=False))
    assert resp.status_code == 500 and resp.json()["error"]["message"] == "GPU on fire"


def test_reply_script_errors_name_the_line(tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('"ok"\n{"text": \n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON"):
        ReplyScript.from_jsonl(bad)
    bad.write_text('{"what": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1"):
        ReplyScript.from_jsonl(bad)


def test_abort_request_ids_validation() -> None:
    client, engine = engine_client()
    assert client.post(ABORT, json={"request_ids": ["generate-tokens-unknown"]}).status_code == 200
    assert engine.aborted == set()  # unknown ids are a no-op
    resp = client.post(ABORT, json={"ids": []})
    assert resp.status_code == 400 and resp.json()["error"]["param"] == "request_ids"


def test_abort_ends_a_running_stream_with_abort(gpt2) -> None:
    engine = FakeEngine(ReplyScript.from_text("word " * 400), tokens_per_event=1, delay=0.002)
    with LoopbackServer(create_fake_engine_app(engine)) as url, httpx.Client(base_url=url) as http:
        seen: list[dict[str, Any]] = []
        with http.stream("POST", GENERATE, json=request(sampling_params={"n": 2,
                                                                          "max_tokens": 400})) as r:
            for line in r.iter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                seen.append(json.loads(line[6:]))
                if len(seen) == 6:
                    assert http.post(ABORT, json={"request_ids": ["generate-tokens-cmpl-abc"]}) \
                        .status_code == 200
    last = {i: [e["choices"][0] for e in seen if e["choices"][0]["index"] == i][-1] for i in (0, 1)}
    for choice in last.values():
        assert choice == {**choice, "finish_reason": "abort", "token_ids": []}
    assert len(ids_of(seen, 0)) < 400
    record = engine.record("cmpl-abc")
    assert record is not None and record.aborted and record.finish_reasons == ["abort", "abort"]
    assert engine.aborted == set()  # forgotten once the stream ended


def test_loopback_server_serves_concurrent_streams() -> None:
    engine = FakeEngine(ReplyScript.from_text("concurrent " * 20), tokens_per_event=2,
                        delay=0.001)
    results: list[int] = []
    with LoopbackServer(create_fake_engine_app(engine)) as url:
        def one(k: int) -> None:
            with httpx.Client(base_url=url) as http:
                text = http.post(GENERATE, json=request(request_id=f"r{k}")).text
                results.append(len(sse(text)))

        threads = [threading.Thread(target=one, args=(k,)) for k in range(8)]
        start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert time.monotonic() - start < 10
    assert len(results) == 8 and len(set(results)) == 1


def test_cli_help_says_it_is_a_test_double() -> None:
    out = subprocess.run([sys.executable, "-m", "tito.cli", "fake-engine", "--help"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "test double for the GPU engine" in " ".join(out.stdout.split())
