"""Record ``render_tool_reasoning.json``: chat and Responses renders with tools by vLLM 0.33
servers that run a tool parser **and** a reasoning parser (every reasoning parser tito has, each
with its format's tool parser; every other tool parser with qwen3's reasoning parser), on
qwen3's tokenizer with the formats' markers (``flag_servers.parser_folder``).

Why: ``record_structural.py`` records each tool parser with no reasoning parser, and
``record_reasoning_flags.py`` each reasoning parser with no tools. What the engine request holds
when both are configured (``skip_special_tokens`` through both parsers' ``adjust_request``, the
structural tag, ``reasoning_ended``, the template kwargs) was checked only through dsv32's
goldens. A few servers at a time on the ports given (about 40 minutes on a loaded 2-core box)::

    /work/vllm-venv/bin/python conformance/record_tool_reasoning.py --ports 8451,8452,8453
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

from conformance import flag_servers, record  # noqa: E402
from conformance.structural_corpus import CHAT, RESPONSES, MSGS  # noqa: E402

OUT = record.GOLDENS / "render_tool_reasoning.json"

#: reasoning parser -> the tool parser its models are served with (vLLM's recipes)
PAIRED: dict[str, str] = {
    "deepseek_r1": "deepseek_v3", "deepseek_v3": "deepseek_v31", "deepseek_v4": "deepseek_v4",
    "deepseek_v41": "deepseek_v41", "ernie45": "ernie45", "gemma4": "gemma4", "glm45": "glm45",
    "glm47": "glm47", "granite": "granite", "granite_thinking_parser": "granite4",
    "holo2": "hermes", "hunyuan_a13b": "hunyuan_a13b", "hy_v3": "hy_v3", "hy_v4": "hy_v4",
    "k2_horizon": "kimi_k2", "kimi_k2": "kimi_k2", "ling3": "ling3", "mimo": "mimo",
    "minimax_m2": "minimax_m2", "minimax_m2_append_think": "minimax_m2",
    "minimax_m3": "minimax_m2", "nemotron_v3": "qwen3_coder", "olmo3": "olmo3",
    "plamo3": "plamo3", "poolside_v1": "poolside_v1", "qwen3": "qwen3_coder",
    "seed_oss": "seed_oss", "step3": "step3", "step3p5": "step3p5", "step5": "step5",
}
#: tool parsers with qwen3's reasoning parser (the ones no pair above names; hermes with qwen3
#: is the replay's default model, kimi_k3's pair ``render_joined_markers.json``, harmony's,
#: Muse's and Inkling's their own goldens, mistral's needs its own tokenizer)
WITH_QWEN3 = ["apertus", "deepseek_v32", "dots", "functiongemma", "gigachat3",
              "granite-20b-fc", "internlm", "jamba", "lfm2", "llama3_json", "llama4_json",
              "llama4_pythonic", "longcat", "phi4_mini_json", "pythonic", "qwen3_json",
              "qwen3_xml", "xlam"]
THINKING_OFF = {"enable_thinking": False, "thinking": False}
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "chat_no_tools": ("/v1/chat/completions/render", {"messages": MSGS}),
    **{f"chat_{n}": ("/v1/chat/completions/render", CHAT[n]) for n in (
        "auto_plain", "auto_strict", "required_two", "named", "none_strict",
        "required_json_schema")},
    "chat_required_thinking_off": ("/v1/chat/completions/render", {
        **CHAT["required_two"], "chat_template_kwargs": THINKING_OFF}),
    "chat_auto_skip_false": ("/v1/chat/completions/render", {
        **CHAT["auto_plain"], "skip_special_tokens": False}),
    "responses_no_tools": ("/v1/responses/render", {"input": "Hi"}),
    **{n: ("/v1/responses/render", RESPONSES[n]) for n in (
        "responses_required", "responses_named", "responses_auto_strict")},
}


def servers() -> dict[str, tuple[str, str]]:
    """server name -> (reasoning parser, tool parser)."""
    out = {f"{tool}+{reasoning}": (reasoning, tool) for reasoning, tool in PAIRED.items()}
    out.update({f"{tool}+qwen3": ("qwen3", tool) for tool in WITH_QWEN3})
    return out


def main() -> None:
    flag_servers.record_pairs(OUT, servers(), CASES, "8451,8452,8453", "tool-reasoning-")


if __name__ == "__main__":
    main()
