"""Derender routes: translate HTTP to the derender service and back, nothing more.

Each body is vLLM's union resolved by ``stream`` (batch when absent or false, one streamed chunk
when true). Responses are plain JSON, never SSE: streaming is one call per engine chunk. The Lambda
derender functions serve the same entry points through :class:`tito.adapters.asgi.DerenderApp`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from tito.adapters.splice import dump_json
from tito.protocol import DerenderChatBody, DerenderCompletionBody
from tito.service import derender

chat_router = APIRouter()
completions_router = APIRouter()


@chat_router.post("/v1/chat/completions/derender", response_model=dict[str, Any])
async def chat_derender(body: DerenderChatBody) -> Response:
    """Chat derender: a whole generate response (batch) or one engine chunk (stream)."""
    # dump_json writes the bytes JSONResponse would, splicing in the logprob entries' JSON text
    return Response(dump_json(derender.handle_chat(body)), media_type="application/json")


@completions_router.post("/v1/completions/derender", response_model=dict[str, Any])
async def completions_derender(body: DerenderCompletionBody) -> Response:
    """Completions derender: generate responses, one per prompt (batch) or one chunk (stream)."""
    return Response(dump_json(derender.handle_completions(body)), media_type="application/json")
