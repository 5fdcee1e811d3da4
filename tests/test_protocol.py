"""Wire models: the spec's examples parse and round-trip, dumps are valid OpenAI objects, and every
structural rule rejects the bad input it exists for."""

from __future__ import annotations

import copy
import json
from typing import Any

import openai.types
import openai.types.chat
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import TypeAdapter, ValidationError

from tito.errors import RequestRule
from tito.protocol import (
    ChatCompletionLogProb,
    ChatCompletionLogProbs,
    ChatCompletionLogProbsContent,
    ChatCompletionRequest,
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatCompletionResponseStreamChoice,
    ChatCompletionStreamResponse,
    ChatMessage,
    CompletionLogProbs,
    CompletionRequest,
    CompletionResponse,
    CompletionResponseChoice,
    CompletionResponseStreamChoice,
    CompletionStreamResponse,
    CompletionTokenUsageInfo,
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    DerenderChatBody,
    DerenderChatRequest,
    DerenderChatStreamRequest,
    DerenderChatStreamResponse,
    DerenderCompletionBody,
    DerenderCompletionRequest,
    DerenderCompletionStreamRequest,
    DerenderCompletionStreamResponse,
    DerenderStreamState,
    ErrorResponse,
    FunctionCall,
    FunctionDefinition,
    GenerateLogProbs,
    GenerateRequest,
    GenerateTextResponse,
    GenerateTextStreamResponse,
    GenerateTokensResponse,
    GenerateTokensStreamResponse,
    MultiModalFeatures,
    PromptTokenUsageInfo,
    ReasoningParserKwargs,
    SamplingParams,
    StructuredOutputsParams,
    ToolCall,
    UsageInfo,
    parse_generate_response,
    parse_generate_stream_response,
    parse_token_id_string,
)

# ------------------------------------------------------------------------------------------------
# Appendix A examples
# ------------------------------------------------------------------------------------------------

GENERATE_RESPONSE: dict[str, Any] = {
    "request_id": "generate-tokens-chatcmpl-abc",
    "output_mode": "tokens",
    "choices": [
        {
            "index": 0,
            "token_ids": [9906, 11, 2],
            "finish_reason": "stop",
            "logprobs": {
                "content": [
                    {
                        "token_id": 9906,
                        "logprob": -0.1,
                        "rank": 1,
                        "top_logprobs": [{"token_id": 9906, "logprob": -0.1, "rank": 1}],
                    }
                ]
            },
        }
    ],
}

BATCH_CHAT_REQUEST: dict[str, Any] = {
    "model": "m",
    "prompt_tokens": 12,
    "prompt_token_ids": [1, 2, 3],
    # The appendix shows "tools": [] and notes it is rejected; the valid form omits tools.
    "chat_request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    "generate_response": GENERATE_RESPONSE,
}

BATCH_CHAT_RESPONSE: dict[str, Any] = {
    "id": "generate-tokens-chatcmpl-abc",
    "object": "chat.completion",
    "created": 1790000000,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Hello,",
                "refusal": None,
                "annotations": None,
                "audio": None,
                "function_call": None,
                "reasoning": None,
            },
            "logprobs": {
                "content": [
                    {
                        "token": "Hello",
                        "logprob": -0.1,
                        "bytes": [72, 101, 108, 108, 111],
                        "top_logprobs": [
                            {"token": "Hello", "logprob": -0.1, "bytes": [72, 101, 108, 108, 111]}
                        ],
                    }
                ]
            },
            "finish_reason": "stop",
            "stop_reason": None,
            "token_ids": None,
            "routed_experts": None,
            "weight_versions": None,  # vLLM 0.33 (conformance goldens)
        }
    ],
    "service_tier": None,
    "system_fingerprint": None,
    "usage": {
        "prompt_tokens": 12,
        "total_tokens": 15,
        "completion_tokens": 3,
        "prompt_tokens_details": None,
        "completion_tokens_details": None,
    },
    "prompt_logprobs": None,
    "prompt_token_ids": None,
    "prompt_text": None,
    "kv_transfer_params": None,
    "ec_transfer_params": None,
    "metrics": None,
}

SSE_EVENT: dict[str, Any] = {
    "request_id": "generate-tokens-chatcmpl-abc",
    "output_mode": "tokens",
    "usage": None,
    "choices": [
        {
            "index": 0,
            "finish_reason": None,
            "token_ids": [9906],
            "routed_experts": None,
            "sampling_mask": None,
            "weight_versions": None,
            "logprobs": None,
        }
    ],
}

STREAM_RESPONSE: dict[str, Any] = {
    "chunk": {
        "id": "generate-tokens-chatcmpl-abc",
        "object": "chat.completion.chunk",
        "created": 1790000000,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "Hello", "reasoning": None},
                "logprobs": None,
                "finish_reason": None,
                "stop_reason": None,
                "token_ids": None,
                "weight_versions": None,  # vLLM 0.33 (conformance goldens; not in the spec)
            }
        ],
        "usage": None,
        "system_fingerprint": None,
        "prompt_token_ids": None,
        "prompt_text": None,
        "metrics": None,
        "kv_transfer_params": None,  # vLLM 0.33 (conformance goldens; not in the spec)
    },
    "stream_state": {
        "prev_tokens": ["...tail..."],
        "prefix_offset": 0,
        "read_offset": 3,
        "role_sent": True,
        "logprob_context_token_ids": [9906],
        "logprob_text_offset": 0,
        "output_token_ids": [],
        "output_chunk_lens": [],
        "tools_streamed": False,
        "last_tool_call_ids": [],
    },
}

CHAT_BODY = TypeAdapter(DerenderChatBody)
COMPLETION_BODY = TypeAdapter(DerenderCompletionBody)


def test_appendix_batch_chat_request_parses_and_round_trips() -> None:
    body = CHAT_BODY.validate_python(BATCH_CHAT_REQUEST)
    assert isinstance(body, DerenderChatRequest)
    assert body.stream is False
    logprobs = body.generate_response.choices[0].logprobs
    assert isinstance(logprobs, GenerateLogProbs)
    assert logprobs.content is not None and logprobs.content[0]["top_logprobs"][0]["rank"] == 1
    assert body.chat_request is not None and body.chat_request.tool_choice == "none"
    again = CHAT_BODY.validate_python(json.loads(body.model_dump_json()))
    assert again == body


def test_appendix_batch_chat_response_dump_is_the_wire_shape() -> None:
    resp = ChatCompletionResponse.model_validate(BATCH_CHAT_RESPONSE)
    dumped = resp.model_dump()
    assert dumped == BATCH_CHAT_RESPONSE
    assert "tool_calls" not in dumped["choices"][0]["message"]
    assert list(dumped["choices"][0]["message"]) == list(
        BATCH_CHAT_RESPONSE["choices"][0]["message"]
    )


def test_appendix_sse_event_and_stream_call_round_trip() -> None:
    event = parse_generate_stream_response(json.dumps(SSE_EVENT))
    assert isinstance(event, GenerateTokensStreamResponse)
    assert event.choices[0].token_ids == [9906]
    call = {
        "stream": True,
        "model": "m",
        "generate_chunk": SSE_EVENT,
        "stream_state": None,
        "prompt_tokens": 12,
        "prompt_token_ids": [1, 2, 3],
        "chat_request": {"messages": [{"role": "user", "content": "hi"}]},
    }
    body = CHAT_BODY.validate_python(call)
    assert isinstance(body, DerenderChatStreamRequest)
    assert body.engine_chunks() == [event]
    assert CHAT_BODY.validate_json(body.model_dump_json()) == body


def test_appendix_stream_response_round_trips_without_chunks_key() -> None:
    resp = DerenderChatStreamResponse.model_validate(STREAM_RESPONSE)
    dumped = resp.model_dump()
    assert "chunks" not in dumped
    assert dumped["chunk"] == STREAM_RESPONSE["chunk"]
    expected_state = {**STREAM_RESPONSE["stream_state"], "held_text": "", "stop_fired": False}
    expected_state["tito"] = None
    assert dumped["stream_state"] == expected_state
    assert DerenderChatStreamResponse.model_validate(dumped) == resp


def test_appendix_usage_only_event_and_error_example() -> None:
    event = parse_generate_stream_response(
        {
            "request_id": "x",
            "output_mode": "tokens",
            "usage": {"prompt_tokens": 12, "total_tokens": 15, "completion_tokens": 3},
            "choices": [],
        }
    )
    assert event.choices == [] and event.usage is not None and event.usage.total_tokens == 15
    err = {
        "error": {
            "message": "derender_chat_stream expects at most one choice per chunk (got 2).",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        }
    }
    assert ErrorResponse.model_validate(err).model_dump() == err


def test_stream_response_with_chunks_extension() -> None:
    chunk = STREAM_RESPONSE["chunk"]
    resp = DerenderChatStreamResponse(
        chunk=None,
        chunks=[ChatCompletionStreamResponse.model_validate(chunk)] * 2,
        stream_state=DerenderStreamState(),
    )
    dumped = resp.model_dump()
    assert dumped["chunk"] is None and len(dumped["chunks"]) == 2
    comp = DerenderCompletionStreamResponse(
        chunk=CompletionStreamResponse(model="m", choices=[]), stream_state=DerenderStreamState()
    )
    assert set(comp.model_dump()) == {"chunk", "stream_state"}


# ------------------------------------------------------------------------------------------------
# Generate responses: output_mode and logprob shapes
# ------------------------------------------------------------------------------------------------


def test_missing_output_mode_means_tokens() -> None:
    legacy = {k: v for k, v in GENERATE_RESPONSE.items() if k != "output_mode"}
    resp = parse_generate_response(legacy)
    assert isinstance(resp, GenerateTokensResponse) and resp.output_mode == "tokens"
    event = {k: v for k, v in SSE_EVENT.items() if k != "output_mode"}
    assert isinstance(parse_generate_stream_response(event), GenerateTokensStreamResponse)
    body = dict(BATCH_CHAT_REQUEST, generate_response=legacy)
    assert isinstance(CHAT_BODY.validate_python(body), DerenderChatRequest)


def test_text_mode_responses_parse_to_text_classes() -> None:
    text = {
        "request_id": "r",
        "output_mode": "text",
        "choices": [{"index": 0, "text": "Hi", "token_ids": [1, 2]}],
    }
    resp = parse_generate_response(text)
    assert isinstance(resp, GenerateTextResponse) and resp.choices[0].text == "Hi"
    stream = {"request_id": "r", "output_mode": "text", "choices": [{"index": 0, "text": "H"}]}
    assert isinstance(parse_generate_stream_response(stream), GenerateTextStreamResponse)


def test_unknown_output_mode_rejected() -> None:
    with pytest.raises(ValidationError):
        parse_generate_response(dict(GENERATE_RESPONSE, output_mode="derender"))


def test_derender_rejects_text_mode_generate_output() -> None:
    text = dict(GENERATE_RESPONSE, output_mode="text")
    with pytest.raises(ValidationError, match="output_mode 'tokens'"):
        DerenderChatRequest.model_validate(dict(BATCH_CHAT_REQUEST, generate_response=text))


def test_both_logprob_shapes_parse() -> None:
    main = parse_generate_response(GENERATE_RESPONSE)
    assert isinstance(main.choices[0].logprobs, GenerateLogProbs)
    legacy_choice = {
        "index": 0,
        "token_ids": [9906],
        "logprobs": {
            "content": [
                {
                    "token": "token_id:9906",
                    "logprob": -0.1,
                    "bytes": None,
                    "top_logprobs": [{"token": "token_id:9906", "logprob": -0.1, "bytes": None}],
                }
            ]
        },
    }
    legacy = parse_generate_response({"request_id": "r", "choices": [legacy_choice]})
    lp = legacy.choices[0].logprobs
    assert isinstance(lp, ChatCompletionLogProbs)
    assert lp.content is not None and parse_token_id_string(lp.content[0].token) == 9906
    stream = parse_generate_stream_response({"request_id": "r", "choices": [legacy_choice]})
    assert isinstance(stream.choices[0].logprobs, ChatCompletionLogProbs)
    # [main] with only `sampled` (logprobs=0) and a null content
    sampled = parse_generate_response(
        {
            "request_id": "r",
            "choices": [{"index": 0, "logprobs": {"content": None, "sampled": [-0.5]}}],
        }
    )
    assert isinstance(sampled.choices[0].logprobs, GenerateLogProbs)
    assert sampled.choices[0].logprobs.sampled == [-0.5]


def test_negative_token_ids_rejected_in_engine_output() -> None:
    bad = copy.deepcopy(GENERATE_RESPONSE)
    bad["choices"][0]["token_ids"] = [1, -2]
    with pytest.raises(ValidationError):
        parse_generate_response(bad)
    bad = copy.deepcopy(GENERATE_RESPONSE)
    bad["choices"][0]["logprobs"]["content"][0]["token_id"] = -1
    with pytest.raises(ValidationError):
        parse_generate_response(bad)


@pytest.mark.parametrize("token", ["9906", "token_id:", "token_id:-1", "token_id:1a"])
def test_parse_token_id_string_rejects_malformed(token: str) -> None:
    with pytest.raises(ValueError):
        parse_token_id_string(token)


# ------------------------------------------------------------------------------------------------
# SamplingParams and GenerateRequest
# ------------------------------------------------------------------------------------------------


def test_sampling_params_to_wire_omits_defaults() -> None:
    assert SamplingParams().to_wire() == {}
    sp = SamplingParams(temperature=0.7, stop="###", output_kind=2, skip_clone=True, max_tokens=100)
    assert sp.to_wire() == {
        "temperature": 0.7,
        "stop": ["###"],
        "max_tokens": 100,
        "output_kind": 2,
        "skip_clone": True,
    }
    # An explicit max_tokens equal to the default is kept: generate only defaults absent keys.
    assert SamplingParams(max_tokens=16).to_wire() == {"max_tokens": 16}
    assert SamplingParams(seed=-1).seed is None


def test_sampling_params_rejects_unknown_keys() -> None:
    with pytest.raises(ValidationError):
        SamplingParams.model_validate({"temprature": 0.5})


@pytest.mark.parametrize(
    "bad",
    [
        {"n": 0},
        {"top_p": 0.0},
        {"repetition_penalty": 0.0},
        {"presence_penalty": 2.5},
        {"top_k": -2},
        {"temperature": -0.1},
        {"max_tokens": 0},
        {"min_tokens": 5, "max_tokens": 4},
        {"stop": ["ok", ""]},
        {"stop": ["x"], "detokenize": False},
        {"stop_token_ids": [-1]},
    ],
)
def test_sampling_params_range_checks(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        SamplingParams.model_validate(bad)


def test_generate_request_dump_uses_compact_sampling_params() -> None:
    req = GenerateRequest(token_ids=[1, 2], sampling_params=SamplingParams(max_tokens=5))
    dumped = req.model_dump()
    assert dumped["sampling_params"] == {"max_tokens": 5}
    assert "derender_context" not in dumped
    assert dumped["output_mode"] == "tokens"
    back = GenerateRequest.model_validate_json(req.model_dump_json())
    assert back.sampling_params.max_tokens == 5
    assert back.sampling_params.model_fields_set == {"max_tokens"}
    with_ctx = GenerateRequest(
        token_ids=[1], sampling_params=SamplingParams(), derender_context={"v": 1}
    )
    assert with_ctx.model_dump()["derender_context"] == {"v": 1}


def _gen(**kw: Any) -> dict[str, Any]:
    return {"token_ids": [1, 2, 3, 4], "sampling_params": {}, **kw}


def test_generate_request_token_ids_min_length() -> None:
    with pytest.raises(ValidationError):
        GenerateRequest.model_validate(_gen(token_ids=[]))


def test_generate_request_token_ids_non_negative() -> None:
    with pytest.raises(ValidationError):
        GenerateRequest.model_validate(_gen(token_ids=[1, -1]))


FEATURES = {
    "mm_hashes": {"image": ["h"]},
    "mm_placeholders": {"image": [{"offset": 1, "length": 2}]},
}


def test_generate_request_content_parts_xor_features() -> None:
    GenerateRequest.model_validate(_gen(features=FEATURES))
    GenerateRequest.model_validate(_gen(content_parts=[{"type": "text", "text": "x"}]))
    with pytest.raises(ValidationError, match="mutually exclusive"):
        GenerateRequest.model_validate(
            _gen(features=FEATURES, content_parts=[{"type": "text", "text": "x"}])
        )


def test_generate_request_output_mode_values() -> None:
    assert GenerateRequest.model_validate(_gen(output_mode="text")).output_mode == "text"
    with pytest.raises(ValidationError):
        GenerateRequest.model_validate(_gen(output_mode="derender"))


def test_generate_request_text_mode_requires_detokenize() -> None:
    with pytest.raises(ValidationError, match="detokenize"):
        GenerateRequest.model_validate(
            _gen(output_mode="text", sampling_params={"detokenize": False})
        )


@pytest.mark.parametrize("salt", ["", "x" * 129, "a@b", "a/b", "a\\b", "a\x00b"])
def test_generate_request_cache_salt_rules(salt: str) -> None:
    with pytest.raises(ValidationError):
        GenerateRequest.model_validate(_gen(cache_salt=salt))


def test_generate_request_cache_salt_ok() -> None:
    assert GenerateRequest.model_validate(_gen(cache_salt="x" * 128)).cache_salt == "x" * 128


def test_generate_request_priority_int64() -> None:
    GenerateRequest.model_validate(_gen(priority=2**63 - 1))
    with pytest.raises(ValidationError):
        GenerateRequest.model_validate(_gen(priority=2**63))


def test_generate_request_placeholder_inside_token_ids() -> None:
    feats = copy.deepcopy(FEATURES)
    feats["mm_placeholders"]["image"][0] = {"offset": 3, "length": 2}
    with pytest.raises(ValidationError, match="outside token_ids"):
        GenerateRequest.model_validate(_gen(features=feats))


def test_generate_request_metadata_only_needs_ec_transfer_params() -> None:
    feats = dict(FEATURES, mm_metadata={"image": ["b64"]})
    with pytest.raises(ValidationError, match="ec_transfer_params"):
        GenerateRequest.model_validate(_gen(features=feats))
    GenerateRequest.model_validate(_gen(features=feats, ec_transfer_params={"k": 1}))


def test_multimodal_features_consistency() -> None:
    with pytest.raises(ValidationError, match="modalities"):
        MultiModalFeatures.model_validate(dict(FEATURES, mm_hashes={"audio": ["h"]}))
    with pytest.raises(ValidationError, match="item counts"):
        MultiModalFeatures.model_validate(dict(FEATURES, mm_hashes={"image": ["h", "i"]}))
    overlapping = {
        "mm_hashes": {"image": ["a", "b"]},
        "mm_placeholders": {"image": [{"offset": 0, "length": 3}, {"offset": 2, "length": 1}]},
    }
    with pytest.raises(ValidationError, match="overlap"):
        MultiModalFeatures.model_validate(overlapping)
    with pytest.raises(ValidationError):
        MultiModalFeatures.model_validate(
            {
                "mm_hashes": {"image": ["a"]},
                "mm_placeholders": {"image": [{"offset": 0, "length": 0}]},
            }
        )


def test_reasoning_parser_kwargs_forbids_extra() -> None:
    assert ReasoningParserKwargs().chat_template_kwargs == {}
    with pytest.raises(ValidationError):
        ReasoningParserKwargs.model_validate({"chat_template_kwargs": {}, "other": 1})


def test_structured_outputs_one_kind_and_wire_name() -> None:
    so = StructuredOutputsParams.model_validate({"json": {"type": "object"}})
    assert so.model_dump()["json"] == {"type": "object"}
    assert "json_" not in so.model_dump()
    with pytest.raises(ValidationError, match="one kind"):
        StructuredOutputsParams.model_validate({"regex": "a+", "choice": ["a"]})


# ------------------------------------------------------------------------------------------------
# Chat request validators
# ------------------------------------------------------------------------------------------------

MSGS = [{"role": "user", "content": "hi"}]
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def _chat(**kw: Any) -> ChatCompletionRequest:
    return ChatCompletionRequest.model_validate({"messages": MSGS, **kw})


def test_chat_defaults() -> None:
    req = _chat()
    assert req.tool_choice == "none" and req.add_generation_prompt and req.stop == []
    assert req.top_logprobs == 0 and req.include_reasoning and req.skip_special_tokens
    assert _chat(tools=[TOOL]).tool_choice == "auto"
    assert _chat(foo="bar").model_extra == {"foo": "bar"}


def test_chat_tools_empty_list_rejected() -> None:
    with pytest.raises(RequestRule, match="must not be an empty array"):
        _chat(tools=[])


def test_chat_named_tool_choice_must_name_a_tool() -> None:
    named = {"type": "function", "function": {"name": "get_weather"}}
    assert _chat(tools=[TOOL], tool_choice=named).tool_choice is not None
    with pytest.raises(RequestRule, match="does not match any of the specified"):
        _chat(tools=[TOOL], tool_choice={"type": "function", "function": {"name": "nope"}})


@pytest.mark.parametrize(
    "choice", ["required", "auto", {"type": "function", "function": {"name": "get_weather"}}]
)
def test_chat_tool_choice_needs_tools(choice: Any) -> None:
    with pytest.raises(RequestRule, match="`tools` must be set"):
        _chat(tool_choice=choice)


def test_chat_named_tool_choice_excludes_structured_outputs() -> None:
    """vLLM 0.33's message (conformance/goldens/structural/*: validation_so_json_with_named);
    a grammar is not counted (validation_so_grammar_with_named: 200, the tag replaces it)."""
    named = {"type": "function", "function": {"name": "get_weather"}}
    with pytest.raises(RequestRule, match="either use constraints for structured outputs"):
        _chat(tools=[TOOL], tool_choice=named, structured_outputs={"regex": "a"})
    _chat(tools=[TOOL], tool_choice=named, structured_outputs={"grammar": 'root ::= "a"'})


def test_chat_top_logprobs_needs_logprobs() -> None:
    assert _chat(logprobs=True, top_logprobs=5).top_logprobs == 5
    assert _chat(logprobs=True, top_logprobs=-1).top_logprobs == -1
    with pytest.raises(RequestRule, match="`logprobs` must be set to true"):
        _chat(top_logprobs=3)
    with pytest.raises(RequestRule, match="positive value or -1"):
        _chat(logprobs=True, top_logprobs=-2)


def test_chat_stream_options_only_with_stream() -> None:
    assert _chat(stream=True, stream_options={"include_usage": True}).stream_options is not None
    with pytest.raises(RequestRule, match="only be defined when `stream=True`"):
        _chat(stream_options={"include_usage": True})


def test_chat_generation_prompt_and_continue_final_message_exclusive() -> None:
    _chat(add_generation_prompt=False, continue_final_message=True)
    _chat(continue_final_message=True)  # vLLM refuses it at render (the default applied)
    with pytest.raises(RequestRule, match="continue_final_message"):
        _chat(continue_final_message=True, add_generation_prompt=True)


def test_chat_cache_salt_rules() -> None:
    with pytest.raises(RequestRule):
        _chat(cache_salt="a/b")


def test_chat_reasoning_content_renamed_without_mutating_input() -> None:
    msgs = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok", "reasoning_content": "thought"},
    ]
    raw = copy.deepcopy(msgs)
    req = ChatCompletionRequest.model_validate({"messages": msgs})
    assert req.messages[1] == {"role": "assistant", "content": "ok", "reasoning": "thought"}
    assert msgs == raw


def test_chat_messages_accept_rich_content() -> None:
    msgs = [
        {"role": "system", "content": [{"type": "text", "text": "be brief"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
                {"type": "video_url", "video_url": {"url": "https://x/v.mp4"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "42"},
    ]
    req = ChatCompletionRequest.model_validate({"messages": msgs})
    assert req.messages == msgs


@pytest.mark.parametrize(
    "msgs",
    [
        ["hello"],
        [{"content": "no role"}],
        [{"role": "user", "content": 5}],
        [{"role": "bogus", "content": [5]}],  # a custom role's parts: checked with the body
        [{"role": "assistant", "tool_calls": {"id": "x"}}],
        [{"role": "tool", "tool_call_id": 3, "content": "x"}],
    ],
)
def test_chat_messages_malformed_rejected(msgs: list[Any]) -> None:
    """(The parts of a user message are vLLM's render's to check: ``test_render_api``.)"""
    with pytest.raises(ValidationError):
        ChatCompletionRequest.model_validate({"messages": msgs})


def test_chat_request_round_trip() -> None:
    req = _chat(
        tools=[TOOL],
        logprobs=True,
        top_logprobs=2,
        structured_outputs={"json": {"type": "object"}},
    )
    again = ChatCompletionRequest.model_validate(req.model_dump())
    assert again == req


def test_function_definition_omits_null_strict() -> None:
    f = FunctionDefinition(name="f")
    assert "strict" not in f.model_dump() and "defer_loading" not in f.model_dump()
    assert FunctionDefinition(name="f", strict=True).model_dump()["strict"] is True


# ------------------------------------------------------------------------------------------------
# Chat responses: tool_calls omission and OpenAI SDK compatibility
# ------------------------------------------------------------------------------------------------


def test_tool_calls_omitted_when_empty() -> None:
    assert "tool_calls" not in ChatMessage(role="assistant", content="x").model_dump()
    assert "tool_calls" not in DeltaMessage(content="x").model_dump()
    assert "tool_calls" not in json.loads(DeltaMessage(content="x").model_dump_json())
    call = ToolCall(function=FunctionCall(id="internal", name="f", arguments="{}"))
    dumped = ChatMessage(role="assistant", tool_calls=[call]).model_dump()
    assert dumped["tool_calls"][0]["id"].startswith("chatcmpl-tool-")
    assert "id" not in dumped["tool_calls"][0]["function"]
    fragment = DeltaToolCall(index=0, function=DeltaFunctionCall(arguments="{"))
    delta = DeltaMessage(tool_calls=[fragment])
    assert delta.model_dump()["tool_calls"][0]["index"] == 0


def test_chat_response_validates_with_openai_sdk() -> None:
    call = ToolCall(function=FunctionCall(name="get_weather", arguments='{"city": "Paris"}'))
    resp = ChatCompletionResponse(
        model="m",
        choices=[
            ChatCompletionResponseChoice(
                index=0,
                message=ChatMessage(
                    role="assistant", content=None, reasoning="hm", tool_calls=[call]
                ),
                logprobs=ChatCompletionLogProbs(
                    content=[
                        ChatCompletionLogProbsContent(
                            token="a",
                            logprob=-0.5,
                            bytes=[97],
                            top_logprobs=[
                                ChatCompletionLogProb(token="a", logprob=-0.5, bytes=[97])
                            ],
                        )
                    ]
                ),
                finish_reason="tool_calls",
            ),
            ChatCompletionResponseChoice(
                index=1, message=ChatMessage(role="assistant", content="plain")
            ),
        ],
        usage=UsageInfo(
            prompt_tokens=3,
            completion_tokens=4,
            total_tokens=7,
            prompt_tokens_details=PromptTokenUsageInfo(cached_tokens=0),
            completion_tokens_details=CompletionTokenUsageInfo(reasoning_tokens=2),
        ),
    )
    dumped = resp.model_dump()
    sdk = openai.types.chat.ChatCompletion.model_validate(dumped)
    assert sdk.choices[0].message.tool_calls is not None
    assert sdk.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert sdk.choices[1].message.tool_calls is None
    assert sdk.usage is not None and sdk.usage.completion_tokens_details is not None
    assert sdk.usage.completion_tokens_details.reasoning_tokens == 2
    assert resp.id.startswith("chatcmpl-")
    openai.types.chat.ChatCompletion.model_validate(BATCH_CHAT_RESPONSE)


def test_chat_stream_response_validates_with_openai_sdk() -> None:
    chunks = [
        ChatCompletionStreamResponse(
            model="m",
            choices=[
                ChatCompletionResponseStreamChoice(
                    index=0, delta=DeltaMessage(role="assistant", content="")
                )
            ],
        ),
        ChatCompletionStreamResponse(
            model="m",
            choices=[
                ChatCompletionResponseStreamChoice(
                    index=0,
                    delta=DeltaMessage(
                        tool_calls=[
                            DeltaToolCall(
                                index=0,
                                id="call_1",
                                type="function",
                                function=DeltaFunctionCall(name="f", arguments=""),
                            )
                        ]
                    ),
                    finish_reason="tool_calls",
                )
            ],
        ),
        ChatCompletionStreamResponse(
            model="m",
            choices=[],
            usage=UsageInfo(prompt_tokens=1, completion_tokens=2, total_tokens=3),
        ),
    ]
    for chunk in chunks:
        openai.types.chat.ChatCompletionChunk.model_validate(chunk.model_dump())
    openai.types.chat.ChatCompletionChunk.model_validate(STREAM_RESPONSE["chunk"])


# ------------------------------------------------------------------------------------------------
# Completions
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", ["hi", ["a", "b"], [1, 2, 3], [[1, 2], [3]]])
def test_completion_prompt_forms(prompt: Any) -> None:
    req = CompletionRequest.model_validate({"prompt": prompt})
    assert req.prompt == prompt
    assert req.max_tokens == 16 and req.add_special_tokens and req.echo is False


@pytest.mark.parametrize("prompt", [[1, -2], [[1], [-1]], [1, "a"]])
def test_completion_prompt_rejected(prompt: Any) -> None:
    with pytest.raises(ValidationError):
        CompletionRequest.model_validate({"prompt": prompt})


@pytest.mark.parametrize("prompt", [None, ""])
def test_completion_prompt_missing_is_a_raw_rule(prompt: Any) -> None:
    """vLLM checks it on the raw body, before any field (an empty list: at render)."""
    with pytest.raises(RequestRule, match="Either prompt or prompt_embeds"):
        CompletionRequest.model_validate({"prompt": prompt, "logprobs": "x"})


def test_completion_request_fields() -> None:
    req = CompletionRequest.model_validate(
        {"prompt": "x", "max_tokens": None, "echo": True, "suffix": "s", "logprobs": 2}
    )
    assert req.max_tokens == 16 and req.echo and req.suffix == "s" and req.logprobs == 2
    with pytest.raises(RequestRule, match="only be defined when `stream=True`"):
        CompletionRequest.model_validate({"prompt": "x", "stream_options": {"include_usage": True}})
    with pytest.raises(RequestRule, match="positive value or -1"):
        CompletionRequest.model_validate({"prompt": "x", "logprobs": -3})


def test_completion_responses_validate_with_openai_sdk() -> None:
    resp = CompletionResponse(
        model="m",
        choices=[
            CompletionResponseChoice(
                index=0,
                text=" world",
                logprobs=CompletionLogProbs(
                    text_offset=[0],
                    token_logprobs=[-0.1],
                    tokens=[" world"],
                    top_logprobs=[{" world": -0.1}],
                ),
                finish_reason="length",
            )
        ],
        usage=UsageInfo(prompt_tokens=1, completion_tokens=1, total_tokens=2),
    )
    sdk = openai.types.Completion.model_validate(resp.model_dump())
    assert sdk.choices[0].text == " world" and resp.id.startswith("cmpl-")
    chunk = CompletionStreamResponse(
        model="m", choices=[CompletionResponseStreamChoice(index=0, text="x", finish_reason="stop")]
    )
    openai.types.Completion.model_validate(chunk.model_dump())


# ------------------------------------------------------------------------------------------------
# Derender requests and stream state
# ------------------------------------------------------------------------------------------------


def test_derender_chat_body_dispatch() -> None:
    assert isinstance(CHAT_BODY.validate_python(BATCH_CHAT_REQUEST), DerenderChatRequest)
    assert isinstance(
        CHAT_BODY.validate_python(dict(BATCH_CHAT_REQUEST, stream=False)), DerenderChatRequest
    )
    assert isinstance(
        CHAT_BODY.validate_python(dict(BATCH_CHAT_REQUEST, stream=None)), DerenderChatRequest
    )
    stream = CHAT_BODY.validate_python({"stream": True, "generate_chunk": SSE_EVENT})
    assert isinstance(stream, DerenderChatStreamRequest) and stream.model is None
    with pytest.raises(ValidationError):
        CHAT_BODY.validate_python({"stream": "yes", "generate_chunk": SSE_EVENT})
    with pytest.raises(ValidationError):  # non-streaming body without generate_response
        CHAT_BODY.validate_python({"generate_chunk": SSE_EVENT})


def test_derender_completion_body_dispatch_and_lengths() -> None:
    batch = {"generate_responses": [GENERATE_RESPONSE, GENERATE_RESPONSE], "prompt_tokens": [3, 4]}
    body = COMPLETION_BODY.validate_python(batch)
    assert isinstance(body, DerenderCompletionRequest)
    with pytest.raises(ValidationError, match="2 generate_responses"):
        COMPLETION_BODY.validate_python(dict(batch, prompt_tokens=[3]))
    with pytest.raises(ValidationError, match="2 generate_responses"):
        COMPLETION_BODY.validate_python(dict(batch, prompt_token_ids=[[1]]))
    COMPLETION_BODY.validate_python(dict(batch, prompt_token_ids=[[1], None]))
    with pytest.raises(ValidationError):
        COMPLETION_BODY.validate_python({"generate_responses": []})
    stream = COMPLETION_BODY.validate_python(
        {"stream": True, "generate_chunk": SSE_EVENT, "completion_request": {"prompt": "x"}}
    )
    assert isinstance(stream, DerenderCompletionStreamRequest)


def test_derender_stream_request_needs_exactly_one_chunk_source() -> None:
    with pytest.raises(ValidationError, match="exactly one"):
        DerenderChatStreamRequest.model_validate({"stream": True})
    with pytest.raises(ValidationError, match="exactly one"):
        DerenderChatStreamRequest.model_validate(
            {"stream": True, "generate_chunk": SSE_EVENT, "generate_chunks": [SSE_EVENT]}
        )
    with pytest.raises(ValidationError):
        DerenderChatStreamRequest.model_validate({"stream": True, "generate_chunks": []})
    many = DerenderChatStreamRequest.model_validate(
        {"stream": True, "generate_chunks": [SSE_EVENT, SSE_EVENT]}
    )
    assert len(many.engine_chunks()) == 2


def test_derender_requests_reject_negative_prompt_values() -> None:
    with pytest.raises(ValidationError):
        DerenderChatRequest.model_validate(dict(BATCH_CHAT_REQUEST, prompt_token_ids=[1, -1]))
    with pytest.raises(ValidationError):
        DerenderChatRequest.model_validate(dict(BATCH_CHAT_REQUEST, prompt_tokens=-1))


def test_derender_body_works_as_fastapi_body() -> None:
    app = FastAPI()

    @app.post("/chat")
    def chat(body: DerenderChatBody) -> dict[str, str]:
        return {"kind": type(body).__name__}

    @app.post("/completions")
    def completions(body: DerenderCompletionBody) -> dict[str, str]:
        return {"kind": type(body).__name__}

    client = TestClient(app)
    assert client.post("/chat", json=BATCH_CHAT_REQUEST).json() == {"kind": "DerenderChatRequest"}
    got = client.post("/chat", json={"stream": True, "generate_chunk": SSE_EVENT}).json()
    assert got == {"kind": "DerenderChatStreamRequest"}
    got = client.post("/completions", json={"generate_responses": [GENERATE_RESPONSE]}).json()
    assert got == {"kind": "DerenderCompletionRequest"}
    assert client.post("/chat", json={"stream": True}).status_code == 422  # app maps it to 400
    assert client.get("/openapi.json").status_code == 200


def test_stream_state_defaults_and_legacy_fields() -> None:
    assert DerenderStreamState.model_validate({}) == DerenderStreamState()
    legacy = DerenderStreamState.model_validate(
        {"prev_tokens": ["a"], "read_offset": 1, "last_content": "Hel", "last_reasoning": ""}
    )
    assert legacy.prev_tokens == ["a"]
    dumped = legacy.model_dump()
    assert "last_content" not in dumped and "last_reasoning" not in dumped
    assert DerenderStreamState.model_validate(dumped) == legacy
    withtito = DerenderStreamState(tito={"v": 1, "sig": "x"})
    assert DerenderStreamState.model_validate_json(withtito.model_dump_json()).tito == {
        "v": 1,
        "sig": "x",
    }


@pytest.mark.parametrize("field", ["prefix_offset", "read_offset", "logprob_text_offset"])
def test_stream_state_rejects_negative_offsets(field: str) -> None:
    with pytest.raises(ValidationError):
        DerenderStreamState.model_validate({field: -1})


def test_stream_state_prev_tokens_bound() -> None:
    DerenderStreamState.model_validate({"prev_tokens": ["a"] * 1024})
    with pytest.raises(ValidationError):
        DerenderStreamState.model_validate({"prev_tokens": ["a"] * 1025})


def test_stream_state_logprob_context_bound() -> None:
    DerenderStreamState.model_validate({"logprob_context_token_ids": [1, 2, 3, 4]})
    with pytest.raises(ValidationError):
        DerenderStreamState.model_validate({"logprob_context_token_ids": [1, 2, 3, 4, 5]})


def test_stream_state_chunk_lens_must_cover_output_ids() -> None:
    DerenderStreamState.model_validate({"output_token_ids": [1, 2, 3], "output_chunk_lens": [2, 1]})
    with pytest.raises(ValidationError, match="sums to 2"):
        DerenderStreamState.model_validate(
            {"output_token_ids": [1, 2, 3], "output_chunk_lens": [2]}
        )
    with pytest.raises(ValidationError):
        DerenderStreamState.model_validate({"output_token_ids": [1], "output_chunk_lens": [1, 0]})


def test_random_uuid_is_vllms() -> None:
    """Request ids: what vLLM 0.33's ``vllm.utils.random_uuid`` gives (``uuid4().int &
    MASK_64_BITS`` as 16 hex digits: the uuid's low half, its RFC 4122 variant bits on top;
    seen in its render server's ids, e.g. ``chatcmpl-89156292c69d53d5``), all distinct."""
    import uuid

    from tito.protocol.common import random_uuid

    ids = [random_uuid() for _ in range(500)]
    assert len(set(ids)) == len(ids)
    for value in ids:
        assert len(value) == 16 and int(value, 16) >> 62 == 0b10
        parsed = uuid.UUID(int=(4 << 76) | int(value, 16))  # a uuid4 whose low half it is
        assert parsed.variant == uuid.RFC_4122
