"""Record ``render_mistral_untyped_parts.json``: mistral-v3 (mistral-common) chat renders and
``/tokenize`` of conversations with a part vLLM cannot type (a ``uuid`` beside ``type: text``;
once before an unknown part type), in every position; and (``lazy_*``, ``custom_*``, session
53) a part without ``type`` or of a type vLLM's message type does not take: in a message left
to its role's OpenAI type, pydantic's lazy part error (param null); in a message of vLLM's
custom type, its part parser's "Missing 'type'" or "Unsupported chat content part type" 400
(param ``type``); a media part in an earlier message first. tito left these to
mistral-common, whose 400 named ``messages`` (and for ``{"type": "image_url"}`` without its
url answered the text-only model's 400).

Why: vLLM 0.33 parses every message's parts (``parse_chat_messages``) before the mistral
tokenizer sees them, so such a part is its "Missing 'type' field in multimodal part." 400
(param ``type``) wherever it is; tito's text-only check for mistral-common models
(``render_parts.check_text_only``) stopped quietly there and mistral-common took the part as
text (fuzz_render s420-125: a 200, or mistral-common's own 400 when the part's message was the
last assistant turn). Needs a running mistral-v3 render server (record.py's flags)::

    /work/vllm-venv/bin/python conformance/record_mistral_untyped.py \\
        --url mistral-v3=http://127.0.0.1:8441
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import url_record  # noqa: E402

GROUP = "render_mistral_untyped_parts"
PATHS = {"tokenize": "/tokenize", "chat": "/v1/chat/completions/render"}
UUID = {"type": "text", "text": "u", "uuid": "u"}
BOGUS = {"type": "bogus", "text": "b"}
TEXT = {"type": "text", "text": "t"}
UNTYPED = {"text": "u"}
IMAGE = {"type": "image_url", "image_url": {"url": "http://x/a.png"}}


def _u(*parts: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(parts) if parts else "hi"}


def _a(*parts: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(parts) if parts else "ok"}


CONVERSATIONS: dict[str, list[dict[str, Any]]] = {
    "assistant_mid": [_u(), _a(TEXT, UUID), _u()],
    "assistant_mid_named": [_u(), {**_a(UUID), "name": "bob"}, _a(), _u()],
    "assistant_last": [_u(), _a(UUID)],
    "user_first": [_u(UUID), _a(), _u()],
    "user_last": [_u(), _a(), _u(TEXT, UUID)],
    "system": [{"role": "system", "content": [UUID]}, _u()],
    "uuid_then_bogus": [_u(UUID), _a(BOGUS), _u()],
    "uuid_image": [_u({"type": "text", "uuid": "u", "image_url": {"url": "http://x/a.png"}})],
    "plain": [_u(TEXT), _a(TEXT), _u()],
    # session 53: a part with no type, or one the message's type does not take
    "lazy_untyped": [_u(UNTYPED)],
    "lazy_untyped_then_image": [_u(UNTYPED), _u(IMAGE)],
    "lazy_image_then_untyped": [_u(IMAGE), _u(UNTYPED)],
    "lazy_untyped_assistant_mid": [_u(), _a(UNTYPED), _u()],
    "lazy_untyped_tool": [{"role": "tool", "tool_call_id": "abc123abc", "content": [UNTYPED]}],
    "lazy_untyped_system": [{"role": "system", "content": [UNTYPED]}, _u()],
    "lazy_empty_part": [_u({})],
    "lazy_bogus": [_u(BOGUS)],
    "lazy_input_text": [_u({"type": "input_text", "text": "a"})],
    "lazy_text_number": [_u({"type": "text", "text": 5})],
    "lazy_image_no_url": [_u({"type": "image_url"})],
    "lazy_bare_strings": [{"role": "developer", "content": ["a", "b"]}],
    "custom_untyped_after_text": [_u(TEXT, UNTYPED)],
    "custom_untyped_reasoning": [{**_u(UNTYPED), "reasoning": "r"}],
    "custom_bogus_reasoning": [{**_u(BOGUS), "reasoning": "r"}],
    "custom_untyped_then_uuid": [_u(UNTYPED, UUID)],
}


def cases() -> dict[str, tuple[str, dict[str, Any]]]:
    return {f"mistral-v3_{pkey}_{ckey}": (path, {"model": "mistral-v3", "messages": msgs})
            for pkey, path in PATHS.items() for ckey, msgs in CONVERSATIONS.items()}


def main() -> None:
    url_record.record_urls(GROUP, lambda _: cases(), ["mistral-v3"])


if __name__ == "__main__":
    main()
