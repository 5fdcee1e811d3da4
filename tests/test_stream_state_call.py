"""A state this process did not issue, decoded in one pass, answers as the general path does.

``tito.service.stream_state_call.decode_checked`` decodes the state of a hand-read call
(``tito.service.stream_body``) that this process did not keep, for ``_Stream._fresh``; anything
unusual it leaves to ``stream_state.decode`` (None). The reference is that general path
(``decode_checked`` switched off): every state tito issues is decoded in one pass to exactly what
``decode`` gives; a state changed anywhere (its vLLM fields, any part of ``tito``), signed or
not, is decoded to what ``decode`` gives or left to it; whole streams in random chunkings and
changed calls answer byte for byte the same, or are refused with the same error; and a changed
signed state is a 400 in OpenAI's error shape through the Lambda handler.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_stream_state_fast import QWEN_OUT, json_values
from test_stream_state_issued import CASES, SECRET, _fresh, _outcome, _run  # noqa: F401

from tito.adapters.validation import parse_fast
from tito.errors import BadRequest
from tito.models import get_registry
from tito.service import derender, derender_stream, stream_body, stream_state, stream_state_kept
from tito.service.stream_state_call import decode_checked


def _states(signed: bool) -> list[tuple[str, dict[str, Any]]]:
    """(model, state) of every answer of the cases' streams, as a client sends them back."""
    out = []
    with pytest.MonkeyPatch.context() as m:
        if signed:
            m.setenv("TITO_STATE_SECRET", SECRET)
        for kind, model, settings_, text in CASES:
            for answer in map(json.loads, _run(kind, model, settings_, text)):
                if isinstance(answer, dict):  # (not an error: a stream chunked past its stop)
                    out.append((model, answer["stream_state"]))
    return out


def _general(model: str, raw: dict[str, Any]) -> Any:
    vocab = get_registry().get(model).vocab
    try:
        loaded = stream_state.decode(vocab, copy.deepcopy(raw), model=model,
                                     sent=stream_body._STATE_KEYS)
    except BadRequest as exc:
        return ("error", exc.message, exc.param)
    return ("ok", loaded)


@pytest.fixture(scope="module")
def unsigned_states() -> list[tuple[str, dict[str, Any]]]:
    return _states(False)


@pytest.fixture(scope="module")
def signed_states() -> list[tuple[str, dict[str, Any]]]:
    return _states(True)


@pytest.mark.parametrize("signed", [False, True])
def test_every_state_tito_issues_is_decoded_in_one_pass(
        signed: bool, unsigned_states: Any, signed_states: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if signed:
        monkeypatch.setenv("TITO_STATE_SECRET", SECRET)
    taken = 0
    for model, raw in signed_states if signed else unsigned_states:
        wire = orjson.loads(orjson.dumps(raw))
        if stream_body._state(wire) is None or not stream_body.fields_valid(wire):
            continue  # (a first parser-stream answer: its replay ids go the general way)
        taken += 1
        got = decode_checked(get_registry().get(model).vocab, copy.deepcopy(raw), model)
        assert got is not None, raw
        assert ("ok", got) == _general(model, raw)
    assert taken > 100


def _tamper(raw: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """``raw`` with one value anywhere replaced, deleted or added (vLLM's fields too)."""
    raw = copy.deepcopy(raw)

    def paths(obj: Any, prefix: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        out = [prefix] if prefix else []
        items = obj.items() if isinstance(obj, dict) else enumerate(obj) \
            if isinstance(obj, list) else ()
        for k, v in items:
            out += paths(v, (*prefix, k))
        return out

    path = data.draw(st.sampled_from(paths(raw, ())))
    parent = raw
    for key in path[:-1]:
        parent = parent[key]
    action = data.draw(st.sampled_from(["replace", "delete", "add", "nudge"]))
    value = parent[path[-1]]
    if action == "nudge" and value.__class__ in (int, str, bool):  # a near miss of one value
        parent[path[-1]] = data.draw(st.sampled_from(
            [value + 1, value - 1, -1, 2**64, 16385] if value.__class__ is int
            else [value + "x", "", value[:-1], "Ġhello", "ĠParis"] if value.__class__ is str
            else [not value, 0, 1]))
    elif action == "delete" and isinstance(parent, dict):
        del parent[path[-1]]
    elif action == "add" and isinstance(value, dict):
        value[data.draw(st.sampled_from(
            ["tokens", "stop", "held", "phase", "x", "sig", "ext", "reasoning", "pending", "n",
             "index", "prompt_tokens"]))] = data.draw(json_values | st.sampled_from([16385, 1]))
    else:
        parent[path[-1]] = data.draw(json_values)
    return raw


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), signed=st.booleans())
def test_changed_states_are_decoded_as_decode_does_or_left_to_it(
        unsigned_states: Any, signed_states: Any, data: st.DataObject, signed: bool) -> None:
    states = signed_states if signed else unsigned_states
    model, raw = states[data.draw(st.integers(0, len(states) - 1))]
    raw = _tamper(raw, data)
    try:
        wire = orjson.loads(orjson.dumps(raw))  # (as the body parser reads it)
    except TypeError:
        return  # (an integer orjson cannot write: no such body)
    with pytest.MonkeyPatch.context() as m:
        if signed:
            m.setenv("TITO_STATE_SECRET", SECRET)
        if stream_body._state(wire) is None:
            return  # the general path's: the pydantic model, then decode
        got = decode_checked(get_registry().get(model).vocab, wire, model)
        if got is not None:
            assert ("ok", got) == _general(model, wire)


#: values at and around the bounds ``TitoState``, ``ChoiceState`` and vLLM's fields declare
_EDGES = [None, -1, 0, 1, 2, 16384, 16385, 2**63, True, False, 1.0, "", "qwen3", "x" * 129,
          "x" * 257, "x" * 513, {}, [], ["Ġhello"], ["", "Ġhello"], ["not a token €"], {"x": 1}]
_MISSING_KEY = object()


@pytest.mark.parametrize("signed", [False, True])
def test_each_field_at_its_bounds_is_decoded_as_decode_does_or_left_to_it(
        signed: bool, unsigned_states: Any, signed_states: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if signed:
        monkeypatch.setenv("TITO_STATE_SECRET", SECRET)
    states = signed_states if signed else unsigned_states
    picked = {json.dumps(sorted(raw["tito"]["st"])): (model, raw) for model, raw in states}
    checked = 0
    for model, raw in picked.values():
        places = [(raw, k) for k in raw] + [(raw["tito"], k) for k in (
            "v", "model", "id", "created", "index", "prompt_tokens", "n", "ext", "cfg", "st",
            "sig")] + [(raw["tito"]["st"], k) for k in (
                "stop", "reasoning", "tools", "harmony", "tokens", "tool_calls", "pending",
                "finished")]
        for parent, key in places:
            for value in [_MISSING_KEY, *_EDGES]:
                old = parent.get(key, _MISSING_KEY)
                if value is _MISSING_KEY:
                    parent.pop(key, None)
                else:
                    parent[key] = value
                wire = orjson.loads(orjson.dumps(raw))
                if old is _MISSING_KEY:
                    parent.pop(key, None)
                else:
                    parent[key] = old
                if stream_body._state(wire) is None:
                    continue
                got = decode_checked(get_registry().get(model).vocab, wire, model)
                if got is not None:
                    checked += 1
                    assert ("ok", got) == _general(model, wire), (key, value)
    assert checked > 50


def _general_path() -> pytest.MonkeyPatch:
    m = pytest.MonkeyPatch()
    m.setattr(derender_stream, "decode_checked", lambda *args: None)
    return m


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), cuts=st.lists(st.integers(1, 60), max_size=12),
       signed=st.booleans())
def test_streams_answer_as_the_general_path(case: Any, cuts: list[int], signed: bool) -> None:
    with pytest.MonkeyPatch.context() as m:
        if signed:
            m.setenv("TITO_STATE_SECRET", SECRET)
        m.setattr(stream_state, "_remember", lambda *args: None)  # nothing kept: every state
        m.setattr(stream_state_kept, "_ISSUED", {})  # decoded (in one pass, or not)
        fresh = _run(*case, cuts=cuts)
        general = _general_path()
        try:
            assert _run(*case, cuts=cuts) == fresh
        finally:
            general.undo()


_THIRD: dict[bool, tuple[str, dict[str, Any]]] = {}


def _third_call(signed: bool) -> tuple[str, dict[str, Any]]:
    """A stream's third call body (its state not kept), with reasoning and tools (made once
    per signing; a copy each time)."""
    if signed not in _THIRD:
        _THIRD[signed] = _make_third_call(signed)
    return copy.deepcopy(_THIRD[signed])


def _make_third_call(signed: bool) -> tuple[str, dict[str, Any]]:
    with pytest.MonkeyPatch.context() as m:
        if signed:
            m.setenv("TITO_STATE_SECRET", SECRET)
        tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}}}}]
        answers = _run("chat", "qwen3", {"tools": tools, "stop": ["zz"]}, QWEN_OUT,
                       cuts=[2, 4, 30])
    state = json.loads(answers[2])["stream_state"]
    ids = get_registry().get("qwen3").vocab.encode(QWEN_OUT)
    return "chat", {"stream": True, "model": "qwen3", "stream_state": state,
                    "generate_chunk": {"request_id": "generate-tokens-qwen3", "choices": [
                        {"index": 0, "token_ids": ids[30:33], "finish_reason": None}]}}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), signed=st.booleans())
def test_changed_calls_answer_or_fail_as_the_general_path(data: st.DataObject,
                                                          signed: bool) -> None:
    kind, body = _third_call(signed)
    original = body["stream_state"]
    body["stream_state"] = _tamper(original, data)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(stream_state_kept, "_ISSUED", {})
        if signed:
            m.setenv("TITO_STATE_SECRET", SECRET)
        try:
            fresh = _outcome(kind, body)
        except (TypeError, ValueError):
            return  # (a value no JSON body holds: an integer past 64 bits orjson cannot write)
        general = _general_path()
        try:
            assert _outcome(kind, body) == fresh
        finally:
            general.undo()
        # any change of a signed state's own object is refused (vLLM's fields: any change the
        # protocol model would not turn back into the same value, such as false for 0)
        if signed and json.dumps(body["stream_state"].get("tito")) != json.dumps(
                original["tito"]):
            assert fresh[0] == "error"


@pytest.mark.parametrize("change", [
    lambda s: s["tito"]["st"].__setitem__("tokens", s["tito"]["st"].get("tokens", 0) + 1),
    lambda s: s.__setitem__("prev_tokens", ["ĠParis"]),
    lambda s: s.__setitem__("held_text", "z"),
    lambda s: s["tito"]["cfg"].__setitem__("tool_choice", "none"),
])
def test_a_changed_signed_state_is_a_400_through_the_handler(
        change: Any, load_event: Any, lambda_context: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tito.handlers import chat_derender

    _, body = _third_call(True)
    change(body["stream_state"])
    monkeypatch.setenv("TITO_STATE_SECRET", SECRET)
    event = copy.deepcopy(load_event("chat_render.json"))
    path = "/v1/chat/completions/derender"
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["routeKey"] = event["requestContext"]["routeKey"] = f"POST {path}"
    event["body"] = json.dumps(body)
    event["headers"]["content-length"] = str(len(event["body"].encode()))
    response = chat_derender.handler(event, lambda_context)
    assert response["statusCode"] == 400, response
    error = json.loads(response["body"])["error"]
    assert error["type"] == "BadRequestError" and error["code"] == 400
    assert error["param"] == "stream_state.tito.sig" and "signature" in error["message"]


def _order(raw: dict[str, Any]) -> list[Any]:
    return [list(raw), list(raw["tito"])]


def test_signed_state_verified_in_place_is_left_as_it_was(
        signed_states: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``decode_checked`` verifies a signed state with its ``sig`` taken out of ``tito`` and put
    back: the state is left equal, its keys in their order (``sig`` last, as tito writes it),
    whether the signature matches or not; a state whose ``sig`` comes first (a client that
    reorders keys) is verified the same (the signature's JSON sorts keys) and left equal; a
    forged or changed signature is refused (None: ``decode`` then gives its 400)."""
    monkeypatch.setenv("TITO_STATE_SECRET", SECRET)
    checked = 0
    for model, raw in signed_states:
        wire = orjson.loads(orjson.dumps(raw))
        if stream_body._state(wire) is None or not stream_body.fields_valid(wire):
            continue  # (a first parser-stream answer: its replay ids go the general way)
        vocab = get_registry().get(model).vocab
        before, order = copy.deepcopy(wire), _order(wire)
        assert decode_checked(vocab, wire, model) is not None
        assert wire == before and _order(wire) == order and order[1][-1] == "sig"
        sig = wire["tito"]["sig"]
        first = {**wire, "tito": {"sig": sig, **{k: v for k, v in wire["tito"].items()
                                                 if k != "sig"}}}
        assert ("ok", decode_checked(vocab, copy.deepcopy(first), model)) == _general(model, wire)
        for forged in ("0" * 64, sig[:-1] + ("0" if sig[-1] != "0" else "1"), sig.upper()):
            bad = copy.deepcopy(wire)
            bad["tito"]["sig"] = forged
            kept = copy.deepcopy(bad)
            assert decode_checked(vocab, bad, model) is None
            assert bad == kept and _order(bad) == _order(kept)
            assert _general(model, bad)[0] == "error"
        checked += 1
    assert checked > 50


#: changes of a state's vLLM fields (and of ``tito``'s free-form parts) that the wire model
#: refuses or converts (a bool for an int, an int for a bool, a string for a list...), or that
#: the hand-read path leaves to it (replay ids, a float)
_NOT_COMMON = [
    lambda s: s.__setitem__("prev_tokens", [5]),
    lambda s: s.__setitem__("prev_tokens", "Ġhello"),
    lambda s: s.__setitem__("prefix_offset", True),
    lambda s: s.__setitem__("read_offset", -1),
    lambda s: s.__setitem__("held_text", 1),
    lambda s: s.__setitem__("role_sent", 1),
    lambda s: s.__setitem__("stop_fired", 0),
    lambda s: s.__setitem__("tools_streamed", "no"),
    lambda s: s.__setitem__("logprob_context_token_ids", [True]),
    lambda s: s.__setitem__("logprob_text_offset", 1.0),
    lambda s: s.__setitem__("output_token_ids", [1]),
    lambda s: s.__setitem__("last_tool_call_ids", [1]),
    lambda s: s["tito"].__setitem__("ext", {"x": 1.5}),
    lambda s: s["tito"]["cfg"].__setitem__("tool_params", {"get_weather": {"x": 0.5}}),
]


@pytest.mark.parametrize("change", _NOT_COMMON)
@pytest.mark.parametrize("signed", [False, True])
def test_a_state_the_wire_model_would_refuse_or_convert_goes_to_it(
        change: Any, signed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A state not issued here whose ``tito`` is an object is read without its vLLM fields'
    checks (the decode's one pass checks them); a state it then refuses is checked after all
    and, invalid for the wire model (or not float-free), the body goes to the model: the fast
    entry answers None, as it did when ``stream_body.read`` checked them first. A state left
    to the general decode that is valid is answered by it, as before (the last test)."""
    kind, body = _third_call(signed)
    change(body["stream_state"])
    if signed:
        monkeypatch.setenv("TITO_STATE_SECRET", SECRET)
    monkeypatch.setattr(stream_state_kept, "_ISSUED", {})
    data = parse_fast(json.dumps(body).encode())
    wire = stream_body.read(data)
    assert wire is not None and wire.stream_state.checked is False
    assert not stream_body.fields_valid(data["stream_state"])
    vocab = get_registry().get("qwen3").vocab
    assert decode_checked(vocab, copy.deepcopy(data["stream_state"]), "qwen3") is None
    assert derender.handle_stream_body(data, completion=False) is None


@pytest.mark.parametrize("signed", [False, True])
def test_the_one_pass_checks_the_state_against_the_model_and_endpoint(
        signed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``decode_checked`` given the served model also makes ``_check_wire_state``'s checks:
    a state it refuses (another endpoint's, settings or markers not this model's, a pending
    id outside the vocabulary) is left to the general path, whose 400 comes as before."""
    kind, body = _third_call(signed)
    if signed:
        monkeypatch.setenv("TITO_STATE_SECRET", SECRET)
    served = get_registry().get("qwen3")
    raw = body["stream_state"]
    assert decode_checked(served.vocab, copy.deepcopy(raw), "qwen3", served, False) is not None
    assert decode_checked(served.vocab, copy.deepcopy(raw), "qwen3", served, True) is None
    if signed:
        return  # (the changes below are signature mismatches)
    for change in (
            lambda s: s["tito"]["cfg"].__setitem__("tool_choice", "none"),
            lambda s: s["tito"]["st"]["reasoning"].__setitem__("end_id", 5),
            lambda s: s["tito"]["st"].__setitem__("pending", served.vocab_size),
            lambda s: s.__setitem__("logprob_context_token_ids", [served.vocab_size])):
        changed = copy.deepcopy(raw)
        change(changed)
        assert decode_checked(served.vocab, copy.deepcopy(changed), "qwen3") is not None
        assert decode_checked(served.vocab, changed, "qwen3", served, False) is None
        monkeypatch.setattr(stream_state_kept, "_ISSUED", {})
        outcome = _outcome(kind, {**body, "stream_state": changed})
        assert outcome[0] == "error" and outcome[2].startswith("stream_state.tito."), outcome
