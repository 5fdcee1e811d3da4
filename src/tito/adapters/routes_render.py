"""Render routes: ``POST /v1/chat/completions/render`` and ``POST /v1/completions/render``.

Why so thin: the routes only translate I/O (validated body in, JSON out) and leave every
decision to :mod:`tito.service.render`; errors are ``tito.errors`` exceptions that the app turns
into vLLM's error shape. Handlers are ``async def`` although rendering is CPU work: a plain
``def`` would hop to a worker thread, which costs more than a short render (in Lambda, Mangum
runs every invocation on a fresh event loop, so the hop starts a new thread per request), and
gains nothing (one request at a time in Lambda; in ``tito serve`` the GIL serialises the Python
work anyway, and a render is bounded by the template limits).

``router`` serves both paths; ``chat_router`` and ``completions_router`` serve one each (for a
Lambda function that handles a single endpoint).
"""

from __future__ import annotations

from fastapi import APIRouter, Header
from fastapi.responses import Response

from tito.adapters.splice import dump_json
from tito.protocol import ChatCompletionRequest, CompletionRequest
from tito.service.render import render_chat_request, render_completion_request

__all__ = ["chat_router", "completions_router", "router"]

chat_router = APIRouter(tags=["render"])
completions_router = APIRouter(tags=["render"])


@chat_router.post("/v1/chat/completions/render", response_model=None)
async def chat_completions_render(
    request: ChatCompletionRequest,
    x_request_id: str | None = Header(default=None),
) -> Response:
    """Render an OpenAI chat request into one ``GenerateRequest`` for ``/inference/v1/generate``."""
    generate = render_chat_request(request, header_request_id=x_request_id)
    return _answer(generate.to_wire())


@completions_router.post("/v1/completions/render", response_model=None)
async def completions_render(
    request: CompletionRequest,
    x_request_id: str | None = Header(default=None),
) -> Response:
    """Render an OpenAI completions request into one ``GenerateRequest`` per prompt."""
    generates = render_completion_request(request, header_request_id=x_request_id)
    return _answer([g.to_wire() for g in generates])


def _answer(wire: object) -> Response:
    """An engine request's wire dict written as :class:`tito.adapters.asgi_render.RenderApp`
    writes it (``to_wire`` + ``dump_json``): the same bytes, and no pydantic serializer over the
    free-form fields (tools, kv_transfer_params), whose recursion guard failed a request nested
    a few hundred levels deep with a 500 here while the plain app answered it."""
    return Response(dump_json(wire, checked_floats=True), media_type="application/json")


router = APIRouter()
router.include_router(chat_router)
router.include_router(completions_router)
