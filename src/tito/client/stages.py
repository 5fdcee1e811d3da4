"""The three stages (render, the engine, derender) a :class:`~tito.client.TitoClient` talks to,
and the raw calls to them.

Why a base class of its own: how a stage is reached (a URL, an in-process ASGI app, the
derender functions by ``lambda.invoke``, an ``httpx.AsyncClient``) and how a call fails is one
concern; what the OpenAI operations do with the answers (:mod:`tito.client.openai_api`) is
another. Nothing else in the package knows which kind of stage it has.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any, Self

import httpx

from tito.client.engine_events import _END, CoalescePolicy, _EngineRun, _read_events
from tito.client.stream_driver import StreamContext, StreamObserver
from tito.client.tasks import _cancel
from tito.client.wire import (
    ABORT_PATH,
    DEFAULT_CHUNKS_PER_CALL,
    GENERATE_PATH,
    RENDER_PATHS,
    Endpoint,
    Target,
    TitoClientError,
    _error_from_response,
    engine_error_body,
)
from tito.errors import ErrorType, error_body


class StageClient:
    """The stages of a :class:`~tito.client.TitoClient` and the calls to them (its base; the
    arguments are :class:`~tito.client.TitoClient`'s)."""

    def __init__(
        self,
        *,
        engine: Target,
        render: Target | None = None,
        derender: Target | None = None,
        chunks_per_call: int = DEFAULT_CHUNKS_PER_CALL,
        engine_stop_strings: bool = False,
        vllm_compatible: bool = False,
        timeout: float = 600.0,
        capture: Callable[[StreamContext], StreamObserver | None] | None = None,
        clock: Callable[[], float] = time.time,
        http_shards: int = 8,
        coalesce: CoalescePolicy | None = None,
        max_payload_bytes: int | None = None,
    ) -> None:
        if chunks_per_call < 1 or http_shards < 1:
            raise ValueError("chunks_per_call and http_shards must be at least 1")
        from tito.adapters.batch_split import DEFAULT_MAX_PAYLOAD_BYTES

        self.coalesce = coalesce or CoalescePolicy()
        self.max_payload_bytes = max_payload_bytes or DEFAULT_MAX_PAYLOAD_BYTES
        self._owned: list[httpx.AsyncClient] = []
        self._timeout = httpx.Timeout(timeout, connect=10.0)
        self.http_shards = http_shards
        local = None
        if render is None or derender is None:
            local = _local_tito_app(render is None, derender is None)
        self.render_http = self._http(render if render is not None else local)
        self.derender_http = (self.render_http if derender is None and render is None
                              else self._http(derender if derender is not None else local))
        self.engine_http = self._http(engine)
        self.chunks_per_call = chunks_per_call
        self.engine_stop_strings = engine_stop_strings
        self.vllm_compatible = vllm_compatible
        self.capture = capture
        self.clock = clock

    def _http(self, target: Any) -> _Stage:
        if isinstance(target, httpx.AsyncClient):
            return _Stage([target])
        if isinstance(target, str) and target.startswith("lambda:"):
            from tito.adapters.transports import LambdaInvokeTransport, parse_lambda_target

            clients = [httpx.AsyncClient(
                transport=LambdaInvokeTransport(parse_lambda_target(target)),
                base_url="http://lambda.invoke", timeout=self._timeout)]
        elif isinstance(target, str):
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
            ssl = _ssl_context()
            clients = [httpx.AsyncClient(base_url=target.rstrip("/"), timeout=self._timeout,
                                         limits=limits, verify=ssl)
                       for _ in range(self.http_shards)]
        elif callable(target):
            from tito.adapters.transports import ASGIStreamTransport

            clients = [httpx.AsyncClient(transport=ASGIStreamTransport(target),
                                         base_url="http://in-process", timeout=self._timeout)]
        else:
            raise TypeError(f"a stage is a URL, an ASGI app or an httpx.AsyncClient: {target!r}")
        self._owned.extend(clients)
        return _Stage(clients)

    async def aclose(self) -> None:
        """Close the HTTP clients this client created."""
        for client in self._owned:
            await client.aclose()
        self._owned.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- stage calls ---------------------------------------------------------------------------

    async def _post(self, stage: str, http: _Stage, path: str, body: Any,
                    content: bytes | None = None) -> Any:
        """POST ``body`` (or its JSON text ``content``, already made) and decode the answer."""
        try:
            resp = await http.post(path, content=content or json.dumps(body).encode(),
                                   headers={"content-type": "application/json"})
        except httpx.HTTPError as exc:
            raise _unreachable(stage, http, exc) from None
        if resp.status_code != 200:
            raise _error_from_response(stage, resp.status_code, resp.content)
        if not resp.content:
            return None
        try:
            return resp.json()
        except ValueError:
            raise TitoClientError(stage, 502, error_body(
                f"{stage} returned a body that is not JSON", type_=ErrorType.BAD_GATEWAY,
                code=502)) from None

    async def models(self) -> dict[str, Any]:
        """``GET /v1/models`` of the render service (the models a user can ask for)."""
        try:
            resp = await self.render_http.get("/v1/models")
        except httpx.HTTPError as exc:
            raise _unreachable("render", self.render_http, exc) from None
        if resp.status_code != 200:
            raise _error_from_response("render", resp.status_code, resp.content)
        return dict(resp.json())

    async def render(self, endpoint: Endpoint, request: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The engine requests for an OpenAI request (chat: one; completions: one per prompt)."""
        out = await self._post("render", self.render_http, RENDER_PATHS[endpoint], request)
        items = out if isinstance(out, list) else [out]
        if not items or not all(isinstance(i, dict) and "token_ids" in i for i in items):
            raise TitoClientError("render", 502, error_body(
                "render returned no GenerateRequest", type_=ErrorType.BAD_GATEWAY, code=502))
        return items

    def _engine_body(self, gen: Mapping[str, Any], stream: bool,
                     stream_options: Any) -> dict[str, Any]:
        body = {k: v for k, v in gen.items() if k != "derender_context"}
        body["stream"] = stream
        if stream and stream_options is not None and body.get("stream_options") is None:
            body["stream_options"] = stream_options
        if not stream:
            body.pop("stream_options", None)
        if not self.engine_stop_strings and isinstance(body.get("sampling_params"), dict):
            body["sampling_params"] = {k: v for k, v in body["sampling_params"].items()
                                       if k != "stop"}
        return body

    async def abort(self, request_ids: Sequence[str]) -> None:
        """Ask the engine to stop generating (ids as the engine returned them)."""
        await self._post("abort", self.engine_http, ABORT_PATH, {"request_ids": list(request_ids)})

    async def _engine_batches(self, gen: Mapping[str, Any], stream_options: Any, run: _EngineRun,
                              observer: StreamObserver | None = None,
                              ) -> AsyncGenerator[list[dict[str, Any]], None]:
        """The engine stream of ``gen`` as batches: the events already waiting plus those that
        arrive within the round's window (:attr:`coalesce`), at most ``chunks_per_call``; ``run``
        records the engine request id and whether it finished."""
        body = self._engine_body(gen, True, stream_options)
        async with contextlib.AsyncExitStack() as stack:
            try:
                resp = await stack.enter_async_context(self.engine_http.stream(
                    "POST", GENERATE_PATH, content=json.dumps(body),
                    headers={"content-type": "application/json"}))
            except httpx.HTTPError as exc:
                raise _unreachable("generate", self.engine_http, exc) from None
            if resp.status_code != 200:
                raise _error_from_response("generate", resp.status_code, await resp.aread())
            queue: asyncio.Queue[Any] = asyncio.Queue()
            reader = asyncio.create_task(_read_events(resp, queue))
            stack.push_async_callback(_cancel, reader)
            loop = asyncio.get_running_loop()
            round_ = seen = 0
            first_at = 0.0  # when the stream's first event was taken (its mean rate's origin)
            while not run.done:
                batch: list[dict[str, Any]] = []
                item = await queue.get()
                deadline = loop.time() + self.coalesce.window(round_)
                round_ += 1
                while True:
                    if item is _END:
                        run.done = True
                        break
                    if isinstance(item, BaseException):
                        raise item
                    if observer is not None:
                        observer.engine_event(item)
                    if "error" in item and "choices" not in item:
                        raise TitoClientError("generate", 500, engine_error_body(item))
                    run.response_id = str(item.get("request_id") or run.response_id)
                    batch.append(item)
                    now = loop.time()
                    if not seen:
                        first_at = now
                    seen += 1
                    if len(batch) >= self.chunks_per_call:
                        break
                    if not queue.empty():
                        item = queue.get_nowait()
                        continue
                    wait = deadline - now
                    if wait <= 0 or self.coalesce.closes_early(wait, now - first_at, seen):
                        break
                    try:
                        async with asyncio.timeout(wait):
                            item = await queue.get()
                    except TimeoutError:
                        break
                if not batch:
                    break
                yield batch


def _unreachable(stage: str, http: _Stage, exc: Exception) -> TitoClientError:
    return TitoClientError(stage, 502, error_body(
        f"cannot reach the {stage} service at {http.base_url}: {type(exc).__name__}: {exc}",
        type_=ErrorType.BAD_GATEWAY, code=502))


class _Stage:
    """One service, reached through one or a few ``httpx.AsyncClient`` used in turn.

    Why several: httpcore's connection pool scans every connection of the pool each time a
    request starts or ends, so one pool holding hundreds of open engine streams spends O(streams)
    per derender call; a few smaller pools divide that cost.
    """

    def __init__(self, clients: Sequence[httpx.AsyncClient]) -> None:
        self.clients = list(clients)
        self._turn = 0

    @property
    def base_url(self) -> httpx.URL:
        return self.clients[0].base_url

    def next(self) -> httpx.AsyncClient:
        client = self.clients[self._turn % len(self.clients)]
        self._turn += 1
        return client

    async def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.next().post(path, **kwargs)

    async def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.next().get(path, **kwargs)

    def stream(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.next().stream(method, path, **kwargs)


_SSL: Any = None


def _ssl_context() -> Any:
    """One SSL context for every client (building one per client costs ~10 ms)."""
    global _SSL
    if _SSL is None:
        import ssl

        _SSL = ssl.create_default_context()
        with contextlib.suppress(ImportError):
            import certifi

            _SSL.load_verify_locations(certifi.where())
    return _SSL


def _local_tito_app(render: bool, derender: bool) -> Any:
    """tito's own app with the endpoints this client runs in-process."""
    from tito.adapters.app import create_app

    endpoints = []
    if render:
        endpoints += ["chat_render", "completions_render", "responses_render"]
    if derender:
        endpoints += ["chat_derender", "completions_derender", "responses_derender"]
    return create_app(endpoints=endpoints)
