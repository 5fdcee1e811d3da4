"""Record ``render_generation_config.json``: vLLM 0.33 qwen3 servers (its parsers) whose model
folder's ``generation_config.json`` sets sampling fields, with and without vLLM's
``--generation-config vllm`` and ``--override-generation-config``, rendering chats,
completions and Responses requests (with and without the request's own sampling fields) and
derendering an output holding special tokens (``skip_special_tokens`` is one of the fields).

Why: vLLM takes the request's unset sampling fields from the folder's generation config
(``ModelConfig.get_diff_sampling_param``: repetition / presence / frequency penalties,
temperature, top_k, top_p, min_p, ``max_new_tokens`` as ``max_tokens``, skip_special_tokens;
transformers' defaults dropped); tito read five of them and had neither flag (session 54).
Starts its own servers on the ports given::

    /work/vllm-venv/bin/python conformance/record_generation_config.py --ports 8451,8452
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402
from conformance.corpus_base import EOS_IDS, USER, ids  # noqa: E402

OUT = record.GOLDENS / "render_generation_config.json"
_BASE = json.loads((HERE / "models" / "qwen3" / "generation_config.json").read_text())
#: every field vLLM reads, none at transformers' default
RICH = {**_BASE, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "min_p": 0.05,
        "repetition_penalty": 1.05, "presence_penalty": 1.5, "frequency_penalty": 0.5,
        "max_new_tokens": 1024, "skip_special_tokens": False, "do_sample": True}
#: transformers' defaults written out (dropped by its diff), a field vLLM does not read and
#: an unset one
HF_DEFAULTS = {**_BASE, "temperature": 1.0, "top_p": 1.0, "top_k": 50,
               "repetition_penalty": 1.0, "do_sample": True, "num_beams": 1,
               "length_penalty": 2.0, "min_p": None}
#: server -> (generation_config.json, extra flags, tito.json)
SERVERS: dict[str, tuple[dict[str, Any], list[str], dict[str, Any]]] = {
    "qwen3_gen_rich": (RICH, [], {}),
    "qwen3_gen_defaults": (HF_DEFAULTS, [], {}),
    "qwen3_gen_vllm": (RICH, ["--generation-config", "vllm"], {"generation_config": "vllm"}),
    "qwen3_gen_override": (RICH, ["--override-generation-config",
                                  '{"temperature": 0.2, "max_new_tokens": 64, "top_k": -1}'],
                           {"override_generation_config": {
                               "temperature": 0.2, "max_new_tokens": 64, "top_k": -1}}),
    "qwen3_gen_vllm_override": (RICH, ["--generation-config", "vllm",
                                       "--override-generation-config",
                                       '{"temperature": 0.3, "skip_special_tokens": false}'],
                                {"generation_config": "vllm", "override_generation_config": {
                                    "temperature": 0.3, "skip_special_tokens": False}}),
}
#: an output with special tokens inside (shown or not by skip_special_tokens)
SPECIAL_OUT = "Hi<|im_start|> there<|endoftext|> you"


def cases() -> flag_servers.Cases:
    own = {"temperature": 0.9, "top_p": 0.5, "max_tokens": 10, "presence_penalty": 0.0,
           "skip_special_tokens": True}
    out: flag_servers.Cases = {
        "chat": ("/v1/chat/completions/render", {"messages": USER}),
        "chat_own": ("/v1/chat/completions/render", {"messages": USER, **own}),
        "chat_max_completion": ("/v1/chat/completions/render",
                                {"messages": USER, "max_completion_tokens": 7}),
        "completions": ("/v1/completions/render", {"prompt": "Hello"}),
        "completions_own": ("/v1/completions/render", {"prompt": "Hello", **own}),
        "responses": ("/v1/responses/render", {"input": "Hello"}),
        "responses_own": ("/v1/responses/render",
                          {"input": "Hello", "temperature": 0.9, "top_p": 0.5,
                           "max_output_tokens": 10}),
        "tokenize": ("/tokenize", {"messages": USER}),
        # above the override's max_new_tokens (a cap); an explicit null flag (unset)
        "chat_big": ("/v1/chat/completions/render", {"messages": USER, "max_tokens": 100}),
        "completions_big": ("/v1/completions/render", {"prompt": "Hello", "max_tokens": 100}),
        "responses_big": ("/v1/responses/render", {"input": "Hello", "max_output_tokens": 100}),
        "chat_skip_null": ("/v1/chat/completions/render",
                           {"messages": USER, "skip_special_tokens": None}),
        "completions_skip_null": ("/v1/completions/render",
                                  {"prompt": "Hello", "skip_special_tokens": None,
                                   "presence_penalty": None}),
        "completions_skip_false": ("/v1/completions/render",
                                   {"prompt": "Hello", "skip_special_tokens": False}),
    }
    body = ids(SPECIAL_OUT, "qwen3")
    for key, extra in (("default", {}), ("skip", {"skip_special_tokens": True}),
                       ("keep", {"skip_special_tokens": False})):
        out[f"derender_chat_{key}"] = ("/v1/chat/completions/derender", {
            "chat_request": {"model": "qwen3", "messages": USER,
                             "chat_template_kwargs": {"enable_thinking": False}, **extra},
            "prompt_token_ids": [1, 2, 3],
            "generate_response": {"request_id": f"chatcmpl-{key}", "choices": [{
                "index": 0, "token_ids": [*body, EOS_IDS["qwen3"]], "finish_reason": "stop"}]}})
        out[f"derender_completions_{key}"] = ("/v1/completions/derender", {
            "completion_request": {"model": "qwen3", "prompt": "Hello", **extra},
            "prompt_token_ids": [[9707]],
            "generate_responses": [{"request_id": f"cmpl-{key}", "choices": [{
                "index": 0, "token_ids": body, "finish_reason": "length"}]}]})
    return out


def main() -> None:
    ns = flag_servers.args("8451,8452")
    tmp = Path(tempfile.mkdtemp(prefix="generation-config-"))
    servers: flag_servers.Servers = {}
    for name, (generation, extra, _) in SERVERS.items():
        folder = record.model_folder("qwen3", tmp / name)
        (folder / "generation_config.json").write_text(json.dumps(generation))
        servers[name] = (folder, [*flag_servers.flags("qwen3", "hermes"), *extra])
    version, found = flag_servers.record_servers(servers, cases(), ns, tmp)
    flag_servers.write(OUT, version, {
        name: {"reasoning_parser": "qwen3", "tool_parser": "hermes", "model": "qwen3",
               "files": {"generation_config.json": generation},
               **({"tito_json": tito} if tito else {})}
        for name, (generation, _, tito) in SERVERS.items()}, found)


if __name__ == "__main__":
    main()
