"""Record ``render_harmony_parsers.json``: gpt-oss served by vLLM 0.33 without both of its
parsers (none, ``--reasoning-parser openai_gptoss`` alone, ``--tool-call-parser openai`` alone),
each rendering and derendering chats with tools, and rendering Responses.

Why: vLLM renders gpt-oss with harmony because of the model's type (``config.json``
``model_type: gpt_oss``), not its parser flags; its chat render checks a tool choice only
where tool parsing is unavailable, which excludes harmony (``tool_parsing_unavailable`` in its
``online_renderer``); its harmony parser surfaces reasoning only with the reasoning parser and
calls only with the tool parser, and without either parser the output is the decoded text.
tito took harmony from the parser names, and refused a tool choice without a tool parser
(session 52's open item). Starts its own servers on the ports given::

    /work/vllm-venv/bin/python conformance/record_harmony_parsers.py --ports 8451,8452,8453
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402
from conformance.corpus_base import (  # noqa: E402
    HARMONY_CALL, HARMONY_RETURN, TOOLS, USER, chunkings, ids,
)

OUT = record.GOLDENS / "render_harmony_parsers.json"
MODEL = "gpt-oss"
#: server -> (reasoning parser, tool parser)
PARSERS: dict[str, tuple[str | None, str | None]] = {
    "harmony_plain": (None, None),
    "harmony_reasoning": ("openai_gptoss", None),
    "harmony_tool": (None, "openai"),
}
CHOICES: dict[str, Any] = {
    "omitted": None, "auto": "auto", "none": "none", "required": "required",
    "named": {"type": "function", "function": {"name": "get_weather"}}}
ANALYSIS = "<|channel|>analysis<|message|>User asks weather. Answer briefly.<|end|>"
#: engine outputs (gpt-oss's ids; the end id is added by :func:`_choice`)
OUTPUTS: dict[str, tuple[str, int]] = {
    "final": (ANALYSIS + "<|start|>assistant<|channel|>final<|message|>It is sunny.",
              HARMONY_RETURN),
    "call": (ANALYSIS + "<|start|>assistant<|channel|>commentary to=functions.get_weather "
             '<|constrain|>json<|message|>{"city": "Paris"}', HARMONY_CALL),
    "preamble_call": ("<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant"
                      "<|channel|>commentary to=functions.get_weather <|constrain|>json"
                      '<|message|>{"city": "Paris"}', HARMONY_CALL),
    "final_only": ("<|channel|>final<|message|>Hello there.", HARMONY_RETURN),
}
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}},
          "required": ["answer"]}
RF = {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
RESPONSES_TOOLS = [{"type": "function", "name": "get_weather", "description": "Weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                   "required": ["city"]}}]


def _choice(key: str) -> dict[str, Any]:
    text, end = OUTPUTS[key]
    return {"index": 0, "token_ids": [*ids(text, MODEL), end], "finish_reason": "stop"}


def _chat(choice: Any, **extra: Any) -> dict[str, Any]:
    return {"messages": USER, "tools": TOOLS,
            **({} if choice is None else {"tool_choice": choice}), **extra}


def cases() -> flag_servers.Cases:
    """Renders of every tool choice, response format and effort; batch derenders of each
    output under each tool choice; Responses renders."""
    out: flag_servers.Cases = {}
    render, derender = "/v1/chat/completions/render", "/v1/chat/completions/derender"
    for key, choice in CHOICES.items():
        out[f"chat_{key}"] = (render, _chat(choice))
        for text_key in OUTPUTS:
            out[f"derender_{key}_{text_key}"] = (derender, {
                "chat_request": {"model": MODEL, **_chat(choice)},
                "prompt_token_ids": [200006, 1428, 200008, 3575, 200007],
                "generate_response": {"request_id": f"chatcmpl-{key}-{text_key}",
                                      "choices": [_choice(text_key)]}})
    for name, extra in {
            "plain": {}, "rf_json_schema": {"response_format": RF},
            "rf_json_object": {"response_format": {"type": "json_object"}},
            "effort_none": {"reasoning_effort": "none"},
            "effort_low": {"reasoning_effort": "low"},
            "skip_special_false": {"skip_special_tokens": False},
            "include_reasoning_false": {"include_reasoning": False}}.items():
        out[f"chat_{name}"] = (render, {"messages": USER, **extra})
    for name, extra in {"skip_special_false": {"skip_special_tokens": False},
                        "include_reasoning_false": {"include_reasoning": False},
                        "logprobs": {"logprobs": True, "top_logprobs": 1},
                        "no_tools": {}}.items():
        for text_key in ("final", "call"):
            chat = {"messages": USER, **extra} if name == "no_tools" else _chat(
                "auto", **extra)
            out[f"derender_{name}_{text_key}"] = (derender, {
                "chat_request": {"model": MODEL, **chat},
                "prompt_token_ids": [200006, 1428, 200008, 3575, 200007],
                "generate_response": {"request_id": f"chatcmpl-{name}-{text_key}",
                                      "choices": [_choice(text_key)]}})
    for key, choice in {"omitted": None, "auto": "auto", "required": "required",
                        "named": {"type": "function", "name": "get_weather"},
                        "none": "none"}.items():
        out[f"responses_{key}"] = ("/v1/responses/render", {
            "input": "What is the weather in Paris?", "tools": RESPONSES_TOOLS,
            **({} if choice is None else {"tool_choice": choice})})
    out["responses_text_schema"] = ("/v1/responses/render", {
        "input": "Answer in JSON.",
        "text": {"format": {"type": "json_schema", "name": "a", "schema": SCHEMA}}})
    return out


def streams() -> flag_servers.Streams:
    """Each output streamed one id per call and in a seeded random split, tools auto."""
    out: flag_servers.Streams = {}
    for text_key in OUTPUTS:
        choice = _choice(text_key)
        for k, sizes in enumerate(chunkings(len(choice["token_ids"]), seed=len(text_key))):
            out[f"stream_{text_key}_{k}"] = (
                "/v1/chat/completions/derender", "chat_request", _chat("auto"),
                [200006, 1428, 200008, 3575, 200007],
                record.split_choice(choice, sizes, f"chatcmpl-s-{text_key}", {}))
    return out


def main() -> None:
    ns = flag_servers.args("8451,8452,8453")
    tmp = Path(tempfile.mkdtemp(prefix="harmony-parsers-"))
    folder = record.model_folder(MODEL, tmp)
    servers: flag_servers.Servers = {}
    for name, (reasoning, tool) in PARSERS.items():
        server_flags = ["--served-model-name", MODEL]
        if reasoning:
            server_flags += ["--reasoning-parser", reasoning]
        if tool:
            server_flags += ["--tool-call-parser", tool, "--enable-auto-tool-choice"]
        servers[name] = (folder, server_flags)
    env = flag_servers.harmony_env(tmp)
    version, out = flag_servers.record_servers(servers, cases(), ns, tmp, model=MODEL,
                                               streams=streams(), env=env)
    flag_servers.write(OUT, version, {
        name: {"reasoning_parser": r, "tool_parser": t, "model": MODEL}
        for name, (r, t) in PARSERS.items()}, out)


if __name__ == "__main__":
    main()
