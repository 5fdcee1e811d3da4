"""Record ``render_messages_named.json``: a Messages render whose named ``tool_choice`` is not
among its ``tools`` (fuzz_render seed 499 case 164, inkling).

Why: vLLM 0.33's Messages conversion sets ``tools`` and ``tool_choice`` past the chat body's
validation, so only the model's tool format looks the name up: a structural tag's (hermes,
the DeepSeek formats, harmony) is xgrammar's 400, while inkling's native format and mistral's
render the request unconstrained (200); tito refused it on every model. Needs running render
servers (record.py's flags); one at a time with ``--merge``::

    /work/vllm-venv/bin/python conformance/record_messages_named.py --merge \\
        --url inkling=http://127.0.0.1:8437
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import url_record  # noqa: E402

TOOLS = [{"name": "get_time", "input_schema": {"type": "object", "properties": {}}},
         {"name": "get_city", "description": "a city",
          "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}]
#: case key -> (tools, tool_choice)
CHOICES = {
    "unknown": (TOOLS[:1], {"type": "tool", "name": "get_weather"}),
    "unknown_two_tools": (TOOLS, {"type": "tool", "name": "get_weather"}),
    "unknown_single_call": (TOOLS, {"type": "tool", "name": "get_weather",
                                    "disable_parallel_tool_use": True}),
    "known": (TOOLS, {"type": "tool", "name": "get_city"}),
    "unknown_no_tools": (None, {"type": "tool", "name": "get_weather"}),
}


def cases(server: str) -> dict[str, tuple[str, dict]]:
    out = {}
    for key, (tools, choice) in CHOICES.items():
        out[f"{server}_{key}"] = ("/v1/messages/render", {
            "model": server, "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}],
            **({"tools": tools} if tools is not None else {}), "tool_choice": choice})
    return out


def main() -> None:
    url_record.record_urls("render_messages_named", cases)


if __name__ == "__main__":
    main()
