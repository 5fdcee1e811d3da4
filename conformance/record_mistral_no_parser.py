"""Record ``render_mistral_no_parser.json``: chat renders and derenders with tools by a vLLM 0.33
server of mistral-v3 through mistral-common (``--tokenizer-mode mistral``) with no tool parser.

Why: vLLM's chat render refuses a tool choice it cannot parse only when tool parsing is
unavailable, which excludes Mistral tokenizers (``tool_parsing_unavailable`` in its
``online_renderer``): auto, required and named render, the tools in the prompt, no constraint.
tito refused them for every model without a tool parser (seen in session 51). Its derender
makes no call without a tool parser: a ``[TOOL_CALLS]`` output is content. Starts its own
server on the port given::

    /work/vllm-venv/bin/python conformance/record_mistral_no_parser.py --ports 8454
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402
from conformance.corpus_base import MISTRAL_EOS, TOOLS, USER, ids  # noqa: E402

OUT = record.GOLDENS / "render_mistral_no_parser.json"
MODEL = "mistral-v3"
CHOICES: dict[str, Any] = {
    "omitted": None, "auto": "auto", "none": "none", "required": "required",
    "named": {"type": "function", "function": {"name": "get_weather"}}}
#: engine outputs (mistral-v3's ids, ``</s>`` last): a call as the model writes it, and text
OUTPUTS = {
    "call": '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "text": "It is sunny.",
}
#: the prompt the derenders carry (BOS, a user turn)
PROMPT = [1, *ids("[INST] What is the weather in Paris? [/INST]", MODEL)]


def cases() -> dict[str, tuple[str, dict[str, Any]]]:
    """Every tool choice rendered, and each derendered with each output."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for key, choice in CHOICES.items():
        chat = {"messages": USER, "tools": TOOLS,
                **({} if choice is None else {"tool_choice": choice})}
        out[f"chat_{key}"] = ("/v1/chat/completions/render", chat)
        for text_key, text in OUTPUTS.items():
            out[f"derender_{key}_{text_key}"] = ("/v1/chat/completions/derender", {
                "chat_request": {"model": MODEL, **chat}, "prompt_token_ids": PROMPT,
                "generate_response": {"request_id": f"chatcmpl-{key}-{text_key}", "choices": [
                    {"index": 0, "token_ids": [*ids(text, MODEL), MISTRAL_EOS],
                     "finish_reason": "stop"}]}})
    return out


def main() -> None:
    ns = flag_servers.args("8454")
    tmp = Path(tempfile.mkdtemp(prefix="mistral-noparser-"))
    folder = record.model_folder(MODEL, tmp)
    servers = {"mistral_plain": (folder, ["--served-model-name", MODEL,
                                          "--tokenizer-mode", "mistral"])}
    version, out = flag_servers.record_servers(servers, cases(), ns, tmp, model=MODEL)
    flag_servers.write(OUT, version, {"mistral_plain": {
        "reasoning_parser": None, "tool_parser": None, "model": MODEL}}, out)


if __name__ == "__main__":
    main()
