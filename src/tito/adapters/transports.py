"""httpx transports for :mod:`tito.client`: an ASGI app that really streams, and direct Lambda Invoke.

Why these two:

- **Streaming in-process.** ``httpx.ASGITransport`` runs the app to completion and buffers the
  whole body before the response is returned, so an in-process engine's SSE arrives in one piece
  at the end: the client's batching and its wait window (what they cost and what they save) could
  not be observed, and a stop string could not abort anything. :class:`ASGIStreamTransport` hands
  each ``http.response.body`` message to the reader as it is sent, and closing the response
  cancels the app (a user going away, as over a socket).
- **Direct Invoke.** Through API Gateway every derender call pays the HTTP API's request fee
  ($1.00 per million, five times Lambda's own $0.20). :class:`LambdaInvokeTransport` calls the
  derender functions with ``lambda.invoke`` instead, sending the same API Gateway HTTP API
  (payload 2.0) event the HTTP path would produce, so the function cannot tell the difference,
  and turns the Lambda proxy answer back into an HTTP response. boto3 is imported only when this
  transport is built (the ``invoke`` extra: ``pip install 'tito[invoke]'``).

Both are plain ``httpx.AsyncBaseTransport``: :class:`tito.client.TitoClient` takes an
``httpx.AsyncClient`` over either as a stage, or the target string ``lambda:chat=FN,...``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote

import httpx

from tito.errors import ErrorType, error_body

__all__ = [
    "DERENDER_FUNCTION_PATHS",
    "ASGIStreamTransport",
    "LambdaInvokeTransport",
    "api_gateway_event",
    "parse_lambda_target",
]

#: The stage names of a ``lambda:`` target and the routes their functions serve.
DERENDER_FUNCTION_PATHS = {
    "chat": "/v1/chat/completions/derender",
    "completions": "/v1/completions/derender",
    "responses": "/v1/responses/derender",
}


def api_gateway_event(path: str, body: bytes | str | Mapping[str, Any], *, seq: int = 0,
                      method: str = "POST", source: str = "tito-client") -> dict[str, Any]:
    """The API Gateway HTTP API (payload 2.0) event of ``method path`` carrying ``body`` (JSON).

    This is what API Gateway hands the function for the same HTTP request, so a function invoked
    directly with it runs exactly the code path it runs behind the API.
    """
    if isinstance(body, Mapping):
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    else:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"content-type": "application/json",
                    "content-length": str(len(text.encode())), "host": f"{source}.local"},
        "requestContext": {
            "accountId": "000000000000", "apiId": source, "domainName": f"{source}.local",
            "domainPrefix": source,
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                     "sourceIp": "127.0.0.1", "userAgent": source},
            "requestId": f"{source}-{seq}", "routeKey": f"{method} {path}", "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": text,
        "isBase64Encoded": False,
    }


# -- in-process, streamed ------------------------------------------------------------------------


class ASGIStreamTransport(httpx.AsyncBaseTransport):
    """Run an ASGI app per request and stream its body to the caller as it is produced."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = b"".join([part async for part in request.stream])  # type: ignore[union-attr]
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": request.method, "scheme": request.url.scheme,
            "path": unquote(request.url.path), "raw_path": request.url.raw_path.split(b"?")[0],
            "query_string": request.url.query, "root_path": "",
            "headers": [(k.lower(), v) for k, v in request.headers.raw],
            "server": (request.url.host, request.url.port or 80), "client": ("127.0.0.1", 50000),
        }
        loop = asyncio.get_running_loop()
        started: asyncio.Future[dict[str, Any]] = loop.create_future()
        parts: asyncio.Queue[Any] = asyncio.Queue()
        gone = asyncio.Event()
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                started.set_result(message)
            elif message["type"] == "http.response.body":
                if message.get("body"):
                    parts.put_nowait(message["body"])
                if not message.get("more_body", False):
                    parts.put_nowait(None)

        async def run() -> None:
            try:
                await self.app(scope, receive, send)
            except BaseException as exc:  # noqa: BLE001 - handed to whoever reads
                if not started.done():
                    started.set_exception(exc)
                else:
                    parts.put_nowait(exc)
                if not isinstance(exc, Exception):
                    raise
            finally:
                if not started.done():
                    started.set_exception(RuntimeError("the ASGI app sent no response"))
                parts.put_nowait(None)

        task = loop.create_task(run())
        try:
            start = await started
        except BaseException:
            task.cancel()
            raise
        return httpx.Response(start["status"], headers=start.get("headers") or [],
                              stream=_AppBody(parts, task, gone), request=request)


class _AppBody(httpx.AsyncByteStream):
    def __init__(self, parts: asyncio.Queue[Any], task: asyncio.Task[None],
                 gone: asyncio.Event) -> None:
        self.parts, self.task, self.gone = parts, task, gone
        self.complete = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            part = await self.parts.get()
            if part is None:
                self.complete = True
                return
            if isinstance(part, BaseException):
                raise part
            yield part

    async def aclose(self) -> None:
        """The reader is done: a complete response lets the app finish (as a server does); one
        closed early is a client gone away: the app hears ``http.disconnect`` and is stopped."""
        self.gone.set()
        if not self.complete and not self.task.done():
            self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task


# -- direct Lambda Invoke ------------------------------------------------------------------------


def parse_lambda_target(target: str) -> dict[str, str]:
    """``lambda:chat=FN,completions=FN,responses=FN`` -> ``{route path: function}`` (ValueError).

    A function is a name, a partial or a full ARN (with an alias or version), as ``invoke`` takes;
    the stack's outputs name them (``ChatDerenderFunctionName`` ...).
    """
    spec = target.removeprefix("lambda:")
    functions: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in spec.split(","))):
        stage, sep, function = item.partition("=")
        if not sep or stage not in DERENDER_FUNCTION_PATHS or not function:
            raise ValueError(f"a lambda target is 'lambda:chat=FN,completions=FN,responses=FN' "
                             f"(any of them), not {target!r}")
        functions[DERENDER_FUNCTION_PATHS[stage]] = function
    if not functions:
        raise ValueError(f"a lambda target names at least one function: {target!r}")
    return functions


class LambdaInvokeTransport(httpx.AsyncBaseTransport):
    """``POST path`` as ``lambda.invoke`` of the function serving ``path``, on its API Gateway event.

    ``functions`` maps route paths to function names or ARNs. ``client`` is a boto3 Lambda client
    (default: ``boto3.client("lambda", region_name=region)``); its blocking calls run on a pool of
    ``max_workers`` threads so concurrent streams invoke concurrently. A route without a function
    is a 404; a function error (an unhandled exception, a timeout) a 502; a payload Lambda refuses
    as too large a 413, as API Gateway would answer.
    """

    def __init__(self, functions: Mapping[str, str], *, client: Any = None,
                 region: str | None = None, max_workers: int = 64) -> None:
        if client is None:
            import boto3  # the ``invoke`` extra; only this transport needs it

            client = boto3.client("lambda", region_name=region)
        self.functions = dict(functions)
        self.client = client
        self._pool = ThreadPoolExecutor(max_workers=max_workers,
                                        thread_name_prefix="tito-invoke")
        self._seq = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        function = self.functions.get(path)
        if function is None:
            return _json_response(request, 404, error_body(
                f"no Lambda function is configured for {path}", type_=ErrorType.NOT_FOUND,
                code=404))
        body = b"".join([part async for part in request.stream])  # type: ignore[union-attr]
        self._seq += 1
        event = api_gateway_event(path, body, seq=self._seq, method=request.method)
        payload = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()
        loop = asyncio.get_running_loop()
        try:
            out = await loop.run_in_executor(self._pool, lambda: self.client.invoke(
                FunctionName=function, InvocationType="RequestResponse", Payload=payload))
        except Exception as exc:  # botocore's ClientError and connection errors
            return _invoke_error(request, function, exc)
        raw = out["Payload"].read()
        if out.get("FunctionError"):
            return _json_response(request, 502, error_body(
                f"Lambda function {function} failed ({out['FunctionError']}): "
                f"{raw[:300].decode('utf-8', 'replace')}", type_=ErrorType.BAD_GATEWAY,
                code=502))
        try:
            answer = json.loads(raw)
            status = int(answer["statusCode"])
            text = answer.get("body") or ""
            content = (base64.b64decode(text) if answer.get("isBase64Encoded")
                       else text.encode("utf-8"))
            headers = dict(answer.get("headers") or {})
        except (ValueError, KeyError, TypeError):
            return _json_response(request, 502, error_body(
                f"Lambda function {function} returned no API Gateway proxy response",
                type_=ErrorType.BAD_GATEWAY, code=502))
        headers.pop("content-length", None)
        return httpx.Response(status, headers=headers, content=content, request=request)

    async def aclose(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _json_response(request: httpx.Request, status: int, body: Any) -> httpx.Response:
    return httpx.Response(status, json=body, request=request)


def _invoke_error(request: httpx.Request, function: str, exc: Exception) -> httpx.Response:
    """A refused invoke as the status API Gateway would have answered."""
    err = getattr(exc, "response", None) or {}
    code = str((err.get("Error") or {}).get("Code") or type(exc).__name__)
    message = f"lambda.invoke of {function} failed: {code}: {exc}"
    if code in ("RequestEntityTooLargeException", "RequestTooLargeException"):
        return _json_response(request, 413, error_body(
            message, type_=ErrorType.TOO_LARGE, code=413))
    status = 429 if code == "TooManyRequestsException" else 502
    return _json_response(request, status, error_body(
        message, type_="TooManyRequests" if status == 429 else ErrorType.BAD_GATEWAY,
        code=status))
