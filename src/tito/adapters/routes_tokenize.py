"""``POST /tokenize`` and ``POST /detokenize`` (vLLM's shapes); the work is in
:mod:`tito.service.tokenize`. ``async def`` although tokenizing is CPU work: a worker-thread hop
costs more than it saves (see :mod:`tito.adapters.routes_render`)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from tito.protocol import DetokenizeRequest, TokenizeChatRequest, TokenizeCompletionRequest
from tito.service.tokenize import detokenize, tokenize

__all__ = ["router"]

router = APIRouter(tags=["tokenize"])


@router.post("/tokenize", response_model=None)
async def tokenize_route(request: TokenizeCompletionRequest | TokenizeChatRequest) -> JSONResponse:
    """Token ids of ``prompt``, or of ``messages`` through the chat template."""
    return JSONResponse(tokenize(request).model_dump(mode="json"))


@router.post("/detokenize", response_model=None)
async def detokenize_route(request: DetokenizeRequest) -> JSONResponse:
    """The text of ``tokens`` (special tokens kept)."""
    return JSONResponse(detokenize(request).model_dump(mode="json"))
