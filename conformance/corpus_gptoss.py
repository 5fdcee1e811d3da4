"""The gpt-oss chat corpus (harmony: ``--reasoning-parser openai_gptoss --tool-call-parser
openai``): render bodies, batch derender cases and the names replayed as streams."""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import (
    HARMONY_CALL, HARMONY_RETURN, METRICS, NAMED, NOPARAMS, STRICT, TIME, TOOLS, USER, WEATHER,
    chat, ids, out,
)


LOOKUP_PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
DESCRIBED_ONLY = {"type": "function", "function": {"name": "now", "description": "Time now"}}


def gchat(**fields: Any) -> dict[str, Any]:
    return chat(model="gpt-oss", **fields)


def gout(text: str, finish: str | None = "stop", *, end: int | None = HARMONY_RETURN,
         **fields: Any) -> dict[str, Any]:
    """One gpt-oss engine choice: harmony text, then ``end`` (``<|return|>``, ``<|call|>``;
    None for none)."""
    return out(text, finish, eos=False if end is None else end, model="gpt-oss", **fields)


G_ANALYSIS = "<|channel|>analysis<|message|>User asks weather. Answer briefly.<|end|>"
G_FINAL = "<|start|>assistant<|channel|>final<|message|>"
G_CALL = ('<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
          '{"city": "Paris"}')
G_CALL_AFTER = "<|start|>assistant" + G_CALL
G_CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "reasoning": "Need the tool.", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C, cloudy"},
    {"role": "assistant", "content": "Paris: 18C, cloudy."},
    {"role": "user", "content": "And in Tokyo? 日本語で 🌧️"},
]

RENDER_CHAT_GPTOSS: dict[str, dict[str, Any]] = {
    "basic": gchat(),
    "max_tokens": gchat(max_tokens=64),
    "max_completion_tokens": gchat(max_completion_tokens=9, max_tokens=100),
    "sampling": gchat(temperature=0.6, top_p=0.95, top_k=20, seed=7, presence_penalty=0.2),
    "system": gchat(messages=[{"role": "system", "content": "Be brief."}, *USER]),
    "developer": gchat(messages=[{"role": "developer", "content": "Answer in French."}, *USER]),
    "system_and_developer": gchat(messages=[
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": "Answer in French."}, *USER]),
    "late_system": gchat(messages=[*USER, {"role": "assistant", "content": "Sunny."},
                                   {"role": "system", "content": "Now be verbose."},
                                   {"role": "user", "content": "More?"}]),
    "multi_turn_tools": gchat(messages=G_CONVERSATION, tools=TOOLS),
    "multi_turn_reasoning_content": gchat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning_content": "Easy."},
        {"role": "user", "content": "Sure?"}]),
    "assistant_reasoning_last": gchat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning": "Easy."}]),
    "content_parts": gchat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]}]),
    "name_field": gchat(messages=[{"role": "user", "name": "bob", "content": "Hi"}]),
    "empty_content": gchat(messages=[{"role": "user", "content": ""}]),
    "unicode": gchat(messages=[{"role": "user", "content": "Grüße 🌍 — «ok» 中文 <|start|>"}]),
    "reasoning_effort_low": gchat(reasoning_effort="low"),
    "reasoning_effort_medium": gchat(reasoning_effort="medium"),
    "reasoning_effort_high": gchat(reasoning_effort="high"),
    "include_reasoning_false": gchat(include_reasoning=False),
    "chat_template_kwargs": gchat(chat_template_kwargs={"reasoning_effort": "low",
                                                        "enable_thinking": False}),
    "tools_auto": gchat(tools=TOOLS),
    "tools_none": gchat(tools=TOOLS, tool_choice="none"),
    "tools_required": gchat(tools=TOOLS, tool_choice="required"),
    "tools_named": gchat(tools=TOOLS, tool_choice=NAMED),
    "tools_auto_single": gchat(tools=TOOLS, parallel_tool_calls=False),
    "tools_strict": gchat(tools=[WEATHER, STRICT]),
    "tools_noparams": gchat(tools=[NOPARAMS, WEATHER]),
    "tools_described_only": gchat(tools=[DESCRIBED_ONLY], tool_choice="required"),
    "tools_named_noparams": gchat(tools=[NOPARAMS], tool_choice={
        "type": "function", "function": {"name": "ping"}}),
    "tools_defer_loading": gchat(tools=[{**WEATHER, "defer_loading": True}, TIME]),
    "tools_with_effort": gchat(tools=TOOLS, reasoning_effort="high"),
    "response_format_json": gchat(response_format={"type": "json_object"}),
    "response_format_schema": gchat(response_format={"type": "json_schema", "json_schema": {
        "name": "w", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}}),
    "response_format_text": gchat(response_format={"type": "text"}),
    "structured_outputs_regex": gchat(structured_outputs={"regex": "[a-z]+"}),
    "structured_outputs_choice": gchat(structured_outputs={"choice": ["yes", "no"]}),
    "required_with_response_format": gchat(tools=TOOLS, tool_choice="required",
                                           response_format={"type": "json_object"}),
    "logprobs": gchat(logprobs=True, top_logprobs=3),
    "n2": gchat(n=2),
    "stop": gchat(stop=["END"], stop_token_ids=[200007]),
    "return_token_ids": gchat(return_token_ids=True),
    "stream_usage": gchat(stream=True, stream_options={"include_usage": True}),
    "skip_special_false": gchat(skip_special_tokens=False),
    "continue_final": gchat(messages=[*USER, {"role": "assistant", "content": "It is"}],
                            continue_final_message=True, add_generation_prompt=False),
    "no_generation_prompt": gchat(add_generation_prompt=False),
    "request_id": gchat(request_id="abc-1", user="u1", cache_salt="s", priority=2),
}

RENDER_CHAT_GPTOSS_ERRORS: dict[str, dict[str, Any]] = {
    "bad_effort": gchat(reasoning_effort="extreme"),
    "effort_none": gchat(reasoning_effort="none"),
    "named_unknown_tool": gchat(tools=TOOLS, tool_choice={"type": "function",
                                                          "function": {"name": "nope"}}),
    "tool_choice_without_tools": gchat(tool_choice="required"),
    "messages_empty": gchat(messages=[]),
    "max_tokens_too_big": gchat(max_tokens=10**7),
    "top_logprobs_without_logprobs": gchat(top_logprobs=2),
    "image_part": gchat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]),
    "continue_and_generation_prompt": gchat(
        messages=[*USER, {"role": "assistant", "content": "It"}], continue_final_message=True,
        add_generation_prompt=True),
    "tool_message_unknown_id": gchat(messages=[*USER, {"role": "tool", "tool_call_id": "x",
                                                        "content": "r"}], tools=TOOLS),
    "assistant_bad_arguments": gchat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                      "arguments": "{not json"}}]}], tools=TOOLS),
    "tools_not_list": gchat(tools={"type": "function"}),
    "n_zero": gchat(n=0),
    "stream_options_without_stream": gchat(stream_options={"include_usage": True}),
}

#: name -> (chat_request, choices, extra generate_response fields)
DERENDER_CHAT_GPTOSS: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "final_only": (gchat(), [gout("<|channel|>final<|message|>Sunny.")], {}),
    "analysis_final": (gchat(), [gout(G_ANALYSIS + G_FINAL + "It is sunny.")], {}),
    "analysis_length": (gchat(), [gout("<|channel|>analysis<|message|>Thinking about", "length")],
                        {}),
    "final_length": (gchat(), [gout(G_ANALYSIS + G_FINAL + "It is su", "length")], {}),
    "unicode": (gchat(), [gout(G_ANALYSIS + G_FINAL + "Grüße 🌍 — 中文 ✓")], {}),
    "plain_text": (gchat(), [gout("Just text, no harmony.", end=None)], {}),
    "abort": (gchat(), [gout(G_ANALYSIS + G_FINAL + "It", "abort")], {}),
    "only_eos": (gchat(), [gout("")], {}),
    "tool_call": (gchat(tools=TOOLS), [gout(G_ANALYSIS + G_CALL_AFTER, end=HARMONY_CALL)], {}),
    "tool_call_first": (gchat(tools=TOOLS), [gout(G_CALL, end=HARMONY_CALL)], {}),
    "tool_call_no_constrain": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.get_time<|message|>{"tz": "UTC"}',
        end=HARMONY_CALL)], {}),
    "tool_call_recipient_first": (gchat(tools=TOOLS), [gout(
        G_ANALYSIS + '<|start|>assistant to=functions.get_weather<|channel|>commentary json'
        '<|message|>{"city": "Rome"}', end=HARMONY_CALL)], {}),
    "tool_call_preamble": (gchat(tools=TOOLS), [gout(
        G_ANALYSIS + "<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>"
        + G_CALL_AFTER, end=HARMONY_CALL)], {}),
    "tool_call_pretty_args": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
        '{\n  "city":"Paris",  "unit": "c"\n}', end=HARMONY_CALL)], {}),
    "tool_call_bad_json": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
        '{"city": Par', end=HARMONY_CALL)], {}),
    "tool_call_unknown_name": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.nope <|constrain|>json<|message|>{}',
        end=HARMONY_CALL)], {}),
    "tool_call_length": (gchat(tools=TOOLS), [gout(G_CALL[:-6], "length")], {}),
    "tool_call_no_tools": (gchat(), [gout(G_CALL, end=HARMONY_CALL)], {}),
    "tool_none": (gchat(tools=TOOLS, tool_choice="none"), [gout(
        G_ANALYSIS + G_FINAL + "No tools.")], {}),
    "tool_required": (gchat(tools=TOOLS, tool_choice="required"), [gout(
        G_CALL, end=HARMONY_CALL)], {}),
    "tool_named": (gchat(tools=TOOLS, tool_choice=NAMED), [gout(G_CALL, end=HARMONY_CALL)], {}),
    "tool_call_then_final": (gchat(tools=TOOLS), [gout(
        G_CALL + "<|call|>" + G_FINAL + "Done.")], {}),
    "logprobs": (gchat(logprobs=True, top_logprobs=2), [gout(
        G_ANALYSIS + G_FINAL + "Sunny 🌞.", logprobs=4)], {}),
    "logprobs_no_top": (gchat(logprobs=True), [gout(G_ANALYSIS + G_FINAL + "Ok.", logprobs=3)],
                        {}),
    "include_reasoning_false": (gchat(include_reasoning=False), [gout(
        G_ANALYSIS + G_FINAL + "Sunny.")], {}),
    "stop_string": (gchat(stop=["sunny"]), [gout(G_ANALYSIS + G_FINAL + "It is sunny today.")],
                    {}),
    "stop_token_end": (gchat(stop_token_ids=[200007]), [gout(
        "<|channel|>analysis<|message|>Hm.", end=200007)], {}),
    "n2": (gchat(n=2), [gout("<|channel|>final<|message|>A.", index=0),
                        gout(G_ANALYSIS + G_FINAL + "B.", index=1)], {}),
    "return_token_ids": (gchat(return_token_ids=True), [gout(G_FINAL[18:] + "Hi.")], {}),
    "metrics": (gchat(), [gout(G_ANALYSIS + G_FINAL + "Hi.")], {"metrics": METRICS}),
    "skip_special_false": (gchat(skip_special_tokens=False), [gout(
        G_ANALYSIS + G_FINAL + "Hi.")], {}),
    "two_analysis": (gchat(), [gout(
        G_ANALYSIS + "<|start|>assistant<|channel|>analysis<|message|>More.<|end|>"
        + G_FINAL + "Ok.")], {}),
}

#: gpt-oss ids past the tokenizer's 200,019 (up to vocab_size 201,088), and special tokens
#: inside a message: openai-harmony decodes them as their names (``<|reserved_N|>``)
G_RESERVED = (ids(G_ANALYSIS[:-7], "gpt-oss") + [200019] + ids(" more.<|end|>" + G_FINAL + "Hi",
                                                              "gpt-oss")
              + [201087] + ids(" there", "gpt-oss") + [200013, 200018])
DERENDER_CHAT_GPTOSS.update({
    "reserved_ids": (gchat(), [gout(G_RESERVED)], {}),
    "reserved_ids_keep_special": (gchat(skip_special_tokens=False), [gout(G_RESERVED)], {}),
    "reserved_ids_logprobs": (gchat(logprobs=True, top_logprobs=2), [gout(G_RESERVED,
                                                                          logprobs=3)], {}),
    "reserved_id_last": (gchat(), [gout(G_FINAL[18:] + "Hi", "length", end=None) | {
        "token_ids": ids(G_FINAL[18:] + "Hi", "gpt-oss") + [201087]}], {}),
    # vLLM's harmony parser reads every output id, the stop token that ended it too: an EOS
    # harmony does not end a message on (<|endoftext|>, generation_config's) is message text
    # there, and so is a stop_token_ids word (deviation stop_id_harmony: tito leaves it out)
    "stop_id_harmony_endoftext": (gchat(), [gout(G_ANALYSIS + G_FINAL + "Hi", end=199999)], {}),
    "stop_id_harmony_endoftext_keep_special": (gchat(skip_special_tokens=False), [gout(
        "<|channel|>analysis<|message|>Hm", end=199999)], {}),
    "stop_id_harmony_text": (gchat(stop_token_ids=[41612]), [gout(
        G_ANALYSIS + G_FINAL + "Hi wow", end=None) | {"stop_reason": 41612}], {}),
    "stop_id_harmony_text_stop_string": (gchat(stop_token_ids=[41612], stop=["wow"]), [gout(
        G_ANALYSIS + G_FINAL + "Hi wow", end=None) | {"stop_reason": 41612}], {}),
})

#: an id past the tokenizer inside a character's bytes (``🌧`` is ids 64364, 100): text that is no
#: harmony message (rule 4's recoveries) is the tokenizer's decode, where that id is nothing and
#: the character stays whole; inside a message it ends the character (openai-harmony's reading)
G_PAD_CHAR = [64364, 200903, 100]
G_LONG_PLAIN = "Plain words, no harmony at all, " * 9
DERENDER_CHAT_GPTOSS.update({
    "padded_in_char_plain": (gchat(), [gout(
        ids("It rains ", "gpt-oss") + G_PAD_CHAR + ids(" today.", "gpt-oss"), end=None)], {}),
    "padded_in_char_plain_long": (gchat(), [gout(
        ids("It rains ", "gpt-oss") + G_PAD_CHAR + ids(G_LONG_PLAIN, "gpt-oss"), end=None)], {}),
    "padded_in_char_raw": (gchat(), [gout(
        ids(G_LONG_PLAIN, "gpt-oss") + G_PAD_CHAR + ids(" end.", "gpt-oss"), end=None)], {}),
    "padded_in_char_message": (gchat(), [gout(
        ids(G_ANALYSIS + G_FINAL + "It rains ", "gpt-oss") + G_PAD_CHAR + ids(".", "gpt-oss"))],
        {}),
    "padded_in_char_cut_header": (gchat(max_tokens=40), [gout(
        ids(G_ANALYSIS + "<|start|>assistant x", "gpt-oss") + G_PAD_CHAR, "length", end=None)],
        {}),
    "padded_in_char_held_header": (gchat(max_tokens=60), [gout(
        ids(G_ANALYSIS + "<|start|>assistant x", "gpt-oss") + G_PAD_CHAR
        + ids(" bad words<|message|>Dropped.<|start|>assistant<|channel|>fi", "gpt-oss"),
        "length", end=None)], {}),
    # a header whose bytes are no UTF-8 (64364: three bytes of a four-byte character) is
    # refused by openai-harmony ("could not decode header"): the call is dropped
    "unfinished_char_header": (gchat(tools=TOOLS), [gout(
        ids(G_ANALYSIS + "<|start|>assistant<|channel|>commentary to=functions.get_weather x",
            "gpt-oss") + [64364] + ids('<|message|>{"city": "Paris"}', "gpt-oss"),
        end=HARMONY_CALL)], {}),
})

STREAM_CHAT_GPTOSS = [
    "final_only", "analysis_final", "analysis_length", "final_length", "unicode", "plain_text",
    "tool_call", "tool_call_first", "tool_call_no_constrain", "tool_call_recipient_first",
    "tool_call_preamble", "tool_call_pretty_args", "tool_call_bad_json", "tool_call_length",
    "tool_required", "tool_named", "logprobs", "include_reasoning_false", "stop_token_end",
    "return_token_ids", "metrics", "two_analysis", "only_eos", "reserved_ids",
    "reserved_ids_logprobs", "stop_id_harmony_endoftext", "stop_id_harmony_text",
    "padded_in_char_plain", "padded_in_char_message",
    "padded_in_char_cut_header", "padded_in_char_held_header", "unfinished_char_header",
]
