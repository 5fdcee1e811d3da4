"""``POST /v1/responses/derender``: batch ``Response`` objects and streamed events on real qwen3
token ids, every object parsed by the official openai SDK's types (streamed events once
completed by ``tito.service.responses_assembler``), stream == batch under any chunking, the
compact events' contract and the O(1) state (hypothesis)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from tito.adapters.app import create_app
from tito.service.responses_assembler import assemble

EVENT = TypeAdapter(ResponseStreamEvent)
RENDER, DERENDER = "/v1/responses/render", "/v1/responses/derender"
IM_END = 151645
TOOLS = [{"type": "function", "name": "get_weather", "description": "Weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
REASONING = "<think>\nThe user wants the weather.\n</think>\n\n"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["responses_render", "responses_derender",
                                            "chat_render", "chat_derender"]))


def encode(vocabs: Any, text: str) -> list[int]:
    return vocabs["qwen3"].tokenizer.encode(text, add_special_tokens=False).ids


def render(client: TestClient, **body: Any) -> dict[str, Any]:
    got = client.post(RENDER, json={"model": "qwen3", **body})
    assert got.status_code == 200, got.text
    return got.json()


def batch(client, gen, ids, finish="stop", logprobs=None, **extra):
    choice = {"index": 0, "token_ids": ids, "finish_reason": finish}
    if logprobs is not None:
        choice["logprobs"] = logprobs
    got = client.post(DERENDER, json={
        "model": "qwen3", "derender_context": gen["derender_context"], **extra,
        "generate_response": {"request_id": gen["request_id"], "choices": [choice]}})
    assert got.status_code == 200, got.text
    return got.json()


def stream(client, gen, pieces, finish="stop", logprobs=None, compact=False):
    """Derender ``pieces`` (lists of ids) one call each; returns (events, states), the events
    assembled (as the gateway and the client do) unless ``compact``."""
    state, events, states = None, [], []
    for k, ids in enumerate(pieces):
        last = k == len(pieces) - 1
        choice = {"index": 0, "token_ids": ids, "finish_reason": finish if last else None}
        if logprobs is not None:
            choice["logprobs"] = {"content": logprobs[sum(map(len, pieces[:k])):][:len(ids)]}
        body = {"stream": True, "model": "qwen3", "stream_state": state,
                "generate_chunk": {"request_id": gen["request_id"], "choices": [choice]}}
        if state is None:
            body["derender_context"] = gen["derender_context"]
        got = client.post(DERENDER, json=body)
        assert got.status_code == 200, got.text
        state = got.json()["stream_state"]
        states.append(state)
        events.extend(got.json()["events"])
    return (events if compact else assemble(events)), states


def same_response(a: dict, b: dict) -> bool:
    return {**a, "created_at": 0} == {**b, "created_at": 0}


def check_grammar(events: list[dict]) -> None:
    """The documented order (module header of tito.service.responses_events)."""
    types = [e["type"] for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] in ("response.completed", "response.incomplete")
    assert [e["sequence_number"] for e in events] == list(range(events[0]["sequence_number"],
                                                                 events[0]["sequence_number"]
                                                                 + len(events)))
    body = [t for t in types[2:-1] if not t.endswith(".delta")]
    expect = {
        "reasoning": ["response.output_item.added", "response.content_part.added",
                      "response.reasoning_text.done", "response.content_part.done",
                      "response.output_item.done"],
        "message": ["response.output_item.added", "response.content_part.added",
                    "response.output_text.done", "response.content_part.done",
                    "response.output_item.done"],
        "function_call": ["response.output_item.added",
                          "response.function_call_arguments.done", "response.output_item.done"],
    }
    kinds = [e["item"]["type"] for e in events if e["type"] == "response.output_item.added"]
    assert body == [t for kind in kinds for t in expect[kind]]
    for e in events:
        EVENT.validate_python(e)


def assembled(events: list[dict]) -> list[str]:
    """Each item's text rebuilt from its delta events only."""
    texts: dict[int, str] = {}
    for e in events:
        if e["type"].endswith(".delta"):
            texts[e["output_index"]] = texts.get(e["output_index"], "") + e["delta"]
    return [texts.get(i, "") for i in range(max(texts, default=-1) + 1)]


def item_texts(response: dict) -> list[str]:
    out = []
    for item in response["output"]:
        if item["type"] == "function_call":
            out.append(item["arguments"])
        else:
            out.append(item["content"][0]["text"] if item["content"] else "")
    return out


# -- batch -----------------------------------------------------------------------------------


def test_batch_reasoning_message_and_function_call(client, vocabs):
    gen = render(client, input="Weather in Paris?", tools=TOOLS, instructions="Be brief.")
    reasoning_ids = encode(vocabs, REASONING)
    ids = reasoning_ids + encode(vocabs, "Let me check.\n" + CALL) + [IM_END]
    resp = batch(client, gen, ids)
    Response.model_validate(resp)
    assert resp["id"] == gen["request_id"] and resp["object"] == "response"
    assert resp["status"] == "completed" and resp["incomplete_details"] is None
    assert [i["type"] for i in resp["output"]] == ["reasoning", "message", "function_call"]
    reasoning, message, call = resp["output"]
    # the same ids through the chat derender (checked against vLLM elsewhere): same split
    chat_gen = client.post("/v1/chat/completions/render", json={
        "model": "qwen3", "messages": [{"role": "system", "content": "Be brief."},
                                       {"role": "user", "content": "Weather in Paris?"}],
        "tools": [{"type": "function", "function": {k: v for k, v in TOOLS[0].items()
                                                     if k != "type"}}]}).json()
    assert chat_gen["token_ids"] == gen["token_ids"]
    chat = client.post("/v1/chat/completions/derender", json={
        "model": "qwen3", "derender_context": chat_gen["derender_context"],
        "generate_response": {"request_id": "x", "choices": [
            {"index": 0, "token_ids": ids, "finish_reason": "stop"}]}}).json()
    msg = chat["choices"][0]["message"]
    assert reasoning["content"][0]["text"] == msg["reasoning"] == "\nThe user wants the weather.\n"
    assert message["content"][0]["text"] == msg["content"]
    assert call["name"] == "get_weather" and json.loads(call["arguments"]) == {"city": "Paris"}
    assert call["arguments"] == msg["tool_calls"][0]["function"]["arguments"]
    assert call["call_id"].startswith("call_") and call["status"] == "completed"
    assert resp["instructions"] == "Be brief." and resp["tools"][0]["name"] == "get_weather"
    usage = resp["usage"]
    assert usage["input_tokens"] == len(gen["token_ids"])
    assert usage["output_tokens"] == len(ids)
    assert usage["total_tokens"] == len(gen["token_ids"]) + len(ids)
    # the tokens between <think> and </think> (the markers excluded), as the tokenizer counts them
    inner = encode(vocabs, "<think>\nThe user wants the weather.\n</think>")
    assert usage["output_tokens_details"]["reasoning_tokens"] == len(inner) - 2


def test_batch_length_finish_is_incomplete(client, vocabs):
    gen = render(client, input="Count.", max_output_tokens=5)
    ids = encode(vocabs, "1, 2, 3")[:5]
    resp = batch(client, gen, ids, finish="length")
    Response.model_validate(resp)
    assert resp["status"] == "incomplete"
    assert resp["incomplete_details"] == {"reason": "max_output_tokens"}
    assert resp["output"][-1]["status"] == "incomplete"
    assert resp["max_output_tokens"] == 5


def test_batch_thinking_off_and_empty_output(client, vocabs):
    gen = render(client, input="Hi", reasoning={"effort": "none"})
    resp = batch(client, gen, encode(vocabs, "Hello!") + [IM_END])
    assert [i["type"] for i in resp["output"]] == ["message"]
    assert resp["output"][0]["content"][0]["text"] == "Hello!"
    assert resp["reasoning"] == {"effort": "none"}
    empty = batch(client, gen, [])
    assert empty["output"] == [] and empty["status"] == "completed"


def test_stop_strings_and_logprobs(client, vocabs):
    gen = render(client, input="Count", stop=["3"], reasoning={"effort": "none"},
                 include=["message.output_text.logprobs"], top_logprobs=1)
    ids = encode(vocabs, "1, 2, 3, 4") + [IM_END]
    lps = [{"token": f"token_id:{i}", "logprob": -0.5, "top_logprobs": []} for i in ids]
    resp = batch(client, gen, ids, logprobs={"content": lps})
    part = resp["output"][0]["content"][0]
    assert part["text"] == "1, 2, "
    assert [lp["token"] for lp in part["logprobs"]] == [
        vocabs["qwen3"].tokenizer.decode([i]) for i in encode(vocabs, "1, 2, 3")]
    events, _ = stream(client, gen, [ids[:2], ids[2:4], ids[4:]], logprobs=lps)
    check_grammar(events)
    assert same_response(events[-1]["response"], resp)


# -- stream ----------------------------------------------------------------------------------


def test_stream_events_order_sequence_and_equal_batch(client, vocabs):
    gen = render(client, input="Weather in Paris?", tools=TOOLS)
    ids = encode(vocabs, REASONING + "Let me check.\n" + CALL) + [IM_END]
    pieces = [ids[k:k + 3] for k in range(0, len(ids), 3)]
    events, states = stream(client, gen, pieces)
    check_grammar(events)
    final = events[-1]["response"]
    assert same_response(final, batch(client, gen, ids))
    assert assembled(events) == item_texts(final)
    created = events[0]["response"]
    assert created["status"] == "in_progress" and created["output"] == []
    assert created["id"] == final["id"] == gen["request_id"]
    # the state after the finish: a further call emits nothing
    got = client.post(DERENDER, json={
        "stream": True, "model": "qwen3", "stream_state": states[-1],
        "generate_chunk": {"request_id": gen["request_id"],
                           "choices": [{"index": 0, "token_ids": [], "finish_reason": "stop"}]}})
    assert got.status_code == 200 and got.json()["events"] == []


def test_stream_length_finish_ends_with_response_incomplete(client, vocabs):
    gen = render(client, input="Hi", max_output_tokens=4)
    ids = encode(vocabs, "Hello there friend")[:4]
    events, _ = stream(client, gen, [ids[:2], ids[2:]], finish="length")
    check_grammar(events)
    assert events[-1]["type"] == "response.incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}


def test_stream_with_the_original_request_instead_of_the_context(client, vocabs):
    request = {"model": "qwen3", "input": "Hi", "metadata": {"a": "b"}}
    gen = render(client, **{k: v for k, v in request.items() if k != "model"})
    ids = encode(vocabs, REASONING + "Hello!") + [IM_END]
    body = {"stream": True, "model": "qwen3", "stream_state": None, "responses_request": request,
            "prompt_token_ids": gen["token_ids"],
            "generate_chunk": {"request_id": gen["request_id"],
                               "choices": [{"index": 0, "token_ids": ids, "finish_reason": "stop"}]}}
    got = client.post(DERENDER, json=body)
    assert got.status_code == 200, got.text
    events = assemble(got.json()["events"])
    check_grammar(events)
    final = events[-1]["response"]
    assert final["metadata"] == {"a": "b"}
    assert item_texts(final) == ["\nThe user wants the weather.\n", "\n\nHello!"]  # as chat
    assert final["usage"]["input_tokens"] == len(gen["token_ids"])


SCRIPTS = [
    REASONING + "Let me check.\n" + CALL,
    REASONING + "Grüße aus 世界 🌍, fine.",
    "No reasoning at all, and a tool: " + CALL + "\n" + CALL.replace("Paris", "Lyon"),
    # text after a call: a message item after the function_call, whatever the chunking
    "Let me check.\n" + CALL + "\nChecked: sunny.",
    REASONING + CALL + "\nAnd " + CALL.replace("Paris", "Lyon") + " done.",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=st.sampled_from(SCRIPTS), cuts=st.lists(st.integers(1, 60), max_size=12),
       finish=st.sampled_from(["stop", "length"]))
def test_chunking_invariance(client, vocabs, script, cuts, finish):
    gen = _GEN.setdefault("tools", render(client, input="Weather in Paris?", tools=TOOLS))
    ids = encode(vocabs, script) + ([IM_END] if finish == "stop" else [])
    points = sorted({c % (len(ids) + 1) for c in cuts} | {0, len(ids)})
    pieces = [ids[a:b] for a, b in zip(points, points[1:])] or [[]]
    events, states = stream(client, gen, pieces, finish=finish)
    check_grammar(events)
    whole = batch(client, gen, ids, finish=finish)
    assert same_response(events[-1]["response"], whole)
    assert assembled(events) == item_texts(whole)
    one, _ = stream(client, gen, [ids], finish=finish)
    strip = [(e["type"], e.get("output_index")) for e in one if not e["type"].endswith(".delta")]
    assert strip == [(e["type"], e.get("output_index")) for e in events
                     if not e["type"].endswith(".delta")]


_GEN: dict[str, Any] = {}


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mutate, param", [
    (lambda b: b["generate_response"]["choices"].append(
        {"index": 1, "token_ids": [], "finish_reason": "stop"}), "generate_response.choices"),
    (lambda b: b["derender_context"].update(kind="completion"), "derender_context.kind"),
    (lambda b: b["generate_response"]["choices"][0].update(token_ids=[10**7]),
     "generate_response"),
    # found by the long schemathesis run: a negative engine count reached the usage as a 500
    (lambda b: b["generate_response"].update(usage={"prompt_tokens": -278097852}),
     "body.generate_response.usage.prompt_tokens"),
])
def test_batch_bad_requests(client, mutate, param):
    gen = render(client, input="Hi")
    body = {"model": "qwen3", "derender_context": gen["derender_context"],
            "generate_response": {"request_id": gen["request_id"],
                                  "choices": [{"index": 0, "token_ids": [9707], "finish_reason": "stop"}]}}
    mutate(body)
    got = client.post(DERENDER, json=body)
    assert got.status_code == 400, got.text
    assert got.json()["error"]["param"].startswith(param)


def test_stream_negative_engine_usage_is_a_400(client):
    gen = render(client, input="Hi")
    chunk = {"request_id": gen["request_id"], "usage": {"prompt_tokens": -1},
             "choices": [{"index": 0, "token_ids": [9707], "finish_reason": None}]}
    got = client.post(DERENDER, json={"model": "qwen3", "stream": True,
                                      "derender_context": gen["derender_context"],
                                      "generate_chunk": chunk})
    assert got.status_code == 400, got.text
    assert got.json()["error"]["param"] == "body.generate_chunk.usage.prompt_tokens"


def test_stream_tampered_ext_state_is_a_400(client, vocabs):
    gen = render(client, input="Hi")
    _, states = stream(client, gen, [encode(vocabs, "Hel")], finish=None)
    state = states[-1]
    state["tito"]["ext"]["seq"] = -4
    got = client.post(DERENDER, json={
        "stream": True, "model": "qwen3", "stream_state": state,
        "generate_chunk": {"request_id": gen["request_id"],
                           "choices": [{"index": 0, "token_ids": [9707], "finish_reason": None}]}})
    assert got.status_code == 400, got.text
    assert got.json()["error"]["param"] == "stream_state.tito.ext"


# -- compact events and the O(1) state ---------------------------------------------------------

#: what the compact events leave out, per type (tito.service.responses_events' header)
LEFT_OUT = {
    "response.reasoning_text.done": {"text"},
    "response.output_text.done": {"text", "logprobs"},
    "response.function_call_arguments.done": {"arguments", "name"},
}


def contains(full: Any, given: Any) -> bool:
    """``full`` has every field of ``given`` with the same value (nested objects: at least)."""
    if isinstance(given, dict):
        return isinstance(full, dict) and all(k in full and contains(full[k], v)
                                              for k, v in given.items())
    return full == given


def test_compact_events_leave_out_only_the_repeated_fields(client, vocabs):
    gen = render(client, input="Weather in Paris?", tools=TOOLS,
                 include=["message.output_text.logprobs"], top_logprobs=1)
    ids = encode(vocabs, REASONING + "Let me check.\n" + CALL) + [IM_END]
    lps = [{"token": f"token_id:{i}", "logprob": -0.25, "top_logprobs": []} for i in ids]
    pieces = [ids[k:k + 4] for k in range(0, len(ids), 4)]
    raw, _ = stream(client, gen, pieces, logprobs=lps, compact=True)
    full = assemble(raw)
    assert len(raw) == len(full)
    for r, f in zip(raw, full):
        # the assembler only adds: every field derender gave is kept as given
        assert contains(f, r)
        missing = set(f) - set(r)
        if r["type"] in LEFT_OUT:
            assert missing == LEFT_OUT[r["type"]]
        elif r["type"] == "response.output_item.done":
            assert set(r["item"]) == {"id", "type", "status"}
        elif r["type"] in ("response.completed", "response.incomplete"):
            assert set(r["response"]) == {"id", "object", "created_at", "model", "status",
                                          "error", "incomplete_details", "usage"}
            assert f["response"]["instructions"] is None and f["response"]["tools"]
        elif r["type"] == "response.content_part.done":
            assert "text" not in r["part"] and "text" in f["part"]
        else:
            assert missing == set(), r["type"]
    check_grammar(full)
    # the assembler is idempotent: complete events stay as they are
    assert assemble(full) == full
    assert same_response(full[-1]["response"], batch(client, gen, ids, logprobs={"content": lps}))


def ext_size(state: dict) -> int:
    return len(json.dumps(state["tito"]["ext"], separators=(",", ":")))


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(repeat=st.integers(1, 60), size=st.integers(5, 16), logprobs=st.booleans())
def test_state_size_does_not_grow_with_the_output(client, vocabs, repeat, size, logprobs):
    """Reasoning, a message and a call each ``repeat`` times longer: every carried state stays
    under the same fixed bound (the events' part under 100 bytes), however long the output."""
    extra = {"include": ["message.output_text.logprobs"], "top_logprobs": 2} if logprobs else {}
    gen = _GEN.setdefault(f"tools-{logprobs}", render(
        client, input="Weather in Paris?", tools=TOOLS, **extra))
    body = "<think>\n" + "Thinking hard. " * repeat + "\n</think>\n\n" + "Some text. " * repeat
    ids = encode(vocabs, body + CALL.replace("Paris", "Paris " * repeat)) + [IM_END]
    lps = [{"token": f"token_id:{i}", "logprob": -0.5, "top_logprobs": [
        {"token": f"token_id:{i}", "logprob": -0.5}, {"token": "token_id:11", "logprob": -2}]}
        for i in ids] if logprobs else None
    events, states = stream(client, gen, [ids[k:k + size] for k in range(0, len(ids), size)],
                            logprobs=lps)
    check_grammar(events)
    final = events[-1]["response"]
    assert final["output"][1]["content"][0]["text"].count("Some text.") == repeat
    if logprobs:
        assert len(final["output"][1]["content"][0]["logprobs"]) >= 3 * repeat
    biggest = max(len(json.dumps(s)) for s in states)
    assert max(ext_size(s) for s in states) <= 100 and biggest <= 1100
    if repeat >= 40:  # the output is bigger than any state
        assert len(json.dumps(final["output"])) > 1.5 * biggest


@settings(max_examples=40, deadline=None)
@given(seq=st.integers(0, 10**9), out=st.integers(0, 10**6),
       open_=st.sampled_from([None, "reasoning", "message", "function_call",
                              "custom_tool_call"]),
       done=st.booleans(), lp=st.booleans(), input_tokens=st.integers(0, 10**6))
def test_event_state_round_trip(seq, out, open_, done, lp, input_tokens):
    from tito.service.responses_event_state import EventState

    state = EventState(seq=seq, out=out, open=open_, done=done, lp=lp, input_tokens=input_tokens)
    wire = json.loads(json.dumps(state.model_dump(mode="json")))
    assert EventState.model_validate(wire) == state
    # (the custom / namespace tools' fields, null here, are left out of what a stream writes)
    six = {k: v for k, v in wire.items() if k not in ("custom", "spaces", "dec")}
    assert EventState.model_validate(six) == state
    assert len(json.dumps(six)) < 120


def test_signed_states_stream_and_a_tampered_ext_is_refused(client, vocabs):
    gen = render(client, input="Weather in Paris?", tools=TOOLS)
    ids = encode(vocabs, REASONING + "Let me check.\n" + CALL) + [IM_END]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TITO_STATE_SECRET", "responses-secret-" + "x" * 16)
        events, states = stream(client, gen, [ids[:7], ids[7:20], ids[20:]])
        assert all(s["tito"].get("sig") for s in states)
        check_grammar(events)
        assert same_response(events[-1]["response"], batch(client, gen, ids))
        _, states = stream(client, gen, [ids[:7]], finish=None)
        state = states[-1]
        state["tito"]["ext"]["out"] += 1
        got = client.post(DERENDER, json={
            "stream": True, "model": "qwen3", "stream_state": state,
            "generate_chunk": {"request_id": gen["request_id"], "choices": [
                {"index": 0, "token_ids": ids[7:9], "finish_reason": None}]}})
        assert got.status_code == 400, got.text


@pytest.fixture(scope="module")
def mid_stream(vocabs) -> tuple[TestClient, dict, dict]:
    """A Responses stream with tools and logprobs stopped inside its message; the next chunk
    opens a call (so its logprobs are split token by token from the carried state)."""
    client = TestClient(create_app(endpoints=["responses_render", "responses_derender"]),
                        raise_server_exceptions=False)
    gen = render(client, input="Weather in Paris?", tools=TOOLS,
                 include=["message.output_text.logprobs"], top_logprobs=1)
    ids = encode(vocabs, REASONING + "Let me check.\n" + CALL) + [IM_END]
    lps = [{"token": f"token_id:{i}", "logprob": -0.5, "top_logprobs": []} for i in ids]
    cut = len(encode(vocabs, REASONING + "Let me"))
    _, states = stream(client, gen, [ids[:cut]], finish=None, logprobs=lps)
    nxt = {"stream": True, "model": "qwen3", "generate_chunk": {
        "request_id": gen["request_id"], "choices": [
            {"index": 0, "token_ids": ids[cut:], "finish_reason": "stop",
             "logprobs": {"content": lps[cut:]}}]}}
    return client, states[-1], nxt


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_unsigned_responses_state_is_never_a_500(mid_stream, data):
    from test_fuzz_events_states import mutation

    client, state, nxt = mid_stream
    assert client.post(DERENDER, json={**nxt, "stream_state": state}).status_code == 200
    tampered = data.draw(mutation(state, root=False))
    got = client.post(DERENDER, json={**nxt, "stream_state": tampered})
    assert got.status_code < 500, got.text
