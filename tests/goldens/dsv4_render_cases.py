"""The requests ``record_dsv32_render.py --model dsv4`` posts to vLLM 0.33.0's render server on a
``DeepseekV4ForCausalLM`` folder (DeepSeek-V4's native encoding), and the ones it also posts to
``/tokenize`` and ``/v1/responses/render``. Bodies only: the recorder adds ``model``."""

from __future__ import annotations

import json

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of a city",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {}}}}
CALLS = [{"id": "call_1", "type": "function", "function": {
              "name": "get_weather", "arguments": '{"city": "Köln", "days": 3}'}},
         {"id": "call_2", "type": "function", "function": {
              "name": "get_time", "arguments": "{}"}},
         {"id": "call_3", "type": "function", "function": {
              "name": "get_time", "arguments": '{"tz": "UTC"}'}}]
ASK = {"role": "user", "content": "Weather in Köln, and the time?"}
CALLER = {"role": "assistant", "content": None, "reasoning": "Three tools.", "tool_calls": CALLS}


def result(call_id: str | None, content: object) -> dict:
    """A tool message answering ``call_id`` (None: without a ``tool_call_id``)."""
    msg = {"role": "tool", "content": content}
    if call_id is not None:
        msg["tool_call_id"] = call_id
    return msg


AGENT = [ASK, CALLER, result("call_1", "sunny, 21°C"), result("call_2", "12:00"),
         result("call_3", "11:00")]
OFF = {"thinking": False}
HISTORY = [{"role": "user", "content": "Hi"},
           {"role": "assistant", "content": "Hello!", "reasoning": "greet back"},
           {"role": "user", "content": "Again"}]
HI = [{"role": "user", "content": "Hi"}]

#: name -> request body
CASES: dict[str, dict] = {
    # thinking is on by default (effort high); the switches and efforts
    "user": {"messages": HI},
    "system_user": {"messages": [{"role": "system", "content": "Be brief."}, *HI]},
    "multi_turn_unicode": {"messages": [{"role": "user", "content": "Hi"},
                                        {"role": "assistant", "content": "Hello! 😀"},
                                        {"role": "user", "content": "中文? ｜<think>"}]},
    "history_reasoning": {"messages": HISTORY},
    "history_reasoning_chat": {"messages": HISTORY, "chat_template_kwargs": OFF},
    "keep_history_reasoning": {"messages": HISTORY,
                               "chat_template_kwargs": {"drop_thinking": False}},
    "thinking_false": {"messages": HI, "chat_template_kwargs": OFF},
    "thinking_true": {"messages": HI, "chat_template_kwargs": {"thinking": True}},
    "enable_thinking_false": {"messages": HI,
                              "chat_template_kwargs": {"enable_thinking": False}},
    "thinking_null": {"messages": HI, "chat_template_kwargs": {"thinking": None}},
    "thinking_false_enable_true": {"messages": HI, "chat_template_kwargs": {
        "thinking": False, "enable_thinking": True}},
    **{f"effort_{e}": {"messages": HI, "reasoning_effort": e}
       for e in ("none", "minimal", "low", "medium", "high", "xhigh", "max")},
    "effort_max_thinking_off": {"messages": HI, "reasoning_effort": "max",
                                "chat_template_kwargs": OFF},
    "effort_low_enable_thinking_false": {"messages": HI, "reasoning_effort": "low",
                                         "chat_template_kwargs": {"enable_thinking": False}},
    "kwargs_effort_max": {"messages": HI, "chat_template_kwargs": {"reasoning_effort": "max"}},
    "kwargs_effort_bogus": {"messages": HI,
                            "chat_template_kwargs": {"reasoning_effort": "bogus"}},
    "kwargs_effort_number": {"messages": HI, "chat_template_kwargs": {"reasoning_effort": 5}},
    "kwargs_effort_none_str": {"messages": HI,
                               "chat_template_kwargs": {"reasoning_effort": "none"}},
    "effort_max_system": {"messages": [{"role": "system", "content": "S"}, *HI],
                          "reasoning_effort": "max"},
    # tools: on the first system message, or one of their own
    "tools": {"messages": [{"role": "user", "content": "Weather?"}], "tools": [WEATHER, TIME]},
    "tools_system": {"messages": [{"role": "system", "content": "Sys."},
                                  {"role": "user", "content": "Weather?"}], "tools": [WEATHER]},
    "tools_second_system": {"messages": [
        {"role": "user", "content": "a"}, {"role": "system", "content": "late"},
        {"role": "user", "content": "b"}], "tools": [WEATHER]},
    "tools_empty_list_field": {"messages": HI, "tools": [WEATHER],
                               "chat_template_kwargs": OFF},
    "tools_keep_history_reasoning": {"messages": HISTORY, "tools": [WEATHER]},
    **{f"tool_choice_{c}": {"messages": [{"role": "user", "content": "Weather?"}],
                            "tools": [WEATHER, TIME], "tool_choice": c}
       for c in ("none", "auto", "required")},
    "tool_choice_named": {"messages": [{"role": "user", "content": "Weather?"}],
                          "tools": [WEATHER, TIME], "tool_choice": {
                              "type": "function", "function": {"name": "get_time"}}},
    # tool calls and their results (merged into a user turn, sorted by call order)
    "agent_loop": {"messages": AGENT, "tools": [WEATHER, TIME]},
    "agent_loop_chat": {"messages": AGENT, "tools": [WEATHER, TIME], "chat_template_kwargs": OFF},
    "agent_loop_no_tools": {"messages": AGENT},
    "results_out_of_order": {"messages": [
        ASK, CALLER, result("call_3", "c"), result("call_1", "a"), result("call_2", "b")],
        "tools": [WEATHER, TIME]},
    "result_without_id": {"messages": [
        ASK, CALLER, result("call_2", "b"), result(None, "?"), result("call_1", "a")]},
    "result_unknown_id": {"messages": [
        ASK, CALLER, result("call_3", "c"), result("nope", "?"), result("call_1", "a")]},
    "result_without_caller": {"messages": [*HI, result("x", "orphan")]},
    "result_first": {"messages": [result("x", "orphan"), *HI]},
    "more_results_than_calls": {"messages": [
        ASK, {**CALLER, "tool_calls": CALLS[:1]}, result("call_1", "a"), result("call_1", "b")]},
    "result_then_user": {"messages": [*AGENT, {"role": "user", "content": "And tomorrow?"}]},
    "result_parts": {"messages": [ASK, CALLER, result("call_1", [
        {"type": "text", "text": "part a"}, {"type": "text", "text": "part b"}])]},
    "result_null": {"messages": [ASK, CALLER, result("call_1", None)]},
    "agent_answered": {"messages": [*AGENT, {"role": "assistant", "content": "Sunny, noon.",
                                             "reasoning": "done"},
                                    {"role": "user", "content": "Thanks"}],
                       "tools": [WEATHER, TIME]},
    "agent_answered_no_tools": {"messages": [*AGENT, {"role": "assistant", "content": "Noon.",
                                                      "reasoning": "done"},
                                             {"role": "user", "content": "Thanks"}]},
    "typed_arguments": {"messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "Calling.", "tool_calls": [{
            "id": "c", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps(
                {"city": "東京", "days": 2, "flag": True, "none": None, "list": [1, "a"],
                 "obj": {"k": 1.5}}, ensure_ascii=False)}}]},
        result("c", "{\"ok\": true}"), {"role": "user", "content": "and?"}], "tools": [WEATHER]},
    "arguments_not_json": {"messages": [
        *HI, {"role": "assistant", "content": None, "tool_calls": [{
            "id": "c", "type": "function", "function": {"name": "get_time", "arguments": "{oops"}}]},
        result("c", "r")]},
    "arguments_list": {"messages": [
        *HI, {"role": "assistant", "content": None, "tool_calls": [{
            "id": "c", "type": "function", "function": {"name": "get_time", "arguments": "[1]"}}]},
        result("c", "r")]},
    "empty_tool_calls": {"messages": [*HI, {"role": "assistant", "content": "x", "tool_calls": []},
                                      {"role": "user", "content": "y"}]},
    # message kinds and where the assistant's opener goes
    "assistant_last": {"messages": [*HI, {"role": "assistant", "content": "Hello"}]},
    "assistant_last_reasoning": {"messages": [
        *HI, {"role": "assistant", "content": "Hello", "reasoning": "r"}]},
    "assistant_without_reasoning_after_user": {"messages": [
        *HI, {"role": "assistant", "content": "Hello"}, {"role": "assistant", "content": "More"}]},
    "system_last": {"messages": [*HI, {"role": "system", "content": "Now answer."}]},
    "system_only": {"messages": [{"role": "system", "content": "Only."}]},
    "user_then_system": {"messages": [*HI, {"role": "system", "content": "s"},
                                      {"role": "user", "content": "q"}]},
    "system_then_assistant": {"messages": [{"role": "system", "content": "s"},
                                           {"role": "assistant", "content": "a"}, *HI]},
    "consecutive_users": {"messages": [*HI, {"role": "user", "content": "there"}]},
    "developer": {"messages": [{"role": "developer", "content": "Dev rules."}, *HI]},
    "developer_last": {"messages": [*HI, {"role": "developer", "content": "Now answer."}]},
    "developer_history_dropped": {"messages": [
        {"role": "developer", "content": "Dev."}, *HISTORY]},
    "developer_history_chat": {"messages": [
        {"role": "developer", "content": "Dev."}, *HISTORY], "chat_template_kwargs": OFF},
    "developer_tools": {"messages": [{"role": "developer", "content": "D", "tools": [WEATHER]},
                                     *HI]},
    "latest_reminder": {"messages": [*HI, {"role": "latest_reminder", "content": "Be kind."}]},
    "latest_reminder_between": {"messages": [
        *HI, {"role": "latest_reminder", "content": "r"}, {"role": "assistant", "content": "a"}]},
    "task_query": {"messages": [{"role": "user", "content": "Find it", "task": "query"}]},
    "task_action": {"messages": [{"role": "user", "content": "Do it", "task": "action"}]},
    "task_action_chat": {"messages": [{"role": "user", "content": "Do", "task": "action"}],
                         "chat_template_kwargs": OFF},
    "task_before_assistant": {"messages": [
        {"role": "user", "content": "Title?", "task": "title"},
        {"role": "assistant", "content": "A title", "reasoning": "r"}, *HI]},
    "task_then_user": {"messages": [{"role": "user", "content": "a", "task": "domain"}, *HI]},
    "text_parts": {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]}]},
    "system_parts": {"messages": [{"role": "system", "content": [
        {"type": "text", "text": "s1"}, {"type": "text", "text": "s2"}]}, *HI]},
    "user_null_content": {"messages": [{"role": "user", "content": None}]},
    "user_empty_content": {"messages": [{"role": "user", "content": ""}]},
    "assistant_null_content": {"messages": [*HI, {"role": "assistant", "content": None},
                                            {"role": "user", "content": "Hi"}]},
    "reasoning_content_name": {"messages": [
        *HI, {"role": "assistant", "content": "Hello!", "reasoning_content": "rc"}]},
    "no_generation_prompt": {"messages": HI, "add_generation_prompt": False},
    "continue_final": {"messages": [*HI, {"role": "assistant", "content": "Hel"}],
                       "add_generation_prompt": False, "continue_final_message": True},
    "continue_final_with_generation_prompt": {
        "messages": [*HI, {"role": "assistant", "content": "Hel"}],
        "continue_final_message": True},
    # errors
    "developer_empty": {"messages": [{"role": "developer", "content": ""}, *HI]},
    "developer_empty_last": {"messages": [*HI, {"role": "developer", "content": ""}]},
    "unknown_role": {"messages": [*HI, {"role": "narrator", "content": "x"}]},
    "unknown_role_dropped": {"messages": [{"role": "narrator", "content": "x"}, *HISTORY]},
    "task_invalid": {"messages": [{"role": "user", "content": "x", "task": "bogus"}]},
    "refusal_part": {"messages": [*HI, {"role": "assistant", "content": [
        {"type": "refusal", "refusal": "no"}]}]},
    "image_part": {"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]},
    "empty_messages": {"messages": []},
}

#: the cases also posted to ``/tokenize`` (its fields only)
TOKENIZE = ["user", "thinking_false", "agent_loop", "results_out_of_order", "developer",
            "continue_final_with_generation_prompt", "developer_empty", "kwargs_effort_max",
            "tools", "empty_messages", "developer_empty_last"]

#: ``/v1/responses/render`` bodies
RESPONSES: dict[str, dict] = {
    "responses_text": {"input": "Hi"},
    "responses_instructions": {"instructions": "Be brief.", "input": [
        {"role": "user", "content": "Hi"}]},
    "responses_effort_low": {"input": "Hi", "reasoning": {"effort": "low"}},
    "responses_tools": {"input": "Weather?", "tools": [{
        "type": "function", "name": "get_weather", "parameters": WEATHER["function"]["parameters"]}]},
    "responses_call_output": {"input": [
        {"role": "user", "content": "Weather?"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather",
         "arguments": '{"city": "Köln"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"}]},
    "responses_empty_input": {"input": []},
}

#: ``/v1/messages/render`` (Anthropic's Messages API) bodies
MESSAGES: dict[str, dict] = {
    "messages_user": {"max_tokens": 8, "messages": HI},
    "messages_system_tools": {"max_tokens": 8, "system": "Be brief.", "messages": HI, "tools": [{
        "name": "get_weather", "input_schema": WEATHER["function"]["parameters"]}]},
    "messages_thinking": {"max_tokens": 2048, "messages": HI,
                          "thinking": {"type": "enabled", "budget_tokens": 1024}},
    "messages_tool_result": {"max_tokens": 8, "messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather",
                                           "input": {"city": "Köln"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "sunny"}, {"type": "text", "text": "and?"}]}]},
}

#: ``/v1/completions/render`` bodies: a ``suffix`` is DeepSeek-V4's fill-in-the-middle prompt
#: (V4.1's too), and the 400s naming ``suffix``
COMPLETIONS: dict[str, dict] = {
    "fim": {"prompt": "def area(r):\n    ", "suffix": "\n    return a\n"},
    "fim_prompts": {"prompt": ["Köln 😀", "中文"], "suffix": "end"},
    "fim_empty_suffix": {"prompt": "x = ", "suffix": ""},
    "fim_null_suffix": {"prompt": "x = ", "suffix": None},
    "fim_empty_prompt": {"prompt": "", "suffix": "tail"},
    "fim_no_special_tokens": {"prompt": "a", "suffix": "b", "add_special_tokens": False},
    "fim_max_tokens": {"prompt": "a", "suffix": "b", "max_tokens": 7},
    "fim_markers_as_text": {"prompt": "<｜fim▁hole｜>", "suffix": "<｜fim▁end｜>"},
    "no_suffix": {"prompt": "def area(r):\n    "},
    # errors
    "fim_echo": {"prompt": "a", "suffix": "b", "echo": True},
    "fim_token_ids": {"prompt": [1, 2, 3], "suffix": "b"},
    "fim_token_id_lists": {"prompt": [[1, 2], [3]], "suffix": "b"},
    "fim_truncate": {"prompt": "a", "suffix": "b", "truncate_prompt_tokens": 2},
    "fim_prompt_embeds": {"prompt": "a", "suffix": "b", "prompt_embeds": "AAAA"},
    "fim_suffix_number": {"prompt": "a", "suffix": 5},
}
