"""Record ``render_joined_markers.json``: renders by vLLM 0.33 servers whose kimi_k3 parsers
join their markers' tokens (``spaces_between_special_tokens`` off in the engine request).

Why: vLLM's kimi_k3 reasoning parser turns ``skip_special_tokens`` and
``spaces_between_special_tokens`` off for every request, its tool parser with them (a marker,
``<|open|>think<|sep|>``, is three tokens the parser reads unspaced); tito turned only the first
off (found in session 51 by comparing whole structural goldens). Three servers on qwen3's
tokenizer with the formats' markers (``markers.marker_folder``): the reasoning parser alone, the
tool parser alone, both. Starts its own servers on the ports given::

    /work/vllm-venv/bin/python conformance/record_joined_markers.py --ports 8451,8452,8453
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import markers, record  # noqa: E402
from conformance.calls import request as post  # noqa: E402

OUT = record.GOLDENS / "render_joined_markers.json"
#: server -> (reasoning parser, tool parser): vLLM's flags, and tito.json's parsers in the test
SERVERS: dict[str, tuple[str | None, str | None]] = {
    "k3_reasoning": ("kimi_k3", None), "k3_tools": (None, "kimi_k3"),
    "k3_both": ("kimi_k3", "kimi_k3")}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
MESSAGES = [{"role": "user", "content": "Hi"}]


def cases() -> dict[str, tuple[str, dict[str, Any]]]:
    """Chat (each flag as sent, tools or not, thinking off), completions and Responses."""
    chat = "/v1/chat/completions/render"
    out: dict[str, tuple[str, dict[str, Any]]] = {
        "chat": (chat, {"messages": MESSAGES}),
        "chat_spaces_true": (chat, {"messages": MESSAGES, "spaces_between_special_tokens": True}),
        "chat_spaces_false": (chat, {"messages": MESSAGES,
                                     "spaces_between_special_tokens": False}),
        "chat_skip_true": (chat, {"messages": MESSAGES, "skip_special_tokens": True}),
        "chat_thinking_off": (chat, {"messages": MESSAGES,
                                     "chat_template_kwargs": {"thinking": False}}),
        "chat_tools": (chat, {"messages": MESSAGES, "tools": TOOLS}),
        "chat_tools_none": (chat, {"messages": MESSAGES, "tools": TOOLS, "tool_choice": "none"}),
        "chat_tools_required": (chat, {"messages": MESSAGES, "tools": TOOLS,
                                       "tool_choice": "required"}),
        "chat_tool_choice_none": (chat, {"messages": MESSAGES, "tool_choice": "none"}),
        "completion": ("/v1/completions/render", {"prompt": "Hi"}),
        "responses": ("/v1/responses/render", {"input": "Hi"}),
        "responses_tools": ("/v1/responses/render", {"input": "Hi", "tools": [
            {"type": "function", "name": "get_weather",
             "parameters": TOOLS[0]["function"]["parameters"]}]}),
    }
    return out


def _flags(reasoning: str | None, tool: str | None) -> list[str]:
    flags = ["--served-model-name", "qwen3"]
    if reasoning:
        flags += ["--reasoning-parser", reasoning]
    if tool:
        flags += ["--tool-call-parser", tool, "--enable-auto-tool-choice"]
    return flags


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", default="8451,8452,8453")
    ap.add_argument("--vllm", default="/work/vllm-venv/bin/vllm")
    args = ap.parse_args()
    ports = [int(p) for p in args.ports.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="joined-"))
    folder = markers.marker_folder(tmp / "qwen3")
    for f in (HERE / "models" / "qwen3").glob("*.json"):
        shutil.copy(f, folder)
    procs, urls = [], {}
    try:
        for (server, (reasoning, tool)), port in zip(SERVERS.items(), ports, strict=True):
            env = {"VLLM_TARGET_DEVICE": "cpu", "HF_HUB_OFFLINE": "1"}
            log = open(tmp / f"{server}.log", "wb")  # noqa: SIM115 (lives with the server)
            procs.append(subprocess.Popen(
                [args.vllm, "launch", "render", str(folder), *_flags(reasoning, tool),
                 "--host", "127.0.0.1", "--port", str(port)],
                env={**__import__("os").environ, **env}, stdout=log,
                stderr=subprocess.STDOUT, cwd=tmp))
            urls[server] = f"http://127.0.0.1:{port}"
        for server, proc in zip(urls, procs, strict=True):
            record.wait_ready(urls[server], proc)
        out = {}
        for server, url in urls.items():
            for name, (path, body) in cases().items():
                body = {"model": "qwen3", **body}
                status, resp = post(url, path, body)
                out[f"{server}/{name}"] = {"server": server, "path": path, "request": body,
                                           "status": status, "response": resp}
        _, version = post(next(iter(urls.values())), "/version", method="GET")
        OUT.write_text(json.dumps({"vllm": version, "servers": {
            s: {"reasoning_parser": r, "tool_parser": t} for s, (r, t) in SERVERS.items()},
            "cases": out}, indent=1, ensure_ascii=False) + "\n")
        print(f"{OUT}: {len(out)} cases")
    finally:
        for proc in procs:
            proc.terminate()


if __name__ == "__main__":
    main()
