"""The value pools and drawers of ``fuzz_render.py``: wild and edge values, texts, tools, calls,
content parts, messages and conversations, the sampling fields of chat and completions.

Why apart: the fuzzer's bodies (``fuzz_render_bodies.py``) and its labels
(``fuzz_render_labels.py``) read these; every draw is the same code as before the split, so a
case ``s<seed>-<i>`` is the same body it always was.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

CHAT_R, CMPL_R = "/v1/chat/completions/render", "/v1/completions/render"
RESP_R, MSG_R = "/v1/responses/render", "/v1/messages/render"
#: the models' vocab_size (config.json; qwen3's tokenizer has 151,669 ids, its rows 151,936)
VOCAB = {"qwen3": 151936, "qwen3-trusted": 151936, "gpt2": 50257, "gpt-oss": 201088,
         "mistral-v3": 32768, "mistral-v3-hf": 32768, "dsv32": 151936, "dsv4": 151936,
         "dsv41": 151936, "inkling": 151936}
PNG = "data:image/png;base64,iVBORw0KGgo="
LONG = "long " * 1200

# -- value pools --------------------------------------------------------------------------------

#: values of the wrong type or at the edge, for any field
WILD: list[Any] = [None, 0, -1, 1, 2, 2**31, 2**63, -(2**63), 10**30, 1e308, -0.5, 0.5, 1.5, 3.0,
                   True, False, "", "x", "auto", "none", "ünï 😀", [], [1], ["a"], {}, {"a": 1},
                   "NaN", [None], [[1, 2]], [-1]]
TEXTS = ["Hi", "", " ", "What is the weather in Paris?", "ünïcødé 😀 中文", "<|im_end|>", "<think>x",
         "[INST] x [/INST]", "<|start|>assistant", "a\nb\n\n", "\u0000", LONG, "{{ x }}", "{% if %}"]


def pick(r: random.Random, xs: list[Any]) -> Any:
    return xs[r.randrange(len(xs))]


def maybe_wild(r: random.Random, valid: Callable[[], Any], p: float = 0.2) -> Any:
    return pick(r, WILD) if r.random() < p else valid()


def text(r: random.Random) -> str:
    return pick(r, TEXTS) if r.random() < 0.5 else pick(r, TEXTS[:5])


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "unit": {"type": "string", "enum": ["c", "f"]}},
          "required": ["city"]}


def func_tool(r: random.Random, name: str | None = None) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": name or pick(r, ["get_weather", "get_time", "ping", "a-b.c"])}
    if r.random() < 0.7:
        fn["description"] = pick(r, ["Current weather", "", "ünï"])
    if r.random() < 0.8:
        fn["parameters"] = pick(r, [SCHEMA, {}, {"type": "object", "properties": {}},
                                    {"type": "object"}, SCHEMA | {"additionalProperties": False}])
    if r.random() < 0.2:
        fn["strict"] = pick(r, [True, False, None])
    tool = {"type": "function", "function": fn}
    if r.random() < 0.05:
        tool = pick(r, [{"type": "function"}, {"type": "custom", "custom": {"name": "x"}},
                        {"function": fn}, {"type": "function", "function": {}}, "tool"])
    return tool


def tool_call(r: random.Random) -> dict[str, Any]:
    call: dict[str, Any] = {"id": pick(r, ["call_1", "chatcmpl-tool-1", "abc123def", "", "x" * 9]),
                            "type": "function",
                            "function": {"name": pick(r, ["get_weather", "get_time"]),
                                         "arguments": pick(r, ['{"city": "Paris"}', "{}", "",
                                                               "not json", '{"a": [1, {"b": null}]}',
                                                               '"str"', "[1]"])}}
    if r.random() < 0.1:
        call["function"]["arguments"] = pick(r, [{"city": "Paris"}, None, 1])
    if r.random() < 0.08:
        del call[pick(r, ["id", "type", "function"])]
    if r.random() < 0.1:  # extra keys (vLLM keeps them, after the typed ones)
        call[pick(r, ["index", "extra"])] = pick(r, [0, None, "x"])
    if r.random() < 0.1:  # the client's key order
        call = dict(reversed(list(call.items())))
    return call


def part(r: random.Random) -> Any:
    k = r.random()
    if k < 0.55:
        return {"type": "text", "text": text(r)}
    return pick(r, [
        {"type": "image_url", "image_url": {"url": PNG}},
        {"type": "image_url", "image_url": PNG},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
        {"type": "video_url", "video_url": {"url": "https://example.com/a.mp4"}},
        {"type": "refusal", "refusal": "no"},
        {"type": "thinking", "thinking": "hm"},
        {"type": "input_text", "text": "in"},
        {"type": "output_text", "text": "out"},
        {"type": "text"}, {"type": "text", "text": None}, {"type": "text", "text": 5},
        {"type": "bogus"}, {"text": "no type"}, "bare string", None, 3,
        {"type": "image_url", "image_url": {"url": PNG, "detail": "low"}},
        {"type": "file", "file": {"file_data": "AAAA"}},
        {"type": "thinking"}, {"type": "thinking", "thinking": "h", "closed": True},
        {"type": "text", "text": "x", "extra": 1}, {"type": "text", "text": "u", "uuid": "u"},
        {"type": "refusal"}, {"type": "input_text"},
    ])


def content(r: random.Random, role: str) -> Any:
    k = r.random()
    if k < 0.6:
        return text(r)
    if k < 0.85:
        return [part(r) for _ in range(r.randrange(0, 4))]
    return pick(r, [None, "", [], 5, {"type": "text", "text": "obj"}, ["a", "b"]])


ROLES = ["system", "developer", "user", "assistant", "tool", "function", "bogus", None]


def message(r: random.Random, role: str | None = None) -> dict[str, Any]:
    role = role or pick(r, ROLES)
    m: dict[str, Any] = {"role": role, "content": content(r, role)}
    if role is None:
        del m["role"]
    if r.random() < 0.15:
        m["name"] = pick(r, ["bob", "", "ünï", 5])
    if role == "assistant":
        if r.random() < 0.35:
            m["tool_calls"] = [tool_call(r) for _ in range(r.randrange(0, 3))]
            if r.random() < 0.5:
                m["content"] = None
        if r.random() < 0.15:
            m[pick(r, ["reasoning", "reasoning_content"])] = pick(r, ["thought", "", None, 3])
    if role == "tool":
        if r.random() < 0.85:
            m["tool_call_id"] = pick(r, ["call_1", "", "zzz", 7])
    if role == "function" and r.random() < 0.5:
        m["name"] = "get_weather"
    if r.random() < 0.04:
        m["extra_unknown_field"] = 1
    if r.random() < 0.12:  # keys vLLM's message types know or not (which reach a template)
        m[pick(r, ["thinking", "refusal", "audio", "task", "tool_call_id", "function_call",
                   "tools", "reasoning"])] = pick(r, ["t", None, {"id": "a"}, 4, [],
                                                      {"name": "f", "arguments": "{}"}])
    return m


def clean_message(r: random.Random, role: str) -> dict[str, Any]:
    """A well-formed message of ``role`` (text or text parts; assistant calls well-formed)."""
    if role == "tool":
        return {"role": "tool", "tool_call_id": "call_1", "content": pick(r, TEXTS[:5])}
    c: Any = pick(r, TEXTS) if r.random() < 0.8 else [
        {"type": "text", "text": pick(r, TEXTS[:5])} for _ in range(r.randrange(1, 3))]
    m: dict[str, Any] = {"role": role, "content": c}
    if role == "assistant" and r.random() < 0.3:
        m["tool_calls"] = [{"id": "call_1", "type": "function", "function": {
            "name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    return m


def clean_conversation(r: random.Random) -> list[dict[str, Any]]:
    msgs = [{"role": "system", "content": pick(r, TEXTS[:5])}] if r.random() < 0.3 else []
    for i in range(r.randrange(1, 4)):
        msgs.append(clean_message(r, "user"))
        if r.random() < 0.6:
            a = clean_message(r, "assistant")
            msgs.append(a)
            if "tool_calls" in a:
                msgs.append(clean_message(r, "tool"))
    if r.random() < 0.2:
        msgs.append(clean_message(r, "assistant"))
    return msgs


def conversation(r: random.Random) -> list[Any]:
    if getattr(r, "clean", False):
        msgs = clean_conversation(r)
        if r.random() < 0.25:  # one defect
            msgs[r.randrange(len(msgs))] = message(r)
        return msgs
    k = r.random()
    if k < 0.3:
        return [{"role": "user", "content": text(r)}]
    if k < 0.4:
        return [message(r)]
    if k < 0.5:  # a tool round trip
        return [{"role": "user", "content": "Weather?"},
                {"role": "assistant", "content": None, "tool_calls": [tool_call(r)]},
                {"role": "tool", "tool_call_id": "call_1", "content": content(r, "tool")},
                *([{"role": "user", "content": "thanks"}] if r.random() < 0.5 else [])]
    if k < 0.52:
        return pick(r, [[], [{}], ["hi"], [None], "hi"])
    msgs = [message(r) for _ in range(r.randrange(1, 6))]
    if r.random() < 0.5 and msgs and isinstance(msgs[0], dict):
        msgs.insert(0, {"role": "system", "content": text(r)})
    return msgs


def response_format(r: random.Random) -> Any:
    return pick(r, [
        {"type": "text"}, {"type": "json_object"},
        {"type": "json_schema", "json_schema": {"name": "w", "schema": SCHEMA}},
        {"type": "json_schema", "json_schema": {"name": "w", "schema": SCHEMA, "strict": True}},
        {"type": "json_schema", "json_schema": {"name": "w"}},
        {"type": "json_schema"}, {"type": "json_schema", "json_schema": {"schema": "bad"}},
        {"type": "structural_tag", "format": {"type": "const_string", "value": "hi"}},
        {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": SCHEMA,
                                                   "end": "</a>"}], "triggers": ["<a>"]},
        {"type": "grammar"}, {"type": "bogus"}, {}, "json", None,
    ])


def structured_outputs(r: random.Random) -> Any:
    return pick(r, [
        {"json": SCHEMA}, {"json": json.dumps(SCHEMA)}, {"json": "not json"}, {"regex": "[a-z]+"},
        {"regex": "("}, {"choice": ["yes", "no"]}, {"choice": []}, {"grammar": 'root ::= "a"'},
        {"grammar": "root: \"a\""}, {"json_object": True}, {"json_object": False},
        {"regex": "a", "choice": ["a"]}, {"json": SCHEMA, "disable_any_whitespace": True},
        {"structural_tag": json.dumps({"type": "structural_tag", "format": {
            "type": "const_string", "value": "x"}})},
        {"whitespace_pattern": " "}, {}, {"bogus": 1}, None, "regex",
    ])


def tool_choice(r: random.Random) -> Any:
    return pick(r, ["auto", "none", "required", "bogus", None,
                    {"type": "function", "function": {"name": "get_weather"}},
                    {"type": "function", "function": {"name": "missing"}},
                    {"type": "function"}, {"type": "allowed_tools"}, 3])


def sampling_fields(r: random.Random, vocab: int, chat: bool) -> dict[str, Callable[[], Any]]:
    """field -> a generator of a (mostly) plausible value, boundary values included."""
    ids = lambda: [pick(r, [0, 1, 13, vocab - 1, vocab, -1, 10**9]) for _ in range(r.randrange(0, 4))]  # noqa: E731
    num = lambda lo, hi: lambda: pick(r, [lo, hi, (lo + hi) / 2, lo - 1, hi + 1, 0, 1, 0.0])  # noqa: E731
    f: dict[str, Callable[[], Any]] = {
        "temperature": num(0.0, 2.0), "top_p": num(0.0, 1.0), "top_k": lambda: pick(r, [-1, 0, 1, 50, -2, 10**6]),
        "min_p": num(0.0, 1.0), "presence_penalty": num(-2.0, 2.0),
        "frequency_penalty": num(-2.0, 2.0), "repetition_penalty": num(0.0, 2.0),
        "seed": lambda: pick(r, [0, 1, -1, 2**63, 2**64, 42, -(2**63) - 1]),
        "n": lambda: pick(r, [1, 2, 0, -1, 128, 129]),
        "max_tokens": lambda: pick(r, [1, 16, 0, -1, 10**6, 40960, 40961, 32768, None]),
        "min_tokens": lambda: pick(r, [0, 1, 5, -1, 10**6]),
        "stop": lambda: pick(r, ["\n", "", ["a", "b"], [], ["x"] * 5, [""], ["ü"], None, [1]]),
        "stop_token_ids": ids,
        "logit_bias": lambda: pick(r, [{"13": 5}, {"13": 101}, {"13": -100}, {"x": 1}, {},
                                       {str(vocab): 1}, {"-1": 1}, {"1": 1.5}, {"1": "a"}]),
        "allowed_token_ids": ids, "bad_words": lambda: pick(r, [["bad"], [], [""], ["a b", "ü"], "bad"]),
        "ignore_eos": lambda: pick(r, [True, False]),
        "skip_special_tokens": lambda: pick(r, [True, False]),
        "spaces_between_special_tokens": lambda: pick(r, [True, False]),
        "include_stop_str_in_output": lambda: pick(r, [True, False]),
        "truncate_prompt_tokens": lambda: pick(r, [-1, 0, 1, 5, -2, 10**6, None]),
        "truncation_side": lambda: pick(r, ["left", "right", "middle"]),
        "priority": lambda: pick(r, [0, 1, -5, 2**40]),
        "cache_salt": lambda: pick(r, ["salt", "", None]),
        "kv_transfer_params": lambda: pick(r, [{"do_remote_decode": True}, {}, None]),
        "return_token_ids": lambda: pick(r, [True, False, None]),
        "return_tokens_as_token_ids": lambda: pick(r, [True, False]),
        "prompt_logprobs": lambda: pick(r, [0, 1, 5, -1, 21, None]),
        "request_id": lambda: pick(r, ["my-id", "", None]),
        "add_special_tokens": lambda: pick(r, [True, False]),
        "structured_outputs": lambda: structured_outputs(r),
        "response_format": lambda: response_format(r),
        "user": lambda: pick(r, ["u", None]),
        "stream": lambda: pick(r, [False, True]),
        "stream_options": lambda: pick(r, [{"include_usage": True}, None]),
        "use_beam_search": lambda: pick(r, [False, True]),
        "length_penalty": num(0.0, 2.0),
        "best_of": lambda: pick(r, [1, 2, None]),
        "vllm_xargs": lambda: pick(r, [{"a": 1}, {"a": [1]}, None]),
        "thinking_token_budget": lambda: pick(r, [0, 10, -1, None]),
        "logprob_token_ids": ids,
    }
    if chat:
        f.update({
            "logprobs": lambda: pick(r, [True, False, None]),
            "top_logprobs": lambda: pick(r, [0, 1, 5, 20, 21, -1, None]),
            "max_completion_tokens": lambda: pick(r, [1, 16, 0, -1, 10**6, None]),
            "tools": lambda: [func_tool(r) for _ in range(r.randrange(0, 3))],
            "tool_choice": lambda: tool_choice(r),
            "parallel_tool_calls": lambda: pick(r, [True, False, None]),
            "reasoning_effort": lambda: pick(r, ["low", "medium", "high", "none", "bogus", None]),
            "include_reasoning": lambda: pick(r, [True, False]),
            "chat_template_kwargs": lambda: pick(r, [{"enable_thinking": False},
                                                    {"enable_thinking": True}, {}, {"x": 1},
                                                    {"tools": []}, None]),
            "add_generation_prompt": lambda: pick(r, [True, False]),
            "continue_final_message": lambda: pick(r, [True, False]),
            "echo": lambda: pick(r, [True, False]),
            "documents": lambda: pick(r, [[{"title": "t", "text": "d"}], [], None]),
            "mm_processor_kwargs": lambda: pick(r, [{}, None]),
            "media_io_kwargs": lambda: pick(r, [{}, None]),
            "chat_template": lambda: pick(r, ["{{ messages[0].content }}", "{% bad", None,
                                              replay_parts_template(), "auto", "",
                                              corpus_attr("DUMP_TEMPLATE"),
                                              corpus_attr("PARTS_DUMP_TEMPLATE")]),
        })
    else:
        f.update({
            "logprobs": lambda: pick(r, [0, 1, 5, 20, 21, -1, None, True]),
            "echo": lambda: pick(r, [True, False]),
            "suffix": lambda: pick(r, ["end", "", None]),
        })
    return f


def replay_parts_template() -> str:
    return corpus_attr("PARTS_TEMPLATE")


def corpus_attr(name: str) -> Any:
    from conformance import corpus

    return getattr(corpus, name)


def add_fields(r: random.Random, body: dict[str, Any], fields: dict[str, Callable[[], Any]],
               k: int) -> None:
    """``k`` random fields; a clean case gets at most one of a wild value."""
    names = r.sample(sorted(fields), k=min(k, len(fields)))
    wild = r.randrange(len(names)) if names and r.random() < 0.15 else -1
    for j, name in enumerate(names):
        clean = getattr(r, "clean", False)
        body[name] = (pick(r, WILD) if j == wild else fields[name]() if clean
                      else maybe_wild(r, fields[name], p=0.12))


def n_fields(r: random.Random) -> int:
    return pick(r, [0, 1, 1, 2, 3] if getattr(r, "clean", False) else [0, 1, 2, 3, 4, 6])


def model_field(r: random.Random, server: str, body: dict[str, Any]) -> None:
    name = "qwen3" if server == "qwen3-trusted" else server
    k = r.random()
    if k < 0.05 and server == "qwen3":  # a missing or empty name is the default model of both
        body.pop("model", None) if k < 0.03 else body.update(model=pick(r, ["", None]))
    elif k < 0.07:
        body["model"] = pick(r, ["nope", 5])
    else:
        body["model"] = name
