"""Record ``render_disabled_thinking.json``: Messages renders by vLLM 0.33 servers started with
``--anthropic-disabled-thinking-effort`` ``none``, ``low`` and ``high`` (qwen3 with its parsers),
thinking disabled, enabled and absent, and with a reasoning effort map beside it.

Why: the flag fixes the ``reasoning_effort`` a Messages request with thinking disabled renders
with, where ``auto`` probes the template (``none`` unless the template refuses or ignores it);
tito always probed (session 53). Starts its own servers on the ports given::

    /work/vllm-venv/bin/python conformance/record_disabled_thinking.py --ports 8451,8452,8453
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402

OUT = record.GOLDENS / "render_disabled_thinking.json"
#: server -> (its --anthropic-disabled-thinking-effort, its --reasoning-effort-map)
SERVERS: dict[str, tuple[str, dict[str, str] | None]] = {
    "qwen3_disabled_none": ("none", None), "qwen3_disabled_low": ("low", None),
    "qwen3_disabled_high_map": ("high", {"high": "none"}),
}
MESSAGES = [{"role": "user", "content": "Hi"}]
THINKING: dict[str, Any] = {"disabled": {"type": "disabled"},
                            "enabled": {"type": "enabled", "budget_tokens": 1024},
                            "absent": None}


def cases() -> flag_servers.Cases:
    out: flag_servers.Cases = {}
    for key, thinking in THINKING.items():
        out[f"messages_{key}"] = ("/v1/messages/render", {
            "max_tokens": 2048, "messages": MESSAGES,
            **({} if thinking is None else {"thinking": thinking})})
    out["chat_effort_none"] = ("/v1/chat/completions/render", {
        "messages": MESSAGES, "reasoning_effort": "none"})
    return out


def main() -> None:
    ns = flag_servers.args("8451,8452,8453")
    tmp = Path(tempfile.mkdtemp(prefix="disabled-thinking-"))
    folder = flag_servers.parser_folder(tmp, "qwen3", "hermes")
    servers: flag_servers.Servers = {}
    for name, (effort, effort_map) in SERVERS.items():
        server_flags = [*flag_servers.flags("qwen3", "hermes"),
                        "--anthropic-disabled-thinking-effort", effort]
        if effort_map:
            server_flags += ["--reasoning-effort-map", json.dumps(effort_map)]
        servers[name] = (folder, server_flags)
    version, out = flag_servers.record_servers(servers, cases(), ns, tmp)
    flag_servers.write(OUT, version, {
        name: {"reasoning_parser": "qwen3", "tool_parser": "hermes", "tito_json": {
            "anthropic_disabled_thinking_effort": effort,
            **({"reasoning_effort_map": effort_map} if effort_map else {})}}
        for name, (effort, effort_map) in SERVERS.items()}, out)


if __name__ == "__main__":
    main()
