#!/usr/bin/env python3
"""Generate the replayable engine-stream captures in ``events/captures/``.

Why generated: a capture is what ``tito gateway --capture-dir`` records, so the honest way to make
one is to run the gateway. This script runs it in-process (its ASGI app through httpx, render and
derender in-process too) in front of the fake engine (``tito.adapters.fake_engine``) with a fixed
clock and fixed request ids, and keeps for each scenario:

* ``<name>.jsonl``: the capture (a header line with the derender context, then every engine
  event), input of ``tito replay``;
* ``<name>.sse``: the exact bytes the gateway sent to its client, which a replay must reproduce
  byte for byte (``tests/test_replay.py``).

Usage (from the repository root)::

    python events/make_captures.py           # (re)write events/captures/
    python events/make_captures.py --check   # exit 1 if a file is missing or differs (CI)

Re-run it when derender's output changes on purpose (a parser landing, a new field): the
``.sse`` files are recorded outputs.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CAPTURES_DIR = Path(__file__).resolve().parent / "captures"
#: The same instant as the other events (2026-11-30T12:00:00Z): every chunk's ``created``.
CREATED = 1796040000

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


@dataclass
class Scenario:
    """One capture: the OpenAI request sent to the gateway and what the fake engine answers."""

    name: str
    path: str
    request: dict[str, Any]
    replies: list[str]
    tokens_per_event: list[int] = field(default_factory=lambda: [1])


SCENARIOS = [
    Scenario(
        "chat_qwen3", "/v1/chat/completions",
        {"model": "qwen3", "request_id": "capture-chat-qwen3", "stream": True,
         "stream_options": {"include_usage": True}, "max_completion_tokens": 256,
         "messages": [{"role": "user",
                       "content": "What is the capital of France? Answer in one sentence."}]},
        ["<think>\nThe user wants the capital of France in one sentence. It is Paris.\n"
         "</think>\n\nThe capital of France is Paris. Café au lait, anyone? ☕"],
        [1, 2, 3],
    ),
    Scenario(
        "chat_qwen3_tools", "/v1/chat/completions",
        {"model": "qwen3", "request_id": "capture-chat-qwen3-tools", "stream": True,
         "tools": TOOLS, "max_completion_tokens": 256,
         "messages": [{"role": "user", "content": "What's the weather in Paris?"}]},
        ["<think>\nI should call the weather tool.\n</think>\n\n<tool_call>\n"
         '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'],
        [2],
    ),
    Scenario(
        "chat_qwen3_n2_stop", "/v1/chat/completions",
        {"model": "qwen3", "request_id": "capture-chat-qwen3-n2-stop", "stream": True, "n": 2,
         "stop": ["Paris"], "max_completion_tokens": 64,
         "stream_options": {"include_usage": True, "continuous_usage_stats": True},
         "messages": [{"role": "user", "content": "Name a French city."}]},
        ["<think>\nAny French city will do.\n</think>\n\nSure: Paris, the capital.",
         "<think>\nLyon is one.\n</think>\n\nLyon, then maybe Paris."],
        [1, 3],
    ),
    Scenario(
        "completions_gpt2", "/v1/completions",
        {"model": "gpt2", "request_id": "capture-completions-gpt2", "stream": True,
         "prompt": "Once upon a time", "max_tokens": 24, "logprobs": 2,
         "stream_options": {"include_usage": True}},
        [" there was a tiny robot who loved naïve poetry — and 🤖 emoji."],
        [1, 2],
    ),
]


async def _run(scenario: Scenario, folder: Path) -> bytes:
    """Send the scenario's request through the in-process gateway; the bytes it answered."""
    import httpx

    from tito.adapters.fake_engine import FakeEngine, Reply, ReplyScript, create_fake_engine_app
    from tito.adapters.gateway import create_gateway_app
    from tito.adapters.capture import CaptureDir
    from tito.client import TitoClient

    engine = FakeEngine(ReplyScript([Reply(text=t) for t in scenario.replies]),
                        tokens_per_event=scenario.tokens_per_event)

    client = TitoClient(engine=create_fake_engine_app(engine), clock=lambda: CREATED,
                        capture=CaptureDir(folder))
    app = create_gateway_app(generate_url="unused", client=client)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://gateway") as http:
        resp = await http.post(scenario.path, json=scenario.request)
    await client.aclose()
    if resp.status_code != 200:
        raise SystemExit(f"{scenario.name}: the gateway answered {resp.status_code}: {resp.text}")
    return resp.content


def build(out: Path) -> dict[str, bytes]:
    """File name -> content for every scenario (captured in a scratch folder first)."""
    files: dict[str, bytes] = {}
    for scenario in SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp:
            sent = asyncio.run(_run(scenario, Path(tmp)))
            (capture,) = Path(tmp).glob("*.jsonl")
            recorded = capture.with_suffix(".sse").read_bytes()
            if recorded != sent:
                raise SystemExit(f"{scenario.name}: the capture's .sse differs from what the "
                                 "gateway sent")
            files[f"{scenario.name}.jsonl"] = capture.read_bytes()
            files[f"{scenario.name}.sse"] = sent
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if any capture is missing or out of date")
    parser.add_argument("--out", type=Path, default=CAPTURES_DIR, help="output folder")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    files = build(args.out)
    stale = []
    if not args.check:
        args.out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = args.out / name
        if args.check:
            if not path.is_file() or path.read_bytes() != content:
                stale.append(name)
        else:
            path.write_bytes(content)
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)} (run python events/make_captures.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
