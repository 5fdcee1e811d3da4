"""The request bodies of ``fuzz_render.py``, one drawer per endpoint: chat and completions
render, Responses render, Messages (Anthropic) render, ``/tokenize`` and ``/detokenize``.

Why apart: the fuzzer (its driver and comparison) passed 800 lines; each drawer reads the value
pools of ``fuzz_render_values.py`` in the same order as before, so every case is unchanged.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

from conformance.fuzz_custom_tools import add_custom  # noqa: E402
from conformance.fuzz_render_values import (  # noqa: E402
    CHAT_R, CMPL_R, MSG_R, PNG, RESP_R, SCHEMA, VOCAB, add_fields, conversation, maybe_wild,
    model_field, n_fields, pick, replay_parts_template, sampling_fields, text)

def gen_chat(r: random.Random, server: str) -> tuple[str, dict[str, Any]]:
    body: dict[str, Any] = {"messages": conversation(r)}
    fields = sampling_fields(r, VOCAB[server], chat=True)
    if server != "qwen3-trusted":
        fields.pop("chat_template")
    add_fields(r, body, fields, n_fields(r))
    if server == "qwen3-trusted" and "chat_template" not in body:
        body["chat_template"] = replay_parts_template()
    model_field(r, server, body)
    return CHAT_R, body


def gen_completion(r: random.Random, server: str) -> tuple[str, dict[str, Any]]:
    vocab = VOCAB[server]
    prompt = pick(r, [
        lambda: text(r), lambda: [text(r) for _ in range(r.randrange(1, 3))],
        lambda: [r.randrange(vocab) for _ in range(r.randrange(1, 8))],
        lambda: [[r.randrange(vocab) for _ in range(r.randrange(1, 5))] for _ in range(2)],
        lambda: pick(r, ["", [], [[]], [""], [-1], [vocab], [1.5], None, 5, [["a"]], [1, "a"],
                         {"a": 1}, [[1], "a"]]),
    ])()
    body: dict[str, Any] = {"prompt": prompt}
    if r.random() < 0.05:
        body["prompt_embeds"] = pick(r, ["AAAA", "", ["AAAA"]])
        if r.random() < 0.5:
            del body["prompt"]
    add_fields(r, body, sampling_fields(r, vocab, chat=False), n_fields(r))
    model_field(r, server, body)
    return CMPL_R, body


def resp_input_item(r: random.Random) -> Any:
    return pick(r, [
        lambda: {"role": pick(r, ["user", "system", "developer", "assistant"]), "content": text(r)},
        lambda: {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": text(r)}]},
        lambda: {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "ok", "annotations": []}]},
        lambda: {"type": "function_call", "call_id": "call_1", "name": "get_weather",
                 "arguments": pick(r, ['{"city": "Paris"}', "", "bad"])},
        lambda: {"type": "function_call_output", "call_id": pick(r, ["call_1", "zzz"]),
                 "output": pick(r, ["18C", "", [{"type": "input_text", "text": "x"}]])},
        lambda: {"type": "reasoning", "id": "rs_1", "summary": [],
                 "content": [{"type": "reasoning_text", "text": "hm"}]},
        lambda: {"role": "user", "content": [{"type": "input_image", "image_url": PNG}]},
        lambda: {"type": "bogus"}, lambda: "str", lambda: {"role": "user"},
        lambda: {"role": "tool", "content": "x"},
    ])()


def gen_responses(r: random.Random, server: str) -> tuple[str, dict[str, Any]]:
    k = r.random()
    inp = (text(r) if k < 0.4 else [resp_input_item(r) for _ in range(r.randrange(0, 4))]
           if k < 0.95 else pick(r, [None, 5, {}]))
    body: dict[str, Any] = {"input": inp}
    fields: dict[str, Callable[[], Any]] = {
        "instructions": lambda: pick(r, ["Be terse.", "", None]),
        "max_output_tokens": lambda: pick(r, [16, 1, 0, -1, 10**6, None]),
        "temperature": lambda: pick(r, [0.0, 0.7, 2.0, -1, 3]),
        "top_p": lambda: pick(r, [0.0, 0.5, 1.0, 2.0]),
        "top_k": lambda: pick(r, [-1, 0, 5]),
        "tools": lambda: [pick(r, [
            {"type": "function", "name": "get_weather", "parameters": SCHEMA},
            {"type": "function", "name": "ping", "description": "d", "parameters": None},
            {"type": "function", "name": "s", "parameters": SCHEMA, "strict": True},
            {"type": "web_search"}, {"type": "function"}, {"type": "bogus"}])
            for _ in range(r.randrange(0, 3))],
        "tool_choice": lambda: pick(r, ["auto", "none", "required", "bogus",
                                        {"type": "function", "name": "get_weather"}]),
        "parallel_tool_calls": lambda: pick(r, [True, False]),
        "text": lambda: pick(r, [{"format": {"type": "text"}},
                                 {"format": {"type": "json_object"}},
                                 {"format": {"type": "json_schema", "name": "w", "schema": SCHEMA}},
                                 {"format": {"type": "json_schema", "name": "w"}}, {}, None]),
        "reasoning": lambda: pick(r, [{"effort": "low"}, {"effort": "high"}, {"effort": "bogus"},
                                      {}, None]),
        "previous_response_id": lambda: pick(r, ["resp_1", None]),
        "store": lambda: pick(r, [True, False]),
        "stream": lambda: pick(r, [True, False]),
        "background": lambda: pick(r, [True, False]),
        "include": lambda: pick(r, [["reasoning.encrypted_content"], [], ["bogus"]]),
        "metadata": lambda: pick(r, [{"a": "b"}, None]),
        "truncation": lambda: pick(r, ["auto", "disabled", "bogus"]),
        "top_logprobs": lambda: pick(r, [0, 5, 21, -1]),
        "user": lambda: "u", "service_tier": lambda: pick(r, ["auto", "default", "flex"]),
        "prompt": lambda: pick(r, [{"id": "p"}, None]),
        "request_id": lambda: pick(r, ["rid", None]),
        "priority": lambda: pick(r, [0, 3]),
        "cache_salt": lambda: pick(r, ["s", None]),
        "enable_response_messages": lambda: pick(r, [True, False]),
        "max_tool_calls": lambda: pick(r, [1, 0, None]),
        "chat_template_kwargs": lambda: pick(r, [{"enable_thinking": False}, {}, None]),
    }
    add_fields(r, body, fields, n_fields(r))
    model_field(r, server, body)
    add_custom(r.extra, body)  # type: ignore[attr-defined]
    return RESP_R, body


def anthropic_block(r: random.Random, role: str) -> Any:
    blocks: list[Callable[[], Any]] = [
        lambda: {"type": "text", "text": text(r)},
        lambda: {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": "iVBORw0KGgo="}},
        lambda: {"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}},
        lambda: {"type": "bogus"}, lambda: {"type": "text"}, lambda: "str",
        lambda: {"type": "document", "source": {"type": "text", "data": "d",
                                                "media_type": "text/plain"}},
    ]
    if role == "assistant":
        blocks += [lambda: {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                            "input": pick(r, [{"city": "Paris"}, {}, "str"])},
                   lambda: {"type": "thinking", "thinking": "hm", "signature": "sig"},
                   lambda: {"type": "redacted_thinking", "data": "xx"}]
    else:
        blocks += [lambda: {"type": "tool_result", "tool_use_id": pick(r, ["toolu_1", "zz"]),
                            "content": pick(r, ["18C", [{"type": "text", "text": "18C"}], None,
                                                [{"type": "image", "source": {
                                                    "type": "base64", "media_type": "image/png",
                                                    "data": "iVBORw0KGgo="}}]]),
                            **({"is_error": True} if r.random() < 0.2 else {})}]
    return pick(r, blocks)()


def gen_messages(r: random.Random, server: str) -> tuple[str, dict[str, Any]]:
    msgs = []
    for i in range(r.randrange(1, 5)):
        role = pick(r, ["user", "assistant"]) if r.random() < 0.3 else ("user", "assistant")[i % 2]
        if r.random() < 0.03:
            role = pick(r, ["system", "tool", "bogus"])
        c = (text(r) if r.random() < 0.5 else
             [anthropic_block(r, role) for _ in range(r.randrange(0, 3))])
        msgs.append({"role": role, "content": c})
    if r.random() < 0.03:
        msgs = pick(r, [[], None, "hi"])
    body: dict[str, Any] = {"messages": msgs, "max_tokens": pick(r, [8, 1, 1024, 0, -1, 10**6])}
    if r.random() < 0.05:
        del body["max_tokens"]
    fields: dict[str, Callable[[], Any]] = {
        "system": lambda: pick(r, ["Be terse.", "", [{"type": "text", "text": "Sys"}],
                                   [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                                   [{"type": "bogus"}], 5]),
        "tools": lambda: [pick(r, [
            {"name": "get_weather", "description": "w", "input_schema": SCHEMA},
            {"name": "ping", "input_schema": {"type": "object"}},
            {"name": "x"}, {"type": "web_search_20250305", "name": "web_search"},
            {"name": "get_time", "input_schema": {"type": "object", "properties": {}}}])
            for _ in range(r.randrange(0, 3))],
        "tool_choice": lambda: pick(r, [{"type": "auto"}, {"type": "any"}, {"type": "none"},
                                        {"type": "tool", "name": "get_weather"},
                                        {"type": "tool"}, {"type": "bogus"}, "auto",
                                        {"type": "auto", "disable_parallel_tool_use": True}]),
        "stop_sequences": lambda: pick(r, [["\n"], [], ["a"] * 5, "x", [""]]),
        "temperature": lambda: pick(r, [0.0, 1.0, -1, 2.5]),
        "top_p": lambda: pick(r, [0.5, 1.0, 2.0]),
        "top_k": lambda: pick(r, [0, 5, -1]),
        "thinking": lambda: pick(r, [{"type": "enabled", "budget_tokens": 1024},
                                     {"type": "disabled"}, {"type": "adaptive"},
                                     {"type": "enabled"}, {"type": "bogus"}]),
        "metadata": lambda: pick(r, [{"user_id": "u"}, None]),
        "stream": lambda: pick(r, [True, False]),
        "service_tier": lambda: pick(r, ["auto", "standard_only"]),
        "output_config": lambda: pick(r, [{"effort": "low"}, {"format": {"type": "json_schema",
                                                                         "schema": SCHEMA}}]),
        "container": lambda: "c",
    }
    add_fields(r, body, fields, n_fields(r))
    model_field(r, server, body)
    return MSG_R, body


def gen_tokenize(r: random.Random, server: str) -> tuple[str, dict[str, Any]]:
    body: dict[str, Any]
    if r.random() < 0.5 or server == "gpt2":
        body = {"prompt": maybe_wild(r, lambda: text(r), 0.1)}
        fields: dict[str, Callable[[], Any]] = {
            "add_special_tokens": lambda: pick(r, [True, False]),
            "return_token_strs": lambda: pick(r, [True, False, None])}
    else:
        body = {"messages": conversation(r)}
        fields = {k: v for k, v in sampling_fields(r, VOCAB[server], chat=True).items()
                  if k in ("add_generation_prompt", "continue_final_message", "tools",
                           "chat_template_kwargs", "documents", "mm_processor_kwargs",
                           "add_special_tokens")}
        fields["return_token_strs"] = lambda: pick(r, [True, False])
        if server == "qwen3-trusted":
            body["chat_template"] = replay_parts_template()
    add_fields(r, body, fields, n_fields(r))
    model_field(r, server, body)
    return "/tokenize", body


def gen_detokenize(r: random.Random, server: str) -> tuple[str, dict[str, Any]]:
    vocab = VOCAB[server]
    toks = maybe_wild(r, lambda: [r.randrange(vocab + 50) if r.random() < 0.1 else
                                  r.randrange(vocab) for _ in range(r.randrange(0, 12))], 0.15)
    body = {"tokens": toks}
    model_field(r, server, body)
    return "/detokenize", body


ENDPOINTS: dict[str, tuple[float, Callable[[random.Random, str], tuple[str, dict[str, Any]]]]] = {
    "chat": (0.4, gen_chat), "completion": (0.18, gen_completion),
    "responses": (0.12, gen_responses), "messages": (0.12, gen_messages),
    "tokenize": (0.11, gen_tokenize), "detokenize": (0.07, gen_detokenize),
}
