"""qwen3's reasoning rule is vLLM 0.33.0's (issue 10): pinned through the derender endpoints.

vLLM 0.33's ``Qwen3Parser`` grammar starts every output in reasoning: everything before
``</think>`` is reasoning whether or not the model wrote ``<think>``, an output with neither
marker is all reasoning (the recorded golden ``conformance/goldens/derender_chat.json``
``plain``), ``chat_template_kwargs: {"enable_thinking": false}`` switches the parser off (all
content, markers included), and a ``<tool_call>`` ends the implicit reasoning. The expected
answers below are vLLM's: its composed parser (``--reasoning-parser qwen3 --tool-call-parser
hermes``, the conformance server's flags) run on these texts with the Qwen3 tokenizer, as
``tests/goldens/record_parsers.py`` runs it; its batch ``parse`` and its ``parse_delta`` one token
per delta gave the same answers for every case here.

Each case runs through the real Qwen3 tokenizer and the HTTP derender, batch and streamed one
engine token per call (the state round-tripping as JSON), and both must give vLLM's answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, post, stream_chunk

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/derender"
IM_END = 151645
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
OFF = {"chat_template_kwargs": {"enable_thinking": False}}

#: (case, engine text, request extras, (reasoning, content, calls) as vLLM 0.33 answers)
CASES: list[tuple[str, str, dict[str, Any], tuple[str | None, str | None, list[list[str]]]]] = [
    ("no_markers", "Hello! How can I help?", {},
     ("Hello! How can I help?", None, [])),
    ("end_without_start", "The user greets me.\n</think>\n\nHello!", {},
     ("The user greets me.\n", "\n\nHello!", [])),
    ("thinking_block", "<think>\nA greeting.\n</think>\n\nHello!", {},
     ("\nA greeting.\n", "\n\nHello!", [])),
    ("thinking_off", "Hello! How can I help?", OFF,
     (None, "Hello! How can I help?", [])),
    ("thinking_off_markers_are_text", "<think>a</think>Hello!", OFF,
     (None, "<think>a</think>Hello!", [])),
    # enable_thinking is read by its truth, as vLLM 0.33's parsers read it (its Qwen3Parser,
    # mimo, nemotron_v3, seed_oss, plamo3 and granite_thinking_parser all answered so); a null
    # is no value at all (vLLM's server merges the kwargs with merge_kwargs, which leaves nulls
    # out, before it builds the parser: its derender answered so, issue 10)
    ("thinking_null_is_no_switch", "Hello!",
     {"chat_template_kwargs": {"enable_thinking": None}}, ("Hello!", None, [])),
    ("thinking_zero_is_off", "Hello!", {"chat_template_kwargs": {"enable_thinking": 0}},
     (None, "Hello!", [])),
    ("thinking_empty_string_is_off", "Hello!", {"chat_template_kwargs": {"enable_thinking": ""}},
     (None, "Hello!", [])),
    ("thinking_string_no_is_on", "Hello!", {"chat_template_kwargs": {"enable_thinking": "no"}},
     ("Hello!", None, [])),
    ("tool_call_ends_implicit_reasoning", "I will call it.\n" + CALL, {"tools": TOOLS},
     ("I will call it.\n", None, [["get_weather", '{"city": "Paris"}']])),
    ("tool_call_ends_it_without_tools", "I will call it.\n" + CALL, {},
     ("I will call it.\n", CALL, [])),
]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_derender"]), raise_server_exceptions=False)


def chat_request(extra: dict[str, Any]) -> dict[str, Any]:
    return {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], **extra}


def batch(client: TestClient, ids: list[int], extra: dict[str, Any]) -> tuple[Any, ...]:
    out = post(client, CHAT, {"model": "qwen3", "chat_request": chat_request(extra),
                              "generate_response": generate_response(ids)})
    msg = out["choices"][0]["message"]
    calls = [[c["function"]["name"], c["function"]["arguments"]]
             for c in msg.get("tool_calls") or []]
    return msg["reasoning"], msg["content"], calls, out["choices"][0]["finish_reason"]


def stream(client: TestClient, ids: list[int], extra: dict[str, Any]) -> tuple[Any, ...]:
    """One engine token per call, the returned state echoed (through JSON) with the next."""
    state, reasoning, content, calls, finish = None, "", "", {}, None
    for k, tid in enumerate(ids):
        body: dict[str, Any] = {"stream": True, "model": "qwen3", "stream_state": state,
                                "generate_chunk": stream_chunk(
                                    [tid], finish_reason="stop" if k == len(ids) - 1 else None)}
        if state is None:
            body["chat_request"] = chat_request(extra)
        res = post(client, CHAT, body)
        state = json.loads(json.dumps(res["stream_state"]))
        for choice in res["chunk"]["choices"]:
            delta = choice["delta"]
            reasoning += delta.get("reasoning") or ""
            content += delta.get("content") or ""
            for tc in delta.get("tool_calls") or []:
                call = calls.setdefault(tc["index"], ["", ""])
                call[0] += (tc.get("function") or {}).get("name") or ""
                call[1] += (tc.get("function") or {}).get("arguments") or ""
            finish = choice["finish_reason"] or finish
    return reasoning or None, content or None, [calls[i] for i in sorted(calls)], finish


@pytest.mark.parametrize("name,text,extra,want", CASES, ids=[c[0] for c in CASES])
def test_vllm_qwen3_rule_batch_and_stream(client, vocabs, name, text, extra, want):
    ids = vocabs["qwen3"].encode(text) + [IM_END]
    finish = "tool_calls" if want[2] else "stop"
    assert batch(client, ids, extra) == (*want, finish)
    assert stream(client, ids, extra) == (*want, finish)


def test_the_recorded_plain_golden_is_all_reasoning(client):
    """The golden's own ids (``derender_chat.json`` ``plain``): "Hello! How can I help?" and
    the EOS, no marker: vLLM 0.33 answers reasoning only, content null."""
    ids = [9707, 0, 2585, 646, 358, 1492, 30, 151645]
    assert batch(client, ids, {})[:3] == ("Hello! How can I help?", None, [])
    assert stream(client, ids, {})[:3] == ("Hello! How can I help?", None, [])
