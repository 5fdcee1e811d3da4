"""Record ``render_effort_map.json``: vLLM 0.33 servers started with ``--reasoning-effort-map``
(qwen3 with its parsers, hy_v4's reasoning parser on qwen3's tokenizer with the markers,
gpt-oss, Inkling), each rendering chat, ``/tokenize``, Responses and Messages requests of every
effort, and derendering chats whose parse the effort decides (qwen3, hy_v4), batch and streamed.

Why: the flag rewrites a request's ``reasoning_effort`` to the one the model's template or
parser knows (``none`` -> hy_v4's ``no_think``, say) before the template kwargs are built,
``enable_thinking`` derived from the rewritten effort, and the derender builds its reasoning
parser with the same kwargs; harmony's effort is the rewritten one. tito had no such setting
(session 53). Starts its own servers on the ports given::

    /work/vllm-venv/bin/python conformance/record_effort_map.py --ports 8451,8452,8453,8454
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
from conformance.corpus_base import IM_END, chunkings, ids  # noqa: E402

OUT = record.GOLDENS / "render_effort_map.json"
EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"]
#: server -> (model, reasoning parser, tool parser, its --reasoning-effort-map)
SERVERS: dict[str, tuple[str, str | None, str | None, dict[str, str]]] = {
    "qwen3_map": ("qwen3", "qwen3", "hermes", {"none": "low", "low": "none", "high": "max"}),
    "hy_v4_map": ("qwen3", "hy_v4", None, {"none": "no_think", "minimal": "no_think"}),
    "gptoss_map": ("gpt-oss", "openai_gptoss", "openai",
                   {"none": "low", "minimal": "low", "medium": "turbo", "max": "high"}),
    "inkling_map": ("inkling", "inkling", "inkling", {"low": "none", "max": "minimal"}),
}
MESSAGES = [{"role": "user", "content": "Hi"}]
#: qwen3-tokenizer outputs whose parse depends on thinking being on
OUTPUTS = {"think": "<think>\nPonder.\n</think>\n\nHello.", "closer": "Ponder.\n</think>\n\nHello.",
           "plain": "Hello."}
PROMPT = [151644, 872, 198, 13048, 151645, 198, 151644, 77091, 198]


def cases(model: str) -> flag_servers.Cases:
    """Every effort on chat render, /tokenize, Responses and Messages; the qwen3-tokenizer
    servers derender each output under each effort."""
    out: flag_servers.Cases = {}
    for effort in [None, *EFFORTS]:
        key = effort or "omitted"
        chat: dict[str, Any] = {"messages": MESSAGES,
                                **({} if effort is None else {"reasoning_effort": effort})}
        out[f"chat_{key}"] = ("/v1/chat/completions/render", chat)
        out[f"tokenize_{key}"] = ("/tokenize", chat)
        out[f"responses_{key}"] = ("/v1/responses/render", {
            "input": "Hi", **({} if effort is None else {"reasoning": {"effort": effort}})})
        if model == "qwen3":
            for name, text in OUTPUTS.items():
                out[f"derender_{key}_{name}"] = ("/v1/chat/completions/derender", {
                    "chat_request": {"model": model, **chat}, "prompt_token_ids": PROMPT,
                    "generate_response": {"request_id": f"chatcmpl-{key}-{name}", "choices": [{
                        "index": 0, "token_ids": [*ids(text), IM_END],
                        "finish_reason": "stop"}]}})
    out["chat_none_thinking_true"] = ("/v1/chat/completions/render", {
        "messages": MESSAGES, "reasoning_effort": "none",
        "chat_template_kwargs": {"enable_thinking": True}})
    out["chat_kwargs_effort_none"] = ("/v1/chat/completions/render", {
        "messages": MESSAGES, "chat_template_kwargs": {"reasoning_effort": "none"}})
    for key, thinking in {"disabled": {"type": "disabled"},
                          "enabled": {"type": "enabled", "budget_tokens": 1024}}.items():
        out[f"messages_{key}"] = ("/v1/messages/render", {
            "max_tokens": 64, "messages": MESSAGES, "thinking": thinking})
    return out


def streams() -> flag_servers.Streams:
    """The qwen3 outputs streamed under efforts the map rewrites."""
    out: flag_servers.Streams = {}
    for effort in ("none", "low", "minimal"):
        for name, text in OUTPUTS.items():
            choice = {"index": 0, "token_ids": [*ids(text), IM_END], "finish_reason": "stop"}
            sizes = chunkings(len(choice["token_ids"]), seed=len(name))[1]
            out[f"stream_{effort}_{name}"] = (
                "/v1/chat/completions/derender", "chat_request",
                {"messages": MESSAGES, "reasoning_effort": effort}, PROMPT,
                record.split_choice(choice, sizes, f"chatcmpl-s-{effort}-{name}", {}))
    return out


def main() -> None:
    ns = flag_servers.args("8451,8452,8453,8454")
    tmp = Path(tempfile.mkdtemp(prefix="effort-map-"))
    env = flag_servers.harmony_env(tmp)
    found: dict[str, Any] = {}
    version = None
    for name, (model, reasoning, tool, effort_map) in SERVERS.items():
        folder = flag_servers.model_server_folder(tmp / name, model, reasoning, tool)
        server_flags = [*flag_servers.flags(reasoning, tool, model),
                        "--reasoning-effort-map", json.dumps(effort_map)]
        version, got = flag_servers.record_servers(
            {name: (folder, server_flags)}, cases(model), ns, tmp, model=model,
            streams=streams() if model == "qwen3" else None, env=env)
        found.update(got)
    flag_servers.write(OUT, version, {
        name: {"reasoning_parser": r, "tool_parser": t, "model": m,
               "tito_json": {"reasoning_effort_map": effort_map}}
        for name, (m, r, t, effort_map) in SERVERS.items()}, found)


if __name__ == "__main__":
    main()
