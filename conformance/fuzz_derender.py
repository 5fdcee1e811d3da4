"""Differential fuzzer for DERENDER: seeded random engine outputs, vLLM 0.33.0 against tito.

Why: the recorded corpus (``corpus.py``) holds the cases someone thought of; an independent
corpus run on the real vLLM will hold others. This generates, from a seed, random but valid
chat and completions requests (tools or not, every ``tool_choice``, reasoning on/off,
``include_reasoning``, logprobs and ``top_logprobs`` 0-20, ``n`` 1-3, stop strings that straddle
tokens or overlap, ``stop_token_ids``, ``include_stop_str_in_output``, ``skip_special_tokens``,
``return_token_ids``, ``stream_options``, ``echo``, ``spaces_between_special_tokens``,
``min_tokens``, ``logprob_token_ids``), renders each on vLLM for its prompt ids, and random
engine outputs in vLLM's ``GenerateResponse`` / streamed chunk wire shapes (plain text, unicode
split across byte tokens, special and padded ids, reasoning, good / partial / malformed /
several tool calls, every finish reason with and without ``stop_reason``, engine logprob
candidates, the prompt's logprobs in a batch answer,
metrics, ``kv_transfer_params``; more from ``fuzz_derender_more``: bodies without prompt ids /
counts / model, completions of several prompts, engine logprob and stop-reason oddities).
Each case is derendered in batch and streamed in a
random chunking (one stream per choice index): vLLM driven as its protocol requires
(``record.Recorder``), tito in-process twice, as its README says and as a client keeping only
vLLM's ``DerenderStreamState`` fields (``replay.tito_stream``). Answers are compared with
``replay``'s normalisation, diff and ``DEVIATIONS``; the differences are printed grouped by kind.

    /work/vllm-venv/bin/python conformance/fuzz_derender.py --seed 1 -n 200 \\
        [--models qwen3,gpt-oss,mistral-v3,gpt2,qwen3-cmpl,mistral-v3-hf,mistral-v3-hf-cmpl]
        [--url qwen3=http://127.0.0.1:18140]
    ... --show qwen3:1:17                  # one case: request, outputs, every difference
    ... --record derender_fuzz qwen3:1:17  # store vLLM's answers to cases as goldens

Streams carry no stop strings to vLLM (it refuses them: a DEVIATION); tito's stream of a stop
case is instead checked against vLLM's BATCH answer (tito's streamed stops must equal vLLM's
batch cut). Known deviations are matched through tags: each case names the corpus case kinds
it contains (``stop_string``, ``tool_auto_malformed``, ``forced_blank``, ...), and a difference is
intended when a ``DEVIATIONS`` entry of the equivalent corpus group matches one of its tags.

The fuzzer's parts: ``fuzz_derender_case`` (models, vocabulary, ``Case``),
``fuzz_derender_draw`` (requests and cases from a seed), ``fuzz_derender_outputs`` (engine
outputs, finishes, logprobs, chunkings), ``fuzz_derender_more`` (the draws added in session 38),
``fuzz_derender_drive`` (bodies, streams, the servers), ``fuzz_derender_classify`` (differences
and the deviations that explain them); this module is the command line and the golden writer.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
#: tito's sources (TITO_FUZZ_SRC: another tree's, e.g. main's, to see what a fix changed)
sys.path.insert(0, os.environ.get("TITO_FUZZ_SRC", str(HERE.parent / "src")))

from conformance import record, replay  # noqa: E402
from conformance.fuzz_derender_case import MODELS, Case  # noqa: E402
from conformance.fuzz_derender_classify import Found, kind  # noqa: E402
from conformance.fuzz_derender_draw import gen_case  # noqa: E402
from conformance.fuzz_derender_drive import Fuzzer, start_servers  # noqa: E402

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=50, help="cases per model")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--url", action="append", default=[], metavar="MODEL=URL")
    ap.add_argument("--no-stream", action="store_true")
    ap.add_argument("--show", nargs="*", default=[], metavar="MODEL:SEED:I[=NAME]",
                    help="run these cases only, printing each case and its differences "
                    "(NAME: the golden case name --record gives it)")
    ap.add_argument("--record", metavar="GROUP", help="write vLLM's answers to the --show "
                    "cases into conformance/goldens/GROUP.json (batch) and "
                    "stream_GROUP.json-style stream group (GROUP with derender->stream)")
    ap.add_argument("--all", action="store_true", help="also list intended differences")
    ap.add_argument("--examples", type=int, default=2)
    args = ap.parse_args()
    urls = dict(u.split("=", 1) for u in args.url)
    models = args.models.split(",")
    names: dict[str, str] = {}
    if args.show:
        cases = []
        for x in args.show:
            cid, _, name = x.partition("=")
            m, s, i = cid.rsplit(":", 2)
            cases.append(gen_case(int(s), int(i), m))
            names[cases[-1].cid] = name or cid.replace(":", ".")
    else:
        cases = [gen_case(args.seed, i, m) for m in models for i in range(args.n)]
    stuff = start_servers(sorted({c.model for c in cases}), urls)
    try:
        fz = Fuzzer(urls)
        by_kind: dict[str, list[Found]] = defaultdict(list)
        counts: dict[str, int] = defaultdict(int)
        recorded: dict[str, dict[str, Any]] = {}
        for case in cases:
            try:
                found, rec = fz.run(case, stream=not args.no_stream)
            except Exception as exc:  # noqa: BLE001 (a harness error is a finding too)
                found, rec = [Found(case.cid, "harness", type(exc).__name__, str(exc)[:200],
                                    None, None)], {}
            counts[case.model if "skipped" not in rec else case.model + " (render refused)"] += 1
            recorded[case.cid] = rec
            for f in found:
                if f.intended is None or args.all:
                    by_kind[f"{case.model} {kind(f)}"].append(f)
            if args.show:
                print(f"== {case.cid} tags={sorted(case.tags)}\n request={json.dumps(case.request)}")
                for ch in case.choices:
                    print(f" choice {ch['index']}: {json.dumps({k: v for k, v in ch.items() if k != 'logprobs'})}")
                print(f" extra={json.dumps(case.extra)} sizes={case.sizes}")
                for f in found:
                    tag = "intended" if f.intended else "DIFF"
                    print(f"  {tag} {f.where} {f.path}: vllm={json.dumps(f.vllm)[:300]} "
                          f"tito={json.dumps(f.tito)[:300]}")
        print(f"cases: {dict(counts)}")
        for k in sorted(by_kind, key=lambda k: -len(by_kind[k])):
            fs = by_kind[k]
            cids = sorted({f.cid for f in fs})
            print(f"[{len(cids)} cases] {k}  e.g. {' '.join(cids[:6])}")
            for f in fs[:args.examples]:
                print(f"    {f.cid}: vllm={json.dumps(f.vllm)[:200]} tito={json.dumps(f.tito)[:200]}"
                      + (f"  (intended: {f.intended.reason[:60]})" if f.intended else ""))
        if not by_kind:
            print("no unexplained differences")
        if args.record:
            write_goldens(args.record, cases, recorded, urls, names)
    finally:
        for p in stuff[:-1]:
            p.terminate()
            p.wait(timeout=30)
        shutil.rmtree(stuff[-1], ignore_errors=True)


def write_goldens(group: str, cases: list[Case], recorded: dict[str, Any],
                  urls: dict[str, str], names: dict[str, str]) -> None:
    """Merge the cases' vLLM answers into ``GROUP.json`` (batch) and the stream group
    (``derender_`` -> ``stream_``), in record.py's golden format."""
    with urllib.request.urlopen(next(iter(urls.values())) + "/version") as r:
        version = json.loads(r.read())
    sgroup = group.replace("derender_", "stream_", 1)
    for g, pick in ((group, "batch"), (sgroup, "streams")):
        path = replay.GOLDENS / f"{g}.json"
        data = json.loads(path.read_text()) if path.exists() else {
            "vllm": version, "server": "fuzz", "flags": record.SERVERS, "cases": {}}
        for c in cases:
            rec = recorded.get(c.cid) or {}
            name = names[c.cid]
            if pick == "batch" and rec.get("batch"):
                data["cases"][name] = rec["batch"]
            for s in rec.get("streams", []) if pick == "streams" else []:
                data["cases"][f"{name}.c{s['index']}"] = {k: v for k, v in s.items()
                                                          if k != "index"}
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"{path.relative_to(HERE.parent)}: {len(data['cases'])} cases")


if __name__ == "__main__":
    main()
