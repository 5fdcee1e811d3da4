#!/usr/bin/env python3
"""Load test: concurrent OpenAI streams through ``tito gateway``, ``tito serve`` and a fake engine.

Why: the streaming path makes one derender call per batch of engine events for every open stream,
so what matters under load is whether outputs stay exact (no state mixed between streams, no
chunk lost or duplicated) and what the per-stream latency looks like when hundreds of streams
share a derender server. Everything runs on loopback as three real processes::

    tito fake-engine (engine)  <-  tito gateway  ->  tito serve (render + derender over HTTP)

Run it with one command from the repository root (about 15-40 s on 2 cores)::

    python bench/bench_load.py                 # 200 concurrent streams
    python bench/bench_load.py --streams 50 --json

Each stream pins its own reply (``vllm_xargs.fake_reply``), half are chat (Qwen3), half
completions (GPT-2); every output is compared with its reply, exactly (content, finish reason,
completion token count). It reports throughput (requests/s, output tokens/s) and latency
percentiles (time to first token, total), and exits 1 if any output differs or a stream fails.
Bounds: at most 1000 streams, 120 s overall (``--deadline``), loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"  # loopback only, on purpose
MAX_STREAMS = 1000


@dataclass
class Result:
    kind: str
    ok: bool
    ttft: float | None = None
    total: float = 0.0
    tokens: int = 0
    chunks: int = 0
    error: str = ""


@dataclass
class Servers:
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get(
        "PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-m", "tito.cli", *args], env=env, cwd=ROOT,
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)


async def wait_up(url: str, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient() as http:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"{' '.join(map(str, proc.args))} exited ({proc.returncode})")
            try:
                if (await http.get(url + "/health", timeout=1)).status_code == 200:
                    return
            except httpx.HTTPError:
                await asyncio.sleep(0.1)
    raise SystemExit(f"{url} did not start in {seconds} s")


def reply_for(i: int) -> str:
    """A distinct reply per stream (so a state mixed between streams shows up)."""
    return (f"Stream {i}: the answer is {i * 7 % 1000}, naïve café ☕ — "
            + " ".join(f"word{(i * 31 + j) % 97}" for j in range(12)) + ".")


async def one_stream(http: Any, url: str, i: int, token_counts: dict[str, Any]) -> Result:
    chat = i % 2 == 0
    reply = reply_for(i)
    if chat:
        path = "/v1/chat/completions"
        # (thinking off: the reply is the answer; with it on, Qwen3's parser makes a reply
        # without </think> reasoning, as vLLM's)
        body: dict[str, Any] = {"model": "qwen3", "messages": [{"role": "user",
                                                               "content": f"Question {i}"}],
                                "chat_template_kwargs": {"enable_thinking": False}}
    else:
        path = "/v1/completions"
        body = {"model": "gpt2", "prompt": f"Prompt number {i}:", "max_tokens": 200}
    body.update(stream=True, stream_options={"include_usage": True},
                vllm_xargs={"fake_reply": reply})
    kind = "chat" if chat else "completions"
    expected_tokens = token_counts[kind](reply)
    start = time.perf_counter()
    res = Result(kind=kind, ok=False)
    text, finish, usage = "", None, None
    try:
        async with http.stream("POST", url + path, json=body) as resp:
            if resp.status_code != 200:
                res.error = f"HTTP {resp.status_code}: {(await resp.aread())[:200]!r}"
                return res
            async for line in resp.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                chunk = json.loads(line[6:])
                if "error" in chunk:
                    res.error = str(chunk["error"])
                    return res
                res.chunks += 1
                for c in chunk.get("choices") or []:
                    piece = c["delta"].get("content") if chat else c.get("text")
                    if piece and res.ttft is None:
                        res.ttft = time.perf_counter() - start
                    text += piece or ""
                    finish = c.get("finish_reason") or finish
                usage = chunk.get("usage") or usage
    except Exception as exc:  # noqa: BLE001 - reported, never raised
        res.error = f"{type(exc).__name__}: {exc}"
        return res
    res.total = time.perf_counter() - start
    res.tokens = int((usage or {}).get("completion_tokens") or 0)
    problems = []
    if text != reply:
        problems.append(f"text {text[:60]!r} != {reply[:60]!r}")
    if finish != "stop":
        problems.append(f"finish_reason {finish!r}")
    if res.tokens != expected_tokens:
        problems.append(f"completion_tokens {res.tokens} != {expected_tokens}")
    res.ok = not problems
    res.error = "; ".join(problems)
    return res


def cpu_seconds(proc: subprocess.Popen[bytes]) -> float | None:
    """User + system CPU time of a process so far (Linux ``/proc``; None elsewhere)."""
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)
    except (OSError, ValueError, IndexError):
        return None


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


async def run(args: argparse.Namespace) -> int:
    import httpx

    from tito.models import get_registry

    registry = get_registry()
    qwen, gpt2 = registry.get("qwen3").vocab, registry.get("gpt2").vocab
    token_counts = {"chat": lambda t: len(qwen.encode(t)) + 1,
                    "completions": lambda t: len(gpt2.encode(t)) + 1}
    logs = Path(args.log_dir or tempfile.mkdtemp(prefix="tito-bench-"))
    logs.mkdir(parents=True, exist_ok=True)
    engine_port, serve_port, gateway_port = free_port(), free_port(), free_port()
    engine_url, serve_url, gateway_url = (f"http://{HOST}:{p}" for p in
                                          (engine_port, serve_port, gateway_port))
    servers = Servers()
    try:
        servers.procs.append(start(["fake-engine", "--host", HOST, "--port", str(engine_port),
                                    "-k", str(args.tokens_per_event), "--delay-ms",
                                    str(args.delay_ms)], logs / "engine.log"))
        servers.procs.append(start(["serve", "--host", HOST, "--port", str(serve_port),
                                    "--log-level", "warning"], logs / "serve.log"))
        servers.procs.append(start(["gateway", "--host", HOST, "--port", str(gateway_port),
                                    "--generate-url", engine_url, "--render-url", serve_url,
                                    "--derender-url", serve_url, "--log-level", "warning"],
                                   logs / "gateway.log"))
        for url, proc in zip((engine_url, serve_url, gateway_url), servers.procs):
            await wait_up(url, proc)
        limits = httpx.Limits(max_connections=args.streams + 10)
        async with httpx.AsyncClient(timeout=args.deadline, limits=limits) as http:
            # one warm-up request per kind (template compilation, first imports)
            await asyncio.gather(*(one_stream(http, gateway_url, k, token_counts)
                                   for k in (0, 1)))
            started = time.perf_counter()
            results = await asyncio.wait_for(
                asyncio.gather(*(one_stream(http, gateway_url, i, token_counts)
                                 for i in range(args.streams))),
                timeout=args.deadline)
            elapsed = time.perf_counter() - started
        cpu = {name: cpu_seconds(proc) for name, proc in
               zip(("engine", "serve", "gateway"), servers.procs)}
    finally:
        servers.stop()
    ok = [r for r in results if r.ok]
    failed = [r for r in results if not r.ok]
    ttft = [r.ttft for r in ok if r.ttft is not None]
    total = [r.total for r in ok]
    tokens = sum(r.tokens for r in ok)
    report = {
        "streams": len(results), "exact": len(ok), "failed": len(failed),
        "elapsed_s": round(elapsed, 3),
        "requests_per_s": round(len(ok) / elapsed, 1),
        "output_tokens_per_s": round(tokens / elapsed, 1),
        "chunks_per_s": round(sum(r.chunks for r in ok) / elapsed, 1),
        "ttft_ms": {f"p{q}": round(pct(ttft, q) * 1000, 1) for q in (50, 90, 99)},
        "total_ms": {f"p{q}": round(pct(total, q) * 1000, 1) for q in (50, 90, 99)},
        "mean_total_ms": round(statistics.fmean(total) * 1000, 1) if total else None,
        "server_cpu_s": cpu,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['streams']} concurrent streams ({args.tokens_per_event} tokens/event, "
              f"engine delay {args.delay_ms} ms/step): {report['exact']} exact, "
              f"{report['failed']} failed, in {report['elapsed_s']} s")
        print(f"  throughput  {report['requests_per_s']} req/s, "
              f"{report['output_tokens_per_s']} output tokens/s, "
              f"{report['chunks_per_s']} chunks/s")
        print("  TTFT        " + ", ".join(f"{k} {v} ms" for k, v in report["ttft_ms"].items()))
        print("  total       " + ", ".join(f"{k} {v} ms" for k, v in report["total_ms"].items()))
        if all(v is not None for v in cpu.values()):
            print("  server CPU  " + ", ".join(f"{k} {v} s" for k, v in cpu.items())
                  + " (whole run, warm-up included)")
    for r in failed[:10]:
        print(f"  FAILED {r.kind}: {r.error}", file=sys.stderr)
    if failed:
        print(f"  server logs: {logs}", file=sys.stderr)
    return 0 if not failed else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200,
                        help=f"concurrent streams (default 200, at most {MAX_STREAMS})")
    parser.add_argument("--tokens-per-event", type=int, default=2)
    parser.add_argument("--delay-ms", type=float, default=5.0,
                        help="fake engine pause per step (default 5 ms)")
    parser.add_argument("--deadline", type=float, default=120.0,
                        help="give up after this many seconds (default 120)")
    parser.add_argument("--log-dir", help="where the servers log (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.streams <= MAX_STREAMS:
        parser.error(f"--streams must be between 1 and {MAX_STREAMS}")
    sys.path.insert(0, str(ROOT / "src"))
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
