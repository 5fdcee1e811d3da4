"""Prompt-building pieces on plain data: message normalisation, masks, truncation, prompt shapes."""

from __future__ import annotations

import copy
import json

import pytest

from tito.core.render import (
    assistant_mask,
    normalize_completion_prompts,
    normalize_messages,
    prompt_reasoning_ended,
    truncate,
)
from tito.errors import BadRequest

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


def test_messages_for_a_string_template():
    messages = [
        {"role": "developer", "content": "rules", "name": None},
        {"role": "user", "content": [{"type": "text", "text": "a"}, IMAGE, "b"]},
        {"role": "assistant", "content": None, "reasoning_content": "hmm", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": [1, "<y>"]}'}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": ""}},
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    before = copy.deepcopy(messages)
    out = normalize_messages(messages)
    assert messages == before  # input untouched
    system, user, assistant, tool = out.messages
    assert system == {"role": "system", "content": "rules"}
    assert user == {"role": "user", "content": "a\nb"}
    assert assistant["content"] == ""
    assert assistant["reasoning"] == assistant["reasoning_content"] == "hmm"
    assert "thinking" not in assistant  # vLLM 0.33 (conformance golden render_chat_messages)
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [{"x": [1, "<y>"]}, {}]
    assert tool == {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    assert out.media_parts == [IMAGE] and out.media_parts[0] is not IMAGE


def test_messages_for_an_openai_format_template():
    out = normalize_messages(
        [{"role": "developer", "content": "x"}, {"role": "user", "content": [IMAGE, {"type": "text", "text": "hi"}]},
         {"role": "assistant", "content": None}],
        content_format="openai", keep_developer_role=True,
    )
    # vLLM 0.33 gives a kept developer message its `tools`, even null (render_chat_messages)
    assert out.messages[0] == {"role": "developer", "content": [{"type": "text", "text": "x"}],
                               "tools": None}
    assert out.messages[1]["content"] == [{"type": "image"}, {"type": "text", "text": "hi"}]
    assert out.messages[2]["content"] == []


def test_tool_text_parts_become_one_string_in_the_openai_format():
    # vLLM 0.33 (conformance goldens render_chat_template): all-text tool results are a string
    tool = {"role": "tool", "tool_call_id": "c1"}
    parts = [{"type": "text", "text": "18C"}, {"type": "refusal", "refusal": "no"}]
    ref = [{"type": "text", "text": "see"}, {"type": "tool_reference", "name": "get_time"}]
    out = normalize_messages(
        [{**tool, "content": parts}, {**tool, "content": []}, {**tool, "content": ref},
         {"role": "user", "content": parts}], content_format="openai")
    assert [m["content"] for m in out.messages] == [
        "18C\nno", "", [{"type": "text", "text": "see"}, {"type": "tool_reference", "name": "get_time"}],
        [{"type": "text", "text": "18C"}, {"type": "text", "text": "no"}]]


@pytest.mark.parametrize(
    "messages, fragment",
    [
        ([], "at least one message"),
        ([{"role": "user", "content": 3}], "messages[0].content"),
        ([{"role": "user", "content": [{"type": "text", "text": None}]}], "messages[0].content[0].text"),
        ([{"role": "user", "content": [{"type": "video_url"}]}], "must carry `video_url`"),
        ([{"role": "user", "content": [{"nothing": 1}]}], "Missing 'type' field"),
        # vLLM 0.33 infers no ``input_image`` part from its key (render_untyped_parts_errors)
        ([{"role": "foo", "content": [{"input_image": "data:x"}]}], "Missing 'type' field"),
        ([{"role": "foo", "content": [{"type": "prompt_embeds"}]}], "non-empty `data`"),
        ([{"role": "foo", "content": [{"prompt_embeds": "x", "data": "AAAA"}]}],
         "--enable-prompt-embeds"),
        ([{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}], "function.name"),
        ([{"role": "tool", "content": "x", "tool_call_id": 5}], "tool_call_id must be a string"),
        ([{"role": 3, "content": "x"}], "role"),
    ],
)
def test_bad_messages(messages, fragment):
    with pytest.raises(BadRequest) as info:
        normalize_messages(messages)
    assert fragment in info.value.message


def test_assistant_mask_overlap_rule():
    offsets = [(0, 2), (2, 5), (5, 5), (5, 9), (9, 12)]
    assert assistant_mask(offsets, [(3, 6)]) == [0, 1, 1, 1, 0]
    assert assistant_mask(offsets, [(0, 2), (9, 12)]) == [1, 0, 0, 0, 1]
    assert assistant_mask(offsets, []) == [0] * 5


def test_truncation_sides():
    assert truncate(10, None) == slice(0, 10)
    assert truncate(10, 3) == slice(7, 10)
    assert truncate(10, 3, "right") == slice(0, 3)
    assert truncate(10, 0) == slice(0, 0)
    assert truncate(2, 5) == slice(0, 2)


def test_completion_prompt_shapes():
    assert normalize_completion_prompts("a") == ["a"]
    assert normalize_completion_prompts(["a", "b"]) == ["a", "b"]
    assert normalize_completion_prompts([1, 2]) == [[1, 2]]
    assert normalize_completion_prompts([[1], [2, 3]]) == [[1], [2, 3]]
    for bad in ([], ["a", 1], [[1], "a"], [True], [[]], 5):
        with pytest.raises(BadRequest):
            normalize_completion_prompts(bad)


def test_prompt_reasoning_ended_stops_at_the_turn_boundary(vocabs):
    vocab = vocabs["qwen3"]

    def ended(text: str) -> bool:
        return prompt_reasoning_ended(vocab.encode(text), vocab, "<think>", "</think>")

    assert ended("<|im_start|>assistant\n<think>\n\n</think>\n\n") is True
    assert ended("<|im_start|>assistant\n<think>\nhmm") is False
    assert ended("<|im_start|>assistant\n<think>\nx\n</think>\n\ny<|im_end|>\n<|im_start|>assistant\n") is False
    assert ended("<|im_start|>assistant\n") is False
    assert json.dumps(vocab.encode("</think>")) == "[151668]"


@pytest.mark.parametrize("arguments", ["{not json", "[1, 2]", "42", "", None])
def test_history_arguments_that_are_not_an_object_become_empty(arguments):
    """vLLM 0.33 (``_postprocess_messages``; recorded in conformance/goldens
    ``render_chat_edge_errors``: ``assistant_bad_arguments``, ``assistant_list_arguments``)
    coerces a history call's arguments that are not a JSON object to ``{}`` so the
    conversation can go on, instead of refusing every later turn."""
    out = normalize_messages([{"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]}])
    assert out.messages[0]["tool_calls"][0]["function"]["arguments"] == {}
