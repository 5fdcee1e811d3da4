"""vLLM 0.33 render servers of other parser flags than ``record.SERVERS``, and the recording of
one set of cases on each: what ``record_joined_markers.py``, ``record_responses_no_parser.py``
and ``record_reasoning_flags.py`` share (their goldens replay in
``tests/test_render_server_flags.py``).

Why a module: each recorder only names its servers (a model folder and flags) and its cases;
starting the servers a few at a time on the ports given, waiting for them, posting, keeping a
server that fails to start as an error case and stopping them all is the same for each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import record  # noqa: E402
from conformance.calls import request as post  # noqa: E402

#: server name -> (model folder, its ``vllm launch render`` flags)
Servers = dict[str, tuple[Path, list[str]]]
#: case name -> (path, body without ``model``)
Cases = dict[str, tuple[str, dict[str, Any]]]
#: case name -> (path, settings key, settings without ``model``, prompt ids, engine chunks):
#: a streamed derender, one call per chunk (:meth:`record.Recorder.stream`)
Streams = dict[str, tuple[str, str, dict[str, Any], list[int], list[dict[str, Any]]]]


def args(default_ports: str) -> argparse.Namespace:
    """``--ports`` (comma-separated: as many servers run at once) and ``--vllm``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", default=default_ports)
    ap.add_argument("--vllm", default="/work/vllm-venv/bin/vllm")
    return ap.parse_args()


def record_servers(servers: Servers, cases: Cases, ns: argparse.Namespace, tmp: Path,
                   on_batch: Callable[[Any, dict], None] | None = None,
                   model: str = "qwen3", streams: Streams | None = None,
                   env: dict[str, str] | None = None) -> tuple[Any, dict]:
    """Every case on every server, ``len(ports)`` servers at a time: ``(vLLM's /version,
    {"SERVER/CASE": {server, path, request, status, response}})``; a server that does not start
    is kept as ``SERVER/server`` with status None and its error. ``on_batch`` sees the answers
    after each batch (a long run keeps what it has); ``model``: the served name requests name;
    ``streams``: streamed derenders recorded too; ``env``: added to the servers' environment."""
    ports = [int(p) for p in ns.ports.split(",")]
    names, out, version = list(servers), {}, None
    for start in range(0, len(names), len(ports)):
        batch = names[start:start + len(ports)]
        procs = [_start(name, *servers[name], port, ns.vllm, tmp, env or {})
                 for name, port in zip(batch, ports)]
        try:
            for name, port, proc in zip(batch, ports, procs):
                url = f"http://127.0.0.1:{port}"
                try:
                    record.wait_ready(url, proc, timeout=600)
                except SystemExit as exc:  # (kept, with why: the test skips it)
                    out[f"{name}/server"] = {"server": name, "status": None, "error": str(exc)}
                    continue
                if version is None:
                    _, version = post(url, "/version", method="GET")
                for case, (path, body) in cases.items():
                    body = {"model": model, **body}
                    status, resp = post(url, path, body)
                    out[f"{name}/{case}"] = {"server": name, "path": path, "request": body,
                                             "status": status, "response": resp}
                rec = record.Recorder({model: url})
                for case, (path, key, settings, prompt, chunks) in (streams or {}).items():
                    got = rec.stream(model, path, key, {"model": model, **settings}, prompt,
                                     chunks)
                    out[f"{name}/{case}"] = {**got, "server": name}
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait()
        print(f"recorded {batch}", flush=True)
        if on_batch is not None:
            on_batch(version, out)
    return version, out


def record_pairs(out: Path, pairs: dict[str, tuple[str | None, str | None]], cases: Cases,
                 default_ports: str, prefix: str) -> None:
    """Each server of ``pairs`` (name -> (reasoning parser, tool parser)) on qwen3's tokenizer
    with the markers they need (:func:`parser_folder`), ``cases`` on each, the golden written
    to ``out`` after each batch of servers and at the end."""
    ns = args(default_ports)
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    run = {name: (parser_folder(tmp, r, t), flags(r, t)) for name, (r, t) in pairs.items()}
    parsers = {name: {"reasoning_parser": r, "tool_parser": t} for name, (r, t) in pairs.items()}

    def keep(version: Any, got: dict) -> None:
        write(out, version, parsers, got)

    keep(*record_servers(run, cases, ns, tmp, on_batch=keep))


def harmony_env(tmp: Path) -> dict[str, str]:
    """The environment a gpt-oss server needs here: openai-harmony's vocabulary rebuilt offline
    from the ``tokenizer.json`` (``tests/harmony_ref.py``) under ``tmp``, and harmony's
    ``Current date:`` pinned as the replay pins tito's."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    from harmony_ref import build_o200k

    build_o200k(tmp / "tiktoken")
    return {"TIKTOKEN_ENCODINGS_BASE": str(tmp / "tiktoken"),
            "VLLM_SYSTEM_START_DATE": record.HARMONY_DATE}


def write(path: Path, version: Any, parsers: dict[str, dict[str, str | None]],
          out: dict) -> None:
    """The golden: vLLM's version, each server's ``reasoning_parser`` / ``tool_parser`` (what
    the test writes into tito.json) and the cases."""
    path.write_text(json.dumps({"vllm": version, "servers": parsers, "cases": out}, indent=1,
                               ensure_ascii=False) + "\n")
    print(f"{path}: {len(out)} cases")


def flags(reasoning: str | None, tool: str | None, model: str = "qwen3") -> list[str]:
    """The server flags of ``model`` served with these parsers."""
    out = ["--served-model-name", model]
    if reasoning:
        out += ["--reasoning-parser", reasoning]
    if tool:
        out += ["--tool-call-parser", tool, "--enable-auto-tool-choice"]
    return out


def extra_markers(reasoning: str | None, tool: str | None) -> list[str]:
    """The markers these parsers look up beyond ``markers.MARKERS`` (a vLLM class refuses a
    tokenizer without them: k2_horizon's), as the parser goldens add them."""
    sys.path.insert(0, str(HERE.parent / "tests" / "goldens"))
    from conformance import markers
    from parser_cases import markers_for

    return [m for m in markers_for({"tool": tool, "reasoning": reasoning})
            if m not in markers.MARKERS]


def model_server_folder(tmp: Path, model: str, reasoning: str | None,
                        tool: str | None) -> Path:
    """The folder a server of ``model`` with these parsers renders: qwen3's with the formats'
    markers (:func:`parser_folder`), else the recorder's own (``record.model_folder``)."""
    return (parser_folder(tmp, reasoning, tool) if model == "qwen3"
            else record.model_folder(model, tmp))


def parser_folder(tmp: Path, reasoning: str | None, tool: str | None,
                  copied: tuple[str, ...] = ("tokenizer_config.json",)) -> Path:
    """qwen3's tokenizer with the formats' markers and :func:`extra_markers`, ``copied`` from
    qwen3's folder, and ``conformance/models/qwen3``'s config files."""
    from conformance import markers

    folder = markers._with_specials(tmp / f"{reasoning}+{tool}" / "qwen3",
                                    [*markers.MARKERS, *extra_markers(reasoning, tool)], copied)
    for f in (HERE / "models" / "qwen3").glob("*.json"):
        shutil.copy(f, folder)
    return folder


def _start(name: str, folder: Path, server_flags: list[str], port: int, vllm: str,
           tmp: Path, env: dict[str, str]) -> subprocess.Popen:
    log = open(tmp / f"{name}.log", "wb")  # noqa: SIM115 (lives with the server)
    return subprocess.Popen(
        [vllm, "launch", "render", str(folder), *server_flags, "--host", "127.0.0.1",
         "--port", str(port)],
        env={**os.environ, "VLLM_TARGET_DEVICE": "cpu", "HF_HUB_OFFLINE": "1", **env},
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
