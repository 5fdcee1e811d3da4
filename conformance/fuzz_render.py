"""A seeded differential fuzzer for tito's RENDER side against the real vLLM 0.33.0.

Why: the recorded corpus (``corpus.py``) holds the cases someone thought of; an independent
corpus run on the real vLLM holds others. This script generates random requests from a seed
(valid ones, boundary values, wrong types, unknown fields) for every render endpoint -- chat and
completions render, Responses render, Messages (Anthropic) render, ``/tokenize`` and
``/detokenize`` -- sends each to vLLM's render servers (``record.py``'s :data:`SERVERS`) and to
tito in-process (``replay.Tito``), compares them with ``replay.compare_case`` (the same
normalisation and DEVIATIONS as the golden replay) and prints the differences grouped by kind.

Run it (needs vllm==0.33.0, e.g. the venv at /work/vllm-venv)::

    /work/vllm-venv/bin/python conformance/fuzz_render.py --seed 1 -n 300
    /work/vllm-venv/bin/python conformance/fuzz_render.py --seed 2 -n 500 --models qwen3 gpt2 \\
        --url qwen3=http://127.0.0.1:18120 --url gpt2=http://127.0.0.1:18121
    ... --show 3          # up to 3 example cases per kind, requests included
    ... --record render_fuzz --only 's2-*'      # store the differing cases (vLLM's answers)
    ... --record render_fuzz --record-all --only 's2-17-*'   # store every selected case

Responses bodies also draw custom and namespace tools, named tool choices of them and their
call items (``fuzz_custom_tools.py``, from a generator of their own so that the other draws stay);
chat, ``/tokenize``, Responses and Messages bodies now and then a ``chat_template`` inside
``chat_template_kwargs`` (``fuzz_kwargs_template.py``, likewise apart).

A case is ``s<seed>-<i>-<endpoint>`` and is regenerated exactly from its seed and index (each
case draws from its own ``random.Random``), so a case found once can be replayed or recorded by
name. ``--record GROUP`` adds the cases with an unexplained difference (with ``--record-all``:
every selected case, so a case tito already answers right needs it) to
``conformance/goldens/GROUP.json`` in record.py's format, which the conformance test replays
without vLLM.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import random
import re
import shutil
import sys
import tempfile
import traceback
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

from conformance import record, replay  # noqa: E402
from conformance.fuzz_custom_tools import add_custom  # noqa: E402
from conformance.fuzz_kwargs_template import add_kwargs_template  # noqa: E402
from conformance.fuzz_structured import add_responses_structured  # noqa: E402
from conformance.calls import request as post  # noqa: E402
from tito.service.render_chat_parts import lazy_content  # noqa: E402

CHAT_R, CMPL_R = "/v1/chat/completions/render", "/v1/completions/render"
RESP_R, MSG_R = "/v1/responses/render", "/v1/messages/render"
#: the chat models, by template or native encoding (gpt2 has no template: its chat cases are
#: errors on both sides)
CHAT_SERVERS = ("qwen3", "qwen3-trusted", "gpt-oss", "mistral-v3", "mistral-v3-hf", "dsv32",
                "dsv4", "dsv41", "inkling")
#: the models' vocab_size (config.json; qwen3's tokenizer has 151,669 ids, its rows 151,936)
VOCAB = {"qwen3": 151936, "qwen3-trusted": 151936, "gpt2": 50257, "gpt-oss": 201088,
         "mistral-v3": 32768, "mistral-v3-hf": 32768, "dsv32": 151936, "dsv4": 151936,
         "dsv41": 151936, "inkling": 151936}
#: the servers whose reasoning parser scans the whole prompt for its markers (vLLM's
#: deepseek_v4 / deepseek_v41: no turn boundary tokens), where tito's scan stops at the newest
#: special token
WHOLE_PROMPT_SCAN = ("dsv4", "dsv41")
#: the special token of their (Qwen3's) vocabulary the value pools write in message text
SPECIAL_TEXT = "<|im_end|>"
#: an assistant message whose calls vLLM's /tokenize body leaves an unread iterable (its keys
#: within these: the OpenAI type's)
LAZY_CALLS_KEYS = frozenset({"role", "content", "tool_calls", "name"})
#: an image part or block of any API (chat, Responses, Messages; a DeepSeek-V4.1 one the
#: prompt may leave out: ``.image41``)
IMAGE_PART = re.compile(r'"type": "(image|image_url|input_image)"')
PNG = "data:image/png;base64,iVBORw0KGgo="
#: gpt-oss's built-in tool types (and mcp): a required or named choice with one is a deviation
HARMONY_HOSTED = ("code_interpreter", "web_search_preview", "container", "mcp")
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


# -- the endpoints ----------------------------------------------------------------------------


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


def _ids_past(values: Any, vocab: int) -> bool:
    """Whether ``values`` (ids, lists of ids, or a logit_bias object) hold an id outside
    ``[0, vocab)``."""
    if isinstance(values, dict):
        values = [k for k in values if isinstance(k, str) and k.lstrip("-").isdigit()]
        values = [int(k) for k in values]
    if not isinstance(values, list):
        return False
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    return any(type(x) is int and not 0 <= x < vocab for x in flat)


def _messages_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    msgs = body.get("messages")
    return [m for m in msgs if isinstance(m, dict)] if isinstance(msgs, list) else []


def _tool_results(path: str, body: dict[str, Any], msgs: list[dict[str, Any]]) -> bool:
    """Whether the conversation holds a tool result: a tool message, a Responses tool output
    item (found by seed 336) or a Messages ``tool_result`` block, each a tool turn for the
    template."""
    if path == RESP_R:
        items = body.get("input")
        return isinstance(items, list) and any(
            isinstance(i, dict) and i.get("type") in ("function_call_output",
                                                       "custom_tool_call_output") for i in items)
    if path == MSG_R:
        return any(isinstance(b, dict) and b.get("type") == "tool_result"
                   for m in msgs if isinstance(m.get("content"), list) for b in m["content"])
    return any(m.get("role") == "tool" for m in msgs)


def labels(server: str, path: str, body: dict[str, Any]) -> list[str]:
    """The intended deviations (``replay.DEVIATIONS``, case ``*.<label>*``) a case runs into,
    decided from the request alone: they become part of its name."""
    out = []
    vocab = VOCAB[server]
    if any(_ids_past(body.get(k), vocab) for k in ("stop_token_ids", "allowed_token_ids",
                                                    "logprob_token_ids", "logit_bias")) or (
            path == CMPL_R and _ids_past(body.get("prompt"), vocab)):
        out.append("oov")
    counts = [body.get(k) for k in ("top_logprobs", "prompt_logprobs")]
    if path == CMPL_R:
        counts.append(body.get("logprobs"))
    if any(type(c) is int and (c > 20 or c == -1 or path == RESP_R and c < 0) for c in counts):
        out.append("logprobs_bound")
    stop = body.get("stop_sequences" if path == MSG_R else "stop")
    if isinstance(stop, list) and len(stop) > 4:
        out.append("stop_many")
    msgs = _messages_of(body)
    if any(isinstance(m.get("content"), list) and any(
            isinstance(p, str) or isinstance(p, dict) and p.get("type") in (
                "input_text", "output_text") for p in m["content"]) for m in msgs):
        out.append("bare_parts")
    if body.get("allowed_token_ids") == []:
        out.append("allowed_empty")
    if path in (CHAT_R, MSG_R) and server == "gpt-oss" and any(
            type(body.get(k)) is int and body[k] > 131072
            for k in ("max_tokens", "max_completion_tokens")):
        out.append("gptoss_max")
    if body.get("kv_transfer_params"):
        out.append("kv")
    if server == "mistral-v3-hf" and _tool_results(path, body, msgs):
        out.append("fromjson")
    choice, tools = body.get("tool_choice"), body.get("tools")
    if path == RESP_R and server == "gpt-oss" and isinstance(tools, list) and any(
            isinstance(t, dict) and t.get("type") in HARMONY_HOSTED for t in tools) and (
            choice == "required" or isinstance(choice, dict)
            and choice.get("type") in ("function", "custom")):
        out.append("harmony_hosted")
    if path == RESP_R and server == "mistral-v3-hf":
        out.append("bos_template")
    if path == "/detokenize" and server == "mistral-v3":
        out.append("mistral")
    if server in WHOLE_PROMPT_SCAN and SPECIAL_TEXT in json.dumps(msgs):
        out.append("special_turn")
    if server == "dsv41" and path in (CHAT_R, "/tokenize") and (any(map(lazy_content, msgs)) or (
            path == "/tokenize" and any(m.get("role") == "assistant" and "tool_calls" in m
                                        and set(m) <= LAZY_CALLS_KEYS for m in msgs))):
        out.append("lazy_copy")
    items = body.get("input") if path == RESP_R and isinstance(body.get("input"), list) else []
    if server == "dsv41" and any(isinstance(i, dict) and i.get("type") == "custom_tool_call_output"
                                 and isinstance(i.get("output"), (list, dict)) for i in items):
        out.append("lazy_copy")  # (its output an openai Iterable, a list or an object's keys:
        # the tool message's content)
    if server == "dsv41" and path in (CHAT_R, "/tokenize") and any(
            m.get("role") == "developer" or "content_blocks" in m
            for m in msgs if IMAGE_PART.search(json.dumps(m))):
        out.append("image41")
    return out


def generate(seed: int, i: int, servers: list[str]) -> tuple[str, str, str, dict[str, Any]]:
    """Case ``i`` of ``seed``: (name, server, path, body); the same for the same arguments."""
    r = random.Random(f"{seed}-{i}")
    r.clean = r.random() < 0.7  # type: ignore[attr-defined] (most cases: at most one defect)
    #: the draws added later (fuzz_custom_tools), apart so that r's own draws stay as they were
    r.extra = random.Random(f"{seed}-{i}-extra")  # type: ignore[attr-defined]
    endpoint = r.choices(list(ENDPOINTS), weights=[w for w, _ in ENDPOINTS.values()])[0]
    pool = [s for s in servers if endpoint in ("completion", "tokenize", "detokenize")
            or s in CHAT_SERVERS or r.random() < 0.1] or servers
    server = pick(r, pool)
    path, body = ENDPOINTS[endpoint][1](r, server)
    # (a template in chat_template_kwargs: a generator of its own, the other draws unchanged)
    add_kwargs_template(random.Random(f"{seed}-{i}-kwargs-template"), path, body)
    # (a Responses structured_outputs: the same, since session 39)
    add_responses_structured(random.Random(f"{seed}-{i}-structured"), path, body)
    name = f"s{seed}-{i}-{endpoint}" + "".join(f".{x}" for x in labels(server, path, body))
    return name, server, path, body


# -- the comparison ---------------------------------------------------------------------------

GROUP = "render_fuzz"


def kind_of(d: replay.Difference, path: str) -> str:
    endpoint = d.case.split("-", 2)[2].split(".")[0]
    field = re.sub(r"\.\d+", ".N", d.path)
    if d.path == "status":
        return f"{endpoint} status vllm={d.vllm} tito={d.tito}"
    return f"{endpoint} {field}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=200, help="number of cases")
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--models", nargs="*", default=list(record.SERVERS),
                    help=f"servers to use ({', '.join(record.SERVERS)})")
    ap.add_argument("--url", action="append", default=[], metavar="MODEL=URL",
                    help="a running render server for MODEL (record.py's flags), else one is started")
    ap.add_argument("--vllm", default=str(Path(sys.executable).with_name("vllm")))
    ap.add_argument("--only", default="*", help="fnmatch pattern of case names to run")
    ap.add_argument("--show", type=int, default=1, help="example cases printed per kind")
    ap.add_argument("--all", action="store_true", help="list intended differences too")
    ap.add_argument("--record", metavar="GROUP",
                    help="add the cases with an unexplained difference (with --record-all: "
                    "every selected case) to conformance/goldens/GROUP.json")
    ap.add_argument("--record-all", action="store_true",
                    help="with --record: every selected case, not only the differing ones")
    args = ap.parse_args()
    urls: dict[str, str] = dict(u.split("=", 1) for u in args.url)
    cases = [c for i in range(args.start, args.start + args.n)
             if fnmatch.fnmatchcase((c := generate(args.seed, i, args.models))[0], args.only)]
    answers: dict[str, tuple[int, Any]] = {}
    version: dict[str, Any] = {}
    tmp = Path(tempfile.mkdtemp(prefix="tito-fuzz-render-"))
    try:
        for server in sorted({s for _, s, _, _ in cases}):
            ask(server, cases, urls, args.vllm, tmp, answers, version)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    run(args, cases, answers, version)


def ask(server: str, cases: list[tuple[str, str, str, dict[str, Any]]], urls: dict[str, str],
        vllm: str, tmp: Path, answers: dict[str, tuple[int, Any]],
        version: dict[str, Any]) -> None:
    """vLLM's answers to ``server``'s cases, from ``--url``'s server or one started for them and
    stopped after: one server at a time (the shared box's cores and memory), so a run over
    every model costs no more at once than a run over one."""
    proc = None
    if server not in urls:
        proc, url = record.start_server(server, vllm, tmp)
    else:
        url = urls[server]
    try:
        if proc is not None:
            record.wait_ready(url, proc)
        if not version:
            with urllib.request.urlopen(url + "/version") as r:
                version.update(json.loads(r.read()))
        for name, s, path, body in cases:
            if s == server:
                answers[name] = post(url, path, body)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)


def run(args: argparse.Namespace, cases: list[tuple[str, str, str, dict[str, Any]]],
        answers: dict[str, tuple[int, Any]], version: dict[str, Any]) -> None:
    tito = replay.Tito()
    kinds: dict[str, list[tuple[replay.Difference, dict[str, Any]]]] = defaultdict(list)
    intended: dict[str, int] = defaultdict(int)
    found: dict[str, dict[str, Any]] = {}  #: the cases to record
    differing_names: set[str] = set()
    per_server: dict[str, int] = defaultdict(int)
    statuses: dict[tuple[str, int], int] = defaultdict(int)
    for name, server, path, body in cases:
        per_server[server] += 1
        status, resp = answers[name]
        statuses[(server, status)] += 1
        if status >= 500:  # vLLM's own crash (an unhandled exception): tito answers 4xx
            name += ".vllm500"
        case = {"server": server, "path": path, "request": body, "status": status,
                "response": resp}
        try:
            diffs = replay.compare_case(tito, GROUP, name, case)
        except Exception:  # noqa: BLE001 (a crash of tito's app is a finding)
            diffs = [replay.Difference(GROUP, name, "exception", status,
                                       traceback.format_exc(limit=-3), None)]
        unexplained = [d for d in diffs if d.deviation is None]
        for d in diffs:
            if d.deviation is not None:
                intended[d.deviation.reason[:70]] += 1
        if unexplained:
            differing_names.add(name.split(".")[0])
        if unexplained or args.record_all:
            found[name] = case
        seen = set()
        if any(d.path == "status" for d in unexplained):  # the status says it all
            unexplained = [d for d in unexplained if d.path == "status"]
        for d in unexplained:
            k = kind_of(d, path)
            if k not in seen:
                seen.add(k)
                kinds[k].append((d, case))
    print(f"{len(cases)} cases: " + ", ".join(f"{s} {n}" for s, n in sorted(per_server.items())))
    print("vLLM statuses: " + ", ".join(f"{s}:{c} {n}" for (s, c), n in sorted(statuses.items())))
    for k, items in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"\n== {len(items)} x {k}")
        for d, case in items[:args.show]:
            print(f"   {d.case} [{case['server']}] vllm={json.dumps(d.vllm)[:300]} "
                  f"tito={json.dumps(d.tito)[:300]}")
            print(f"      request={json.dumps(case['request'], ensure_ascii=False)[:600]}")
            if d.path == "status" and case["status"] != 200:
                print(f"      vllm error={json.dumps(case['response'], ensure_ascii=False)[:300]}")
    if args.all:
        print("\nintended:")
        for reason, n in sorted(intended.items(), key=lambda kv: -kv[1]):
            print(f"   {n} x {reason}")
    differing: dict[str, int] = defaultdict(int)
    for name, server, _, _ in cases:
        differing[server] += name.split(".")[0] in differing_names
    print("unexplained per model: " + ", ".join(
        f"{s} {differing[s]}/{n}" for s, n in sorted(per_server.items())))
    print(f"\n{len(differing_names)} cases with unexplained differences, {len(kinds)} kinds")
    if args.record:
        if not args.record_all and len(found) < len(cases):
            print(f"{len(cases) - len(found)} selected cases without an unexplained difference "
                  "not recorded (--record-all records them too)")
        save(args.record, found, version)


def save(group: str, cases: dict[str, dict[str, Any]], version: dict[str, Any]) -> None:
    path = record.GOLDENS / f"{group}.json"
    data = json.loads(path.read_text()) if path.exists() else None
    if data is None:
        data = {"vllm": version, "server": "several (each case names its own)",
                "flags": record.SERVERS, "cases": {}}
    data["cases"].update(cases)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{path.relative_to(HERE.parent)}: {len(data['cases'])} cases")


if __name__ == "__main__":
    main()
