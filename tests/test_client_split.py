"""Batch derenders too large for one Lambda call: split into streamed calls, the same answer.

The reference is the batch derender done in-process in one call (the derender functions' own
ASGI app, no limit in the way); the split answer must equal it (every field, only the clock reading
``created`` aside), on real tokenizers (Qwen3 chat with its reasoning and tool parsers, GPT-2
completions), with the fake engine's top-k logprobs. Small ``max_payload_bytes`` make small
answers split (fast); one test splits a real 12k-token, top-5 answer at the default limit, and
one checks the path where the estimate missed and the function itself answered 413.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tito.adapters import batch_split
from tito.adapters.app import create_app
from tito.adapters.asgi import DerenderApp
from tito.adapters.fake_engine import FakeEngine, ReplyScript, create_fake_engine_app
from tito.client import TitoClient, TitoClientError

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
TEXT = "The quick brown fox 😀 jumps over the lazy dog; 中文字符 and café. " * 8
REASONING_TOOL = ("<think>\nThe user wants the weather. 天气 😀 I call the tool.\n</think>\n\n"
                  "Let me check.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                  "{\"city\": \"Paris\"}}\n</tool_call>")
ENGINE = create_fake_engine_app(FakeEngine(ReplyScript.from_text(TEXT), tokens_per_event=7))
RENDER = create_app(endpoints=["chat_render", "completions_render"])


@dataclass
class Calls:
    """Every derender call: its body, and the sizes of its request and answer."""

    bodies: list[dict[str, Any]] = field(default_factory=list)
    sizes: list[tuple[int, int]] = field(default_factory=list)


def _spy(app: Any, calls: Calls) -> Callable[..., Any]:
    async def spied(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        message = await receive()
        calls.bodies.append(json.loads(message["body"]))
        size = [len(message["body"]), 0]

        async def again() -> dict[str, Any]:
            return message

        async def sending(out: dict[str, Any]) -> None:
            size[1] += len(out.get("body") or b"")
            await send(out)

        await app(scope, again, sending)
        calls.sizes.append((size[0], size[1]))

    return spied


def run(kind: str, request: dict[str, Any], *, limit: int | None = None,
        derender: Any = None) -> tuple[dict[str, Any], Calls]:
    calls = Calls()
    app = derender or DerenderApp(["chat_derender", "completions_derender"])

    async def main() -> dict[str, Any]:
        async with TitoClient(engine=ENGINE, render=RENDER, derender=_spy(app, calls),
                              max_payload_bytes=limit) as client:
            return await (client.chat(request) if kind == "chat" else client.completions(request))

    with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:  # the thread's loop
        answer = runner.run(main())  # stays as it is (the Lambda handler tests use it)
    answer["created"] = 0  # a clock reading
    return answer, calls


def check_split(kind: str, request: dict[str, Any], limit: int) -> tuple[dict[str, Any], Calls]:
    """The split answer equals the one-call batch answer, and every call fit ``limit``."""
    reference, one = run(kind, request, limit=1 << 30)
    assert len(one.bodies) == 1 and not one.bodies[0].get("stream")
    answer, calls = run(kind, request, limit=limit)
    streamed = [b for b in calls.bodies if b.get("stream")]
    assert len(streamed) >= 2, "expected the batch to be split"
    assert max(req for req, _ in calls.sizes) <= limit
    assert max(out for _, out in calls.sizes) <= limit
    assert answer == reference
    return answer, calls


def chat_request(reply: str, **extra: Any) -> dict[str, Any]:
    return {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}],
            "request_id": "split", "logprobs": True, "top_logprobs": 5,
            "vllm_xargs": {"fake_reply": reply}, **extra}


def test_chat_top5_logprobs_split() -> None:
    answer, _ = check_split("chat", chat_request(TEXT), 60_000)
    content = answer["choices"][0]["logprobs"]["content"]
    assert len(content) == answer["usage"]["completion_tokens"]  # EOS included, as vLLM
    assert all(len(e["top_logprobs"]) == 5 for e in content)


def test_chat_reasoning_tool_call_and_n2_split() -> None:
    request = chat_request([REASONING_TOOL, TEXT], tools=TOOLS, n=2)
    answer, _ = check_split("chat", request, 20_000)
    first = answer["choices"][0]["message"]
    assert first["reasoning"] and first["tool_calls"][0]["function"]["name"] == "get_weather"


def test_chat_stop_string_split() -> None:
    reply = TEXT + "Enough, STOP here. " + TEXT
    answer, calls = check_split("chat", chat_request(reply, stop=["STOP here"]), 20_000)
    choice = answer["choices"][0]
    assert choice["finish_reason"] == "stop" and choice["stop_reason"] == "STOP here"
    assert choice["message"]["content"].endswith("Enough, ")


def test_completions_split_with_echo_and_several_prompts() -> None:
    request = {"model": "gpt2", "prompt": ["Once upon a time", "In a land far away"],
               "logprobs": 3, "echo": True, "request_id": "split", "max_tokens": 200,
               "vllm_xargs": {"fake_reply": TEXT}}
    answer, _ = check_split("completions", request, 30_000)
    assert len(answer["choices"]) == 2
    assert answer["choices"][1]["text"].startswith("In a land far away")


def test_a_12k_token_top5_answer_splits_at_the_default_limit() -> None:
    """A real oversized case: a ~3.6 MB request and a ~4.8 MB answer, over the 4 MiB budget
    (escaped into Lambda's proxy answer, ~5.8 MB: at the edge of its 6 MB), split into calls
    that each fit."""
    request = chat_request(TEXT, max_tokens=12_000, ignore_eos=True)
    answer, calls = check_split("chat", request, batch_split.DEFAULT_MAX_PAYLOAD_BYTES)
    assert answer["usage"]["completion_tokens"] == 12_000
    assert sum(out for _, out in calls.sizes) > batch_split.DEFAULT_MAX_PAYLOAD_BYTES


def test_an_answer_the_estimate_missed_is_split_after_the_413(
        monkeypatch: pytest.MonkeyPatch) -> None:
    request = chat_request(TEXT)  # a ~45 kB request, a ~55 kB answer
    reference, _ = run("chat", request, limit=1 << 30)
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", "50000")  # the function's payload limit
    function = DerenderApp(["chat_derender"])
    monkeypatch.setattr(batch_split, "ANSWER_BYTES_PER_CANDIDATE", 1)  # a wrong estimate
    answer, calls = run("chat", request, limit=48_000, derender=function)
    assert not calls.bodies[0].get("stream") and calls.sizes[0][1] < 1000  # the 413
    assert len(calls.bodies) > 2 and answer == reference


def test_a_function_limit_below_the_budget_is_a_clear_413(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget over the function's limit: the split's calls are refused too, and the caller
    gets the function's 413 (saying to stream), not a hang or a 500."""
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", "50000")
    with pytest.raises(TitoClientError) as info:
        run("chat", chat_request(TEXT), limit=1 << 30, derender=DerenderApp(["chat_derender"]))
    assert info.value.status == 413 and info.value.stage == "derender"
    err = info.value.body["error"]
    assert err["type"] == "Request Entity Too Large" and '"stream": true' in err["message"]


def test_nothing_to_split_is_sent_as_is() -> None:
    """Without engine logprobs there is nothing to move out: one call, as before."""
    request = {k: v for k, v in chat_request(TEXT).items() if "logprobs" not in k}
    _, calls = run("chat", request, limit=1000)
    assert len(calls.bodies) == 1
