"""Batch derenders too large for one Lambda call: split into streamed calls, the same answer.

The reference is the batch derender done in-process in one call (the derender functions' own
ASGI app, no limit in the way); the split answer must equal it (every field, only the clock reading
``created`` aside), on real tokenizers (Qwen3 chat with its reasoning and tool parsers, GPT-2
completions), with the fake engine's top-k logprobs. Small ``max_payload_bytes`` make small
answers split (fast); one test splits a real 12k-token, top-5 answer at the default limit, and
one checks the path where the estimate missed and the function itself answered 413. Every
call's request and answer must fit the limit as Lambda counts it (JSON-escaped in the event,
:func:`tito.adapters.payload.event_bytes`), and at that limit the function takes them.
Responses batches split the same way, through the client and through the gateway.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tito.adapters import batch_split
from tito.adapters.gateway import create_gateway_app
from tito.adapters.payload import LAMBDA_PAYLOAD_BYTES, event_bytes
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
#: TEXT as the answer of a thinking Qwen3 (an output without </think> is all reasoning under
#: vLLM's qwen3 rule): the tests of message text and its logprobs need the answer as content
ANSWER = "<think>\nThe user wants a long text.\n</think>\n\n" + TEXT
ENGINE = create_fake_engine_app(FakeEngine(ReplyScript.from_text(TEXT), tokens_per_event=7))
RENDER = create_app(endpoints=["chat_render", "completions_render", "responses_render"])


@dataclass
class Calls:
    """Every derender call: its body, and the sizes of its request and answer as Lambda counts
    them (JSON-escaped in the event and the proxy answer)."""

    bodies: list[dict[str, Any]] = field(default_factory=list)
    sizes: list[tuple[int, int]] = field(default_factory=list)


def _spy(app: Any, calls: Calls) -> Callable[..., Any]:
    async def spied(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        message = await receive()
        calls.bodies.append(json.loads(message["body"]))
        answer: list[bytes] = []

        async def again() -> dict[str, Any]:
            return message

        async def sending(out: dict[str, Any]) -> None:
            answer.append(out.get("body") or b"")
            await send(out)

        await app(scope, again, sending)
        calls.sizes.append((event_bytes(message["body"]), event_bytes(b"".join(answer))))

    return spied


ENDPOINTS = ["chat_derender", "completions_derender", "responses_derender"]


def run(kind: str, request: dict[str, Any], *, limit: int | None = None,
        derender: Any = None, gateway: bool = False) -> tuple[dict[str, Any], Calls]:
    """``kind``'s batch answer through ``TitoClient`` (or the gateway built on it)."""
    calls = Calls()
    app = _spy(derender or DerenderApp(ENDPOINTS), calls)

    async def main() -> dict[str, Any]:
        if gateway:
            gw = create_gateway_app(generate_url=ENGINE, render_url=RENDER, derender_url=app,
                                    max_payload_bytes=limit)
            async with httpx.AsyncClient(transport=httpx.ASGITransport(gw),
                                         base_url="http://gw") as http:
                resp = await http.post("/v1/responses", json=request)
                assert resp.status_code == 200, resp.text
                return dict(resp.json())
        async with TitoClient(engine=ENGINE, render=RENDER, derender=app,
                              max_payload_bytes=limit) as client:
            if kind == "responses":
                return await client.responses(request)
            return await (client.chat(request) if kind == "chat" else client.completions(request))

    with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:  # the thread's loop
        answer = runner.run(main())  # stays as it is (the Lambda handler tests use it)
    answer["created_at" if kind == "responses" else "created"] = 0  # a clock reading
    return answer, calls


def check_split(kind: str, request: dict[str, Any], limit: int,
                gateway: bool = False) -> tuple[dict[str, Any], Calls]:
    """The split answer equals the one-call batch answer, and every call fit ``limit``."""
    reference, one = run(kind, request, limit=1 << 30)
    assert len(one.bodies) == 1 and not one.bodies[0].get("stream")
    answer, calls = run(kind, request, limit=limit, gateway=gateway)
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
    reply = ANSWER + "Enough, STOP here. " + TEXT
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


def test_a_15k_token_top5_answer_splits_at_the_default_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A real oversized case: a ~4.5 MB request and a ~6 MB answer, ~6.8 MB escaped into
    Lambda's proxy answer (over its 6 MB), split into calls that each fit the functions' default
    limit (the reference: one call to a function without that limit)."""
    request = chat_request(TEXT, max_tokens=15_000, ignore_eos=True)
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", str(64 << 20))
    reference, one = run("chat", request, limit=1 << 30)
    assert len(one.bodies) == 1 and one.sizes[0][1] > LAMBDA_PAYLOAD_BYTES
    monkeypatch.delenv("TITO_MAX_BODY_BYTES")
    answer, calls = run("chat", request)  # the client's and the functions' defaults
    assert len(calls.bodies) > 2 and sum(not b.get("stream") for b in calls.bodies) == 1
    assert max(max(sizes) for sizes in calls.sizes) <= batch_split.DEFAULT_MAX_PAYLOAD_BYTES
    assert answer == reference and answer["usage"]["completion_tokens"] == 15_000


def test_split_calls_fit_a_function_with_the_same_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client's budget and the function's limit count the same bytes: at one limit, the
    client's calls are all taken (no 413), and the answer is the one-call answer."""
    request = chat_request(TEXT)
    reference, _ = run("chat", request, limit=1 << 30)
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", "40000")
    answer, calls = run("chat", request, limit=40_000, derender=DerenderApp(ENDPOINTS))
    whole = [b for b in calls.bodies if not b.get("stream")]
    assert len(calls.bodies) > 2 and len(whole) == 1  # the skeleton: no whole call, no 413
    assert whole[0]["generate_response"]["choices"][0]["logprobs"] is None
    assert max(max(sizes) for sizes in calls.sizes) <= 40_000 and answer == reference


def test_an_answer_the_estimate_missed_is_split_after_the_413(
        monkeypatch: pytest.MonkeyPatch) -> None:
    request = chat_request(TEXT)  # a ~50 kB request, a ~62 kB answer (escaped)
    reference, _ = run("chat", request, limit=1 << 30)
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", "56000")  # the function's payload limit
    function = DerenderApp(["chat_derender"])
    monkeypatch.setattr(batch_split, "ANSWER_BYTES_PER_CANDIDATE", 1)  # a wrong estimate
    answer, calls = run("chat", request, limit=55_000, derender=function)
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


RESPONSES_TOOLS = [{"type": "function", "name": "get_weather",
                    "description": "Current weather in a city",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                   "required": ["city"]}}]


def responses_request(reply: str, **extra: Any) -> dict[str, Any]:
    return {"model": "qwen3", "input": "Weather in Paris?", "tools": RESPONSES_TOOLS,
            "request_id": "resp_split",
            "include": ["message.output_text.logprobs"], "top_logprobs": 5,
            "vllm_xargs": {"fake_reply": reply}, **extra}


def _message_logprobs(answer: dict[str, Any]) -> list[Any]:
    return [lp for item in answer["output"] if item["type"] == "message"
            for part in item["content"] for lp in part.get("logprobs") or []]


def test_responses_top5_logprobs_split() -> None:
    """Reasoning, text and a tool call: the assembled streamed calls give the batch Response."""
    reply = REASONING_TOOL.replace("Let me check.", "Let me check. " + TEXT)
    answer, calls = check_split("responses", responses_request(reply), 20_000)
    kinds = [item["type"] for item in answer["output"]]
    assert kinds[0] == "reasoning" and "function_call" in kinds and "message" in kinds
    lps = _message_logprobs(answer)
    assert lps and all(len(lp["top_logprobs"]) == 5 for lp in lps)
    assert "stream_state" in calls.bodies[-1]


def test_responses_split_through_the_gateway() -> None:
    """``POST /v1/responses`` on the gateway (``--max-payload-bytes``) splits as the client."""
    answer, _ = check_split("responses", responses_request(ANSWER), 30_000, gateway=True)
    assert answer["status"] == "completed" and _message_logprobs(answer)


def test_a_responses_answer_the_estimate_missed_is_split_after_the_413(
        monkeypatch: pytest.MonkeyPatch) -> None:
    request = responses_request(ANSWER)  # a ~51 kB request, a ~62 kB answer (escaped)
    reference, _ = run("responses", request, limit=1 << 30)
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", "56000")
    monkeypatch.setattr(batch_split, "ANSWER_BYTES_PER_CANDIDATE", 1)  # a wrong estimate
    answer, calls = run("responses", request, limit=56_000, derender=DerenderApp(ENDPOINTS))
    assert not calls.bodies[0].get("stream") and calls.sizes[0][1] < 1000  # the 413
    assert len(calls.bodies) > 2 and answer == reference
