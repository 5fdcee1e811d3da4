"""The derender functions' Mangum (the eager HTTP cycle) answers exactly as stock Mangum does.

Why: ``tito.handlers._mangum`` runs the derender app without an event loop or Mangum's request
queue when the app never suspends, and falls back to Mangum's own cycle when it does. These ASGI
test apps cover each case (answers at once, suspends on an await, sends the body in parts then
receives the disconnect, raises before or after starting the answer), each compared with
``Mangum(app)`` on the same API Gateway event.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from typing import Any

import pytest
from mangum import Mangum

from tito.handlers import _events, _mangum


def _event(body: str = '{"a": 1}') -> dict[str, Any]:
    return {
        "version": "2.0", "routeKey": "POST /x", "rawPath": "/x", "rawQueryString": "q=1",
        "headers": {"content-type": "application/json", "host": "h.example", "X-Up": "A"},
        "requestContext": {"http": {"method": "POST", "path": "/x", "sourceIp": "1.2.3.4",
                                    "protocol": "HTTP/1.1", "userAgent": "t"},
                           "requestId": "r", "stage": "$default"},
        "body": body, "isBase64Encoded": False,
    }


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    message = await receive()
    headers = [(b"content-type", b"application/json"), (b"x-path", scope["path"].encode()),
               (b"x-query", scope["query_string"]), (b"x-up", dict(scope["headers"])[b"x-up"])]
    await send({"type": "http.response.start", "status": 201, "headers": headers})
    await send({"type": "http.response.body", "body": message["body"]})


async def _json_answer(scope: Any, receive: Any, send: Any) -> None:
    """The apps' own answer (``tito.adapters.asgi.JsonAnswer``): the proxy answer's fast path."""
    from tito.adapters.asgi import JsonAnswer

    message = await receive()
    await JsonAnswer({"echo": message["body"].decode(), "ü": [1, None]}, 201)(scope, receive, send)


async def _json_not_utf8(scope: Any, receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"2"), (b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b"\xff\xfe"})


async def _sleeps(scope: Any, receive: Any, send: Any) -> None:
    await asyncio.sleep(0)  # suspends: only a loop can finish this call
    await _echo(scope, receive, send)


async def _parts_then_reads_again(scope: Any, receive: Any, send: Any) -> None:
    first = await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": first["body"][:3], "more_body": True})
    await send({"type": "http.response.body", "body": first["body"][3:], "more_body": False})
    after = await receive()  # after the response: Mangum's queue holds the disconnect
    assert after == {"type": "http.disconnect"}


async def _raises(scope: Any, receive: Any, send: Any) -> None:
    raise RuntimeError("boom")


async def _raises_midway(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    raise RuntimeError("boom")


@pytest.mark.parametrize("app", [_echo, _json_answer, _json_not_utf8, _sleeps, _parts_then_reads_again, _raises,
                                 _raises_midway],
                         ids=lambda a: a.__name__.strip("_"))
def test_eager_mangum_answers_as_mangum(app: Any) -> None:
    stock = Mangum(app, lifespan="off")(_event(), None)
    loop = _mangum.Loop()
    eager = _mangum.EagerMangum(app, loop, lifespan="off",
                                    custom_handlers=[_mangum.HTTPGatewayV2])
    assert eager(_event(), None) == stock
    lower = _event()  # API Gateway's own shape: lowercase header names (the one-pass scope)
    lower["headers"] = {k.lower(): v for k, v in lower["headers"].items()}
    lower["cookies"] = []
    assert eager(copy.deepcopy(lower), None) == Mangum(app, lifespan="off")(lower, None)
    assert eager(_event('{"b": "ü"}'), None) == Mangum(app, lifespan="off")(_event('{"b": "ü"}'),
                                                                             None)


def test_eager_cycle_needs_no_loop_and_falls_back_on_a_fresh_one() -> None:
    """A call that never suspends runs with asyncio's loop unset or closed; one that suspends
    gets the handler's own loop (a new one if it was closed)."""
    loop = _mangum.Loop()
    eager = _mangum.EagerMangum(_echo, loop, lifespan="off")
    asyncio.run(asyncio.sleep(0))  # leaves the thread without a current loop
    assert json.loads(eager(_event(), None)["body"]) == {"a": 1}
    loop.loop.close()
    sleeper = _mangum.EagerMangum(_sleeps, loop, lifespan="off")
    assert json.loads(sleeper(_event(), None)["body"]) == {"a": 1}
    assert not loop.loop.is_closed()


@pytest.mark.parametrize("shape", ["as_sent", "lowercase", "cookies", "query", "base_path"])
def test_v2_scope_is_mangums(shape: str) -> None:
    """The one-pass scope of an API Gateway v2 event equals Mangum's own."""
    from mangum.handlers.api_gateway import HTTPGateway

    event = _event()
    config = Mangum(_echo, lifespan="off").config
    if shape != "as_sent":
        event["headers"] = {k.lower(): v for k, v in event["headers"].items()}
    if shape == "cookies":
        event["cookies"] = ["a=1", "b=2"]
    if shape == "query":
        event["rawQueryString"] = "a=%20b&c"
        event["requestContext"]["http"]["path"] = "/x%2Fy"
        event["headers"]["host"] = "h.example:8443"
    if shape == "base_path":
        config = Mangum(_echo, lifespan="off", api_gateway_base_path="/dev").config
        event["requestContext"]["http"]["path"] = "/dev/x"
    assert _mangum.HTTPGatewayV2(event, None, config).scope == HTTPGateway(event, None,
                                                                            config).scope


def _derender_events() -> list[dict[str, Any]]:
    """Requests for the chat derender app: a first streamed call, its next call (the fast
    entry), a batch call, the guard's refusals, an error of the service, other routes."""
    from tito.models import get_registry

    ids = get_registry().get("qwen3").vocab.encode("Hello there, 中文 😀!")
    first = {"stream": True, "model": "qwen3", "chat_request": {"messages": [
        {"role": "user", "content": "hi"}]}, "generate_chunk": {
        "request_id": "generate-tokens-x", "choices": [{"index": 0, "token_ids": ids[:3],
                                                        "finish_reason": None}]}}
    app = _mangum.EagerMangum(_derender_app(), _mangum.Loop(), lifespan="off",
                              custom_handlers=[_mangum.HTTPGatewayV2])
    state = json.loads(app(_derender_event(json.dumps(first)), None)["body"])["stream_state"]
    later = {"stream": True, "model": "qwen3", "stream_state": state, "generate_chunk": {
        "request_id": "generate-tokens-x", "choices": [{"index": 0, "token_ids": ids[3:5],
                                                        "finish_reason": None}]}}
    foreign = {**later, "generate_chunk": {**later["generate_chunk"], "request_id": "other"}}
    batch = {"model": "qwen3", "generate_response": {"request_id": "generate-tokens-y",
             "choices": [{"index": 0, "token_ids": ids, "finish_reason": "stop"}]}}
    events = [_derender_event(json.dumps(b)) for b in (first, later, foreign, batch)]
    events.append(_derender_event(json.dumps(later).replace("qwen3", "nope", 1)))
    events.append(_derender_event("[1, 2]"))
    events.append(_derender_event('{"stream": true, "model": "qwen3", "x": "\\ud800"}'))
    events.append(_derender_event("x" * 40, content_type="text/plain"))
    events.append(_derender_event(json.dumps(later), length="99999999"))
    events.append(_derender_event("", method="GET"))
    events.append(_derender_event("", method="GET", path="/health"))
    return events


def _derender_app() -> Any:
    from tito.adapters.asgi import DerenderApp

    return DerenderApp(["chat_derender"])


def _derender_event(body: str, *, content_type: str = "application/json", length: str = "",
                    method: str = "POST",
                    path: str = "/v1/chat/completions/derender") -> dict[str, Any]:
    event = _event(body)
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    event["headers"] = {"content-type": content_type, "host": "h.example",
                        "content-length": length or str(len(body.encode()))}
    return event


def test_derender_app_answers_through_its_eager_entry_as_through_asgi() -> None:
    """The derender app's eager entry (``respond``: the body given, no ASGI messages) answers
    every request as its ASGI ``__call__`` does behind stock Mangum: the fast path, its
    refusals, service errors, the validated path, the guard's answers, other routes."""
    eager = _mangum.EagerMangum(_derender_app(), _mangum.Loop(), lifespan="off",
                                custom_handlers=[_mangum.HTTPGatewayV2])
    assert eager._respond is not None
    stock = Mangum(_derender_app(), lifespan="off")
    statuses = []
    for event in _derender_events():
        expected = stock(copy.deepcopy(event), None)
        assert eager(copy.deepcopy(event), None) == expected, event["body"][:80]
        statuses.append(expected["statusCode"])
    assert statuses == [200, 200, 400, 200, 404, 400, 400, 400, 413, 405, 200]


def _plain_events() -> list[dict[str, Any]]:
    """:func:`_derender_events` and the header and path shapes :meth:`EagerMangum.plain` reads
    from the event itself or leaves to Mangum's scope: JSON types with parameters, in capitals,
    not ASCII; lengths not ASCII digits, over the limit; names not lowercase; a ``%`` in the
    path; no body."""
    events = _derender_events()
    body = events[1]["body"]  # (a later streamed call: the fast entry)
    for content_type in ("application/json; charset=utf-8", "Application/JSON",
                         " application/json ", "application/jsoné", "text/plain", ""):
        events.append(_derender_event(body, content_type=content_type))
    for length in ("١٢٣", "99999999999", "12x", "-1"):
        events.append(_derender_event(body, length=length))
    upper = _derender_event(body)
    upper["headers"] = {"Content-Type": "application/json", "host": "h.example"}
    events.append(upper)
    no_type = _derender_event(body)
    del no_type["headers"]["content-type"]
    events.append(no_type)
    events.append(_derender_event(body, path="/v1/chat/completions/%64erender"))
    events.append(_derender_event(body, path="/v1/chat/completions/derender/"))
    no_body = _derender_event("")
    no_body["body"] = None
    events.append(no_body)
    return events


@pytest.mark.parametrize("base", ["/", "/v1"])
def test_plain_entry_answers_as_mangum(base: str) -> None:
    """:meth:`EagerMangum.plain` (what the handler calls for an event :func:`plain_v2` passes)
    answers every event as :meth:`EagerMangum.__call__` and as stock Mangum do, whether it
    reads the event's own fields or leaves the event to Mangum's scope (a base path to strip, a
    ``%`` in the path, names not lowercase, a route without the eager entry)."""
    eager = _mangum.EagerMangum(_derender_app(), _mangum.Loop(), lifespan="off",
                                api_gateway_base_path=base,
                                custom_handlers=[_mangum.HTTPGatewayV2])
    stock = Mangum(_derender_app(), lifespan="off", api_gateway_base_path=base)
    assert eager._respond_plain is not None
    plain_answers = 0
    for event in _plain_events():
        assert _events.plain_v2(event), event
        expected = stock(copy.deepcopy(event), None)
        assert eager.plain(copy.deepcopy(event), None) == expected, (event["headers"],
                                                                    event["body"])
        assert eager(copy.deepcopy(event), None) == expected
        plain_answers += expected["statusCode"] == 200
    assert plain_answers >= (4 if base == "/" else 0)  # (under /v1 these paths are 404s)


class _Stop(BaseException):
    """Not an ``Exception``: the apps do not answer it themselves."""


def test_plain_entry_app_raising_is_mangums_500() -> None:
    """An app whose eager entries raise what it does not answer itself gets Mangum's 500 (its
    log line) through :meth:`EagerMangum.plain` as through ``__call__``."""
    app = _derender_app()

    def stop(*args: Any) -> None:
        raise _Stop("stop")

    app.respond = app.respond_plain = stop
    eager = _mangum.EagerMangum(app, _mangum.Loop(), lifespan="off",
                                custom_handlers=[_mangum.HTTPGatewayV2])
    event = _derender_events()[1]
    answer = eager.plain(copy.deepcopy(event), None)
    assert answer == eager(copy.deepcopy(event), None)
    assert answer["statusCode"] == 500


def _render_events() -> list[dict[str, Any]]:
    """Requests for the chat render app: a common body (the hand check), one pydantic validates
    (tools), X-Request-Id headers (ASCII, not ASCII, in capitals: Mangum's scope), the
    service's 400s, the guard's refusals, other methods and routes."""
    path = "/v1/chat/completions/render"
    chat = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi, 中文 😀"}]}
    tools = {**chat, "tools": [{"type": "function", "function": {
        "name": "f", "parameters": {"type": "object", "properties": {}}}}]}
    bodies = [json.dumps(chat), json.dumps(tools), json.dumps({**chat, "model": "nope"}),
              json.dumps({**chat, "messages": []}), json.dumps({**chat, "n": "x"}),
              '{"model": "qwen3", "messages": [{"role": "user", "content": "\\ud800"}]}',
              "[1, 2]", "{", json.dumps({**chat, "max_tokens": 10 ** 9})]
    events = [_derender_event(b, path=path) for b in bodies]
    for request_id in ("my-id", "ïd-é"):
        event = _derender_event(bodies[0], path=path)
        event["headers"]["x-request-id"] = request_id
        events.append(event)
    upper = _derender_event(bodies[0], path=path)
    upper["headers"]["X-Request-Id"] = "caps"
    events.append(upper)
    events.append(_derender_event(bodies[0], path=path, content_type="text/plain"))
    events.append(_derender_event(bodies[0], path=path, length="99999999"))
    events.append(_derender_event("", path=path, method="GET"))
    events.append(_derender_event("", path="/health", method="GET"))
    events.append(_derender_event(bodies[0], path="/v1/completions/render"))
    no_body = _derender_event("", path=path)
    no_body["body"] = None
    events.append(no_body)
    return events


def _drawn_ids(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` with the request ids render draws at random (no X-Request-Id) made equal."""
    return {**answer, "body": re.sub("chatcmpl-[0-9a-f]{16}", "chatcmpl-drawn", answer["body"])}


def test_render_app_answers_through_its_eager_entries_as_mangum() -> None:
    """The render app's eager entries (``respond``, and ``respond_plain`` from the event's own
    fields) answer every request as its ASGI ``__call__`` does behind stock Mangum."""
    from tito.adapters.asgi_render import RenderApp

    eager = _mangum.EagerMangum(RenderApp(["chat_render"]), _mangum.Loop(), lifespan="off",
                                custom_handlers=[_mangum.HTTPGatewayV2])
    assert eager._respond is not None and eager._respond_plain is not None
    stock = Mangum(RenderApp(["chat_render"]), lifespan="off")
    statuses, ids = [], []
    for event in _render_events():
        assert _events.plain_v2(event), event
        expected = _drawn_ids(stock(copy.deepcopy(event), None))
        assert _drawn_ids(eager.plain(copy.deepcopy(event), None)) == expected, event["body"]
        assert _drawn_ids(eager(copy.deepcopy(event), None)) == expected, event["body"]
        statuses.append(expected["statusCode"])
        if expected["statusCode"] == 200 and "request_id" in expected["body"]:
            ids.append(json.loads(expected["body"])["request_id"])
    assert statuses == [200, 200, 404, 400, 400, 400, 400, 400, 400, 200, 200, 200, 400, 413,
                        405, 200, 404, 400]
    assert ids[2:5] == ["chatcmpl-" + i for i in ("my-id", "ïd-é".encode().decode("latin-1"), "caps")]
