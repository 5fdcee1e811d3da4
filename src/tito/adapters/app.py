"""The FastAPI app: routes translate I/O, error handlers give vLLM's error shape.

Why a factory with endpoint names: each Lambda function serves one endpoint and should build only
its own routes (smaller app, faster cold start), while ``tito serve`` builds them all. Every error,
whatever raised it, leaves as ``{"error": {"message", "type", "param", "code"}}``:

- ``tito.errors.TitoError`` -> its status (400/404/501);
- body validation (pydantic) -> 400 ``"Bad Request"`` with ``param`` naming the field, as vLLM;
  a request validator's own rule (``tito.errors.InvalidField``, vLLM's ``VLLMValidationError``)
  -> 400 ``"BadRequestError"`` with the validator's message and ``param``;
- a non-JSON content type or a body that is not a JSON object -> 400;
- anything unexpected -> 500 in the same shape, logged with its traceback and reported to the
  ``on_unhandled`` hooks (the Lambda handlers count it as a metric; Mangum would otherwise hide it).

Example::

    app = create_app(endpoints=["chat_derender"])
"""

from __future__ import annotations

import importlib
import logging
import warnings
from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tito import __version__
from tito.adapters.asgi import JsonAnswer, read_json_body, report_unhandled
from tito.adapters.asgi import lone_surrogate_path as lone_surrogate_path  # re-exported
from tito.adapters.asgi import on_unhandled as on_unhandled  # re-exported: the hooks' one list
from tito.adapters.validation import validation_message, validation_param, validator_error
from tito.errors import ErrorType, TitoError, error_body
from tito.settings import check_environment

# FastAPI validates a body named ``request`` with ``TypeAdapter(Annotated[Model, Field(alias=
# "request")])`` and silences pydantic's warning that such an alias has no effect there, while it
# makes the validator. The wire models build their schemas on first use (tito.protocol.common.
# WireModel), and that validator with them: on the first request or OpenAPI document, outside
# FastAPI's silencing. The same warning, and only it, stays silent (pyproject.toml: for pytest).
warnings.filterwarnings("ignore", message="The 'alias' attribute with value ",
                        category=UserWarning, module="pydantic")

logger = logging.getLogger("tito")

#: endpoint name -> (module, router attribute). Modules are imported lazily so a function that
#: serves one endpoint never imports the others' code.
ENDPOINTS: dict[str, tuple[str, str]] = {
    "chat_derender": ("tito.adapters.routes_derender", "chat_router"),
    "completions_derender": ("tito.adapters.routes_derender", "completions_router"),
    "chat_render": ("tito.adapters.routes_render", "chat_router"),
    "completions_render": ("tito.adapters.routes_render", "completions_router"),
    "messages_render": ("tito.adapters.routes_messages", "router"),
    "tokenize": ("tito.adapters.routes_tokenize", "router"),
    "responses_render": ("tito.adapters.routes_responses", "render_router"),
    "responses_derender": ("tito.adapters.routes_responses", "derender_router"),
}

def error_response(message: str, *, type_: str, code: int, param: str | None = None) -> JSONResponse:
    """An error body as a JSON response with ``code`` as its status."""
    return JSONResponse(error_body(message, type_=type_, code=code, param=param), status_code=code)


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TitoError)
    async def _tito(_: Request, exc: TitoError) -> JSONResponse:
        return error_response(exc.message, type_=exc.type, code=exc.status, param=exc.param)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        rule = validator_error(errors)
        if rule is not None:  # vLLM: BadRequestError with the validator's message and param
            return error_response(str(rule), type_=ErrorType.BAD_REQUEST, code=400,
                                  param=rule.param)
        return error_response(
            validation_message(errors), type_=ErrorType.VALIDATION, code=400,
            param=validation_param(errors),
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        try:  # vLLM names HTTP-layer errors by their status phrase
            phrase = HTTPStatus(exc.status_code).phrase
        except ValueError:
            phrase = "Error"
        return error_response(str(exc.detail), type_=phrase, code=exc.status_code)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        report_unhandled(exc, on_unhandled)
        return error_response(
            "Internal server error.", type_=ErrorType.INTERNAL, code=500
        )


class JsonBodyGuard:
    """ASGI middleware: the JSON body guard of :func:`tito.adapters.asgi.read_json_body` (size,
    content type, JSON object, no lone surrogates) before routing. Plain ASGI rather than
    ``@app.middleware``: it runs on every call, so it must cost next to nothing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = await read_json_body(scope, receive)
        if body is None:
            return
        if isinstance(body, JsonAnswer):
            await body(scope, receive, send)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def common_router() -> APIRouter:
    """``GET /health``, ``GET /version`` and ``GET /v1/models``: served by every function."""
    router = APIRouter()

    @router.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @router.get("/version")
    async def version() -> dict[str, str]:
        from tito.protocol import VersionResponse

        return VersionResponse(version=__version__).model_dump()

    @router.get("/v1/models")
    async def models() -> dict[str, Any]:
        from tito.models import get_registry

        return get_registry().list_models()

    return router


def _error_responses() -> dict[int | str, dict[str, Any]]:
    """What every POST operation may answer besides 200, as the OpenAPI document says it."""
    from tito.protocol import ErrorResponse

    return {
        400: {"model": ErrorResponse,
              "description": "Invalid body, field, stream state or engine payload (`param` names it)"},
        404: {"model": ErrorResponse, "description": "Unknown model"},
        413: {"model": ErrorResponse, "description": "Body larger than TITO_MAX_BODY_BYTES"},
    }


def _document_real_responses(app: FastAPI) -> None:
    """Drop FastAPI's automatic 422 (this app answers validation errors with 400) from the
    OpenAPI document, so that schema-driven clients and fuzzers expect what the API does."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = generate()
            for item in doc.get("paths", {}).values():
                for operation in item.values():
                    operation.get("responses", {}).pop("422", None)
            schemas = doc.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                schemas.pop(name, None)
        return app.openapi_schema  # type: ignore[return-value]  # set by generate()

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(*, endpoints: Iterable[str] | None = None) -> FastAPI:
    """Build the app serving ``endpoints`` (names of :data:`ENDPOINTS`; None: all of them)."""
    check_environment()  # refuse to start on a bad TITO_* setting (tito.settings)
    names = list(ENDPOINTS) if endpoints is None else list(endpoints)
    unknown = [n for n in names if n not in ENDPOINTS]
    if unknown:
        raise ValueError(f"unknown endpoints {unknown}; known: {sorted(ENDPOINTS)}")
    app = FastAPI(
        title="tito",
        version=__version__,
        description="Token in, token out: stateless render and derender (vLLM scale-out wire).",
    )
    _install_error_handlers(app)
    app.add_middleware(JsonBodyGuard)
    app.include_router(common_router())
    responses = _error_responses()
    for module_name, attr in dict.fromkeys(ENDPOINTS[n] for n in names):
        app.include_router(getattr(importlib.import_module(module_name), attr), responses=responses)
    _document_real_responses(app)
    return app
