"""Record ``render_mistral_spent_parts.json``: mistral-v3 (mistral-common) chat renders and
``/tokenize`` of conversations with a message whose part list vLLM 0.33's body leaves an
unread iterable (its role's OpenAI type: the custom type refuses the message, e.g. a
``task`` that is not a string, or a ``reasoning: {}``), in every role and position.

Why: vLLM parses every message's parts before the mistral tokenizer sees the conversation;
for such a message that reads the iterable once, so mistral-common gets the message with no
parts (a user's renders empty: ``[1, 3, 4]``). tito handed mistral-common the parts
(fuzz_render s430-31: a developer message's three text parts beside ``task: []``). Needs a
running mistral-v3 render server (record.py's flags)::

    /work/vllm-venv/bin/python conformance/record_mistral_spent.py \\
        --url mistral-v3=http://127.0.0.1:8438
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import url_record  # noqa: E402

GROUP = "render_mistral_spent_parts"
PATHS = {"tokenize": "/tokenize", "chat": "/v1/chat/completions/render"}
PARTS = [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]
#: the keys that make vLLM's custom message type refuse a message (its OpenAI type then takes
#: it, the parts an iterable), and the controls it takes (the parts a list)
SPENDERS = {"task_list": {"task": []}, "task_object": {"task": {"a": 1}},
            "task_number": {"task": 5}, "reasoning_object": {"reasoning": {}}}
CONTROLS = {"task_string": {"task": "x"}, "plain": {}}


def _conversations(extra: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    def m(role: str, **more: Any) -> dict[str, Any]:
        return {"role": role, "content": list(PARTS), **extra, **more}

    u, a = {"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}
    call = {"id": "abc123abc", "type": "function",
            "function": {"name": "f", "arguments": "{}"}}
    return {
        "user_only": [m("user")],
        "user_last": [u, a, m("user")],
        "system": [m("system"), u],
        "developer_only": [m("developer")],
        "assistant_mid": [u, m("assistant"), u],
        "assistant_last": [u, m("assistant")],
        "assistant_calls": [u, m("assistant", tool_calls=[call]),
                            {"role": "tool", "tool_call_id": "abc123abc", "content": "r"}, u],
        "tool": [u, {"role": "assistant", "content": "", "tool_calls": [call]},
                 m("tool", tool_call_id="abc123abc"), u],
    }


def cases() -> dict[str, tuple[str, dict[str, Any]]]:
    out = {}
    for ekey, extra in {**SPENDERS, **CONTROLS}.items():
        for ckey, msgs in _conversations(extra).items():
            for pkey, path in PATHS.items():
                out[f"mistral-v3_{pkey}_{ekey}_{ckey}"] = (
                    path, {"model": "mistral-v3", "messages": msgs})
    # a final assistant continued (its parts spent: nothing to continue)
    for pkey, path in PATHS.items():
        out[f"mistral-v3_{pkey}_task_list_continue"] = (path, {
            "model": "mistral-v3", "continue_final_message": True, "add_generation_prompt": False,
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": list(PARTS), "task": []}]})
    return out


def main() -> None:
    url_record.record_urls(GROUP, lambda _: cases(), ["mistral-v3"])


if __name__ == "__main__":
    main()
