"""``POST /tokenize`` and ``POST /detokenize`` (vLLM's shapes); the work is in
:mod:`tito.service.tokenize`. Plain ``def``: tokenizing is CPU work, run in the thread pool."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from tito.protocol import DetokenizeRequest, TokenizeChatRequest, TokenizeCompletionRequest
from tito.service.tokenize import detokenize, tokenize

__all__ = ["router"]

router = APIRouter(tags=["tokenize"])


@router.post("/tokenize", response_model=None)
def tokenize_route(request: TokenizeCompletionRequest | TokenizeChatRequest) -> JSONResponse:
    """Token ids of ``prompt``, or of ``messages`` through the chat template."""
    return JSONResponse(tokenize(request).model_dump(mode="json"))


@router.post("/detokenize", response_model=None)
def detokenize_route(request: DetokenizeRequest) -> JSONResponse:
    """The text of ``tokens`` (special tokens kept)."""
    return JSONResponse(detokenize(request).model_dump(mode="json"))
