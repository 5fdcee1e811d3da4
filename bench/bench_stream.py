"""Streaming derender cost: flat per call over the stream, and per token vs DecodeStream.

Run: ``python bench/bench_stream.py`` (about a minute on 2 cores). CPU time of this process
(``time.process_time``, one core); everything is measured in the same run (the per-token figures
in interleaved rounds, medians), so the ratios hold on any machine, loaded or not:

- per-call time at token position ~100 vs ~100,000 (one token per call, full call as the
  derender app runs it: JSON in, request check, state decode, pipeline, state encode, JSON out;
  the two streams' calls interleaved, medians);
- the stream state's JSON size at both positions;
- tito's per-token cost (full call, and the core pipeline alone, one id per call) as a ratio to
  ``tokenizers.decoders.DecodeStream.step`` stepping the same ids.

Goal (issue 15): core pipeline per token <= 3x ``DecodeStream.step``, per-call time flat.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tokenizers.decoders import DecodeStream  # noqa: E402

from tito.core.pipeline import ChoiceConfig, start_choice, step_choice  # noqa: E402
from tito.models import get_registry  # noqa: E402
from tito.protocol import DerenderChatStreamRequest, DerenderCompletionStreamRequest  # noqa: E402
from tito.adapters.asgi import dump_json  # noqa: E402
from tito.service import stream_body  # noqa: E402
from tito.service.derender import derender_chat_stream, derender_completion_stream  # noqa: E402

TEXT = " The quick brown fox 😀 jumps over the lazy dog; 中文字符 and café. " * 4
CALLS = 300
ROUNDS = 9


def chunk(ids: list[int], finish: str | None = None) -> dict:
    return {"request_id": "generate-tokens-bench", "output_mode": "tokens",
            "choices": [{"index": 0, "token_ids": ids, "finish_reason": finish}]}


def call(fn, cls, model, body: dict) -> dict:
    """One derender call as the derender app runs it: parse, the hand-checked body
    (``stream_body.read``; pydantic for the other bodies, and for a hand-read body whose state
    the fast path leaves to it: ``NotCommon``), derender, serialize."""
    data = json.loads(json.dumps(body))
    req = stream_body.read(data)
    try:
        res = fn(model, req or cls.model_validate(data))
    except stream_body.NotCommon:  # (as the app: a state the hand-read path leaves to pydantic)
        res = fn(model, cls.model_validate(data))
    dump_json(res)
    return res


def advance(fn, cls, model, name: str, ids: list[int], start_pos: int) -> dict | None:
    """The stream state after ``start_pos`` tokens (advanced quickly, in chunks of 1,000)."""
    state = None
    pos = 0
    while pos < start_pos:
        n = min(1000, start_pos - pos)
        part = [ids[(pos + k) % len(ids)] for k in range(n)]
        state = call(fn, cls, model, {"stream": True, "model": name, "stream_state": state,
                                      "generate_chunk": chunk(part)})["stream_state"]
        pos += n
    return state


def per_call_times(fn, cls, model, name: str, ids: list[int],
                   positions: tuple[int, ...]) -> list[tuple[float, int]]:
    """Median seconds per one-token call and the largest state, for a stream at each of
    ``positions`` tokens; the streams' calls interleaved (one call each in turn), so a change in
    the box's load weighs on every position alike."""
    states = [advance(fn, cls, model, name, ids, pos) for pos in positions]
    times: list[list[float]] = [[] for _ in positions]
    sizes = [0 for _ in positions]
    for k in range(CALLS):
        for j, pos in enumerate(positions):
            body = {"stream": True, "model": name, "stream_state": states[j],
                    "generate_chunk": chunk([ids[(pos + k) % len(ids)]])}
            t0 = time.process_time()
            res = call(fn, cls, model, body)
            times[j].append(time.process_time() - t0)
            states[j] = res["stream_state"]
            sizes[j] = max(sizes[j], len(json.dumps(states[j], ensure_ascii=False).encode()))
    return [(statistics.median(t), size) for t, size in zip(times, sizes, strict=True)]


def decode_stream_per_token(vocab, ids: list[int]) -> float:
    ds = DecodeStream(skip_special_tokens=True)
    t0 = time.process_time()
    for i in ids:
        ds.step(vocab.tokenizer, i)
    return (time.process_time() - t0) / len(ids)


def pipeline_per_token(vocab, ids: list[int]) -> float:
    cfg = ChoiceConfig()
    state = start_choice(vocab, cfg, None)
    t0 = time.process_time()
    for i in ids:
        state, _ = step_choice(vocab, cfg, state, [i], finish_reason=None)
    return (time.process_time() - t0) / len(ids)


def per_token(vocab, ids: list[int]) -> tuple[float, float]:
    """Medians of DecodeStream.step and of the core pipeline per token, interleaved rounds."""
    ds, core = [], []
    for _ in range(ROUNDS):
        ds.append(decode_stream_per_token(vocab, ids))
        core.append(pipeline_per_token(vocab, ids))
    return statistics.median(ds), statistics.median(core)


def handler_call(name: str, ids: list[int]) -> float:
    """Median seconds of one streamed derender call through the Lambda handler (API Gateway v2
    event, Mangum, the derender ASGI app, Powertools): what one chunk costs a deployed function."""
    import contextlib
    import io
    import os

    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Tito")
    os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "tito")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "events"))
    from make_events import http_api_event

    from tito.handlers.completions_derender import handler

    class Context:
        function_name, memory_limit_in_mb, aws_request_id = "bench", 1024, "bench"
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:bench"

        def get_remaining_time_in_millis(self) -> int:
            return 29_000

    ctx, state, times = Context(), None, []
    with contextlib.redirect_stdout(io.StringIO()):
        for k in range(CALLS):
            body = {"stream": True, "model": name, "stream_state": state,
                    "generate_chunk": chunk([ids[k % len(ids)]])}
            event = http_api_event("bench", "POST", "/v1/completions/derender", body)
            t0 = time.process_time()
            res = handler(event, ctx)
            times.append(time.process_time() - t0)
            state = json.loads(res["body"])["stream_state"]
    return statistics.median(times[20:])


def main() -> int:
    registry = get_registry()
    rows = []
    for name, cls, fn in [("gpt2", DerenderCompletionStreamRequest, derender_completion_stream),
                          ("qwen3", DerenderChatStreamRequest, derender_chat_stream)]:
        base = registry.get(name)
        model = dataclasses.replace(base, config=base.config.model_copy(update={"max_model_len": 10**6}))
        ids = model.vocab.encode(TEXT)
        (early, size_early), (late, size_late) = per_call_times(
            fn, cls, model, name, ids, (100, 100_000))
        stream_ids = (ids * (3000 // len(ids) + 1))[:3000]
        ds, core = per_token(model.vocab, stream_ids)
        rows.append((name, early, late, size_early, size_late, ds, core))
    print("CPU time, one core; per token: medians of interleaved rounds, one id per call")
    print(f"{'model':8s} {'call@100':>10s} {'call@100k':>10s} {'late/early':>10s} "
          f"{'state@100':>9s} {'state@100k':>10s} {'DecodeStream/tok':>16s} "
          f"{'core/tok':>9s} {'core/DS':>8s} {'call/DS':>8s}")
    for name, early, late, s1, s2, ds, core in rows:
        print(f"{name:8s} {early*1e6:8.0f}us {late*1e6:8.0f}us {late/early:10.2f} "
              f"{s1:8d}B {s2:9d}B {ds*1e6:14.1f}us {core*1e6:7.1f}us {core/ds:8.1f} "
              f"{late/ds:8.1f}")
    gpt2 = registry.get("gpt2")
    h = handler_call("gpt2", gpt2.vocab.encode(TEXT))
    ds, _ = per_token(gpt2.vocab, (gpt2.vocab.encode(TEXT) * 20)[:3000])
    print(f"gpt2 one-token call through the Lambda handler: {h*1e6:.0f}us "
          f"({h/ds:.0f}x DecodeStream.step)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
