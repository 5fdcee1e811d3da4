"""Record ``render_fuzz_lazy_calls.json``: DeepSeek-V4.1 assistant messages with ``tool_calls``,
on ``/tokenize`` and the chat render, named ``.lazy_copy`` where vLLM answers its pickle 400.

Why: vLLM's DeepSeek-V4.1 encoder deep-copies the request's messages, which fails ("cannot
pickle 'pydantic_core._pydantic_core.ValidatorIterator' object") when the body left an
assistant's calls an unread iterable: on ``/tokenize`` (its body does not list them) exactly
when pydantic's union types the message as OpenAI's (``message_union.custom_typed`` false: its
calls count in vLLM's own type only, five fields a call, so ``tool_calls: []`` beside an
unknown key still ties to OpenAI's). tito tokenizes what the chat render renders (the kept
``lazy_copy`` deviation); ``fuzz_render_labels`` keyed the label on the message's keys, which
missed s433-111 (``tool_calls: []`` and an unknown key: vLLM's 400) and labelled messages vLLM
renders (one call). ``tests/test_fuzz_render_draw.py`` checks the label against these answers.
Needs a running dsv41 render server (record.py's flags)::

    /work/vllm-venv/bin/python conformance/record_lazy_calls.py --url dsv41=http://127.0.0.1:8441
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import url_record  # noqa: E402

GROUP = "render_fuzz_lazy_calls"
PATHS = {"tokenize": "/tokenize", "chat": "/v1/chat/completions/render"}
USERS = {"ustr": {"role": "user", "content": "hi"},
         "uparts": {"role": "user", "content": [{"type": "text", "text": "hi"},
                                                {"type": "text", "text": ""}]}}
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CALLS = {"none": [], "one": [CALL]}
#: the assistant's other keys (beside role and tool_calls)
EXTRAS: dict[str, dict] = {
    "content": {"content": "x"},
    "unknown": {"content": "x", "extra_unknown_field": 1},
    "unknown2": {"content": "x", "foo": 1, "bar": 2},
    "name": {"content": "x", "name": "n"},
    "reasoning": {"content": "x", "reasoning": "r"},
    "reasoning_content": {"content": "x", "reasoning_content": "r"},
    "no_content": {},
    "null_content": {"content": None},
    "parts": {"content": [{"type": "text", "text": "x"}]},
}
PICKLE = "cannot pickle"


def cases() -> dict[str, tuple[str, dict]]:
    """name (without its label) -> (path, body)"""
    out = {}
    for pkey, path in PATHS.items():
        for ukey, user in USERS.items():
            for ekey, extra in EXTRAS.items():
                for ckey, calls in CALLS.items():
                    assistant = {"role": "assistant", **extra, "tool_calls": calls}
                    out[f"dsv41_{pkey}_{ukey}_{ekey}_{ckey}"] = (path, {
                        "model": "dsv41", "messages": [user, assistant]})
    return out


def main() -> None:
    def label(name: str, status: int, resp: object) -> str:
        # (vLLM's answer names it, not tito's labeller)
        return name + ".lazy_copy" if status == 400 and PICKLE in json.dumps(resp) else name

    out = url_record.record_urls(GROUP, lambda _: cases(), ["dsv41"], label)
    print(f"{sum('.lazy_copy' in n for n in out)} lazy_copy")


if __name__ == "__main__":
    main()
