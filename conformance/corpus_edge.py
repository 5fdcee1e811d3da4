"""The qwen3 edge corpus: what a user of the openai SDK sends (media parts, echo, usage
options, odd sampling values), rendered, derendered and streamed."""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import THINK_TEXT, TIME, TOOLS, USER, WEATHER, chat, out
from conformance.corpus_qwen3 import CONVERSATION


IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
RENDER_CHAT_EDGE: dict[str, dict[str, Any]] = {
    "tool_result_parts": chat(messages=[
        *USER, {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": [{"type": "text", "text": "18C"}, {"type": "text", "text": "cloudy"}]}],
        tools=TOOLS),
    "assistant_null_content_calls": chat(messages=[
        *USER, {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "user", "content": "Thanks"}], tools=TOOLS),
    "assistant_reasoning_turn": chat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning": "Easy question."},
        {"role": "user", "content": "Sure?"}]),
    "assistant_reasoning_content_turn": chat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning_content": "Easy."},
        {"role": "user", "content": "Sure?"}]),
    "name_fields": chat(messages=[{"role": "system", "content": "Hi", "name": "sys"},
                                  {"role": "user", "content": "Hi", "name": "bob"},
                                  {"role": "assistant", "content": "Hey", "name": "bot"},
                                  {"role": "user", "content": "Weather?", "name": "bob"}]),
    "developer_role": chat(messages=[{"role": "developer", "content": "Be brief."}, *USER]),
    "empty_user_content": chat(messages=[{"role": "user", "content": ""}]),
    "empty_parts": chat(messages=[{"role": "user", "content": []}]),
    "null_user_content": chat(messages=[{"role": "user", "content": None}]),
    "system_parts": chat(messages=[{"role": "system", "content": [
        {"type": "text", "text": "Be"}, {"type": "text", "text": "brief."}]}, *USER]),
    "image_part": chat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "What is this?"}, IMAGE]}]),
    "image_only": chat(messages=[{"role": "user", "content": [IMAGE]}]),
    "input_audio_part": chat(messages=[{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]),
    "refusal_part": chat(messages=[*USER, {"role": "assistant", "content": [
        {"type": "refusal", "refusal": "No."}]}, {"role": "user", "content": "Why?"}]),
    "long_stop_list": chat(stop=[f"stop{i}" for i in range(64)]),
    "stop_empty_list": chat(stop=[]),
    "stop_four": chat(stop=["a", "b", "c", "d"]),
    "stop_five": chat(stop=["a", "b", "c", "d", "e"]),
    "stop_unicode": chat(stop=["。", "🌍", "\n\n\n"]),
    "both_max_tokens": chat(max_tokens=50, max_completion_tokens=7),
    "max_tokens_null": chat(max_tokens=None),
    "n2_greedy": chat(n=2, temperature=0.0),
    "n_big": chat(n=16, temperature=1.0),
    "logit_bias_many": chat(logit_bias={"9707": 100, "0": -100, "151645": -1.5}),
    "min_tokens": chat(min_tokens=5, max_tokens=10),
    "min_tokens_equal": chat(min_tokens=10, max_tokens=10),
    "truncate_minus_one": chat(truncate_prompt_tokens=-1),
    "truncate_big": chat(truncate_prompt_tokens=1000),
    "truncation_side_right": chat(truncate_prompt_tokens=5, truncation_side="right"),
    "priority_negative": chat(priority=-5),
    "request_id_header_style": chat(request_id="abc_DEF-123.x"),
    "cache_salt_long": chat(cache_salt="x" * 200),
    "echo_chat": chat(echo=True, messages=[*USER, {"role": "assistant", "content": "It is"}],
                      add_generation_prompt=False, continue_final_message=True),
    "echo_chat_no_continue": chat(echo=True),
    "add_special_tokens_true": chat(add_special_tokens=True),
    "documents": chat(documents=[{"title": "Paris", "text": "Sunny"}]),
    "chat_template_kwargs_extra": chat(chat_template_kwargs={"foo": "bar", "enable_thinking": True}),
    "chat_template_kwargs_thinking_str": chat(chat_template_kwargs={"enable_thinking": "no"}),
    "mm_processor_kwargs": chat(mm_processor_kwargs={"fps": 2}),
    "tool_defer_loading": chat(tools=[{**WEATHER, "defer_loading": True}, TIME]),
    "tool_strict_null": chat(tools=[{"type": "function", "function": {
        **WEATHER["function"], "strict": None}}]),
    "tool_extra_keys": chat(tools=[{"type": "function", "x-extra": 1, "function": {
        **WEATHER["function"], "x-meta": {"a": 1}}}]),
    "tool_choice_none_no_tools": chat(tool_choice="none"),
    "tool_choice_auto_no_tools": chat(tool_choice="auto"),
    "parallel_tool_calls_no_tools": chat(parallel_tool_calls=False),
    "seed_negative": chat(seed=-1),
    "temperature_zero": chat(temperature=0),
    "top_p_small": chat(top_p=0.01, top_k=-1),
    "presence_bounds": chat(presence_penalty=2.0, frequency_penalty=-2.0),
    "logprobs_false_top": chat(logprobs=False),
    "top_logprobs_zero": chat(logprobs=True, top_logprobs=0),
    "top_logprobs_max": chat(logprobs=True, top_logprobs=20),
    "return_tokens_as_token_ids": chat(logprobs=True, return_tokens_as_token_ids=True),
    "stream_include_usage_false": chat(stream=True, stream_options={"include_usage": False}),
    "user_and_metadata": chat(user="u", metadata={"k": "v"}, store=False, service_tier="auto"),
    "vllm_xargs": chat(vllm_xargs={"k": 1}),
    "repetition_detection_absent_fields": chat(spaces_between_special_tokens=False,
                                               include_stop_str_in_output=True),
}

RENDER_CHAT_EDGE_ERRORS: dict[str, dict[str, Any]] = {
    "logit_bias_out_of_vocab": chat(logit_bias={"999999": 1}),
    "logit_bias_too_big_value": chat(logit_bias={"9707": 101}),
    "logit_bias_not_dict": chat(logit_bias=[1, 2]),
    "min_tokens_above_max": chat(min_tokens=20, max_tokens=10),
    "min_tokens_negative": chat(min_tokens=-1),
    "truncate_zero": chat(truncate_prompt_tokens=0),
    "truncate_minus_two": chat(truncate_prompt_tokens=-2),
    "truncate_above_max_len": chat(truncate_prompt_tokens=50000),
    "truncation_side_bad": chat(truncate_prompt_tokens=5, truncation_side="middle"),
    "priority_not_int": chat(priority="high"),
    "cache_salt_empty": chat(cache_salt=""),
    "cache_salt_not_str": chat(cache_salt=5),
    "request_id_not_str": chat(request_id=5),
    "n_negative": chat(n=-1),
    "n_not_int": chat(n=1.5),
    "top_p_zero": chat(top_p=0),
    "top_p_above_one": chat(top_p=1.5),
    "top_k_bad": chat(top_k=-2),
    "min_p_bad": chat(min_p=2),
    "presence_too_big": chat(presence_penalty=3),
    "repetition_zero": chat(repetition_penalty=0),
    "temperature_too_big": chat(temperature=1000),
    "stop_too_many_types": chat(stop=["a", 1]),
    "stop_token_ids_bad": chat(stop_token_ids=["a"]),
    "max_completion_tokens_zero": chat(max_completion_tokens=0),
    "max_tokens_negative": chat(max_tokens=-5),
    "logprobs_not_bool": chat(logprobs="yes"),
    "messages_not_list": chat(messages={"role": "user", "content": "x"}),
    "message_no_role": chat(messages=[{"content": "x"}]),
    "message_content_int": chat(messages=[{"role": "user", "content": 5}]),
    "content_part_unknown_type": chat(messages=[{"role": "user", "content": [
        {"type": "bogus", "text": "x"}]}]),
    "content_part_text_missing": chat(messages=[{"role": "user", "content": [{"type": "text"}]}]),
    "tool_call_missing_function": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function"}]}]),
    "tool_missing_call_id": chat(messages=[*USER, {"role": "tool", "content": "r"}]),
    "tool_not_function_type": chat(tools=[{"type": "web_search"}]),
    "tool_no_name": chat(tools=[{"type": "function", "function": {"description": "x"}}]),
    "tool_choice_bad_string": chat(tools=TOOLS, tool_choice="sometimes"),
    "tool_choice_named_no_function": chat(tools=TOOLS, tool_choice={"type": "function"}),
    "response_format_bad_type": chat(response_format={"type": "xml"}),
    "response_format_no_type": chat(response_format={}),
    "response_format_not_object": chat(response_format="json"),
    "tool_choice_int": chat(tools=TOOLS, tool_choice=5),
    "tool_choice_bad_string_no_tools": chat(tool_choice="sometimes"),
    "tool_choice_named_no_name": chat(tools=TOOLS, tool_choice={"type": "function",
                                                                "function": {}}),
    "tool_choice_named_empty_name": chat(tools=TOOLS, tool_choice={"type": "function",
                                                                   "function": {"name": ""}}),
    "tool_choice_named_function_string": chat(tools=TOOLS, tool_choice={
        "type": "function", "function": "get_weather"}),
    "tool_call_function_no_name": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"arguments": "{}"}}]}]),
    "tool_call_function_not_object": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": "get_weather"}]}]),
    "tool_call_no_arguments": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "get_weather"}}]}]),
    "tool_call_no_id": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}]),
    "response_format_schema_missing": chat(response_format={"type": "json_schema"}),
    "structured_outputs_two": chat(structured_outputs={"regex": "a", "choice": ["a"]}),
    "chat_template_kwargs_not_dict": chat(chat_template_kwargs=[1]),
    "documents_not_list": chat(documents="doc"),
    "mm_processor_kwargs_not_dict": chat(mm_processor_kwargs=5),
    "add_special_tokens_not_bool": chat(add_special_tokens="yes"),
    "echo_not_bool": chat(echo="yes"),
    "stream_not_bool": chat(stream="yes"),
    "reasoning_effort_bad": chat(reasoning_effort="max"),
    "image_url_bad": chat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "not a url"}}]}]),
    "model_missing": {"messages": USER},
    "body_not_object": [USER],
    "assistant_bad_arguments": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                      "arguments": "{not json"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"}], tools=TOOLS),
    "assistant_list_arguments": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                      "arguments": "[1, 2]"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"}], tools=TOOLS),
    "assistant_empty_tool_calls": chat(messages=[*USER, {"role": "assistant", "content": "x",
                                                         "tool_calls": []},
                                                 {"role": "user", "content": "y"}]),
}

#: qwen3 derender edge cases: (chat_request, choices, extra)
DERENDER_CHAT_EDGE: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "echo_chat": (chat(echo=True, messages=[*USER, {"role": "assistant", "content": "It is"}],
                       add_generation_prompt=False, continue_final_message=True),
                  [out(" sunny.")], {}),
    "echo_chat_plain": (chat(echo=True), [out(THINK_TEXT + "Sunny.")], {}),
    "n3_mixed_finish": (chat(n=3), [out(THINK_TEXT + "A.", index=0),
                                    out(THINK_TEXT + "B", "length", index=1),
                                    out(THINK_TEXT + "C", "abort", index=2)], {}),
    "min_tokens": (chat(min_tokens=3), [out(THINK_TEXT + "Sunny.")], {}),
    "logit_bias": (chat(logit_bias={"9707": 5}), [out(THINK_TEXT + "Hello")], {}),
    "stop_string_four": (chat(stop=["stop0", "stop1", "It is", "sunny"]),
                       [out(THINK_TEXT + "It is sunny.")], {}),
    "stop_string_unicode": (chat(stop=["🌍"]), [out(THINK_TEXT + "Hi 🌍 there")], {}),
    "max_completion_tokens": (chat(max_completion_tokens=3), [out(THINK_TEXT + "Su", "length")],
                              {}),
    "return_tokens_as_token_ids": (chat(logprobs=True, top_logprobs=2,
                                        return_tokens_as_token_ids=True),
                                   [out(THINK_TEXT + "Hi 🌍", logprobs=3)], {}),
    "tool_result_turn": (chat(messages=CONVERSATION, tools=TOOLS), [out(THINK_TEXT + "Ok.")], {}),
    "developer_role": (chat(messages=[{"role": "developer", "content": "Be brief."}, *USER]),
                       [out(THINK_TEXT + "Ok.")], {}),
    "include_usage_stream_opts": (chat(stream=True, stream_options={
        "include_usage": True, "continuous_usage_stats": True}), [out(THINK_TEXT + "Ok.")], {}),
}
STREAM_CHAT_EDGE = ["echo_chat", "echo_chat_plain", "min_tokens", "stop_string_four",
                    "stop_string_unicode", "return_tokens_as_token_ids", "include_usage_stream_opts"]
