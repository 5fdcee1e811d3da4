"""A plain ASGI app for the derender functions, and the HTTP rules it shares with the FastAPI app.

Why not FastAPI here: a streamed derender call runs once per engine chunk, so whatever the
framework costs is paid per token chunk. FastAPI's routing, dependency solving, response
validation and the middleware stack cost several times the derender work itself. This app does
exactly what those routes do, in a few microseconds:

- ``POST`` of the function's derender path(s): the JSON body guard (size, content type, JSON
  object), the body parsed once; the common streamed chunk (state, one engine chunk) checked by
  hand (:mod:`tito.service.stream_body`: only bodies certainly valid, anything else falls
  through), other bodies validated by pydantic (the route's union, resolved by ``stream``); the
  service call, compact JSON out;
- ``GET /health``, ``GET /version`` and ``GET /v1/models``; anything else 404 (unknown path)
  or 405 (wrong method);
- every error in vLLM's shape with the same status, ``type``, ``message`` and ``param`` as the
  FastAPI app (``tests/test_asgi.py`` compares both apps on the same requests), unexpected ones
  as a 500 reported to :data:`on_unhandled`.

The FastAPI app (:mod:`tito.adapters.app`) stays for ``tito serve`` and the OpenAPI schema (the
render functions serve :mod:`tito.adapters.asgi_render`, this app with their routes); it reuses
:func:`read_json_body` here and the body parsing and validation messages of
:mod:`tito.adapters.validation`, so both apps apply one set of rules. Nothing here imports
FastAPI or Starlette: a derender function's cold start skips them too.

Example::

    app = DerenderApp(["chat_derender"])     # then Mangum(app, lifespan="off")
"""

from __future__ import annotations

import functools
import gc
import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from tito import __version__
from tito.adapters.payload import MAX_EVENT_BODY_BYTES, event_bytes, over_limit
from tito.adapters.splice import dump_json
from tito.adapters.validation import parse_body, parse_fast, validate_body
from tito.errors import ErrorType, TitoError, error_body, quote
from tito.lazy import LazyMapping, import_attr
from tito.settings import env_reader

logger = logging.getLogger("tito")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: Called with the exception for every unexpected error (500). The Lambda handlers add a metric.
on_unhandled: list[Callable[[BaseException], None]] = []

#: Largest accepted request or answer body, counted as Lambda counts a payload (JSON-escaped in
#: the event, :func:`tito.adapters.payload.event_bytes`): what fits Lambda's 6 MB with the rest of
#: the event; ``tito serve`` is bounded the same way (override with ``TITO_MAX_BODY_BYTES``).
DEFAULT_MAX_BODY_BYTES = MAX_EVENT_BODY_BYTES

_MAX_BODY = env_reader("TITO_MAX_BODY_BYTES")


def max_body_bytes() -> int:
    """``TITO_MAX_BODY_BYTES`` or the default (a bad value falls back to the default)."""
    value = _MAX_BODY()
    if value is None:
        return DEFAULT_MAX_BODY_BYTES
    try:
        return int(value)
    except ValueError:
        return DEFAULT_MAX_BODY_BYTES


# -- responses --------------------------------------------------------------------------------


class JsonAnswer:
    """A JSON response as bytes and a status; an ASGI app of its own (sends itself)."""

    __slots__ = ("body", "status")

    def __init__(self, content: Any, status: int = 200, *, float_free: bool = False) -> None:
        self.status = status
        self.body = dump_json(content, float_free=float_free)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({
            "type": "http.response.start",
            "status": self.status,
            "headers": [(b"content-length", str(len(self.body)).encode()),
                        (b"content-type", b"application/json")],
        })
        await send({"type": "http.response.body", "body": self.body})


def error_answer(message: str, *, type_: str, code: int, param: str | None = None) -> JsonAnswer:
    """An error body as a response with ``code`` as its status."""
    return JsonAnswer(error_body(message, type_=type_, code=code, param=param), code)


def too_large(limit: int) -> JsonAnswer:
    return error_answer(
        f"Request body too large: at most {limit} bytes are accepted, counted as the Lambda "
        "event carries the body (JSON-escaped; TITO_MAX_BODY_BYTES). "
        "A batch derender this large must be sent as streamed calls (\"stream\": true, the "
        "engine output split over several generate_chunks calls); tito.client and the gateway "
        "do that split themselves.",
        type_=ErrorType.TOO_LARGE,
        code=413,
    )


#: what a client can do about a derender answer over the limit
STREAM_HINT = ("Send this derender as streamed calls (\"stream\": true, a few thousand tokens "
               "per call); tito.client and the gateway do that split themselves.")


def response_too_large(size: int, limit: int, hint: str = STREAM_HINT) -> JsonAnswer:
    """413 for an answer over Lambda's synchronous payload limit (Lambda itself would fail the
    invocation and API Gateway answer a bare 502): say why and what to do instead (``hint``)."""
    return error_answer(
        f"Response too large: {size} bytes as Lambda counts it (JSON-escaped in the proxy "
        f"answer), over the {limit}-byte payload limit of this deployment (Lambda's 6 MB). "
        + hint,
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
            stack.extend((f"{path}.{i}" if path else str(i), v)
                         for i, v in reversed(list(enumerate(value))))
    return None


async def read_json_body(scope: Scope, receive: Receive) -> bytes | JsonAnswer | None:
    """The body of a POST, or the error answer the JSON body guard gives (None: disconnected).

    Rules (vLLM's, plus bounds): at most :func:`max_body_bytes` as the Lambda event carries it
    (413, :func:`tito.adapters.payload.over_limit`), content type
    ``application/json`` (400), a body that starts as a JSON object (400), no lone UTF-16
    surrogate escape in any string (400, :func:`lone_surrogate_path`).
    """
    limit = max_body_bytes()
    declared = content_type = ""
    headers = scope["headers"]
    table = dict(headers)
    names = b"".join(table)
    if names.lower() == names:  # lowercase names, as ASGI says: two lookups, the last one wins
        declared = table.get(b"content-length", b"").decode("latin-1")
        content_type = table.get(b"content-type", b"").decode("latin-1")
    else:
        for key, value in headers:
            name = key.lower()
            if name == b"content-length":
                declared = value.decode("latin-1")
            elif name == b"content-type":
                content_type = value.decode("latin-1")
    if declared.isdigit() and int(declared) > limit:
        return too_large(limit)
    if content_type.split(";", 1)[0].strip().lower() != "application/json":
        return error_answer(
            "1 validation error:\n  Unsupported Media Type: Only 'application/json' is allowed",
            type_=ErrorType.VALIDATION, code=400)
    parts: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return too_large(limit)
        parts.append(chunk)
        more = message.get("more_body", False)
    body = parts[0] if len(parts) == 1 else b"".join(parts)
    if over_limit(body, limit):  # as the Lambda event would carry it
        return too_large(limit)
    if not body.lstrip().startswith(b"{"):
        return error_answer("The request body must be a JSON object.",
                            type_=ErrorType.VALIDATION, code=400)
    bad = lone_surrogate_path(body)
    if bad is not None:
        return error_answer(
            f"{quote(bad)} contains a lone UTF-16 surrogate escape (\\ud800-\\udfff), "
            "which is not valid Unicode text.",
            type_=ErrorType.BAD_REQUEST, code=400, param=bad,
        )
    return body


def report_unhandled(exc: BaseException, hooks: Sequence[Callable[[BaseException], None]]) -> None:
    """Log an unexpected error with its traceback and tell every hook (a broken hook is logged)."""
    logger.exception("unhandled error: %s", type(exc).__name__, exc_info=exc, stacklevel=2)
    for hook in hooks:
        try:
            hook(exc)
        except Exception:  # a broken hook must not turn a 500 into a crash
            logger.exception("on_unhandled hook failed")


def internal_error() -> JsonAnswer:
    return error_answer("Internal server error.", type_=ErrorType.INTERNAL, code=500)


# -- the derender app -------------------------------------------------------------------------


#: endpoint name -> (path, body type in tito.protocol, service module, its entry point); each
#: imported only by a function serving it (a chat derender function never loads Responses).
_DERENDER_ROUTES: dict[str, tuple[str, str, str, str]] = {
    "chat_derender": ("/v1/chat/completions/derender", "DerenderChatBody",
                      "tito.service.derender", "handle_chat"),
    "completions_derender": ("/v1/completions/derender", "DerenderCompletionBody",
                             "tito.service.derender", "handle_completions"),
    "responses_derender": ("/v1/responses/derender", "DerenderResponsesBody",
                           "tito.service.responses_derender", "handle_responses"),
}

#: A path's fast entry: (the answer, whether it holds no float) to a parsed JSON body it serves
#: without pydantic, or None
Fast = Callable[[Any], "tuple[dict[str, Any], bool] | None"]


#: path -> the service's entry for the common streamed call, checked by hand (no pydantic):
#: :func:`tito.service.derender.handle_stream_body`, and the Responses one; each imported only by
#: a function serving its path
_FAST_ENTRIES: dict[str, tuple[str, dict[str, Any]]] = {
    "/v1/chat/completions/derender": ("tito.service.derender:handle_stream_body",
                                      {"completion": False}),
    "/v1/completions/derender": ("tito.service.derender:handle_stream_body", {"completion": True}),
    "/v1/responses/derender": ("tito.service.responses_derender:handle_stream_body", {}),
}


def _fast_routes() -> Mapping[str, Fast]:
    """path -> fast entry (:data:`_FAST_ENTRIES`, imported on lookup). A fast entry takes the
    body as :func:`parse_fast` reads it and says whether its answer is float-free (see
    :meth:`DerenderApp._fast_answer`); other bodies go through pydantic."""
    return LazyMapping({path: functools.partial(_fast_entry, path) for path in _FAST_ENTRIES})


def _fast_entry(path: str) -> Fast:
    spec, kwargs = _FAST_ENTRIES[path]
    return functools.partial(import_attr(spec), **kwargs)


#: Endpoints :class:`DerenderApp` serves (the Lambda handlers pick it for these).
DERENDER_ENDPOINTS = frozenset(_DERENDER_ROUTES)


def _derender_route(name: str) -> list[tuple[str, Any, Callable[..., Any]]]:
    """The POST route of endpoint ``name``: [(path, body type, service entry point)]."""
    path, body, module, entry = _DERENDER_ROUTES[name]
    return [(path, import_attr(f"tito.protocol:{body}"), import_attr(f"{module}:{entry}"))]


def _built(adapter: Any) -> Any:
    """``adapter`` with its validator built now, at init: the wire models defer theirs to first
    use (:class:`tito.protocol.common.WireModel`), and so would an adapter of one."""
    rebuild = getattr(adapter, "rebuild", None)  # pydantic >= 2.10; before, built already
    if rebuild is not None:
        rebuild()
    return adapter


class DerenderApp:
    """ASGI app serving derender endpoints plus ``GET /health``, ``/version``, ``/v1/models``."""

    def __init__(self, endpoints: Iterable[str]) -> None:
        from pydantic import TypeAdapter

        from tito.settings import check_environment

        check_environment()  # refuse to start on a bad TITO_* setting, as the FastAPI app
        table = self.routes()
        names = list(endpoints)
        unknown = [n for n in names if n not in table]
        if unknown:
            raise ValueError(f"{type(self).__name__} serves {sorted(table)}, not {unknown}")
        self.endpoints = tuple(names)
        #: Lambda caps a synchronous response at 6 MB, like the request (TITO_MAX_BODY_BYTES)
        self.max_response_bytes = max_body_bytes()
        self._post: dict[str, tuple[Any, Callable[..., Any]]] = {
            path: (_built(TypeAdapter(body_type)), run)
            for name in names for path, body_type, run in table[name]
        }
        fast = self.fast_routes()
        self._fast = {path: fast[path] for path in self._post if path in fast}

    @staticmethod
    def routes() -> Mapping[str, list[tuple[str, Any, Callable[..., Any]]]]:
        """endpoint name -> its POST routes (path, body type, service call); a subclass serves
        other routes (:class:`tito.adapters.asgi_render.RenderApp`). Lazy: only the endpoints
        served are imported."""
        return LazyMapping({name: functools.partial(_derender_route, name)
                            for name in _DERENDER_ROUTES})

    #: path -> fast entry (:func:`_fast_routes`), for the paths this app serves
    fast_routes = staticmethod(_fast_routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no lifespan or websocket support (Mangum runs with lifespan="off")
        try:
            answer = await self._answer(scope, receive)
        except TitoError as exc:
            answer = error_answer(exc.message, type_=exc.type, code=exc.status, param=exc.param)
        except Exception as exc:
            report_unhandled(exc, on_unhandled)
            answer = internal_error()
        if answer is not None:
            await answer(scope, receive, send)

    async def _answer(self, scope: Scope, receive: Receive) -> JsonAnswer | None:
        """:meth:`_route` with the cyclic garbage collector paused.

        Why: a batch derender builds hundreds of thousands of small acyclic objects (logprob
        entries, their bytes lists); with the collector on, over half of its time went to
        collections that free nothing. Lambda runs one request per process at a time, and what
        a request leaves behind is collected when the collector is back on.
        """
        paused = gc.isenabled()
        gc.disable()
        try:
            return await self._route(scope, receive)
        finally:
            if paused:
                gc.enable()

    async def _route(self, scope: Scope, receive: Receive) -> JsonAnswer | None:
        path, method = scope["path"], scope["method"]
        route = self._post.get(path)
        if route is not None:
            if method != "POST":
                return error_answer("Method Not Allowed", type_=ErrorType.METHOD_NOT_ALLOWED,
                                    code=405)
            body = await read_json_body(scope, receive)
            if body is None or isinstance(body, JsonAnswer):
                return body
            fast = self._fast.get(path)
            answer = self._fast_answer(fast, body) if fast is not None else None
            if answer is None:
                answer = JsonAnswer(route[1](validate_body(route[0], parse_body(body))))
            if over_limit(answer.body, self.max_response_bytes):
                return response_too_large(event_bytes(answer.body), self.max_response_bytes)
            return answer
        if path in ("/health", "/version", "/v1/models"):
            if method != "GET":
                return error_answer("Method Not Allowed", type_=ErrorType.METHOD_NOT_ALLOWED,
                                    code=405)
            if path == "/health":
                return JsonAnswer({"status": "ok", "version": __version__})
            if path == "/version":
                from tito.protocol import VersionResponse

                return JsonAnswer(VersionResponse(version=__version__).model_dump())
            from tito.models import get_registry

            return JsonAnswer(get_registry().list_models())
        return error_answer("Not Found", type_=ErrorType.ROUTE_NOT_FOUND, code=404)

    @staticmethod
    def _fast_answer(fast: Fast, body: bytes) -> JsonAnswer | None:
        """The fast entry's answer to ``body``, or None: the validated path answers it.

        The fast entry sees the body as orjson reads it (:func:`parse_fast`), which it reads as
        ``json`` does (:mod:`tito.service.stream_body`), and says whether its answer holds no
        float (then orjson writes it, else ``json``). It answers only
        what it certainly can: it returns None for any other body, and whatever it raises (an
        error of the request, or of data that only ``json`` reads exactly, such as an integer
        past 64 bits) is left to the validated path, which parses the body again with ``json``
        and gives the canonical answer or error. So both paths give the same bytes.
        """
        data = parse_fast(body)
        if data is None:
            return None
        try:
            result = fast(data)
        except Exception:  # noqa: BLE001 - the validated path decides (and reports) it
            return None
        return None if result is None else JsonAnswer(result[0], float_free=result[1])
