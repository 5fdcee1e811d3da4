"""Render for harmony models (gpt-oss): which models, and a chat request -> prompt ids.

Why a service module: the core builds and encodes the conversation from plain data
(:mod:`tito.core.harmony`); this module picks the request fields vLLM uses for it and the day
(``TITO_HARMONY_START_DATE`` pins it, as ``VLLM_SYSTEM_START_DATE`` does in vLLM; else today).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tito.core.parsers import is_harmony
from tito.models.config import mapped_effort

if TYPE_CHECKING:
    from tito.models import ServedModel
    from tito.protocol import ChatCompletionRequest


def is_harmony_model(model: ServedModel) -> bool:
    """A model whose chat turns are harmony: its tito.json names vLLM's gpt-oss parsers."""
    return is_harmony(model.config.tool_parser, model.config.reasoning_parser)


def harmony_prompt_ids(
    model: ServedModel,
    request: ChatCompletionRequest,
    tools: list[dict[str, Any]] | None,
    start_date: str | None,
    items: bool = False,
    previous: Sequence[Mapping[str, Any]] | None = None,
) -> list[int]:
    """The prompt vLLM 0.33 renders for ``request`` on gpt-oss (``tools``: as vLLM includes
    them, None when absent or excluded; ``items``: the request stands for a Responses one;
    ``previous``: that one's ``previous_input_messages``)."""
    from tito.core.harmony import build_conversation, render_for_completion  # gpt-oss only
    from tito.core.harmony.previous import previous_messages

    day = start_date or datetime.date.today().strftime("%Y-%m-%d")
    conversation = build_conversation(
        request.messages, tools=tools, start_date=day,
        reasoning_effort=mapped_effort(request.reasoning_effort, model.config.reasoning_effort_map),
        items=items, previous=previous_messages(previous),
    )
    return render_for_completion(model.vocab, conversation)
