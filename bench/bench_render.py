"""Benchmark: tito's chat render against ``transformers.apply_chat_template(tokenize=True)``.

Why a ratio: absolute times depend on the machine; the ratio to ``transformers`` measured in the
same run, on the same tokenizer files and the same conversation, says whether tito's render path
(sandboxed bounded template + tokenization + request checks + sampling mapping) costs more than
the reference implementation does for templating + tokenization alone.

The conversation is a multi-turn tool-calling exchange with Qwen3's template (system prompt,
tools, tool calls, tool results, reasoning), grown until its prompt is about 8k tokens.

Run: ``python bench/bench_render.py [--tokens 8192] [--repeat 30]`` (no network; the tokenizer
comes from ``layers/tokenizer/models/qwen3``). Prints one JSON object with the medians and the
ratio ``tito / transformers`` (below 1.0 means tito is faster).
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
sys.path.insert(0, str(ROOT / "src"))

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
    """Median seconds of each function, measured alternately so machine drift hits all alike."""
    for fn in fns:
        fn()  # warm-up (template compilation, caches)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=8192, help="target prompt length")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    from transformers import AutoTokenizer

    from tito.models import get_registry
    from tito.protocol import ChatCompletionRequest
    from tito.service.render import RenderSettings, render_chat_request

    hf = AutoTokenizer.from_pretrained(str(MODELS / "qwen3"))
    model = get_registry().get("qwen3")
    settings = RenderSettings()

    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a concise assistant."}]
    i = 0
    while True:
        messages += turn(i)
        i += 1
        n = len(hf.apply_chat_template(to_hf(messages), tools=TOOLS, tokenize=True,
                                       add_generation_prompt=True, return_dict=False))
        if n >= args.tokens:
            break
    messages.append({"role": "user", "content": "Thanks. Summarise everything in one line."})
    body = {"model": "qwen3", "messages": messages, "tools": TOOLS, "temperature": 0.6,
            "max_completion_tokens": 1024}
    hf_messages = to_hf(messages)

    def run_transformers() -> list[int]:
        return hf.apply_chat_template(hf_messages, tools=TOOLS, tokenize=True,
                                      add_generation_prompt=True, return_dict=False)

    def run_tito() -> list[int]:
        request = ChatCompletionRequest.model_validate(body)
        return render_chat_request(request, settings=settings, model=model).token_ids

    expected, got = run_transformers(), run_tito()
    if expected != got:
        raise SystemExit("tito and transformers disagree on the prompt ids")

    t_hf, t_tito = interleaved_medians([run_transformers, run_tito], args.repeat)
    print(json.dumps({
        "prompt_tokens": len(got),
        "messages": len(messages),
        "repeat": args.repeat,
        "transformers_ms": round(t_hf * 1e3, 3),
        "tito_ms": round(t_tito * 1e3, 3),
        "ratio_tito_over_transformers": round(t_tito / t_hf, 3),
    }, indent=2))


if __name__ == "__main__":
    main()
