"""The per-call stream events in ``events/streams/``: each one is self-contained.

Every event carries the state its call needs, so the events of a stream can be handled in any
order, by any instance: sent shuffled through the Lambda handler they give the same chunks as in
order, each returns the state the next event carries, and the chunks concatenate to the batch
derender of the same tokens.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from lambda_support import handler_or_skip

from tito.service.responses_assembler import assemble

ROOT = Path(__file__).resolve().parents[1]
STREAMS = ROOT / "events" / "streams"
FUNCTIONS = {"chat_qwen3": "chat_derender", "completions_gpt2": "completions_derender",
             "responses_qwen3_tools": "responses_derender"}


def _events(name):
    return [json.loads(p.read_text()) for p in sorted((STREAMS / name).glob("call_*.json"))]


def _text(chunk):
    out = ""
    for ch in chunk["choices"]:
        if "delta" in ch:
            out += (ch["delta"].get("reasoning") or "") + "|" + (ch["delta"].get("content") or "")
        else:
            out += ch["text"]
    return out


def test_events_are_up_to_date():
    proc = subprocess.run([sys.executable, str(ROOT / "events" / "make_stream_events.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_shuffled_events_through_the_handler(name, lambda_context):
    handler = handler_or_skip(FUNCTIONS[name])
    events = _events(name)
    assert len(events) > 5
    order = list(range(len(events)))
    random.Random(7).shuffle(order)
    results = {}
    for k in order:
        resp = handler(events[k], lambda_context)
        assert resp["statusCode"] == 200, resp["body"]
        results[k] = json.loads(resp["body"])
    for k in range(len(events) - 1):
        next_state = json.loads(events[k + 1]["body"])["stream_state"]
        got = results[k]["stream_state"]
        if k == 0:  # the first call stamps `created` with the clock; later calls carry it
            got["tito"].pop("created"), next_state["tito"].pop("created")
        assert got == next_state
    # the stream's text equals the batch derender of every token of the stream
    bodies = [json.loads(e["body"]) for e in events]
    ids = [i for b in bodies for c in b["generate_chunk"]["choices"] for i in c["token_ids"] or []]
    first = bodies[0]
    finish = [c["finish_reason"] for b in bodies for c in b["generate_chunk"]["choices"] if c["finish_reason"]]
    response = {"request_id": first["generate_chunk"]["request_id"],
                "choices": [{"index": 0, "token_ids": ids, "finish_reason": finish[-1]}]}
    if "responses_request" in first:  # the assembled stream's output is the batch Response's
        batch = {"model": first["model"], "prompt_token_ids": first["prompt_token_ids"],
                 "responses_request": first["responses_request"], "generate_response": response}
        event = {**events[0], "body": json.dumps(batch)}
        resp = handler(event, lambda_context)
        assert resp["statusCode"] == 200, resp["body"]
        whole = assemble([e for k in range(len(events)) for e in results[k]["events"]])
        kinds = [item["type"] for item in whole[-1]["response"]["output"]]
        assert kinds == ["reasoning", "function_call"]
        assert whole[-1]["response"]["output"] == json.loads(resp["body"])["output"]
        return
    if "chat_request" in first:
        batch = {"model": first["model"], "prompt_token_ids": first["prompt_token_ids"],
                 "chat_request": first["chat_request"], "generate_response": response}
        path = "/v1/chat/completions/derender"
    else:
        batch = {"model": first["model"], "prompt_token_ids": [first["prompt_token_ids"]],
                 "completion_request": first["completion_request"], "generate_responses": [response]}
        path = "/v1/completions/derender"
    event = {**events[0], "body": json.dumps(batch), "rawPath": path}
    resp = handler(event, lambda_context)
    assert resp["statusCode"] == 200, resp["body"]
    out = json.loads(resp["body"])["choices"][0]
    expected = ((out["message"]["reasoning"] or "") + "|" + (out["message"]["content"] or "")
                if "message" in out else out["text"])
    streamed = [results[k]["chunk"] for k in range(len(events))]
    if "message" in out:
        reasoning = "".join((c["choices"][0]["delta"].get("reasoning") or "") for c in streamed if c["choices"])
        content = "".join((c["choices"][0]["delta"].get("content") or "") for c in streamed if c["choices"])
        assert reasoning + "|" + content == expected
    else:
        assert "".join(c["choices"][0]["text"] for c in streamed if c["choices"]) == expected
