"""Differential fuzzer of the tool-call and reasoning parsers: tito against vLLM 0.33.0's own.

Run with vLLM's python (it imports vLLM's parsers and tito's sources)::

    /work/vllm-venv/bin/python conformance/fuzz_parsers.py --seed 1 -n 30 [--parser hermes ...]
        [--out /tmp/fuzz.json]

For every tool parser tito implements (vLLM's ``--tool-call-parser`` names) and every reasoning
parser (alone and with its model's tool parser), ``-n`` outputs of that format are generated from
the seed: single and parallel calls, text before / between / after them, reasoning blocks,
unicode and escapes in arguments, nested values, numbers / booleans / null, empty arguments,
unknown tools, truncation (a ``length`` finish) at a random point, malformed JSON or markup,
marker strings in content, whitespace variants. Each goes through vLLM's composed parser
(``tests/goldens/record_parsers.py``: ``parse`` for batch, ``parse_delta`` one token per delta
and in random chunks, as vLLM's serving feeds it) and through tito's pipeline
(``tests/goldens/parser_pipeline.py``: one chunk, one token per call, random chunks).

Compared as the goldens test compares (``parser_pipeline.norm``): reasoning, content without
surrounding whitespace, call names and arguments byte for byte (arguments that are the same JSON
in other bytes count as ``args_bytes``), Kimi-K2's ids. tito's streams must equal its batch
(``tito_stream``); vLLM's own batch-vs-stream disagreements are counted (``vllm_stream``) and tito
follows vLLM's batch there. Known deliberate differences (``docs/conformance.md``, parser module
headers) are classified by :func:`deviation` and counted apart. The summary groups differences
by parser and kind, one example case each; ``--out`` writes every differing case in full.
A case a fix settles is added to the goldens (``tests/goldens/parser_cases*.py``) and
recorded with ``record_parsers.py``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import sys
from collections import Counter, defaultdict

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "goldens"), str(ROOT / "conformance")]

from fuzz_parser_cases import FORMATS, REASONING, PAIRS, generate  # noqa: E402
from fuzz_parsers_classify import _NOT_TITOS, deviation  # noqa: E402
from fuzz_parsers_classify_args import ids_deviation  # noqa: E402
from fuzz_parsers_compare import compare  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=30, help="cases per parser")
    ap.add_argument("--parser", action="append", help="only these (tool or reasoning) names")
    ap.add_argument("--out", help="write every differing case here (JSON)")
    ap.add_argument("--examples", type=int, default=1, help="example ids per kind")
    args = ap.parse_args(argv)

    import record_parsers as vllm_side  # noqa: E402  (vLLM)
    from parser_pipeline import norm, run  # noqa: E402  (tito)

    names = [*FORMATS, *(f"reasoning:{r}" for r in REASONING), *(f"{t}+{r}" for t, r in PAIRS)]
    if args.parser:
        names = [n for n in names if any(p == n or p in n.replace("+", " ").replace(":", " ").split()
                                         for p in args.parser)]
    counts: Counter = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    found: list[dict] = []
    total = 0
    for name in names:
        rng = random.Random(f"{args.seed}/{name}")
        for case in generate(name, rng, args.n):
            total += 1
            batch = vllm_side.record(case)["batch"]
            sizes = [rng.randint(1, 6) for _ in range(9)]
            vstreams = {"1": vllm_side.stream(case, [1]), "rand": vllm_side.stream(case, sizes)}
            tito = {"batch": run(case, [10**6]), "1": run(case, [1]), "rand": run(case, sizes)}
            kinds = []
            if "error" in batch:
                kinds.append("vllm_error")
                want = None
            else:
                want = norm(batch)
                got = norm(tito["batch"])
                for k in compare(want, got):
                    why = deviation(case, k, want, got, vstreams)
                    kinds.append(f"deviation:{why}" if why else k)
            for key in ("1", "rand"):
                t = {k: tito[key][k] for k in ("reasoning", "content", "calls")}
                if t != {k: tito["batch"][k] for k in t}:
                    kinds.append("tito_stream")
                    break
            if case["tool"] == "kimi_k2" and "error" not in vstreams["1"]:
                # an id vLLM drew at random (a header without one) is None in its record;
                # tito draws one too there (``chatcmpl-tool-...``)
                tito_ids = [None if i.startswith("chatcmpl-tool-") else i
                            for i in tito["batch"]["ids"] or []]
                # (compared only where the calls are the same tools: other differences are
                # classified by the calls' own kinds)
                vllm_ids = vstreams["1"]["ids"] or []
                if tito_ids != vllm_ids and want and [c[0] for c in want[
                        "calls"]] == [c[0] for c in tito["batch"]["calls"]]:
                    named = ids_deviation(case, vllm_ids, tito_ids)
                    kinds.append(f"deviation:{named}" if named else "ids")
            for key, vs in vstreams.items():
                if want is not None and "error" not in vs and compare(want, norm(vs)):
                    kinds.append("vllm_stream")
                    break
            for k in sorted(set(kinds)):
                tag = f"{name} {k}"
                counts[tag] += 1
                if len(examples[tag]) < args.examples:
                    examples[tag].append(case["id"])
            if any(k not in _NOT_TITOS and not k.startswith("deviation:") for k in kinds):
                found.append({"case": case, "kinds": sorted(set(kinds)), "vllm": batch,
                              "vllm_streams": vstreams, "tito": tito["batch"]})
    print(f"{total} cases over {len(names)} parsers (seed {args.seed}, -n {args.n})")
    real = 0
    for tag in sorted(counts):
        kind = tag.split(" ", 1)[1]
        mark = " " if kind in _NOT_TITOS or kind.startswith("deviation:") else "!"
        real += mark == "!"
        print(f"{mark} {counts[tag]:4d}  {tag:55s} e.g. {', '.join(examples[tag])}")
    print(f"{len(found)} cases differ (! kinds: {real}); vllm_stream / vllm_error / deviation:* "
          "are not tito's")
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(found, ensure_ascii=False, indent=1))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
