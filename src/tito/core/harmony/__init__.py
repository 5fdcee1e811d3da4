"""gpt-oss's harmony format: conversation building and prompt rendering (sans-I/O).

``build_conversation`` turns OpenAI chat message dicts into harmony messages as vLLM 0.33 does;
``render_for_completion`` turns them into prompt ids as openai-harmony does. The output side
(derender) is :mod:`tito.core.parsers.harmony`. Example::

    msgs = build_conversation([{"role": "user", "content": "Hi"}], start_date="2026-12-01")
    ids = render_for_completion(vocab, msgs)   # ends with <|start|>assistant
"""

from __future__ import annotations

from tito.core.harmony.conversation import (
    REASONING_EFFORTS,
    DeveloperContent,
    Message,
    SystemContent,
    ToolDescription,
    build_conversation,
    drop_old_analysis,
    flatten_text,
    lazy_content_dumped,
)
from tito.core.harmony.encode import encode_ordinary, harmony_tokens, render_for_completion

__all__ = [
    "REASONING_EFFORTS",
    "DeveloperContent",
    "Message",
    "SystemContent",
    "ToolDescription",
    "build_conversation",
    "drop_old_analysis",
    "encode_ordinary",
    "flatten_text",
    "harmony_tokens",
    "lazy_content_dumped",
    "render_for_completion",
]
