"""Record vLLM 0.33.0's answers to ``/tokenize``, ``/detokenize`` and ``/version`` as goldens.

Run against a live ``vllm launch render`` server on the qwen3 folder (see docs/conformance.md):

    python conformance/record_tokenize.py --url http://127.0.0.1:8790

It writes ``tests/goldens/tokenize.json``: a list of ``{method, path, body, status, response}``.
``tests/test_tokenize.py`` replays every case against tito and compares.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from conformance.calls import request  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "goldens" / "tokenize.json"

MSGS = [{"role": "user", "content": "Hi"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]

CASES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/version", None),
    ("POST", "/tokenize", {"model": "qwen3", "prompt": "Hello wörld 😀"}),
    ("POST", "/tokenize", {"prompt": "no model named"}),
    ("POST", "/tokenize", {"model": "qwen3", "prompt": "Hello", "return_token_strs": True}),
    ("POST", "/tokenize", {"model": "qwen3", "prompt": "Hi", "add_special_tokens": False}),
    ("POST", "/tokenize", {"model": "qwen3", "prompt": "<|im_start|>user\nx<|im_end|>",
                           "return_token_strs": True}),
    ("POST", "/tokenize", {"model": "qwen3", "prompt": ""}),
    ("POST", "/tokenize", {"model": "qwen3", "prompt": "  leading and\ttabs\n\n中文"}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": MSGS}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": MSGS, "add_generation_prompt": False,
                           "return_token_strs": True}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": MSGS, "add_special_tokens": True}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": MSGS + [
        {"role": "assistant", "content": "Hel"}], "add_generation_prompt": False,
        "continue_final_message": True}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": MSGS, "tools": TOOLS}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": MSGS,
                           "chat_template_kwargs": {"enable_thinking": False}}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4"}, {"role": "user", "content": "and 3+3?"}]}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": MSGS, "add_generation_prompt": True,
                           "continue_final_message": True}),
    ("POST", "/tokenize", {"model": "nope", "prompt": "x"}),
    ("POST", "/tokenize", {"model": "qwen3"}),
    ("POST", "/tokenize", {"model": "qwen3", "prompt": 5}),
    ("POST", "/tokenize", {"model": "qwen3", "messages": []}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": [9707, 0, 151645]}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": []}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": [151644, 872, 198, 13048, 151645]}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": [9707, 289, 9416, 507, 90316]}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": [90316]}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": [151700]}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": [999999]}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": [-1]}),
    ("POST", "/detokenize", {"model": "qwen3", "tokens": "abc"}),
    ("POST", "/detokenize", {"model": "qwen3"}),
    ("POST", "/detokenize", {"model": "nope", "tokens": [1]}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8790", help="vLLM render server (default %(default)s)")
    args = parser.parse_args()
    cases = []
    for method, path, body in CASES:
        status, response = request(args.url, path, body, method=method)
        cases.append({"method": method, "path": path, "body": body, "status": status,
                      "response": response})
    OUT.write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
