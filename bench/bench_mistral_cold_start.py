"""Benchmark: what serving a Mistral folder through mistral-common adds to a cold start.

Why: mistral-common pulls numpy, Pillow, jsonschema, requests, sentencepiece and tiktoken; a Lambda
pays their imports in its init phase when (and only when) a model folder needs it. Each
measurement is a fresh interpreter (a cold start), CPU time of the whole process (user + sys),
median of ``--repeat`` runs, all in the same run:

* ``baseline``: ``import tito.models`` + load the shipped ``mistral-v3`` folder (tokenizer.json);
* ``mistral_import``: the baseline plus ``import mistral_common``'s tokenizer and request modules;
* ``mistral_v3`` / ``tekken``: load the same v3 tokenizer, and Tekken (240911), through
  mistral-common (the package-data files), instead of the baseline folder.

Run: ``python bench/bench_mistral_cold_start.py [--repeat 5]``. Prints one JSON object: the
medians in seconds and each one minus the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SNIPPETS = {
    "baseline": "from tito.models import load_model; load_model({hf!r})",
    "mistral_import": (
        "from tito.models import load_model; load_model({hf!r}); "
        "import mistral_common.tokens.tokenizers.mistral, mistral_common.protocol.instruct.request"
    ),
    "mistral_v3": "from tito.models import load_model; load_model({v3!r})",
    "tekken": "from tito.models import load_model; load_model({tekken!r})",
}


def cpu_of(code: str) -> float:
    """CPU seconds (user + sys) of a fresh interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import mistral_common

    data = Path(mistral_common.__file__).parent / "data"
    with tempfile.TemporaryDirectory() as tmp:
        folders = {"hf": str(ROOT / "layers" / "tokenizer" / "models" / "mistral-v3")}
        for key, src, name in (("v3", "mistral_instruct_tokenizer_240323.model.v3", "tokenizer.model.v3"),
                               ("tekken", "tekken_240911.json", "tekken.json")):
            folder = Path(tmp) / key
            folder.mkdir()
            shutil.copy(data / src, folder / name)
            (folder / "tito.json").write_text('{"max_model_len": 32768}')
            folders[key] = str(folder)
        results: dict[str, list[float]] = {k: [] for k in SNIPPETS}
        for _ in range(args.repeat):
            for key, snippet in SNIPPETS.items():  # interleaved: the box's load hits all alike
                results[key].append(cpu_of(snippet.format(**folders)))
    medians = {k: round(statistics.median(v), 3) for k, v in results.items()}
    base = medians["baseline"]
    print(json.dumps({"cpu_seconds_median": medians,
                      "over_baseline": {k: round(v - base, 3) for k, v in medians.items() if k != "baseline"}},
                     indent=2))


if __name__ == "__main__":
    main()
