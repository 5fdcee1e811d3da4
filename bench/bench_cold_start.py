"""Benchmark: a Lambda function's cold start against its dependencies' own cold start.

Why a ratio: a function's init CPU is what every cold start pays (Lambda bills it, and the first
request waits for it). Most of it is unavoidable: the Python packages it runs on and the
tokenizer it serves. This bench asks how much tito adds on top, per function, in the same run:

* ``tito``: a fresh interpreter runs ``import tito.handlers.<function>`` (which builds the app and
  loads the models the function loads at init), with the shipped model folders as
  ``TITO_MODELS_DIR`` and no ``TITO_DEFAULT_MODEL`` (so qwen3 is the default);
* ``deps``: a fresh interpreter imports the function's dependencies (the packages it needs by
  design, listed in :data:`DEPENDENCIES`: not whatever tito happens to import), sets each up the
  least way it is used (Powertools' ``Logger()`` and ``Metrics()``; one pydantic model validated
  once, which is when pydantic imports its schema machinery and looks up its plugins, ~40 ms)
  and loads the same model files directly: the tokenizers with ``tokenizers.Tokenizer.from_file``
  and, for the functions that compile their default model's chat template at init, that
  template with Jinja2's sandbox as transformers sets it up (``from_string``).

Each measurement is the CPU time (user + sys) of the whole child process, median of ``--repeat``
runs, the two interleaved so the load of the shared box hits both alike. Both sides run from
bytecode, as a deployed function does (``sam build`` compiles it: src/Makefile) and as installed
packages are: the bench compiles ``src/tito`` first and lets the children write caches even when
the environment says ``PYTHONDONTWRITEBYTECODE`` (without that, tito was timed compiling its
~100 modules from source every run while its dependencies ran from their caches). A first probe
run per function (not timed) reports which models the function loaded and which other
third-party packages it imported.

Run: ``python bench/bench_cold_start.py [--repeat 5] [--functions chat_derender chat_render]``.
Prints one JSON object; ``ratio`` = tito / deps (goal <= 1.1).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "layers" / "tokenizer" / "models"

_BASE = (
    "from tokenizers import Tokenizer",
    # pydantic imports its schema machinery (and its plugin lookup) on the first model: one
    # model, validated once, as Logger(), Metrics() below
    "from pydantic import create_model; create_model('Body', x=(int, 0))(x=1)",
    "from mangum import Mangum",
    "from aws_lambda_powertools import Logger, Metrics; Logger(); Metrics()",
)
_TEMPLATES = ("import jinja2.sandbox, jinja2.ext",)
#: Jinja2 compiling a chat template as transformers sets it up (the functions that render chats
#: compile their default model's template at init; ``{source}``: that template)
_COMPILE = ("jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, "
            "extensions=[jinja2.ext.loopcontrols]).from_string({source!r})")

#: What each function needs by design: every function is a plain ASGI app behind Mangum (no
#: FastAPI: that is ``tito serve``'s); those that render chat templates (chat, Responses,
#: /tokenize of messages) Jinja2's sandbox.
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "chat_derender": _BASE,
    "completions_derender": _BASE,
    "responses_derender": _BASE,
    "chat_render": _BASE + _TEMPLATES,
    "responses_render": _BASE + _TEMPLATES,
    "completions_render": _BASE,
    "tokenize": _BASE + _TEMPLATES,
}

_PROBE = """
import json, sys
import tito.handlers.{function}
from tito.models import get_registry
registry = get_registry()
tops = sorted({{m.split('.')[0] for m in sys.modules}} - set(sys.stdlib_module_names) - {{'tito'}})
print(json.dumps({{"loaded": [str(registry.get(n).path) for n in registry.loaded()], "packages": tops,
                  "template": registry.default.chat_template}}))
"""

_DEPS_PROBE = """
import json, sys
{imports}
print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} - set(sys.stdlib_module_names))))
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TITO_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update({
        "PYTHONPATH": str(ROOT / "src"),
        "TITO_MODELS_DIR": str(MODELS),
        "POWERTOOLS_SERVICE_NAME": "tito",
        "POWERTOOLS_METRICS_NAMESPACE": "Tito",
        "AWS_DEFAULT_REGION": env.get("AWS_DEFAULT_REGION", "us-east-1"),
    })
    return env


def cpu_of(code: str) -> float:
    """CPU seconds (user + sys) of a fresh interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True, env=_env(),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def probe(code: str) -> object:
    """Run ``code`` once (writing bytecode caches) and return the JSON of its last stdout line."""
    proc = subprocess.run([sys.executable, "-c", code], check=True, env=_env(),
                          capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def deps_code(function: str, folders: list[str], template: str | None) -> str:
    """The dependencies' side: imports, the same tokenizers, and (for the functions that render
    chats) the default model's chat template compiled by Jinja2's sandbox."""
    loads = [f"Tokenizer.from_file({str(Path(f) / 'tokenizer.json')!r})" for f in folders]
    if template is not None and _TEMPLATES[0] in DEPENDENCIES[function]:
        loads.append(_COMPILE.format(source=template))
    return "\n".join((*DEPENDENCIES[function], *loads))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--functions", nargs="+", choices=sorted(DEPENDENCIES),
                        default=list(DEPENDENCIES))
    args = parser.parse_args()

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src" / "tito")],
                   check=True, env=_env(), stdout=subprocess.DEVNULL)
    plans = {}
    for function in args.functions:
        info = probe(_PROBE.format(function=function))
        assert isinstance(info, dict)
        deps = probe(_DEPS_PROBE.format(imports="\n".join(DEPENDENCIES[function])))
        assert isinstance(deps, list)
        plans[function] = {
            "tito": f"import tito.handlers.{function}",
            "deps": deps_code(function, info["loaded"], info["template"]),
            "loaded": [Path(p).name for p in info["loaded"]],
            # third-party packages tito imports beyond those its dependencies import themselves
            "extra_packages": sorted(set(info["packages"]) - set(deps)),
        }
    times: dict[str, dict[str, list[float]]] = {f: {"tito": [], "deps": []} for f in plans}
    for _ in range(args.repeat):
        for function, plan in plans.items():  # interleaved: the box's load hits all alike
            for side in ("tito", "deps"):
                times[function][side].append(cpu_of(plan[side]))
    out = {}
    for function, plan in plans.items():
        tito = statistics.median(times[function]["tito"])
        deps = statistics.median(times[function]["deps"])
        out[function] = {
            "tito_cpu_s": round(tito, 3),
            "deps_cpu_s": round(deps, 3),
            "ratio": round(tito / deps, 3),
            "models_loaded_at_init": plan["loaded"],
            "extra_packages": plan["extra_packages"],
        }
    print(json.dumps({"repeat": args.repeat, "clock": "CPU (user+sys) of each child process",
                      "functions": out,
                      "max_ratio": max(v["ratio"] for v in out.values())}, indent=2))


if __name__ == "__main__":
    main()
