"""Benchmark: tito's chat render against ``transformers.apply_chat_template(tokenize=True)``.

Why a ratio: absolute times depend on the machine; the ratio to ``transformers`` measured in the
same run, on the same tokenizer files and the same conversation, says whether tito's render path
(sandboxed bounded template + tokenization + request checks + sampling mapping) costs more than
the reference implementation does for templating + tokenization alone.

Three conversations with Qwen3's template: a **short** one-turn chat (system + user), a
**mid**-size one (``--mid-turns`` turns of the tool-calling exchange below, with its tools) and a
**long** multi-turn tool-calling exchange (system prompt, tools, tool calls, tool results,
reasoning) grown until its prompt is about ``--tokens`` long. Each is measured three ways:

* ``service``: the JSON body parsed and checked into the request model as the app does (by
  hand for a common body, :mod:`tito.service.chat_body`, else pydantic) + ``render_chat_wire``
  (the engine request as the wire dict the app answers, ``render_chat_request(...).to_wire()``);
* ``app``: the function's ASGI app (:class:`tito.adapters.asgi_render.RenderApp`) called
  directly: the body guard, validation, the service, the engine request as JSON bytes;
* ``handler``: the whole ``chat_render`` Lambda handler (API Gateway v2 event in, JSON out:
  Powertools, Mangum, the app), as deployed;
* ``transformers``: ``apply_chat_template(tokenize=True)`` of the same messages (what vLLM hands
  it: parsed tool arguments), checked to give the same ids.

Clock: CPU time (``time.process_time``, every thread of this process), medians of ``--repeat``
interleaved runs. Run: ``python bench/bench_render.py [--tokens 8192] [--mid-turns 3]
[--repeat 30]`` (no network; the tokenizer comes from ``layers/tokenizer/models/qwen3``;
``transformers`` is a dev dependency). Prints one JSON object; ratios below 1.0 mean tito is
faster.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "layers" / "tokenizer" / "models"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TITO_MODELS_DIR", str(MODELS))
sys.path.insert(0, str(ROOT / "bench"))

from _bench import Context, http_api_event, quiet  # noqa: E402  (puts src/ first on sys.path)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the web and return the top results.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"],
            },
        },
    },
]

CITIES = ["Paris", "London", "Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Perth", "Seoul", "Rome"]


def turn(i: int) -> list[dict[str, Any]]:
    """One user question, a tool call, its result and the assistant's answer (OpenAI shapes)."""
    city = CITIES[i % len(CITIES)]
    call_id = f"call_{i:04d}"
    return [
        {"role": "user", "content": f"Question {i}: what is the weather in {city}, and any news about it?"},
        {
            "role": "assistant",
            "content": None,
            "reasoning": f"The user asks about {city}; I will call get_weather then answer.",
            "tool_calls": [{"id": call_id, "type": "function", "function": {
                "name": "get_weather", "arguments": json.dumps({"city": city, "unit": "celsius"})}}],
        },
        {"role": "tool", "tool_call_id": call_id,
         "content": json.dumps({"city": city, "temperature": 10 + i % 20, "sky": "clear",
                                "forecast": [{"day": d, "high": 12 + d, "low": 3 + d} for d in range(5)]})},
        {"role": "assistant",
         "content": f"In {city} it is {10 + i % 20} degrees and clear. The next days stay mild, "
                    "with highs between 12 and 16 degrees and no rain expected."},
    ]


def to_hf(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What vLLM hands transformers for the same request: parsed arguments, "" for null content."""
    out = []
    for m in messages:
        m = {k: v for k, v in m.items() if v is not None}
        m.setdefault("content", "")
        if "tool_calls" in m:
            m["tool_calls"] = [
                {**tc, "function": {**tc["function"], "arguments": json.loads(tc["function"]["arguments"])}}
                for tc in m["tool_calls"]
            ]
        if "reasoning" in m:
            m["reasoning_content"] = m.pop("reasoning")
        out.append(m)
    return out


def interleaved_medians(fns: list[Any], repeat: int) -> list[float]:
    """Median CPU seconds of each function, measured alternately so machine drift hits all alike."""
    for fn in fns:
        fn()  # warm-up (caches; the template itself is compiled at init)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.process_time()
            fn()
            times[k].append(time.process_time() - start)
    return [statistics.median(t) for t in times]


def asgi_call(app: Any, path: str, body: bytes) -> Any:
    """A function running one ``POST path`` through the ASGI ``app`` (it never suspends: one
    ``send(None)`` runs it); it returns the response body."""
    scope = {"type": "http", "method": "POST", "path": path, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    def run() -> bytes:
        sent.clear()
        try:
            app(scope, receive, send).send(None)
        except StopIteration:
            pass
        return sent[-1]["body"]  # type: ignore[no-any-return]

    return run


def mid_chat(turns: int) -> list[dict[str, Any]]:
    """A few turns of the tool conversation (system prompt, ``turns`` turns, a last question)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a concise assistant."}]
    for i in range(turns):
        messages += turn(i)
    messages.append({"role": "user", "content": "Thanks. And tomorrow in Paris?"})
    return messages


def long_chat(hf: Any, tokens: int) -> list[dict[str, Any]]:
    """The tool conversation, grown until its prompt is at least ``tokens`` long."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a concise assistant."}]
    i = 0
    while True:
        messages += turn(i)
        i += 1
        n = len(hf.apply_chat_template(to_hf(messages), tools=TOOLS, tokenize=True,
                                       add_generation_prompt=True, return_dict=False))
        if n >= tokens:
            break
    messages.append({"role": "user", "content": "Thanks. Summarise everything in one line."})
    return messages


SHORT_CHAT = [
    {"role": "system", "content": "You are a concise assistant."},
    {"role": "user", "content": "What is the capital of France? Answer in one word."},
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=8192, help="target prompt length (long chat)")
    parser.add_argument("--mid-turns", type=int, default=3, help="tool turns of the mid-size chat")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    from transformers import AutoTokenizer

    from tito.models import get_registry
    from tito.protocol import ChatCompletionRequest
    from tito.service.chat_body import read as read_chat_body
    from tito.service.render import RenderSettings, render_chat_wire

    with quiet():
        from tito.handlers.chat_render import handler  # the function's init: models, template
    hf = AutoTokenizer.from_pretrained(str(MODELS / "qwen3"))
    model = get_registry().get("qwen3")
    settings = RenderSettings.from_env()
    ctx = Context()

    cases = {
        "short": (SHORT_CHAT, None),
        "mid": (mid_chat(args.mid_turns), TOOLS),
        "long": (long_chat(hf, args.tokens), TOOLS),
    }
    out: dict[str, Any] = {"clock": "CPU (process_time), 1 core", "repeat": args.repeat}
    for name, (messages, tools) in cases.items():
        body: dict[str, Any] = {"model": "qwen3", "messages": messages, "temperature": 0.6,
                                "max_completion_tokens": 1024}
        if tools:
            body["tools"] = tools
        hf_messages = to_hf(messages)
        raw = json.dumps(body)

        def run_transformers() -> list[int]:
            return hf.apply_chat_template(hf_messages, tools=tools, tokenize=True,  # noqa: B023
                                          add_generation_prompt=True, return_dict=False)

        def run_service() -> list[int]:
            data = json.loads(raw)  # noqa: B023
            request = read_chat_body(data) or ChatCompletionRequest.model_validate(data)
            wire = render_chat_wire(request, settings=settings, model=model)
            return wire["token_ids"]  # type: ignore[no-any-return]

        event = http_api_event(f"bench-{name}", "POST", "/v1/chat/completions/render", body)
        run_app = asgi_call(handler.app, "/v1/chat/completions/render", raw.encode())

        def run_handler() -> dict[str, Any]:
            with quiet():
                return handler(event, ctx)  # type: ignore[no-any-return]  # noqa: B023

        expected = run_transformers()
        answer = run_handler()
        if answer["statusCode"] != 200:
            raise SystemExit(f"{name}: the handler answered {answer['statusCode']}: {answer['body'][:300]}")
        if not (expected == run_service() == json.loads(answer["body"])["token_ids"]
                == json.loads(run_app())["token_ids"]):
            raise SystemExit(f"{name}: tito and transformers disagree on the prompt ids")
        t_hf, t_service, t_app, t_handler = interleaved_medians(
            [run_transformers, run_service, run_app, run_handler], args.repeat)
        out[name] = {
            "prompt_tokens": len(expected),
            "messages": len(messages),
            "transformers_us": round(t_hf * 1e6, 1),
            "service_us": round(t_service * 1e6, 1),
            "app_us": round(t_app * 1e6, 1),
            "handler_us": round(t_handler * 1e6, 1),
            "ratio_service_over_transformers": round(t_service / t_hf, 3),
            "ratio_app_over_transformers": round(t_app / t_hf, 3),
            "ratio_handler_over_transformers": round(t_handler / t_hf, 3),
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
