"""Mangum for tito's plain ASGI apps: the eager HTTP cycle, the handler's loop (the event check:
:mod:`tito.handlers._events`).

Why a module of its own: these are the Lambda-to-ASGI plumbing of :mod:`tito.handlers._lambda`
(Mangum's event translation made cheap for apps that never suspend), apart from its logging,
metrics and handler assembly. :class:`EagerMangum` keeps Mangum's event translation and
response shape; ``tests/test_lambda_cycle.py`` compares it with stock Mangum.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from mangum import Mangum
from mangum.exceptions import UnexpectedMessage
from mangum.handlers.api_gateway import HTTPGateway
from mangum.handlers.utils import get_server_and_port, strip_api_gateway_path
from mangum.protocols.http import HTTPCycle, HTTPCycleState
from mangum.types import ASGI, LambdaConfig, LambdaEvent, Response

__all__ = ["EagerMangum", "HTTPGatewayV2", "Loop"]


class _Suspend:
    """An awaitable that suspends once: what a cycle's ``receive`` does when it would wait."""

    def __await__(self) -> Any:
        yield


class _EagerHTTPCycle(HTTPCycle):
    """Mangum's HTTP cycle, run without an event loop when the app never suspends.

    Why: the derender app awaits nothing but ``receive`` (the body, already here) and ``send``,
    so it runs to completion in one ``send(None)``; Mangum's ``create_task`` +
    ``run_until_complete`` around it, and the ``asyncio.Queue`` it builds per call for the two
    receive messages, cost more than a streamed chunk's derender work. ``receive`` and ``send``
    keep Mangum's contract (the body once, then ``http.disconnect`` after the response; the
    same response dict, the same access-log line); should the app ever suspend (``receive``
    again before answering, or awaiting anything else), the call is run again the normal way,
    on ``loop`` (a derender call has no side effects to repeat).
    """

    def __init__(self, scope: dict[str, Any], body: bytes, loop: Loop) -> None:
        # no super().__init__: its asyncio.Queue is what this cycle does without
        self.scope = scope
        self.state = HTTPCycleState.REQUEST
        self.logger = _HTTP_LOGGER
        self._request: bytes | None = body
        self._body = body
        self._parts: list[bytes] = []
        self._loop = loop

    def __call__(self, app: ASGI) -> Response:
        coro = app(self.scope, self.receive, self.send)  # (Mangum's run(), without its frame)
        try:
            coro.send(None)
        except StopIteration:
            return {"status": self.status, "headers": self.headers, "body": self.body}
        except BaseException as exc:  # noqa: BLE001 - as run() takes it: logged, a 500
            self._failed(exc)
            return {"status": self.status, "headers": self.headers, "body": self.body}
        coro.close()
        self._loop.use()
        return HTTPCycle(self.scope, self._body)(app)

    def _failed(self, exc: BaseException) -> None:
        """What Mangum's ``run`` does when the app raises: its log line and its 500 (run itself,
        on an app raising ``exc`` again)."""
        async def again(scope: Any, receive: Any, send: Any) -> None:
            raise exc

        try:
            self.run(again).send(None)
        except StopIteration:
            pass

    async def receive(self) -> dict[str, Any]:
        if self._request is not None:
            body, self._request = self._request, None
            return {"type": "http.request", "body": body, "more_body": False}
        if self.state is not HTTPCycleState.COMPLETE:
            await _Suspend()  # Mangum's queue would wait here: run it the normal way
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        kind, state = message["type"], self.state
        if state is _RESPONSE and kind == "http.response.body":
            body = message.get("body", b"")
            if message.get("more_body", False):
                self._parts.append(body)
                return
            if self._parts:
                body = b"".join([*self._parts, body])
            self.body = body
            self.state = HTTPCycleState.COMPLETE
            if self.logger.isEnabledFor(logging.INFO):  # (Mangum's access line: off in Lambda)
                self.logger.info("%s %s %s", self.scope["method"], self.scope["path"],
                                 self.status)
        elif state is _REQUEST and kind == "http.response.start":
            self.status = message["status"]
            self.headers = message.get("headers", [])
            self.state = _RESPONSE
        else:
            raise UnexpectedMessage(f"Unexpected {kind}")


_REQUEST, _RESPONSE = HTTPCycleState.REQUEST, HTTPCycleState.RESPONSE
#: the content type header the apps send (as :class:`tito.adapters.asgi.DerenderApp` sends it)
_JSON_TYPE = (b"content-type", b"application/json")
_HTTP_LOGGER = logging.getLogger("mangum.http")
_encode = str.encode  # (Mangum's ``k.encode()`` of each header name and value, at C speed)


class HTTPGatewayV2(HTTPGateway):
    """Mangum's HTTP API (v2) handler with its ASGI scope built once per event (Mangum builds it
    again to shape the response: lowercasing and encoding every header twice per call)."""

    def __init__(self, event: LambdaEvent, context: Any, config: LambdaConfig) -> None:
        self.event, self.context, self.config = event, context, config  # (HTTPGateway's own)
        self._scope: dict[str, Any] | None = None

    @property
    def scope(self) -> dict[str, Any]:  # type: ignore[override]
        if self._scope is None:
            self._scope = self._v2_scope() or HTTPGateway.scope.fget(self)  # type: ignore[attr-defined]
        return self._scope

    @property
    def body(self) -> bytes:  # type: ignore[override]
        """Mangum's body (``maybe_encode_body``), a text body not base64 encoded at once."""
        event = self.event
        body = event.get("body")
        if body.__class__ is str and event.get("isBase64Encoded", False) is False:
            return body.encode()
        return HTTPGateway.body.fget(self)  # type: ignore[attr-defined,no-any-return]

    def _v2_scope(self) -> dict[str, Any] | None:
        """Mangum's scope of an HTTP API v2 event whose header names are lowercase already (API
        Gateway's, Function URLs') and that has no cookies, built in one pass; None otherwise."""
        event = self.event
        headers = event.get("headers", {})
        if (event.get("version") != "2.0" or event.get("cookies") or headers.__class__ is not dict
                or not "".join(headers).islower()):
            return None
        http = event["requestContext"]["http"]
        path, base = http["path"], self.config["api_gateway_base_path"]
        if not path or "%" in path or base != "/":  # else Mangum's stripping returns it as is
            path = strip_api_gateway_path(path, api_gateway_base_path=base)
        return {
            "type": "http",
            "method": http["method"],
            "http_version": "1.1",
            "headers": list(map(list, zip(map(_encode, headers), map(_encode, headers.values())))),
            "path": path,
            "raw_path": None,
            "root_path": "",
            "scheme": headers.get("x-forwarded-proto", "https"),
            "query_string": event.get("rawQueryString", "").encode(),
            "server": _server(headers),
            "client": (http["sourceIp"], 0),
            "asgi": {"version": "3.0", "spec_version": "2.0"},
            "aws.event": event,
            "aws.context": self.context,
        }

    def __call__(self, response: Response) -> dict[str, Any]:
        """Mangum's proxy answer; for the apps' own JSON answer (exactly ``content-length`` and
        ``content-type: application/json``, a UTF-8 body: what :class:`tito.adapters.asgi.
        JsonAnswer` sends) built at once, as Mangum's v2 rules build it (headers as they are,
        the body as text, no cookies), without its header and MIME-type passes."""
        headers = response["headers"]
        if len(headers) == 2 and headers[1] == _JSON_TYPE and headers[0][0] == b"content-length":
            answer = _json_proxy(self.event, self.config, response["status"], response["body"],
                                 headers[0][1].decode())
            if answer is not None:
                return answer
        return super().__call__(response)


def _json_proxy(event: dict[str, Any], config: Any, status: int, body: bytes,
                length: str) -> dict[str, Any] | None:
    """The v2 proxy answer of a JSON answer (headers: ``length`` and the JSON content type) as
    Mangum's rules build it (the headers as they are, a UTF-8 body as text, no cookies), or
    None: Mangum's own rules decide."""
    if not body or event.get("version") != "2.0" or "application/json" not in \
            config["text_mime_types"]:
        return None
    try:
        text = body.decode()
    except UnicodeDecodeError:
        return None
    return {"statusCode": status, "body": text,
            "headers": {"content-length": length, "content-type": "application/json"},
            "isBase64Encoded": False}


def _server(headers: dict[str, Any]) -> tuple[str, int]:
    """Mangum's ``get_server_and_port``, its usual case (a host without a port) inline."""
    host = headers.get("host", "mangum")
    if ":" in host:
        return get_server_and_port(headers)
    return host, int(headers.get("x-forwarded-port", 80))


class EagerMangum(Mangum):
    """Mangum for the derender app (``lifespan="off"``): the same event translation, the eager
    cycle (:class:`_EagerHTTPCycle`; ``loop`` only for a call that suspends)."""

    def __init__(self, app: ASGI, loop: Loop, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.loop = loop
        #: Mangum's inference tries the custom handlers first; this one's own test, inline
        self._v2_first = self.custom_handlers[:1] == [HTTPGatewayV2]
        #: the app's answer to a request whose body is here, without ASGI messages, or None
        #: (:meth:`tito.adapters.asgi.DerenderApp.respond`), and the same from an HTTP API v2
        #: event's own fields (``respond_plain``: :meth:`plain`)
        self._respond = getattr(app, "respond", None)
        self._respond_plain = getattr(app, "respond_plain", None)

    def __call__(self, event: LambdaEvent, context: Any) -> dict[str, Any]:
        if self._v2_first and "version" in event and "requestContext" in event:
            handler: Any = HTTPGatewayV2(event, context, self.config)
            scope = handler._scope = handler._v2_scope() or handler.scope  # (the properties'
            body = event.get("body")  # usual cases, inline)
            if body.__class__ is not str or event.get("isBase64Encoded", False) is not False:
                body = handler.body
            else:
                body = body.encode()
        else:
            handler = self.infer(event, context)
            scope, body = handler.scope, handler.body
        if self._respond is not None:
            try:
                answer = self._respond(scope, body)
            except BaseException as exc:  # noqa: BLE001 - as the cycle takes it: logged, a 500
                return self._failed(handler, scope, body, exc)
            if answer is not None:  # the response the app's two messages would make
                if _HTTP_LOGGER.isEnabledFor(logging.INFO):  # (Mangum's access line)
                    _HTTP_LOGGER.info("%s %s %s", scope["method"], scope["path"], answer.status)
                if handler.__class__ is HTTPGatewayV2:  # (its answer's usual case, at once)
                    out = _json_proxy(handler.event, handler.config, answer.status, answer.body,
                                      str(len(answer.body)))
                    if out is not None:
                        return out
                return handler({"status": answer.status,
                                "headers": [(b"content-length", str(len(answer.body)).encode()),
                                            _JSON_TYPE],
                                "body": answer.body})
        return handler(_EagerHTTPCycle(scope, body, self.loop)(self.app))

    def _failed(self, handler: Any, scope: dict[str, Any], body: bytes,
                exc: BaseException) -> dict[str, Any]:
        """The answer to an app raising ``exc`` (not an ``Exception``: the app answers those
        itself) as the cycle takes it: logged, a 500."""
        cycle = _EagerHTTPCycle(scope, body, self.loop)
        cycle._failed(exc)
        out = handler({"status": cycle.status, "headers": cycle.headers, "body": cycle.body})
        return out  # type: ignore[no-any-return]

    def plain(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """``self(event, context)`` for an event :func:`tito.handlers._events.plain_v2` passed (the handler's first
        check). When :meth:`HTTPGatewayV2._v2_scope` would keep the path as it is (lowercase
        header names, no ``%``, no base path), the app's ``respond_plain`` is asked from the
        event's own fields and the answer made as :meth:`__call__` makes it; the scope is built
        only when needed (a raise that is not an ``Exception``, an answer Mangum's rules shape).
        Why: the scope (every header encoded into a list, the server, the client) cost a
        streamed call more than its stop stage, for three values."""
        respond = self._respond_plain
        http = event["requestContext"]["http"]
        path, headers = http["path"], event["headers"]
        if (respond is None or not self._v2_first or not path or "%" in path
                or self.config["api_gateway_base_path"] != "/"
                or not "".join(headers).islower()):
            return self(event, context)
        body = event.get("body")
        body = b"" if body is None else body.encode()  # (a str: plain_v2; Mangum's body)
        try:
            answer = respond(path, http["method"], headers, body)
        except BaseException as exc:  # noqa: BLE001 - as the cycle takes it: logged, a 500
            handler = HTTPGatewayV2(event, context, self.config)
            return self._failed(handler, handler.scope, body, exc)
        if answer is None:  # not a route it answers so: Mangum's way
            return self(event, context)
        if _HTTP_LOGGER.isEnabledFor(logging.INFO):  # (Mangum's access line)
            _HTTP_LOGGER.info("%s %s %s", http["method"], path, answer.status)
        length = str(len(answer.body))
        out = _json_proxy(event, self.config, answer.status, answer.body, length)
        if out is not None:
            return out
        return HTTPGatewayV2(event, context, self.config)({  # type: ignore[no-any-return]
            "status": answer.status, "body": answer.body,
            "headers": [(b"content-length", length.encode()), _JSON_TYPE]})


class Loop:
    """A handler's own event loop, made asyncio's current loop just before Mangum runs on it.

    Why: Mangum runs a call on ``asyncio.get_event_loop()``, which it sets up only once, when it
    is built. Anything else in the process that unsets or closes the current loop (an
    ``asyncio.run()``, a test framework) made every later invocation raise RuntimeError,
    answered as a malformed event. Setting it is a thread-local store, done only for a call that
    needs a loop: the derender app's calls run without one (:class:`_EagerHTTPCycle`)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def use(self) -> None:
        if self.loop.is_closed():
            self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
