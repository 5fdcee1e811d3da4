"""What the client says to the stages: their paths, SSE framing, and failures as OpenAI errors.

Why one module: the gateway and replay speak the same paths and write the same bytes
(:func:`sse_event`), and every stage failure reaches the user as one exception type
(:class:`TitoClientError`) carrying the body to send.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeAlias

import httpx

from tito.errors import ErrorType, error_body

Endpoint = Literal["chat", "completions"]
#: A stage: a base URL, an in-process ASGI app, or a ready ``httpx.AsyncClient``.
Target: TypeAlias = str | httpx.AsyncClient | Callable[..., Any]

GENERATE_PATH = "/inference/v1/generate"
ABORT_PATH = "/inference/v1/abort_requests"
RENDER_PATHS: dict[Endpoint, str] = {
    "chat": "/v1/chat/completions/render",
    "completions": "/v1/completions/render",
}
DERENDER_PATHS: dict[Endpoint, str] = {
    "chat": "/v1/chat/completions/derender",
    "completions": "/v1/completions/derender",
}
RESPONSES_RENDER_PATH = "/v1/responses/render"
RESPONSES_DERENDER_PATH = "/v1/responses/derender"
#: The line that ends every OpenAI (and generate) SSE stream.
SSE_DONE = b"data: [DONE]\n\n"
#: Default bound on engine events per derender call (a request-size bound, not a latency one).
DEFAULT_CHUNKS_PER_CALL = 32


class TitoClientError(Exception):
    """A stage answered with an error (or could not be reached).

    ``status`` is the HTTP status to pass on, ``body`` the OpenAI-shaped error body (the stage's
    own when it sent one), ``stage`` one of ``render``, ``generate``, ``derender``, ``abort``.
    """

    def __init__(self, stage: str, status: int, body: dict[str, Any]) -> None:
        self.stage = stage
        self.status = status
        self.body = body
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
        super().__init__(f"{stage} failed ({status}): {message or body}")


def sse_event(obj: Mapping[str, Any]) -> bytes:
    """One SSE ``data:`` event, serialized the one way tito does (compact, UTF-8, keys in order).

    The gateway and replay both write with this, which is what makes a replay byte-identical.
    """
    return b"data: " + json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def _error_from_response(stage: str, status: int, content: bytes) -> TitoClientError:
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if not (isinstance(body, dict) and isinstance(body.get("error"), dict)):
        text = content.decode("utf-8", "replace")[:500] or f"HTTP {status}"
        body = error_body(f"{stage}: {text}", type_=_type_for(status), code=status)
    return TitoClientError(stage, status, body)


def _type_for(status: int) -> str:
    return {400: "BadRequestError", 404: "NotFoundError", 422: "UnprocessableEntityError",
            501: "NotImplementedError", 502: "BadGatewayError"}.get(
        status, "InternalServerError" if status >= 500 else "BadRequestError")


def engine_error_body(event: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI error body for an engine ``{"error": ...}`` stream event."""
    err = event.get("error")
    if isinstance(err, dict):
        return {"error": {"message": str(err.get("message", "engine error")),
                          "type": str(err.get("type", "InternalServerError")),
                          "param": err.get("param"), "code": int(err.get("code") or 500)}}
    return error_body(f"engine error: {err}", type_=ErrorType.INTERNAL, code=500)
