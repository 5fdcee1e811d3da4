"""Responses ``custom`` and ``namespace`` tools on the derender side, on real qwen3 token ids:
calls of a custom tool are ``custom_tool_call`` items (``ctc_`` ids, the shim's string as
``input``, ``response.custom_tool_call_input.delta`` / ``.done`` events), calls of a
namespace's flat ``<namespace>__<name>`` are ``function_call`` items with the ``namespace`` and
the bare name, as vLLM 0.33's ``build_response_output_items`` and its streaming processor
(``emit_simple_tool_call_*``) shape them (vLLM's render server has no Responses derender to
record, so these shapes are asserted from its source); every object parsed by the openai SDK;
stream == batch under any chunking; the input decoder (``tito.core.custom_input``) against
``json.loads`` under any split (hypothesis). The render side: conformance goldens
``render_responses_custom*``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from tito.adapters.app import create_app
from tito.core import custom_input
from tito.core.custom_input import InputDecoder
from tito.service.responses_assembler import assemble
from test_responses_derender import batch  # the same calls as the derender tests
from test_responses_derender import stream as stream_calls

EVENT = TypeAdapter(ResponseStreamEvent)
RENDER, DERENDER = "/v1/responses/render", "/v1/responses/derender"
IM_END = 151645
RUN = {"type": "custom", "name": "run", "description": "Run code"}
CRM = {"type": "namespace", "name": "crm", "description": "CRM", "tools": [
    {"type": "function", "name": "lookup", "parameters": {"type": "object"}},
    {"type": "custom", "name": "note"}]}
FN = {"type": "function", "name": "f", "parameters": {"type": "object"}}
THINK = "<think>\nok\n</think>\n\n"
CODE = 'print("h\u00e9llo\\n")\n\ttab \U0001F600 "q" \\ end'


def call(name: str, arguments: Any) -> str:
    return ('<tool_call>\n' + json.dumps({"name": name, "arguments": arguments},
                                         ensure_ascii=False) + '\n</tool_call>')


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["responses_render", "responses_derender"]))


def encode(vocabs: Any, text: str) -> list[int]:
    return vocabs["qwen3"].tokenizer.encode(text, add_special_tokens=False).ids


def render(client: TestClient, tools: list[Any]) -> dict[str, Any]:
    got = client.post(RENDER, json={"model": "qwen3", "input": "hi", "tools": tools})
    assert got.status_code == 200, got.text
    return got.json()


def stream(client: TestClient, gen: dict[str, Any], pieces: list[list[int]]
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the compact events, the states) of one call per piece."""
    return stream_calls(client, gen, pieces, compact=True)


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {**a, "created_at": 0} == {**b, "created_at": 0}


def test_custom_call_is_a_custom_tool_call_item(client, vocabs):
    gen = render(client, [RUN, FN])
    ids = encode(vocabs, THINK + "Sure.\n" + call("run", {"input": CODE})) + [IM_END]
    resp = batch(client, gen, ids)
    Response.model_validate(resp)
    assert [i["type"] for i in resp["output"]] == ["reasoning", "message", "custom_tool_call"]
    item = resp["output"][2]
    assert item["id"].startswith("ctc_") and item["call_id"].startswith("call_")
    assert item["name"] == "run" and item["input"] == CODE  # vLLM: decode_custom_tool_input
    assert "status" not in item and "namespace" not in item
    assert resp["tools"][0] == RUN


@pytest.mark.parametrize("size", [1, 2, 5, 1000])
def test_custom_call_stream_events_and_equal_batch(client, vocabs, size):
    gen = render(client, [RUN])
    ids = encode(vocabs, THINK + call("run", {"input": CODE})) + [IM_END]
    events, states = stream(client, gen, [ids[k:k + size] for k in range(0, len(ids), size)])
    full = assemble(events)
    for e in full:
        EVENT.validate_python(e)
    types = [e["type"] for e in full if not e["type"].endswith(".delta")]
    assert types[-4:] == ["response.output_item.added", "response.custom_tool_call_input.done",
                          "response.output_item.done", "response.completed"]
    deltas = [e["delta"] for e in full if e["type"] == "response.custom_tool_call_input.delta"]
    assert "".join(deltas) == CODE and all(deltas)
    added = [e for e in full if e["type"] == "response.output_item.added"][-1]["item"]
    assert added["type"] == "custom_tool_call" and added["input"] == ""
    done = next(e for e in full if e["type"] == "response.custom_tool_call_input.done")
    assert done["input"] == CODE
    assert same(full[-1]["response"], batch(client, gen, ids))
    # the state stays small: the decoder holds a short head, an escape, a surrogate
    for state in states:
        dec = state["tito"]["ext"].get("dec")
        assert dec is None or len(dec["held"]) <= custom_input.MAX_HEAD


def test_namespace_call_is_a_function_call_with_its_namespace(client, vocabs):
    gen = render(client, [CRM, FN])
    ids = encode(vocabs, THINK + call("crm__lookup", {"q": "ann"}) + "\n" + call("f", {})
                 ) + [IM_END]
    resp = batch(client, gen, ids)
    Response.model_validate(resp)
    first, second = resp["output"][1:]
    assert first["type"] == "function_call" and first["id"].startswith("fc_")
    assert (first["name"], first["namespace"]) == ("lookup", "crm")
    assert json.loads(first["arguments"]) == {"q": "ann"}
    assert second["name"] == "f" and "namespace" not in second
    events, _ = stream(client, gen, [[i] for i in ids])
    full = assemble(events)
    for e in full:
        EVENT.validate_python(e)
    assert same(full[-1]["response"], resp)
    done = [e for e in full if e["type"] == "response.function_call_arguments.done"]
    assert [e["name"] for e in done] == ["lookup", "f"]


@settings(max_examples=12, deadline=None)
@given(cuts=st.lists(st.integers(1, 80), min_size=1, max_size=6),
       arguments=st.sampled_from([{"input": CODE}, {"input": ""}, {"code": "x", "input": "y"},
                                  "bare", {"input": "\U0001F600\\u"}]))
def test_any_chunking_streams_the_batch(client, vocabs, cuts, arguments):
    """Stream == batch for any split of the ids; the deltas concatenate to the input, which is
    the shim's string, or the arguments as they are when they are not the shim."""
    gen = render(client, [RUN, CRM])
    text = THINK + call("run", arguments) + "\n" + call("crm__lookup", {"q": 1})
    ids = encode(vocabs, text) + [IM_END]
    bounds = sorted({min(c, len(ids)) for c in cuts} | {len(ids)})
    pieces = [ids[a:b] for a, b in zip([0, *bounds], bounds) if b > a]
    events, _ = stream(client, gen, pieces)
    full = assemble(events)
    resp = batch(client, gen, ids)
    assert same(full[-1]["response"], resp)
    custom = resp["output"][1]
    # (qwen3's hermes parser gives a string's arguments as the string itself)
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    assert custom["input"] == (arguments["input"] if isinstance(arguments, dict)
                               and list(arguments) == ["input"] else raw)
    deltas = [e["delta"] for e in full if e["type"] == "response.custom_tool_call_input.delta"]
    assert "".join(deltas) == custom["input"]
    assert resp["output"][2]["namespace"] == "crm"


def test_requests_without_such_tools_keep_the_six_field_state(client, vocabs):
    gen = render(client, [FN])
    ids = encode(vocabs, call("f", {})) + [IM_END]
    _, states = stream(client, gen, [ids[:3], ids[3:]])
    assert set(states[0]["tito"]["ext"]) == {"seq", "done", "out", "open", "lp", "input_tokens"}


@pytest.mark.parametrize("arguments, expect", [
    ("bare text", "bare text"),                 # vLLM: not JSON, the raw arguments
    ('{"code": 1}', '{"code": 1}'),             # vLLM: no input string, the raw arguments
    ('{"input": 5}', '{"input": 5}'),
    ('{"input": "a\\u00e9\\ud83d\\ude00"}', "a\u00e9\U0001F600"),
    ('  {  "input" :"x"  }  ', "x"),
    ("", ""),
])
def test_decoder_rules(arguments, expect):
    for cut in range(len(arguments) + 1):
        st, a = custom_input.feed(InputDecoder(), arguments[:cut])
        st, b = custom_input.feed(st, arguments[cut:])
        assert a + b + custom_input.finish(st) == expect


def decode_split(arguments: str, cuts: list[int], round_trip: bool = False) -> list[str]:
    """The decoder's pieces for ``arguments`` fed in the parts ``cuts`` make (``round_trip``:
    its state through JSON between the parts, as it travels between calls), then its finish."""
    bounds = sorted({min(c, len(arguments)) for c in cuts}) + [len(arguments)]
    state, out, prev = InputDecoder(), [], 0
    for end in bounds:
        state, piece = custom_input.feed(state, arguments[prev:end])
        out.append(piece)
        prev = end
        if round_trip:
            dumped = json.loads(json.dumps(state.model_dump(mode="json")))
            assert InputDecoder.model_validate(dumped) == state
            state = InputDecoder.model_validate(dumped)
    out.append(custom_input.finish(state))
    return out


@settings(max_examples=300, deadline=None)
@given(st.text(), st.booleans(), st.lists(st.integers(0, 400), max_size=8), st.booleans())
def test_decoder_any_chunking_equals_json_loads(text, ascii_, cuts, round_trip):
    arguments = json.dumps({"input": text}, ensure_ascii=ascii_)
    assert "".join(decode_split(arguments, cuts, round_trip)) == json.loads(arguments)["input"]


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(codec="utf-8"), max_size=40),
       st.lists(st.integers(0, 60), max_size=6))
def test_decoder_pieces_always_concatenate(arguments, cuts):
    """Any arguments (the shim or not), any split: the pieces are one text, the same for every
    split, and never hold a lone surrogate (they go out as UTF-8)."""
    out = decode_split(arguments, cuts)
    whole, = [custom_input.feed(InputDecoder(), arguments)]
    assert "".join(out) == whole[1] + custom_input.finish(whole[0])
    "".join(out).encode("utf-8")


def test_bad_custom_items_and_tools_are_400s(client):
    for body in (
        {"input": [{"type": "custom_tool_call", "call_id": "c", "name": "run", "input": 3}]},
        {"input": [{"type": "function_call", "call_id": "c", "name": "x", "arguments": "{}",
                    "namespace": 3}]},
        {"input": "hi", "tools": [{"type": "namespace", "name": "n", "description": "d",
                                   "tools": [{"type": "function", "name": ["x"]}]}]},
        {"input": "hi", "tools": [RUN], "tool_choice": {"type": "custom", "name": ["run"]}},
    ):
        got = client.post(RENDER, json={"model": "qwen3", **body})
        assert got.status_code == 400, (body, got.text)
        assert set(got.json()["error"]) >= {"message", "type", "param", "code"}


@pytest.mark.parametrize("dec", [
    {"phase": "string", "held": "abc", "high": ""},
    {"phase": "string", "held": "", "high": "abcdef"},
    {"phase": "raw", "held": "x", "high": ""},
    {"phase": "head", "held": "x" * 65, "high": ""},
    {"phase": "bogus", "held": "", "high": ""},
    "x",
])
def test_a_forged_decoder_state_is_a_400(client, vocabs, dec):
    gen = render(client, [RUN])
    ids = encode(vocabs, THINK + call("run", {"input": CODE}))
    cut = len(ids) - 8  # (inside the input string)
    _, states = stream(client, gen, [ids[:cut], ids[cut:]])
    state = json.loads(json.dumps(states[0]))  # (before the finish)
    assert state["tito"]["ext"]["open"] == "custom_tool_call"
    state["tito"]["ext"]["dec"] = dec
    got = client.post(DERENDER, json={
        "stream": True, "model": "qwen3", "stream_state": state,
        "generate_chunk": {"request_id": gen["request_id"], "choices": [
            {"index": 0, "token_ids": ids[cut:], "finish_reason": "stop"}]}})
    assert got.status_code == 400, got.text
    assert got.json()["error"]["param"] == "stream_state.tito.ext"
