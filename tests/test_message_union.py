"""Which message type vLLM 0.33 gives a message (its custom type or its role's OpenAI type):
``tito.core.message_union.custom_typed`` against vLLM's own pydantic union, recorded by
``conformance/record_message_union.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic
import pytest
from hypothesis import example, given, settings, strategies as st
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionContentPartParam,
    ChatCompletionContentPartRefusalParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionFunctionToolParam,
)

from tito.core.message_union import custom_typed, openai_part_fits, openai_refuses, typed_tools
from tito.protocol.chat import normalize_messages

GOLDEN = Path(__file__).resolve().parent.parent / "conformance" / "goldens" / "message_union.json"

_TOOLS = pydantic.TypeAdapter(list[ChatCompletionFunctionToolParam])


def test_custom_typed_matches_vllms_union() -> None:
    cases = json.loads(GOLDEN.read_text())["cases"]
    assert len(cases) > 500
    assert {c["custom"] for c in cases} == {True, False}
    wrong = [c for c in cases if custom_typed(c["message"]) != c["custom"]]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"


_STRICT = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(
    [0.0, 1.0, 0.5, "yes", "YES", "No", "t", "F", "on", "off", "1", "0", "true", "maybe", "",
     " yes", [], {}]))


@settings(max_examples=300, deadline=None)
@given(strict=_STRICT, name=st.one_of(st.text(max_size=3), st.integers()),
       description=st.one_of(st.none(), st.text(max_size=3)),
       parameters=st.one_of(st.none(), st.just({}), st.just([]), st.just({"a": 1})))
def test_typed_tools_validate_as_openais_typed_dict(strict, name, description, parameters
                                                    ) -> None:
    """A developer message's tools are typed as pydantic types them with openai's
    ``ChatCompletionFunctionToolParam`` (the reference): accepted or refused alike, ``strict``
    read as the same lax bool, the typed keys in declaration order."""
    fn = {"strict": strict, "parameters": parameters, "description": description, "name": name}
    tool = {"type": "function", "function": fn}  # extras: render_chat_messages' goldens
    try:
        want = _TOOLS.validate_python([tool])
    except pydantic.ValidationError:
        assert typed_tools([tool]) is False
        return
    got = typed_tools([tool])
    assert got == want
    assert [list(t) for t in got] == [["function", "type"]]
    assert list(got[0]["function"]) == ["name", "description", "parameters", "strict"]
    assert typed_tools(None) is None and typed_tools({"a": 1}) is False


#: each role's OpenAI content part union, as openai's types declare it (the reference vLLM 0.33's
#: lazily validated parts are checked against)
_PARTS = {
    "user": pydantic.TypeAdapter(ChatCompletionContentPartParam),
    "assistant": pydantic.TypeAdapter(
        ChatCompletionContentPartTextParam | ChatCompletionContentPartRefusalParam),
    "system": pydantic.TypeAdapter(ChatCompletionContentPartTextParam),
}
_VALUE = st.one_of(st.none(), st.integers(-1, 1), st.sampled_from(["", "u", "bogus"]),
                   st.just([]), st.just({}))
_STR = st.one_of(st.text(max_size=2), st.text(min_size=1, max_size=3), _VALUE)
#: per part type: its payload, well formed or not (openai's literals and one wrong value each)
_PAYLOADS = {
    "text": _STR, "refusal": _STR, "thinking": _STR, "input_text": _STR,
    "image_url": st.one_of(_VALUE, st.fixed_dictionaries(
        {"url": _STR}, optional={"detail": st.sampled_from(
            ["auto", "low", "high", "original", "bogus", None])})),
    "input_audio": st.one_of(_VALUE, st.fixed_dictionaries(
        {"data": _STR}, optional={"format": st.sampled_from(["wav", "mp3", "ogg", None])})),
    "file": st.one_of(_VALUE, st.fixed_dictionaries({}, optional={
        "file_data": _STR, "file_id": _STR, "filename": _STR, "x": _VALUE})),
}
_BREAKPOINT = st.one_of(_VALUE, st.fixed_dictionaries(
    {}, optional={"mode": st.sampled_from(["explicit", "auto", None]),
                  "ttl": st.sampled_from(["30m", "12h", "1h", None])}))


@st.composite
def _part(draw):
    """A content part: mostly a type with its own payload key, sometimes another key, an extra
    key or a ``prompt_cache_breakpoint``; or not an object at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(_STR)
    kind = draw(st.sampled_from(sorted(_PAYLOADS)))
    key = kind if draw(st.integers(0, 4)) else draw(st.sampled_from(sorted(_PAYLOADS)))
    part = {"type": kind, key: draw(_PAYLOADS[key])}
    if draw(st.integers(0, 3)) == 0:
        part["prompt_cache_breakpoint"] = draw(_BREAKPOINT)
    if draw(st.integers(0, 3)) == 0:
        part["extra"] = draw(_VALUE)
    return part


@settings(max_examples=1000, deadline=None)
@given(role=st.sampled_from(sorted(_PARTS)), part=_part())
@example(role="user", part={"type": "image_url", "image_url": {"url": "u", "detail": "low"}})
@example(role="user", part={"type": "input_audio", "input_audio": {"data": "d", "format": "wav"}})
@example(role="user", part={"type": "thinking", "thinking": "t"})
@example(role="assistant", part={"type": "image_url", "image_url": {"url": "u"}})
def test_openai_part_fits_as_openais_part_types(role, part) -> None:
    """A part of a message vLLM types as its role's OpenAI type fits as pydantic validates it
    against openai's part types (fuzz_render seed 701: a ``thinking`` part there is vLLM's 400)."""
    try:
        _PARTS[role].validate_python(part)
        want = True
    except pydantic.ValidationError:
        want = False
    assert openai_part_fits(role, part) is want


_ASSISTANT = pydantic.TypeAdapter(ChatCompletionAssistantMessageParam)
_VALUES = st.one_of(st.none(), st.integers(0, 2), st.sampled_from(["a", "{}", ""]))
_TYPED = st.dictionaries(st.sampled_from(["id", "name", "arguments", "x"]), _VALUES, max_size=3)


@settings(max_examples=200, deadline=None)
@given(key=st.sampled_from(["audio", "function_call"]), value=_TYPED,
       content=st.sampled_from([None, "x", "absent"]))
def test_assistant_typed_dicts_as_openais_when_content_is_null(key, value, content) -> None:
    """An assistant message whose content is null fits only OpenAI's assistant type, so its
    ``audio`` / ``function_call`` must be that type's typed dicts (``Audio``: an ``id``;
    ``FunctionCall``: ``name`` and ``arguments``), else vLLM 0.33's request is a schema 400
    (fuzz_render seed 320); with content, or none, vLLM's custom type takes it whatever they
    hold. The reference: openai's own type, validated by pydantic as vLLM's union does."""
    message: dict[str, object] = {"role": "assistant", key: value}
    if content != "absent":
        message["content"] = content
    try:
        normalize_messages([message])
        taken = True
    except ValueError:
        taken = False
    if content is None:
        try:
            _ASSISTANT.validate_python(message)
            fits = True
        except pydantic.ValidationError:
            fits = False
        assert taken == fits, message
    else:
        assert taken, message


def test_assistant_typed_dicts_answer_vllms_400() -> None:
    """End to end, the verdicts of vLLM 0.33's ``ChatCompletionRequest`` on these messages
    (recorded with its classes, 2026-12-04: ``FAIL`` = its 400)."""
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app

    client = TestClient(create_app(endpoints=["chat_render"]))
    calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    for message, status in (
            ({"content": None, "tool_calls": calls, "audio": {"name": "f"}}, 400),
            ({"content": None, "audio": {"id": "a", "x": 1}}, 200),
            ({"content": None, "audio": {"id": 5}}, 400),
            ({"content": "x", "audio": {"name": "f"}}, 200),
            ({"tool_calls": calls, "audio": {"name": "f"}}, 200),
            ({"content": None, "function_call": {"arguments": "{}"}}, 400),
            ({"content": None, "function_call": {"arguments": "{}", "name": "f"}}, 200),
            ({"content": "x", "function_call": {"arguments": "{}"}}, 200)):
        body = {"model": "qwen3", "messages": [{"role": "user", "content": "hi"},
                                               {"role": "assistant", **message}]}
        resp = client.post("/v1/chat/completions/render", json=body)
        assert resp.status_code == status, (message, resp.text)
        if status == 400:
            assert resp.json()["error"]["type"] == "Bad Request"


_FIELD_VALUES = st.one_of(_VALUES, _TYPED, st.lists(_VALUES, max_size=1))


@settings(max_examples=300, deadline=None)
@given(fields=st.dictionaries(st.sampled_from(["audio", "function_call", "refusal"]),
                              _FIELD_VALUES, max_size=3))
def test_openai_refuses_as_openais_assistant_type(fields) -> None:
    """``openai_refuses``: whether OpenAI's assistant type refuses the fields only it types
    (``function_call`` / ``audio`` typed dicts, ``refusal`` a string; each nullable), against
    openai's own type validated by pydantic as vLLM's union does (a string content, which
    both of vLLM's types take)."""
    message = {"role": "assistant", "content": "x", **fields}
    try:
        _ASSISTANT.validate_python(message)
        fits = True
    except pydantic.ValidationError:
        fits = False
    assert openai_refuses(message) is not fits, message


def test_a_message_openais_type_refuses_is_the_custom_types() -> None:
    """When OpenAI's assistant type refuses a field only it types, vLLM 0.33's union has only
    its custom type left: its parts are read permissively (a text part without its text), and
    a message it refuses too fits no type, the request's schema 400 (fuzz_render seed 755 case
    260: a part ``3`` beside ``function_call: []``; vLLM's verdicts in
    ``conformance/goldens/render_assistant_union.json``)."""
    textless = {"role": "assistant", "content": [{"type": "text"}], "function_call": []}
    assert custom_typed(textless)
    assert normalize_messages([textless])
    for fields in ({"content": [3], "function_call": []}, {"content": "x", "refusal": 5,
                                                            "task": 5},
                   {"content": "x", "function_call": [], "reasoning": 5},
                   {"content": "x", "audio": 5, "tools": 5}):
        with pytest.raises(ValueError, match="fits no message type"):
            normalize_messages([{"role": "assistant", **fields}])
    assert normalize_messages([{"role": "assistant", "content": [3], "function_call": None}])
