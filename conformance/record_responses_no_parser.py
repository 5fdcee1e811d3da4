"""Record ``render_responses_no_parser.json``: renders and derenders with tools by vLLM 0.33
servers that have no tool parser (qwen3's folder, its reasoning parser or none).

Why: vLLM's chat render refuses a tool choice it cannot parse (``"auto" tool choice requires
--enable-auto-tool-choice ...``), but its Responses render (``render_responses``) never checks
one: the tools go to the template and the request renders. tito refused those too. And its
derender makes no call without a tool parser (``_extract_tool_calls``), ``required`` and named
too, where tito parsed the forced forms (both found in session 51). Starts its own servers on
the ports given::

    /work/vllm-venv/bin/python conformance/record_responses_no_parser.py --ports 8454,8455
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import corpus, flag_servers, record  # noqa: E402

OUT = record.GOLDENS / "render_responses_no_parser.json"
#: server -> its reasoning parser (no tool parser): vLLM's flags, tito.json's in the test
SERVERS: dict[str, str | None] = {"qwen3_reasoning": "qwen3", "qwen3_plain": None}
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [{"type": "function", "name": "get_weather", "parameters": PARAMS},
         {"type": "function", "name": "get_time", "parameters": {"type": "object"}}]
CHOICES: dict[str, Any] = {
    "omitted": None, "auto": "auto", "none": "none", "required": "required",
    "named": {"type": "function", "name": "get_weather"}}


def cases() -> dict[str, tuple[str, dict[str, Any]]]:
    """Every tool choice on Responses (and chat's, the refusal to compare), plus parallel off;
    chat derenders of each tool choice (vLLM's derender takes every one) and output."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for key, choice in CHOICES.items():
        extra = {} if choice is None else {"tool_choice": choice}
        out[f"responses_{key}"] = ("/v1/responses/render",
                                   {"input": "Weather in Paris?", "tools": TOOLS, **extra})
        chat_choice = ({"type": "function", "function": {"name": "get_weather"}}
                       if key == "named" else choice)
        out[f"chat_{key}"] = ("/v1/chat/completions/render", {
            "messages": [{"role": "user", "content": "Weather in Paris?"}],
            "tools": [{"type": "function", "function": {k: v for k, v in t.items()
                                                        if k != "type"}} for t in TOOLS],
            **({} if chat_choice is None else {"tool_choice": chat_choice})})
    out["responses_required_single"] = ("/v1/responses/render", {
        "input": "Weather in Paris?", "tools": TOOLS, "tool_choice": "required",
        "parallel_tool_calls": False})
    for key, (_, chat) in [(k[5:], v) for k, v in out.items() if k.startswith("chat_")]:
        for text_key, text in OUTPUTS.items():
            out[f"derender_{key}_{text_key}"] = ("/v1/chat/completions/derender", {
                "chat_request": {"model": "qwen3", **chat}, "prompt_token_ids": PROMPT,
                "generate_response": {"request_id": f"chatcmpl-{key}-{text_key}", "choices": [
                    {"index": 0, "token_ids": _ids(text), "finish_reason": "stop"}]}})
    return out


#: engine outputs (qwen3's ids, ``<|im_end|>`` last): the forced forms a parser would read
OUTPUTS = {
    "json_list": '<think>\n</think>\n\n[{"name": "get_weather", "parameters": {"city": "Paris"}}]',
    "hermes": '<think>\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": '
              '{"city": "Paris"}}\n</tool_call>',
    "reasoning_only": "Hello",
}
#: the prompt the derenders carry (a user turn, the assistant's opened)
PROMPT = [151644, 872, 198, 3838, 151645, 198, 151644, 77091, 198]


def _ids(text: str) -> list[int]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(corpus.MODELS / "qwen3" / "tokenizer.json"))
    return [*tok.encode(text, add_special_tokens=False).ids, 151645]


def main() -> None:
    ns = flag_servers.args("8454,8455")
    tmp = Path(tempfile.mkdtemp(prefix="noparser-"))
    folder = tmp / "qwen3"
    folder.mkdir()
    for f in (corpus.MODELS / "qwen3").glob("tokenizer*.json"):
        shutil.copy(f, folder)
    for f in (HERE / "models" / "qwen3").glob("*.json"):
        shutil.copy(f, folder)
    servers = {name: (folder, flag_servers.flags(reasoning, None))
               for name, reasoning in SERVERS.items()}
    version, out = flag_servers.record_servers(servers, cases(), ns, tmp)
    flag_servers.write(OUT, version, {s: {"reasoning_parser": r, "tool_parser": None}
                                      for s, r in SERVERS.items()}, out)


if __name__ == "__main__":
    main()
