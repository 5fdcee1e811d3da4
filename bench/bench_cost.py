"""Price per million streamed tokens: API Gateway HTTP API + Lambda vs direct Lambda Invoke.

Run: ``python bench/bench_cost.py [--gpu-usd-per-m 0.10] [--rates 50 100 150] ...`` (about 40 s).

How the figures are made (every input is printed):

1. **Per-call duration**, measured: CPU time (``time.process_time``, one core) of one streamed
   chat derender call (Qwen3, reasoning and tool parsers on) through the whole Lambda handler
   (``tito.handlers.chat_derender``: API Gateway v2 event, Powertools, Mangum, the derender app)
   carrying 1, 4, 16 and 64 tokens; a straight line through the medians gives the duration at any
   tokens per call. ``--speed`` scales it to the Lambda CPU (default 1.0: a 1024 MB arm64
   function taken as fast as one core here). Lambda bills whole milliseconds.
2. **Tokens per call and added latency**, measured: the real client (:class:`tito.client.
   TitoClient` with a :class:`~tito.client.CoalescePolicy`) streams a chat answer from the real
   fake engine (vLLM's wire shapes, one token per event at 50, 100 and 150 tokens/s) through the
   derender functions' app, all in-process on a virtual clock (:mod:`tito.adapters.
   virtual_clock`: the engine's pauses and the client's window are exact, the CPU the calls take
   does not move it; ``--call-ms`` adds a derender round trip on that clock). Tokens per call =
   engine tokens / derender calls; a token's latency = when the call carrying it returned minus
   when the engine sent it; "added" = its median (and 90th percentile) minus the same with no
   window. The last two columns: the same policy waiting out every window
   (``CoalescePolicy(early=False)``), for what the early close saves.
3. **Prices** (parameters; defaults are AWS list prices, us-east-1, 2026-12-01): HTTP API $1.00 per
   million requests, Lambda $0.20 per million requests and $0.0000133334 per GB-second (arm64), at
   the memory size ``template.yaml`` gives the functions. The GPU's price per million generated
   tokens is a parameter too (default: one H100 at $3/h serving 15k tokens/s, ~$0.056/M).

Goal (issue 15): <= $0.05 per million streamed tokens with <= 50 ms added median latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import statistics
from typing import Any

from _bench import ROOT, Context, Table, cpu_seconds, handler_call, quiet

TEXT = " The quick brown fox jumps over the lazy dog, and the dog does not mind at all. " * 30
CAPS_MS = (0, 10, 20, 40, 60, 100, 200)
SIZES = (1, 4, 16, 64)
PATH = "/v1/chat/completions/derender"


def template_memory_mb() -> int:
    """The functions' ``MemorySize`` in ``template.yaml`` (its Globals)."""
    found = re.search(r"^\s+MemorySize:\s*(\d+)", (ROOT / "template.yaml").read_text(), re.M)
    return int(found.group(1)) if found else 1024


def call_seconds(tokens_per_call: int, calls: int = 120) -> float:
    """Median CPU seconds of one streamed chat call carrying ``tokens_per_call`` tokens."""
    from tito.handlers.chat_derender import handler
    from tito.models import get_registry

    ids = get_registry().get("qwen3").vocab.encode(TEXT)
    ctx, state, times, pos = Context(), None, [], 0
    with quiet():
        for _ in range(calls):
            if pos + tokens_per_call > 4000:
                state, pos = None, 0  # a new stream now and then
            body: dict[str, Any] = {"stream": True, "model": "qwen3", "stream_state": state,
                                    "generate_chunk": {"request_id": "generate-tokens-bench",
                                                       "choices": [{
                                                           "index": 0, "finish_reason": None,
                                                           "token_ids": [ids[(pos + k) % len(ids)]
                                                                         for k in range(
                                                                             tokens_per_call)]}]}}
            if state is None:
                body["chat_request"] = {"messages": [{"role": "user", "content": "hi"}]}
            out: dict[str, Any] = {}
            times.append(cpu_seconds(lambda: out.update(handler_call(handler, PATH, body, ctx))))
            state = out["stream_state"]
            pos += tokens_per_call
    return statistics.median(times[10:])


def coalesce(rate: float, cap_ms: float, growth: float, call_ms: float,
             tokens: int, early: bool = True) -> tuple[float, list[float]]:
    """(tokens per call, each token's latency in seconds) of one stream through the client."""
    from tito.adapters.asgi import DerenderApp
    from tito.adapters.fake_engine import FakeEngine, ReplyScript, create_fake_engine_app
    from tito.adapters.virtual_clock import VirtualClockLoop
    from tito.client import CoalescePolicy, TitoClient

    sent: list[float] = []  # engine send time of each token
    calls: list[tuple[float, int]] = []  # (return time, tokens) of each derender call
    engine = create_fake_engine_app(FakeEngine(ReplyScript.from_text(TEXT), delay=1.0 / rate))
    derender = DerenderApp(["chat_derender"])

    async def engine_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def sending(message: dict[str, Any]) -> None:
            for line in (message.get("body") or b"").split(b"\n"):
                if line.startswith(b"data: {"):
                    event = json.loads(line[6:])
                    n = sum(len(c.get("token_ids") or []) for c in event.get("choices") or [])
                    sent.extend([asyncio.get_running_loop().time()] * n)
            await send(message)

        await engine(scope, receive, sending)

    async def derender_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = await receive()
        body = json.loads(message["body"])
        chunks = body.get("generate_chunks") or [body.get("generate_chunk")]
        n = sum(len(c.get("token_ids") or []) for e in chunks for c in e.get("choices") or [])

        async def again() -> dict[str, Any]:
            return message

        async def sending(out: dict[str, Any]) -> None:
            if out["type"] == "http.response.body" and not out.get("more_body"):
                await asyncio.sleep(call_ms / 1000)  # the round trip, on the virtual clock
                calls.append((asyncio.get_running_loop().time(), n))
            await send(out)

        await derender(scope, again, sending)

    request = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}],
               "max_tokens": tokens, "ignore_eos": True, "request_id": "cost"}

    async def main() -> None:
        policy = CoalescePolicy(max_wait=cap_ms / 1000, growth=growth, early=early)
        async with TitoClient(engine=engine_app, derender=derender_app, coalesce=policy) as c:
            async for _ in c.chat_stream(request):
                pass

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        runner.run(main())
    latencies, k = [], 0
    for done, n in calls:
        latencies.extend(done - t for t in sent[k:k + n])
        k += n
    return k / len(calls), latencies  # every call is billed, a usage-only one too


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}ms"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fit(measured: dict[int, float]) -> tuple[float, float]:
    """Least-squares (seconds per call, seconds per token) through ``measured``."""
    xs, ys = list(measured), list(measured.values())
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memory-mb", type=int, default=template_memory_mb(),
                    help="function memory (default: template.yaml's MemorySize)")
    ap.add_argument("--speed", type=float, default=1.0, help="Lambda duration / duration here")
    ap.add_argument("--http-api-usd-per-m", type=float, default=1.00)
    ap.add_argument("--lambda-request-usd-per-m", type=float, default=0.20)
    ap.add_argument("--lambda-gb-s-usd", type=float, default=0.0000133334, help="arm64")
    ap.add_argument("--gpu-usd-per-m", type=float, default=3.0 / (15_000 * 3600) * 1e6,
                    help="GPU price per million generated tokens")
    ap.add_argument("--growth", type=float, default=2.0, help="window growth per call")
    ap.add_argument("--rates", type=float, nargs="+", default=[50, 100, 150],
                    help="engine tokens/s per stream")
    ap.add_argument("--caps-ms", type=float, nargs="+", default=list(CAPS_MS))
    ap.add_argument("--call-ms", type=float, default=0.0,
                    help="derender round trip on the virtual clock (default 0: the window alone)")
    ap.add_argument("--tokens", type=int, default=1000, help="tokens per simulated stream")
    args = ap.parse_args()

    measured = {k: call_seconds(k) * args.speed for k in SIZES}
    base, slope = fit(measured)
    print("per-call duration (CPU here x speed, whole Lambda handler, qwen3 chat): " + ", ".join(
        f"{k} tok {measured[k] * 1e3:.2f} ms" for k in SIZES)
        + f"  -> {base * 1e3:.3f} ms + {slope * 1e6:.1f} us/token")
    gb = args.memory_mb / 1024

    def usd_per_m(tokens_per_call: float, api_gateway: bool) -> float:
        billed_ms = math.ceil((base + slope * tokens_per_call) * 1e3)
        per_call = (args.lambda_request_usd_per_m / 1e6
                    + billed_ms / 1e3 * gb * args.lambda_gb_s_usd
                    + (args.http_api_usd_per_m / 1e6 if api_gateway else 0.0))
        return per_call * 1e6 / tokens_per_call

    print(f"Lambda arm64 {args.memory_mb} MB; GPU ${args.gpu_usd_per_m:.3f} per million "
          f"generated tokens (parameter); derender round trip {args.call_ms:g} ms (virtual)")
    table = Table(("window cap", 10), ("tok/s", 5), ("tok/call", 8), ("added p50", 9),
                  ("added p90", 9), ("$/M HTTP API", 12), ("$/M Invoke", 10), ("Invoke/GPU", 10),
                  ("full window: tok/call", 21), ("p50", 7))
    table.header()
    met: list[str] = []
    for rate in args.rates:
        _, plain = coalesce(rate, 0, args.growth, args.call_ms, args.tokens)
        p50, p90 = statistics.median(plain), percentile(plain, 0.9)
        for cap in args.caps_ms:
            per_call, lat = coalesce(rate, cap, args.growth, args.call_ms, args.tokens)
            added50, added90 = statistics.median(lat) - p50, percentile(lat, 0.9) - p90
            http, invoke = usd_per_m(per_call, True), usd_per_m(per_call, False)
            full_per_call, full = coalesce(rate, cap, args.growth, args.call_ms, args.tokens,
                                           early=False)
            table.row([f"{cap:g}ms", f"{rate:g}", f"{per_call:.1f}", ms(added50), ms(added90),
                       f"{http:.4f}", f"{invoke:.4f}", f"{invoke / args.gpu_usd_per_m:.2f}x",
                       f"{full_per_call:.1f}", ms(statistics.median(full) - p50)])
            for name, usd in (("HTTP API", http), ("Invoke", invoke)):
                if usd <= 0.05 and added50 <= 0.050:
                    met.append(f"{name} at {rate:g} tok/s with a {cap:g} ms window "
                               f"(${usd:.3f}/M, +{added50 * 1e3:.0f} ms)")
    print("goal: <= $0.05/M streamed tokens with <= 50 ms added median latency")
    print("met by: " + ("; ".join(met) if met else "none of these"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
