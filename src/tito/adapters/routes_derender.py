"""Derender routes: translate HTTP to the derender service and back, nothing more.

Each body is vLLM's union resolved by ``stream`` (batch when absent or false, one streamed chunk
when true). Responses are plain JSON, never SSE: streaming is one call per engine chunk. The Lambda
derender functions serve the same entry points through :class:`tito.adapters.asgi.DerenderApp`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from tito.protocol import DerenderChatBody, DerenderCompletionBody
from tito.service import derender

chat_router = APIRouter()
completions_router = APIRouter()


@chat_router.post("/v1/chat/completions/derender")
async def chat_derender(body: DerenderChatBody) -> dict[str, Any]:
    """Chat derender: a whole generate response (batch) or one engine chunk (stream)."""
    return derender.handle_chat(body)


@completions_router.post("/v1/completions/derender")
async def completions_derender(body: DerenderCompletionBody) -> dict[str, Any]:
    """Completions derender: generate responses, one per prompt (batch) or one chunk (stream)."""
    return derender.handle_completions(body)
