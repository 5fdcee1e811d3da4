"""Record vLLM 0.33.0's structural tags for every tool-call format tito has, as goldens.

Why: vLLM 0.33 constrains ``tool_choice`` required / named (and ``auto`` with a strict tool,
``parallel_tool_calls: false`` or a ``response_format``) with a structural tag in the tool
parser's own format. The only trustworthy reference is the real render server: this script
starts ``vllm launch render`` once per ``--tool-call-parser`` on qwen3's tokenizer with every
format's markers added (:mod:`conformance.markers`: the ids are not the models') without a
reasoning parser (the tag depends on neither; ``openai`` runs on the
gpt-oss tokenizer with its reasoning parser), sends the corpus below to the chat and Responses
render routes and what each constrained model would write to chat derender, and writes
``conformance/goldens/structural/<parser>.json``. ``tests/test_structural_tags.py`` replays the
stored requests against tito (a model folder per parser) and compares the whole render answer.

Re-record (a Python with vllm==0.33.0, e.g. the venv at /work/vllm-venv; about a minute per
parser)::

    /work/vllm-venv/bin/python conformance/record_structural.py [PARSER ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import markers, record  # noqa: E402

GOLDENS = HERE / "goldens" / "structural"

#: vLLM's --tool-call-parser names of tito's formats (the registry of tito.core.parsers.tools)
PARSERS = ["hermes", "llama3_json", "llama4_json", "kimi_k2", "deepseek_v3", "deepseek_v31",
           "deepseek_v32", "qwen3_coder", "qwen3_xml", "glm45", "glm47", "minimax_m2",
           "mistral", "pythonic", "llama4_pythonic", "granite", "granite-20b-fc",
           "hunyuan_a13b", "seed_oss", "openai"]


def _fn(name: str, params: Any = None, strict: bool | None = None) -> dict[str, Any]:
    f: dict[str, Any] = {"name": name, "description": f"the {name} tool"}
    if params is not None:
        f["parameters"] = params
    if strict is not None:
        f["strict"] = strict
    return {"type": "function", "function": f}


_CITY = {"type": "object", "properties": {"city": {"type": "string"},
                                          "unit": {"type": "string", "enum": ["c", "f"]}},
         "required": ["city"]}
_TZ = {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]}
_TYPED = {"type": "object", "properties": {
    "n": {"type": "integer"}, "ok": {"type": "boolean"}, "tags": {"type": "array",
                                                                  "items": {"type": "string"}},
    "maybe": {"type": ["string", "null"]}, "level": {"enum": [1, 2.5, "x"]},
    "any": {}}, "required": ["n"]}
_NESTED = {"type": "object", "properties": {"q": {"type": "string"}},
           "anyOf": [{"required": ["q"]}]}

W, WS = _fn("get_weather", _CITY), _fn("get_weather", _CITY, True)
T, TS = _fn("get_time", _TZ), _fn("get_time", _TZ, True)
N, NS = _fn("ping", {"type": "object", "properties": {}}), _fn("ping", None, True)
G, GS = _fn("typed", _TYPED), _fn("typed_strict", _TYPED, True)
X = _fn("nested", _NESTED)
WF = _fn("get_weather", _CITY, False)

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}},
          "required": ["answer"]}
RF_SCHEMA = {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
MSGS = [{"role": "user", "content": "What is the weather in Paris?"}]


def _named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


def _chat(tools: list[dict[str, Any]], choice: Any = "absent", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "qwen3", "messages": MSGS, "tools": tools, **extra}
    if choice != "absent":
        body["tool_choice"] = choice
    return body


CHAT: dict[str, dict[str, Any]] = {
    "required_two": _chat([W, T], "required"),
    "required_strict_mixed": _chat([WS, T], "required"),
    "required_all_strict": _chat([WS, TS], "required"),
    "required_strict_false": _chat([WF, T], "required"),
    "required_single": _chat([W, T], "required", parallel_tool_calls=False),
    "required_noparams": _chat([N, W], "required"),
    "required_typed": _chat([G, GS, X], "required"),
    "required_json_schema": _chat([W], "required", response_format=RF_SCHEMA),
    "named": _chat([W, T], _named("get_time")),
    "named_strict": _chat([WS, T], _named("get_weather")),
    "named_single": _chat([W, T], _named("get_weather"), parallel_tool_calls=False),
    "named_noparams_strict": _chat([NS, W], _named("ping")),
    "named_typed": _chat([G, W], _named("typed")),
    "auto_plain": _chat([W, T], "auto"),
    "auto_strict": _chat([WS, T], "auto"),
    "auto_all_strict": _chat([WS, TS], "auto"),
    "auto_typed_strict": _chat([G, GS], "auto"),
    "auto_single": _chat([W, T], "auto", parallel_tool_calls=False),
    "auto_strict_single": _chat([WS, T], "auto", parallel_tool_calls=False),
    "omitted_choice_strict": _chat([WS, T]),
    "none_strict": _chat([WS], "none"),
    "auto_strict_json_schema": _chat([WS, T], "auto", response_format=RF_SCHEMA),
    "auto_strict_json_object": _chat([WS], "auto", response_format={"type": "json_object"}),
    "auto_plain_json_schema": _chat([W], "auto", response_format=RF_SCHEMA),
    "auto_single_json_schema": _chat([W], "auto", parallel_tool_calls=False,
                                     response_format=RF_SCHEMA),
    "auto_strict_single_json_schema": _chat([WS, T], "auto", parallel_tool_calls=False,
                                            response_format=RF_SCHEMA),
    "auto_strict_regex": _chat([WS], "auto", structured_outputs={"regex": "[a-z]+"}),
    "auto_strict_choice": _chat([WS], "auto", structured_outputs={"choice": ["yes", "no"]}),
    "auto_strict_structural_tag": _chat([WS], "auto", response_format={
        "type": "structural_tag", "format": {"type": "const_string", "value": "ok"}}),
    "auto_strict_legacy_structural_tag": _chat([WS], "auto", response_format={
        "type": "structural_tag", "structures": [
            {"begin": "<a>", "schema": SCHEMA, "end": "</a>"}], "triggers": ["<a>"]}),
}

_R_WEATHER = {"type": "function", "name": "get_weather", "description": "the weather",
              "parameters": _CITY}
_R_TIME = {"type": "function", "name": "get_time", "description": "the time",
           "parameters": _TZ, "strict": True}
_R_INPUT = "What is the weather in Paris?"
RESPONSES: dict[str, dict[str, Any]] = {
    "responses_required": {"model": "qwen3", "input": _R_INPUT, "tools": [_R_WEATHER, _R_TIME],
                           "tool_choice": "required"},
    "responses_named": {"model": "qwen3", "input": _R_INPUT, "tools": [_R_WEATHER, _R_TIME],
                        "tool_choice": {"type": "function", "name": "get_weather"}},
    "responses_auto_strict": {"model": "qwen3", "input": _R_INPUT,
                              "tools": [_R_WEATHER, _R_TIME]},
    "responses_auto_strict_json_schema": {
        "model": "qwen3", "input": _R_INPUT, "tools": [_R_WEATHER, _R_TIME],
        "text": {"format": {"type": "json_schema", "name": "a", "schema": SCHEMA}}},
    "responses_required_single": {"model": "qwen3", "input": _R_INPUT,
                                  "tools": [_R_WEATHER, _R_TIME], "tool_choice": "required",
                                  "parallel_tool_calls": False},
}

#: what a model constrained by each format's tag writes (one call of get_weather), and for the
#: formats without a tag what vLLM's JSON-schema fallback makes it write
_JSON_LIST = '[{"name": "get_weather", "parameters": {"city": "Paris"}}]'
OUTPUTS: dict[str, str] = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "llama3_json": '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
               '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
               "<|tool_calls_section_end|>",
    "deepseek_v3": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather"
                   '\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v31": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
                    '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v32": '\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
                    '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
                    "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "qwen3_coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>"
                   "\n</function>\n</tool_call>",
    "glm45": "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
             "</tool_call>",
    "minimax_m2": '\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">'
                  "Paris</parameter>\n</invoke>\n</minimax:tool_call>",
    "openai": "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
              '{"city": "Paris"}<|call|>',
    "mistral": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
}
OUTPUTS.update({"llama4_json": OUTPUTS["llama3_json"], "qwen3_xml": OUTPUTS["qwen3_coder"],
                "glm47": OUTPUTS["glm45"]})
#: derender cases: (chat request of CHAT, output kind): "tagged" = OUTPUTS[parser] (the JSON
#: list for the formats without a tag), "args" = the named function's bare arguments
DERENDER = {"derender_required": ("required_two", "tagged"),
            "derender_named": ("named_strict", "tagged"),
            "derender_named_args": ("named_strict", "args"),
            "derender_required_json_list": ("required_two", "json_list")}


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


def _start(parser: str, vllm: str, tmp: Path) -> tuple[Any, str]:
    import os
    import subprocess

    folder, flags = _folder(parser, tmp)
    port = record._free_port()
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1",
               VLLM_SYSTEM_START_DATE="2026-12-01")
    if parser == "openai":  # openai-harmony's vocabulary, offline (rebuilt from tokenizer.json)
        sys.path.insert(0, str(HERE.parent / "tests"))
        from harmony_ref import build_o200k

        build_o200k(tmp / "tiktoken")
        env["TIKTOKEN_ENCODINGS_BASE"] = str(tmp / "tiktoken")
    log = open(tmp / f"{parser}.log", "wb")  # noqa: SIM115 (lives as long as the server)
    proc = subprocess.Popen([vllm, "launch", "render", str(folder), *flags, "--host",
                             "127.0.0.1", "--port", str(port)],
                            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    return proc, f"http://127.0.0.1:{port}"


def record_parser(parser: str, url: str, folder: Path) -> dict[str, Any]:
    model = "gpt-oss" if parser == "openai" else "qwen3"
    cases: dict[str, Any] = {}
    for name, body in CHAT.items():
        body = {**body, "model": model}
        status, resp = record.post(url, "/v1/chat/completions/render", body)
        cases[name] = {"path": "/v1/chat/completions/render", "request": body,
                       "status": status, "response": resp}
    for name, body in RESPONSES.items():
        body = {**body, "model": model}
        status, resp = record.post(url, "/v1/responses/render", body)
        cases[name] = {"path": "/v1/responses/render", "request": body, "status": status,
                       "response": resp}
    for name, (chat_case, kind) in DERENDER.items():
        request = {**CHAT[chat_case], "model": model}
        rendered = cases[chat_case]["response"]
        text = {"args": '{"city": "Paris"}', "json_list": _JSON_LIST}.get(
            kind, OUTPUTS.get(parser, _JSON_LIST))
        prompt = rendered["token_ids"]
        eos = [] if parser == "openai" else [record.corpus.IM_END]  # harmony's ends in <|call|>
        body = {"model": model, "chat_request": request, "prompt_token_ids": prompt,
                "prompt_tokens": len(prompt), "generate_response": {
                    "request_id": f"chatcmpl-{name}", "choices": [{
                        "index": 0, "token_ids": _encode(text, parser, folder) + eos,
                        "finish_reason": "stop", "stop_reason": None}]}}
        status, resp = record.post(url, "/v1/chat/completions/derender", body)
        cases[name] = {"path": "/v1/chat/completions/derender", "request": body,
                       "status": status, "response": resp}
    with urllib.request.urlopen(url + "/version") as r:
        version = json.loads(r.read())
    return {"vllm": version, "tool_call_parser": parser, "cases": cases}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parsers", nargs="*", default=PARSERS)
    ap.add_argument("--vllm", default=str(Path(sys.executable).with_name("vllm")))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tito-structural-"))
    GOLDENS.mkdir(parents=True, exist_ok=True)
    try:
        for parser in args.parsers:
            proc, url = _start(parser, args.vllm, tmp)
            try:
                record.wait_ready(url, proc)
                data = record_parser(parser, url, tmp / "qwen3")
            finally:
                proc.terminate()
                proc.wait(timeout=60)
            path = GOLDENS / f"{parser}.json"
            path.write_text(json.dumps(data, ensure_ascii=False) + "\n")
            tagged = sum("structural_tag" in json.dumps(c["response"]) for c in
                         data["cases"].values())
            print(f"{path.relative_to(HERE.parent)}: {len(data['cases'])} cases, "
                  f"{tagged} with a structural tag", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
