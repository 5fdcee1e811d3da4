"""Price per million streamed tokens: API Gateway HTTP API + Lambda vs direct Lambda Invoke.

Run: ``python bench/bench_cost.py [--gpu-usd-per-m 0.10] [--memory-mb 1024] ...`` (about 30 s).

How the figure is made (every input printed):

1. **Per-call duration**, measured here: CPU time of one streamed derender call through the whole
   Lambda handler (``tito.handlers.completions_derender``, gpt2) carrying 1, 4, 16 and 64 tokens;
   a straight line through them gives the duration for any tokens-per-call. ``--speed`` scales it
   to the Lambda CPU (default 1.0: a 1024 MB arm64 function is assumed as fast as one core here;
   pass e.g. 2.0 if it is twice as slow). Lambda bills whole milliseconds.
2. **Tokens per call**: a coalescing policy with a bounded wait window, simulated against one
   stream's engine events at 50, 100 and 150 tokens/s (arrival times jittered +-30%): the first
   token goes out at once (window 0), then each call waits ``window`` after its first waiting
   token, the window growing by ``--growth`` per call up to the cap. The table shows, per cap: the
   mean tokens per call, the median delay a token waits before its call is sent (the latency the
   coalescing adds), and the price.
3. **Prices** (parameters; defaults are AWS list prices for us-east-1 on 2026-12-01): HTTP API
   $1.00 per million requests, Lambda $0.20 per million requests and $0.0000133334 per GB-second
   (arm64). The GPU's price per million generated tokens is a parameter too (default: one H100 at
   $3/h serving 15k tokens/s, ~$0.056/M).

This is a model of the policy, not a load test: ``bench_load.py`` measures the gateway under load.
Goal (issue 15): <= $0.05 per million streamed tokens with <= 50 ms added median latency.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import random
import statistics
import time

from _bench import Context, http_api_event  # first: src/ on the path, Powertools env

TEXT = " The quick brown fox jumps over the lazy dog, and the dog does not mind at all. " * 30
CAPS_MS = (0, 10, 20, 40, 60, 100, 200)
RATES = (50, 100, 150)


def call_seconds(tokens_per_call: int, calls: int = 150) -> float:
    """Median CPU seconds of one streamed call carrying ``tokens_per_call`` tokens."""
    from tito.handlers.completions_derender import handler
    from tito.models import get_registry

    ids = get_registry().get("gpt2").vocab.encode(TEXT)
    ctx, state, times, pos = Context(), None, [], 0
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(calls):
            if pos + tokens_per_call > 900:
                state, pos = None, 0  # a new stream before max_model_len (1024)
            part = [ids[(pos + k) % len(ids)] for k in range(tokens_per_call)]
            body = {"stream": True, "model": "gpt2", "stream_state": state,
                    "generate_chunk": {"request_id": "generate-tokens-bench", "choices": [
                        {"index": 0, "token_ids": part, "finish_reason": None}]}}
            event = http_api_event("bench", "POST", "/v1/completions/derender", body)
            t0 = time.process_time()
            res = handler(event, ctx)
            times.append(time.process_time() - t0)
            assert res["statusCode"] == 200, res["body"][:300]
            state = json.loads(res["body"])["stream_state"]
            pos += tokens_per_call
    return statistics.median(times[10:])


def simulate(rate: float, cap_s: float, growth: float, tokens: int = 3000,
             seed: int = 7) -> tuple[float, float]:
    """(mean tokens per call, median seconds a token waits) for one stream at ``rate`` tokens/s."""
    rng = random.Random(seed)
    t, arrivals = 0.0, []
    for _ in range(tokens):
        t += (1.0 / rate) * rng.uniform(0.7, 1.3)
        arrivals.append(t)
    waits: list[float] = []
    calls = 0
    window = 0.0  # the first token goes out at once
    i = 0
    start = cap_s / 8 if cap_s else 0.0
    while i < len(arrivals):
        send_at = arrivals[i] + window
        j = i
        while j < len(arrivals) and arrivals[j] <= send_at:
            waits.append(send_at - arrivals[j])
            j += 1
        calls += 1
        i = j
        window = min(cap_s, max(start, window * growth))
    return tokens / calls, statistics.median(waits)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memory-mb", type=int, default=1024, help="template MemorySize")
    ap.add_argument("--speed", type=float, default=1.0, help="Lambda duration / duration here")
    ap.add_argument("--http-api-usd-per-m", type=float, default=1.00)
    ap.add_argument("--lambda-request-usd-per-m", type=float, default=0.20)
    ap.add_argument("--lambda-gb-s-usd", type=float, default=0.0000133334, help="arm64")
    ap.add_argument("--gpu-usd-per-m", type=float, default=3.0 / (15_000 * 3600) * 1e6,
                    help="GPU price per million generated tokens")
    ap.add_argument("--growth", type=float, default=2.0, help="window growth per call")
    args = ap.parse_args()

    sizes = (1, 4, 16, 64)
    measured = {k: call_seconds(k) * args.speed for k in sizes}
    n = len(sizes)
    mean_x = sum(sizes) / n
    mean_y = sum(measured.values()) / n
    slope = sum((k - mean_x) * (measured[k] - mean_y) for k in sizes) / sum(
        (k - mean_x) ** 2 for k in sizes)
    base = mean_y - slope * mean_x
    print("per-call duration (CPU here x speed): " + ", ".join(
        f"{k} tok {measured[k]*1e3:.2f} ms" for k in sizes)
        + f"  -> {base*1e3:.3f} ms + {slope*1e6:.1f} us/token")
    gb = args.memory_mb / 1024

    def usd_per_m(tokens_per_call: float, api_gateway: bool) -> float:
        billed_ms = math.ceil((base + slope * tokens_per_call) * 1e3)
        per_call = (args.lambda_request_usd_per_m / 1e6 + billed_ms / 1e3 * gb * args.lambda_gb_s_usd
                    + (args.http_api_usd_per_m / 1e6 if api_gateway else 0.0))
        return per_call * 1e6 / tokens_per_call

    print(f"GPU: ${args.gpu_usd_per_m:.3f} per million generated tokens (parameter)")
    print(f"{'window cap':>10s} {'tok/s':>5s} {'tok/call':>8s} {'added p50':>9s} "
          f"{'$/M HTTP API':>12s} {'$/M Invoke':>10s}")
    for cap_ms in CAPS_MS:
        for rate in RATES:
            per_call, wait = simulate(rate, cap_ms / 1e3, args.growth)
            print(f"{cap_ms:8d}ms {rate:5d} {per_call:8.1f} {wait*1e3:7.1f}ms "
                  f"{usd_per_m(per_call, True):12.4f} {usd_per_m(per_call, False):10.4f}")
    print("goal: <= $0.05/M streamed tokens with <= 50 ms added median latency")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
