"""The shared main of the recorders that post to vLLM 0.33 render servers already running
(``--url MODEL=URL``, record.py's flags): ``record_rf_schema_none.py``,
``record_responses_forced_none.py``, ``record_lazy_calls.py``, ``record_mistral_untyped.py``,
``record_messages_named.py`` (``--merge``: one server a run, the group's other servers' cases
kept, as the shared box runs one render server at a time).

Why a module: each of them only names its cases; reading the URLs, asking ``/version``, posting
each server's cases and writing ``goldens/GROUP.json`` is the same for each.
"""

from __future__ import annotations

import argparse
import json
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from conformance import record
from conformance.calls import request as post

#: case name -> (path, body)
Cases = dict[str, tuple[str, dict[str, Any]]]


def record_urls(group: str, cases_of: Callable[[str], Cases],
                models: Sequence[str] | None = None,
                label: Callable[[str, int, Any], str] | None = None) -> dict[str, Any]:
    """Post ``cases_of(model)`` to each ``--url MODEL=URL`` given (only ``models`` when named:
    each must be given) and write ``goldens/GROUP.json``; the recorded cases. ``label`` may
    rename a case after vLLM's answer (``(name, status, response) -> name``)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", action="append", default=[], metavar="MODEL=URL")
    ap.add_argument("--merge", action="store_true",
                    help="keep the group's recorded cases of other servers (one server a run)")
    args = ap.parse_args()
    urls = dict(u.split("=", 1) for u in args.url)
    if models is not None:
        urls = {m: urls[m] for m in models}
    version: dict[str, Any] = {}
    out: dict[str, Any] = {}
    golden = record.GOLDENS / f"{group}.json"
    if args.merge and golden.exists():
        out = {k: c for k, c in json.loads(golden.read_text())["cases"].items()
               if c["server"] not in urls}
    for server, url in urls.items():
        if not version:
            with urllib.request.urlopen(url + "/version") as r:
                version.update(json.loads(r.read()))
        for name, (path, body) in cases_of(server).items():
            status, resp = post(url, path, body)
            if label is not None:
                name = label(name, status, resp)
            out[name] = {"server": server, "path": path, "request": body, "status": status,
                         "response": resp}
    server_name = next(iter(urls)) if len(urls) == 1 and models else \
        "several (each case names its own)"
    golden.write_text(json.dumps({"vllm": version, "server": server_name, "flags": record.SERVERS,
                                "cases": out}, indent=1, ensure_ascii=False) + "\n")
    print(f"{golden}: {len(out)} cases")
    return out
