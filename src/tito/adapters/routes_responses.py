"""Responses routes: ``POST /v1/responses/render`` and ``POST /v1/responses/derender``.

Why a module of its own: each Lambda function imports only its own routes, and the Responses
endpoints are two functions of their own. As the other routes, these only translate I/O and
leave every decision to :mod:`tito.service.responses` / :mod:`tito.service.responses_derender`.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from tito.protocol import ResponsesRequest
from tito.service.responses import render_responses_request

__all__ = ["render_router", "router"]

render_router = APIRouter(tags=["render"])


@render_router.post("/v1/responses/render", response_model=None)
def responses_render(request: ResponsesRequest) -> JSONResponse:
    """Render an OpenAI Responses request into one ``GenerateRequest`` (vLLM ignores
    ``X-Request-Id`` here: the id is the request's ``request_id``, ``resp_<hex>`` by default)."""
    return JSONResponse(render_responses_request(request).model_dump(mode="json"))


router = APIRouter()
router.include_router(render_router)
