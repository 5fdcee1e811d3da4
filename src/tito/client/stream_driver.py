"""The sans-I/O stream driver: one engine stream's derender calls, and the chunks a user sees.

Why sans-I/O: the live client, the gateway and replay all drive the same
:class:`StreamDerenderer` (each with its own way of sending a call), which is what makes a
replayed capture yield the very bytes the gateway sent. :class:`StreamContext` is also a
capture's header.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tito.client.wire import DERENDER_PATHS, Endpoint, TitoClientError
from tito.errors import ErrorType, error_body

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
