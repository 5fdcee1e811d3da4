"""``tito gateway``: an OpenAI-compatible server in front of a disaggregated deployment.

Why: users have OpenAI SDKs, not render/generate/derender loops. The gateway serves OpenAI's
``POST /v1/chat/completions``, ``POST /v1/completions`` (SSE ending in ``data: [DONE]`` when
``stream`` is true, JSON otherwise), ``POST /v1/responses`` (the Responses API: a ``Response``,
or with ``stream`` the SSE of its events, each ``event: <type>``) and ``GET /v1/models`` by running each request through
:class:`tito.client.TitoClient`: render (a URL, or tito in-process when ``--render-url`` is
omitted), the engine (``--generate-url``: vLLM ``--tokens-only``, ``tito fake-engine``...) and
derender (a URL, ``lambda:chat=FN,completions=FN,responses=FN`` to invoke the derender functions
directly, or in-process). So any OpenAI client works unchanged against tito on Lambda.

Cost knobs (``bench/bench_cost.py`` prints what they buy): ``--coalesce-ms`` lets a streamed
derender call wait a bounded, growing window for more engine events (the first token never
waits), and a ``lambda:`` derender skips API Gateway's per-request fee. A batch derender too big
for one Lambda call is split into streamed calls by the client (``--max-payload-bytes``).

Errors: whatever stage fails, the answer is OpenAI's error shape ``{"error": {message, type,
param, code}}`` with that stage's status (a stage that cannot be reached is a 502). A stream fails
with a status as long as nothing was sent; once chunks went out, an error becomes one
``data: {"error": ...}`` event followed by ``data: [DONE]`` (what vLLM does, and what the OpenAI
SDK raises on).

``--capture-dir D`` records every engine stream the gateway forwards as a replayable capture
(:mod:`tito.adapters.capture`): ``D/<engine request id>.jsonl`` (a header line with the derender
context, then each engine event) and ``D/<engine request id>.sse`` (the bytes the user got).

Example::

    tito fake-engine --port 8100 &
    tito gateway --generate-url http://127.0.0.1:8100 --port 8080 &
    python -c "import openai; print(openai.OpenAI(base_url='http://127.0.0.1:8080/v1',
        api_key='-').chat.completions.create(model='qwen3', messages=[{'role': 'user',
        'content': 'Hi'}]).choices[0].message)"
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from tito import __version__
from tito.adapters.cli_args import add_server_options, new_parser
from tito.adapters.streaming import ClosingStreamingResponse
from tito.client.engine_events import CoalescePolicy
from tito.client.openai_api import TitoClient
from tito.client.wire import DEFAULT_CHUNKS_PER_CALL, SSE_DONE, Target, TitoClientError, sse_event
from tito.errors import ErrorType, error_body

__all__ = ["create_gateway_app", "gateway_options", "main"]

logger = logging.getLogger("tito.gateway")


def create_gateway_app(
    *,
    generate_url: Target,
    render_url: Target | None = None,
    derender_url: Target | None = None,
    capture_dir: str | Path | None = None,
    chunks_per_call: int = DEFAULT_CHUNKS_PER_CALL,
    engine_stop_strings: bool = False,
    vllm_compatible: bool = False,
    client: TitoClient | None = None,
    **client_kwargs: Any,
) -> FastAPI:
    """The gateway app. Stages are URLs, ASGI apps or ``httpx.AsyncClient`` (see ``TitoClient``).

    ``app.state.client`` is the :class:`TitoClient` it uses (pass ``client`` to supply your own).
    """
    capture = None
    if capture_dir is not None:
        from tito.adapters.capture import CaptureDir

        capture = CaptureDir(capture_dir)
    if client is None:
        client = TitoClient(engine=generate_url, render=render_url, derender=derender_url,
                            chunks_per_call=chunks_per_call,
                            engine_stop_strings=engine_stop_strings,
                            vllm_compatible=vllm_compatible, capture=capture, **client_kwargs)
    elif capture is not None:
        client.capture = capture
    app = FastAPI(title="tito gateway", version=__version__,
                  description="OpenAI-compatible API over tito render/derender and an engine.")
    app.state.client = client
    _install_errors(app)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/v1/models")
    async def models() -> Response:
        return await _answer(client.models)

    def openai_route(path: str, stream: Callable[[dict[str, Any]], AsyncIterator[dict[str, Any]]],
                     batch: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
                     *, named: bool = False) -> None:
        """``POST path``: the body's ``stream`` picks the SSE of ``stream`` or ``batch``'s JSON."""

        async def route(request: Request) -> Response:
            body = await _body(request)
            if isinstance(body, Response):
                return body
            if body.get("stream"):
                return await _stream(stream(body), named=named)
            return await _answer(lambda: batch(body))

        app.add_api_route(path, route, methods=["POST"])

    openai_route("/v1/chat/completions", client.chat_stream, client.chat)
    openai_route("/v1/responses", client.responses_stream, client.responses, named=True)
    openai_route("/v1/completions", client.completions_stream, client.completions)

    return app


def _error(message: str, code: int, type_: str = "BadRequestError") -> JSONResponse:
    return JSONResponse(error_body(message, type_=type_, code=code), status_code=code)


async def _body(request: Request) -> dict[str, Any] | Response:
    """The JSON object of the request, or the 400 to answer."""
    raw = await request.body()
    try:
        body = json.loads(raw)
    except ValueError:
        return _error("The request body is not valid JSON.", 400)
    if not isinstance(body, dict):
        return _error("The request body must be a JSON object.", 400)
    return body


async def _answer(call: Callable[[], Awaitable[dict[str, Any]]]) -> Response:
    try:
        return JSONResponse(await call())
    except TitoClientError as exc:
        return JSONResponse(exc.body, status_code=exc.status)


def _named_event(obj: dict[str, Any]) -> bytes:
    """A Responses SSE event: ``event: <type>`` then its data (OpenAI sends no ``[DONE]``)."""
    kind = obj.get("type") or "error"
    return f"event: {kind}\n".encode() + sse_event(obj)


async def _stream(chunks: AsyncIterator[dict[str, Any]], *, named: bool = False) -> Response:
    """SSE for the user; the first chunk is awaited first so an early error keeps its status.

    ``named``: Responses events (``event:`` lines, no final ``[DONE]``), else chat chunks."""
    write = _named_event if named else sse_event
    try:
        first: dict[str, Any] | None = await chunks.__anext__()
    except StopAsyncIteration:
        first = None
    except TitoClientError as exc:
        return JSONResponse(exc.body, status_code=exc.status)

    async def events() -> AsyncIterator[bytes]:
        try:
            if first is not None:
                yield write(first)
                async for chunk in chunks:
                    yield write(chunk)
        except TitoClientError as exc:
            yield write(exc.body)
        except Exception:  # a bug: still end the stream the way clients understand
            logger.exception("gateway stream failed")
            yield write(error_body("Internal server error.", type_=ErrorType.INTERNAL,
                                   code=500))
        finally:
            await chunks.aclose()  # type: ignore[attr-defined]
        if not named:
            yield SSE_DONE

    return ClosingStreamingResponse(events(), media_type="text/event-stream",
                                     headers={"cache-control": "no-cache"})


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        types = {404: "NotFoundError", 405: "MethodNotAllowed"}
        return _error(str(exc.detail), exc.status_code, types.get(exc.status_code, "Error"))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        logger.exception("gateway error: %s", type(exc).__name__)
        return _error("Internal server error.", 500, "InternalServerError")


def gateway_options(argv: list[str]) -> dict[str, Any]:
    """The ``tito gateway`` command line as :func:`create_gateway_app`'s keyword arguments.

    Why apart from :func:`main`: what the flags build (the coalescing window, the payload cap,
    the stages) is tested on the app itself, without a server. Bad values exit with status 2
    and argparse's message, as any bad option does. The server's own options (``host``,
    ``port``, ``log_level``) are in the result under those keys too; :func:`main` pops them.
    """
    parser = new_parser(
        "tito gateway",
        "An OpenAI-compatible server (/v1/chat/completions, /v1/completions, "
        "/v1/responses, /v1/models) that runs each request through tito render, an engine's "
        "/inference/v1/generate and tito derender, so any OpenAI SDK works unchanged against a "
        "disaggregated deployment.",
    )
    add_server_options(parser, port=8080)
    parser.add_argument("--generate-url", required=True,
                        help="base URL of the engine (serves /inference/v1/generate)")
    parser.add_argument("--render-url", help="base URL of tito render (API Gateway or tito "
                        "serve); omitted: render runs in-process")
    parser.add_argument("--derender-url", help="base URL of tito derender, or "
                        "lambda:chat=FN,completions=FN,responses=FN to lambda.invoke the derender "
                        "functions (no API Gateway fee; needs boto3: pip install 'tito[invoke]'); "
                        "omitted: derender runs in-process")
    parser.add_argument("--capture-dir", type=Path,
                        help="record every engine stream as a replayable capture in this folder")
    parser.add_argument("--chunks-per-call", type=int, default=DEFAULT_CHUNKS_PER_CALL,
                        help="most engine events derendered in one call; only events already "
                        "waiting are batched")
    parser.add_argument("--coalesce-ms", type=float, default=0.0,
                        help="longest wait of a streamed derender call for more engine events "
                        "(ms; the first call never waits, later ones from --coalesce-start-ms "
                        "growing by --coalesce-growth per call to this cap); default 0: only "
                        "the events already waiting")
    parser.add_argument("--coalesce-start-ms", type=float,
                        help="the second call's wait (ms; default: an eighth of --coalesce-ms)")
    parser.add_argument("--coalesce-full-window", action="store_true",
                        help="wait out every window, even when the next engine event is not due "
                        "before it closes (default: send then; see CoalescePolicy.early)")
    parser.add_argument("--coalesce-growth", type=float, default=2.0,
                        help="factor by which the wait grows per call (default 2)")
    parser.add_argument("--max-payload-bytes", type=int,
                        help="largest batch derender request or answer sent in one call; larger "
                        "ones go as streamed calls (default: what fits Lambda's 6 MB)")
    parser.add_argument("--engine-stop-strings", action="store_true",
                        help="send stop strings to the engine too (default: derender enforces "
                        "them and the request is aborted; a --tokens-only vLLM rejects them)")
    parser.add_argument("--vllm-compatible", action="store_true",
                        help="derender one event per call with the full context each time, as a "
                        "vLLM derender server needs")
    args = parser.parse_args(argv)
    if args.chunks_per_call < 1:
        parser.error("--chunks-per-call must be at least 1")
    if args.max_payload_bytes is not None and args.max_payload_bytes < 1024:
        parser.error("--max-payload-bytes must be at least 1024")
    try:
        coalesce = CoalescePolicy(
            max_wait=args.coalesce_ms / 1000, growth=args.coalesce_growth,
            start=None if args.coalesce_start_ms is None else args.coalesce_start_ms / 1000,
            early=not args.coalesce_full_window)
    except ValueError as exc:
        parser.error(str(exc))
    return {"generate_url": args.generate_url, "render_url": args.render_url,
            "derender_url": args.derender_url, "capture_dir": args.capture_dir,
            "chunks_per_call": args.chunks_per_call,
            "engine_stop_strings": args.engine_stop_strings,
            "vllm_compatible": args.vllm_compatible, "coalesce": coalesce,
            "max_payload_bytes": args.max_payload_bytes,
            "host": args.host, "port": args.port, "log_level": args.log_level}


def main(argv: list[str]) -> int:
    """Parse the options and serve the gateway with uvicorn until interrupted."""
    options = gateway_options(argv)
    host, port, log_level = options.pop("host"), options.pop("port"), options.pop("log_level")
    import uvicorn

    logging.basicConfig(level=log_level.upper())
    app = create_gateway_app(**options)
    if options["render_url"] is None or options["derender_url"] is None:
        from tito.models import get_registry

        get_registry()  # in-process stages: load the tokenizers before accepting traffic
    uvicorn.run(app, host=host, port=port, log_level=log_level)
    return 0
