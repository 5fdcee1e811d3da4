"""A seeded differential fuzzer for tito's RENDER side against the real vLLM 0.33.0.

Why: the recorded corpus (``corpus.py``) holds the cases someone thought of; an independent
corpus run on the real vLLM holds others. This script generates random requests from a seed
(valid ones, boundary values, wrong types, unknown fields) for every render endpoint -- chat and
completions render, Responses render, Messages (Anthropic) render, ``/tokenize`` and
``/detokenize`` -- sends each to vLLM's render servers (``record.py``'s :data:`SERVERS`) and to
tito in-process (``replay.Tito``), compares them with ``replay.compare_case`` (the same
normalisation and DEVIATIONS as the golden replay) and prints the differences grouped by kind.

Run it (needs vllm==0.33.0, e.g. the venv at /work/vllm-venv)::

    /work/vllm-venv/bin/python conformance/fuzz_render.py --seed 1 -n 300
    /work/vllm-venv/bin/python conformance/fuzz_render.py --seed 2 -n 500 --models qwen3 gpt2 \\
        --url qwen3=http://127.0.0.1:18120 --url gpt2=http://127.0.0.1:18121
    ... --show 3          # up to 3 example cases per kind, requests included
    ... --record render_fuzz --only 's2-*'      # store the differing cases (vLLM's answers)
    ... --record render_fuzz --record-all --only 's2-17-*'   # store every selected case

Responses bodies also draw custom and namespace tools, named tool choices of them and their
call items (``fuzz_custom_tools.py``, from a generator of their own so that the other draws stay);
chat, ``/tokenize``, Responses and Messages bodies now and then a ``chat_template`` inside
``chat_template_kwargs`` (``fuzz_kwargs_template.py``, likewise apart).

A case is ``s<seed>-<i>-<endpoint>`` and is regenerated exactly from its seed and index (each
case draws from its own ``random.Random``), so a case found once can be replayed or recorded by
name. ``--record GROUP`` adds the cases with an unexplained difference (with ``--record-all``:
every selected case, so a case tito already answers right needs it) to
``conformance/goldens/GROUP.json`` in record.py's format, which the conformance test replays
without vLLM.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import random
import re
import shutil
import sys
import tempfile
import traceback
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

from conformance import record, replay  # noqa: E402
from conformance.fuzz_kwargs_template import add_kwargs_template  # noqa: E402
from conformance.fuzz_render_bodies import ENDPOINTS  # noqa: E402
from conformance.fuzz_render_labels import labels  # noqa: E402
from conformance.fuzz_render_values import pick  # noqa: E402
from conformance.fuzz_structured import add_responses_structured  # noqa: E402
from conformance.calls import request as post  # noqa: E402

#: the chat models, by template or native encoding (gpt2 has no template: its chat cases are
#: errors on both sides)
CHAT_SERVERS = ("qwen3", "qwen3-trusted", "gpt-oss", "mistral-v3", "mistral-v3-hf", "dsv32",
                "dsv4", "dsv41", "inkling")


def generate(seed: int, i: int, servers: list[str]) -> tuple[str, str, str, dict[str, Any]]:
    """Case ``i`` of ``seed``: (name, server, path, body); the same for the same arguments."""
    r = random.Random(f"{seed}-{i}")
    r.clean = r.random() < 0.7  # type: ignore[attr-defined] (most cases: at most one defect)
    #: the draws added later (fuzz_custom_tools), apart so that r's own draws stay as they were
    r.extra = random.Random(f"{seed}-{i}-extra")  # type: ignore[attr-defined]
    endpoint = r.choices(list(ENDPOINTS), weights=[w for w, _ in ENDPOINTS.values()])[0]
    pool = [s for s in servers if endpoint in ("completion", "tokenize", "detokenize")
            or s in CHAT_SERVERS or r.random() < 0.1] or servers
    server = pick(r, pool)
    path, body = ENDPOINTS[endpoint][1](r, server)
    # (a template in chat_template_kwargs: a generator of its own, the other draws unchanged)
    add_kwargs_template(random.Random(f"{seed}-{i}-kwargs-template"), path, body)
    # (a Responses structured_outputs: the same, since session 39)
    add_responses_structured(random.Random(f"{seed}-{i}-structured"), path, body)
    name = f"s{seed}-{i}-{endpoint}" + "".join(f".{x}" for x in labels(server, path, body))
    return name, server, path, body


# -- the comparison ---------------------------------------------------------------------------

GROUP = "render_fuzz"


def kind_of(d: replay.Difference, path: str) -> str:
    endpoint = d.case.split("-", 2)[2].split(".")[0]
    field = re.sub(r"\.\d+", ".N", d.path)
    if d.path == "status":
        return f"{endpoint} status vllm={d.vllm} tito={d.tito}"
    return f"{endpoint} {field}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=200, help="number of cases")
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--models", nargs="*", default=list(record.SERVERS),
                    help=f"servers to use ({', '.join(record.SERVERS)})")
    ap.add_argument("--url", action="append", default=[], metavar="MODEL=URL",
                    help="a running render server for MODEL (record.py's flags), else one is started")
    ap.add_argument("--vllm", default=str(Path(sys.executable).with_name("vllm")))
    ap.add_argument("--only", default="*", help="fnmatch pattern of case names to run")
    ap.add_argument("--show", type=int, default=1, help="example cases printed per kind")
    ap.add_argument("--all", action="store_true", help="list intended differences too")
    ap.add_argument("--record", metavar="GROUP",
                    help="add the cases with an unexplained difference (with --record-all: "
                    "every selected case) to conformance/goldens/GROUP.json")
    ap.add_argument("--record-all", action="store_true",
                    help="with --record: every selected case, not only the differing ones")
    args = ap.parse_args()
    urls: dict[str, str] = dict(u.split("=", 1) for u in args.url)
    cases = [c for i in range(args.start, args.start + args.n)
             if fnmatch.fnmatchcase((c := generate(args.seed, i, args.models))[0], args.only)]
    answers: dict[str, tuple[int, Any]] = {}
    version: dict[str, Any] = {}
    tmp = Path(tempfile.mkdtemp(prefix="tito-fuzz-render-"))
    try:
        for server in sorted({s for _, s, _, _ in cases}):
            ask(server, cases, urls, args.vllm, tmp, answers, version)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    run(args, cases, answers, version)


def ask(server: str, cases: list[tuple[str, str, str, dict[str, Any]]], urls: dict[str, str],
        vllm: str, tmp: Path, answers: dict[str, tuple[int, Any]],
        version: dict[str, Any]) -> None:
    """vLLM's answers to ``server``'s cases, from ``--url``'s server or one started for them and
    stopped after: one server at a time (the shared box's cores and memory), so a run over
    every model costs no more at once than a run over one."""
    proc = None
    if server not in urls:
        proc, url = record.start_server(server, vllm, tmp)
    else:
        url = urls[server]
    try:
        if proc is not None:
            record.wait_ready(url, proc)
        if not version:
            with urllib.request.urlopen(url + "/version") as r:
                version.update(json.loads(r.read()))
        for name, s, path, body in cases:
            if s == server:
                answers[name] = post(url, path, body)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)


def run(args: argparse.Namespace, cases: list[tuple[str, str, str, dict[str, Any]]],
        answers: dict[str, tuple[int, Any]], version: dict[str, Any]) -> None:
    tito = replay.Tito()
    kinds: dict[str, list[tuple[replay.Difference, dict[str, Any]]]] = defaultdict(list)
    intended: dict[str, int] = defaultdict(int)
    found: dict[str, dict[str, Any]] = {}  #: the cases to record
    differing_names: set[str] = set()
    per_server: dict[str, int] = defaultdict(int)
    statuses: dict[tuple[str, int], int] = defaultdict(int)
    for name, server, path, body in cases:
        per_server[server] += 1
        status, resp = answers[name]
        statuses[(server, status)] += 1
        if status >= 500:  # vLLM's own crash (an unhandled exception): tito answers 4xx
            name += ".vllm500"
        case = {"server": server, "path": path, "request": body, "status": status,
                "response": resp}
        try:
            diffs = replay.compare_case(tito, GROUP, name, case)
        except Exception:  # noqa: BLE001 (a crash of tito's app is a finding)
            diffs = [replay.Difference(GROUP, name, "exception", status,
                                       traceback.format_exc(limit=-3), None)]
        unexplained = [d for d in diffs if d.deviation is None]
        for d in diffs:
            if d.deviation is not None:
                intended[d.deviation.reason[:70]] += 1
        if unexplained:
            differing_names.add(name.split(".")[0])
        if unexplained or args.record_all:
            found[name] = case
        seen = set()
        if any(d.path == "status" for d in unexplained):  # the status says it all
            unexplained = [d for d in unexplained if d.path == "status"]
        for d in unexplained:
            k = kind_of(d, path)
            if k not in seen:
                seen.add(k)
                kinds[k].append((d, case))
    print(f"{len(cases)} cases: " + ", ".join(f"{s} {n}" for s, n in sorted(per_server.items())))
    print("vLLM statuses: " + ", ".join(f"{s}:{c} {n}" for (s, c), n in sorted(statuses.items())))
    for k, items in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"\n== {len(items)} x {k}")
        for d, case in items[:args.show]:
            print(f"   {d.case} [{case['server']}] vllm={json.dumps(d.vllm)[:300]} "
                  f"tito={json.dumps(d.tito)[:300]}")
            print(f"      request={json.dumps(case['request'], ensure_ascii=False)[:600]}")
            if d.path == "status" and case["status"] != 200:
                print(f"      vllm error={json.dumps(case['response'], ensure_ascii=False)[:300]}")
    if args.all:
        print("\nintended:")
        for reason, n in sorted(intended.items(), key=lambda kv: -kv[1]):
            print(f"   {n} x {reason}")
    differing: dict[str, int] = defaultdict(int)
    for name, server, _, _ in cases:
        differing[server] += name.split(".")[0] in differing_names
    print("unexplained per model: " + ", ".join(
        f"{s} {differing[s]}/{n}" for s, n in sorted(per_server.items())))
    print(f"\n{len(differing_names)} cases with unexplained differences, {len(kinds)} kinds")
    if args.record:
        if not args.record_all and len(found) < len(cases):
            print(f"{len(cases) - len(found)} selected cases without an unexplained difference "
                  "not recorded (--record-all records them too)")
        save(args.record, found, version)


def save(group: str, cases: dict[str, dict[str, Any]], version: dict[str, Any]) -> None:
    path = record.GOLDENS / f"{group}.json"
    data = json.loads(path.read_text()) if path.exists() else None
    if data is None:
        data = {"vllm": version, "server": "several (each case names its own)",
                "flags": record.SERVERS, "cases": {}}
    data["cases"].update(cases)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{path.relative_to(HERE.parent)}: {len(data['cases'])} cases")


if __name__ == "__main__":
    main()
