"""Record vLLM 0.33.0's answers to the conformance corpus as golden JSON (``conformance/goldens``).

Why: tito claims vLLM's scale-out wire; the only trustworthy reference is the real server. This
script starts ``vllm launch render`` (GPU-less, CPU only) once per model of :data:`SERVERS`
(qwen3, gpt2, gpt-oss, mistral-v3, each with its parsers' flags) on model folders built from
tito's tokenizer files plus ``conformance/models/<name>/{config,generation_config}.json`` (no
weights), sends every case of :mod:`conformance.corpus` and stores request + status + response.
``tests/test_conformance.py`` replays the stored requests against tito in-process.

Re-record (needs a Python with vllm==0.33.0, for instance the venv at /work/vllm-venv)::

    /work/vllm-venv/bin/python conformance/record.py            # start servers, record all
    /work/vllm-venv/bin/python conformance/record.py '*_gptoss*' \\
        --url gpt-oss=http://127.0.0.1:8811                       # some groups, a running server

Streaming cases drive vLLM as its protocol requires: one call per engine event, the returned
``stream_state`` echoed, and ``chat_request`` / ``completion_request`` plus ``prompt_token_ids``
on every call.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import corpus  # noqa: E402
from conformance.calls import request as post  # noqa: E402

GOLDENS = HERE / "goldens"
#: served model name -> the render server's flags (vLLM's names; tito.json of the same folder
#: names the same parsers)
SERVERS = {
    "qwen3": ["--served-model-name", "qwen3", "--reasoning-parser", "qwen3",
              "--tool-call-parser", "hermes", "--enable-auto-tool-choice"],
    "gpt2": ["--served-model-name", "gpt2"],
    "gpt-oss": ["--served-model-name", "gpt-oss", "--reasoning-parser", "openai_gptoss",
                "--tool-call-parser", "openai", "--enable-auto-tool-choice"],
    "mistral-v3": ["--served-model-name", "mistral-v3", "--tokenizer-mode", "mistral",
                   "--tool-call-parser", "mistral", "--enable-auto-tool-choice"],
}
#: mistral-v3 from its ``tokenizer.json`` (tito's shipped folder), as vLLM serves a Llama-style
#: SentencePiece folder without mistral-common (Metaspace pieces, the folder's chat template)
SERVERS["mistral-v3-hf"] = ["--served-model-name", "mistral-v3-hf", "--tokenizer-mode", "hf",
                            "--tool-call-parser", "mistral", "--enable-auto-tool-choice"]
#: the natively encoded architectures (DeepSeek-V3.2, V4, V4.1, Inkling: Qwen3's tokenizer
#: files, no chat template): vLLM renders them with the model's encoding (its tokenizer_mode
#: deepseek_v32 / deepseek_v4 / deepseek_v41 / inkling), tito with core/render_dsv32 /
#: render_dsv4 / render_dsv41 / render_inkling
for _name, (_tool, _reasoning) in corpus.NATIVE.items():
    SERVERS[_name] = ["--served-model-name", _name, "--tool-call-parser", _tool,
                      "--reasoning-parser", _reasoning, "--enable-auto-tool-choice"]
#: qwen3 again, taking a request's own ``chat_template`` (the replay sets
#: ``TITO_TRUST_REQUEST_CHAT_TEMPLATE`` for its cases)
SERVERS["qwen3-trusted"] = [*SERVERS["qwen3"], "--trust-request-chat-template"]
#: servers of another server's model folder
SERVER_MODELS = {"qwen3-trusted": "qwen3"}
#: harmony's ``Current date:`` line, pinned on both sides (tito: ``TITO_HARMONY_START_DATE``)
HARMONY_DATE = "2026-12-01"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def model_folder(name: str, into: Path) -> Path:
    """tito's tokenizer files + ``conformance/models/<name>/*.json`` (sizes, EOS ids; no
    weights). mistral-v3 is served through mistral-common as vLLM's ``--tokenizer-mode mistral``
    does: its ``tokenizer.model.v3`` (:func:`corpus.mistral_folder`)."""
    folder = into / name
    if name == "mistral-v3":
        corpus.mistral_folder(folder)
    elif name == "mistral-v3-hf":
        corpus.mistral_hf_folder(folder)
    elif name in corpus.NATIVE:
        corpus.native_folder(name, folder)
    else:
        folder.mkdir(parents=True)
        for f in (corpus.MODELS / name).glob("tokenizer*.json"):
            shutil.copy(f, folder)
    for f in (HERE / "models" / name.removesuffix("-hf")).glob("*.json"):
        shutil.copy(f, folder)
    return folder


def start_server(name: str, vllm: str, tmp: Path,
                 port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = port or _free_port()
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1",
               VLLM_SYSTEM_START_DATE=HARMONY_DATE)
    if name == "gpt-oss":  # openai-harmony's vocabulary, offline (rebuilt from tokenizer.json)
        sys.path.insert(0, str(HERE.parent / "tests"))
        from harmony_ref import build_o200k

        build_o200k(tmp / "tiktoken")
        env["TIKTOKEN_ENCODINGS_BASE"] = str(tmp / "tiktoken")
    log = open(tmp / f"{name}.log", "wb")  # noqa: SIM115 (lives as long as the server)
    proc = subprocess.Popen(
        [vllm, "launch", "render", str(model_folder(SERVER_MODELS.get(name, name), tmp / name)),
         *SERVERS[name],
         "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
    )
    return proc, f"http://127.0.0.1:{port}"


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"vLLM server for {url} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2):
                return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"vLLM server {url} not ready after {timeout}s")


class Recorder:
    def __init__(self, urls: dict[str, str]) -> None:
        self.urls = urls
        self.prompts: dict[str, list[int]] = {}

    def http(self, server: str, path: str, body: Any) -> dict[str, Any]:
        status, resp = post(self.urls[server], path, body)
        return {"server": server, "path": path, "request": body, "status": status,
                "response": resp}

    def prompt(self, server: str, request: dict[str, Any], completion: bool) -> list[int]:
        key = json.dumps(request, sort_keys=True)
        if key not in self.prompts:
            path = "/v1/completions/render" if completion else "/v1/chat/completions/render"
            status, resp = post(self.urls[server], path, request)
            if status != 200:
                raise SystemExit(f"render failed for {request}: {status} {resp}")
            self.prompts[key] = (resp[0] if completion else resp)["token_ids"]
        return self.prompts[key]

    def stream(self, server: str, path: str, settings_key: str, settings: dict[str, Any],
               prompt_ids: list[int], chunks: list[dict[str, Any]],
               omit: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
        """Drive vLLM's streaming derender: one call per chunk, settings + prompt every call
        (less the body keys in ``omit``: ``prompt_token_ids``, ``prompt_tokens``, ``model``)."""
        calls, state = [], None
        for chunk in chunks:
            body = {"stream": True, "model": server, "generate_chunk": chunk,
                    "stream_state": state, "prompt_token_ids": prompt_ids,
                    "prompt_tokens": len(prompt_ids), settings_key: settings}
            body = {k: v for k, v in body.items() if k not in omit}
            status, resp = post(self.urls[server], path, body)
            calls.append({"status": status, "response": resp})
            if status != 200:
                break
            state = resp["stream_state"]
        return {"server": server, "path": path, "settings_key": settings_key,
                "settings": settings, "prompt_token_ids": prompt_ids, "chunks": chunks,
                "calls": calls, **({"omit": list(omit)} if omit else {})}


def split_choice(choice: dict[str, Any], sizes: list[int], request_id: str,
                 extra: dict[str, Any]) -> list[dict[str, Any]]:
    """One engine choice as stream events cut at ``sizes`` (finish and extras on the last)."""
    toks = choice["token_ids"]
    lps = (choice.get("logprobs") or {}).get("content")
    events, pos = [], 0
    for k, n in enumerate(sizes or [0]):
        last = k == len(sizes or [0]) - 1
        c: dict[str, Any] = {"index": choice["index"], "token_ids": toks[pos:pos + n],
                             "finish_reason": choice["finish_reason"] if last else None}
        if last and choice.get("stop_reason") is not None:
            c["stop_reason"] = choice["stop_reason"]
        if lps is not None:
            c["logprobs"] = {"content": lps[pos:pos + n]}
        ev: dict[str, Any] = {"request_id": request_id, "choices": [c]}
        if last:
            ev.update({k2: v for k2, v in extra.items() if k2 in ("metrics", "usage")})
        events.append(ev)
        pos += n
    return events


def record_chat(rec: Recorder, suffix: str, groups: list[str]) -> dict[str, dict[str, Any]]:
    """The chat groups of one served model (:data:`corpus.CHAT_MODELS`)."""
    server, render, errors, derender, streams = corpus.CHAT_MODELS[suffix]
    chat_r, chat_d = "/v1/chat/completions/render", "/v1/chat/completions/derender"
    g: dict[str, dict[str, Any]] = {}
    if f"render_chat{suffix}" in groups:
        g[f"render_chat{suffix}"] = {n: rec.http(server, chat_r, b) for n, b in render.items()}
    if f"render_chat{suffix}_errors" in groups:
        g[f"render_chat{suffix}_errors"] = {n: rec.http(server, chat_r, b)
                                            for n, b in errors.items()}
    if f"derender_chat{suffix}" in groups:
        g[f"derender_chat{suffix}"] = {}
        for name, (request, choices, extra) in derender.items():
            prompt = rec.prompt(server, request, completion=False)
            body = {"model": server, "chat_request": request, "prompt_token_ids": prompt,
                    "prompt_tokens": len(prompt),
                    "generate_response": {"request_id": f"chatcmpl-{name}", "choices": choices,
                                          **extra}}
            g[f"derender_chat{suffix}"][name] = rec.http(server, chat_d, body)
    if f"stream_chat{suffix}" in groups:
        g[f"stream_chat{suffix}"] = {}
        for name in streams:
            request, choices, extra = derender[name]
            prompt = rec.prompt(server, request, completion=False)
            choice = choices[0]
            for label, sizes in zip(("one", "random"),
                                    corpus.chunkings(len(choice["token_ids"]), seed=len(name))):
                events = split_choice(choice, sizes, f"chatcmpl-{name}", extra)
                g[f"stream_chat{suffix}"][f"{name}.{label}"] = rec.stream(
                    server, chat_d, "chat_request", request, prompt, events)
    return g


def chat_groups(suffix: str) -> list[str]:
    return [f"render_chat{suffix}", f"render_chat{suffix}_errors", f"derender_chat{suffix}",
            f"stream_chat{suffix}"]


COMPLETION_GROUPS = ["render_completion", "render_completion_errors", "derender_completion",
                     "derender_errors", "stream_completion"]
#: every group and the server it is filed under
GROUP_SERVERS = {**{g: corpus.CHAT_MODELS[s][0] for s in corpus.CHAT_MODELS
                    for g in chat_groups(s)}, **dict.fromkeys(COMPLETION_GROUPS, "gpt2"),
                 **{g: next(iter(cases.values()))[0] for g, cases in corpus.HTTP_GROUPS.items()},
                 **{g: next(iter(cases.values()))[0]
                    for g, cases in corpus.STREAM_GROUPS.items()}}
#: the other servers a group's cases go to
GROUP_EXTRA_SERVERS = {"derender_errors": {"qwen3"},
                       **{g: {s for s, _, _ in cases.values()}
                          for g, cases in corpus.HTTP_GROUPS.items()},
                       **{g: {case[0] for case in cases.values()}
                          for g, cases in corpus.STREAM_GROUPS.items()}}
#: the groups recorded a server at a time (single calls, or streams of their own)
SINGLE_GROUPS = {**corpus.HTTP_GROUPS, **corpus.STREAM_GROUPS}


def record_all(rec: Recorder, groups: list[str]) -> dict[str, dict[str, Any]]:
    g: dict[str, dict[str, Any]] = {}
    for suffix in corpus.CHAT_MODELS:
        g.update(record_chat(rec, suffix, groups))
    cmpl_r, cmpl_d = "/v1/completions/render", "/v1/completions/derender"
    if "render_completion" in groups:
        g["render_completion"] = {n: rec.http("gpt2", cmpl_r, b)
                                  for n, b in corpus.RENDER_COMPLETION.items()}
    if "render_completion_errors" in groups:
        g["render_completion_errors"] = {n: rec.http("gpt2", cmpl_r, b)
                                         for n, b in corpus.RENDER_COMPLETION_ERRORS.items()}
    if "derender_completion" in groups:
        g["derender_completion"] = {}
        for name, (request, responses, extra) in corpus.DERENDER_COMPLETION.items():
            prompt = rec.prompt("gpt2", request, completion=True)
            body = {"model": "gpt2", "completion_request": request,
                    "prompt_token_ids": [prompt] * len(responses),
                    "prompt_tokens": [len(prompt)] * len(responses),
                    "generate_responses": [{"request_id": f"cmpl-{name}-{r}", "choices": ch,
                                            **extra} for r, ch in enumerate(responses)]}
            g["derender_completion"][name] = rec.http("gpt2", cmpl_d, body)
    if "derender_errors" in groups:
        g["derender_errors"] = {}
        for name, (path, body) in corpus.DERENDER_ERRORS.items():
            server = "gpt2" if path.startswith("/v1/completions") else "qwen3"
            g["derender_errors"][name] = rec.http(server, path, body)
    for group in SINGLE_GROUPS:
        if group in groups:
            g[group] = {n: _record_case(rec, group, n) for n in SINGLE_GROUPS[group]}
    if "stream_completion" in groups:
        g["stream_completion"] = {}
        for name in corpus.STREAM_COMPLETION:
            request, responses, extra = corpus.DERENDER_COMPLETION[name]
            prompt = rec.prompt("gpt2", request, completion=True)
            choice = responses[0][0]
            for label, sizes in zip(("one", "random"),
                                    corpus.chunkings(len(choice["token_ids"]), seed=len(name))):
                events = split_choice(choice, sizes, f"cmpl-{name}", extra)
                g["stream_completion"][f"{name}.{label}"] = rec.stream(
                    "gpt2", cmpl_d, "completion_request", request, prompt, events)
    return g


def _record_case(rec: Recorder, group: str, name: str) -> dict[str, Any]:
    """One case of a single-call group (``corpus.HTTP_GROUPS``) or a stream group
    (``corpus.STREAM_GROUPS``)."""
    if group in corpus.HTTP_GROUPS:
        server, path, body = corpus.HTTP_GROUPS[group][name]
        return rec.http(server, path, body)
    server, path, key, settings, prompt, chunks = corpus.STREAM_GROUPS[group][name]
    return rec.stream(server, path, key, settings, prompt, chunks)


def _version(url: str) -> Any:
    with urllib.request.urlopen(url + "/version") as r:
        return json.loads(r.read())


def record_http(groups: list[str], servers: set[str], urls: dict[str, str], vllm: str,
                tmp: Path) -> tuple[dict[str, dict[str, Any]], Any]:
    """The cases of HTTP groups (``corpus.HTTP_GROUPS``: independent single calls) and stream
    groups (``corpus.STREAM_GROUPS``), asking one server at a time (started unless ``urls`` has
    it, stopped after its cases), so a group on several models needs no more of the box at once
    than one server."""
    answers: dict[tuple[str, str], dict[str, Any]] = {}
    version = None
    for server in sorted(servers):
        proc = None
        if server in urls:
            url = urls[server]
        else:
            proc, url = start_server(server, vllm, tmp)
        try:
            if proc is not None:
                wait_ready(url, proc)
            version = version or _version(url)
            rec = Recorder({server: url})
            for group in groups:
                for name, case in SINGLE_GROUPS[group].items():
                    if case[0] == server:
                        answers[(group, name)] = _record_case(rec, group, name)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
    return {g: {n: answers[(g, n)] for n in SINGLE_GROUPS[g]} for g in groups}, version


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("groups", nargs="*", help="fnmatch patterns of the groups to record "
                    f"(default: all): {', '.join(GROUP_SERVERS)}")
    ap.add_argument("--vllm", default=str(Path(sys.executable).with_name("vllm")),
                    help="the vllm CLI (default: next to this Python)")
    ap.add_argument("--url", action="append", default=[], metavar="MODEL=URL",
                    help=f"a running render server for MODEL ({', '.join(SERVERS)}) with the "
                    "flags of SERVERS, else one is started")
    args = ap.parse_args()
    groups = [g for g in GROUP_SERVERS
              if not args.groups or any(fnmatch.fnmatchcase(g, p) for p in args.groups)]
    groups_servers = {GROUP_SERVERS[g] for g in groups}.union(
        *(GROUP_EXTRA_SERVERS.get(g, set()) for g in groups))
    urls: dict[str, str] = dict(u.split("=", 1) for u in args.url)
    tmp = Path(tempfile.mkdtemp(prefix="tito-conformance-"))
    procs = []
    try:
        if all(g in SINGLE_GROUPS for g in groups):  # single calls: a server at a time
            goldens, version = record_http(groups, groups_servers, urls, args.vllm, tmp)
        else:
            for name in SERVERS:
                if name in groups_servers and name not in urls:
                    proc, urls[name] = start_server(name, args.vllm, tmp)
                    procs.append((proc, urls[name]))
            for proc, url in procs:
                wait_ready(url, proc)
            goldens = record_all(Recorder(urls), groups)
            version = _version(next(iter(urls.values())))
        GOLDENS.mkdir(exist_ok=True)
        for group, cases in goldens.items():
            path = GOLDENS / f"{group}.json"
            path.write_text(json.dumps({"vllm": version, "server": GROUP_SERVERS[group],
                                        "flags": SERVERS[GROUP_SERVERS[group]], "cases": cases},
                                       indent=1, ensure_ascii=False) + "\n")
            print(f"{path.relative_to(HERE.parent)}: {len(cases)} cases")
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
