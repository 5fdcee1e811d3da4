"""Mistral v0.3 chat render: ids equal mistral-common's ``MistralTokenizer.v3().encode_chat_completion``.

The reference gets the same OpenAI-shaped request through ``ChatCompletionRequest.from_openai``;
conversations mistral-common refuses must be refused by tito too (400).
"""

from __future__ import annotations

import json

import pytest

from tito.errors import BadRequest
from tito.protocol import ChatCompletionRequest
from tito.service.render import RenderSettings, render_chat_request

pytest.importorskip("sentencepiece")
mistral_common = pytest.importorskip("mistral_common")

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the weather <now> & 'later' — vite",
        "parameters": {"type": "object",
                       "properties": {"city": {"type": "string", "description": "City name"},
                                      "unit": {"type": "string", "enum": ["c", "f"]}},
                       "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search the web",
                                      "parameters": {"type": "object",
                                                     "properties": {"q": {"type": "string"}}}}},
]


def call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


CONVERSATIONS = {
    "plain": dict(messages=[{"role": "user", "content": "Hello there"}]),
    "system_goes_to_last_user": dict(messages=[
        {"role": "system", "content": "Be nice."}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello! "}, {"role": "user", "content": "  how are you?\n"}]),
    "consecutive_users_merge": dict(messages=[
        {"role": "user", "content": "one"}, {"role": "user", "content": ""},
        {"role": "user", "content": "two"}]),
    "text_parts": dict(messages=[{"role": "user", "content": [
        {"type": "text", "text": "part a"}, {"type": "text", "text": "part b"}]}]),
    "unicode_and_whitespace": dict(messages=[{"role": "user", "content": "héllo wörld 😀 中文 \n  code\ttab"}]),
    "tools_offered": dict(messages=[{"role": "user", "content": "Weather in Paris?"}], tools=TOOLS),
    "tool_call_result_answer_followup": dict(messages=[
        {"role": "system", "content": "You are a bot."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None,
         "tool_calls": [call("abc123XYZ", "get_weather", {"city": "Paris", "unit": "c"})]},
        {"role": "tool", "tool_call_id": "abc123XYZ", "content": '{"temp": 21, "sky": "clear <ok>"}'},
        {"role": "assistant", "content": "It is 21C and clear."},
        {"role": "user", "content": "And London?"}], tools=TOOLS),
    "parallel_tool_calls_and_results": dict(messages=[
        {"role": "user", "content": "Weather in Paris and London?"},
        {"role": "assistant", "content": "", "tool_calls": [
            call("aaaaaaaa1", "get_weather", {"city": "Paris"}),
            call("bbbbbbbb2", "get_weather", {"city": "London"})]},
        {"role": "tool", "tool_call_id": "aaaaaaaa1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "bbbbbbbb2", "content": ""}], tools=TOOLS),
    "tool_result_json_is_normalised": dict(messages=[
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [call("ccccccccc", "search", {"q": "x y"})]},
        {"role": "tool", "tool_call_id": "ccccccccc", "content": '{"a":1,"b":[1,2]}'}], tools=TOOLS),
    "tool_result_scalar": dict(messages=[
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [call("ccccccccc", "search", {})]},
        {"role": "tool", "tool_call_id": "ccccccccc", "content": "42"}], tools=TOOLS),
    "assistant_first": dict(messages=[{"role": "assistant", "content": "I start."},
                                      {"role": "user", "content": "ok"}]),
    "only_system": dict(messages=[{"role": "system", "content": "S only"}]),
    "continue_final_message": dict(messages=[
        {"role": "user", "content": "Write a poem"},
        {"role": "assistant", "content": "Roses are red, "}],
        add_generation_prompt=False, continue_final_message=True),
}

REFUSED = {
    "system_after_assistant": [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"},
                               {"role": "system", "content": "late"}, {"role": "user", "content": "u2"}],
    "tool_after_user": [{"role": "user", "content": "u"},
                        {"role": "tool", "tool_call_id": "ccccccccc", "content": "x"}],
    "ends_with_assistant": [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}],
    "missing_tool_result": [{"role": "user", "content": "u"},
                            {"role": "assistant", "tool_calls": [call("ccccccccc", "search", {})]},
                            {"role": "assistant", "content": "x"}, {"role": "user", "content": "u"}],
}


@pytest.fixture(scope="module")
def mistral():
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    return MistralTokenizer.v3()


def reference(mistral, case: dict) -> list[int]:
    from mistral_common.protocol.instruct.request import ChatCompletionRequest as MistralRequest

    request = MistralRequest.from_openai(
        messages=json.loads(json.dumps(case["messages"])),
        tools=case.get("tools"),
        continue_final_message=bool(case.get("continue_final_message")),
    )
    return mistral.encode_chat_completion(request).tokens


def tito_ids(**case) -> list[int]:
    request = ChatCompletionRequest(model="mistral-v3", **case)
    return render_chat_request(request, settings=RenderSettings()).token_ids


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_ids_equal_mistral_common(name, mistral):
    case = CONVERSATIONS[name]
    assert tito_ids(**case) == reference(mistral, case)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_conversations_mistral_common_refuses_are_400(name, mistral):
    case = {"messages": REFUSED[name]}
    with pytest.raises(Exception):
        reference(mistral, case)
    with pytest.raises(BadRequest):
        tito_ids(**case)


def test_long_tool_ids_keep_their_last_nine_characters(mistral):
    long_id = "call_0123456789abcdefXYZ"
    case = {"messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [call(long_id, "search", {"q": "x"})]},
        {"role": "tool", "tool_call_id": long_id, "content": "r"}], "tools": TOOLS}
    short = json.loads(json.dumps(case).replace(long_id, long_id[-9:]))
    assert tito_ids(**case) == reference(mistral, short)


def test_tool_calls_keep_special_tokens_for_the_parser():
    request = ChatCompletionRequest(model="mistral-v3", **CONVERSATIONS["tools_offered"])
    result = render_chat_request(request, settings=RenderSettings())
    assert result.sampling_params.skip_special_tokens is False
    # derender honours the request's flag and keeps the format's own marker ([TOOL_CALLS])
    assert "skip_special_tokens" not in result.derender_context
    assert result.derender_context["tools"] == ["get_weather", "search"]


def test_assistant_mask_covers_assistant_turns(vocabs):
    request = ChatCompletionRequest(
        model="mistral-v3", return_assistant_tokens_mask=True,
        messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello you"},
                  {"role": "user", "content": "bye"}])
    result = render_chat_request(request, settings=RenderSettings())
    masked = [t for t, m in zip(result.token_ids, result.assistant_tokens_mask) if m]
    assert vocabs["mistral-v3"].decode(masked, skip_special_tokens=False) == "Hello you</s>"


# -- generated conversations -----------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TEXT = st.text(alphabet=st.sampled_from(list("abcXYZ 019.,:;!?'\"{}<>-_\n\té中😀")), max_size=24)
_ID = st.text(alphabet=st.sampled_from(list("abcdefXYZ0123456789")), min_size=9, max_size=9)


@st.composite
def conversations(draw):
    messages = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_TEXT.filter(bool))})
    for _ in range(draw(st.integers(1, 3))):
        for _ in range(draw(st.integers(1, 2))):
            content = draw(_TEXT)
            if draw(st.booleans()):
                content = [{"type": "text", "text": content}, {"type": "text", "text": draw(_TEXT)}]
            messages.append({"role": "user", "content": content})
        if draw(st.booleans()):
            ids = draw(st.lists(_ID, min_size=1, max_size=2, unique=True))
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                call(i, draw(st.sampled_from(["get_weather", "search"])), {"q": draw(_TEXT)}) for i in ids]})
            for i in ids:
                messages.append({"role": "tool", "tool_call_id": i,
                                 "content": draw(st.one_of(_TEXT, st.just('{"ok": true, "n": [1, 2]}')))})
            if draw(st.booleans()):
                messages.append({"role": "assistant", "content": draw(_TEXT.filter(lambda t: t.strip()))})
        else:
            messages.append({"role": "assistant", "content": draw(_TEXT.filter(lambda t: t.strip()))})
    messages.append({"role": "user", "content": draw(_TEXT)})
    return {"messages": messages, "tools": TOOLS if draw(st.booleans()) else None}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=conversations())
def test_generated_conversations_equal_mistral_common(case, mistral):
    assert tito_ids(**case) == reference(mistral, case)
