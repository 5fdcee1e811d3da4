"""The requests ``record_dsv32_render.py --model dsv41`` posts to vLLM 0.33.0's render server on
a ``DeepseekV41ForCausalLM`` folder (DeepSeek-V4.1's native encoding): V4's cases
(:mod:`dsv4_render_cases`) but those with a role V4.1 does not know or an image, and V4.1's own
(efforts, mid-conversation system messages, the keys it reads from the messages as sent)."""

from __future__ import annotations

from dsv4_render_cases import AGENT, ASK, CALLER, HI, HISTORY, OFF, WEATHER, result
from dsv4_render_cases import CASES as V4_CASES
from dsv4_render_cases import MESSAGES as V4_MESSAGES
from dsv4_render_cases import RESPONSES as V4_RESPONSES

#: a 1x1 PNG (decodes) and PNG's signature alone (vLLM's image loader refuses it)
PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAA"
       "MBAQDJ/pLvAAAAAElFTkSuQmCC")
BAD_PNG = "data:image/png;base64,iVBORw0KGgo="


def _image(url: str) -> dict:
    return {"type": "image_url", "image_url": {"url": url}}


#: image cases' messages (also posted to ``/tokenize``)
IMAGES: dict[str, list[dict]] = {
    "user": [{"role": "user", "content": [{"type": "text", "text": "What is it?"}, _image(PNG)]}],
    "undecodable": [{"role": "user", "content": [{"type": "text", "text": "What is it?"},
                                                  _image(BAD_PNG)]}],
    "two_in_history": [{"role": "user", "content": [_image(PNG)]},
                       {"role": "assistant", "content": "a dot"},
                       {"role": "user", "content": [{"type": "text", "text": "And?"}, _image(PNG)]}],
    "tool_result": [ASK, CALLER, result("call_1", [_image(PNG)])],
    "system": [{"role": "system", "content": [_image(PNG)]}, *HI],
    "own_content_blocks": [{"role": "user", "content": [_image(PNG)],
                            "content_blocks": [{"type": "text", "text": "CB"}]}],
    "own_content_blocks_undecodable": [{"role": "user", "content": [_image(BAD_PNG)],
                                        "content_blocks": [{"type": "text", "text": "CB"}]}],
    "merged_into_blocks": [{"role": "user", "content": "q", "content_blocks": [
        {"type": "text", "text": "CB"}]}, {"role": "user", "content": [_image(PNG)]}],
    "with_token_in_text": [{"role": "user", "content": [
        {"type": "text", "text": "<｜deepseek_image｜>"}, _image(PNG)]}],
}

#: name -> request body
CASES: dict[str, dict] = {
    **{name: body for name, body in V4_CASES.items() if name not in ("image_part",)},
    **{f"kwargs_effort_{e}": {"messages": HI, "chat_template_kwargs": {"reasoning_effort": e}}
       for e in (1, 50, 100, 0, 101, True, 7.5, "xhigh", "low")},
    "kwargs_effort_int_chat": {"messages": HI, "chat_template_kwargs": {
        "reasoning_effort": 30, "thinking": False}},
    "effort_medium_chat": {"messages": HI, "reasoning_effort": "medium",
                           "chat_template_kwargs": OFF},
    "system_first_chat": {"messages": [{"role": "system", "content": "S"}, *HI],
                          "chat_template_kwargs": OFF},
    "mid_system_last": {"messages": [*HI, {"role": "assistant", "content": "a", "reasoning": "r"},
                                     {"role": "system", "content": "Now summarize."}]},
    "mid_system_before_assistant": {"messages": [
        *HI, {"role": "system", "content": "mid"}, {"role": "assistant", "content": "a"}]},
    "mid_system_drops_history": {"messages": [
        *HI, {"role": "assistant", "content": "a", "reasoning": "hidden"},
        {"role": "system", "content": "mid"}, {"role": "user", "content": "q"}]},
    "results_only_turn_last": {"messages": [
        {"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "reasoning": "r1"},
        ASK, CALLER, result("call_1", "a"), result("call_2", "b"), result("call_3", "c")]},
    "results_then_assistant": {"messages": [
        *AGENT, {"role": "assistant", "content": "done", "reasoning": "r2"}]},
    "reasoning_over_reasoning_content": {"messages": [
        *HI, {"role": "assistant", "content": "a", "reasoning": "R", "reasoning_content": "RC"}]},
    "history_reasoning_content": {"messages": [
        *HI, {"role": "assistant", "content": "a", "reasoning_content": "RC"},
        {"role": "user", "content": "b"}], "chat_template_kwargs": {"drop_thinking": False}},
    "reasoning_null_over_content": {"messages": [
        *HI, {"role": "assistant", "content": "a", "reasoning": None, "reasoning_content": "RC"}]},
    "content_blocks": {"messages": [{"role": "user", "content": "Hi", "content_blocks": [
        {"type": "text", "text": "CB"}, {"type": "tool_result", "content": "T"},
        {"type": "other"}]}]},
    "content_blocks_text_null": {"messages": [{"role": "user", "content": "Hi", "content_blocks": [
        {"type": "text", "text": None}]}]},
    "wo_eos": {"messages": [*HI, {"role": "assistant", "content": "x", "wo_eos": True}]},
    "response_format": {"messages": [
        {"role": "system", "content": "S", "response_format": {"type": "json_object"}}, *HI]},
    "input_text_parts": {"messages": [{"role": "user", "content": [
        {"type": "input_text", "text": "a"}, {"type": "text", "text": "b"}]}]},
    "tool_parts": {"messages": [ASK, CALLER, result("call_1", [
        {"type": "text", "text": "x"}, {"type": "text", "text": "y"}])]},
    "user_then_result_then_user": {"messages": [
        ASK, CALLER, result("call_2", "b"), {"role": "user", "content": "hm"},
        result("call_1", "a")]},
    "task_number": {"messages": [{"role": "user", "content": "x", "task": 5}]},
    "arguments_double_encoded": {"messages": [*HI, {"role": "assistant", "content": None,
        "tool_calls": [{"id": "c", "type": "function", "function": {
            "name": "get_weather", "arguments": '"{\\"city\\": \\"Paris\\"}"'}}]}]},
    "arguments_dict": {"messages": [*HI, {"role": "assistant", "content": None,
        "tool_calls": [{"id": "c", "type": "function", "function": {
            "name": "get_weather", "arguments": {"city": "Paris", "days": 1}}}]}]},
    "developer_tools_history": {"messages": [
        {"role": "developer", "content": "D", "tools": [WEATHER]}, *HISTORY]},
    # image parts (the test folder is multimodal for vLLM, its Qwen3 vocabulary lacks
    # <｜deepseek_image｜>): an image the prompt writes is a 400 (vLLM's processor needs the
    # token), one it never writes is loaded and dropped (200 when it decodes)
    **{f"image_{name}": {"messages": msgs} for name, msgs in IMAGES.items()},
    "image_developer_dropped": {"messages": [{"role": "developer", "content": [
        {"type": "text", "text": "D"}, _image(PNG)]}, *HISTORY]},
    "image_developer_kept_thinking_off": {"messages": [{"role": "developer", "content": [
        {"type": "text", "text": "D"}, _image(PNG)]}, *HISTORY], "chat_template_kwargs": OFF},
    # errors
    "latest_reminder_role": {"messages": [*HI, {"role": "latest_reminder", "content": "x"}]},
    "image_token_in_text": {"messages": [{"role": "user", "content": "a <｜deepseek_image｜>"}]},
    "image_token_in_reasoning": {"messages": [*HI, {"role": "assistant", "content": "a",
                                                    "reasoning": "<｜deepseek_image｜>"}]},
}

#: the cases also posted to ``/tokenize`` (its fields only)
TOKENIZE = ["user", "thinking_false", "agent_loop", "results_out_of_order", "developer",
            "continue_final_with_generation_prompt", "developer_empty", "kwargs_effort_max",
            "tools", "empty_messages", "developer_empty_last", "kwargs_effort_50",
            "content_blocks", "mid_system_last", "reasoning_content_name",
            "history_reasoning_content", "reasoning_over_reasoning_content",
            *(f"image_{name}" for name in IMAGES)]

#: ``/v1/responses/render`` bodies: V4's and images
RESPONSES: dict[str, dict] = {**V4_RESPONSES, "responses_image": {"input": [{
    "role": "user", "content": [{"type": "input_text", "text": "What is it?"},
                                {"type": "input_image", "image_url": PNG, "detail": "auto"}]}]}}

#: ``/v1/messages/render`` bodies: V4's and an image block
MESSAGES: dict[str, dict] = {**V4_MESSAGES, "messages_image": {"max_tokens": 8, "messages": [{
    "role": "user", "content": [{"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": PNG.split(",", 1)[1]}},
        {"type": "text", "text": "What is it?"}]}]}}
