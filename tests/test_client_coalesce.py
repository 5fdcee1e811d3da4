"""The client's coalescing window, on the fake engine, on a virtual clock.

Why a virtual clock (:class:`tito.adapters.virtual_clock.VirtualClockLoop`): the window trades
latency for calls, both of them times. Here the fake engine (vLLM's wire shapes, one token per
event every 10 ms: 100 tokens/s) and the client share one loop whose clock only moves when every
task waits on a timer, so which events each derender call carries, and when each call is sent,
are the same on every run however loaded the machine is. The engine runs in-process through the
streaming ASGI transport (events reach the client one by one, as over a socket). The last tests
build ``tito gateway``'s app from its command line (``--coalesce-*``, ``--chunks-per-call``) and
stream through it, so the flags are proven to reach the client and leave the user's bytes alone.

What must hold: the first token is never delayed; no event waits longer than the window's cap;
the window grows (more events per call, fewer calls) and never past ``chunks_per_call``; the
stream's end is sent at once; and the user's chunks say exactly what they say without a window
(derender is chunking-invariant).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tito.adapters.app import create_app
from tito.adapters.fake_engine import FakeEngine, ReplyScript, create_fake_engine_app
from tito.adapters.gateway import create_gateway_app, gateway_options
from tito.adapters.virtual_clock import VirtualClockLoop
from tito.client import CoalescePolicy, TitoClient

REPLY = "The quick brown fox jumps over the lazy dog, café 😀 中文. " * 6
REQUEST = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}],
           "request_id": "coalesce", "stream_options": {"include_usage": True}}
RATE_DELAY = 0.010  # one token per event every 10 ms: 100 tokens/s


@dataclass
class Trace:
    """Virtual times of the engine's events and of the derender calls (with their events)."""

    events: list[float] = field(default_factory=list)
    calls: list[tuple[float, int]] = field(default_factory=list)


def _spy_engine(app: Any, trace: Trace) -> Callable[..., Any]:
    async def spied(scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def sending(message: dict[str, Any]) -> None:
            body = message.get("body") or b""
            trace.events.extend([asyncio.get_running_loop().time()] * body.count(b'"choices"'))
            await send(message)

        await app(scope, receive, sending)

    return spied


def _spy_derender(app: Any, trace: Trace) -> Callable[..., Any]:
    async def spied(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        message = await receive()
        body = json.loads(message["body"])
        chunks = body.get("generate_chunks") or [body.get("generate_chunk")]
        trace.calls.append((asyncio.get_running_loop().time(), len(chunks)))

        async def again() -> dict[str, Any]:
            return message

        return await app(scope, again, send)

    return spied


DERENDER = create_app(endpoints=["chat_derender", "chat_render"])


def run_stream(policy: CoalescePolicy, *, chunks_per_call: int = 32,
               delay: float = RATE_DELAY) -> tuple[list[dict[str, Any]], Trace]:
    """One streamed chat through the client on the virtual clock: (user chunks, trace)."""
    trace = Trace()
    engine = create_fake_engine_app(FakeEngine(ReplyScript.from_text(REPLY), delay=delay))

    async def main() -> list[dict[str, Any]]:
        async with TitoClient(engine=_spy_engine(engine, trace), render=DERENDER,
                              derender=_spy_derender(DERENDER, trace), coalesce=policy,
                              chunks_per_call=chunks_per_call, clock=lambda: 1796040000) as c:
            return [chunk async for chunk in c.chat_stream(REQUEST)]

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(main()), trace


def _waits(trace: Trace) -> list[float]:
    """Each engine event's wait: from its arrival to the derender call that carried it."""
    waits, k = [], 0
    for sent, count in trace.calls:
        waits.extend(sent - t for t in trace.events[k:k + count])
        k += count
    assert k == len(trace.events)
    return waits


def test_window_schedule() -> None:
    policy = CoalescePolicy(max_wait=0.080, growth=2.0, start=0.010)
    assert [policy.window(k) for k in range(6)] == [0.0, 0.010, 0.020, 0.040, 0.080, 0.080]
    assert CoalescePolicy(max_wait=0.080).window(1) == 0.010  # start: a cap's eighth
    assert {CoalescePolicy().window(k) for k in range(5)} == {0.0}  # the default never waits
    assert CoalescePolicy(max_wait=0.05, growth=1e6).window(10**6) == 0.05  # no overflow
    for bad in ({"max_wait": -1}, {"max_wait": 1, "growth": 0.5}, {"max_wait": 1, "start": -1}):
        with pytest.raises(ValueError):
            CoalescePolicy(**bad)


def test_early_close_rule() -> None:
    policy = CoalescePolicy(max_wait=0.1)
    # events 20 ms apart: the next is due 20 ms after the last
    assert policy.closes_early(0.020, 0.080, 5)  # due at the window's end: send now
    assert not policy.closes_early(0.021, 0.080, 5)  # due before it: wait
    assert policy.closes_early(0.019, 0.080, 5)
    assert not policy.closes_early(0.001, 0.0, 1)  # one event: no rate yet
    assert not CoalescePolicy(max_wait=0.1, early=False).closes_early(0.001, 1.0, 5)


def test_early_close_cuts_the_dead_tail_of_a_window() -> None:
    """At 50 tokens/s a 100 ms window holds 5 events; waiting out its last 20 ms adds latency
    to all of them and no event (the next arrives as the window closes: a coin toss)."""
    plain, _ = run_stream(CoalescePolicy(), delay=0.020)
    early, early_trace = run_stream(CoalescePolicy(max_wait=0.1), delay=0.020)
    full, full_trace = run_stream(CoalescePolicy(max_wait=0.1, early=False), delay=0.020)
    assert early == full == plain  # the same user-visible chunks, byte for byte
    early_waits, full_waits = _waits(early_trace), _waits(full_trace)
    median = len(early_waits) // 2
    assert sorted(early_waits)[median] == pytest.approx(0.040)
    assert sorted(full_waits)[median] == pytest.approx(0.060)
    assert max(early_waits) <= 0.080 + 1e-9
    # the same calls, or fewer: no event is left out that the full window would carry
    assert len(early_trace.calls) <= len(full_trace.calls)
    # a window shorter than the gap never waits
    _, short = run_stream(CoalescePolicy(max_wait=0.015), delay=0.020)
    assert max(_waits(short)) == 0.0


def test_no_window_is_one_call_per_event_and_no_wait() -> None:
    chunks, trace = run_stream(CoalescePolicy())
    assert len(trace.events) > 80
    counts = [n for _, n in trace.calls]
    # one call per event; the usage event comes with the last token (both were waiting)
    assert counts[:-1] == [1] * (len(counts) - 1) and counts[-1] in (1, 2)
    assert max(_waits(trace)) == 0.0


def test_window_coalesces_within_its_bound_and_keeps_the_output() -> None:
    plain, _ = run_stream(CoalescePolicy())
    cap = 0.040
    chunks, trace = run_stream(CoalescePolicy(max_wait=cap))
    assert chunks == plain  # the same user-visible chunks, byte for byte
    counts = [n for _, n in trace.calls]
    assert counts[0] == 1 and trace.calls[0][0] == trace.events[0]  # first token: no delay
    assert counts[1:4] == sorted(counts[1:4])  # the window grows...
    assert max(counts) <= round(cap / RATE_DELAY) + 1  # ...to its cap at 100 tokens/s
    waits = _waits(trace)
    assert max(waits) <= cap + 1e-9
    tokens_per_call = len(trace.events) / len(trace.calls)
    assert tokens_per_call > 3.5, tokens_per_call
    assert sorted(waits)[len(waits) // 2] < cap


def test_chunks_per_call_bounds_a_long_window_and_the_end_is_not_delayed() -> None:
    plain, plain_trace = run_stream(CoalescePolicy())
    chunks, trace = run_stream(CoalescePolicy(max_wait=1.0), chunks_per_call=5)
    assert chunks == plain
    assert max(n for _, n in trace.calls) == 5
    # the last call goes out when the engine's stream ends, not a window later
    assert trace.calls[-1][0] - trace.events[-1] <= 1e-9


@settings(max_examples=8, deadline=None)
@given(cap_ms=st.integers(0, 120), growth=st.sampled_from([1.0, 1.5, 2.0, 4.0]),
       delay_ms=st.sampled_from([7, 10, 20]))
def test_any_policy_keeps_the_output_and_the_bound(cap_ms: int, growth: float,
                                                   delay_ms: int) -> None:
    plain, _ = run_stream(CoalescePolicy(), delay=delay_ms / 1000)
    policy = CoalescePolicy(max_wait=cap_ms / 1000, growth=growth)
    chunks, trace = run_stream(policy, delay=delay_ms / 1000)
    assert chunks == plain
    assert max(_waits(trace)) <= cap_ms / 1000 + 1e-9
    assert trace.calls[0][1] == 1


def run_gateway_stream(argv: list[str]) -> tuple[bytes, Trace]:
    """One streamed chat through ``tito gateway``'s app built from ``argv`` (stages in-process)."""
    trace = Trace()
    engine = create_fake_engine_app(FakeEngine(ReplyScript.from_text(REPLY), delay=RATE_DELAY))
    options = gateway_options(["--generate-url", "http://engine.invalid", *argv])
    for key in ("host", "port", "log_level"):
        options.pop(key)
    options.update(generate_url=_spy_engine(engine, trace), render_url=DERENDER,
                   derender_url=_spy_derender(DERENDER, trace))
    gateway = create_gateway_app(**options, clock=lambda: 1796040000)

    async def main() -> bytes:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=gateway),
                                     base_url="http://gateway") as http:
            answer = await http.post("/v1/chat/completions", json={**REQUEST, "stream": True})
            assert answer.status_code == 200, answer.text
            await gateway.state.client.aclose()
            return answer.content

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(main()), trace


def test_gateway_coalesce_flags_reach_its_client_and_keep_the_bytes() -> None:
    plain, plain_trace = run_gateway_stream([])
    assert [n for _, n in plain_trace.calls][:-1] == [1] * (len(plain_trace.calls) - 1)
    sse, trace = run_gateway_stream(["--coalesce-ms", "40", "--coalesce-start-ms", "5",
                                     "--coalesce-growth", "3", "--chunks-per-call", "3"])
    assert sse == plain and sse.endswith(b"data: [DONE]\n\n")  # the user's bytes, unchanged
    counts = [n for _, n in trace.calls]
    assert counts[0] == 1 and trace.calls[0][0] == trace.events[0]  # first token: no wait
    assert max(counts) == 3  # --chunks-per-call bounds the window's calls
    assert max(_waits(trace)) <= 0.040 + 1e-9
    assert len(trace.calls) < len(plain_trace.calls) / 2.5


def test_gateway_options_build_the_policy_and_refuse_bad_values(
        capsys: pytest.CaptureFixture[str]) -> None:
    options = gateway_options(["--generate-url", "http://e", "--coalesce-ms", "80",
                               "--coalesce-growth", "4"])
    assert [options["coalesce"].window(k) for k in range(4)] == [0.0, 0.010, 0.040, 0.080]
    assert options["coalesce"].early
    assert not gateway_options(["--generate-url", "http://e", "--coalesce-ms", "80",
                                "--coalesce-full-window"])["coalesce"].early
    assert options["port"] == 8080 and options["max_payload_bytes"] is None
    for bad, says in ((["--coalesce-ms", "-1"], "max_wait >= 0"),
                      (["--coalesce-ms", "10", "--coalesce-growth", "0.5"], "growth >= 1"),
                      (["--chunks-per-call", "0"], "--chunks-per-call must be at least 1"),
                      (["--max-payload-bytes", "10"], "--max-payload-bytes must be at least")):
        with pytest.raises(SystemExit) as exit_:
            gateway_options(["--generate-url", "http://e", *bad])
        assert exit_.value.code == 2
        assert says in capsys.readouterr().err
