"""End to end: the official ``openai`` SDK -> ``tito gateway`` -> render / fake engine / derender.

Why at this level: the gateway is only useful if an unmodified OpenAI SDK gets what it would get
from an OpenAI-compatible server, for every feature that crosses the three stages: plain content,
reasoning and tool calls (Qwen3's parsers), streaming and not, ``n``, stop strings (which must
also abort the engine request), usage, completions, errors. Both servers run on loopback ports
(uvicorn in threads); one test starts them as real ``tito`` subprocesses.

Each request pins the fake engine's reply with ``vllm_xargs.fake_reply`` (render copies it into
``sampling_params.extra_args``), so tests do not depend on each other's order.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tito.adapters.app import create_app
from tito.adapters.fake_engine import (
    FakeEngine,
    LoopbackServer,
    ReplyScript,
    create_fake_engine_app,
)
from tito.adapters.gateway import create_gateway_app
from tito.client import TitoClient

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
HELLO = "Hello! How can I help you today?"
REASONING = "<think>\nThe user greets me. I greet back.\n</think>\n\nHello there!"
TOOL_REPLY = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
              "</tool_call>")
LONG = "The quick brown fox jumps over the lazy dog. " * 40
#: thinking switched off: Qwen3's plain answers are content (with thinking on, vLLM's qwen3
#: rule makes an output without </think> reasoning)
NO_THINK = {"chat_template_kwargs": {"enable_thinking": False}}


@dataclass
class Stack:
    engine: FakeEngine
    engine_url: str
    gateway_url: str
    sdk: openai.OpenAI


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    engine = FakeEngine(ReplyScript.from_text(HELLO), tokens_per_event=[1, 2, 3], delay=0.001,
                        max_num_seqs=8)
    with LoopbackServer(create_fake_engine_app(engine)) as engine_url:
        gateway = create_gateway_app(generate_url=engine_url)
        with LoopbackServer(gateway) as gateway_url:
            sdk = openai.OpenAI(base_url=gateway_url + "/v1", api_key="unused", max_retries=0,
                                timeout=60)
            yield Stack(engine, engine_url, gateway_url, sdk)


def xargs(reply: Any) -> dict[str, Any]:
    return {"vllm_xargs": {"fake_reply": reply}}


def chat(stack: Stack, reply: Any, **kwargs: Any) -> Any:
    kwargs.setdefault("messages", [{"role": "user", "content": "Hi"}])
    extra = {**xargs(reply), **kwargs.pop("extra_body", {})}
    return stack.sdk.chat.completions.create(model="qwen3", extra_body=extra, **kwargs)


def collect(stream: Any) -> dict[str, Any]:
    """Fold SDK chunks into per-choice content/reasoning/tool calls (+ usage, ids)."""
    out: dict[str, Any] = {"choices": {}, "usage": None, "ids": set(), "created": set(),
                           "chunks": 0}
    for chunk in stream:
        out["chunks"] += 1
        out["ids"].add(chunk.id)
        out["created"].add(chunk.created)
        if chunk.usage is not None:
            assert not chunk.choices or chunk.usage.completion_tokens is not None
            out["usage"] = chunk.usage
        for choice in chunk.choices:
            c = out["choices"].setdefault(choice.index, {
                "content": "", "reasoning": "", "tools": {}, "finish": None, "roles": [],
                "stop_reason": None})
            delta = choice.delta
            if delta.role:
                c["roles"].append(delta.role)
            c["content"] += delta.content or ""
            c["reasoning"] += getattr(delta, "reasoning", None) or ""
            for call in delta.tool_calls or []:
                t = c["tools"].setdefault(call.index, {"id": None, "name": "", "arguments": ""})
                t["id"] = t["id"] or call.id
                if call.function is not None:
                    t["name"] += call.function.name or ""
                    t["arguments"] += call.function.arguments or ""
            if choice.finish_reason is not None:
                assert c["finish"] is None, "a choice finishes once"
                c["finish"] = choice.finish_reason
                c["stop_reason"] = getattr(choice, "stop_reason", None)
    return out


# -- chat ----------------------------------------------------------------------------------------


def test_chat_plain_batch_and_stream(stack: Stack, vocabs) -> None:
    resp = chat(stack, HELLO, extra_body=NO_THINK)
    msg = resp.choices[0].message
    assert msg.role == "assistant" and msg.content == HELLO and not msg.tool_calls
    assert resp.choices[0].finish_reason == "stop" and resp.object == "chat.completion"
    completion = len(vocabs["qwen3"].encode(HELLO)) + 1  # + <|im_end|>
    assert resp.usage.completion_tokens == completion and resp.usage.prompt_tokens > 0
    got = collect(chat(stack, HELLO, stream=True, extra_body=NO_THINK))
    choice = got["choices"][0]
    assert choice["content"] == HELLO and choice["finish"] == "stop"
    assert choice["roles"] == ["assistant"]
    assert len(got["ids"]) == 1 and len(got["created"]) == 1 and got["usage"] is None
    assert next(iter(got["ids"])).startswith("generate-tokens-chatcmpl-")


def test_chat_reasoning(stack: Stack) -> None:
    resp = chat(stack, REASONING)
    msg = resp.choices[0].message
    assert msg.reasoning.strip() == "The user greets me. I greet back."
    assert msg.content.strip() == "Hello there!"
    got = collect(chat(stack, REASONING, stream=True))["choices"][0]
    assert got["reasoning"] == msg.reasoning and got["content"] == msg.content


def test_chat_tool_calls(stack: Stack) -> None:
    resp = chat(stack, TOOL_REPLY, tools=TOOLS)
    choice = resp.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert call.id.startswith("chatcmpl-tool-")
    got = collect(chat(stack, TOOL_REPLY, tools=TOOLS, stream=True))["choices"][0]
    assert got["finish"] == "tool_calls" and not got["content"].strip()
    (streamed,) = got["tools"].values()
    assert streamed["name"] == "get_weather"
    assert json.loads(streamed["arguments"]) == {"city": "Paris"}


def test_chat_n2_each_choice_its_own_stream(stack: Stack) -> None:
    replies = ["First answer.", "Second, longer answer here."]
    resp = chat(stack, replies, n=2, extra_body=NO_THINK)
    assert [c.index for c in resp.choices] == [0, 1]
    assert [c.message.content for c in resp.choices] == replies
    got = collect(chat(stack, replies, n=2, stream=True, extra_body=NO_THINK,
                       stream_options={"include_usage": True}))
    assert [got["choices"][i]["content"] for i in (0, 1)] == replies
    assert all(got["choices"][i]["roles"] == ["assistant"] for i in (0, 1))
    assert got["usage"].completion_tokens == resp.usage.completion_tokens


def test_chat_stop_string_cuts_and_aborts_the_engine(stack: Stack) -> None:
    resp = chat(stack, LONG, stop=["lazy"], max_tokens=400, extra_body=NO_THINK)
    assert resp.choices[0].message.content == "The quick brown fox jumps over the "
    assert resp.choices[0].finish_reason == "stop"
    stream = chat(stack, LONG, stop=["lazy"], max_tokens=400, stream=True, extra_body=NO_THINK,
                  stream_options={"include_usage": True})
    got = collect(stream)
    choice = got["choices"][0]
    assert choice["content"] == "The quick brown fox jumps over the "
    assert choice["finish"] == "stop" and choice["stop_reason"] == "lazy"
    (rid,) = got["ids"]
    deadline = time.monotonic() + 5
    while (record := stack.engine.record(rid)) is None or record.finish_reasons[0] is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert record.aborted and record.finish_reasons == ["abort"]
    total = len(LONG.split(" ")) * 1.0
    assert record.completion_tokens[0] < total / 2, "the engine stopped early"
    assert [rid] in [list(c) for c in stack.engine.abort_calls]
    # usage still arrives after the abort: it counts what the engine generated
    assert got["usage"].completion_tokens == record.completion_tokens[0]


def test_chat_include_usage_and_continuous_stats(stack: Stack) -> None:
    got = collect(chat(stack, HELLO, stream=True, stream_options={"include_usage": True}))
    assert got["usage"].prompt_tokens > 0
    assert got["usage"].total_tokens == got["usage"].prompt_tokens + got["usage"].completion_tokens
    raw = httpx.post(stack.gateway_url + "/v1/chat/completions", timeout=30, json={
        "model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "stream": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": True},
        **xargs(HELLO)})
    events = [json.loads(line[6:]) for line in raw.text.split("\n\n")
              if line.startswith("data: {")]
    assert raw.text.endswith("data: [DONE]\n\n")
    assert all(e["usage"] is not None for e in events)
    assert events[-1]["choices"] == [] and events[-2]["choices"][0]["finish_reason"] == "stop"


# -- completions ---------------------------------------------------------------------------------


def test_completions_batch_and_stream(stack: Stack, vocabs) -> None:
    reply = " a village on the coast."
    resp = stack.sdk.completions.create(model="gpt2", prompt="Once upon a time", max_tokens=32,
                                        logprobs=2, extra_body=xargs(reply))
    choice = resp.choices[0]
    assert choice.text == reply and choice.finish_reason == "stop"
    assert resp.object == "text_completion"
    assert len(choice.logprobs.tokens) == len(vocabs["gpt2"].encode(reply)) + 1
    assert all(len(top) <= 2 for top in choice.logprobs.top_logprobs)
    text, finish, usage = "", None, None
    for chunk in stack.sdk.completions.create(
            model="gpt2", prompt="Once upon a time", max_tokens=32, stream=True,
            stream_options={"include_usage": True}, extra_body=xargs(reply)):
        for c in chunk.choices:
            text += c.text
            finish = c.finish_reason or finish
        usage = chunk.usage or usage
    assert text == reply and finish == "stop"
    assert usage.completion_tokens == resp.usage.completion_tokens


def test_completions_max_tokens_and_several_prompts(stack: Stack) -> None:
    resp = stack.sdk.completions.create(model="gpt2", prompt=["One", "Two"], max_tokens=3, n=2,
                                        extra_body=xargs(["a b c d e", "x y z w"]))
    assert [c.index for c in resp.choices] == [0, 1, 2, 3]
    assert [c.finish_reason for c in resp.choices] == ["length"] * 4
    assert [c.text for c in resp.choices] == ["a b c", "x y z", "a b c", "x y z"]
    chunks = list(stack.sdk.completions.create(
        model="gpt2", prompt=["One", "Two"], max_tokens=3, n=2, stream=True,
        stream_options={"include_usage": True}, extra_body=xargs(["a b c d e", "x y z w"])))
    texts: dict[int, str] = {}
    for chunk in chunks:
        for c in chunk.choices:
            texts[c.index] = texts.get(c.index, "") + c.text
    assert texts == {0: "a b c", 1: "x y z", 2: "a b c", 3: "x y z"}
    assert len({c.id for c in chunks}) == 1
    usage = [c.usage for c in chunks if c.usage is not None]
    assert len(usage) == 1 and usage[0].completion_tokens == 12
    assert chunks[-1].usage is not None


# -- models and errors ---------------------------------------------------------------------------


def test_models(stack: Stack) -> None:
    names = {m.id for m in stack.sdk.models.list()}
    assert {"qwen3", "gpt2"} <= names


def test_errors_keep_status_and_shape(stack: Stack) -> None:
    with pytest.raises(openai.NotFoundError) as err:
        stack.sdk.chat.completions.create(model="no-such-model",
                                          messages=[{"role": "user", "content": "Hi"}])
    assert "no-such-model" in err.value.message
    with pytest.raises(openai.BadRequestError):  # render refuses it
        chat(stack, HELLO, messages=[])
    with pytest.raises(openai.BadRequestError) as err:  # the engine refuses it (n > 8)
        chat(stack, HELLO, n=9)
    assert "max_num_seqs" in err.value.message
    with pytest.raises(openai.BadRequestError):  # streaming: the error comes before any chunk
        list(chat(stack, HELLO, n=9, stream=True))
    with pytest.raises(openai.InternalServerError):  # the engine fails (500)
        chat(stack, {"text": "oops", "error": "GPU on fire"})
    with pytest.raises(openai.APIError, match="GPU on fire"):  # mid-stream: an error event
        list(chat(stack, {"text": "partial reply", "error": "GPU on fire"}, stream=True))
    resp = httpx.post(stack.gateway_url + "/v1/chat/completions", content=b"[1, 2]",
                      headers={"content-type": "application/json"})
    assert resp.status_code == 400 and resp.json()["error"]["code"] == 400


def test_unreachable_engine_is_a_502() -> None:
    with LoopbackServer(create_gateway_app(generate_url="http://127.0.0.1:9")) as url:
        sdk = openai.OpenAI(base_url=url + "/v1", api_key="-", max_retries=0)
        with pytest.raises(openai.InternalServerError) as err:
            sdk.chat.completions.create(model="qwen3", messages=[{"role": "user", "content": "x"}])
    assert err.value.status_code == 502 and "generate" in err.value.message


# -- the client library --------------------------------------------------------------------------


async def _stream_all(client: TitoClient, request: dict[str, Any]) -> list[dict[str, Any]]:
    return [c async for c in client.chat_stream(request)]


def test_client_transports_and_batching_agree(stack: Stack) -> None:
    """In-process and HTTP stages, vLLM-compatible and batched calls: the same chunks."""
    request = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "n": 2,
               "request_id": "fixed", "stream_options": {"include_usage": True},
               **xargs([REASONING, "<think>\nA long one.\n</think>\n\n" + LONG[:120]])}
    tito_app = create_app(endpoints=["chat_render", "chat_derender"])

    async def run() -> list[list[dict[str, Any]]]:
        outs = []
        with LoopbackServer(tito_app) as tito_url:
            configs = [
                {"engine": stack.engine_url},
                {"engine": stack.engine_url, "render": tito_url, "derender": tito_url},
                {"engine": create_fake_engine_app(stack.engine), "vllm_compatible": True},
                {"engine": stack.engine_url, "chunks_per_call": 1},
            ]
            for cfg in configs:
                async with TitoClient(clock=lambda: 1796040000, **cfg) as client:
                    outs.append(await _stream_all(client, request))
                    batch = await client.chat({k: v for k, v in request.items()
                                               if k != "stream_options"})
                    text = "".join(c["choices"][0]["delta"]["content"] or "" for c in outs[-1]
                                   if c["choices"] and c["choices"][0]["index"] == 1)
                    assert text == batch["choices"][1]["message"]["content"]
        return outs

    outs = asyncio.run(run())
    assert all(o == outs[0] for o in outs[1:])
    assert {c["created"] for c in outs[0]} == {1796040000}


def test_client_closing_a_stream_aborts_the_engine(stack: Stack) -> None:
    async def run() -> str:
        async with TitoClient(engine=stack.engine_url) as client:
            chunks = client.chat_stream({"model": "qwen3", "max_tokens": 400,
                                         "messages": [{"role": "user", "content": "Hi"}],
                                         **xargs(LONG)})
            first = await chunks.__anext__()
            await chunks.aclose()  # the user went away
            await asyncio.sleep(0.2)
            return str(first["id"])

    rid = asyncio.run(run())
    deadline = time.monotonic() + 5
    while not ((record := stack.engine.record(rid)) and record.finish_reasons[0] == "abort"):
        assert time.monotonic() < deadline, "the engine request was not aborted"
        time.sleep(0.01)
    assert record.completion_tokens[0] < 100
    assert [rid] in [list(c) for c in stack.engine.abort_calls]  # and the client said so


def test_user_disconnecting_from_the_gateway_aborts_the_engine(stack: Stack) -> None:
    with httpx.Client(base_url=stack.gateway_url, timeout=30) as http:
        with http.stream("POST", "/v1/chat/completions", json={
                "model": "qwen3", "messages": [{"role": "user", "content": "Hi"}],
                "max_tokens": 400, "stream": True, **xargs(LONG)}) as resp:
            first = next(line for line in resp.iter_lines() if line.startswith("data: {"))
    rid = json.loads(first[6:])["id"]  # the connection is closed here, mid-stream
    deadline = time.monotonic() + 5
    while not ((record := stack.engine.record(rid)) and record.finish_reasons[0] == "abort"):
        assert time.monotonic() < deadline, "the engine request was not aborted"
        time.sleep(0.01)
    assert record.completion_tokens[0] < 100


def test_stream_derenderer_filters_and_decides_aborts() -> None:
    """The sans-I/O driver: lanes per index, hidden empty deltas, nothing after a finish."""
    from tito.client import StreamContext, StreamDerenderer, derender_batch_sync

    ctx = StreamContext(endpoint="chat", model="m", n=2, created=7)
    driver = StreamDerenderer(ctx)
    calls: list[dict[str, Any]] = []

    def event(index: int, ids: list[int], finish: str | None = None) -> dict[str, Any]:
        return {"request_id": "r", "choices": [{"index": index, "token_ids": ids,
                                                "finish_reason": finish}]}

    def fake_derender(path: str, body: dict[str, Any]) -> dict[str, Any]:
        calls.append(body)
        events = body.get("generate_chunks") or [body["generate_chunk"]]
        index = events[0]["choices"][0]["index"]
        chunks = []
        for e in events:
            ids = e["choices"][0]["token_ids"]
            content = "".join(chr(96 + i) for i in ids if i > 0) or None  # 0: held back
            finish = "stop" if 9 in ids else e["choices"][0]["finish_reason"]
            chunks.append({"id": "r", "created": 123, "choices": [
                {"index": index, "delta": {"role": None, "content": content},
                 "finish_reason": finish}]})
        return {"chunks": chunks, "stream_state": {"n": len(calls)}} if len(events) > 1 \
            else {"chunk": chunks[0], "stream_state": {"n": len(calls)}}

    out = derender_batch_sync(driver, [event(0, [1]), event(1, [0]), event(0, [2]),
                                       event(1, [3, 9])], fake_derender)
    assert [c["choices"][0]["delta"]["content"] for c in out] == ["a", "b", "ci"]
    assert {c["created"] for c in out} == {7}  # one created for the whole response
    assert len(calls) == 2 and all("generate_chunks" in c for c in calls)  # one call per index
    assert all(c["stream_state"] is None for c in calls)
    assert not driver.should_abort  # choice 0 still runs
    out = derender_batch_sync(driver, [event(1, [4]), event(0, [9])], fake_derender)
    assert [c["choices"][0]["index"] for c in out] == [0]  # nothing more for choice 1
    assert len(calls) == 3 and "generate_chunk" in calls[-1]
    assert calls[-1]["stream_state"] == {"n": 1}  # index 0 carries its own state
    assert driver.should_abort  # both finished by stop strings, the engine still runs


# -- the real CLI --------------------------------------------------------------------------------


def _wait_http(url: str, proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{proc.args} exited with {proc.returncode}")
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise AssertionError(f"{url} did not come up")


def test_cli_fake_engine_and_gateway_subprocesses(tmp_path: Path) -> None:
    from tito.adapters.fake_engine import free_port

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    engine_port, gateway_port = free_port(), free_port()
    # render/derender over HTTP from a tito app served here (as `tito serve` would): the
    # gateway subprocess then loads no tokenizer and starts fast
    tito = LoopbackServer(create_app())
    tito_url = tito.start()
    engine = subprocess.Popen(
        [sys.executable, "-m", "tito.cli", "fake-engine", "--port", str(engine_port),
         "--reply", "Hi from a subprocess.", "-k", "2"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    gateway = subprocess.Popen(
        [sys.executable, "-m", "tito.cli", "gateway", "--port", str(gateway_port),
         "--generate-url", f"http://127.0.0.1:{engine_port}", "--render-url", tito_url,
         "--derender-url", tito_url, "--capture-dir", str(tmp_path), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_http(f"http://127.0.0.1:{engine_port}", engine)
        _wait_http(f"http://127.0.0.1:{gateway_port}", gateway)
        sdk = openai.OpenAI(base_url=f"http://127.0.0.1:{gateway_port}/v1", api_key="-",
                            max_retries=0)
        text = "".join(c.choices[0].delta.content or "" for c in sdk.chat.completions.create(
            model="qwen3", messages=[{"role": "user", "content": "Hi"}], stream=True,
            extra_body=NO_THINK) if c.choices)
        assert text == "Hi from a subprocess."
    finally:
        for proc in (gateway, engine):
            proc.terminate()
            proc.wait(timeout=10)
        tito.stop()
    assert len(list(tmp_path.glob("*.jsonl"))) == 1 and len(list(tmp_path.glob("*.sse"))) == 1
