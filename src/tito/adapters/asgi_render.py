"""A plain ASGI app for the render functions (chat, completions, Responses and Messages render;
tokenize).

Why not FastAPI here: a short chat render is ~100 us of templating and tokenizing, and FastAPI's
routing, dependency solving (the body and the ``X-Request-Id`` header) and middleware stack cost
more than that again per request. :class:`RenderApp` is :class:`tito.adapters.asgi.DerenderApp`
with the render routes: the same JSON body guard, one pydantic validation of the body with
FastAPI's error locations and messages (a common chat body is checked by hand instead,
:mod:`tito.service.chat_body`: the same request, or pydantic), the chat render answered as its
wire dict directly (:func:`tito.service.render.render_chat_wire`), the same error shapes and
the same ``GET`` routes; only the POST table and the ``X-Request-Id`` header (chat and
completions render read it, as vLLM) differ, and an answer over the payload limit is a 413
with its own hint. ``tests/test_asgi.py``
compares it with the FastAPI app on the same requests; ``tito serve`` keeps the FastAPI routes
(:mod:`tito.adapters.routes_render`, the OpenAPI schema).

Example::

    app = RenderApp(["chat_render"])     # then Mangum(app, lifespan="off")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tito.adapters.asgi import (
    DerenderApp,
    JsonAnswer,
    Receive,
    Scope,
    max_body_bytes,
    paused_answer,
    read_json_body,
    response_too_large,
)
from tito.adapters.asgi_http import as_utf8, body_answer, header_answer, plain_header_answer
from tito.adapters.payload import event_bytes, over_limit
from tito.adapters.splice import dump_json
from tito.adapters.validation import parse_body, validate_body
from tito.lazy import LazyMapping

__all__ = ["RENDER_ENDPOINTS", "RenderApp"]

#: (validated body, X-Request-Id header or None) -> the JSON answer
Run = Callable[[Any, "str | None"], Any]

#: Endpoints :class:`RenderApp` serves (the Lambda handlers pick it for these).
RENDER_ENDPOINTS = frozenset({"chat_render", "completions_render", "responses_render",
                              "messages_render", "tokenize"})


def _chat_routes() -> list[tuple[str, Any, Run]]:
    from tito.protocol import ChatCompletionRequest
    from tito.service import render

    def chat(request: Any, header_id: str | None) -> Any:
        return render.render_chat_wire(request, header_request_id=header_id)

    return [("/v1/chat/completions/render", ChatCompletionRequest, chat)]


def _completions_routes() -> list[tuple[str, Any, Run]]:
    from tito.protocol import CompletionRequest
    from tito.service import render

    def completions(request: Any, header_id: str | None) -> Any:
        return render.render_completion_wire(request, header_request_id=header_id)

    return [("/v1/completions/render", CompletionRequest, completions)]


def _responses_routes() -> list[tuple[str, Any, Run]]:
    from tito.protocol import ResponsesRequest
    from tito.service import render, responses_render  # noqa: F401  (render: at init)

    # vLLM ignores X-Request-Id here (the id is the request's own)
    return [("/v1/responses/render", ResponsesRequest,
             lambda r, _: responses_render.render_responses_wire(r))]


def _messages_routes() -> list[tuple[str, Any, Run]]:
    # the Anthropic models take ~30 ms to build: only the Messages function imports them
    from tito.protocol.anthropic import AnthropicMessagesRequest
    from tito.service.messages import render_messages_request

    def messages(request: Any, header_id: str | None) -> Any:
        return render_messages_request(request, header_request_id=header_id).to_wire()

    return [("/v1/messages/render", AnthropicMessagesRequest, messages)]


def _tokenize_routes() -> list[tuple[str, Any, Run]]:
    from tito.protocol import DetokenizeRequest, TokenizeChatRequest, TokenizeCompletionRequest
    from tito.service import tokenize as tok

    return [
        ("/tokenize", TokenizeCompletionRequest | TokenizeChatRequest,
         lambda r, _: tok.tokenize(r).model_dump(mode="json")),
        ("/detokenize", DetokenizeRequest, lambda r, _: tok.detokenize(r).model_dump(mode="json")),
    ]


def _render_routes() -> Mapping[str, list[tuple[str, Any, Run]]]:
    """endpoint name -> [(path, body type, service call)], as the FastAPI routes do them; each
    endpoint's modules imported only when it is served (lazy: a function's cold start)."""
    return LazyMapping({"chat_render": _chat_routes, "completions_render": _completions_routes,
                        "responses_render": _responses_routes, "messages_render": _messages_routes,
                        "tokenize": _tokenize_routes})


def _chat_reader() -> Callable[[Any], Any]:
    from tito.service import chat_body

    return chat_body.read


def _render_readers() -> Mapping[str, Callable[[Any], Any]]:
    """path -> the service's hand check of its common body (the validated request, or None:
    pydantic validates it), for the routes that have one (:mod:`tito.service.chat_body`). Lazy:
    the app looks up only the paths it serves (a completions render function never imports
    the chat models)."""
    return LazyMapping({"/v1/chat/completions/render": _chat_reader})


def _header(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case), as Starlette's ``Headers.get``."""
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")  # type: ignore[no-any-return]
    return None


#: a render answer repeats the request's tools and constraints (parse_context, derender_context,
#: structured_outputs): what a client can do when that is over Lambda's limit
_RENDER_HINT = ("A render answer repeats the request's tools, response_format and "
                "structured_outputs next to the prompt's token ids: send smaller ones.")


class _RenderAnswer(JsonAnswer):
    """A render's answer (200), written by orjson unless a float in it is one ``json`` writes
    otherwise (:func:`tito.adapters.splice.dump_json`'s ``checked_floats``): the same bytes."""

    __slots__ = ()

    def __init__(self, content: Any) -> None:  # noqa: D107 - no super(): the body written here
        self.status = 200
        self.body = dump_json(content, checked_floats=True)


class RenderApp(DerenderApp):
    """ASGI app serving render endpoints plus ``GET /health``, ``/version``, ``/v1/models``.

    Everything but the POST routes is :class:`DerenderApp`'s (errors, 404/405, the garbage
    collector paused during a call).
    """

    routes = staticmethod(_render_routes)
    #: path -> the hand check of its common body (here a body reader, not an answer)
    fast_routes = staticmethod(_render_readers)

    async def _route(self, scope: Scope, receive: Receive) -> JsonAnswer | None:
        path = scope["path"]
        if path not in self._post or scope["method"] != "POST":
            return await super()._route(scope, receive)  # GET routes, 404, 405
        body = await read_json_body(scope, receive)
        if body is None or isinstance(body, JsonAnswer):
            return body
        return self._answer(path, body, _header(scope, b"x-request-id"))

    def respond(self, scope: Scope, body: bytes) -> JsonAnswer | None:
        """What :meth:`__call__` answers to a POST of a render path whose whole body is here (a
        Lambda event's), without the ASGI messages; None for any other request (the caller
        then runs :meth:`__call__`). Why, and the same steps in the same order:
        :meth:`DerenderApp.respond`."""
        path = scope["path"]
        if path not in self._post or scope["method"] != "POST" or scope["type"] != "http":
            return None
        return self._eager(path, body, scope, None)

    def respond_plain(self, path: str, method: str, headers: dict[str, str],
                      body: bytes) -> JsonAnswer | None:
        """:meth:`respond` from an HTTP API v2 event's own fields (its path as it is, its
        lowercase ``headers``): :meth:`DerenderApp.respond_plain`. Why: Mangum's scope, its
        cycle and the ASGI messages cost a short chat render ~8% of its time
        (``bench/bench_render.py``)."""
        if method != "POST" or path not in self._post:
            return None
        return self._eager(path, body, None, headers)

    def _eager(self, path: str, body: bytes, scope: Scope | None,
               headers: dict[str, str] | None) -> JsonAnswer:
        """:meth:`_route`'s answer (or its error's, as :meth:`__call__` makes it) to a POST of a
        render path whose body is here: the guard's header checks from the ``scope`` or from
        the event's lowercase ``headers``, its body checks, the collector paused."""

        def make() -> JsonAnswer:
            limit = max_body_bytes()
            text = as_utf8(body)
            if headers is None:
                answer = header_answer(scope, limit)
                request_id = _header(scope, b"x-request-id")
            else:
                answer = plain_header_answer(headers, limit)
                value = headers.get("x-request-id")  # (Mangum's UTF-8 bytes, read as Latin-1)
                request_id = None if value is None else value.encode().decode("latin-1")
            return (answer or body_answer(text, limit)
                    or self._answer(path, text, request_id))

        return paused_answer(make)

    def _answer(self, path: str, body: bytes, request_id: str | None) -> JsonAnswer:
        """The answer to a POST of ``path`` whose body passed the guard."""
        route = self._post[path]
        data = parse_body(body)
        reader = self._fast.get(path)
        request = reader(data) if reader is not None else None
        if request is None:
            request = validate_body(route[0], data)
        answer = _RenderAnswer(route[1](request, request_id))
        if over_limit(answer.body, self.max_response_bytes):
            return response_too_large(event_bytes(answer.body), self.max_response_bytes,
                                      _RENDER_HINT)
        return answer
