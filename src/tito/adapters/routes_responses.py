"""Responses routes: ``POST /v1/responses/render`` and ``POST /v1/responses/derender``.

Why a module of its own: each Lambda function imports only its own routes (the Responses render
function this one; the derender function serves the plain ASGI app of
:mod:`tito.adapters.asgi` instead, as the other derender functions). As the other routes, these only translate I/O and
leave every decision to :mod:`tito.service.responses` / :mod:`tito.service.responses_derender`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from tito.adapters.routes_render import _answer
from tito.protocol import DerenderResponsesBody, ResponsesRequest
from tito.service.responses_render import render_responses_request
from tito.service.responses_derender import handle_responses

__all__ = ["derender_router", "render_router", "router"]

render_router = APIRouter(tags=["render"])
derender_router = APIRouter(tags=["derender"])


@render_router.post("/v1/responses/render", response_model=None)
async def responses_render(request: ResponsesRequest) -> Response:
    """Render an OpenAI Responses request into one ``GenerateRequest`` (vLLM ignores
    ``X-Request-Id`` here: the id is the request's ``request_id``, ``resp_<hex>`` by default)."""
    return _answer(render_responses_request(request).to_wire())


@derender_router.post("/v1/responses/derender")
async def responses_derender(body: DerenderResponsesBody) -> dict[str, Any]:
    """A whole generate response -> ``Response`` (batch), or one engine chunk and the carried
    ``stream_state`` -> ``{events, stream_state}`` (stream)."""
    return handle_responses(body)


router = APIRouter()
router.include_router(render_router)
router.include_router(derender_router)
