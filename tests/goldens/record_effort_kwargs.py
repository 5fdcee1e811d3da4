"""Record vLLM 0.33.0's answers on where a reasoning parser reads ``reasoning_effort``.

vLLM builds hy_v3's / hy_v4's parser with the effective chat-template kwargs, where the
request's ``reasoning_effort`` field wins over ``chat_template_kwargs.reasoning_effort``
(``build_chat_params``). Run against a render server on the Qwen3 folder started with
``--reasoning-parser PARSER``, one per parser::

    VLLM_TARGET_DEVICE=cpu HF_HUB_OFFLINE=1 vllm launch render <qwen3 folder> \\
        --served-model-name qwen3 --reasoning-parser hy_v3 --port 18130
    /work/vllm-venv/bin/python tests/goldens/record_effort_kwargs.py hy_v3 http://127.0.0.1:18130

It merges its cases into ``effort_kwargs_vllm.json`` (parser -> case -> chat request fields,
the render's ``reasoning_ended``, the batch message's and the stream's reasoning / content).
"""

from __future__ import annotations

import json
import pathlib
import sys
import urllib.request

HERE = pathlib.Path(__file__).parent
OUT = HERE / "effort_kwargs_vllm.json"
#: the engine's output (Qwen3's tokenizer: <think> / </think> are single ids)
OUTPUT = "<think>\nweigh it\n</think>\n\nIt is sunny."
#: case -> extra chat request fields
CASES = {
    "none": {},
    "field_high": {"reasoning_effort": "high"},
    "field_none": {"reasoning_effort": "none"},
    "kwargs_high": {"chat_template_kwargs": {"reasoning_effort": "high"}},
    "kwargs_no_think": {"chat_template_kwargs": {"reasoning_effort": "no_think"}},
    "field_high_over_kwargs_no_think": {"reasoning_effort": "high",
                                        "chat_template_kwargs": {"reasoning_effort": "no_think"}},
    "field_low_kwargs_thinking_off": {"reasoning_effort": "low",
                                      "chat_template_kwargs": {"enable_thinking": False}},
}


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


def main() -> None:
    parser, url = sys.argv[1], sys.argv[2]
    sys.path.insert(0, str(HERE.parents[1] / "src"))
    from tito.models.served import load_model

    vocab = load_model(HERE.parents[1] / "layers" / "tokenizer" / "models" / "qwen3").vocab
    ids = vocab.encode(OUTPUT) + [vocab.eos_token_id]
    got = json.loads(OUT.read_text()) if OUT.exists() else {}
    got[parser] = {}
    for name, extra in CASES.items():
        chat = {"model": "qwen3", "messages": [{"role": "user", "content": "Weather?"}], **extra}
        rendered = post(url + "/v1/chat/completions/render", chat)
        out = post(url + "/v1/chat/completions/derender", {
            "model": "qwen3", "chat_request": chat, "prompt_token_ids": rendered["token_ids"],
            "generate_response": {"request_id": "chatcmpl-e", "choices": [
                {"index": 0, "token_ids": ids, "finish_reason": "stop"}]}})
        message = out["choices"][0]["message"]
        # the stream, in two chunks: vLLM's streaming parser reads the prompt (a block the
        # prompt closed makes the output content); its batch derender does not
        state, reasoning, content = None, "", ""
        for k, part in enumerate((ids[:3], ids[3:])):
            resp = post(url + "/v1/chat/completions/derender", {
                "stream": True, "model": "qwen3", "chat_request": chat, "stream_state": state,
                "prompt_token_ids": rendered["token_ids"],
                "generate_chunk": {"request_id": "chatcmpl-e", "choices": [
                    {"index": 0, "token_ids": part, "finish_reason": "stop" if k else None}]}})
            state = resp["stream_state"]
            for choice in resp["chunk"]["choices"] if resp.get("chunk") else []:
                reasoning += choice["delta"].get("reasoning") or ""
                content += choice["delta"].get("content") or ""
        got[parser][name] = {"request": extra, "output": OUTPUT,
                             "reasoning_ended": rendered.get("reasoning_ended"),
                             "batch": [message.get("reasoning"), message.get("content")],
                             "stream": [reasoning, content]}
    OUT.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT.name}: {parser}: {len(got[parser])} cases")


if __name__ == "__main__":
    main()
