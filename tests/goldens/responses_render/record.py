"""Record vLLM 0.33's ``POST /v1/responses/render`` answers as goldens (one JSON file per case).

Run against a real vLLM render server (see HELPERS/conformance notes: ``vllm launch render`` on the
qwen3 tokenizer with ``--reasoning-parser qwen3 --tool-call-parser hermes
--enable-auto-tool-choice``):

    python tests/goldens/responses_render/record.py --url http://127.0.0.1:8613

Each golden is ``{"name", "request", "status", "response"}``; ``tests/test_responses_render.py``
renders the same request with tito and compares (request ids normalized). Only the standard
library is used (with ``conformance/calls.py``), so any Python runs it.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.calls import request  # noqa: E402

HERE = pathlib.Path(__file__).parent

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather in a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["city"],
    },
}
TIME = {
    "type": "function",
    "name": "get_time",
    "description": "Current time in a timezone",
    "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]},
}
STRICT = {**WEATHER, "strict": True}
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}
CALL = {
    "type": "function_call",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"city": "Paris"}',
}
CALL2 = {
    "type": "function_call",
    "call_id": "call_2",
    "name": "get_time",
    "arguments": '{"tz": "Europe/Paris"}',
}
OUT = {"type": "function_call_output", "call_id": "call_1", "output": '{"temp": 21}'}
OUT2 = {"type": "function_call_output", "call_id": "call_2", "output": "12:00"}


def user(text: str) -> dict:
    return {"role": "user", "content": text}


M = "qwen3"

CASES: dict[str, dict] = {
    # -- input shapes
    "string_input": {"model": M, "input": "Hi!"},
    "string_input_instructions": {"model": M, "input": "Hi!", "instructions": "Be brief."},
    "empty_instructions": {"model": M, "input": "Hi!", "instructions": ""},
    "easy_user_message": {"model": M, "input": [user("What is 2+2?")]},
    "typed_user_message": {
        "model": M,
        "input": [{"type": "message", "role": "user", "content": "Hello"}],
    },
    "input_text_part": {
        "model": M,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "Hello there"}]}],
    },
    "input_text_parts_join": {
        "model": M,
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "First part."},
                    {"type": "input_text", "text": "Second part."},
                ],
            }
        ],
    },
    "system_role": {"model": M, "input": [{"role": "system", "content": "You are terse."}, user("Hi")]},
    "developer_role": {
        "model": M,
        "input": [{"role": "developer", "content": "Answer in French."}, user("Hi")],
    },
    "developer_and_instructions": {
        "model": M,
        "instructions": "Be brief.",
        "input": [{"role": "developer", "content": "Answer in French."}, user("Hi")],
    },
    "assistant_string_turn": {
        "model": M,
        "input": [user("Hi"), {"role": "assistant", "content": "Hello! How can I help?"}, user("Tell me a joke")],
    },
    "assistant_output_text_turn": {
        "model": M,
        "input": [
            user("Hi"),
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hello! How can I help?"}],
            },
            user("Thanks"),
        ],
    },
    "assistant_output_text_full_item": {
        "model": M,
        "input": [
            user("Hi"),
            {
                "type": "message",
                "id": "msg_abc",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hey.", "annotations": []}],
            },
            user("Again"),
        ],
    },
    "multi_turn": {
        "model": M,
        "instructions": "You are a helpful assistant.",
        "input": [
            user("Name a fruit."),
            {"role": "assistant", "content": "Apple."},
            user("Another."),
            {"role": "assistant", "content": "Banana."},
            user("One more."),
        ],
    },
    "reasoning_item_then_message": {
        "model": M,
        "input": [
            user("What is 3*3?"),
            {
                "type": "reasoning",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "3 times 3 is 9."}],
            },
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "9"}]},
            user("And 4*4?"),
        ],
    },
    "unicode_input": {"model": M, "input": "Grüße, 世界! 🌍"},
    # -- tools
    "tools_auto": {"model": M, "input": "Weather in Paris?", "tools": [WEATHER]},
    "tools_two": {"model": M, "input": "Weather and time in Paris?", "tools": [WEATHER, TIME]},
    "tools_none": {"model": M, "input": "Weather in Paris?", "tools": [WEATHER], "tool_choice": "none"},
    "tools_required": {"model": M, "input": "Weather in Paris?", "tools": [WEATHER], "tool_choice": "required"},
    "tools_named": {
        "model": M,
        "input": "Weather in Paris?",
        "tools": [WEATHER, TIME],
        "tool_choice": {"type": "function", "name": "get_weather"},
    },
    "tools_strict": {"model": M, "input": "Weather in Paris?", "tools": [STRICT]},
    "tools_no_parallel": {
        "model": M,
        "input": "Weather in Paris?",
        "tools": [WEATHER, TIME],
        "parallel_tool_calls": False,
    },
    "function_call_round_trip": {
        "model": M,
        "input": [user("Weather in Paris?"), CALL, OUT],
        "tools": [WEATHER],
    },
    "two_function_calls_fold": {
        "model": M,
        "input": [user("Weather and time in Paris?"), CALL, CALL2, OUT, OUT2],
        "tools": [WEATHER, TIME],
    },
    "function_call_full_item": {
        "model": M,
        "input": [
            user("Weather in Paris?"),
            {**CALL, "id": "fc_1", "status": "completed"},
            OUT,
        ],
        "tools": [WEATHER],
    },
    "reasoning_then_function_call": {
        "model": M,
        "input": [
            user("Weather in Paris?"),
            {
                "type": "reasoning",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "I should call get_weather."}],
            },
            CALL,
            OUT,
        ],
        "tools": [WEATHER],
    },
    "message_then_function_call": {
        "model": M,
        "input": [
            user("Weather in Paris?"),
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Let me check."}]},
            CALL,
            OUT,
            user("Thanks, and tomorrow?"),
        ],
        "tools": [WEATHER],
    },
    # -- reasoning effort
    "reasoning_effort_low": {"model": M, "input": "Hi", "reasoning": {"effort": "low"}},
    "reasoning_effort_high": {"model": M, "input": "Hi", "reasoning": {"effort": "high"}},
    "reasoning_effort_none": {"model": M, "input": "Hi", "reasoning": {"effort": "none"}},
    "reasoning_effort_with_kwargs": {
        "model": M,
        "input": "Hi",
        "reasoning": {"effort": "medium"},
        "chat_template_kwargs": {"enable_thinking": False},
    },
    "chat_template_kwargs_thinking_off": {
        "model": M,
        "input": "Hi",
        "chat_template_kwargs": {"enable_thinking": False},
    },
    # -- sampling
    "max_output_tokens": {"model": M, "input": "Hi", "max_output_tokens": 64},
    "temperature_top_p": {"model": M, "input": "Hi", "temperature": 0.2, "top_p": 0.9},
    "temperature_zero": {"model": M, "input": "Hi", "temperature": 0},
    "top_k_min_p": {"model": M, "input": "Hi", "top_k": 20, "min_p": 0.05},
    "penalties": {
        "model": M,
        "input": "Hi",
        "presence_penalty": 0.5,
        "frequency_penalty": 0.3,
        "repetition_penalty": 1.1,
    },
    "seed": {"model": M, "input": "Hi", "seed": 1234},
    "stop_strings": {"model": M, "input": "Count to ten", "stop": ["5", "six"]},
    "stop_string_single": {"model": M, "input": "Count to ten", "stop": "5"},
    "stop_token_ids": {"model": M, "input": "Hi", "stop_token_ids": [13]},
    "ignore_eos": {"model": M, "input": "Hi", "ignore_eos": True, "max_output_tokens": 8},
    "logprobs_include": {
        "model": M,
        "input": "Hi",
        "include": ["message.output_text.logprobs"],
        "top_logprobs": 3,
    },
    "top_logprobs_without_include": {"model": M, "input": "Hi", "top_logprobs": 3},
    "skip_special_tokens_true": {"model": M, "input": "Hi", "skip_special_tokens": True},
    "include_stop_str": {"model": M, "input": "Hi", "stop": ["."], "include_stop_str_in_output": True},
    "logit_bias": {"model": M, "input": "Hi", "logit_bias": {"13": -100}},
    "text_json_schema": {
        "model": M,
        "input": "Give me a person.",
        "text": {"format": {"type": "json_schema", "name": "person", "schema": SCHEMA, "strict": True}},
    },
    "text_json_object": {"model": M, "input": "Give me JSON.", "text": {"format": {"type": "json_object"}}},
    "text_plain": {"model": M, "input": "Hi", "text": {"format": {"type": "text"}}},
    # -- request bookkeeping
    "request_id": {"model": M, "input": "Hi", "request_id": "my-request-7"},
    "stream_true": {"model": M, "input": "Hi", "stream": True},
    "no_model": {"input": "Hi"},
    "metadata_store_user": {"model": M, "input": "Hi", "metadata": {"k": "v"}, "store": False, "user": "u1"},
    "priority_cache_salt": {"model": M, "input": "Hi", "cache_salt": "salty"},
    "truncation_auto": {"model": M, "input": "Hi", "truncation": "auto"},
    # -- errors
    "err_previous_response_id": {"model": M, "input": "Hi", "previous_response_id": "resp_123"},
    "err_unknown_model": {"model": "no-such-model", "input": "Hi"},
    "err_empty_input_list": {"model": M, "input": []},
    "err_tool_choice_required_no_tools": {"model": M, "input": "Hi", "tool_choice": "required"},
    "err_tool_choice_named_no_tools": {
        "model": M,
        "input": "Hi",
        "tool_choice": {"type": "function", "name": "get_weather"},
    },
    "err_named_tool_missing": {
        "model": M,
        "input": "Hi",
        "tools": [WEATHER],
        "tool_choice": {"type": "function", "name": "nope"},
    },
    "err_max_output_tokens_zero": {"model": M, "input": "Hi", "max_output_tokens": 0},
    "err_max_output_tokens_beyond_context": {"model": M, "input": "Hi", "max_output_tokens": 50000},
    "err_temperature_high": {"model": M, "input": "Hi", "temperature": 3.0},
    "err_temperature_negative": {"model": M, "input": "Hi", "temperature": -0.5},
    "err_top_p_zero": {"model": M, "input": "Hi", "top_p": 0},
    "err_presence_penalty": {"model": M, "input": "Hi", "presence_penalty": 5},
    "err_missing_input": {"model": M},
    "err_prompt_template": {"model": M, "input": "Hi", "prompt": {"id": "pmpt_1"}},
    "err_background_no_store": {"model": M, "input": "Hi", "background": True, "store": False},
    "err_encrypted_reasoning": {
        "model": M,
        "input": [
            user("Hi"),
            {"type": "reasoning", "summary": [], "encrypted_content": "xyz"},
            user("Again"),
        ],
    },
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default="http://127.0.0.1:8613")
    ap.add_argument("--only", nargs="*", help="case names to (re)record")
    args = ap.parse_args()
    for name, body in CASES.items():
        if args.only and name not in args.only:
            continue
        status, response = request(args.url, "/v1/responses/render", body)
        golden = {"name": name, "request": body, "status": status, "response": response}
        (HERE / f"{name}.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
        print(f"{status} {name}")


if __name__ == "__main__":
    main()
