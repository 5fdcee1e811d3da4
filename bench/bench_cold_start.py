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

A second figure, ``first``, adds the function's first request (``events/<function>.json``, the
API Gateway event of its endpoint) to both sides: tito's handler answers it; the dependencies'
side answers it through Mangum (a plain ASGI app), Powertools' logger context and one EMF
metric, with the same tokenizer and template work: decode the engine's ids (derender), render the
messages with the compiled template and encode them (chat, Responses, tokenize), encode the
prompt (completions), and ``json.dumps`` an answer. Work tito defers from init to the first
request (pydantic schemas built on first use, lazily imported formats) shows there.

Each measurement is the CPU time (user + sys) of the whole child process, median of ``--repeat``
runs, the two interleaved so the load of the shared box hits both alike. Both sides run from
bytecode, as a deployed function does (``sam build`` compiles it: src/Makefile) and as installed
packages are: the bench compiles ``src/tito`` first and lets the children write caches even when
the environment says ``PYTHONDONTWRITEBYTECODE`` (without that, tito was timed compiling its
~100 modules from source every run while its dependencies ran from their caches). A first probe
run per function (not timed) reports which models the function loaded and which other
third-party packages it imported.

Run: ``python bench/bench_cold_start.py [--repeat 11] [--functions chat_derender chat_render]
[--baseline OTHER/src]``. Prints one JSON object; ``ratio`` = tito / deps, ``first_ratio`` the
same with the first request (goal <= 1.1 for both), ``spread_cpu_s`` each side's [min, max];
``own_init_ms`` / ``own_first_request_ms``: tito's own part measured inside one process (the
dependencies imported first, the tokenizer loads subtracted), free of the two processes' noise
(+-25% per run on a loaded box).
``--baseline`` times another checkout's tito too (a worktree of the code before a change),
interleaved with the rest: ``before_ratio`` / ``before_first_ratio``, before and after measured
in the same run.
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
EVENTS = ROOT / "events"

_BASE = (
    "from tokenizers import Tokenizer",
    # pydantic imports its schema machinery (and its plugin lookup) on the first model: one
    # model, validated once, as Logger(), Metrics() below
    "from pydantic import create_model; create_model('Body', x=(int, 0))(x=1)",
    "from mangum import Mangum",
    # the functions' JSON codec (a runtime dependency: the apps read and write JSON with it)
    "import orjson",
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


#: What each function's first request is, for the dependencies' equivalent of answering it
KIND = {"chat_derender": "derender", "completions_derender": "derender",
        "responses_derender": "derender", "chat_render": "chat", "responses_render": "responses",
        "completions_render": "prompt", "tokenize": "chat"}

#: a Lambda context for both sides' handlers
_CONTEXT = ("import types\n"
            "CTX = types.SimpleNamespace(function_name='f', memory_limit_in_mb=1024, "
            "invoked_function_arn='arn:aws:lambda:us-east-1:1:function:f', aws_request_id='r', "
            "log_group_name='g', log_stream_name='s', function_version='1', "
            "get_remaining_time_in_millis=lambda: 10000)\n")

_TITO_FIRST = _CONTEXT + """import json
import tito.handlers.{function} as module
answer = module.handler(json.loads(open({event!r}).read()), CTX)
assert answer["statusCode"] == 200, answer
"""

#: the dependencies answering the same event: Mangum around a plain ASGI app, Powertools'
#: logger context and one metric, the tokenizer (and template) work of the request, JSON out
_DEPS_FIRST = _CONTEXT + """import json
from mangum import Mangum
logger, metrics = Logger(), Metrics()

def work(body):
    kind = {kind!r}
    if kind == "derender":
        responses = body.get("generate_responses") or [body["generate_response"]]
        return [[TOKENIZERS[0].decode(c["token_ids"]) for c in r["choices"]] for r in responses]
    if kind == "prompt":
        return TOKENIZERS[0].encode(body["prompt"]).ids
    messages = body.get("messages") or [{{"role": "system", "content": body["instructions"]}},
                                        {{"role": "user", "content": body["input"]}}]
    text = TEMPLATE.render(messages=messages, add_generation_prompt=True)
    return TOKENIZERS[0].encode(text, add_special_tokens=False).ids

async def app(scope, receive, send):
    body = json.loads((await receive())["body"])
    out = json.dumps({{"answer": work(body)}}).encode()
    await send({{"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]}})
    await send({{"type": "http.response.body", "body": out}})

mangum = Mangum(app, lifespan="off")

@logger.inject_lambda_context
@metrics.log_metrics
def handler(event, context):
    metrics.add_metric(name="Requests", unit="Count", value=1)
    return mangum(event, context)

answer = handler(json.loads(open({event!r}).read()), CTX)
assert answer["statusCode"] == 200, answer
"""


#: tito's own part, without the noise of two processes: the dependencies imported first (as the
#: deps side does), then the handler's import timed in the same process, the tokenizer loads
#: (``Tokenizer.from_file``) subtracted, then the first request timed
_OWN = _CONTEXT + """{imports}
import json, time
_tok = [0.0]
_load = Tokenizer.from_file
def _timed(path):
    t = time.process_time(); out = _load(path); _tok[0] += time.process_time() - t; return out
Tokenizer.from_file = _timed
t0 = time.process_time()
import tito.handlers.{function} as module
t1 = time.process_time()
answer = module.handler(json.loads(open({event!r}).read()), CTX)
t2 = time.process_time()
assert answer["statusCode"] == 200, answer
print(json.dumps([(t1 - t0 - _tok[0]) * 1000, (t2 - t1) * 1000]))
"""


def _env(src: Path = ROOT / "src") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TITO_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update({
        "PYTHONPATH": str(src),
        "TITO_MODELS_DIR": str(MODELS),
        "POWERTOOLS_SERVICE_NAME": "tito",
        "POWERTOOLS_METRICS_NAMESPACE": "Tito",
        "AWS_DEFAULT_REGION": env.get("AWS_DEFAULT_REGION", "us-east-1"),
    })
    return env


def cpu_of(code: str, src: Path = ROOT / "src") -> float:
    """CPU seconds (user + sys) of a fresh interpreter running ``code`` (tito from ``src``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True, env=_env(src),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def probe(code: str, src: Path = ROOT / "src") -> object:
    """Run ``code`` once (writing bytecode caches) and return the JSON of its last stdout line."""
    proc = subprocess.run([sys.executable, "-c", code], check=True, env=_env(src),
                          capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def deps_code(function: str, folders: list[str], template: str | None) -> str:
    """The dependencies' side: imports, the same tokenizers, and (for the functions that render
    chats) the default model's chat template compiled by Jinja2's sandbox."""
    files = ", ".join(f"Tokenizer.from_file({str(Path(f) / 'tokenizer.json')!r})" for f in folders)
    loads = [f"TOKENIZERS = [{files}]"]
    if template is not None and _TEMPLATES[0] in DEPENDENCIES[function]:
        loads.append("TEMPLATE = " + _COMPILE.format(source=template))
    return "\n".join((*DEPENDENCIES[function], *loads))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 11: with 5, one function's median read 1.08-1.11x on an idle box in two runs of one
    # tree (the children's spread), where 11 gave 0.94-1.05x for every function
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--functions", nargs="+", choices=sorted(DEPENDENCIES),
                        default=list(DEPENDENCIES))
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout's src folder (e.g. a worktree of main before a "
                             "change): its tito timed too, interleaved, as `before`")
    args = parser.parse_args()

    srcs = {"tito": ROOT / "src"}
    if args.baseline is not None:
        srcs["before"] = args.baseline.resolve()
    for src in srcs.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "tito")],
                       check=True, env=_env(src), stdout=subprocess.DEVNULL)
    plans = {}
    for function in args.functions:
        info = probe(_PROBE.format(function=function))
        assert isinstance(info, dict)
        deps = probe(_DEPS_PROBE.format(imports="\n".join(DEPENDENCIES[function])))
        assert isinstance(deps, list)
        deps_init = deps_code(function, info["loaded"], info["template"])
        event = str(EVENTS / f"{function}.json")
        plans[function] = {
            "tito": f"import tito.handlers.{function}",
            "deps": deps_init,
            "tito_first": _TITO_FIRST.format(function=function, event=event),
            "deps_first": deps_init + "\n" + _DEPS_FIRST.format(kind=KIND[function], event=event),
            "own": _OWN.format(imports="\n".join(DEPENDENCIES[function]), function=function,
                               event=event),
            "loaded": [Path(p).name for p in info["loaded"]],
            # third-party packages tito imports beyond those its dependencies import themselves
            "extra_packages": sorted(set(info["packages"]) - set(deps)),
        }
    sides = ["tito", "deps", "tito_first", "deps_first"]
    if "before" in srcs:
        sides += ["before", "before_first"]
        for plan in plans.values():
            plan["before"], plan["before_first"] = plan["tito"], plan["tito_first"]
    src_of = {side: srcs["before"] if side.startswith("before") else ROOT / "src"
              for side in sides}
    for plan in plans.values():  # the first-request sides answer once (and write their caches)
        for side in sides:
            if side.endswith("_first"):
                cpu_of(plan[side], src_of[side])
    times: dict[str, dict[str, list[float]]] = {f: {s: [] for s in sides} for f in plans}
    own: dict[str, dict[str, list[list[float]]]] = {f: {n: [] for n in srcs} for f in plans}
    for _ in range(args.repeat):
        for function, plan in plans.items():  # interleaved: the box's load hits all alike
            for side in sides:
                times[function][side].append(cpu_of(plan[side], src_of[side]))
            for name, src in srcs.items():
                own[function][name].append(probe(plan["own"], src))  # type: ignore[arg-type]
    out = {}
    for function, plan in plans.items():
        tito, deps, tito_first, deps_first = (statistics.median(times[function][s])
                                              for s in sides[:4])
        spread = {s: [round(min(times[function][s]), 3), round(max(times[function][s]), 3)]
                  for s in sides}
        out[function] = {
            "tito_cpu_s": round(tito, 3),
            "deps_cpu_s": round(deps, 3),
            "ratio": round(tito / deps, 3),
            # init + the first request (each side's whole process, medians)
            "first_tito_cpu_s": round(tito_first, 3),
            "first_deps_cpu_s": round(deps_first, 3),
            "first_ratio": round(tito_first / deps_first, 3),
            "spread_cpu_s": spread,  # [min, max] of each side's runs
            # tito's own CPU in one process (medians): init beyond its dependencies' imports and
            # the tokenizer loads (its template compile included), and the first request
            **{f"{prefix}own_{part}_ms":
               round(statistics.median(o[i] for o in own[function][name]), 1)
               for name, prefix in (("tito", ""), ("before", "before_")) if name in srcs
               for i, part in enumerate(("init", "first_request"))},
            **({"before_ratio": round(statistics.median(times[function]["before"]) / deps, 3),
                "before_first_ratio": round(
                    statistics.median(times[function]["before_first"]) / deps_first, 3)}
               if "before" in srcs else {}),
            "models_loaded_at_init": plan["loaded"],
            "extra_packages": plan["extra_packages"],
        }
    print(json.dumps({"repeat": args.repeat, "clock": "CPU (user+sys) of each child process",
                      "functions": out,
                      "max_ratio": max(v["ratio"] for v in out.values()),
                      "max_first_ratio": max(v["first_ratio"] for v in out.values()),
                      "load": [round(x, 2) for x in os.getloadavg()],
                      "cores": os.cpu_count()}, indent=2))


if __name__ == "__main__":
    main()
