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
:func:`read_json_body` (:mod:`tito.adapters.asgi_http`: the HTTP rules, re-exported here)
and the body parsing and validation messages of :mod:`tito.adapters.validation`, so both apps
apply one set of rules. Nothing here imports
FastAPI or Starlette: a derender function's cold start skips them too.

Example::

    app = DerenderApp(["chat_derender"])     # then Mangum(app, lifespan="off")
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tito import __version__
from tito.adapters.asgi_http import (  # re-exported: the HTTP rules both plain apps share
    DEFAULT_MAX_BODY_BYTES as DEFAULT_MAX_BODY_BYTES,
)
from tito.adapters.asgi_http import STREAM_HINT as STREAM_HINT
from tito.adapters.asgi_http import JsonAnswer as JsonAnswer
from tito.adapters.asgi_http import Receive as Receive
from tito.adapters.asgi_http import Scope as Scope
from tito.adapters.asgi_http import Send as Send
from tito.adapters.asgi_http import as_utf8, body_answer, header_answer, plain_header_answer
from tito.adapters.asgi_http import error_answer as error_answer
from tito.adapters.asgi_http import internal_error as internal_error
from tito.adapters.asgi_http import lone_surrogate_path as lone_surrogate_path
from tito.adapters.asgi_http import max_body_bytes as max_body_bytes
from tito.adapters.asgi_http import read_json_body as read_json_body
from tito.adapters.asgi_http import report_unhandled as report_unhandled
from tito.adapters.asgi_http import response_too_large as response_too_large
from tito.adapters.asgi_http import surrogate_answer as surrogate_answer
from tito.adapters.asgi_http import too_large as too_large
from tito.adapters.payload import event_bytes, over_limit
from tito.adapters.splice import dump_json as dump_json  # re-exported (benches, tests)
from tito.adapters.validation import parse_body, parse_fast, validate_body
from tito.errors import ErrorType, TitoError
from tito.lazy import LazyMapping, import_attr

#: Called with the exception for every unexpected error (500). The Lambda handlers add a metric.
on_unhandled: list[Callable[[BaseException], None]] = []


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


def _failure(exc: Exception) -> JsonAnswer:
    """The answer to an exception a request raised: its own error answer for a request's error
    (:class:`tito.errors.TitoError`), else a 500 reported to :data:`on_unhandled`."""
    if isinstance(exc, TitoError):
        return error_answer(exc.message, type_=exc.type, code=exc.status, param=exc.param)
    report_unhandled(exc, on_unhandled)
    return internal_error()


def paused_answer(make: Callable[[], JsonAnswer]) -> JsonAnswer:
    """``make()`` with the cyclic garbage collector paused (why: :meth:`DerenderApp.__call__`),
    an exception it raises answered as ``__call__`` answers it (:func:`_failure`). The derender
    app's eager entries write these steps out (a frame less per streamed chunk); the render
    app's call this."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return make()
    except Exception as exc:  # noqa: BLE001 - a request's error or a 500 (_failure)
        return _failure(exc)
    finally:
        if paused:
            gc.enable()


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
        """:meth:`_route`'s answer (or its error's), sent, with the cyclic garbage collector
        paused while it is made.

        Why paused: a batch derender builds hundreds of thousands of small acyclic objects
        (logprob entries, their bytes lists); with the collector on, over half of its time went
        to collections that free nothing. Lambda runs one request per process at a time, and
        what a request leaves behind is collected when the collector is back on. The answer's
        two messages are sent here, not by :class:`JsonAnswer` (one coroutine less per call).
        """
        if scope["type"] != "http":
            return  # no lifespan or websocket support (Mangum runs with lifespan="off")
        paused = gc.isenabled()
        gc.disable()
        try:
            answer = await self._route(scope, receive)
        except Exception as exc:  # noqa: BLE001 - a request's error or a 500 (_failure)
            answer = _failure(exc)
        finally:
            if paused:
                gc.enable()
        if answer is not None:
            body = answer.body
            await send({"type": "http.response.start", "status": answer.status,
                        "headers": [(b"content-length", str(len(body)).encode()),
                                    (b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})

    async def _route(self, scope: Scope, receive: Receive) -> JsonAnswer | None:
        path, method = scope["path"], scope["method"]
        route = self._post.get(path)
        if route is not None:
            if method != "POST":
                return error_answer("Method Not Allowed", type_=ErrorType.METHOD_NOT_ALLOWED,
                                    code=405)
            fast = self._fast.get(path)
            # (a fast path's body is read by orjson, which refuses any lone surrogate: only a
            # body it refuses is searched for one, as the guard would have searched it)
            body = await read_json_body(scope, receive, check_surrogates=fast is None)
            if body is None or isinstance(body, JsonAnswer):
                return body
            return self._post_answer(route, fast, body)
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

    def _post_answer(self, route: tuple[Any, Callable[..., Any]], fast: Fast | None,
                     body: bytes) -> JsonAnswer:
        """The answer to a POST of the route's path, its body through the guard."""
        answer = None
        if fast is not None:
            data = parse_fast(body)
            if data is None:
                answer = surrogate_answer(body)
                if answer is not None:
                    return answer
            else:
                answer = self._fast_answer(fast, data)
        if answer is None:
            answer = JsonAnswer(route[1](validate_body(route[0], parse_body(body))))
        limit = self.max_response_bytes
        if 2 * len(answer.body) > limit and over_limit(answer.body, limit):  # (its own
            # first test, inline)
            return response_too_large(event_bytes(answer.body), limit)
        return answer

    def respond(self, scope: Scope, body: bytes) -> JsonAnswer | None:
        """What :meth:`__call__` answers to a POST of a fast path whose whole body is here (a
        Lambda event's), without the ASGI messages; None for any other request (the caller
        then runs :meth:`__call__`).

        Why: Mangum's eager cycle (:mod:`tito.handlers._mangum`) has the body before the app
        runs; the coroutines and messages that carry it in and the answer out cost a streamed
        call more than its stop and reasoning stages together. The same steps in the same order
        (the guard's header checks, its body checks, :meth:`_post_answer`, the same error answers,
        the collector paused), so the same answers (``tests/test_lambda_cycle.py`` compares
        both through Mangum)."""
        fast = self._fast.get(scope["path"])
        if fast is None or scope["method"] != "POST" or scope["type"] != "http":
            return None
        paused = gc.isenabled()
        gc.disable()
        try:
            limit = max_body_bytes()
            body = as_utf8(body)
            answer = header_answer(scope, limit) or body_answer(body, limit,
                                                                check_surrogates=False)
            if answer is None:
                answer = self._post_answer(self._post[scope["path"]], fast, body)
        except Exception as exc:  # noqa: BLE001 - a request's error or a 500 (_failure)
            answer = _failure(exc)
        finally:
            if paused:
                gc.enable()
        return answer

    def respond_plain(self, path: str, method: str, headers: dict[str, str],
                      body: bytes) -> JsonAnswer | None:
        """:meth:`respond` to the scope Mangum builds from an HTTP API v2 event whose path is
        ``path`` as it is (no base path to strip) and whose header names are lowercase, read
        from the event's own fields (``headers``: the event's): the same steps (written out
        again: a shared helper was a frame more per call). Why: the scope (its header list
        encoded, its server and client) was built per call for the three values read here
        (``tests/test_lambda_cycle.py`` compares both on such events)."""
        fast = self._fast.get(path)
        if fast is None or method != "POST":
            return None
        paused = gc.isenabled()
        gc.disable()
        try:
            limit = max_body_bytes()
            body = as_utf8(body)
            answer = plain_header_answer(headers, limit) or body_answer(
                body, limit, check_surrogates=False)
            if answer is None:
                answer = self._post_answer(self._post[path], fast, body)
        except Exception as exc:  # noqa: BLE001 - a request's error or a 500 (_failure)
            answer = _failure(exc)
        finally:
            if paused:
                gc.enable()
        return answer

    @staticmethod
    def _fast_answer(fast: Fast, data: Any) -> JsonAnswer | None:
        """The fast entry's answer to the body ``data`` (as :func:`parse_fast` read it), or
        None: the validated path answers it.

        The fast entry sees the body as orjson reads it (:func:`parse_fast`), which it reads as
        ``json`` does (:mod:`tito.service.stream_body`), and says whether its answer holds no
        float (then orjson writes it, else ``json``). It answers only
        what it certainly can: it returns None for any other body, and whatever it raises (an
        error of the request, or of data that only ``json`` reads exactly, such as an integer
        past 64 bits) is left to the validated path, which parses the body again with ``json``
        and gives the canonical answer or error. So both paths give the same bytes.
        """
        try:
            result = fast(data)
        except Exception:  # noqa: BLE001 - the validated path decides (and reports) it
            return None
        return None if result is None else JsonAnswer(result[0], float_free=result[1])
