"""The mistral-v3 chat corpus (mistral-common: ``--tokenizer-mode mistral --tool-call-parser
mistral``): render bodies, batch derender cases and the names replayed as streams."""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import (
    METRICS, NAMED, NOPARAMS, STRICT, TOOLS, USER, WEATHER, chat, ids, out,
)
from conformance.corpus_qwen3 import CONVERSATION


M_CALL = '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]'
M_CALL2 = ('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, '
           '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}]')
#: CONVERSATION with Mistral-shaped call ids (9 characters) and a long one vLLM cuts to its last 9
M_IDS = {"call_1": "call00001", "call_2": "chatcmpl-tool-abcdef123456"}
M_CONVERSATION = [
    {**m, "tool_calls": [{**c, "id": M_IDS[c["id"]]} for c in m["tool_calls"]]} if "tool_calls" in m
    else {**m, "tool_call_id": M_IDS[m["tool_call_id"]]} if "tool_call_id" in m else m
    for m in CONVERSATION
]


def mchat(**fields: Any) -> dict[str, Any]:
    return chat(model="mistral-v3", **fields)


def mout(text: str, finish: str | None = "stop", **fields: Any) -> dict[str, Any]:
    """One mistral-v3 engine choice (``[TOOL_CALLS]`` is its special token), ``</s>`` at a stop."""
    return out(text, finish, model="mistral-v3", **fields)


RENDER_CHAT_MISTRAL: dict[str, dict[str, Any]] = {
    "basic": mchat(),
    "max_tokens": mchat(max_tokens=20),
    "max_completion_tokens": mchat(max_completion_tokens=5),
    "sampling": mchat(temperature=0.3, top_p=0.8, top_k=5, seed=3, repetition_penalty=1.05),
    "system": mchat(messages=[{"role": "system", "content": "Be brief."}, *USER]),
    "two_systems": mchat(messages=[{"role": "system", "content": "Be brief."},
                                   {"role": "system", "content": "Be kind."}, *USER]),
    "multi_turn": mchat(messages=[*USER, {"role": "assistant", "content": "Sunny."},
                                  {"role": "user", "content": "And tomorrow?"}]),
    "multi_turn_tools": mchat(messages=M_CONVERSATION, tools=TOOLS),
    "content_parts": mchat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]}]),
    "name_field": mchat(messages=[{"role": "user", "name": "bob", "content": "Hi"}]),
    "unicode": mchat(messages=[{"role": "user", "content": "Grüße 🌍 — «ok» 中文 [INST]"}]),
    "tools_auto": mchat(tools=TOOLS),
    "tools_none": mchat(tools=TOOLS, tool_choice="none"),
    "tools_required": mchat(tools=TOOLS, tool_choice="required"),
    "tools_required_single": mchat(tools=TOOLS, tool_choice="required", parallel_tool_calls=False),
    "tools_named": mchat(tools=TOOLS, tool_choice=NAMED),
    "tools_strict": mchat(tools=[WEATHER, STRICT]),
    "tools_noparams": mchat(tools=[NOPARAMS], tool_choice="required"),
    "response_format_json": mchat(response_format={"type": "json_object"}),
    "response_format_schema": mchat(response_format={"type": "json_schema", "json_schema": {
        "name": "w", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}}),
    "required_with_response_format": mchat(tools=TOOLS, tool_choice="required",
                                           response_format={"type": "json_object"}),
    "structured_outputs_regex": mchat(tools=TOOLS, tool_choice="required",
                                      structured_outputs={"regex": "[a-z]+"}),
    "logprobs": mchat(logprobs=True, top_logprobs=2),
    "n2": mchat(n=2),
    "stop": mchat(stop=["END"], stop_token_ids=[4]),
    "return_token_ids": mchat(return_token_ids=True),
    "skip_special_false": mchat(skip_special_tokens=False),
    "include_reasoning_false": mchat(include_reasoning=False),
    "continue_final": mchat(messages=[*USER, {"role": "assistant", "content": "It is"}],
                            continue_final_message=True, add_generation_prompt=False),
    "request_id": mchat(request_id="m-1", cache_salt="s", priority=1),
    "tool_choice_null_no_tools": mchat(tool_choice=None),
}

RENDER_CHAT_MISTRAL_ERRORS: dict[str, dict[str, Any]] = {
    "chat_template": mchat(chat_template="{{ 'x' }}"),
    "chat_template_kwargs": mchat(chat_template_kwargs={"x": 1}),
    "two_users": mchat(messages=[*USER, {"role": "user", "content": "Again"}]),
    "assistant_last": mchat(messages=[*USER, {"role": "assistant", "content": "It"}]),
    "assistant_first": mchat(messages=[{"role": "assistant", "content": "Hi"}, *USER]),
    "tool_unknown_id": mchat(messages=[*USER, {"role": "tool", "tool_call_id": "abcdefghi",
                                               "content": "r"}], tools=TOOLS),
    "image_part": mchat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]),
    "messages_empty": mchat(messages=[]),
    "named_unknown_tool": mchat(tools=TOOLS, tool_choice={"type": "function",
                                                          "function": {"name": "nope"}}),
    "max_tokens_too_big": mchat(max_tokens=10**6),
    "top_logprobs_without_logprobs": mchat(top_logprobs=2),
    "bad_tool_arguments": mchat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "abcdefghi", "type": "function", "function": {"name": "get_weather",
                                                             "arguments": "{not json"}}]},
        {"role": "tool", "tool_call_id": "abcdefghi", "content": "r"}], tools=TOOLS),
}

DERENDER_CHAT_MISTRAL: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "plain": (mchat(), [mout("Hello! How can I help?")], {}),
    "unicode": (mchat(), [mout("Grüße 🌍 — 中文 ✓")], {}),
    "length": (mchat(), [mout("It is su", "length")], {}),
    "abort": (mchat(), [mout("It", "abort")], {}),
    "only_eos": (mchat(), [mout("")], {}),
    "tool_auto": (mchat(tools=TOOLS), [mout(M_CALL)], {}),
    "tool_auto_two": (mchat(tools=TOOLS), [mout(M_CALL2)], {}),
    "tool_auto_text_before": (mchat(tools=TOOLS), [mout("Let me check. " + M_CALL)], {}),
    # whitespace alone before the call: vLLM's batch has no content, its stream sends it
    "tool_auto_blank_before": (mchat(tools=TOOLS), [mout(" \n\n" + M_CALL)], {}),
    "tool_auto_no_call": (mchat(tools=TOOLS), [mout("No tool needed.")], {}),
    "tool_auto_single": (mchat(tools=TOOLS, parallel_tool_calls=False), [mout(M_CALL2)], {}),
    "tool_auto_length": (mchat(tools=TOOLS), [mout(M_CALL[:30], "length")], {}),
    "tool_auto_malformed": (mchat(tools=TOOLS), [mout(
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Par')], {}),
    "tool_auto_unknown_name": (mchat(tools=TOOLS), [mout(
        '[TOOL_CALLS] [{"name": "nope", "arguments": {}}]')], {}),
    "tool_auto_no_args": (mchat(tools=TOOLS), [mout('[TOOL_CALLS] [{"name": "get_time"}]')], {}),
    "tool_auto_object": (mchat(tools=TOOLS), [mout(
        '[TOOL_CALLS] {"name": "get_weather", "arguments": {"city": "Oslo"}}')], {}),
    "tool_none": (mchat(tools=TOOLS, tool_choice="none"), [mout(M_CALL)], {}),
    "tool_required": (mchat(tools=TOOLS, tool_choice="required"), [mout(
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]')], {}),
    "tool_required_tagged": (mchat(tools=TOOLS, tool_choice="required"), [mout(M_CALL)], {}),
    "tool_named": (mchat(tools=TOOLS, tool_choice=NAMED), [mout(
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]')], {}),
    "no_tools_call_text": (mchat(), [mout(M_CALL)], {}),
    # required / named, [TOOL_CALLS] before the bare call's header is complete: vLLM's auto
    # reading (the text before it is content, leading whitespace too); after a bare call was
    # made: a deviation (forced_bare_marker)
    "forced_text_mistral_brace_marker": (mchat(tools=TOOLS, tool_choice=NAMED), [mout(
        ' \n{"' + M_CALL)], {}),
    "forced_text_mistral_cut_name": (mchat(tools=TOOLS, tool_choice="required"), [mout(
        '{"name": "get_t' + M_CALL)], {}),
    "forced_bare_marker_mistral": (mchat(tools=TOOLS, tool_choice="required"), [mout(
        '[{"name": "get_time", "arguments": {}}, ' + M_CALL)], {}),
    "logprobs": (mchat(logprobs=True, top_logprobs=2), [mout("Sunny 🌞 today.", logprobs=4)], {}),
    "logprobs_no_top": (mchat(logprobs=True), [mout("Ok.", logprobs=3)], {}),
    "stop_string": (mchat(stop=["sunny"]), [mout("It is sunny today.")], {}),
    "stop_token_ids": (mchat(stop_token_ids=[29491]), [mout("Sunny.", eos=False) | {
        "finish_reason": "stop", "stop_reason": 29491}], {}),
    "n2": (mchat(n=2), [mout("A.", index=0), mout("B.", index=1)], {}),
    "return_token_ids": (mchat(return_token_ids=True), [mout("Hi.")], {}),
    "metrics": (mchat(), [mout("Hi.")], {"metrics": METRICS}),
    "special_mid_output_skip": (mchat(ignore_eos=True), [mout(
        "Sunny.[INST] more", "length")], {}),
    "special_mid_output_keep": (mchat(ignore_eos=True, skip_special_tokens=False), [mout(
        "Sunny.[INST] more", "length")], {}),
    "padded_vocab_id": (mchat(), [mout("Hi", "length") | {
        "token_ids": ids("Hi", "mistral-v3") + [32767]}], {}),
}

STREAM_CHAT_MISTRAL = [
    "plain", "unicode", "length", "only_eos", "tool_auto", "tool_auto_two",
    "tool_auto_text_before", "tool_auto_blank_before", "tool_auto_single", "tool_auto_length",
    "tool_auto_malformed", "tool_auto_no_args", "tool_required", "tool_named", "logprobs", "stop_token_ids",
    "return_token_ids", "metrics", "special_mid_output_skip", "no_tools_call_text",
    "forced_text_mistral_brace_marker", "forced_text_mistral_cut_name", "forced_bare_marker_mistral",
]
