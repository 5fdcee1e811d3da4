"""tito.service.chat_body: the hand-checked chat body is the validated request, or None.

Reference: ``ChatCompletionRequest.model_validate`` (pydantic, the request model's own rules) on
generated bodies, good, bad and mutated: whenever :func:`read` answers, validation gives the
same request (values, fields set, extras) and the render answers are the same bytes; when
validation fails, :func:`read` answers None (the app then reports pydantic's error).
"""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tito.adapters.splice import dump_json
from tito.errors import TitoError
from tito.protocol import ChatCompletionRequest
from tito.service.chat_body import _CHECKS, read
from tito.service.render import render_chat_wire

_FIELDS = sorted(ChatCompletionRequest.model_fields)
_SCALARS = st.sampled_from([
    None, True, False, 0, 1, -1, 2, 7, 1024, 2**53 + 1, 2**63, -(2**63) - 1, 0.0, 0.5, 1.0, 2.5,
    -0.5, math.inf, math.nan, "", "x", "qwen3", "auto", "none", "left", [], [1, 2], [-1], ["a"],
    [True], {}, {"k": 1}, {"enable_thinking": False}, {"include_usage": True}, {"type": "text"},
])
_MESSAGES = st.sampled_from([
    [{"role": "user", "content": "Hi!"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}],
    [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello",
                                         "reasoning_content": "greet"}],
    [{"role": "user", "content": [{"type": "text", "text": "part"}]}],
    [{"role": "user", "content": None}],
    [{"role": "user"}],
    [{"content": "no role"}],
    ["not a dict"],
    [],
    "not a list",
    [{"role": "assistant", "content": None, "tool_calls": [{"id": "1", "type": "function",
      "function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "1",
                                                         "content": "ok"}],
    [{"role": "user", "content": "x", "name": 5}],
])


#: a value of each kind the hand check knows (often valid, sometimes out of bounds)
_TYPED = {
    "bool": st.booleans(), "int": st.integers(-3, 40) | st.sampled_from([2**63, -(2**63) - 1]),
    "float": st.floats(-3, 3) | st.integers(-2, 3), "str": st.sampled_from(["", "a", "qwen3"]),
    "dict": st.sampled_from([{}, {"enable_thinking": False}, {"k": [1]}]),
    "ids": st.lists(st.integers(-1, 5), max_size=3), "strs": st.lists(st.sampled_from(["a", "b"]),
                                                                       max_size=2),
}


_GOOD_MESSAGES = st.sampled_from([
    [{"role": "user", "content": "Hi!"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}],
])


@st.composite
def bodies(draw):
    body = {"messages": draw(_GOOD_MESSAGES if draw(st.booleans()) else _MESSAGES)}
    if draw(st.booleans()):
        body["model"] = draw(st.sampled_from(["qwen3", "gpt2", None, 3]))
    for key in draw(st.sets(st.sampled_from([*_FIELDS, "unknown_key"]), max_size=6)):
        if key == "messages":
            continue
        check = _CHECKS.get(key)
        typed = check is not None and draw(st.integers(0, 3)) > 0
        body[key] = draw(_TYPED[check.kind] | st.none() if typed else _SCALARS)
    if draw(st.integers(0, 9)) == 0:
        body.pop("messages", None)
    return body


@settings(max_examples=400, deadline=None)
@given(bodies())
def test_read_is_validation_or_none(body):
    fast = read(body)
    try:
        expected = ChatCompletionRequest.model_validate(body)
    except (ValidationError, TitoError):
        assert fast is None
        return
    if fast is None:
        return
    assert fast.model_fields_set == expected.model_fields_set
    assert fast.model_extra == expected.model_extra
    for name in ChatCompletionRequest.model_fields:
        if name == "request_id" and "request_id" not in body:
            continue  # a fresh random id each
        a, b = getattr(fast, name), getattr(expected, name)
        assert type(a) is type(b) and json.dumps(a, default=str) == json.dumps(b, default=str), name


def test_common_bodies_take_the_hand_check():
    body = {"model": "qwen3", "messages": [{"role": "system", "content": "Be brief."},
                                           {"role": "user", "content": "Hi"}],
            "temperature": 1, "top_p": 0.9, "max_completion_tokens": 64, "seed": 3,
            "stream": False, "request_id": "r", "chat_template_kwargs": {"enable_thinking": False}}
    fast = read(body)
    assert fast is not None and fast.temperature == 1.0 and type(fast.temperature) is float
    expected = ChatCompletionRequest.model_validate(body)
    assert dump_json(render_chat_wire(fast)) == dump_json(render_chat_wire(expected))
    assert fast.messages is not body["messages"]  # copied, as pydantic does
    # the model's own validators still run: these are refused or left to pydantic
    for extra in ({"add_generation_prompt": True, "continue_final_message": True},
                  {"top_logprobs": 3}, {"temperature": "1"}, {"tools": []}, {"stop": "x"},
                  {"unknown": 1}, {"cache_salt": "a/b"}, {"n": True}):
        assert read({**body, **extra}) is None, extra


@settings(max_examples=150, deadline=None)
@given(bodies())
def test_same_render_answer(body):
    fast = read({**body, "request_id": "r"})
    if fast is None:
        return
    expected = ChatCompletionRequest.model_validate({**body, "request_id": "r"})

    def outcome(request):
        try:
            return dump_json(render_chat_wire(request, header_request_id=None))
        except TitoError as exc:
            return (exc.status, exc.type, exc.message, exc.param)

    assert outcome(fast) == outcome(expected)
