"""Record harmony goldens from vLLM 0.33 itself (run with vLLM's python, never in tests/CI):

    /work/vllm-venv/bin/python tests/record_harmony_goldens.py

Render: each request of ``CORPUS`` through vLLM's own harmony_utils (``build_harmony_preamble``,
``parse_chat_inputs_to_harmony_messages``, ``render_for_completion``), ids stored.
Derender: each output of ``OUTPUTS`` through vLLM's ``HarmonyParser.parse`` (batch) with the
gpt-oss tokenizer; reasoning, content and tool calls stored.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ["VLLM_SYSTEM_START_DATE"] = "2026-12-01"
START_DATE = "2026-12-01"

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the weather.\nUse for any city.",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        "days": {"type": "integer", "default": 1, "description": "Forecast days"},
        "hourly": {"type": ["boolean", "null"]},
        "where": {"type": "object", "description": "Nested place", "properties": {
            "lat": {"type": "number"}, "lon": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["lat"]},
        "mode": {"oneOf": [{"type": "string", "description": "named"},
                           {"type": "integer", "description": "numbered"}],
                 "description": "How"},
    }, "required": ["location"]}}}
SEARCH = {"type": "function", "function": {"name": "search", "parameters": {
    "type": "object", "properties": {"q": {"type": "string", "title": "Query",
                                           "examples": ["cats", "dogs"]}}}}}
NOARGS = {"type": "function", "function": {"name": "ping", "description": ""}}

CORPUS = [
    {"messages": [{"role": "user", "content": "Hi!"}]},
    {"messages": [{"role": "user", "content": "Hi!"}], "reasoning_effort": "low"},
    {"messages": [{"role": "user", "content": "Hi!"}], "reasoning_effort": "high"},
    {"messages": [{"role": "system", "content": "You are terse."},
                  {"role": "user", "content": "Explain DNS."}]},
    {"messages": [{"role": "developer", "content": [{"type": "text", "text": "Be "},
                                                    {"type": "text", "text": "kind."}]},
                  {"role": "user", "content": "héllo wörld 😀 中文 <|end|> <|start|>"}]},
    {"messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": [WEATHER]},
    {"messages": [{"role": "system", "content": "Use tools."},
                  {"role": "user", "content": "Weather in Paris and cats?"}],
     "tools": [WEATHER, SEARCH, NOARGS], "reasoning_effort": "medium"},
    {"messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Checking.", "reasoning": "Need the tool.",
         "tool_calls": [
             {"id": "call_1", "type": "function",
              "function": {"name": "get_weather", "arguments": "{\"location\": \"Paris\"}"}},
             {"id": "call_2", "type": "function",
              "function": {"name": "search", "arguments": "{\"q\":\"cats\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "20°C, sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "cats!"}]},
    ], "tools": [WEATHER, SEARCH]},
    {"messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "reasoning": "tool time",
         "tool_calls": [{"id": "c9", "type": "function",
                         "function": {"name": "get_weather", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "c9", "content": "rain"},
        {"role": "assistant", "content": "It rains.", "reasoning": "summarize"},
        {"role": "system", "content": "Now answer in French."},
        {"role": "user", "content": [{"type": "text", "text": "Merci"},
                                     {"type": "text", "text": " beaucoup"}]},
    ], "tools": [WEATHER], "reasoning_effort": "low"},
    {"messages": [{"role": "user", "content": "x"},
                  {"role": "tool", "tool_call_id": "unknown", "content": "orphan"}]},
    {"messages": [{"role": "system", "content": ""}, {"role": "user", "content": "empty sys"}]},
]

OUTPUTS = [
    "<|channel|>analysis<|message|>The user greets. Reply briefly.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>Hello! 👋 How can I help?<|return|>",
    "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary "
    "to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"Paris\"}<|call|>",
    "<|channel|>analysis<|message|>Tool.<|end|><|start|>assistant to=functions.search"
    "<|channel|>commentary json<|message|>{\"q\":\"cats\"}<|call|>",
    "<|channel|>commentary<|message|>Let me look.<|end|><|start|>assistant<|channel|>final"
    "<|message|>Done.<|return|>",
    "<|channel|>analysis<|message|>one<|end|><|start|>assistant<|channel|>analysis<|message|>two"
    "<|end|><|start|>assistant<|channel|>final<|message|>ans<|return|>",
    "<|channel|>final<|message|>just an answer",
    "<|channel|>analysis<|message|>cut mid thought",
    "Plain text with no harmony at all.",
]


STRUCTURED = [
    {"response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}}},
    {"response_format": {"type": "json_object"}},
    {"structured_outputs": {"regex": "a+"}},
    {"structured_outputs": {"choice": ["yes", "no"], "disable_any_whitespace": True}},
    {"structured_outputs": {"json": {"type": "array", "items": {"type": "string"}}}},
]


def main() -> None:
    from openai_harmony import Role  # noqa: F401  (vLLM's own import path)
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.parser.harmony_utils import (
        build_harmony_preamble,
        extract_instructions_from_messages,
        parse_chat_inputs_to_harmony_messages,
        render_for_completion,
    )

    from harmony_ref import harmony_encoding

    enc = harmony_encoding(pathlib.Path("/tmp/tito-o200k"))
    render = []
    for case in CORPUS:
        req = ChatCompletionRequest(model="gpt-oss", **case)
        instructions, rest = extract_instructions_from_messages(list(req.messages))
        msgs = build_harmony_preamble(
            instructions=instructions, tools=req.tools,
            reasoning_effort=req.reasoning_effort, with_custom_tools=req.tools is not None,
        )
        msgs += parse_chat_inputs_to_harmony_messages(rest)
        render.append({"request": case, "prompt_token_ids": render_for_completion(msgs)})

    from transformers import PreTrainedTokenizerFast
    from vllm.parser.harmony import HarmonyParser
    from vllm.reasoning.gptoss_reasoning_parser import GptOssReasoningParser  # noqa: F401

    tok = PreTrainedTokenizerFast(tokenizer_file=str(HERE.parent / "layers/tokenizer/models/"
                                                     "gpt-oss/tokenizer.json"))
    derender = []
    for text in OUTPUTS:
        ids = enc.encode(text, allowed_special="all")
        req = ChatCompletionRequest(model="gpt-oss", messages=[{"role": "user", "content": "x"}],
                                    tools=[WEATHER, SEARCH])
        parser_cls = HarmonyParser
        from vllm.parser.parser_manager import ParserManager
        parser_cls = ParserManager.get_parser(tool_parser_name="openai",
                                               reasoning_parser_name="openai_gptoss",
                                               enable_auto_tools=True, is_harmony=True,
                                               model_name="gpt-oss", tokenizer=tok)
        parser = parser_cls(tok, req.tools)
        reasoning, content, calls = parser.parse(tok.decode(ids), req, enable_auto_tools=True,
                                                 model_output_token_ids=ids)
        derender.append({"output": text, "token_ids": ids, "reasoning": reasoning,
                         "content": content,
                         "tool_calls": [[c.name, c.arguments] for c in calls or []]})
    from vllm.parser.harmony import _adjust_output_format

    structured = []
    for fields in STRUCTURED:
        req = ChatCompletionRequest(model="gpt-oss", messages=[{"role": "user", "content": "x"}],
                                    **fields)
        params = _adjust_output_format(req).structured_outputs
        structured.append({"request": fields, "structural_tag": params.structural_tag})
    out = {"start_date": START_DATE, "render": render, "derender": derender,
           "structured": structured}
    (HERE / "goldens" / "harmony.json").write_text(json.dumps(out, ensure_ascii=False, indent=1))
    print(f"recorded {len(render)} renders, {len(derender)} derenders")


if __name__ == "__main__":
    main()
