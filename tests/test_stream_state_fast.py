"""The stream state codec's hand-checked paths give the generic validation's results and errors.

``tito.service.stream_state.decode`` checks the common ``tito`` object and choice state by hand
(``_tito_fast``, ``_config``, ``_choice_fast``) and ``encode`` writes ``tito.st`` field by field
(``_st_dump``); anything unusual goes to the generic ``State.model_validate``. The reference is
that generic path (the fast ones switched off): real states from real streams (qwen3 with its
reasoning and hermes tool parsers, stop strings held back and fired, logprobs, gpt2 completions
with echo), decoded the same, dumped the same, round-tripped; and the same states with one field
replaced by an arbitrary JSON value, decoded to the same state or refused with the same error.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from tito.errors import BadRequest
from tito.models import get_registry
from tito.protocol import DerenderChatBody, DerenderCompletionBody
from tito.service import derender, stream_state

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
QWEN_OUT = ("<think>\nweather? 中文 😀\n</think>\n\nLet me check.\n<tool_call>\n"
            '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')
GPT2_OUT = " The quick brown fox 😀 jumps over the lazy dog; café STOP and more"

#: (model, request settings, output text): each a stream whose states the tests decode
STREAMS: list[tuple[str, dict[str, Any], str]] = [
    ("qwen3", {}, QWEN_OUT),
    ("qwen3", {"tools": TOOLS, "tool_choice": "auto"}, QWEN_OUT),
    ("qwen3", {"stop": ["Paris", "check"], "logprobs": True, "top_logprobs": 2}, QWEN_OUT),
    ("qwen3", {"chat_template_kwargs": {"enable_thinking": False}, "stop": ["zz"],
               "include_stop_str_in_output": True, "n": 2}, QWEN_OUT),
    ("gpt2", {"stop": ["STOP"], "echo": True, "min_tokens": 2}, GPT2_OUT),
    ("gpt2", {"skip_special_tokens": False, "return_token_ids": True}, GPT2_OUT + "<|endoftext|>"),
]


def _stream_states(model: str, settings_: dict[str, Any], text: str) -> list[dict[str, Any]]:
    served = get_registry().get(model)
    ids = served.vocab.encode(text)
    completion = model == "gpt2"
    adapter = TypeAdapter(DerenderCompletionBody if completion else DerenderChatBody)
    run = derender.handle_completions if completion else derender.handle_chat
    states, state = [], None
    for k, token in enumerate(ids):
        choice: dict[str, Any] = {"index": 0, "token_ids": [token], "finish_reason": None}
        if settings_.get("logprobs"):
            choice["logprobs"] = {"content": [{"token_id": token, "logprob": -0.5,
                                               "top_logprobs": [{"token_id": token,
                                                                 "logprob": -0.5}]}]}
        body: dict[str, Any] = {"stream": True, "model": model, "stream_state": state,
                                "generate_chunk": {"request_id": f"generate-tokens-{model}",
                                                   "choices": [choice]}}
        if k == 0:
            request = {"prompt": "Hi", **settings_} if completion else {
                "messages": [{"role": "user", "content": "hi"}], **settings_}
            body["completion_request" if completion else "chat_request"] = request
            body["prompt_token_ids"] = served.vocab.encode("Hi")
        state = json.loads(json.dumps(run(adapter.validate_python(body))["stream_state"]))
        states.append(state)
        if state["stop_fired"]:
            break
    return states


@pytest.fixture(scope="module")
def states() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for model, settings_, text in STREAMS:
        out += [(model, s) for s in _stream_states(model, settings_, text)]
    return out


def _decode(model: str, raw: dict[str, Any], *, fast: bool) -> Any:
    vocab = get_registry().get(model).vocab
    with pytest.MonkeyPatch.context() as m:
        if not fast:
            m.setattr(stream_state, "_tito_fast", lambda raw: None)
            m.setattr(stream_state, "_choice_fast", lambda st, detok, raw: None)
        try:
            loaded = stream_state.decode(vocab, copy.deepcopy(raw), model=model)
        except BadRequest as exc:
            return ("error", exc.message, exc.param)
    if loaded is None:  # no tito object: vLLM's fields alone
        return ("vllm",)
    meta, cfg, state = loaded
    return ("ok", meta.model_dump(), cfg.model_dump(), state.model_dump())


def _generic_st(state: Any) -> dict[str, Any]:
    st_ = state.model_dump(mode="json", exclude={"detok", "role_sent", "lp_context",
                                                 "text_offset"}, exclude_defaults=True)
    if isinstance(st_.get("stop"), dict):
        st_["stop"].pop("held", None)
    return st_


def test_real_states_decode_dump_and_round_trip_as_the_generic_path(
        states: list[tuple[str, dict[str, Any]]]) -> None:
    kinds = set()
    for model, raw in states:
        fast = _decode(model, raw, fast=True)
        assert fast == _decode(model, raw, fast=False)
        assert fast[0] == "ok"
        vocab = get_registry().get(model).vocab
        meta, cfg, state = stream_state.decode(vocab, raw, model=model)
        assert list(stream_state._st_dump(state).items()) == list(_generic_st(state).items())
        again = stream_state.encode(vocab, meta, cfg, state)
        # the state comes back exactly as it was issued (the first one of a parser stream also
        # carried its ids for vLLM-style replay; a held stop-token candidate rides there)
        held = [state.pending] if state.pending is not None else []
        assert again == {**raw, "output_token_ids": held, "output_chunk_lens": [1] * len(held)}
        kinds.update(raw["tito"]["st"])
    # the streams reach every kind of carried state the fast paths handle
    assert {"stop", "reasoning", "tools", "tokens"} <= kinds


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**64) | st.floats(allow_nan=False)
    | st.text(max_size=4) | st.sampled_from(["qwen3", "gpt2", "done", "think", "pre"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=6)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_tampered_states_decode_or_fail_as_the_generic_path(
        states: list[tuple[str, dict[str, Any]]], data: st.DataObject) -> None:
    model, raw = states[data.draw(st.integers(0, len(states) - 1))]
    raw = copy.deepcopy(raw)
    # vLLM's own fields keep their wire types (the protocol model or stream_body checked them)
    raw["held_text"] = data.draw(st.sampled_from(["", raw["held_text"], "Par", "x" * 300]))
    raw["logprob_text_offset"] = data.draw(st.sampled_from([0, raw["logprob_text_offset"], 7]))
    raw["logprob_context_token_ids"] = data.draw(st.lists(st.integers(0, 2**40), max_size=5))
    raw["role_sent"] = data.draw(st.booleans())
    path = data.draw(st.sampled_from(_paths(raw["tito"], ("tito",))))
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    parent = raw
    for key in path[:-1]:
        parent = parent[key]
    if action == "replace" or isinstance(parent, list):
        parent[path[-1]] = data.draw(json_values)
    elif action == "delete":
        del parent[path[-1]]
    elif isinstance(parent.get(path[-1]), dict):
        parent[path[-1]][data.draw(st.sampled_from(
            ["tokens", "stop", "held", "phase", "tool_params", "x", "detok", "sig"]))] = \
            data.draw(json_values)
    assert _decode(model, raw, fast=True) == _decode(model, raw, fast=False)


canonical_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8)
    | st.sampled_from(["\x7f", "é", "Ġthe", "中文", "😀", "a\\xb", "\\x41", "\x00\x1f\n",
                      "\ud7ff\ue000\uffff", "\ud800x"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.text(max_size=5), canonical_values, max_size=5))
def test_canonical_json_is_the_standard_encoders(value: dict[str, Any]) -> None:
    """The signature's canonical JSON (orjson, then ``ensure_ascii``'s escapes) is byte for byte
    ``json.dumps(sort_keys=True, separators=(",", ":"))`` of every float-free state (so states
    signed by any tito release verify on any other)."""
    expected = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    assert stream_state._canonical(value) == expected


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.text(max_size=5), canonical_values, max_size=5))
def test_signed_json_is_the_standard_encoders_utf8(value: dict[str, Any]) -> None:
    """What a signature covers (orjson's bytes) is byte for byte ``json.dumps(sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)`` in UTF-8 of every float-free state; one orjson
    cannot write (a lone surrogate, an integer past 64 bits) is its escaped form."""
    try:
        expected = json.dumps(value, sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False).encode()
        orjson.dumps(value)
    except (UnicodeEncodeError, TypeError):
        expected = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    assert stream_state._canonical_utf8(value) == expected


metas = st.builds(
    stream_state.StreamMeta, model=st.sampled_from(["qwen3", "gpt2"]),
    id=st.sampled_from(["r", "generate-tokens-x"]), created=st.integers(0, 3),
    index=st.integers(0, 2), prompt_tokens=st.none() | st.integers(0, 5), n=st.integers(1, 3),
    ext=st.none() | st.dictionaries(st.text(max_size=3), json_values, max_size=4))


@settings(max_examples=300, deadline=None)
@given(sequence=st.lists(metas, min_size=1, max_size=4))
def test_meta_dump_is_the_generic_dump(sequence: list[Any]) -> None:
    """``encode``'s meta dump (remembered for the last meta, or its fields but ``ext`` when
    ``ext`` holds scalars) equals ``model_dump(exclude_defaults=True)``, key order included, for
    any sequence of metas (each dumped twice: the remembered path too)."""
    for meta in sequence:
        for _ in range(2):
            got = stream_state._meta_dump(meta)
            expected = meta.model_dump(exclude_defaults=True)
            assert list(got.items()) == list(expected.items())
            assert json.dumps(got) == json.dumps(expected)


def _thinking_states(states: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [raw["tito"]["st"]["reasoning"] for _, raw in states
            if raw["tito"]["st"].get("reasoning", {}).get("reasoning_tokens")]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), count=st.integers(-2, 2**64) | st.booleans() | st.none()
       | st.floats(allow_nan=False) | st.text(max_size=2))
def test_a_parser_state_of_a_new_count_is_the_validated_one(
        states: list[tuple[str, dict[str, Any]]], data: st.DataObject, count: Any) -> None:
    """``_parser_state`` finds a thinking block's state by its value without the reasoning
    count and copies it with the count: the same state (or the same refusal) as validating the
    whole value, for every count, whether the value was seen before or not."""
    from tito.core.parsers.harmony_state import HarmonyState
    from tito.core.parsers.inkling_state import InklingState
    from tito.core.parsers.muse_state import MuseState
    from tito.core.parsers.reasoning import ReasoningState
    from tito.core.state import StateError
    from tito.service import stream_state_fast

    assert stream_state_fast._COUNTED == {ReasoningState, HarmonyState, MuseState, InklingState}
    thinking = _thinking_states(states)
    assert thinking  # the qwen3 streams think
    cls, base = data.draw(st.sampled_from(
        [(ReasoningState, raw) for raw in thinking]
        + [(HarmonyState, {"reasoning_tokens": 3}), (HarmonyState, {"counts": True, "calls": 1})]
        + [(MuseState, {"phase": "body", "kind": "reasoning", "counts": True,
                        "tools": {"phase": "text"}})]
        + [(InklingState, {"phase": "reasoning", "counting": True, "ws": " ",
                           "tools": {"phase": "text"}})]))
    raw = {**base, "reasoning_tokens": count}
    try:
        expected: Any = cls.model_validate(copy.deepcopy(raw)).model_dump()
    except StateError as exc:
        expected = ("error", str(exc))
    without = {k: v for k, v in base.items() if k != "reasoning_tokens"}  # (count 0)
    for _ in range(2):  # a value not seen, then seen
        stream_state_fast._PARSER_STATES.clear()
        for first in (base, without, None):  # found with another count, with none, or new
            if first is not None:
                stream_state_fast._parser_state(cls, first)
            try:
                got: Any = stream_state_fast._parser_state(cls, copy.deepcopy(raw)).model_dump()
            except StateError as exc:
                got = ("error", str(exc))
            assert got == expected
            assert (stream_state_fast._parser_state(cls, without).model_dump()
                    == cls.model_validate(without).model_dump())
            assert (stream_state_fast._parser_state(cls, base).model_dump()
                    == cls.model_validate(base).model_dump())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_reasoning_dump_by_its_fields_but_the_count_is_the_generic_dump(
        states: list[tuple[str, dict[str, Any]]], data: st.DataObject) -> None:
    """``_st_dump`` writes a reasoning state from the dump of the first one seen with the same
    fields but the count: the generic dump, keys in order, whatever the count and the other
    fields (the states of real streams, and of every phase with counts around 0)."""
    from tito.core.parsers.reasoning import ReasoningState
    from tito.service import stream_state_fast

    bases = [ReasoningState.model_validate(raw["tito"]["st"]["reasoning"])
             for _, raw in states if "reasoning" in raw["tito"]["st"]]
    assert bases
    base = data.draw(st.sampled_from(bases))
    update = data.draw(st.fixed_dictionaries({}, optional={
        "phase": st.sampled_from(["pre", "think", "done"]), "held": st.sampled_from(["", "<"]),
        "opened": st.booleans(), "ws": st.sampled_from(["", " "]),
        "lead": st.sampled_from(["", "x"]), "cbegun": st.booleans(),
        "start_id": st.none() | st.integers(0, 9),
        # a multi-id marker's ids and held ids (kimi_k3, plamo3): lists, not hashable
        "start_ids": st.sampled_from([[], [1, 2, 3]]), "id_held": st.sampled_from([[], [1]]),
        "id_depth": st.sampled_from([0, 1, 7])}))  # (the depth counter's rows: deepseek_r1...)
    if data.draw(st.booleans()):
        stream_state_fast._REASONING_DUMPS.clear()
    for count in data.draw(st.lists(st.integers(0, 2**40), min_size=1, max_size=4)):
        state = base.model_copy(update={**update, "reasoning_tokens": count})
        got = stream_state_fast._reasoning_dump(state)
        assert list(got.items()) == list(state.model_dump(exclude_defaults=True).items())
