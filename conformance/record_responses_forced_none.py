"""Record ``render_responses_forced_none.json``: Responses renders whose tools show the model no
function (a namespace's custom tool, an empty namespace, a built-in tool) or some, under every
tool choice, on qwen3 (hermes: a tool parser with a structural tag).

Why: vLLM 0.33's ``_apply_structural_tag`` asks ``get_structural_tag_tools`` for the tools a
``required`` *or named* choice may call, and ``require_function_tools`` refuses none ("tool_choice
requires a function call, but tools contains no function tool the model can call.", param
``tool_choice``); tito refused ``required`` only and rendered a named choice of a namespace's
custom tool (fuzz_render s893-282). Needs a running qwen3 render server (record.py's flags)::

    /work/vllm-venv/bin/python conformance/record_responses_forced_none.py \\
        --url qwen3=http://127.0.0.1:8441
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import url_record  # noqa: E402

GROUP = "render_responses_forced_none"
FN = {"type": "function", "name": "lookup", "parameters": {"type": "object"}}
TOOLS: dict[str, list[dict[str, Any]]] = {
    "ns_custom": [{"type": "namespace", "name": "erp", "description": "",
                   "tools": [{"type": "custom", "name": "lookup"}]}],
    "ns_empty": [{"type": "namespace", "name": "erp", "description": "", "tools": []}],
    "web": [{"type": "web_search_preview"}],
    "web_ns_custom": [{"type": "web_search_preview"},
                      {"type": "namespace", "name": "erp", "description": "",
                       "tools": [{"type": "custom", "name": "lookup"}]}],
    "custom": [{"type": "custom", "name": "lookup"}],
    "ns_function": [{"type": "namespace", "name": "erp", "description": "", "tools": [FN]}],
    "function": [FN],
}
CHOICES: dict[str, Any] = {
    "omitted": None, "auto": "auto", "none": "none", "required": "required",
    "named_function": {"type": "function", "name": "lookup"},
    "named_custom": {"type": "custom", "name": "lookup"},
    "named_flat": {"type": "custom", "name": "erp__lookup"},
}


def cases(server: str) -> dict[str, tuple[str, dict[str, Any]]]:
    out = {}
    for tkey, tools in TOOLS.items():
        for ckey, choice in CHOICES.items():
            out[f"{server}_{tkey}_{ckey}"] = ("/v1/responses/render", {
                "model": server, "input": "Look it up.", "tools": tools,
                **({} if choice is None else {"tool_choice": choice})})
    return out


def main() -> None:
    url_record.record_urls(GROUP, cases)


if __name__ == "__main__":
    main()
