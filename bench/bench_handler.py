"""Per-chunk cost of a streamed derender call through the whole Lambda handler, vs two baselines.

Run: ``python bench/bench_handler.py`` (about 15 s). CPU time of this process
(``time.process_time``), one core; every variant is measured in the same run, interleaved in
rounds, so the ratios hold on any machine. Each variant's time is its **fastest round** (the
minimum over ``ROUNDS`` rounds of ``PER_ROUND`` calls), for the handler and the floor alike:
on a shared machine other processes only ever add time to a round (cache and branch-predictor
pollution, frequency changes), and they add more of it to the handler's larger working set
than to the floor's, so the median of the rounds moved the floor and the ratios by +-15-30%
between runs at the same commit. The median's ratio is printed too (``med``) for comparison
with earlier tables:

- **handler**: one one-token streamed chunk (gpt2 completions, qwen3 chat and qwen3 Responses) through
  ``tito.handlers.<fn>.handler``: an API Gateway HTTP API v2 event, Powertools logger (correlation
  id) and metrics (one EMF record printed per invocation), Mangum, the derender ASGI app, request
  validation, state decode, core step, state encode, JSON out;
- **echo**: an *async* FastAPI route behind Mangum returning the same request body (no tito, no
  Powertools): what the cheapest FastAPI Lambda function costs per call;
- **floor**: ``json.loads`` of the same body + one ``DecodeStream.step`` + ``json.dumps`` of an
  answer of the same size: what any Python implementation has to do at least.

Also printed: the handler without Powertools (Mangum + app only, called as the handler calls
them: ``EagerMangum.plain`` for the usual event, which ``plain_v2`` passes) and the service
alone (the body parsed as the app parses it for its fast path, ``parse_fast``, +
``derender.handle_stream_body``: request check, state decode, core step, state encode, chunk
dict; no JSON out), so the split of the cost is visible. Goals (issue 15):
handler <= 1.3x echo and <= 5x floor. ``TITO_STATE_SECRET=<32+ chars> python
bench/bench_handler.py`` measures signed states (as a deployment with ``StateSecret`` runs: each
call verifies the state's HMAC and signs the new one).
"""

from __future__ import annotations

import contextlib
import io
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from _bench import Context, http_api_event  # first: this tree's src/ on the path, Powertools env
from tokenizers.decoders import DecodeStream

TEXT = " The quick brown fox 😀 jumps over the lazy dog; 中文字符 and café. " * 4
ROUNDS = 31
PER_ROUND = 200


def cpu_per_call(fn: Callable[[int], Any]) -> float:
    """CPU seconds for one call of ``fn(k)`` over one round (``PER_ROUND`` calls)."""
    t0 = time.process_time()
    for k in range(PER_ROUND):
        fn(k)
    return (time.process_time() - t0) / PER_ROUND


def make_stream_bodies(handler: Any, path: str, model: str, ids: list[int]) -> list[dict[str, Any]]:
    """Real one-token chunk bodies at successive positions (the state each previous call gave)."""
    bodies, state = [], None
    ctx = Context()
    for k in range(PER_ROUND):
        body = {"stream": True, "model": model, "stream_state": state,
                "generate_chunk": {"request_id": "generate-tokens-bench",
                                   "choices": [{"index": 0, "token_ids": [ids[k % len(ids)]],
                                                "finish_reason": None}]}}
        if state is None and path.startswith("/v1/responses"):
            body["responses_request"] = {"model": model, "input": "hi"}
        elif model == "qwen3" and state is None:
            body["chat_request"] = {"messages": [{"role": "user", "content": "hi"}]}
        bodies.append(body)
        res = handler(http_api_event("bench", "POST", path, body), ctx)
        assert res["statusCode"] == 200, res
        state = json.loads(res["body"])["stream_state"]
    return bodies[20:] * (PER_ROUND // (PER_ROUND - 20) + 1)


def echo_handler(path: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    from fastapi import FastAPI, Request, Response
    from mangum import Mangum

    app = FastAPI()

    @app.post(path)
    async def echo(request: Request) -> Response:
        return Response(await request.body(), media_type="application/json")

    return Mangum(app, lifespan="off")


def main() -> int:
    from functools import partial

    from tito.adapters.validation import parse_fast
    from tito.handlers import chat_derender, completions_derender, responses_derender
    from tito.handlers._events import plain_v2
    from tito.models import get_registry
    from tito.service import derender, stream_state_kept
    from tito.service import responses_derender as responses_service

    issued = stream_state_kept._ISSUED

    registry = get_registry()
    ctx = Context()
    cases = [("gpt2", "/v1/completions/derender", completions_derender,
              partial(derender.handle_stream_body, completion=True)),
             ("qwen3", "/v1/chat/completions/derender", chat_derender,
              partial(derender.handle_stream_body, completion=False)),
             ("qwen3", "/v1/responses/derender", responses_derender,
              responses_service.handle_stream_body)]
    print(f"CPU time per call, fastest of {ROUNDS} interleaved rounds of {PER_ROUND} calls, "
          "1 core (med: the ratio of the rounds' medians)")
    print(f"{'case':8s} {'handler':>9s} {'h-miss':>9s} {'no-PT':>9s} {'service':>9s} "
          f"{'echo':>9s} {'floor':>9s} {'h/echo':>7s} {'h/floor':>8s} {'miss/floor':>10s} "
          f"{'med':>5s}")
    sink = io.StringIO()
    for name, path, module, service in cases:
        case = "resp" if path.startswith("/v1/responses") else name
        handler = module.handler
        vocab = registry.get(name).vocab
        ids = vocab.encode(TEXT)
        with contextlib.redirect_stdout(sink):
            bodies = make_stream_bodies(handler, path, name, ids)
        events = [http_api_event("bench", "POST", path, b) for b in bodies]
        raw = [e["body"] for e in events]
        echo = echo_handler(path)
        mangum_only = handler.mangum
        assert service(parse_fast(raw[0])) is not None  # the fast path serves these calls
        with contextlib.redirect_stdout(sink):
            answer_size = len(handler(events[0], ctx)["body"])
        filler = "x" * max(answer_size - 40, 0)
        ds = DecodeStream(skip_special_tokens=True)
        tok = vocab.tokenizer

        def floor(k: int) -> None:
            data = json.loads(raw[k])
            piece = ds.step(tok, data["generate_chunk"]["choices"][0]["token_ids"][0])
            json.dumps({"text": piece, "filler": filler}, ensure_ascii=False)

        def handler_miss(k: int) -> None:
            issued.clear()  # a state this process did not issue: decoded and checked
            handler(events[k], ctx)

        variants: dict[str, Callable[[int], Any]] = {
            "handler": lambda k: handler(events[k], ctx),
            "h-miss": handler_miss,
            "service": lambda k: service(parse_fast(raw[k])),
            "echo": lambda k: echo(events[k], ctx),
            "floor": floor,
        }
        if mangum_only is not None:
            # as the handler calls it: the usual event (plain_v2) through EagerMangum.plain
            plain = getattr(mangum_only, "plain", None)
            if plain is not None:
                variants["no-PT"] = lambda k: (plain(events[k], ctx) if plain_v2(events[k])
                                               else mangum_only(events[k], ctx))
            else:
                variants["no-PT"] = lambda k: mangum_only(events[k], ctx)
        times: dict[str, list[float]] = {v: [] for v in variants}
        with contextlib.redirect_stdout(sink):
            for _ in range(ROUNDS):
                for label, fn in variants.items():
                    times[label].append(cpu_per_call(fn))
                sink.seek(0)
                sink.truncate()
        best = {k: min(v) for k, v in times.items()}
        med = {k: statistics.median(v) for k, v in times.items()}
        no_pt = best.get("no-PT", float("nan"))
        print(f"{case:8s} {best['handler']*1e6:7.0f}us {best['h-miss']*1e6:7.0f}us "
              f"{no_pt*1e6:7.0f}us {best['service']*1e6:7.0f}us {best['echo']*1e6:7.0f}us "
              f"{best['floor']*1e6:7.0f}us {best['handler']/best['echo']:7.2f} "
              f"{best['handler']/best['floor']:8.2f} {best['h-miss']/best['floor']:10.2f} "
              f"{med['h-miss']/med['floor']:5.2f}")
    print("goals: handler <= 1.3x echo, <= 5x floor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
