"""The requests ``record_dsv32_render.py --model inkling`` posts to vLLM 0.33.0's render server on
an ``InklingForCausalLM`` folder (Inkling's native encoding, to ids): every chat case to
``/v1/chat/completions/render`` and to ``/tokenize`` (that body's fields), and
:data:`RESPONSES` to ``/v1/responses/render``. Bodies only: the recorder adds ``model``. The
folder is :func:`conformance.markers.inkling_folder` (Qwen3's tokenizer with Inkling's chat
tokens added as special tokens); ``tests/test_render_inkling.py`` replays the golden.
"""

from __future__ import annotations

import json

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of a city",
    "parameters": {"type": "object", "properties": {
        "days": {"type": "integer"}, "city": {"type": "string"}}, "required": ["city"]}}}
TIME = {"type": "function", "function": {"name": "get_time"}}
CALLS = [{"id": "call_1", "type": "function", "function": {
              "name": "get_weather", "arguments": '{"days": 3, "city": "Köln"}'}},
         {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]
AGENT = [{"role": "user", "content": "Weather in Köln, and the time?"},
         {"role": "assistant", "content": None, "reasoning": "Two tools.", "tool_calls": CALLS},
         {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21°C"},
         {"role": "tool", "tool_call_id": "call_2", "content": "12:00"}]
HI = [{"role": "user", "content": "Hi"}]


def _call(args: str, name: str = "get_weather") -> list[dict]:
    return [{"role": "user", "content": "x"},
            {"role": "assistant", "content": None, "tool_calls": [{
                "id": "c", "type": "function", "function": {"name": name, "arguments": args}}]}]


#: name -> request body (``model`` added)
CASES: dict[str, dict] = {
    "user": {"messages": HI},
    "system_user": {"messages": [{"role": "system", "content": "Be brief."}, *HI]},
    "developer_user": {"messages": [{"role": "developer", "content": "Dev rules."}, *HI]},
    "two_systems": {"messages": [{"role": "system", "content": "A"},
                                 {"role": "developer", "content": "B"}, *HI]},
    "system_only": {"messages": [{"role": "system", "content": "Only me."}]},
    "system_after_user": {"messages": [*HI, {"role": "system", "content": "Late."}]},
    "multi_turn": {"messages": [*HI, {"role": "assistant", "content": "Hello! 😀"},
                                {"role": "user", "content": "中文? ünïcödé"}]},
    "assistant_reasoning": {"messages": [
        *HI, {"role": "assistant", "content": "Hello!", "reasoning": "greet back"},
        {"role": "user", "content": "Again"}]},
    "assistant_reasoning_content": {"messages": [
        *HI, {"role": "assistant", "content": "Hello!", "reasoning_content": "rc"},
        {"role": "user", "content": "x"}]},
    "assistant_empty_reasoning": {"messages": [
        *HI, {"role": "assistant", "content": "Hello!", "reasoning": ""},
        {"role": "user", "content": "x"}]},
    "assistant_null_content": {"messages": [*HI, {"role": "assistant", "content": None},
                                            {"role": "user", "content": "x"}]},
    "empty_user_content": {"messages": [{"role": "user", "content": ""}]},
    "assistant_last": {"messages": [*HI, {"role": "assistant", "content": "Hello"}]},
    "no_generation_prompt": {"messages": HI, "add_generation_prompt": False},
    "assistant_last_no_prompt": {"messages": [*HI, {"role": "assistant", "content": "Hel"}],
                                 "add_generation_prompt": False},
    "continue_final": {"messages": [*HI, {"role": "assistant", "content": "Hel"}],
                       "add_generation_prompt": False, "continue_final_message": True},
    "continue_final_with_prompt": {"messages": [*HI, {"role": "assistant", "content": "Hel"}],
                                   "continue_final_message": True},
    "user_name_ignored": {"messages": [{"role": "user", "content": "Hi", "name": "bob"}]},
    "text_parts": {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]}]},
    "system_text_parts": {"messages": [{"role": "system", "content": [
        {"type": "text", "text": "s1"}]}, *HI]},
    "assistant_text_parts": {"messages": [*HI, {"role": "assistant", "content": [
        {"type": "text", "text": "a1"}, {"type": "text", "text": "a2"}]},
        {"role": "user", "content": "x"}]},
    "newlines_and_specials": {"messages": [{"role": "user", "content":
                                            "a\n\nb <|end_message|> <|im_end|> \t c"}]},
    # reasoning effort: the request field and the template kwarg
    **{f"effort_{e}": {"messages": HI, "reasoning_effort": e}
       for e in ("none", "minimal", "low", "medium", "high", "xhigh", "max")},
    "effort_system": {"messages": [{"role": "system", "content": "S"}, *HI],
                      "reasoning_effort": "low"},
    **{f"kwarg_effort_{k}": {"messages": HI, "chat_template_kwargs": {"reasoning_effort": v}}
       for k, v in (("0", 0), ("half", 0.5), ("0_123", 0.123), ("0_995", 0.995),
                    ("0_99", 0.99), ("1", 1), ("neg", -0.1), ("str_num", "0.5"),
                    ("medium", "medium"), ("bogus", "bogus"), ("true", True), ("null", None),
                    ("list", [1]), ("1e-3", 0.001), ("0_005", 0.005))},
    "kwarg_and_field_effort": {"messages": HI, "reasoning_effort": "high",
                               "chat_template_kwargs": {"reasoning_effort": 0.3}},
    "enable_thinking_false": {"messages": HI, "chat_template_kwargs": {"enable_thinking": False}},
    # tools
    "tools": {"messages": [{"role": "user", "content": "Weather?"}], "tools": [WEATHER, TIME]},
    "tools_system": {"messages": [{"role": "system", "content": "Sys."},
                                  {"role": "user", "content": "Weather?"}], "tools": [WEATHER]},
    **{f"tool_choice_{c}": {"messages": HI, "tools": [WEATHER], "tool_choice": c}
       for c in ("none", "auto", "required")},
    "tool_choice_named": {"messages": HI, "tools": [WEATHER, TIME], "tool_choice": {
        "type": "function", "function": {"name": "get_time"}}},
    "tools_empty_list": {"messages": HI, "tools": []},
    "kwargs_tools_win": {"messages": HI, "tools": [WEATHER],
                         "chat_template_kwargs": {"tools": [TIME]}},
    "tool_unicode_schema": {"messages": HI, "tools": [{"type": "function", "function": {
        "name": "suche", "description": "Sucht „Wörter“ 日本",
        "parameters": {"type": "object", "properties": {"q": {"type": "string",
                                                               "enum": ["ä", "b"]}}}}}]},
    "developer_tools": {"messages": [
        {"role": "developer", "content": "Dev.", "tools": [TIME]}, *HI], "tools": [WEATHER]},
    "developer_tools_only": {"messages": [
        {"role": "developer", "content": "Dev.", "tools": [WEATHER]}, *HI]},
    # calls and results
    "agent_loop": {"messages": AGENT, "tools": [WEATHER, TIME]},
    "agent_answered": {"messages": [*AGENT, {"role": "assistant", "content": "Sunny, noon."},
                                    {"role": "user", "content": "Thanks"}],
                       "tools": [WEATHER, TIME], "reasoning_effort": "minimal"},
    "call_with_content": {"messages": [
        *HI, {"role": "assistant", "content": "Calling.", "reasoning": "r",
              "tool_calls": CALLS[:1]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]},
    "call_text_no_reasoning": {"messages": [
        *HI, {"role": "assistant", "content": "Calling.", "tool_calls": CALLS[:1]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]},
    "call_empty_text": {"messages": [
        *HI, {"role": "assistant", "content": "", "tool_calls": CALLS[:1]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]},
    "call_text_parts": {"messages": [
        *HI, {"role": "assistant", "content": [{"type": "text", "text": "C"}],
              "tool_calls": CALLS[:1]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]},
    "call_null_reasoning": {"messages": [
        *HI, {"role": "assistant", "content": None, "reasoning": "r", "tool_calls": CALLS[:1]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]},
    "typed_arguments": {"messages": [*_call(json.dumps(
        {"zeta": "東京", "days": 2, "flag": True, "none": None, "list": [1, "a", {"b": 1, "a": 2}],
         "obj": {"k": 1.5, "a": "x\"y"}}, ensure_ascii=False)),
        {"role": "tool", "tool_call_id": "c", "content": "{\"ok\": true}"}]},
    "empty_arguments": {"messages": [*_call(""), {"role": "tool", "tool_call_id": "c",
                                                  "content": "r"}]},
    "blank_arguments": {"messages": [*_call("  "), {"role": "tool", "tool_call_id": "c",
                                                    "content": "r"}]},
    "unicode_call_name": {"messages": _call('{"a": 1}', name="wetter_ä")},
    "tool_named": {"messages": [*_call("{}"), {"role": "tool", "tool_call_id": "c",
                                               "name": "other", "content": "r"}]},
    "tool_unknown_id": {"messages": [*_call("{}"), {"role": "tool", "tool_call_id": "zz",
                                                    "content": "r"}]},
    "tool_without_calls": {"messages": [*HI, {"role": "tool", "tool_call_id": "q",
                                              "content": "r"}]},
    "tool_text_parts": {"messages": [*_call("{}"), {"role": "tool", "tool_call_id": "c",
                                                    "content": [{"type": "text", "text": "r1"},
                                                                {"type": "text", "text": "r2"}]}]},
    "tool_empty_content": {"messages": [*_call("{}"), {"role": "tool", "tool_call_id": "c",
                                                       "content": ""}]},
    "tool_last_no_prompt": {"messages": [*_call("{}"), {"role": "tool", "tool_call_id": "c",
                                                        "content": "r"}],
                            "add_generation_prompt": False},
    # what vLLM refuses (or takes) on bad input
    "arguments_not_json": {"messages": _call("{oops")},
    "arguments_list": {"messages": _call("[1, 2]")},
    "arguments_string": {"messages": _call('"x"')},
    "arguments_nan": {"messages": _call('{"a": NaN}')},
    "image_part": {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]},
    "unknown_part_type": {"messages": [{"role": "user", "content": [{"type": "foo", "x": 1}]}]},
    "function_role": {"messages": [*HI, {"role": "function", "name": "f", "content": "r"}]},
    "custom_role": {"messages": [{"role": "narrator", "content": "Once"}, *HI]},
    "empty_messages": {"messages": []},
    "kwarg_continue_final": {"messages": [*HI, {"role": "assistant", "content": "Hel"}],
                             "chat_template_kwargs": {"continue_final_message": True}},
    "kwarg_no_generation_prompt": {"messages": HI,
                                   "chat_template_kwargs": {"add_generation_prompt": False}},
    "kwarg_thinking": {"messages": HI, "chat_template_kwargs": {"thinking": True,
                                                                 "enable_thinking": True}},
    "assistant_first": {"messages": [{"role": "assistant", "content": "I start."}, *HI]},
    "tool_first": {"messages": [{"role": "tool", "tool_call_id": "c", "content": "r"}, *HI]},
    "developer_empty": {"messages": [{"role": "developer", "content": ""}, *HI]},
    "empty_tool_calls": {"messages": [*HI, {"role": "assistant", "content": "A",
                                            "tool_calls": []}, {"role": "user", "content": "B"}]},
    "string_parts": {"messages": [{"role": "user", "content": ["a", "b"]}]},
    "system_string_parts": {"messages": [{"role": "system", "content": ["s"]}, *HI]},
    "assistant_input_text_part": {"messages": [*HI, {"role": "assistant", "content": [
        {"type": "input_text", "text": "a"}]}, {"role": "user", "content": "x"}]},
    "user_text_and_string_parts": {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "a"}, "b"]}]},
    "untyped_text_part": {"messages": [{"role": "user", "content": [{"text": "a"}]}]},
    "input_text_part": {"messages": [{"role": "user", "content": [
        {"type": "input_text", "text": "a"}]}]},
    "empty_text_part": {"messages": [{"role": "user", "content": [{"type": "text", "text": ""}]}]},
    "reasoning_not_string": {"messages": [*HI, {"role": "assistant", "content": "A",
                                                "reasoning": 5}]},
    "emoji_zwj": {"messages": [{"role": "user", "content": "👩‍👩‍👧 é ́ \u0000 x"}]},
    "kwargs_tools_int": {"messages": HI, "chat_template_kwargs": {"tools": 5}},
    "kwargs_tools_item_int": {"messages": HI, "chat_template_kwargs": {"tools": [1]}},
    "kwargs_tools_no_name": {"messages": HI, "chat_template_kwargs": {
        "tools": [{"function": {"description": "no name"}}]}},
    "kwargs_tools_bare": {"messages": HI, "chat_template_kwargs": {
        "tools": [{"function": {"name": "f"}, "type": None}]}},
    "kwarg_effort_huge": {"messages": HI, "chat_template_kwargs": {"reasoning_effort": 10 ** 400}},
    "developer_tools_string": {"messages": [{"role": "developer", "content": "d", "tools": "ab"},
                                            *HI]},
    "arguments_deep": {"messages": _call('{"a": ' + "[" * 5000 + "]" * 5000 + "}")},
    "arguments_infinity": {"messages": _call('{"a": Infinity}')},
    "request_template": {"messages": HI, "chat_template": "{{ messages }}"},
    "kwargs_template": {"messages": HI, "chat_template_kwargs": {"chat_template": "x"}},
    "truncate": {"messages": [{"role": "system", "content": "S"}, *HI],
                 "truncate_prompt_tokens": 5},
    # part lists vLLM's body leaves an unread iterable (it types the message as its role's
    # OpenAI type: vLLM's own refuses a field, or sets no more fields; the encoding then
    # refuses the parts) and the ones it reads (render_chat_parts.lazy_content)
    "lazy_empty_parts": {"messages": [{"role": "user", "content": []}]},
    "lazy_empty_parts_system": {"messages": [{"role": "system", "content": []}, *HI]},
    "lazy_empty_parts_named": {"messages": [{"role": "user", "content": [], "name": "n"}]},
    "lazy_empty_parts_assistant": {"messages": [*HI, {"role": "assistant", "content": []}]},
    "lazy_task_object": {"messages": [*_call("{}"), {
        "role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "r"}],
        "task": {"name": "f"}}]},
    "lazy_tool_call_id_number_parts": {"messages": [{
        "role": "user", "content": [{"type": "text", "text": "a"}], "tool_call_id": 5}]},
    "lazy_tools_string_parts": {"messages": [{
        "role": "user", "content": [{"type": "text", "text": "a"}], "tools": "x"}]},
    "read_empty_parts_task": {"messages": [{"role": "user", "content": [], "task": "t"}]},
    "read_empty_parts_calls": {"messages": [*HI, {"role": "assistant", "content": [],
                                                  "tool_calls": CALLS[1:]}]},
    "read_empty_parts_reasoning_content": {"messages": [*HI, {
        "role": "assistant", "content": [], "reasoning_content": "r"}]},
    "read_empty_parts_tool": {"messages": [*_call("{}"), {"role": "tool", "tool_call_id": "c",
                                                          "content": [], "reasoning": "r"}]},
}

RESPONSES: dict[str, dict] = {
    "responses_text": {"input": "Hi"},
    "responses_instructions": {"instructions": "Be brief.", "input": [
        {"role": "user", "content": "Hi"}]},
    "responses_effort_low": {"input": "Hi", "reasoning": {"effort": "low"}},
    "responses_tools": {"input": "Weather?", "tools": [{
        "type": "function", "name": "get_weather",
        "parameters": WEATHER["function"]["parameters"]}]},
    "responses_call_output": {"input": [
        {"role": "user", "content": "Weather?"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather",
         "arguments": '{"city": "Köln"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"}]},
    "responses_parts": {"input": [{"role": "user", "content": [
        {"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]}]},
    "responses_empty_input": {"input": []},
}
