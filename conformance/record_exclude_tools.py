"""Record ``render_exclude_tools.json``: vLLM 0.33 servers started with
``--exclude-tools-when-tool-choice-none`` (qwen3 with its parsers, gpt-oss, mistral-v3 through
mistral-common), rendering chats, ``/tokenize``, Responses and Messages requests with tools and
every tool choice, and derendering a call under ``tool_choice: none``.

Why: the flag keeps a request's tools out of the prompt when its tool choice is ``none``; tito
had the setting (``exclude_tools_when_tool_choice_none``) but no recording of it (session 53).
Starts its own servers on the ports given::

    /work/vllm-venv/bin/python conformance/record_exclude_tools.py --ports 8451,8452,8453
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402
from conformance.corpus_base import EOS_IDS, HARMONY_CALL, TOOLS, USER, ids  # noqa: E402

OUT = record.GOLDENS / "render_exclude_tools.json"
#: server -> (model, reasoning parser, tool parser, extra flags)
SERVERS: dict[str, tuple[str, str | None, str, list[str]]] = {
    "qwen3_exclude": ("qwen3", "qwen3", "hermes", []),
    "gptoss_exclude": ("gpt-oss", "openai_gptoss", "openai", []),
    "mistral_exclude": ("mistral-v3", None, "mistral", ["--tokenizer-mode", "mistral"]),
}
CHOICES: dict[str, Any] = {"omitted": None, "auto": "auto", "none": "none",
                           "required": "required",
                           "named": {"type": "function", "function": {"name": "get_weather"}}}
#: a call as each model writes it, and the id that ends it
CALLS = {"qwen3": ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
                   '</tool_call>', EOS_IDS["qwen3"]),
         "gpt-oss": ('<|channel|>commentary to=functions.get_weather <|constrain|>json'
                     '<|message|>{"city": "Paris"}', HARMONY_CALL),
         "mistral-v3": ('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
                        EOS_IDS["mistral-v3"])}
RESPONSES_TOOLS = [{"type": "function", "name": "get_weather", "description": "Weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                   "required": ["city"]}}]


def cases(model: str) -> flag_servers.Cases:
    out: flag_servers.Cases = {}
    text, end = CALLS[model]
    for key, choice in CHOICES.items():
        chat: dict[str, Any] = {"messages": USER, "tools": TOOLS,
                                **({} if choice is None else {"tool_choice": choice})}
        out[f"chat_{key}"] = ("/v1/chat/completions/render", chat)
        out[f"tokenize_{key}"] = ("/tokenize", chat)
        out[f"derender_{key}"] = ("/v1/chat/completions/derender", {
            "chat_request": {"model": model, **chat}, "prompt_token_ids": [1, 2, 3],
            "generate_response": {"request_id": f"chatcmpl-{key}", "choices": [{
                "index": 0, "token_ids": [*ids(text, model), end], "finish_reason": "stop"}]}})
        rchoice = ({"type": "function", "name": "get_weather"} if key == "named" else choice)
        out[f"responses_{key}"] = ("/v1/responses/render", {
            "input": "Weather in Paris?", "tools": RESPONSES_TOOLS,
            **({} if rchoice is None else {"tool_choice": rchoice})})
    for key, choice in {"none": {"type": "none"}, "auto": {"type": "auto"}}.items():
        out[f"messages_{key}"] = ("/v1/messages/render", {
            "max_tokens": 64, "messages": USER, "tool_choice": choice,
            "tools": [{"name": "get_weather", "description": "Weather", "input_schema": {
                "type": "object", "properties": {"city": {"type": "string"}}}}]})
    return out


def main() -> None:
    ns = flag_servers.args("8451,8452,8453")
    tmp = Path(tempfile.mkdtemp(prefix="exclude-tools-"))
    env = flag_servers.harmony_env(tmp)
    found: dict[str, Any] = {}
    version = None
    for name, (model, reasoning, tool, extra) in SERVERS.items():
        folder = flag_servers.model_server_folder(tmp / name, model, reasoning, tool)
        server_flags = [*flag_servers.flags(reasoning, tool, model), *extra,
                        "--exclude-tools-when-tool-choice-none"]
        version, got = flag_servers.record_servers({name: (folder, server_flags)},
                                                   cases(model), ns, tmp, model=model, env=env)
        found.update(got)
    flag_servers.write(OUT, version, {
        name: {"reasoning_parser": r, "tool_parser": t, "model": m,
               "tito_json": {"exclude_tools_when_tool_choice_none": True}}
        for name, (m, r, t, _) in SERVERS.items()}, found)


if __name__ == "__main__":
    main()
