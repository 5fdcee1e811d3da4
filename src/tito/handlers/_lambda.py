"""Shared Lambda plumbing: one app per function behind Mangum and Powertools.

Why it looks like this (Lambda's init/invoke lifecycle, Mangum's event translation, Powertools'
logger and EMF metrics):

* **Init phase does the expensive work, once.** :func:`make_handler` runs when Lambda imports the
  handler module. It imports only this function's route modules, builds its app, wraps it in
  Mangum and loads the model registry (tokenizers: 0.2-0.7 s each). Lambda caps init at 10 s and
  bills it; SnapStart would snapshot it; every later invocation reuses it. Sharing is safe because
  render and derender are stateless (the client carries the stream state).
* **``Mangum(app, lifespan="off")``**: with ``auto``/``on`` Mangum runs startup *and shutdown* on
  every invocation. Nothing here needs a lifespan.
* **The plain ASGI apps run eagerly** (the derender and render functions:
  :mod:`tito.handlers._mangum`): Mangum's event translation without its per-call request queue
  or event loop, since those apps never suspend (the usual HTTP API event: without Mangum's
  scope either, ``EagerMangum.plain``); a FastAPI app runs on the handler's own loop.
* **Powertools' logger context in one pass** (:mod:`tito.handlers._powertools`): the keys its
  ``inject_lambda_context`` decorator leaves, set directly unless one of its optional features
  (event logging, sampling, a log buffer) is configured.
* **Unexpected errors are counted, not lost.** Mangum turns every exception into a 500 and the
  invocation still "succeeds", so Lambda's own ``Errors`` metric never moves. The app reports each
  500 to the ``on_unhandled`` hooks of :mod:`tito.adapters.app`; the hook here adds an
  ``UnhandledError`` metric (alarm on it) and logs the error type with the correlation id.
* **Powertools, outermost:** ``Logger.inject_lambda_context`` (JSON logs carrying the API Gateway
  request id as ``correlation_id``, keys reset every invocation) around ``Metrics.log_metrics``
  (one EMF blob per invocation on stdout, plus a ``ColdStart`` blob on the first one). No Tracer:
  it needs the ``[tracer]`` extra, which pulls botocore (30 MB) into every function zip.
* **Cheap per-invocation metrics:** ``Requests`` (and ``ClientErrors`` for 4xx) with one
  ``endpoint`` dimension taken from the path through a fixed table, so the number of metric
  series (CloudWatch bills per series) stays bounded whatever paths clients send.
* **Logs from the rest of tito go through the same JSON formatter**: the stdlib ``tito`` logger
  (``tito.adapters.app``, ``tito.models``...) and ``mangum`` get the Powertools handler, so they
  carry the correlation id too. Mangum's per-request INFO access line is silenced (WARNING and up,
  unless the level is DEBUG) and its second copy of a traceback the app already logged is dropped.

Environment read here (at init): ``POWERTOOLS_SERVICE_NAME`` (default ``tito``),
``POWERTOOLS_METRICS_NAMESPACE`` (default ``Tito``), ``POWERTOOLS_LOG_LEVEL``, and
``TITO_API_BASE_PATH`` (default ``/``): a path prefix to strip, for a named HTTP API stage
(``/dev``) or a custom-domain mapping; the ``$default`` stage needs none.

Example (one module per endpoint, as Lambda's ``Handler`` setting names it)::

    # tito/handlers/chat_derender.py
    from tito.handlers._lambda import make_handler

    handler = make_handler(["chat_derender"])
"""

from __future__ import annotations

import gc
import json
import logging
import os
from collections.abc import Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol, cast

from aws_lambda_powertools.logging import logger as powertools_logger
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers
from aws_lambda_powertools.metrics import MetricUnit
from mangum import Mangum

from tito.adapters import asgi
from tito.adapters.asgi_render import RENDER_ENDPOINTS, RenderApp
from tito.errors import ErrorType, error_body
from tito.handlers._events import event_problem, plain_v2
from tito.handlers._mangum import EagerMangum, HTTPGatewayV2, Loop
from tito.handlers._powertools import (  # re-exported: the process's one logger and metrics
    _emit_metrics,
    _with_log_context,
    correlation_id,
    logger,
    metrics,
)

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from fastapi import FastAPI

__all__ = ["LambdaHandler", "correlation_id", "endpoint_of", "logger", "make_handler", "metrics",
           "powertools_logger"]


#: API path -> value of the ``endpoint`` metric dimension. Anything else is ``other``: a fixed set
#: keeps the number of CloudWatch metric series (each one billed) bounded.
ROUTE_ENDPOINTS: dict[str, str] = {
    "/v1/chat/completions/derender": "chat_derender",
    "/v1/completions/derender": "completions_derender",
    "/v1/chat/completions/render": "chat_render",
    "/v1/completions/render": "completions_render",
    "/v1/responses/render": "responses_render",
    "/v1/messages/render": "messages_render",
    "/v1/responses/derender": "responses_derender",
    "/tokenize": "tokenize",
    "/detokenize": "detokenize",
    "/health": "health",
    "/version": "version",
    "/v1/models": "models",
}
OTHER_ENDPOINT = "other"

#: The exception the app has just reported (see :class:`_DropReportedTraceback`).
_last_reported: BaseException | None = None

#: True while a Lambda invocation runs: the hook then reports. Other apps in the same process
#: (``tito serve``, tests with ``TestClient``) share ``on_unhandled`` but are not invocations, and
#: must not leave metrics behind for the next invocation to flush.
_in_invocation: ContextVar[bool] = ContextVar("tito_in_invocation", default=False)


class LambdaHandler(Protocol):
    """A Lambda handler that also exposes the app it serves (for tests and ``tito invoke``)."""

    app: FastAPI | asgi.DerenderApp
    endpoints: tuple[str, ...]

    def __call__(self, event: dict[str, Any], context: LambdaContext) -> dict[str, Any]: ...


def endpoint_of(event: Any, base_path: str = "/") -> str:
    """The ``endpoint`` dimension for an event: a name from :data:`ROUTE_ENDPOINTS` or ``other``.

    Reads ``rawPath`` (HTTP API v2, Function URL) or ``path`` (REST v1), after stripping the
    configured base path, the way Mangum routes it. Never raises: a metric must not fail a request.
    """
    if not isinstance(event, dict):
        return OTHER_ENDPOINT
    path = event.get("rawPath") or event.get("path") or ""
    if not isinstance(path, str):
        return OTHER_ENDPOINT
    prefix = base_path.rstrip("/")
    if prefix and path.startswith(prefix + "/"):
        path = path[len(prefix):]
    return ROUTE_ENDPOINTS.get(path.rstrip("/") or "/", OTHER_ENDPOINT)


def _bad_event(message: str) -> dict[str, Any]:
    """A 400 in Lambda's proxy response shape (the app never saw the request)."""
    body = error_body(f"Malformed Lambda event: {message}.", type_=ErrorType.BAD_REQUEST, code=400)
    return {"statusCode": 400, "headers": {"content-type": "application/json"},
            "body": json.dumps(body), "isBase64Encoded": False}


def _report_unhandled(exc: BaseException) -> None:
    """``on_unhandled`` hook: count the 500 and log its type with the correlation id.

    The traceback is logged once, by the app's own handler (its ``tito`` logger shares the
    Powertools formatter, hence the correlation id); this record adds a queryable ``error_type``
    without repeating the message, which may echo request content.
    """
    global _last_reported
    if not _in_invocation.get():
        return
    _last_reported = exc
    metrics.add_metric(name="UnhandledError", unit=MetricUnit.Count, value=1)
    logger.error(
        "unhandled error answered with 500",
        extra={"error_type": f"{type(exc).__module__}.{type(exc).__qualname__}"},
    )


class _DropReportedTraceback(logging.Filter):
    """Drop Mangum's "An error occurred running the application." for an already-reported error.

    Starlette re-raises an exception after the app's 500 handler ran (so servers can log it), and
    Mangum then logs the same traceback a second time. An error the app did *not* report (one
    raised outside the app's middleware stack) still gets logged by Mangum.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        global _last_reported
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and exc is _last_reported:
            _last_reported = None
            return False
        return True


def _configure_logging() -> None:
    """Route the stdlib ``tito`` and ``mangum`` loggers through the Powertools JSON handler."""
    logging.getLogger("mangum")  # register the parent so the include filter below finds it
    copy_config_to_registered_loggers(source_logger=logger, include={"tito", "mangum"})
    # Mangum logs one INFO access line per request; derender runs once per streamed chunk, so
    # that would be a paid log line per token chunk. Lambda's REPORT line already covers it.
    logging.getLogger("mangum").setLevel(
        logging.DEBUG if logger.log_level <= logging.DEBUG else logging.WARNING
    )
    mangum_http = logging.getLogger("mangum.http")
    if not any(isinstance(f, _DropReportedTraceback) for f in mangum_http.filters):
        mangum_http.addFilter(_DropReportedTraceback())
    if _report_unhandled not in asgi.on_unhandled:
        asgi.on_unhandled.append(_report_unhandled)


def _load_models(endpoints: Sequence[str]) -> None:
    """Load the model registry now (init phase), so no request pays for it: the default model,
    and for the endpoints that render chats its compiled chat template.

    A broken model folder or S3 source fails the init, on purpose: Lambda then reports an init
    error and API Gateway answers 5xx for that sandbox, instead of every request failing later
    with a confusing 500. The error is logged first, with the folder and file in the message.
    """
    from tito.models import (
        get_registry,  # imported here: tokenizers + registry are init work
    )

    try:
        registry = get_registry()
    except Exception:
        logger.exception("model registry failed to load; this function cannot serve requests")
        raise
    if _TEMPLATE_ENDPOINTS.intersection(endpoints):
        from tito.service.render import warm_up

        warm_up(registry.default)


#: Endpoints that render chat templates (their default model's template is compiled at init).
_TEMPLATE_ENDPOINTS = frozenset({"chat_render", "responses_render", "messages_render", "tokenize"})


def make_handler(endpoints: Sequence[str], *, load_models: bool = True) -> LambdaHandler:
    """Build the Lambda handler serving ``endpoints`` (names of ``tito.adapters.app.ENDPOINTS``).

    Call it at module scope of the handler module. ``load_models=False`` skips loading the model
    registry at init (it then loads on the first request that needs it); tests use it.
    """
    names = tuple(endpoints)
    _configure_logging()
    app: Any
    if names and asgi.DERENDER_ENDPOINTS.issuperset(names):
        # the per-chunk hot path: no FastAPI routing/validation per call, no FastAPI import
        app = asgi.DerenderApp(names)
    elif names and RENDER_ENDPOINTS.issuperset(names):
        app = RenderApp(names)  # the same, for the render routes
    else:
        from tito.adapters.app import create_app

        app = create_app(endpoints=names)
    base_path = os.getenv("TITO_API_BASE_PATH") or "/"
    loop = Loop()  # this handler's own
    eager = isinstance(app, asgi.DerenderApp)  # RenderApp too: neither ever suspends
    if eager:
        mangum = EagerMangum(app, loop, lifespan="off", api_gateway_base_path=base_path,
                                 custom_handlers=[HTTPGatewayV2])
    else:
        mangum = Mangum(app, lifespan="off", api_gateway_base_path=base_path)
    if load_models:
        _load_models(names)
    endpoints: dict[str, str] = {}  # rawPath -> endpoint_of's answer

    @_with_log_context
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        global _last_reported
        token = _in_invocation.set(True)
        response: dict[str, Any] = {}
        try:
            if eager and plain_v2(event):  # (event_problem's own first test, inline)
                response = mangum.plain(event, context)  # (the usual event, at once)
            else:
                problem = event_problem(event)
                if not eager:
                    loop.use()
                # (Powertools' and Mangum's LambdaContext protocols differ only in typing
                # details)
                response = _bad_event(problem) if problem else mangum(
                    event, context)  # type: ignore[arg-type]
        except (KeyError, TypeError, AttributeError, ValueError, RuntimeError) as exc:
            # Mangum's event mapping failed on a shape event_problem does not know: the event is
            # unusable (errors inside the app never get here: it answers them itself).
            logger.warning("malformed Lambda event", extra={"error_type": type(exc).__name__})
            response = _bad_event("it cannot be mapped to an HTTP request")
        finally:
            _in_invocation.reset(token)
            _last_reported = None  # never keep an exception (and its frames) across invocations
            status = response.get("statusCode")
            # (endpoint_of depends on a non-empty rawPath alone: its answers kept per path)
            path = event.get("rawPath") if event.__class__ is dict else None
            endpoint = endpoints.get(path) if path.__class__ is str else None
            if endpoint is None:
                endpoint = endpoint_of(event, base_path)
                if path and path.__class__ is str:
                    if len(endpoints) >= 64:  # (paths are the client's: bounded)
                        endpoints.clear()
                    endpoints[path] = endpoint
            _emit_metrics(endpoint, isinstance(status, int) and 400 <= status < 500, context)
        return response

    # Everything built so far (modules, app, tokenizers' Python side) lives as long as the
    # sandbox: move it out of the cyclic collector's way, so the collections that invocations'
    # garbage triggers stop traversing it (gc.freeze; it is never collected anyway). No
    # gc.collect() first: it found nothing to free here and cost every cold start 15-20 ms.
    gc.freeze()
    out = cast(Any, handler)
    out.app = app
    out.mangum = mangum
    out.endpoints = names
    return cast(LambdaHandler, out)
