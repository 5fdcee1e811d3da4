"""Record ``render_reasoning_flags.json``: a plain chat and Responses render by vLLM 0.33 for
every ``--reasoning-parser`` tito has (no tool parser), on qwen3's tokenizer with the formats'
markers (``markers.marker_folder``).

Why: the engine request's ``skip_special_tokens`` depends on the reasoning parser's
``adjust_request``: the parser-engine ones turn it off, the older ones (deepseek_r1, step3, ...)
leave the request's flag. tito turned it off for every reasoning parser but harmony's (found in
session 51 by calling each vLLM parser's ``adjust_request``). One server per parser, a few at a
time on the ports given (about two minutes a round on a loaded 2-core box)::

    /work/vllm-venv/bin/python conformance/record_reasoning_flags.py --ports 8451,8452,8453
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE.parent / "tests" / "goldens"))

from conformance import markers, record  # noqa: E402
from conformance.calls import request as post  # noqa: E402

OUT = record.GOLDENS / "render_reasoning_flags.json"
MESSAGES = [{"role": "user", "content": "Hi"}]
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": ("/v1/chat/completions/render", {"messages": MESSAGES}),
    "chat_skip_false": ("/v1/chat/completions/render", {"messages": MESSAGES,
                                                        "skip_special_tokens": False}),
    "responses": ("/v1/responses/render", {"input": "Hi"}),
}


def parsers() -> list[str]:
    """tito's reasoning parsers but the routers' (harmony, Muse, Inkling: their own rules,
    recorded elsewhere)."""
    from tito.core.parsers.reasoning_formats import REASONING_PARSERS

    return sorted(REASONING_PARSERS)


def _folder(parser: str, tmp: Path) -> Path:
    """qwen3's tokenizer with the formats' markers and the ones this parser looks up (its
    vLLM class refuses a tokenizer without them: k2_horizon's), as the parser goldens add."""
    from parser_cases import markers_for

    extra = [m for m in markers_for({"tool": None, "reasoning": parser})
             if m not in markers.MARKERS]
    folder = markers._with_specials(tmp / parser / "qwen3", [*markers.MARKERS, *extra],
                                    ("tokenizer_config.json",))
    for f in (HERE / "models" / "qwen3").glob("*.json"):
        shutil.copy(f, folder)
    return folder


def _start(parser: str, folder: Path, port: int, vllm: str, tmp: Path) -> subprocess.Popen:
    log = open(tmp / f"{parser}.log", "wb")  # noqa: SIM115 (lives with the server)
    return subprocess.Popen(
        [vllm, "launch", "render", str(folder), "--served-model-name", "qwen3",
         "--reasoning-parser", parser, "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, "VLLM_TARGET_DEVICE": "cpu", "HF_HUB_OFFLINE": "1"},
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", default="8451,8452,8453")
    ap.add_argument("--vllm", default="/work/vllm-venv/bin/vllm")
    args = ap.parse_args()
    ports = [int(p) for p in args.ports.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="reasoning-flags-"))
    names, out, version = parsers(), {}, None
    for start in range(0, len(names), len(ports)):
        batch = names[start:start + len(ports)]
        procs = [_start(p, _folder(p, tmp), port, args.vllm, tmp)
                 for p, port in zip(batch, ports)]
        try:
            for parser, port, proc in zip(batch, ports, procs):
                url = f"http://127.0.0.1:{port}"
                try:
                    record.wait_ready(url, proc, timeout=600)
                except SystemExit as exc:  # (kept, with why: the test skips it)
                    out[f"{parser}/server"] = {"server": parser, "status": None,
                                               "error": str(exc)}
                    continue
                if version is None:
                    _, version = post(url, "/version", method="GET")
                for name, (path, body) in CASES.items():
                    body = {"model": "qwen3", **body}
                    status, resp = post(url, path, body)
                    out[f"{parser}/{name}"] = {"server": parser, "path": path, "request": body,
                                               "status": status, "response": resp}
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait()
        print(f"recorded {batch}", flush=True)
        OUT.write_text(json.dumps({"vllm": version, "servers": {
            p: {"reasoning_parser": p, "tool_parser": None} for p in names},
            "cases": out}, indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(out)} cases")


if __name__ == "__main__":
    main()
