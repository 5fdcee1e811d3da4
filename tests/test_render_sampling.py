"""OpenAI fields -> SamplingParams (spec 1.6) on plain data, structured outputs, max_tokens."""

from __future__ import annotations

import pytest

from tito.core.sampling import (
    check_output_budget,
    resolve_max_tokens,
    sampling_fields,
    structured_outputs_for,
)
from tito.errors import BadRequest
from tito.protocol import SamplingParams


def wire(request: dict, kind: str = "chat", **kwargs) -> dict:
    fields = sampling_fields(request, kind=kind, max_tokens=kwargs.pop("max_tokens", 100), **kwargs)
    return SamplingParams(**fields).to_wire()


def test_defaults_emit_only_what_vllm_render_always_sets():
    assert wire({}) == {"max_tokens": 100, "output_kind": 2, "skip_clone": True}
    assert wire({"stream": True})["output_kind"] == 1


def test_request_values_then_server_defaults_then_openai_defaults():
    defaults = {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "stop_token_ids": [7]}
    out = wire({"temperature": 0.2, "stop_token_ids": [5, 7], "min_p": 0.1}, default_sampling=defaults)
    assert out["temperature"] == 0.2
    assert out["top_p"] == 0.95 and out["top_k"] == 20 and out["min_p"] == 0.1
    assert out["stop_token_ids"] == [5, 7]
    assert wire({"stop_token_ids": [9]}, default_sampling=defaults)["stop_token_ids"] == [9, 7]


def test_stop_strings_never_reach_the_engine():
    out = wire({"stop": ["END", "\n\n"], "include_stop_str_in_output": True, "min_tokens": 3})
    assert "stop" not in out
    assert out["include_stop_str_in_output"] is True and out["min_tokens"] == 3


def test_logprobs_mapping_chat_and_completions():
    assert "logprobs" not in wire({"logprobs": False, "top_logprobs": 0})
    assert wire({"logprobs": True, "top_logprobs": 5})["logprobs"] == 5
    assert wire({"logprobs": True, "top_logprobs": 0})["logprobs"] == 0
    assert wire({"logprobs": True, "top_logprobs": 2, "echo": True})["prompt_logprobs"] == 2
    assert wire({"logprobs": 3}, kind="completion")["logprobs"] == 3
    assert wire({"logprobs": 3, "echo": True}, kind="completion")["prompt_logprobs"] == 3
    with pytest.raises(BadRequest, match="max allowed: 20"):
        wire({"logprobs": True, "top_logprobs": 21}, max_logprobs=20)
    with pytest.raises(BadRequest, match="max allowed"):
        wire({"logprobs": -1}, kind="completion", max_logprobs=20)


def test_token_id_fields_are_checked_against_the_vocabulary():
    out = wire({"logit_bias": {"5": -100.0}, "allowed_token_ids": [1, 2]}, vocab_size=10)
    assert out["logit_bias"] == {"5": -100.0} and out["allowed_token_ids"] == [1, 2]
    with pytest.raises(BadRequest, match="logit_bias"):
        wire({"logit_bias": {"50": 1.0}}, vocab_size=10)
    with pytest.raises(BadRequest, match="logit_bias keys"):
        wire({"logit_bias": {"abc": 1.0}}, vocab_size=10)
    with pytest.raises(BadRequest, match="stop_token_ids"):
        wire({"stop_token_ids": [10]}, vocab_size=10)


def test_passthrough_fields():
    out = wire({"seed": 7, "n": 2, "kv_transfer_params": {"do_remote_prefill": True},
                "vllm_xargs": {"k": 1}, "thinking_token_budget": 64, "bad_words": ["x"]})
    assert out["seed"] == 7 and out["n"] == 2
    assert out["extra_args"] == {"k": 1, "kv_transfer_params": {"do_remote_prefill": True}}
    assert out["thinking_token_budget"] == 64 and out["bad_words"] == ["x"]


def test_skip_special_tokens_override():
    assert wire({}, skip_special_tokens=False)["skip_special_tokens"] is False


# -- structured outputs -----------------------------------------------------------------------

TOOLS = [
    {"type": "function", "function": {"name": "a", "parameters": {
        "type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "b"}},
]


def test_response_format_kinds():
    assert structured_outputs_for(response_format={"type": "text"}) is None
    assert structured_outputs_for(response_format={"type": "json_object"}) == {"json_object": True}
    schema = {"type": "object"}
    assert structured_outputs_for(
        response_format={"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}
    ) == {"json": schema}
    tag = structured_outputs_for(response_format={"type": "structural_tag", "format": {"type": "x"}})
    assert '"structural_tag"' in tag["structural_tag"]
    with pytest.raises(BadRequest, match="json_schema"):
        structured_outputs_for(response_format={"type": "json_schema"})
    with pytest.raises(BadRequest, match="one kind"):
        structured_outputs_for(response_format={"type": "json_object"}, structured_outputs={"regex": "a+"})


def test_required_tool_choice_becomes_an_array_schema():
    out = structured_outputs_for(tool_choice="required", tools=TOOLS)["json"]
    assert out["type"] == "array" and out["minItems"] == 1 and "maxItems" not in out
    names = [item["properties"]["name"]["enum"] for item in out["items"]["anyOf"]]
    assert names == [["a"], ["b"]]
    assert out["$defs"] == {"X": {"type": "string"}}
    assert out["items"]["anyOf"][1]["properties"]["parameters"] == {"type": "object", "properties": {}}
    single = structured_outputs_for(tool_choice="required", tools=TOOLS, parallel_tool_calls=False)
    assert single["json"]["maxItems"] == 1
    assert "$defs" in TOOLS[0]["function"]["parameters"]  # input untouched


def test_named_tool_choice_constrains_to_its_parameters():
    named = {"type": "function", "function": {"name": "a"}}
    assert structured_outputs_for(tool_choice=named, tools=TOOLS) == {"json": TOOLS[0]["function"]["parameters"]}
    assert structured_outputs_for(tool_choice="auto", tools=TOOLS) is None


# -- lengths ------------------------------------------------------------------------------------


def test_max_tokens_defaults_to_the_room_left():
    assert resolve_max_tokens(max_model_len=100, prompt_tokens=30, requested=None) == 70
    assert resolve_max_tokens(max_model_len=100, prompt_tokens=30, requested=10) == 10


def test_prompt_leaving_no_room_names_both_lengths():
    with pytest.raises(BadRequest) as info:
        resolve_max_tokens(max_model_len=100, prompt_tokens=100, requested=None)
    assert "100 tokens long" in info.value.message and "max_model_len" in info.value.message
    # vLLM 0.33's get_max_tokens: more than the room left is clamped to it
    assert resolve_max_tokens(max_model_len=100, prompt_tokens=95, requested=10,
                              param="max_completion_tokens") == 5


def test_output_budget_checks():
    assert check_output_budget(100, None, "max_tokens") == 100
    assert check_output_budget(100, 40, "max_tokens") == 100  # no room reserved (vLLM 0.33)
    with pytest.raises(BadRequest, match="at least 1"):
        check_output_budget(100, 0, "max_tokens")
    with pytest.raises(BadRequest, match="cannot be greater than max_model_len=100"):
        check_output_budget(100, 101, "max_tokens")
