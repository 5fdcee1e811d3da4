"""Record vLLM 0.33.0's structural tags for every tool-call format tito has, as goldens.

Why: vLLM 0.33 constrains ``tool_choice`` required / named (and ``auto`` with a strict tool,
``parallel_tool_calls: false`` or a ``response_format``) with a structural tag in the tool
parser's own format. The only trustworthy reference is the real render server: this script
starts ``vllm launch render`` once per ``--tool-call-parser`` on qwen3's tokenizer with every
format's markers added (:mod:`conformance.markers`: the ids are not the models') without a
reasoning parser (the tag depends on neither; ``openai`` runs on the gpt-oss tokenizer with
its reasoning parser), sends the corpus (:mod:`conformance.structural_corpus`,
:mod:`conformance.structural_validation`) to the chat and Responses render routes and what
each constrained model would write to chat derender, and writes
``conformance/goldens/structural/<parser>.json``. Also per parser: the streaming derender of
what the constrained model writes (``stream_*``: required, named, strict auto; one id per call
and seeded random chunks, vLLM driven as its protocol requires, its returned states echoed but
not stored), vLLM's render-time checks of constraints (``validation_*``, answers cut to what
is compared) and, on one more server per ``--tool-strict-level``, the render corpus again
(``level_<level>.*``). ``tests/test_structural_tags.py`` replays the stored requests against
tito and compares.

Re-record (a Python with vllm==0.33.0, e.g. the venv at /work/vllm-venv; servers run in
parallel, one per port; about 45 minutes on a loaded 2-core box)::

    /work/vllm-venv/bin/python conformance/record_structural.py [PARSER ...] [--ports 8821,8822]

``--validation-only`` re-records the ``validation_*`` cases alone, into the existing goldens
(one server per parser, a few minutes each).
"""

from __future__ import annotations

import argparse
import json
import queue
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import markers, record  # noqa: E402
from conformance.structural_corpus import (  # noqa: E402
    CHAT, DERENDER, JSON_LIST, MSGS, OUTPUTS, PARSERS, R_INPUT, RESPONSES, STREAMS,
    constrained_text)
from conformance.structural_validation import RESPONSES_VALIDATION, VALIDATION  # noqa: E402

GOLDENS = HERE / "goldens" / "structural"

#: ``--tool-strict-level`` values recorded (a server each); ``auto`` only where the parser's
#: own default differs (GLM's is ``function``)
LEVELS = ["function", "parameter"]
LEVEL_AUTO = {"glm45", "glm47"}


def _encode(text: str, parser: str, folder: Path) -> list[int]:
    from tokenizers import Tokenizer

    path = record.corpus.MODELS / "gpt-oss" if parser == "openai" else folder
    return list(Tokenizer.from_file(str(path / "tokenizer.json")).encode(
        text, add_special_tokens=False).ids)


#: the gpt-oss model folder's config (gpt-oss-20b's sizes; no weights)
GPT_OSS_CONFIG = {
    "architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "vocab_size": 201088,
    "hidden_size": 2880, "num_hidden_layers": 24, "num_attention_heads": 64,
    "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880,
    "num_local_experts": 32, "num_experts_per_tok": 4, "max_position_embeddings": 131072,
    "sliding_window": 128, "rope_theta": 150000, "torch_dtype": "bfloat16",
    "eos_token_id": 200002, "pad_token_id": 199999,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                     "truncate": False, "original_max_position_embeddings": 4096},
}


def _folder(parser: str, tmp: Path) -> tuple[Path, list[str]]:
    """The model folder and server flags for ``parser``."""
    if parser == "openai":
        folder = tmp / "gpt-oss"
        if not folder.exists():
            folder.mkdir()
            for f in (record.corpus.MODELS / "gpt-oss").glob("tokenizer*.json"):
                shutil.copy(f, folder)
            (folder / "config.json").write_text(json.dumps(GPT_OSS_CONFIG))
            (folder / "generation_config.json").write_text(json.dumps(
                {"eos_token_id": [200002, 199999, 200012], "pad_token_id": 199999}))
        return folder, ["--served-model-name", "gpt-oss", "--reasoning-parser", "openai_gptoss",
                        "--tool-call-parser", "openai", "--enable-auto-tool-choice"]
    folder = tmp / "qwen3"
    if not folder.exists():
        markers.marker_folder(folder)
        for f in (HERE / "models" / "qwen3").glob("*.json"):
            shutil.copy(f, folder)
    # no reasoning parser: the tag never depends on it (vLLM builds it with reasoning off), and
    # derender then shows the tool parser alone
    return folder, ["--served-model-name", "qwen3", "--tool-call-parser", parser,
                    "--enable-auto-tool-choice"]


def _start(parser: str, vllm: str, tmp: Path, port: int,
           level: str | None = None) -> tuple[Any, str]:
    import os
    import subprocess

    folder, flags = _folder(parser, tmp)
    if level is not None:
        flags = [*flags, "--tool-strict-level", level]
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1",
               VLLM_SYSTEM_START_DATE=record.HARMONY_DATE)
    if parser == "openai":  # openai-harmony's vocabulary, offline (main() rebuilt it)
        env["TIKTOKEN_ENCODINGS_BASE"] = str(tmp / "tiktoken")
    log = open(tmp / f"{parser}-{level}.log", "wb")  # noqa: SIM115 (lives as long as the server)
    proc = subprocess.Popen([vllm, "launch", "render", str(folder), *flags, "--host",
                             "127.0.0.1", "--port", str(port)],
                            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    return proc, f"http://127.0.0.1:{port}"


def _render_cases(url: str, model: str, prefix: str = "",
                  level: str | None = None) -> dict[str, Any]:
    cases: dict[str, Any] = {}
    for path, corpus in (("/v1/chat/completions/render", CHAT),
                         ("/v1/responses/render", RESPONSES)):
        for name, body in corpus.items():
            body = {**body, "model": model}
            status, resp = record.post(url, path, body)
            cases[prefix + name] = {"path": path, "request": body, "status": status,
                                    "response": resp if level is None else slim(resp)}
            if level is not None:
                cases[prefix + name]["tool_strict_level"] = level
    return cases


def slim(resp: Any) -> Any:
    """A render answer cut to what its test compares (the constraint and the special-tokens
    flag; the prompt ids are compared in the default cases), for the level and validation
    cases: an error is kept whole."""
    if not isinstance(resp, dict) or "sampling_params" not in resp:
        return resp
    sp = resp["sampling_params"]
    return {"sampling_params": {k: sp[k] for k in ("structured_outputs", "skip_special_tokens")
                                if k in sp}}


def _stream(url: str, path: str, model: str, request: dict[str, Any], prompt: list[int],
            events: list[dict[str, Any]]) -> dict[str, Any]:
    """vLLM's streaming derender driven as its protocol requires: one call per engine event,
    the returned state echoed, ``chat_request`` and ``prompt_token_ids`` on every call."""
    calls, state = [], None
    for event in events:
        body = {"stream": True, "model": model, "generate_chunk": event, "stream_state": state,
                "prompt_token_ids": prompt, "prompt_tokens": len(prompt),
                "chat_request": request}
        status, resp = record.post(url, path, body)
        if status != 200:
            calls.append({"status": status, "response": resp})
            break
        state = resp["stream_state"]  # echoed, not stored: the comparison folds the chunks
        calls.append({"status": status, "response": {"chunk": resp["chunk"]}})
    return {"path": path, "server": model, "settings_key": "chat_request", "settings": request,
            "prompt_token_ids": prompt, "chunks": events, "calls": calls}


def record_parser(parser: str, url: str, folder: Path) -> dict[str, Any]:
    model = "gpt-oss" if parser == "openai" else "qwen3"
    cases = _render_cases(url, model)
    eos = [] if parser == "openai" else [record.corpus.IM_END]  # harmony's ends in <|call|>
    for name, (chat_case, kind) in DERENDER.items():
        request = {**CHAT[chat_case], "model": model}
        rendered = cases[chat_case]["response"]
        text = {"args": '{"city": "Paris"}', "json_list": JSON_LIST}.get(
            kind, OUTPUTS.get(parser, JSON_LIST))
        prompt = rendered["token_ids"]
        body = {"model": model, "chat_request": request, "prompt_token_ids": prompt,
                "prompt_tokens": len(prompt), "generate_response": {
                    "request_id": f"chatcmpl-{name}", "choices": [{
                        "index": 0, "token_ids": _encode(text, parser, folder) + eos,
                        "finish_reason": "stop", "stop_reason": None}]}}
        status, resp = record.post(url, "/v1/chat/completions/derender", body)
        cases[name] = {"path": "/v1/chat/completions/derender", "request": body,
                       "status": status, "response": resp}
    for name, (chat_case, mode) in STREAMS.items():
        request = {**CHAT[chat_case], "model": model}
        prompt = cases[chat_case]["response"]["token_ids"]
        ids = _encode(constrained_text(parser, mode), parser, folder) + eos
        choice = {"index": 0, "token_ids": ids, "finish_reason": "stop"}
        for label, sizes in zip(("one", "random"),
                                record.corpus.chunkings(len(ids), seed=len(name + parser))):
            events = record.split_choice(choice, sizes, f"chatcmpl-{name}", {})
            cases[f"{name}.{label}"] = _stream(url, "/v1/chat/completions/derender", model,
                                               request, prompt, events)
    cases.update(record_validation(url, model))
    with urllib.request.urlopen(url + "/version") as r:
        version = json.loads(r.read())
    return {"vllm": version, "tool_call_parser": parser, "cases": cases}


def record_validation(url: str, model: str) -> dict[str, Any]:
    """vLLM's render-time checks of constraints: ``validation_*`` (chat), ``validation_
    completion_*`` (those without tools) and ``validation_responses_*``."""
    cases: dict[str, Any] = {}
    for name, extra in VALIDATION.items():
        body = {"model": model, "messages": MSGS, **extra}
        status, resp = record.post(url, "/v1/chat/completions/render", body)
        cases[f"validation_{name}"] = {"path": "/v1/chat/completions/render", "request": body,
                                       "status": status, "response": slim(resp)}
    for name, extra in VALIDATION.items():  # the same checks on completions render
        if "tools" not in extra:
            body = {"model": model, "prompt": "hi", **extra}
            status, resp = record.post(url, "/v1/completions/render", body)
            cases[f"validation_completion_{name}"] = {
                "path": "/v1/completions/render", "request": body, "status": status,
                "response": [slim(r) for r in resp] if isinstance(resp, list) else resp}
    for name, extra in RESPONSES_VALIDATION.items():
        body = {"model": model, "input": R_INPUT, **extra}
        status, resp = record.post(url, "/v1/responses/render", body)
        cases[f"validation_responses_{name}"] = {"path": "/v1/responses/render",
                                                 "request": body, "status": status,
                                                 "response": slim(resp)}
    return cases


def _levels(parser: str) -> list[str]:
    """The ``--tool-strict-level`` values recorded for ``parser``: they change only formats
    with a tag (the others are checked once, with ``pythonic``)."""
    if parser not in OUTPUTS or parser == "mistral":
        return LEVELS if parser == "pythonic" else []
    return ["auto", *LEVELS] if parser in LEVEL_AUTO else LEVELS


def _record_one(parser: str, vllm: str, tmp: Path, ports: Any,
                validation_only: bool = False) -> str:
    """Every recording of ``parser``: the default server, then one per strict level (with
    ``validation_only``: the default server's ``validation_*`` cases, merged into the golden)."""
    runs: list[str | None] = [None] if validation_only else [None, *_levels(parser)]
    path = GOLDENS / f"{parser}.json"
    data: dict[str, Any] = json.loads(path.read_text()) if validation_only else {}
    port = ports.get()
    for level in runs:
        proc, url = _start(parser, vllm, tmp, port, level)
        try:
            record.wait_ready(url, proc)
            if validation_only:
                data["cases"] = {k: v for k, v in data["cases"].items()
                                 if not k.startswith("validation_")}
                data["cases"].update(record_validation(
                    url, "gpt-oss" if parser == "openai" else "qwen3"))
            elif level is None:
                data = record_parser(parser, url, tmp / "qwen3")
            else:
                data["cases"].update(_render_cases(
                    url, "gpt-oss" if parser == "openai" else "qwen3", f"level_{level}.",
                    level))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    ports.put(port)
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n")
    return f"{path.relative_to(HERE.parent)}: {len(data['cases'])} cases"


def main() -> None:
    from concurrent.futures import ThreadPoolExecutor

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parsers", nargs="*", default=PARSERS)
    ap.add_argument("--vllm", default=str(Path(sys.executable).with_name("vllm")))
    ap.add_argument("--ports", default="8821,8822,8823",
                    help="ports for the servers, one parser at a time on each (in parallel)")
    ap.add_argument("--validation-only", action="store_true",
                    help="re-record only the validation_* cases, into the existing goldens")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tito-structural-"))
    GOLDENS.mkdir(parents=True, exist_ok=True)
    _folder("openai", tmp)
    _folder("hermes", tmp)  # the model folders once, before the servers share them
    if "openai" in args.parsers:  # openai-harmony's vocabulary, offline, from tokenizer.json
        sys.path.insert(0, str(HERE.parent / "tests"))
        from harmony_ref import build_o200k

        build_o200k(tmp / "tiktoken")
    ports: queue.Queue[int] = queue.Queue()
    for port in args.ports.split(","):
        ports.put(int(port))
    try:
        with ThreadPoolExecutor(ports.qsize()) as pool:
            jobs = [pool.submit(_record_one, parser, args.vllm, tmp, ports,
                                args.validation_only) for parser in args.parsers]
            for job in jobs:
                print(job.result(), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
