"""Chat messages at the edges of vLLM 0.33's message union, as properties on real tokenizers.

The goldens (``render_message_edges``, recorded from vLLM) pin each case; these tests state
the rules behind them as invariants over drawn values: what a message type ignores changes no
prompt id, an empty object content is no parts, a ``""`` role is a message the template skips,
and what no member of the union takes is a 400 in OpenAI's error shape.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1]))
from conformance import replay  # noqa: E402

CHAT, TOKENIZE = "/v1/chat/completions/render", "/tokenize"
USER = {"role": "user", "content": "hi"}
MODELS = ("qwen3", "gpt-oss", "mistral-v3")
#: JSON values a message type without ``tool_calls`` ignores (strings, objects: iterable)
_IGNORED_CALLS = st.one_of(st.text(max_size=4), st.dictionaries(
    st.text(max_size=3), st.integers(), max_size=2), st.lists(st.integers(), max_size=2))


@pytest.fixture(scope="module")
def tito() -> replay.Tito:
    return replay.Tito()


def _ids(tito: replay.Tito, model: str, path: str, messages: list[Any]) -> Any:
    status, body = tito.post(path, {"model": model, "messages": messages})
    if status != 200:
        return status, body["error"]["type"], body["error"]["message"]
    return body["token_ids" if path == CHAT else "tokens"]


def _refused(tito: replay.Tito, model: str, path: str, messages: list[Any]) -> str:
    status, body = tito.post(path, {"model": model, "messages": messages})
    assert status == 400, body
    assert set(body["error"]) >= {"message", "type", "param", "code"}
    return body["error"]["message"]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("path", (CHAT, TOKENIZE))
@pytest.mark.parametrize("role", ("user", "system", "developer"))
def test_empty_object_content_is_no_parts(tito: replay.Tito, model: str, path: str,
                                          role: str) -> None:
    """An OpenAI role type iterates its content: ``{}`` yields no part, as ``[]``; an object
    with keys yields its keys, which are no parts (400)."""
    empty = _ids(tito, model, path, [USER, {"role": role, "content": []}, USER])
    assert isinstance(empty, list)
    assert _ids(tito, model, path, [USER, {"role": role, "content": {}}, USER]) == empty
    if not (model == "gpt-oss" and path == TOKENIZE):  # (its dump drops lazy parts unread)
        _refused(tito, model, path, [USER, {"role": role, "content": {"a": 1}}, USER])


@pytest.mark.parametrize("path", (CHAT, TOKENIZE))
def test_empty_role_is_a_custom_message_the_template_skips(tito: replay.Tito, path: str) -> None:
    alone = _ids(tito, "qwen3", path, [USER])
    for msg in ({"role": "", "content": "x"}, {"role": ""}, {"role": "", "content": [
            {"type": "text", "text": "x"}]}):
        assert _ids(tito, "qwen3", path, [msg, USER]) == alone
    assert "role" in _refused(tito, "qwen3", path, [{"role": 3, "content": "x"}, USER])


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("role", ("user", "system", "developer", "assistant", "function",
                                  "custom", ""))
def test_null_name_fits_no_member(tito: replay.Tito, model: str, role: str) -> None:
    msg = {"role": role, "content": "hi", "name": None}
    for path in (CHAT, TOKENIZE):
        _refused(tito, model, path, [USER, msg, USER])


@pytest.mark.parametrize("model", MODELS)
def test_null_name_of_an_openai_tool_message_is_ignored(tito: replay.Tito, model: str) -> None:
    call = {"id": "abcdefghi", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    convo = [USER, {"role": "assistant", "content": None, "tool_calls": [call]},
             {"role": "tool", "content": "r", "tool_call_id": "abcdefghi"}]
    plain = _ids(tito, model, CHAT, convo)
    assert isinstance(plain, list)
    convo[-1] = {**convo[-1], "name": None}
    assert _ids(tito, model, CHAT, convo) == plain


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=_IGNORED_CALLS, role=st.sampled_from(("user", "system", "developer")))
def test_calls_of_a_type_without_them_change_nothing(tito: replay.Tito, calls: Any,
                                                     role: str) -> None:
    """A template model: the OpenAI user / system / developer types have no ``tool_calls``, so
    any iterable there renders as without it (the chat request lists it first; ``/tokenize``
    takes any value)."""
    msg = {"role": role, "content": "hi"}
    for path in (CHAT, TOKENIZE):
        assert _ids(tito, "qwen3", path, [msg, {**msg, "tool_calls": calls}, USER]) == _ids(
            tito, "qwen3", path, [msg, msg, USER])


@pytest.mark.parametrize("value", (0, 1.5, True))
def test_non_iterable_calls_are_the_chat_requests_type_error(tito: replay.Tito,
                                                             value: Any) -> None:
    msg = {"role": "user", "content": "hi", "tool_calls": value}
    assert "object is not iterable" in _refused(tito, "qwen3", CHAT, [msg])
    assert _ids(tito, "qwen3", TOKENIZE, [msg]) == _ids(tito, "qwen3", TOKENIZE, [USER])


@pytest.mark.parametrize("model", ("qwen3", "gpt-oss"))
@pytest.mark.parametrize("calls", ("", {}))
def test_an_assistants_empty_iterable_is_no_calls(tito: replay.Tito, model: str,
                                                  calls: Any) -> None:
    plain = [USER, {"role": "assistant", "content": "ok"}, USER]
    with_calls = [USER, {"role": "assistant", "content": "ok", "tool_calls": calls}, USER]
    for path in (CHAT, TOKENIZE):
        assert _ids(tito, model, path, with_calls) == _ids(tito, model, path, plain)
    _refused(tito, model, CHAT, [USER, {"role": "assistant", "content": "ok",
                                        "tool_calls": "ab"}, USER])


@pytest.mark.parametrize("model", MODELS)
def test_null_content_beside_null_calls_fits_no_member(tito: replay.Tito, model: str) -> None:
    for path in (CHAT, TOKENIZE):
        _refused(tito, model, path, [USER, {"role": "assistant", "content": None,
                                            "tool_calls": None}, USER])
        assert isinstance(_ids(tito, model, path, [USER, {"role": "assistant", "content": "ok",
                                                          "tool_calls": None}, USER]), list)


def test_gpt_oss_reads_every_messages_calls(tito: replay.Tito) -> None:
    """Harmony's first pass iterates each message's calls: a user's null is its TypeError on
    the chat render, gone from ``/tokenize``'s dump; calls of strings are tito's 400 (vLLM's
    500)."""
    msg = {"role": "user", "content": "hi", "tool_calls": None}
    assert "'NoneType' object is not iterable" in _refused(tito, "gpt-oss", CHAT, [msg])
    assert _ids(tito, "gpt-oss", TOKENIZE, [msg]) == _ids(tito, "gpt-oss", TOKENIZE, [USER])
    for path in (CHAT, TOKENIZE):
        _refused(tito, "gpt-oss", path, [{**msg, "tool_calls": "ab"}])
        _refused(tito, "gpt-oss", path, [{**msg, "tool_calls": [{"id": [1], "function": {}}]}])


def test_mistral_tokenize_refuses_an_openai_assistants_calls(tito: replay.Tito) -> None:
    """mistral-common gets the OpenAI assistant type's lazy iterable from vLLM's ``/tokenize``
    (even ``[]`` beside a string content: the union's tie goes to the OpenAI type); the chat
    request lists it."""
    convo = [USER, {"role": "assistant", "content": "ok", "tool_calls": []}, USER]
    assert "tool_calls" in _refused(tito, "mistral-v3", TOKENIZE, convo)
    assert isinstance(_ids(tito, "mistral-v3", CHAT, convo), list)


@pytest.mark.parametrize("path", (CHAT, TOKENIZE))
@pytest.mark.parametrize("reasoning", ({}, 5, {"data": "x"}, ["r"]))
def test_a_reasoning_the_custom_type_refuses_makes_the_parts_strict(
        tito: replay.Tito, path: str, reasoning: Any) -> None:
    """The custom type (lenient parts: a text part without text is skipped) types
    ``reasoning`` as a string, null or a prompt_embeds part; any other value leaves the
    message to its role's OpenAI type, whose parts are checked as they are read."""
    lenient = {"role": "user", "content": [{"type": "text"}, {"type": "text", "text": "b"}]}
    assert isinstance(_ids(tito, "qwen3", path, [USER, lenient]), list)
    assert isinstance(_ids(tito, "qwen3", path, [USER, {**lenient, "reasoning": "r"}]), list)
    _refused(tito, "qwen3", path, [USER, {**lenient, "reasoning": reasoning}])


@pytest.mark.parametrize("model", ("qwen3", "mistral-v3"))
def test_prompt_embeds_are_refused_wherever_they_are(tito: replay.Tito, model: str) -> None:
    embeds = {"type": "prompt_embeds", "data": "AAAA"}
    for msg in ({"role": "user", "content": [embeds]},
                {"role": "user", "content": "a", "reasoning": embeds},
                {"role": "assistant", "content": "a", "reasoning": embeds}):
        assert "--enable-prompt-embeds" in _refused(tito, model, CHAT, [USER, msg])
    empty = {"role": "assistant", "content": "a", "reasoning": {"type": "prompt_embeds"}}
    assert "non-empty `data`" in _refused(tito, model, CHAT, [USER, empty])


_TEXT_PARTS = [{"type": "text", "text": "hello there"}]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(role=st.sampled_from(("user", "system", "developer")),
       calls=st.sampled_from(("", {})), spoil=st.sampled_from(({}, 5, [1], True)))
def test_gptoss_tokenize_keeps_lazy_parts_only_when_relisted(tito: replay.Tito, role: str,
                                                             calls: Any, spoil: Any) -> None:
    """gpt-oss's ``/tokenize`` dumps its body and validates a chat request from it: a lazily
    held content (the message is its role's OpenAI type: a ``tool_calls`` the custom type
    refuses) keeps its parts when the chat request's listed ``tool_calls`` make the custom type
    take it, as the same text as a string content; a ``reasoning`` that type refuses spends
    them (no content, the same ids as ``[]``)."""
    kept = _ids(tito, "gpt-oss", TOKENIZE, [{"role": role, "content": _TEXT_PARTS,
                                              "tool_calls": calls}])
    assert kept == _ids(tito, "gpt-oss", TOKENIZE, [{"role": role, "content": "hello there"}])
    spent = _ids(tito, "gpt-oss", TOKENIZE, [{"role": role, "content": _TEXT_PARTS,
                                               "tool_calls": calls, "reasoning": spoil}])
    assert spent == _ids(tito, "gpt-oss", TOKENIZE, [{"role": role, "content": [],
                                                       "reasoning": spoil}])
    assert isinstance(spent, list) and spent != kept


_INK_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize("extra,lazy", [({"tool_calls": "x"}, True), ({"reasoning": {}}, True),
                                        ({"task": 5}, True), ({"reasoning": "r"}, False),
                                        ({"tool_calls": ""}, False)])
def test_inkling_refuses_openai_typed_parts(tito: replay.Tito, extra: dict[str, Any],
                                            lazy: bool) -> None:
    """Inkling's encoding refuses a part list vLLM's chat body leaves an unread iterable: the
    message is its role's OpenAI type when the custom type refuses it (the calls listed first:
    ``"x"`` is a call that is a string, ``""`` none)."""
    msgs = [USER, {"role": "user", "content": [{"type": "text", "text": "a"}], **extra}]
    status, body = tito.post(CHAT, {"model": "inkling", "messages": msgs})
    assert (status, body.get("error", {}).get("message")) == (
        (400, "message content must be a string or a sequence of parts") if lazy
        else (200, None))


@pytest.mark.parametrize("extra,written", [({"reasoning": {}}, False), ({"tool_call_id": 5}, False),
                                           ({"reasoning_content": {}}, True), ({}, True)])
def test_inkling_tokenize_writes_only_a_custom_typed_assistants_calls(
        tito: replay.Tito, extra: dict[str, Any], written: bool) -> None:
    """vLLM's tokenize body (no rename: ``reasoning_content`` is an extra key) types an
    assistant as OpenAI's when its custom type refuses it; those calls are consumed before the
    encoding reads them, so the prompt is that of the same turn without calls."""
    turn = {"role": "assistant", "content": "b", **extra}
    with_calls = _ids(tito, "inkling", TOKENIZE, [USER, {**turn, "tool_calls": [_INK_CALL]}, USER])
    without = _ids(tito, "inkling", TOKENIZE, [USER, turn, USER])
    assert isinstance(with_calls, list) and isinstance(without, list)
    assert (with_calls != without) is written
