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
import json
import logging
import os
import re
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tito import __version__
from tito.errors import ErrorType, InvalidField, TitoError, error_body, quote
from tito.settings import check_environment

logger = logging.getLogger("tito")

#: endpoint name -> (module, router attribute). Modules are imported lazily so a function that
#: serves one endpoint never imports the others' code.
ENDPOINTS: dict[str, tuple[str, str]] = {
    "chat_derender": ("tito.adapters.routes_derender", "chat_router"),
    "completions_derender": ("tito.adapters.routes_derender", "completions_router"),
    "chat_render": ("tito.adapters.routes_render", "chat_router"),
    "completions_render": ("tito.adapters.routes_render", "completions_router"),
    "tokenize": ("tito.adapters.routes_tokenize", "router"),
    "responses_render": ("tito.adapters.routes_responses", "render_router"),
}

#: Called with the exception for every unexpected error (500). The Lambda handlers add a metric.
on_unhandled: list[Callable[[BaseException], None]] = []

_MAX_ERRORS = 10


def error_response(message: str, *, type_: str, code: int, param: str | None = None) -> JSONResponse:
    """An error body as a JSON response with ``code`` as its status."""
    return JSONResponse(error_body(message, type_=type_, code=code, param=param), status_code=code)


#: pydantic-core's wrapper / union-branch markers: not field names (vLLM's list)
_INTERNAL_LOC = frozenset({
    "function-wrap", "function-after", "function-before", "function-plain", "json-or-python",
    "lax-or-strict", "chain", "default", "nullable", "tagged-union", "union", "call",
    "arguments", "is-instance", "is-subclass", "callable", "str", "int", "float", "bool",
    "bytes", "bytearray", "list", "tuple", "dict", "set", "frozenset", "complex", "none",
    "nonetype",
})
_UNION_MEMBERS = frozenset({"DerenderChatRequest", "DerenderChatStreamRequest",
                            "DerenderCompletionRequest", "DerenderCompletionStreamRequest"})


def _loc_to_param(loc: Iterable[Any]) -> str | None:
    """Dotted location without pydantic's union/tag segments (``body.generate_response.choices.0``)."""
    parts: list[str] = []
    for seg in loc:
        s = str(seg)
        if isinstance(seg, str) and (
            any(c in s for c in "[](){}") or s.lower() in _INTERNAL_LOC or s in _UNION_MEMBERS
        ):
            continue
        parts.append(s)
    return ".".join(parts) or None


def _validator_error(errors: list[dict[str, Any]]) -> InvalidField | None:
    """The first error raised by a request validator naming its field (vLLM's
    ``VLLMValidationError``): such errors are reported as themselves, not as schema errors."""
    for err in errors:
        found = (err.get("ctx") or {}).get("error")
        if isinstance(found, InvalidField):
            return found
    return None


def _validation_message(errors: list[dict[str, Any]]) -> str:
    shown = errors[:_MAX_ERRORS]
    lines = []
    for err in shown:
        loc = _loc_to_param(err.get("loc", ())) or ""
        text = f"{loc}: {err.get('msg', '')}"
        if "input" in err and err.get("type") != "missing":
            text += f" (input: {repr(err['input'])[:200]})"
        lines.append("  " + text[:1000])
    n = len(errors)
    head = f"{n} validation error{'s' if n != 1 else ''}:"
    return "\n".join([head, *lines])


def _param_of(errors: list[dict[str, Any]]) -> str | None:
    if not errors:
        return None
    ctx = errors[0].get("ctx") or {}
    param = getattr(ctx.get("error"), "param", None)
    if isinstance(param, str) and param:
        return param
    return _loc_to_param(errors[0].get("loc", ()))


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TitoError)
    async def _tito(_: Request, exc: TitoError) -> JSONResponse:
        return error_response(exc.message, type_=exc.type, code=exc.status, param=exc.param)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        rule = _validator_error(errors)
        if rule is not None:  # vLLM: BadRequestError with the validator's message and param
            return error_response(str(rule), type_=ErrorType.BAD_REQUEST, code=400,
                                  param=rule.param)
        return error_response(
            _validation_message(errors), type_=ErrorType.VALIDATION, code=400, param=_param_of(errors)
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
        logger.exception("unhandled error: %s", type(exc).__name__)
        for hook in on_unhandled:
            try:
                hook(exc)
            except Exception:  # a broken hook must not turn a 500 into a crash
                logger.exception("on_unhandled hook failed")
        return error_response(
            "Internal server error.", type_=ErrorType.INTERNAL, code=500
        )


#: Largest accepted request body. Lambda caps a synchronous payload at 6 MB anyway; this bounds
#: ``tito serve`` the same way (override with ``TITO_MAX_BODY_BYTES``).
DEFAULT_MAX_BODY_BYTES = 6 * 1024 * 1024


def _max_body_bytes() -> int:
    try:
        return int(os.environ.get("TITO_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES))
    except ValueError:
        return DEFAULT_MAX_BODY_BYTES


def _too_large(limit: int) -> JSONResponse:
    return error_response(
        f"Request body too large: at most {limit} bytes are accepted (TITO_MAX_BODY_BYTES).",
        type_=ErrorType.TOO_LARGE,
        code=413,
    )


#: A ``\\uD800``-``\\uDFFF`` escape: the only way a JSON text can smuggle a lone surrogate into a
#: Python string (raw surrogate bytes are invalid UTF-8 and fail decoding). A match may still be a
#: valid pair or an escaped backslash; :func:`lone_surrogate_path` decides.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_path(body: bytes) -> str | None:
    """The dotted path of the first JSON string (value or key) holding a lone UTF-16 surrogate.

    Why at the edge: such a string cannot be encoded as UTF-8, so it breaks the tokenizer, the
    response's serialisation and even a log line quoting it. One C regex scan per body; the JSON
    is decoded again (and walked) only when a surrogate escape is present.
    """
    if not _SURROGATE_ESCAPE.search(body):
        return None
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the route's own parser reports it
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if _LONE_SURROGATE.search(value):
                return path or "body"
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                here = f"{path}.{key}" if path else str(key)
                if _LONE_SURROGATE.search(key):
                    return path or "body"
                stack.append((here, item))
        elif isinstance(value, list):
            stack.extend((f"{path}.{i}" if path else str(i), v) for i, v in reversed(list(enumerate(value))))
    return None


class JsonBodyGuard:
    """ASGI middleware: reject oversized bodies, non-JSON content types and non-object JSON
    bodies before routing (vLLM does the last two). Plain ASGI rather than
    ``@app.middleware``: it runs on every derender chunk, so it must cost next to nothing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        limit = _max_body_bytes()
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _too_large(limit)(scope, receive, send)
            return
        mime = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if mime != "application/json":
            await error_response(
                "1 validation error:\n  Unsupported Media Type: Only 'application/json' is allowed",
                type_=ErrorType.VALIDATION,
                code=400,
            )(scope, receive, send)
            return
        parts: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _too_large(limit)(scope, receive, send)
                return
            parts.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(parts)
        if not body.lstrip().startswith(b"{"):
            await error_response(
                "The request body must be a JSON object.", type_=ErrorType.VALIDATION, code=400
            )(scope, receive, send)
            return
        bad = lone_surrogate_path(body)
        if bad is not None:
            await error_response(
                f"{quote(bad)} contains a lone UTF-16 surrogate escape (\\ud800-\\udfff), "
                "which is not valid Unicode text.",
                type_=ErrorType.BAD_REQUEST, code=400, param=bad,
            )(scope, receive, send)
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
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @router.get("/version")
    def version() -> dict[str, str]:
        from tito.protocol import VersionResponse

        return VersionResponse(version=__version__).model_dump()

    @router.get("/v1/models")
    def models() -> dict[str, Any]:
        from tito.models import get_registry

        return get_registry().list_models()

    return router


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
    for module_name, attr in dict.fromkeys(ENDPOINTS[n] for n in names):
        app.include_router(getattr(importlib.import_module(module_name), attr))
    return app
