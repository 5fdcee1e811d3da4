"""The adversarial run's pathological inputs, one after another in this process, each with its
status, CPU time and peak memory above the idle process (one JSON line per case).

    python fuzz/pathological.py [--limit-mib 2048] [--list]

Peak memory is ``VmHWM`` reset before each case by writing ``5`` to ``/proc/self/clear_refs``
(Linux), minus the resident size before the case. ``--limit-mib`` sets ``RLIMIT_AS`` to the
current address space plus that much, so a runaway case fails here with a MemoryError instead
of exhausting the machine. ``tests/test_pathological.py`` runs this and asserts the bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))  # this tree's tito

from tito.adapters.payload import MAX_EVENT_BODY_BYTES  # noqa: E402

MIB = 1024 * 1024
BODY = MAX_EVENT_BODY_BYTES - 4096  # just under the body limit (6 MiB less room for the event)

CHAT = "/v1/chat/completions/render"
COMPL = "/v1/completions/render"


def _chat(content: str, **extra: Any) -> dict[str, Any]:
    return {"model": "qwen3", "messages": [{"role": "user", "content": content}], **extra}


def _template(source: str) -> tuple[str, dict[str, Any]]:
    return CHAT, _chat("x", chat_template=source)


CASES: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = {
    "6 MiB chat text": lambda: (CHAT, _chat("hello world " * (BODY // 12))),
    "6 MiB chat CJK": lambda: (CHAT, _chat("中文测试" * (BODY // 12))),
    "6 MiB chat, many messages": lambda: (CHAT, {"model": "qwen3", "messages": [
        {"role": "user", "content": "hi there " * 100}] * (BODY // 960)}),
    "6 MiB completions prompt": lambda: (COMPL, {"model": "gpt2", "prompt": "hello world " * (BODY // 12)}),
    "6 MiB prompt truncated": lambda: (COMPL, {"model": "gpt2", "prompt": "hello world " * (BODY // 12),
                                               "truncate_prompt_tokens": 500}),
    "largest accepted chat body": lambda: (CHAT, _chat("hello world " * 10_000, user="u" * (BODY - 130_000))),
    "template: tower of powers": lambda: _template("{{ (((2**256)**256)**256)**256 }}"),
    "template: repeated squaring": lambda: _template(
        "{% set ns = namespace(x=3) %}{% for i in range(64) %}{% set ns.x = ns.x * ns.x %}{% endfor %}{{ ns.x }}"),
    "template: lipsum": lambda: _template("{{ lipsum(n=7999999) }}"),
    "template: sum of lists": lambda: _template("{{ ([[1] * 9000] * 1000) | sum(start=[]) | length }}"),
    "template: accumulation": lambda: _template(
        "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = ns.l + ['a' * 7999990 ~ i] %}"
        "{% endfor %}{{ ns.l | length }}"),
    "template: batch": lambda: _template("{{ ('a' * 7999999) | batch(1) | list | length }}"),
    "template: sort": lambda: _template("{{ (['a'] * 7999999) | sort | length }}"),
    "template: 60 KiB source": lambda: _template(
        "".join("{%% if messages[0].role == 'u%d' %%}{{ messages[0].content }}{%% endif %%}\n" % i
                for i in range(1000))[:60_000].rsplit("\n", 1)[0]),
    "template: 3.5 MB source": lambda: _template("{# " + "x" * 3_500_000 + " #}"),
    "template: 5,000 nested if": lambda: _template("{% if 1 %}" * 5000 + "x" + "{% endif %}" * 5000),
    "template: 20,000 nested brackets": lambda: _template("{{ " + "(" * 20000 + "1" + ")" * 20000 + " }}"),
    "10,000-deep tool arguments": lambda: (CHAT, {"model": "qwen3", "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {
            "name": "f", "arguments": "[" * 10_000 + "]" * 10_000}}]}]}),
}


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        return int(re.search(rf"{field}:\s+(\d+) kB", f.read()).group(1)) * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit-mib", type=int, default=2048)
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(CASES))
        return 0
    os.environ.setdefault("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "1")
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app
    from tito.models import get_registry

    get_registry()
    client = TestClient(create_app(), raise_server_exceptions=False)
    client.post(CHAT, json=_chat("warm up"))
    client.post(COMPL, json={"model": "gpt2", "prompt": "warm up"})
    limit = _status("VmSize") + args.limit_mib * MIB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name, make in CASES.items():
        path, body = make()
        raw = json.dumps(body, ensure_ascii=False).encode()
        del body
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = _status("VmRSS")
        cpu, wall = time.process_time(), time.perf_counter()
        resp = client.post(path, content=raw, headers={"content-type": "application/json"})
        row = {
            "case": name, "status": resp.status_code, "body_bytes": len(raw),
            "cpu_s": round(time.process_time() - cpu, 3),
            "wall_s": round(time.perf_counter() - wall, 3),
            "peak_mib": round((_status("VmHWM") - before) / MIB, 1),
            "message": resp.json().get("error", {}).get("message", "")[:120] if resp.status_code != 200 else "",
        }
        print(json.dumps(row, ensure_ascii=False), flush=True)
        del raw, resp
    return 0


if __name__ == "__main__":
    sys.exit(main())
