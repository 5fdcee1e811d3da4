"""Messages route: ``POST /v1/messages/render`` (an Anthropic Messages request -> one
``GenerateRequest``, vLLM 0.33's fourth render route).

Why a module of its own: each Lambda function imports only its own routes, so the chat render
function never loads the Anthropic models. As the other routes, it only translates I/O and leaves
every decision to :mod:`tito.service.messages`. There is no Messages derender (vLLM has none):
the rendered request is a chat one, derendered by ``/v1/chat/completions/derender``.
"""

from __future__ import annotations

from fastapi import APIRouter, Header
from fastapi.responses import Response

from tito.adapters.routes_render import _answer
from tito.protocol.anthropic import AnthropicMessagesRequest
from tito.service.messages import render_messages_request

__all__ = ["router"]

router = APIRouter(tags=["render"])


@router.post("/v1/messages/render", response_model=None)
async def messages_render(
    request: AnthropicMessagesRequest,
    x_request_id: str | None = Header(default=None),
) -> Response:
    """Render an Anthropic Messages request into one ``GenerateRequest``: the chat render of the
    chat request vLLM converts it to (``X-Request-Id`` wins over the generated id, as chat)."""
    generate = render_messages_request(request, header_request_id=x_request_id)
    return _answer(generate.to_wire())
