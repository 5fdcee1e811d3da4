"""Record ``render_joined_markers.json``: renders by vLLM 0.33 servers whose kimi_k3 parsers
join their markers' tokens (``spaces_between_special_tokens`` off in the engine request).

Why: vLLM's kimi_k3 reasoning parser turns ``skip_special_tokens`` and
``spaces_between_special_tokens`` off for every request, its tool parser with them (a marker,
``<|open|>think<|sep|>``, is three tokens the parser reads unspaced); tito turned only the first
off (found in session 51 by comparing whole structural goldens). Three servers on qwen3's
tokenizer with the formats' markers (``markers.marker_folder``): the reasoning parser alone, the
tool parser alone, both. Starts its own servers on the ports given::

    /work/vllm-venv/bin/python conformance/record_joined_markers.py --ports 8451,8452,8453
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, markers, record  # noqa: E402

OUT = record.GOLDENS / "render_joined_markers.json"
#: server -> (reasoning parser, tool parser): vLLM's flags, and tito.json's parsers in the test
SERVERS: dict[str, tuple[str | None, str | None]] = {
    "k3_reasoning": ("kimi_k3", None), "k3_tools": (None, "kimi_k3"),
    "k3_both": ("kimi_k3", "kimi_k3")}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
MESSAGES = [{"role": "user", "content": "Hi"}]


def cases() -> dict[str, tuple[str, dict[str, Any]]]:
    """Chat (each flag as sent, tools or not, thinking off), completions and Responses."""
    chat = "/v1/chat/completions/render"
    out: dict[str, tuple[str, dict[str, Any]]] = {
        "chat": (chat, {"messages": MESSAGES}),
        "chat_spaces_true": (chat, {"messages": MESSAGES, "spaces_between_special_tokens": True}),
        "chat_spaces_false": (chat, {"messages": MESSAGES,
                                     "spaces_between_special_tokens": False}),
        "chat_skip_true": (chat, {"messages": MESSAGES, "skip_special_tokens": True}),
        "chat_thinking_off": (chat, {"messages": MESSAGES,
                                     "chat_template_kwargs": {"thinking": False}}),
        "chat_tools": (chat, {"messages": MESSAGES, "tools": TOOLS}),
        "chat_tools_none": (chat, {"messages": MESSAGES, "tools": TOOLS, "tool_choice": "none"}),
        "chat_tools_required": (chat, {"messages": MESSAGES, "tools": TOOLS,
                                       "tool_choice": "required"}),
        "chat_tool_choice_none": (chat, {"messages": MESSAGES, "tool_choice": "none"}),
        "completion": ("/v1/completions/render", {"prompt": "Hi"}),
        "responses": ("/v1/responses/render", {"input": "Hi"}),
        "responses_tools": ("/v1/responses/render", {"input": "Hi", "tools": [
            {"type": "function", "name": "get_weather",
             "parameters": TOOLS[0]["function"]["parameters"]}]}),
    }
    return out


def main() -> None:
    ns = flag_servers.args("8451,8452,8453")
    tmp = Path(tempfile.mkdtemp(prefix="joined-"))
    folder = markers.marker_folder(tmp / "qwen3")
    for f in (HERE / "models" / "qwen3").glob("*.json"):
        shutil.copy(f, folder)
    servers = {name: (folder, flag_servers.flags(*parsers)) for name, parsers in SERVERS.items()}
    version, out = flag_servers.record_servers(servers, cases(), ns, tmp)
    flag_servers.write(OUT, version, {s: {"reasoning_parser": r, "tool_parser": t}
                                      for s, (r, t) in SERVERS.items()}, out)


if __name__ == "__main__":
    main()
