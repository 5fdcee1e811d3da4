"""Probe every JSON path of a rich request body with a pool of values, vLLM 0.33 against tito.

Why: the fuzzers draw the fields someone thought of; this probe sets each path of a rich body
(every key and list entry, nested) to each value of a pool (null, strings, numbers, lists,
objects), and adds each message key to every message that lacks it, then compares vLLM's
status (and prompt ids on a 200) with tito's in-process app. Sessions 39-40 found the
``render_request_fields``, ``render_responses_*_shapes`` and ``render_message_edges`` groups
this way. A difference is a lead, not a verdict: settle it on vLLM's server, then record the
cases into a corpus group (``record.py``) so the replay test pins them.

usage: python conformance/probe_paths.py ROUTE MODEL --url MODEL=URL [--limit N]
  ROUTE: chat, completions, completions_multi, tokenize, tokenize_flags, tokenize_prompt, detokenize, derender,
  derender_logprobs, derender_completion, derender_gptoss, derender_mistral, responses or
  messages; MODEL one of record.SERVERS, its render
  server started with record.py's flags (``record.start_server``).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: the values each path is set to
POOL: tuple[Any, ...] = (None, "x", "", 5, -1, 1.5, True, [], {}, ["a"], [5], {"a": 1})
#: ``--pool ints``: integers at the bounds of vocabularies and of the integer types readers use
INTS: tuple[Any, ...] = (0, 32767, 32768, 151935, 151936, 201088, 2**31 - 1, 2**31, 2**32 - 1,
                         2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -2**31 - 1, -2**63 - 1,
                         [2**32], [2**63], 1e20, -0.0)
#: the keys vLLM's message types know, added to each chat message that lacks them (the OpenAI
#: assistant type's own three since session 42: one it refuses leaves the custom type)
MESSAGE_KEYS = ("content", "name", "tool_calls", "tool_call_id", "reasoning", "tools", "task",
                "function_call", "audio", "refusal")
#: the keys of the Responses input item types, added to each input item that lacks them
ITEM_KEYS = ("type", "role", "content", "id", "status", "name", "call_id", "arguments",
             "output", "summary", "encrypted_content", "phase")
_TOOL = {"type": "function", "function": {"name": "get_w", "description": "d", "parameters": {
    "type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]}}}
_CALL = {"id": "c1", "type": "function",
         "function": {"name": "get_w", "arguments": "{\"c\": \"x\"}"}}
_MESSAGES = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
     "name": "u"},
    {"role": "assistant", "content": "b", "tool_calls": [_CALL], "reasoning": "r"},
    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}]},
    {"role": "user", "content": "q"},
]
#: route -> (path, the rich base body without its model)
ROUTES: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": ("/v1/chat/completions/render", {
        "messages": _MESSAGES, "tools": [_TOOL], "max_tokens": 10, "stop": ["x"],
        "tool_choice": {"type": "function", "function": {"name": "get_w"}},
        "logprobs": True, "top_logprobs": 2, "logit_bias": {"5": 1.0},
        "chat_template_kwargs": {"enable_thinking": False}}),
    "chat_sampling": ("/v1/chat/completions/render", {
        "messages": [{"role": "user", "content": "q"}], "tools": [_TOOL],
        "tool_choice": "required", "parallel_tool_calls": False, "n": 2, "seed": 7,
        "temperature": 0.5, "top_p": 0.9, "top_k": 5, "min_p": 0.1, "repetition_penalty": 1.1,
        "presence_penalty": 0.2, "frequency_penalty": 0.3, "min_tokens": 1,
        "max_completion_tokens": 20, "ignore_eos": False, "skip_special_tokens": False,
        "spaces_between_special_tokens": False, "include_stop_str_in_output": True,
        "stop_token_ids": [5], "bad_words": ["zz"], "allowed_token_ids": [5, 6, 7],
        "stream": True, "stream_options": {"include_usage": True,
                                           "continuous_usage_stats": True},
        "user": "u", "metadata": {"k": "v"}, "priority": 0, "request_id": "rid",
        "cache_salt": "salt", "truncate_prompt_tokens": 50,
        "return_token_ids": True, "add_generation_prompt": True, "echo": False}),
    "chat_format": ("/v1/chat/completions/render", {
        "messages": [{"role": "user", "content": "q"}],
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "s", "strict": True, "schema": {
                "type": "object", "properties": {"a": {"type": "integer"}},
                "required": ["a"]}}},
        "reasoning_effort": "low", "include_reasoning": True, "logprobs": True,
        "top_logprobs": 0, "max_tokens": 30}),
    "tokenize": ("/tokenize", {"messages": _MESSAGES, "tools": [_TOOL]}),
    "tokenize_flags": ("/tokenize", {
        "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
        "add_generation_prompt": False, "continue_final_message": True,
        "add_special_tokens": True, "return_token_strs": True,
        "chat_template_kwargs": {"enable_thinking": False}, "tool_choice": "auto",
        "tools": [_TOOL], "documents": [{"title": "t", "text": "d"}],
        "mm_processor_kwargs": {}}),
    "tokenize_prompt": ("/tokenize", {"prompt": "Hello there", "add_special_tokens": True,
                                      "return_token_strs": True}),
    "detokenize": ("/detokenize", {"tokens": [9707, 1052, 151643]}),
    "completions": ("/v1/completions/render", {
        "prompt": "Hello there", "max_tokens": 10, "stop": ["x"], "logprobs": 2, "echo": False,
        "logit_bias": {"5": 1.0}, "seed": 3, "stream": True,
        "stream_options": {"include_usage": True}, "truncate_prompt_tokens": 5}),
    "derender": ("/v1/chat/completions/derender", {
        "chat_request": {"messages": [{"role": "user", "content": "q"}], "tools": [_TOOL],
                         "stop": ["zz"], "return_token_ids": True},
        "prompt_token_ids": [151644, 872, 198, 80, 151645, 198, 151644, 77091, 198],
        "generate_response": {"request_id": "r1", "choices": [{
            "index": 0, "finish_reason": "stop", "stop_reason": None, "token_ids": [
                151667, 198, 562, 198, 151668, 271, 13048, 151657, 198, 4913, 606, 788, 330,
                455, 1670, 497, 330, 16370, 788, 5212, 66, 788, 330, 87, 95642, 151658,
                151645]}]}}),
    "derender_logprobs": ("/v1/chat/completions/derender", {
        "chat_request": {"messages": [{"role": "user", "content": "q"}], "logprobs": True,
                         "top_logprobs": 1},
        "prompt_token_ids": [151644, 872, 198, 80, 151645, 198, 151644, 77091, 198],
        "generate_response": {"request_id": "r1", "choices": [{
            "index": 0, "finish_reason": "length", "token_ids": [151667, 562, 151668, 13048],
            "logprobs": {"content": [
                {"token_id": t, "logprob": -0.5, "rank": 1,
                 "top_logprobs": [{"token_id": t, "logprob": -0.5, "rank": 1}]}
                for t in (151667, 562, 151668, 13048)]}}]}}),
    "derender_completion": ("/v1/completions/derender", {
        "completion_request": {"prompt": "Once upon", "logprobs": 1, "echo": True,
                               "stop": ["zz"], "return_token_ids": True},
        "prompt_token_ids": [[7454, 2402]], "prompt_tokens": [2],
        "generate_responses": [{"request_id": "r1", "choices": [{
            "index": 0, "finish_reason": "length", "token_ids": [257, 640],
            "logprobs": {"content": [
                {"token_id": t, "logprob": -0.5, "rank": 1,
                 "top_logprobs": [{"token_id": t, "logprob": -0.5, "rank": 1}]}
                for t in (257, 640)]}}]}]}),
    "derender_gptoss": ("/v1/chat/completions/derender", {
        "chat_request": {"messages": [{"role": "user", "content": "q"}], "tools": [_TOOL]},
        "prompt_token_ids": [200006, 1428, 200008, 80, 200007, 200006, 173781],
        "generate_response": {"request_id": "r1", "choices": [{
            "index": 0, "finish_reason": "stop", "token_ids": [
                200005, 35644, 200008, 49631, 200007, 200006, 173781, 200005, 12606, 815, 316,
                28, 44580, 775, 3567, 220, 200003, 4108, 200008, 10848, 66, 1243, 392, 87, 18583,
                200012]}]}}),
    "derender_mistral": ("/v1/chat/completions/derender", {
        "chat_request": {"messages": [{"role": "user", "content": "q"}], "tools": [_TOOL]},
        "prompt_token_ids": [1, 3, 5024, 4],
        "generate_response": {"request_id": "r1", "choices": [{
            "index": 0, "finish_reason": "stop", "token_ids": [
                16127, 5, 29560, 7567, 1629, 2032, 1113, 1295, 29498, 29495, 1316, 1113, 17452,
                2032, 10598, 29485, 2032, 1113, 29512, 29507, 1743, 29561, 2]}]}}),
    "completions_multi": ("/v1/completions/render", {
        "prompt": [[9707, 1052], [13048]], "max_tokens": 5, "n": 2, "echo": True,
        "logprobs": 0, "prompt_logprobs": 1, "suffix": None, "user": "u", "seed": 1,
        "add_special_tokens": False, "response_format": {"type": "json_object"},
        "return_tokens_as_token_ids": True, "truncate_prompt_tokens": 1,
        "allowed_token_ids": [5, 6], "min_tokens": 2, "ignore_eos": True}),
    "responses": ("/v1/responses/render", {
        "input": [{"type": "message", "role": "user", "content": [
                      {"type": "input_text", "text": "a"}]},
                  {"type": "function_call", "call_id": "c1", "name": "get_w", "arguments": "{}"},
                  {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                  {"type": "message", "role": "user", "content": "q"}],
        "instructions": "i", "max_output_tokens": 10, "tools": [
            {"type": "function", "name": "get_w", "parameters": {"type": "object"}}]}),
    "messages": ("/v1/messages/render", {
        "max_tokens": 2000, "system": [{"type": "text", "text": "s"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]},
                     {"role": "assistant", "content": [
                         {"type": "tool_use", "id": "t1", "name": "get_w", "input": {}}]},
                     {"role": "user", "content": [
                         {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}]}),
}


def paths(obj: Any, pre: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key and list index of ``obj``, nested, as a path from its root."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(
        obj, list) else ()
    for key, value in items:
        yield (*pre, key)
        yield from paths(value, (*pre, key))


def variants(base: dict[str, Any], pool: tuple[Any, ...] = POOL) -> Iterator[
        tuple[str, dict[str, Any]]]:
    """(label, body): each path of ``base`` set to each pool value, then each missing key
    added to each chat message and each Responses input item."""
    for path in paths(base):
        if path == ("model",):
            continue
        for value in pool:
            body = copy.deepcopy(base)
            target = body
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            yield f"{'.'.join(map(str, path))}={json.dumps(value)}", body
    for field, keys in (("messages", MESSAGE_KEYS), ("input", ITEM_KEYS)):
        items = base.get(field)
        for i, msg in enumerate(items if isinstance(items, list) else ()):
            for key in keys:
                if isinstance(msg, dict) and key not in msg:
                    for value in pool:
                        body = copy.deepcopy(base)
                        body[field][i][key] = value
                        yield f"{field}.{i}.{key}+={json.dumps(value)}", body


def outcome(status: int, body: Any) -> tuple[Any, ...]:
    """What is compared: the status, and the prompt ids of a 200 (a derender's choices and
    usage, random ids replaced)."""
    if status != 200 or not isinstance(body, dict):
        return (status,)
    if "choices" in body:
        from conformance.replay import normalize

        usage = {k: v for k, v in (body.get("usage") or {}).items()  # (tito's reasoning count:
                 if k != "completion_tokens_details"}  # a documented deviation)
        return (200, normalize(body["choices"]), usage, body.get("prompt_token_ids"))
    return (200, body.get("token_ids") or body.get("tokens") or body.get("prompt"),
            body.get("token_strs"))


def main(argv: list[str] | None = None) -> int:
    import httpx

    from conformance import replay

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("route", choices=sorted(ROUTES))
    ap.add_argument("model")
    ap.add_argument("--url", required=True, metavar="MODEL=URL",
                    help="vLLM's running render server for MODEL")
    ap.add_argument("--limit", type=int, default=0, help="stop after N variants (0: all)")
    ap.add_argument("--pool", choices=("values", "ints"), default="values",
                    help="the values each path is set to: POOL, or INTS (integer bounds)")
    args = ap.parse_args(argv)
    url = args.url.split("=", 1)[1]
    path, base = ROUTES[args.route]
    tito = replay.Tito()
    n = diffs = 0
    # (qwen3-trusted serves qwen3 taking a request's own template: tito too, as the replay)
    trusted = args.model.endswith("-trusted")
    with httpx.Client(timeout=60) as client:
        pool = INTS if args.pool == "ints" else POOL
        for label, body in variants({"model": args.model.removesuffix("-trusted"), **base},
                                    pool):
            if args.limit and n >= args.limit:
                break
            n += 1
            for attempt in (1, 2):  # (a kept-alive connection vLLM closed after its 500
                try:  # fails the next request: once more on a new one)
                    resp = client.post(url + path, json=body)
                    theirs = outcome(resp.status_code, resp.json())
                except ValueError:  # (not JSON)
                    theirs = (resp.status_code,)
                except httpx.TransportError as exc:  # vLLM dropped the connection: a lead too
                    theirs = (type(exc).__name__,)
                    continue
                break
            ours = outcome(*tito.post(path, body, trusted=trusted))
            if theirs != ours:
                diffs += 1
                same = " (ids)" if theirs[0] == ours[0] == 200 else ""
                print(f"DIFF {label} vllm={theirs[0]} tito={ours[0]}{same}", flush=True)
    print(f"{n} variants, {diffs} differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
