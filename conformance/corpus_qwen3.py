"""The qwen3 chat and gpt2 completions corpora: render bodies (good and refused), batch
derender cases (request, engine choices, extra fields) and the names replayed as streams."""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import (
    CALL, CALL2, EOT, IM_END, IM_START, METRICS, NAMED, NOPARAMS, STRICT, THINK_TEXT, TOOLS, USER,
    WEATHER, chat, completion, ids, out,
)


CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris and time in Tokyo?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
        {"id": "call_2", "type": "function",
         "function": {"name": "get_time", "arguments": "{\"tz\": \"Asia/Tokyo\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C, cloudy"},
    {"role": "tool", "tool_call_id": "call_2", "content": "21:04"},
    {"role": "assistant", "content": "Paris: 18C. Tokyo: 21:04."},
    {"role": "user", "content": "Thanks! 日本語で? 🌧️"},
]

RENDER_CHAT: dict[str, dict[str, Any]] = {
    "basic": chat(),
    "max_tokens": chat(max_tokens=32),
    "max_completion_tokens": chat(max_completion_tokens=7),
    "sampling": chat(temperature=0.7, top_p=0.9, top_k=40, min_p=0.05, presence_penalty=0.5,
                     frequency_penalty=0.25, repetition_penalty=1.1, seed=1234),
    "seed_zero": chat(seed=0),
    "stop_str": chat(stop="\n\n"),
    "stop_list": chat(stop=["END", "STOP"], stop_token_ids=[151643], include_stop_str_in_output=True),
    "n3": chat(n=3, temperature=1.0),
    "logprobs": chat(logprobs=True),
    "top_logprobs": chat(logprobs=True, top_logprobs=5),
    "prompt_logprobs": chat(prompt_logprobs=2),
    "ignore_eos": chat(ignore_eos=True, min_tokens=3, max_tokens=10),
    "skip_special_false": chat(skip_special_tokens=False, spaces_between_special_tokens=False),
    "thinking_off": chat(chat_template_kwargs={"enable_thinking": False}),
    "thinking_on": chat(chat_template_kwargs={"enable_thinking": True}),
    "reasoning_effort_none": chat(reasoning_effort="none"),
    "reasoning_effort_high": chat(reasoning_effort="high"),
    "include_reasoning_false": chat(include_reasoning=False),
    "system": chat(messages=[{"role": "system", "content": "Be brief."}, *USER]),
    "multi_turn_unicode": chat(messages=CONVERSATION, tools=TOOLS),
    "continue_final": chat(messages=[*USER, {"role": "assistant", "content": "It is"}],
                           continue_final_message=True, add_generation_prompt=False),
    "no_generation_prompt": chat(add_generation_prompt=False),
    "content_parts": chat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]}]),
    "tools_auto": chat(tools=TOOLS),
    "tools_auto_explicit": chat(tools=TOOLS, tool_choice="auto"),
    "tools_none": chat(tools=TOOLS, tool_choice="none"),
    "tools_required": chat(tools=TOOLS, tool_choice="required"),
    "tools_required_single": chat(tools=TOOLS, tool_choice="required", parallel_tool_calls=False),
    "tools_named": chat(tools=TOOLS, tool_choice=NAMED),
    "tools_named_single": chat(tools=TOOLS, tool_choice=NAMED, parallel_tool_calls=False),
    "tools_auto_single": chat(tools=TOOLS, parallel_tool_calls=False),
    "tools_auto_strict": chat(tools=[*TOOLS, STRICT]),
    "tools_required_strict": chat(tools=[WEATHER, STRICT], tool_choice="required"),
    "tools_named_strict": chat(tools=[WEATHER, STRICT],
                               tool_choice={"type": "function", "function": {"name": "lookup"}}),
    "tools_required_noparams": chat(tools=[NOPARAMS], tool_choice="required"),
    "tools_required_thinking_off": chat(tools=TOOLS, tool_choice="required",
                                        chat_template_kwargs={"enable_thinking": False}),
    "response_format_json": chat(response_format={"type": "json_object"}),
    "response_format_schema": chat(response_format={"type": "json_schema", "json_schema": {
        "name": "w", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}}),
    "response_format_text": chat(response_format={"type": "text"}),
    "required_with_response_format": chat(tools=TOOLS, tool_choice="required",
                                          response_format={"type": "json_object"}),
    "structured_outputs_regex": chat(structured_outputs={"regex": "[a-z]+"}),
    "structured_outputs_choice": chat(structured_outputs={"choice": ["yes", "no"]}),
    "return_token_ids": chat(return_token_ids=True),
    "stream_usage": chat(stream=True, stream_options={"include_usage": True,
                                                      "continuous_usage_stats": True}),
    "stream_plain": chat(stream=True),
    "user_field": chat(user="u-1", request_id="my-req-1"),
    "logit_bias": chat(logit_bias={"9707": 2.5}),
    "allowed_token_ids": chat(allowed_token_ids=[9707, 0, 151645]),
    "bad_words": chat(bad_words=["rain"]),
    "truncate_prompt_tokens": chat(truncate_prompt_tokens=5),
    "unicode_user": chat(messages=[{"role": "user", "content": "Grüße 🌍 — «ok» \u200b 中文"}]),
    "cache_salt": chat(cache_salt="salt-1"),
    "priority": chat(priority=3),
    "kv_transfer": chat(kv_transfer_params={"do_remote_decode": True}),
}

RENDER_CHAT_ERRORS: dict[str, dict[str, Any]] = {
    "empty_tools_required": chat(tools=[], tool_choice="required"),
    "tool_choice_without_tools": chat(tool_choice="required"),
    "named_without_tools": chat(tool_choice=NAMED),
    "named_unknown_tool": chat(tools=TOOLS, tool_choice={"type": "function",
                                                          "function": {"name": "nope"}}),
    "stream_options_without_stream": chat(stream_options={"include_usage": True}),
    "top_logprobs_without_logprobs": chat(top_logprobs=3),
    "top_logprobs_too_many": chat(logprobs=True, top_logprobs=50),
    "top_logprobs_negative": chat(logprobs=True, top_logprobs=-1),
    "n_zero": chat(n=0),
    "temperature_negative": chat(temperature=-1),
    "max_tokens_zero": chat(max_tokens=0),
    "max_tokens_too_big": chat(max_tokens=10**9),
    "messages_missing": {"model": "qwen3"},
    "messages_empty": chat(messages=[]),
    "unknown_model": chat(model="nope"),
    "bad_role": chat(messages=[{"role": "robot", "content": "x"}]),
    "continue_and_generation_prompt": chat(
        messages=[*USER, {"role": "assistant", "content": "It"}], continue_final_message=True,
        add_generation_prompt=True),
    "stop_not_list": chat(stop=5),
    "seed_too_big": chat(seed=2**70),
    "logit_bias_bad_key": chat(logit_bias={"abc": 1.0}),
    "chat_template_not_allowed": chat(chat_template="{{ 'x' }}"),
    "suffix_style_unknown_field_type": chat(max_tokens="ten"),
}

RENDER_COMPLETION: dict[str, dict[str, Any]] = {
    "basic": completion(),
    "prompt_list_str": completion(prompt=["Hello", "World, again"]),
    "prompt_ids": completion(prompt=[15496, 11, 995]),
    "prompt_ids_list": completion(prompt=[[15496, 11], [40, 716]]),
    "echo": completion(echo=True),
    "logprobs": completion(logprobs=3),
    "stop": completion(stop=["\n", "."], seed=7, temperature=0.3),
    "n2": completion(n=2, best_of=None),
    "no_max_tokens": {"model": "gpt2", "prompt": "Hi"},
    "unicode": completion(prompt="Grüße 🌍 中文"),
    "return_token_ids": completion(return_token_ids=True),
    "stream_usage": completion(stream=True, stream_options={"include_usage": True}),
    "response_format_json": completion(response_format={"type": "json_object"}),
    "add_special_tokens": completion(add_special_tokens=True),
    "truncate": completion(prompt="one two three four five six", truncate_prompt_tokens=3),
    "logit_bias_clamped": completion(logit_bias={"11": 150, "13": -150}),
    "echo_logprobs": completion(echo=True, logprobs=2),
    "min_tokens": completion(min_tokens=4),
    "seed_and_penalties": completion(seed=5, presence_penalty=1.0, frequency_penalty=0.5,
                                     repetition_penalty=1.2, top_k=3, min_p=0.1),
    "request_id_priority": completion(request_id="r-1", priority=4, cache_salt="c", user="u"),
    "prompt_unicode_ids_mix": completion(prompt=["Grüße", "🌍"]),
    "add_special_tokens_false": completion(add_special_tokens=False),
    "stop_token_ids": completion(stop_token_ids=[13, 11], include_stop_str_in_output=True),
    "allowed_token_ids": completion(allowed_token_ids=[11, 13, 50256]),
    "bad_words": completion(bad_words=["cat"]),
    "return_tokens_as_token_ids": completion(logprobs=1, return_tokens_as_token_ids=True),
    "watermarking": completion(watermarking=True),
    "watermarking_false": completion(watermarking=False),
}

RENDER_COMPLETION_ERRORS: dict[str, dict[str, Any]] = {
    "empty_prompt": completion(prompt=""),
    "empty_prompt_list": completion(prompt=[]),
    "prompt_missing": {"model": "gpt2"},
    "suffix": completion(suffix="x"),
    "stream_options_without_stream": completion(stream_options={"include_usage": True}),
    "logprobs_too_many": completion(logprobs=50),
    "n_zero": completion(n=0),
    "token_out_of_vocab": completion(prompt=[99999]),
    "prompt_too_long": completion(prompt=[15496] * 1100),
    "max_tokens_too_big": completion(max_tokens=5000),
    "unknown_model": completion(model="nope"),
    "echo_with_max_tokens_zero_bad": completion(max_tokens=-1),
    "temperature_too_big": completion(temperature=3),
    "n2_greedy": completion(n=2, temperature=0),
    "min_tokens_negative": completion(min_tokens=-2),
    "min_tokens_above_max": completion(min_tokens=20, max_tokens=10),
    "cache_salt_empty": completion(cache_salt=""),
    "logit_bias_bad_key": completion(logit_bias={"x": 1}),
    "stop_five": completion(stop=["a", "b", "c", "d", "e"]),
    "prompt_nested_empty": completion(prompt=[[]]),
    "prompt_bad_type": completion(prompt={"text": "x"}),
    "mm_processor_kwargs": completion(mm_processor_kwargs={"fps": 1}),
    "truncate_zero": completion(truncate_prompt_tokens=0),
    "best_of_bad": completion(best_of=2, n=3),
    "structured_two": completion(structured_outputs={"regex": "a", "choice": ["a"]}),
    "response_format_bad_type": completion(response_format={"type": "xml"}),
}

#: name -> (chat_request, choices, extra generate_response fields)
DERENDER_CHAT: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "plain": (chat(), [out("Hello! How can I help?")], {}),
    "thinking": (chat(), [out(THINK_TEXT + "It is sunny.")], {}),
    "thinking_off": (chat(chat_template_kwargs={"enable_thinking": False}),
                     [out("It is sunny.")], {}),
    "thinking_off_with_markup": (chat(chat_template_kwargs={"enable_thinking": False}),
                                 [out("<think>x</think>It is sunny.")], {}),
    "thinking_length": (chat(), [out("<think>\nStill thinking about", "length")], {}),
    "include_reasoning_false": (chat(include_reasoning=False), [out(THINK_TEXT + "Sunny.")], {}),
    "unicode": (chat(), [out(THINK_TEXT + "Grüße 🌍 — 中文 ✓")], {}),
    "length": (chat(), [out(THINK_TEXT + "It is su", "length")], {}),
    "abort": (chat(), [out(THINK_TEXT + "It", "abort")], {}),
    "empty_output": (chat(), [out([], "abort")], {}),
    "only_eos": (chat(), [out("")], {}),
    "eos_endoftext": (chat(), [out(THINK_TEXT + "Sunny.", eos=False) | {
        "token_ids": ids(THINK_TEXT + "Sunny.") + [EOT]}], {}),
    "logprobs_true": (chat(logprobs=True), [out(THINK_TEXT + "Sunny.", logprobs=5)], {}),
    "top_logprobs_2": (chat(logprobs=True, top_logprobs=2),
                       [out(THINK_TEXT + "Sunny.", logprobs=5)], {}),
    "top_logprobs_5": (chat(logprobs=True, top_logprobs=5),
                       [out(THINK_TEXT + "Sunny.", logprobs=5)], {}),
    "top_logprobs_plain": (chat(logprobs=True, top_logprobs=1,
                                chat_template_kwargs={"enable_thinking": False}),
                           [out("Grüße 🌍", logprobs=3)], {}),
    "logprobs_unicode_bytes": (chat(logprobs=True, top_logprobs=2),
                               [out(THINK_TEXT + "🌧️ 中文", logprobs=3)], {}),
    "tool_auto": (chat(tools=TOOLS), [out(THINK_TEXT + CALL)], {}),
    "tool_auto_two": (chat(tools=TOOLS), [out(THINK_TEXT + CALL + "\n" + CALL2)], {}),
    "tool_auto_text_before": (chat(tools=TOOLS), [out(THINK_TEXT + "Let me check.\n" + CALL)], {}),
    "tool_auto_no_call": (chat(tools=TOOLS), [out(THINK_TEXT + "No tool needed.")], {}),
    "tool_auto_single": (chat(tools=TOOLS, parallel_tool_calls=False),
                         [out(THINK_TEXT + CALL + "\n" + CALL2)], {}),
    "tool_auto_length": (chat(tools=TOOLS), [out(THINK_TEXT + CALL[:40], "length")], {}),
    "tool_auto_malformed": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par\n</tool_call>')],
        {}),
    "tool_auto_malformed_after_ok": (chat(tools=TOOLS), [out(
        THINK_TEXT + CALL + '\n<tool_call>\n{"name": "get_time", "arguments": {tz}}\n</tool_call>')],
        {}),
    "tool_auto_bad_header": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\nnot json at all\n</tool_call>')], {}),
    "tool_auto_unknown_name": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>')], {}),
    "tool_auto_no_args": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\n{"name": "get_time"}\n</tool_call>')], {}),
    "tool_auto_thinking_off": (chat(tools=TOOLS, chat_template_kwargs={"enable_thinking": False}),
                               [out(CALL)], {}),
    "tool_none": (chat(tools=TOOLS, tool_choice="none"), [out(THINK_TEXT + CALL)], {}),
    "tool_required_hermes": (chat(tools=TOOLS, tool_choice="required"),
                             [out(THINK_TEXT + CALL)], {}),
    "tool_required_hermes_two": (chat(tools=TOOLS, tool_choice="required"),
                                 [out(THINK_TEXT + CALL + CALL2)], {}),
    "tool_required_hermes_compact": (chat(tools=TOOLS, tool_choice="required"), [out(
        THINK_TEXT + '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>')],
        {}),
    "tool_required_thinking_off": (chat(tools=TOOLS, tool_choice="required",
                                        chat_template_kwargs={"enable_thinking": False}),
                                   [out(CALL)], {}),
    "tool_required_json_list": (chat(tools=TOOLS, tool_choice="required"), [out(
        THINK_TEXT + '[{"name": "get_weather", "parameters": {"city": "Paris"}}]')], {}),
    "tool_required_length": (chat(tools=TOOLS, tool_choice="required"),
                             [out(THINK_TEXT + CALL[:45], "length")], {}),
    "tool_named_hermes": (chat(tools=TOOLS, tool_choice=NAMED), [out(THINK_TEXT + CALL)], {}),
    "tool_named_hermes_thinking_off": (chat(tools=TOOLS, tool_choice=NAMED,
                                            chat_template_kwargs={"enable_thinking": False}),
                                       [out(CALL)], {}),
    "tool_named_json": (chat(tools=TOOLS, tool_choice=NAMED),
                        [out(THINK_TEXT + '{"city": "Paris"}')], {}),
    "tool_named_length": (chat(tools=TOOLS, tool_choice=NAMED),
                          [out(THINK_TEXT + CALL[:45], "length")], {}),
    "stop_string": (chat(stop=["sunny"]), [out(THINK_TEXT + "It is sunny today.")], {}),
    "stop_string_engine_cut": (chat(stop=["sunny"]), [out(
        THINK_TEXT + "It is sunny", eos=False, stop_reason="sunny")], {}),
    "stop_string_include": (chat(stop=["sunny"], include_stop_str_in_output=True),
                            [out(THINK_TEXT + "It is sunny today.")], {}),
    "stop_token_ids": (chat(stop_token_ids=[13]), [out(
        THINK_TEXT + "Sunny.", eos=False, stop_reason=13) | {
        "token_ids": ids(THINK_TEXT + "Sunny.")}], {}),
    "n2": (chat(n=2), [out(THINK_TEXT + "Sunny.", index=0), out(THINK_TEXT + "Rainy.", index=1)],
           {}),
    "n2_tools": (chat(n=2, tools=TOOLS), [out(THINK_TEXT + CALL, index=0),
                                          out(THINK_TEXT + "No.", index=1)], {}),
    "return_token_ids": (chat(return_token_ids=True), [out(THINK_TEXT + "Sunny.")], {}),
    "return_token_ids_n2": (chat(return_token_ids=True, n=2),
                            [out("A", index=0), out("B", index=1)], {}),
    "metrics": (chat(), [out(THINK_TEXT + "Sunny.")], {"metrics": METRICS}),
    "kv_transfer": (chat(), [out("Hi")], {"kv_transfer_params": {"remote_block_ids": [1, 2]}}),
    "usage_from_engine": (chat(), [out("Hi")], {"usage": {"prompt_tokens": 11,
                                                          "completion_tokens": 2,
                                                          "total_tokens": 13}}),
    "special_mid_output_skip": (chat(ignore_eos=True), [out(
        ids(THINK_TEXT + "Sunny.") + [IM_END, IM_START] + ids("assistant\nMore"), "length")], {}),
    "special_mid_output_keep": (chat(ignore_eos=True, skip_special_tokens=False), [out(
        ids(THINK_TEXT + "Sunny.") + [IM_END, IM_START] + ids("assistant\nMore"), "length")], {}),
    "special_length_final_im_end": (chat(), [out(
        ids(THINK_TEXT + "Sunny.") + [IM_END], "length")], {}),
    "special_plain_skip": (chat(chat_template_kwargs={"enable_thinking": False}), [out(
        ids("A") + [IM_START] + ids("B") + [IM_END], "length")], {}),
    "padded_vocab_id": (chat(), [out(ids(THINK_TEXT + "Hi") + [151700, 151935], "length")], {}),
    "plain_no_parser_request_skip_false": (chat(skip_special_tokens=False), [out(
        ids("x") + [IM_END], "length")], {}),
}

#: name -> (completion_request, list of responses (each a list of choices), extras)
DERENDER_COMPLETION: dict[str, tuple[dict[str, Any], list[list[dict[str, Any]]], dict[str, Any]]] = {
    "plain": (completion(), [[out(" there was a cat.", model="gpt2")]], {}),
    "length": (completion(), [[out(" there was", "length", model="gpt2")]], {}),
    "logprobs": (completion(logprobs=2), [[out(" there was a cat.", model="gpt2", logprobs=4)]],
                 {}),
    "logprobs_unicode": (completion(logprobs=1), [[out(" Grüße 🌍", model="gpt2", logprobs=2)]],
                         {}),
    "two_prompts": (completion(prompt=["A", "B"]), [[out(" one", model="gpt2")],
                                                    [out(" two", model="gpt2")]], {}),
    "n2": (completion(n=2), [[out(" x", model="gpt2", index=0), out(" y", model="gpt2",
                                                                     index=1)]], {}),
    "stop_string": (completion(stop=["cat"]), [[out(" there was a cat. And", model="gpt2")]], {}),
    "echo": (completion(echo=True), [[out(" there was", "length", model="gpt2")]], {}),
    "return_token_ids": (completion(return_token_ids=True),
                         [[out(" there was", model="gpt2")]], {}),
    "metrics": (completion(), [[out(" x", model="gpt2")]], {"metrics": METRICS}),
    "abort_empty": (completion(), [[out([], "abort", model="gpt2")]], {}),
    "unicode_split": (completion(), [[out(" 🌍🌍 中", "length", model="gpt2")]], {}),
}

DERENDER_ERRORS: dict[str, tuple[str, dict[str, Any]]] = {
    "chat_missing_response": ("/v1/chat/completions/derender", {"model": "qwen3"}),
    "chat_token_out_of_vocab": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": [10**7], "finish_reason": "length"}]}}),
    "chat_negative_token": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": [-1], "finish_reason": "length"}]}}),
    "chat_text_mode": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "output_mode": "text",
                                                "choices": [{"index": 0, "text": "x"}]}}),
    "chat_unknown_model": ("/v1/chat/completions/derender", {
        "model": "nope", "generate_response": {"request_id": "r", "choices": []}}),
    "chat_stream_missing_chunk": ("/v1/chat/completions/derender", {"model": "qwen3",
                                                                     "stream": True}),
    "chat_stream_bad_state": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "stream_state": {"prefix_offset": -1},
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "chat_stream_bad_chunk_lens": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "stream_state": {"output_token_ids": [1, 2],
                                                           "output_chunk_lens": [1]},
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "chat_stream_parser_no_prompt": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "chat_request": chat(),
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "chat_no_request_parser": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": [151667, 87, 151668, 9707, 151645],
             "finish_reason": "stop"}]}}),
    "chat_stream_no_request_parser": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "prompt_token_ids": [9707],
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "completion_empty_responses": ("/v1/completions/derender", {"model": "gpt2",
                                                                "generate_responses": []}),
    "completion_prompt_tokens_mismatch": ("/v1/completions/derender", {
        "model": "gpt2", "prompt_tokens": [1, 2], "generate_responses": [
            {"request_id": "r", "choices": [{"index": 0, "token_ids": [11]}]}]}),
    "completion_token_out_of_vocab": ("/v1/completions/derender", {
        "model": "gpt2", "generate_responses": [
            {"request_id": "r", "choices": [{"index": 0, "token_ids": [60000]}]}]}),
    "not_json_object": ("/v1/chat/completions/derender", []),  # type: ignore[dict-item]
}


#: streaming cases: names of batch cases replayed as streams (one id per call, random chunks)
STREAM_CHAT = [
    "plain", "thinking", "thinking_off", "length", "unicode", "logprobs_true", "top_logprobs_2",
    "logprobs_unicode_bytes", "tool_auto", "tool_auto_two", "tool_auto_text_before",
    "tool_auto_single", "tool_auto_length", "tool_auto_malformed", "tool_auto_no_args",
    "tool_none", "tool_required_hermes", "tool_required_hermes_two", "tool_named_hermes",
    "tool_named_json", "stop_string", "stop_string_engine_cut", "stop_token_ids",
    "return_token_ids", "metrics", "special_mid_output_skip", "special_length_final_im_end",
    "include_reasoning_false", "padded_vocab_id", "only_eos", "empty_output",
]
STREAM_COMPLETION = ["plain", "logprobs", "logprobs_unicode", "stop_string", "return_token_ids",
                     "metrics", "unicode_split", "echo"]
