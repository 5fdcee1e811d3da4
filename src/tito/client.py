"""``tito.client``: one OpenAI request through render -> generate -> derender, batch or streamed.

Why a client: disaggregated serving moves the OpenAI server's loop out of the server. Someone has
to call render, send the ``GenerateRequest`` to the engine, and feed every engine chunk to
derender with the state the previous call returned. This module is that loop, written once and
used by the gateway (:mod:`tito.adapters.gateway`), by replay (:mod:`tito.adapters.replay`) and by
anyone who wants OpenAI responses out of a tito deployment and an engine from Python.

Example::

    import asyncio
    from tito.client import TitoClient

    async def main() -> None:
        async with TitoClient(engine="http://127.0.0.1:8100") as client:   # render/derender
            reply = await client.chat({"model": "qwen3",                   # in-process
                                       "messages": [{"role": "user", "content": "Hi"}]})
            async for chunk in client.chat_stream({"model": "qwen3", "messages": [...]}):
                print(chunk["choices"])

    asyncio.run(main())

Theory of operation (streaming)
-------------------------------
- **Stages are swappable transports** (as httpx's): each of render, derender and the engine is a
  base URL (a deployed API Gateway, ``tito serve``, a vLLM server), an ASGI app run in-process
  (streamed, :class:`~tito.adapters.transports.ASGIStreamTransport`; ``None`` for
  render/derender means tito's own app), the derender functions invoked directly
  (``"lambda:chat=FN,completions=FN,responses=FN"``: ``lambda.invoke`` with the API Gateway event,
  no API Gateway fee), or an ``httpx.AsyncClient`` you configure. Nothing else in this module
  knows which.
- **What derender is told.** Each choice's first derender call carries render's compact
  ``derender_context`` (settings + prompt tail); later calls only the state. Without a context
  (a vLLM render) or with ``vllm_compatible``, vLLM's ``chat_request``/``completion_request`` and
  ``prompt_token_ids`` travel instead (on every call when ``vllm_compatible``).
- **One state per choice index.** The engine interleaves single-choice events of the ``n``
  choices; :class:`StreamDerenderer` keeps each index's ``stream_state`` and sends every event with
  its own index's state. A usage-only event (``choices: []``) rides with index 0's state.
- **Batching what is already waiting.** A reader task queues engine events as they arrive; each
  round takes everything queued (up to ``chunks_per_call`` events), groups it by choice index and
  derenders each group in one call (``generate_chunks``, tito's extension; one event alone goes as
  vLLM's ``generate_chunk``); groups of different indices run concurrently. Outputs come back in
  engine order. Derender is chunking-invariant, so batching changes cost, never output.
- **Waiting a little for more** (:class:`CoalescePolicy`, off by default). Every call costs a
  request fee whatever it carries, so a round may also wait for more events: the first round
  not at all (the first token is never delayed), then a window that starts at ``start`` and grows
  by ``growth`` per round up to ``max_wait``, counted from the round's first event. A round ends
  early when ``chunks_per_call`` events are in or the engine stream ends.
- **Oversized batch answers.** A batch derender (chat, completions, Responses) whose request or
  answer would not fit the functions' payload limit (Lambda's 6 MB, counted as the event carries
  the body: JSON-escaped; top-5 logprobs pass it near 14k tokens) is sent as streamed calls and
  assembled into the very answer the batch call would give (:mod:`tito.adapters.batch_split`).
- **What the user sees.** A derendered chunk whose only choice carries nothing (text held back by
  the detokenizer or a stop-string prefix) is not forwarded, nor is anything for a choice after it
  finished; a usage-only chunk always is. Every chunk of one response shares one ``id`` (the
  engine request's) and one ``created`` (fixed when the stream starts; derender would otherwise
  stamp each choice's first call separately).
- **Stop strings abort the engine.** When every choice has finished as far as the user is
  concerned and derender ended at least one of them (a stop string fired) while the engine is
  still generating it, the client posts the request id to ``/inference/v1/abort_requests`` once,
  then reads the engine stream to its end (the trailing usage event still counts).
  Engine-side ``stop`` strings are removed from the request by default
  (``engine_stop_strings=False``): a ``--tokens-only`` vLLM refuses them (400), and derender
  enforces them exactly anyway. A stage failing mid-stream, or the caller closing the stream
  early (a user who disconnected from the gateway), aborts the engine request too.
- The same :class:`StreamDerenderer` drives replay, so a replayed capture yields the very bytes
  the gateway sent (see :func:`sse_event`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

import httpx

from tito.errors import ErrorType, error_body
from tito.service.responses_assembler import Assembler

__all__ = [
    "SSE_DONE",
    "CoalescePolicy",
    "DerenderCall",
    "Endpoint",
    "StreamContext",
    "StreamDerenderer",
    "StreamObserver",
    "Target",
    "TitoClient",
    "TitoClientError",
    "derender_batch",
    "derender_batch_sync",
    "engine_error_body",
    "error_body",
    "sse_event",
]

Endpoint = Literal["chat", "completions"]
#: A stage: a base URL, an in-process ASGI app, or a ready ``httpx.AsyncClient``.
Target: TypeAlias = str | httpx.AsyncClient | Callable[..., Any]

GENERATE_PATH = "/inference/v1/generate"
ABORT_PATH = "/inference/v1/abort_requests"
RENDER_PATHS: dict[Endpoint, str] = {
    "chat": "/v1/chat/completions/render",
    "completions": "/v1/completions/render",
}
DERENDER_PATHS: dict[Endpoint, str] = {
    "chat": "/v1/chat/completions/derender",
    "completions": "/v1/completions/derender",
}
RESPONSES_RENDER_PATH = "/v1/responses/render"
RESPONSES_DERENDER_PATH = "/v1/responses/derender"
#: The line that ends every OpenAI (and generate) SSE stream.
SSE_DONE = b"data: [DONE]\n\n"
#: Default bound on engine events per derender call (a request-size bound, not a latency one).
DEFAULT_CHUNKS_PER_CALL = 32
_END = object()


@dataclass(frozen=True)
class CoalescePolicy:
    """How long a derender round may wait for more engine events (seconds; see the header).

    Round 0 never waits; round ``k >= 1`` waits ``min(max_wait, start * growth ** (k - 1))``
    after its first event (``start`` defaults to ``max_wait / 8``). ``max_wait = 0`` (the
    default) sends what is waiting and never waits. The wait bounds the latency a token gains;
    what it buys is fewer calls: ``bench/bench_cost.py`` prints the trade-off.
    """

    max_wait: float = 0.0
    growth: float = 2.0
    start: float | None = None

    def __post_init__(self) -> None:
        if not (self.max_wait >= 0 and self.growth >= 1 and (self.start is None
                                                             or self.start >= 0)):
            raise ValueError("CoalescePolicy needs max_wait >= 0, growth >= 1 and start >= 0")

    def window(self, round_: int) -> float:
        """The wait of round ``round_`` (0-based)."""
        if round_ == 0 or self.max_wait == 0:
            return 0.0
        start = self.max_wait / 8 if self.start is None else self.start
        try:
            return min(self.max_wait, start * self.growth ** (round_ - 1))
        except OverflowError:
            return self.max_wait


# -- errors and SSE ------------------------------------------------------------------------------


class TitoClientError(Exception):
    """A stage answered with an error (or could not be reached).

    ``status`` is the HTTP status to pass on, ``body`` the OpenAI-shaped error body (the stage's
    own when it sent one), ``stage`` one of ``render``, ``generate``, ``derender``, ``abort``.
    """

    def __init__(self, stage: str, status: int, body: dict[str, Any]) -> None:
        self.stage = stage
        self.status = status
        self.body = body
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
        super().__init__(f"{stage} failed ({status}): {message or body}")


def sse_event(obj: Mapping[str, Any]) -> bytes:
    """One SSE ``data:`` event, serialized the one way tito does (compact, UTF-8, keys in order).

    The gateway and replay both write with this, which is what makes a replay byte-identical.
    """
    return b"data: " + json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def _error_from_response(stage: str, status: int, content: bytes) -> TitoClientError:
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if not (isinstance(body, dict) and isinstance(body.get("error"), dict)):
        text = content.decode("utf-8", "replace")[:500] or f"HTTP {status}"
        body = error_body(f"{stage}: {text}", type_=_type_for(status), code=status)
    return TitoClientError(stage, status, body)


def _type_for(status: int) -> str:
    return {400: "BadRequestError", 404: "NotFoundError", 422: "UnprocessableEntityError",
            501: "NotImplementedError", 502: "BadGatewayError"}.get(
        status, "InternalServerError" if status >= 500 else "BadRequestError")


# -- the per-stream context (also the capture header) --------------------------------------------


@dataclass
class StreamContext:
    """What derender needs to turn one engine stream into OpenAI chunks.

    It is sent with the first derender call of each choice (the state carries it afterwards) and
    it is the header of a capture, so a replay derenders exactly as the live stream did.
    ``created``/``id``/``index_offset`` shape the chunks the user sees (see the module header).
    """

    endpoint: Endpoint
    model: str | None = None
    prompt_token_ids: list[int] | None = None
    prompt_tokens: int | None = None
    request: dict[str, Any] | None = None  #: the chat_request / completion_request
    derender_context: dict[str, Any] | None = None  #: render's ``derender_context``, passed on
    n: int = 1
    created: int | None = None
    id: str | None = None
    index_offset: int = 0

    @property
    def request_field(self) -> str:
        return "chat_request" if self.endpoint == "chat" else "completion_request"

    def derender_fields(self, *, vllm_compatible: bool = False) -> dict[str, Any]:
        """The request-derived fields of a derender body (first call per choice).

        With render's ``derender_context`` that small object is all derender needs (the prompt
        tail rides in it), so neither the whole request (a long conversation) nor the prompt ids
        travel; otherwise (a vLLM render, or ``vllm_compatible``) vLLM's fields do.
        """
        out: dict[str, Any] = {"model": self.model}
        if self.derender_context is not None and not vllm_compatible:
            out["derender_context"] = self.derender_context
            return out
        if self.prompt_token_ids is not None:
            out["prompt_token_ids"] = self.prompt_token_ids
        if self.request is not None:
            out[self.request_field] = self.request
        return out

    def to_header(self) -> dict[str, Any]:
        """The capture header line (``{"tito_capture": 1, ...}``)."""
        header: dict[str, Any] = {"tito_capture": 1, "endpoint": self.endpoint, "model": self.model,
                                  "n": self.n, "created": self.created}
        if self.id is not None:
            header["id"] = self.id
        if self.index_offset:
            header["index_offset"] = self.index_offset
        header["prompt_tokens"] = self.prompt_tokens
        header["prompt_token_ids"] = self.prompt_token_ids
        header[self.request_field] = self.request
        if self.derender_context is not None:
            header["derender_context"] = self.derender_context
        return header

    @classmethod
    def from_header(cls, header: Mapping[str, Any]) -> StreamContext:
        """Inverse of :meth:`to_header` (ValueError for a malformed header)."""
        endpoint = header.get("endpoint", "chat")
        if endpoint not in DERENDER_PATHS:
            raise ValueError(f"endpoint must be 'chat' or 'completions', got {endpoint!r}")
        request_field = "chat_request" if endpoint == "chat" else "completion_request"
        ids = header.get("prompt_token_ids")
        if ids is not None and not (isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
            raise ValueError("prompt_token_ids must be a list of integers")
        request = header.get(request_field)
        if request is not None and not isinstance(request, dict):
            raise ValueError(f"{request_field} must be an object")
        context = header.get("derender_context")
        if context is not None and not isinstance(context, dict):
            raise ValueError("derender_context must be an object")
        n = header.get("n", 1)
        created = header.get("created")
        if not isinstance(n, int) or n < 1:
            raise ValueError("n must be a positive integer")
        if created is not None and not isinstance(created, int):
            raise ValueError("created must be an integer")
        return cls(endpoint=endpoint, model=header.get("model"), prompt_token_ids=ids,
                   prompt_tokens=header.get("prompt_tokens"), request=request,
                   derender_context=context, n=n,
                   created=created, id=header.get("id"),
                   index_offset=int(header.get("index_offset") or 0))


class StreamObserver(Protocol):
    """Sees one engine stream go by (the gateway's capture writer implements it)."""

    def engine_event(self, event: dict[str, Any]) -> None:
        """Every parsed engine ``data:`` object, in order (an ``{"error": ...}`` event included)."""

    def output(self, chunk: dict[str, Any]) -> None:
        """Every OpenAI chunk sent to the user for this stream."""

    def close(self, error: dict[str, Any] | None = None) -> None:
        """The stream ended (``error``: the error body sent to the user, if it failed)."""


# -- the sans-I/O stream driver ------------------------------------------------------------------


@dataclass
class DerenderCall:
    """One derender call: engine events of one choice index (or usage-only events)."""

    index: int
    positions: list[int]
    events: list[dict[str, Any]]


def _choice_index(event: Mapping[str, Any]) -> int | None:
    choices = event.get("choices") or []
    return int(choices[0].get("index", 0)) if choices else None


def _empty_choice(choice: Mapping[str, Any], endpoint: Endpoint) -> bool:
    if choice.get("finish_reason") is not None:
        return False
    lp = choice.get("logprobs")
    if lp and (lp.get("content") or lp.get("tokens")):
        return False
    if endpoint == "completions":
        return not choice.get("text")
    delta = choice.get("delta") or {}
    return not (delta.get("role") or delta.get("content") or delta.get("reasoning")
                or delta.get("tool_calls"))


class StreamDerenderer:
    """Turns one engine stream into the OpenAI chunks a user sees, without doing any I/O.

    Drive it with :meth:`calls` (the derender calls a batch of engine events needs, one lane per
    choice index: calls in a lane run in order, lanes may run concurrently), :meth:`body` (each
    call's request body, built when the call is made since it carries the latest state),
    :meth:`accept` (each response) and :meth:`outputs` (the batch's chunks, in engine order).
    :func:`derender_batch` and :func:`derender_batch_sync` do exactly that.

    ``vllm_compatible`` sends one event per call with the request context on every call, as a
    vLLM derender server requires; otherwise events of one index go in one call and the context
    only with each choice's first call.
    """

    def __init__(self, context: StreamContext, *, vllm_compatible: bool = False) -> None:
        self.context = context
        self.path = DERENDER_PATHS[context.endpoint]
        self.vllm_compatible = vllm_compatible
        self.states: dict[int, dict[str, Any] | None] = {}
        self.finished: set[int] = set()  #: choices the user has seen finish
        self.engine_finished: set[int] = set()  #: choices the engine has finished
        self.aborted = False
        self._pending: list[dict[str, Any]] = []
        self._results: dict[int, dict[str, Any] | None] = {}

    # -- planning ----------------------------------------------------------------------------

    def calls(self, events: Sequence[dict[str, Any]]) -> list[list[DerenderCall]]:
        """Plan the derender calls of a batch of engine events (lanes per choice index)."""
        self._pending = list(events)
        self._results = {}
        groups: dict[int, list[int]] = {}
        for pos, event in enumerate(events):
            index = _choice_index(event)
            if index is None:
                index = 0  # a usage-only event: any state will do (spec 3.6); use index 0's
            elif index in self.finished:
                self._results[pos] = None  # nothing more is shown for a finished choice
                continue
            groups.setdefault(index, []).append(pos)
        lanes = []
        for index, positions in groups.items():
            if self.vllm_compatible:
                lanes.append([DerenderCall(index, [p], [events[p]]) for p in positions])
            else:
                lanes.append([DerenderCall(index, positions, [events[p] for p in positions])])
        return lanes

    def body(self, call: DerenderCall) -> dict[str, Any]:
        """The JSON body of ``call``, with the index's current state."""
        state = self.states.get(call.index)
        body: dict[str, Any] = {"stream": True}
        if state is None or self.vllm_compatible:
            body.update(self.context.derender_fields(vllm_compatible=self.vllm_compatible))
        else:
            body["model"] = self.context.model
        if self.context.prompt_tokens is not None:
            body["prompt_tokens"] = self.context.prompt_tokens
        body["stream_state"] = state
        if len(call.events) == 1:
            body["generate_chunk"] = call.events[0]
        else:
            body["generate_chunks"] = call.events
        return body

    def accept(self, call: DerenderCall, response: Mapping[str, Any]) -> None:
        """Record a derender response: the index's new state and its chunk(s)."""
        chunks = response.get("chunks")
        if chunks is None:
            chunks = [response.get("chunk")]
        if len(chunks) != len(call.positions):
            raise TitoClientError("derender", 502, error_body(
                f"derender returned {len(chunks)} chunks for {len(call.events)} engine events",
                type_=ErrorType.BAD_GATEWAY, code=502))
        self.states[call.index] = response.get("stream_state")
        for pos, event, chunk in zip(call.positions, call.events, chunks):
            self._results[pos] = chunk
            for choice in event.get("choices") or []:
                if choice.get("finish_reason") is not None:
                    self.engine_finished.add(int(choice.get("index", 0)))
            for choice in (chunk or {}).get("choices") or []:
                if choice.get("finish_reason") is not None:
                    self.finished.add(int(choice.get("index", 0)))

    def outputs(self) -> list[dict[str, Any]]:
        """The batch's chunks for the user, in engine order (filtered and normalized)."""
        out = []
        for pos, event in enumerate(self._pending):
            chunk = self._results.get(pos)
            if chunk is None:
                continue
            if event.get("choices"):
                choices = [c for c in chunk.get("choices") or []
                           if not _empty_choice(c, self.context.endpoint)]
                if not choices:
                    continue
                chunk = {**chunk, "choices": choices}
            out.append(self._normalize(chunk))
        self._pending, self._results = [], {}
        return out

    def _normalize(self, chunk: dict[str, Any]) -> dict[str, Any]:
        ctx = self.context
        if ctx.created is None and isinstance(chunk.get("created"), int):
            ctx.created = chunk["created"]
        if ctx.created is not None and "created" in chunk:
            chunk["created"] = ctx.created
        if ctx.id is not None and "id" in chunk:
            chunk["id"] = ctx.id
        if ctx.index_offset:
            chunk["choices"] = [{**c, "index": c.get("index", 0) + ctx.index_offset}
                                for c in chunk["choices"]]
        return chunk

    @property
    def should_abort(self) -> bool:
        """True once: every choice is over for the user but the engine still generates one."""
        every = set(range(self.context.n))
        return (not self.aborted and every <= self.finished
                and not every <= self.engine_finished)


async def derender_batch(
    driver: StreamDerenderer,
    events: Sequence[dict[str, Any]],
    send: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Derender a batch of engine events with an async ``send(path, body) -> json``."""

    async def lane(calls: list[DerenderCall]) -> None:
        for call in calls:
            driver.accept(call, await send(driver.path, driver.body(call)))

    await asyncio.gather(*(lane(calls) for calls in driver.calls(events)))
    return driver.outputs()


def derender_batch_sync(
    driver: StreamDerenderer,
    events: Sequence[dict[str, Any]],
    send: Callable[[str, dict[str, Any]], dict[str, Any]],
) -> list[dict[str, Any]]:
    """:func:`derender_batch` with a blocking ``send`` (lanes run one after the other)."""
    for calls in driver.calls(events):
        for call in calls:
            driver.accept(call, send(driver.path, driver.body(call)))
    return driver.outputs()


# -- the client ----------------------------------------------------------------------------------


class TitoClient:
    """OpenAI chat and completions, batch and streamed, over render, an engine and derender.

    ``render``/``derender``: base URLs, ASGI apps or ``httpx.AsyncClient``s; ``None`` runs tito's
    own app in-process. ``engine``: the generate server (a vLLM ``--tokens-only`` server, the fake
    engine...), same kinds. ``capture``: called with each stream's :class:`StreamContext`, returns
    a :class:`StreamObserver` (or None) that sees that stream (the gateway's ``--capture-dir``).
    ``clock`` stamps each stream's ``created`` (inject a fixed one for reproducible output).
    ``http_shards``: connection pools per URL stage (see :class:`_Stage`). ``coalesce``: the wait
    window of streamed derender rounds (:class:`CoalescePolicy`; default: never wait).
    ``max_payload_bytes``: the largest derender request or answer sent in one batch call, counted
    as the Lambda event carries it (JSON-escaped); larger ones (chat, completions, Responses) are
    split into streamed calls (default: what fits Lambda's 6 MB payload limit).
    """

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

    async def __aenter__(self) -> TitoClient:
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

    # -- batch ---------------------------------------------------------------------------------

    async def chat(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A chat completion (``ChatCompletion`` JSON) for an OpenAI chat request."""
        return await self._batch("chat", {**request, "stream": False})

    async def completions(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A completion (``Completion`` JSON) for an OpenAI completions request."""
        return await self._batch("completions", {**request, "stream": False})

    async def _batch(self, endpoint: Endpoint, request: dict[str, Any]) -> dict[str, Any]:
        gens = await self.render(endpoint, request)
        responses = await asyncio.gather(*(
            self._post("generate", self.engine_http, GENERATE_PATH,
                       self._engine_body(g, False, None)) for g in gens))
        contexts = [self._context(endpoint, request, g) for g in gens]
        first = contexts[0]
        body: dict[str, Any] = first.derender_fields(vllm_compatible=self.vllm_compatible)
        if endpoint == "chat":
            body["generate_response"] = responses[0]
            body["prompt_tokens"] = first.prompt_tokens
        else:
            body["generate_responses"] = responses
            body["prompt_tokens"] = [c.prompt_tokens for c in contexts]
            if "derender_context" not in body:
                body["prompt_token_ids"] = [c.prompt_token_ids for c in contexts]
            elif len(contexts) > 1:  # one context for all: each prompt's own tail seeds it
                body["prompt_token_ids"] = [
                    (c.derender_context or {}).get("prompt_token_ids")  # echo: the whole prompt
                    or (c.derender_context or {}).get("prompt_tail") for c in contexts]
        return await self._derender_batch(endpoint, body, contexts, responses)

    async def _derender_batch(self, endpoint: Endpoint, body: dict[str, Any],
                              contexts: Sequence[StreamContext],
                              responses: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """One batch derender call, or streamed ones when it would not fit the payload limit
        (:mod:`tito.adapters.batch_split`): the same answer either way."""
        from tito.adapters import batch_split

        path = DERENDER_PATHS[endpoint]
        content = json.dumps(body).encode()

        async def whole() -> dict[str, Any]:
            return dict(await self._post("derender", self.derender_http, path, body, content))

        async def split(request_bytes: int) -> dict[str, Any]:
            firsts = [{**c.derender_fields(vllm_compatible=self.vllm_compatible),
                       **({"prompt_tokens": c.prompt_tokens} if c.prompt_tokens is not None
                          else {})} for c in contexts]
            return await batch_split.derender_split(
                endpoint, path, body,
                "generate_response" if endpoint == "chat" else "generate_responses",
                firsts, request_bytes, self.max_payload_bytes, self._derender_post,
                every_call=self.vllm_compatible)

        return await batch_split.whole_or_split(content, responses, self.max_payload_bytes,
                                                whole, split)

    async def _derender_post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return dict(await self._post("derender", self.derender_http, path, body))

    def _context(self, endpoint: Endpoint, request: Mapping[str, Any],
                 gen: Mapping[str, Any]) -> StreamContext:
        ids = list(gen.get("token_ids") or [])
        sp = gen.get("sampling_params") or {}
        context = gen.get("derender_context")
        return StreamContext(endpoint=endpoint, model=request.get("model") or gen.get("model"),
                             prompt_token_ids=ids, prompt_tokens=len(ids), request=dict(request),
                             derender_context=dict(context) if isinstance(context, dict) else None,
                             n=int(sp.get("n") or 1))

    # -- streaming -----------------------------------------------------------------------------

    def chat_stream(self, request: Mapping[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The chunks (``ChatCompletionChunk`` JSON) of a streamed chat completion."""
        return self._stream("chat", {**request, "stream": True})

    def completions_stream(self, request: Mapping[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The chunks (``Completion`` JSON) of a streamed completion."""
        return self._stream("completions", {**request, "stream": True})

    async def _stream(self, endpoint: Endpoint,
                      request: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        gens = await self.render(endpoint, request)
        created = int(self.clock())
        contexts = [self._context(endpoint, request, g) for g in gens]
        for k, ctx in enumerate(contexts):
            ctx.created = created
            ctx.index_offset = k * ctx.n
            if len(gens) > 1:  # one response, one id: the first engine request's
                ctx.id = "generate-tokens-" + str(gens[0].get("request_id"))
        options = request.get("stream_options")
        streams = [self._one_stream(g, ctx, options) for g, ctx in zip(gens, contexts)]
        if len(streams) == 1:
            async with contextlib.aclosing(streams[0]) as only:  # closing it aborts the engine
                async for chunk in only:
                    yield chunk
            return
        usage: list[dict[str, Any]] = []
        async for chunk in _merge(streams):
            if not chunk.get("choices") and chunk.get("usage"):
                usage.append(chunk)  # one usage chunk per engine stream: sum them at the end
                continue
            yield chunk
        if usage:
            total = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
            for chunk in usage:
                for key in total:
                    total[key] += int(chunk["usage"].get(key) or 0)
            yield {**usage[0], "usage": {**usage[0]["usage"], **total}}

    async def _one_stream(self, gen: Mapping[str, Any], ctx: StreamContext,
                          stream_options: Any) -> AsyncGenerator[dict[str, Any], None]:
        driver = StreamDerenderer(ctx, vllm_compatible=self.vllm_compatible)
        observer = self.capture(ctx) if self.capture is not None else None
        error: dict[str, Any] | None = None

        async def send(path: str, body: dict[str, Any]) -> dict[str, Any]:
            return dict(await self._post("derender", self.derender_http, path, body))

        engine = _EngineRun("generate-tokens-" + str(gen.get("request_id")))
        try:
            async with contextlib.aclosing(
                    self._engine_batches(gen, stream_options, engine, observer)) as batches:
                async for batch in batches:
                    for chunk in await derender_batch(driver, batch, send):
                        if observer is not None:
                            observer.output(chunk)
                        yield chunk
                    if driver.should_abort:
                        driver.aborted = True
                        with contextlib.suppress(TitoClientError):
                            await self.abort([engine.response_id])
        except BaseException as exc:
            if isinstance(exc, TitoClientError):
                error = exc.body
            if not engine.done and not driver.aborted:
                # a stage failed or the user went away: free the engine's slot
                driver.aborted = True
                _background(self.abort([engine.response_id]))
            raise
        finally:
            if observer is not None:
                observer.close(error)

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
            round_ = 0
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
                    if len(batch) >= self.chunks_per_call:
                        break
                    if not queue.empty():
                        item = queue.get_nowait()
                        continue
                    wait = deadline - loop.time()
                    if wait <= 0:
                        break
                    try:
                        async with asyncio.timeout(wait):
                            item = await queue.get()
                    except TimeoutError:
                        break
                if not batch:
                    break
                yield batch

    # -- Responses -------------------------------------------------------------------------------

    async def _render_responses(self, request: Mapping[str, Any]) -> dict[str, Any]:
        gen = await self._post("render", self.render_http, RESPONSES_RENDER_PATH, request)
        if not isinstance(gen, dict) or "token_ids" not in gen:
            raise TitoClientError("render", 502, error_body(
                "render returned no GenerateRequest", type_=ErrorType.BAD_GATEWAY, code=502))
        return gen

    @staticmethod
    def _responses_fields(request: Mapping[str, Any], gen: Mapping[str, Any]) -> dict[str, Any]:
        """What the first Responses derender call needs: render's context, else the request."""
        out: dict[str, Any] = {"model": request.get("model") or gen.get("model")}
        if isinstance(gen.get("derender_context"), dict):
            out["derender_context"] = gen["derender_context"]
        else:
            out["responses_request"] = dict(request)
            out["prompt_token_ids"] = list(gen.get("token_ids") or [])
        return out

    async def responses(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """An OpenAI ``Response`` (JSON) for a Responses request."""
        gen = await self._render_responses({**request, "stream": False})
        answer = await self._post("generate", self.engine_http, GENERATE_PATH,
                                  self._engine_body(gen, False, None))
        fields = self._responses_fields(request, gen)
        body = {**fields, "generate_response": answer}
        content = json.dumps(body).encode()
        from tito.adapters import batch_split

        async def whole() -> dict[str, Any]:
            return dict(await self._post("derender", self.derender_http,
                                         RESPONSES_DERENDER_PATH, body, content))

        async def split(request_bytes: int) -> dict[str, Any]:
            return await batch_split.responses_split(
                RESPONSES_DERENDER_PATH, body, fields, request_bytes, self.max_payload_bytes,
                self._derender_post)

        return await batch_split.whole_or_split(content, [answer], self.max_payload_bytes,
                                                whole, split)

    async def responses_stream(
        self, request: Mapping[str, Any]
    ) -> AsyncGenerator[dict[str, Any], None]:
        """The Responses stream events (``ResponseStreamEvent`` JSON) of a streamed response:
        one derender call per batch of waiting engine events, the engine aborted when derender
        finished the response first (a stop string). Derender's compact events are completed
        here (:mod:`tito.service.responses_assembler`): the user gets OpenAI's whole events."""
        gen = await self._render_responses({**request, "stream": True})
        run = _EngineRun("generate-tokens-" + str(gen.get("request_id")))
        assembler = Assembler()
        engine_finished = False
        state: dict[str, Any] | None = None
        aborted = False
        try:
            async with contextlib.aclosing(self._engine_batches(gen, None, run)) as batches:
                async for batch in batches:
                    body: dict[str, Any] = {"stream": True, "stream_state": state}
                    body.update(self._responses_fields(request, gen) if state is None
                                else {"model": request.get("model") or gen.get("model")})
                    if len(batch) == 1:
                        body["generate_chunk"] = batch[0]
                    else:
                        body["generate_chunks"] = batch
                    out = await self._post("derender", self.derender_http,
                                           RESPONSES_DERENDER_PATH, body)
                    state = out["stream_state"]
                    engine_finished = engine_finished or any(
                        c.get("finish_reason") is not None
                        for e in batch for c in e.get("choices") or [])
                    for event in out["events"]:
                        yield assembler.feed(event)
                    if state.get("stop_fired") and not engine_finished and not aborted:
                        aborted = True
                        with contextlib.suppress(TitoClientError):
                            await self.abort([run.response_id])
        except BaseException:
            if not run.done and not aborted:
                _background(self.abort([run.response_id]))
            raise


@dataclass
class _EngineRun:
    """One engine stream's bookkeeping: the request id to abort, whether it has ended."""

    response_id: str
    done: bool = False


async def _read_events(resp: httpx.Response, queue: asyncio.Queue[Any]) -> None:
    """Parse the engine's SSE into objects on ``queue``; then ``_END`` (or the exception)."""
    try:
        async for line in resp.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                queue.put_nowait(json.loads(data))
            except ValueError:
                queue.put_nowait(TitoClientError("generate", 502, error_body(
                    f"the engine sent an event that is not JSON: {data[:200]!r}",
                    type_=ErrorType.BAD_GATEWAY, code=502)))
                return
        queue.put_nowait(_END)
    except httpx.HTTPError as exc:
        queue.put_nowait(TitoClientError("generate", 502, error_body(
            f"the engine stream broke: {exc}", type_=ErrorType.BAD_GATEWAY, code=502)))


#: Fire-and-forget tasks (aborts after a disconnect) kept referenced until they finish.
_BACKGROUND: set[asyncio.Task[Any]] = set()


def _background(coro: Awaitable[Any]) -> None:
    async def quiet() -> None:
        with contextlib.suppress(Exception):
            await coro

    try:
        task = asyncio.get_running_loop().create_task(quiet())
    except RuntimeError:  # no loop any more: nothing to do
        if asyncio.iscoroutine(coro):
            coro.close()
        return
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


async def _cancel(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


def engine_error_body(event: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI error body for an engine ``{"error": ...}`` stream event."""
    err = event.get("error")
    if isinstance(err, dict):
        return {"error": {"message": str(err.get("message", "engine error")),
                          "type": str(err.get("type", "InternalServerError")),
                          "param": err.get("param"), "code": int(err.get("code") or 500)}}
    return error_body(f"engine error: {err}", type_=ErrorType.INTERNAL, code=500)


def _unreachable(stage: str, http: _Stage, exc: Exception) -> TitoClientError:
    return TitoClientError(stage, 502, error_body(
        f"cannot reach the {stage} service at {http.base_url}: {type(exc).__name__}: {exc}",
        type_=ErrorType.BAD_GATEWAY, code=502))


async def _merge(streams: Iterable[AsyncIterator[dict[str, Any]]]) -> AsyncIterator[dict[str, Any]]:
    """Interleave several async iterators as their items arrive (errors propagate)."""
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=64)
    streams = list(streams)

    async def pump(stream: AsyncIterator[dict[str, Any]]) -> None:
        try:
            async for item in stream:
                await queue.put(item)
            await queue.put(_END)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the consumer
            await queue.put(exc)

    tasks = [asyncio.create_task(pump(s)) for s in streams]
    try:
        remaining = len(tasks)
        while remaining:
            item = await queue.get()
            if item is _END:
                remaining -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for task in tasks:
            await _cancel(task)


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
