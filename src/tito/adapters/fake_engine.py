"""``tito fake-engine``: a test double for the GPU engine, speaking vLLM's generate wire exactly.

Why it exists: render and derender are only half of disaggregated serving; to run the whole path
(an OpenAI SDK -> gateway -> render -> engine -> derender) on a laptop or in CI, something has to
play the engine. This one serves ``POST /inference/v1/generate`` (JSON and SSE) and
``POST /inference/v1/abort_requests`` with vLLM's shapes (spec 2.1-2.2), serialized through
tito's own ``Generate*`` wire models, but "generates" from a reply script instead of a GPU.

Theory of operation
-------------------
- **Replies.** Each choice of each request takes the next reply of a :class:`ReplyScript` (one
  fixed text, or the lines of a JSONL file used in order and cycled). A reply is a text, encoded
  with the requested model's tokenizer and followed by the model's EOS id, or explicit token ids
  (the exact output, cut at ``max_tokens``: a way to script byte-level edge cases).
  ``sampling_params.extra_args.fake_reply`` (OpenAI ``vllm_xargs``: a reply, or a list of them
  for the choices in turn) overrides the script for one request, so a test can pin what a given
  request gets whatever the request order.
- **Stopping**, as vLLM's ``check_stop``: nothing stops before ``min_tokens``; then EOS (unless
  ``ignore_eos``), a ``stop_token_ids`` member or a generation-config EOS ends the choice with
  ``finish_reason "stop"`` (the id is part of the output); ``max_tokens`` ends it with
  ``"length"``. When the reply runs out before that (``ignore_eos``, ``min_tokens``), it repeats.
  ``max_tokens`` absent from the JSON means ``max_model_len - len(prompt)`` (spec 2.3). Stop
  *strings* are not checked: like a ``--tokens-only`` engine with no tokenizer, the fake engine
  leaves them to derender (the client aborts the request when one fires).
- **Streaming.** Engine steps produce ``k`` tokens per unfinished choice (``k`` cycles through
  ``tokens_per_event``); each (step, choice) is one SSE event carrying one choice, so with ``n > 1``
  the indices interleave. The first event carries ``prompt_token_ids`` iff ``return_token_ids``;
  with ``stream_options.continuous_usage_stats`` every event carries usage (that choice's
  cumulative completion tokens); with ``include_usage`` a final ``choices: []`` usage event
  (serialized without nulls) follows; the stream ends with ``data: [DONE]``.
- **Aborts.** ``abort_requests`` marks ids (as returned, ``generate-tokens-...``, or bare); a
  running stream checks the mark before every step and ends each unfinished choice with an event
  ``{"token_ids": [], "finish_reason": "abort"}``. Non-streaming requests are not abortable (they
  answer at once) and aborting an unknown or finished id is a no-op, as in vLLM. A client that
  disconnects mid-stream aborts its request too (recorded as "abort").
- **Logprobs** (``sampling_params.logprobs = k``): vLLM main's integer-id shape, the sampled token
  first then ``max(k, 1) - 1`` other candidates, with deterministic values.

Everything it did is observable on the :class:`FakeEngine` object (``records``, ``aborted``), so
in-process tests can assert e.g. that a stop string aborted the request.

Example::

    engine = FakeEngine(ReplyScript.from_text("Hello there!"), tokens_per_event=2)
    app = create_fake_engine_app(engine)        # any ASGI server, or httpx.ASGITransport(app)
    with LoopbackServer(app) as url: ...         # or run it on a free loopback port in a thread
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError

from tito.adapters.cli_args import add_server_options, new_parser
from tito.adapters.streaming import ClosingStreamingResponse
from tito.errors import BadRequest, ErrorType
from tito.protocol import (
    GenerateLogProb,
    GenerateLogProbs,
    GenerateLogProbsContent,
    GenerateRequest,
    GenerateTokensChoice,
    GenerateTokensResponse,
    GenerateTokensStreamChoice,
    GenerateTokensStreamResponse,
    UsageInfo,
)

__all__ = [
    "FakeEngine",
    "LoopbackServer",
    "Reply",
    "ReplyScript",
    "RequestRecord",
    "create_fake_engine_app",
    "main",
]

#: vLLM prefixes the request id of every generate response with this.
RESPONSE_ID_PREFIX = "generate-tokens-"
#: Fields vLLM leaves out of a stream event when they are null (spec 1.1).
_STREAM_EXCLUDE_WHEN_NONE = ("prompt_token_ids", "mm_placeholders", "metrics")
#: tito's wire models carry a few fields vLLM main does not emit; they stay off the engine wire.
_CHOICE_EXTRA = {"stop_reason"}
_USAGE_EXTRA = {"completion_tokens_details"}
#: How many finished requests the engine remembers (for tests); bounded so a load test cannot
#: grow it without limit.
MAX_RECORDS = 2048


# -- the reply script ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """One scripted reply: a text (encoded, then EOS appended) or explicit token ids (as is).

    ``error`` makes the engine fail: a streamed choice sends its tokens, then an error event; a
    non-streaming request answers 500. It lets a test check how errors cross the gateway.
    """

    text: str | None = None
    token_ids: tuple[int, ...] | None = None
    error: str | None = None

    @classmethod
    def parse(cls, value: Any, where: str = "reply") -> Reply:
        """A reply from a JSON value: a string, or ``{"text"|"token_ids"|"error": ...}``."""
        if isinstance(value, str):
            return cls(text=value)
        if isinstance(value, dict):
            known = {"text", "token_ids", "error"}
            unknown = set(value) - known
            if unknown or not (set(value) & known):
                raise ValueError(f"{where}: expected a string or an object with keys "
                                 f"{sorted(known)}")
            ids = value.get("token_ids")
            if ids is not None and (
                not isinstance(ids, list) or not all(isinstance(i, int) and i >= 0 for i in ids)
            ):
                raise ValueError(f"{where}: token_ids must be a list of non-negative integers")
            text = value.get("text")
            if text is not None and not isinstance(text, str):
                raise ValueError(f"{where}: text must be a string")
            return cls(text=text, token_ids=tuple(ids) if ids is not None else None,
                       error=value.get("error"))
        raise ValueError(f"{where}: expected a string or an object, got {type(value).__name__}")


class ReplyScript:
    """The replies the engine plays, in order, cycled; thread-safe (one counter per script)."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        if not replies:
            raise ValueError("a reply script needs at least one reply")
        self.replies = tuple(replies)
        self._next = itertools.count()
        self._lock = threading.Lock()

    @classmethod
    def from_text(cls, text: str) -> ReplyScript:
        """The same reply for every choice of every request."""
        return cls([Reply(text=text)])

    @classmethod
    def from_jsonl(cls, path: str | Path) -> ReplyScript:
        """One reply per non-blank line: a JSON string or ``{"text"|"token_ids"|"error": ...}``."""
        replies = []
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            replies.append(Reply.parse(value, f"{path}:{number}"))
        return cls(replies)

    def take(self) -> Reply:
        """The next reply (wrapping around at the end)."""
        with self._lock:
            k = next(self._next)
        return self.replies[k % len(self.replies)]


# -- one request's plan --------------------------------------------------------------------------


@dataclass
class _ChoicePlan:
    """What one choice will emit: every token id, then its finish reason (or an error)."""

    token_ids: list[int]
    finish_reason: str
    error: str | None = None
    sent: int = 0
    done: bool = False


@dataclass
class RequestRecord:
    """What the engine did with one request (for tests and the ``/fake/records`` route)."""

    request_id: str
    stream: bool
    n: int
    prompt_len: int
    finish_reasons: list[str | None] = field(default_factory=list)
    completion_tokens: list[int] = field(default_factory=list)
    aborted: bool = False
    events: int = 0


def _gen_config_eos(model: Any) -> set[int]:
    return set(model.vocab.extra_eos_token_ids)


class FakeEngine:
    """The engine's behaviour and memory; one per app.

    ``tokens_per_event`` is an int or a sequence cycled per step (``[1, 3, 2]`` exercises uneven
    chunking); ``delay`` seconds pass between steps (make it > 0 when a test needs an abort to land
    mid-stream); ``max_num_seqs`` bounds ``n`` as vLLM's scheduler does (400 above it).
    """

    def __init__(
        self,
        script: ReplyScript | None = None,
        *,
        tokens_per_event: int | Sequence[int] = 1,
        delay: float = 0.0,
        max_num_seqs: int = 256,
        registry: Any = None,
    ) -> None:
        self.script = script or ReplyScript.from_text("Hello! I am a fake engine.")
        ks = [tokens_per_event] if isinstance(tokens_per_event, int) else list(tokens_per_event)
        if not ks or any(k < 1 for k in ks):
            raise ValueError("tokens_per_event must be positive")
        self.tokens_per_event = ks
        self.delay = float(delay)
        self.max_num_seqs = max_num_seqs
        self._registry = registry
        self.aborted: set[str] = set()
        self._running: set[str] = set()
        #: every abort_requests call received (ids as given), for tests
        self.abort_calls: deque[list[str]] = deque(maxlen=MAX_RECORDS)
        self.records: deque[RequestRecord] = deque(maxlen=MAX_RECORDS)
        self._lock = threading.Lock()

    # -- helpers -------------------------------------------------------------------------------

    @property
    def registry(self) -> Any:
        if self._registry is None:
            from tito.models import get_registry

            self._registry = get_registry()
        return self._registry

    def record(self, request_id: str) -> RequestRecord | None:
        """The record of a request by its response id (``generate-tokens-...``) or bare id."""
        rid = _response_id(request_id)
        with self._lock:
            return next((r for r in reversed(self.records) if r.request_id == rid), None)

    def abort(self, request_ids: Sequence[str]) -> None:
        """Mark requests aborted; running streams end their unfinished choices with "abort"."""
        with self._lock:
            ids = {_response_id(r) for r in request_ids}
            self.aborted.update(ids & self._running)  # unknown or finished ids: a no-op
            self.abort_calls.append(sorted(ids))

    def _is_aborted(self, rid: str) -> bool:
        with self._lock:
            return rid in self.aborted

    def plan(self, req: GenerateRequest) -> list[_ChoicePlan]:
        """Every choice's tokens and finish reason, decided up front (replies are scripted)."""
        model = self.registry.get(req.model)
        vocab = model.vocab
        sp = req.sampling_params
        prompt_len = len(req.token_ids)
        max_len = model.config.max_model_len
        if prompt_len > max_len:
            raise BadRequest(
                f"Input length ({prompt_len}) exceeds model's maximum context length ({max_len}).",
                param="token_ids",
            )
        if sp.n > self.max_num_seqs:
            raise BadRequest(
                f"n={sp.n} exceeds max_num_seqs ({self.max_num_seqs}).", param="sampling_params.n"
            )
        if "max_tokens" in sp.model_fields_set and sp.max_tokens is not None:
            max_tokens = sp.max_tokens
        else:  # spec 2.3: absent -> what is left of the context
            max_tokens = max(max_len - prompt_len, 1)
        eos = vocab.eos_token_id
        stops = set(sp.stop_token_ids)
        if not sp.ignore_eos:
            stops |= _gen_config_eos(model)
        override = (sp.extra_args or {}).get("fake_reply")
        if override is not None and not isinstance(override, list):
            override = [override]
        plans = []
        for i in range(sp.n):
            if override:
                reply = Reply.parse(override[i % len(override)], "fake_reply")
            else:
                reply = self.script.take()
            if reply.token_ids is not None:  # exact output: no EOS added, no stop rules
                ids = list(reply.token_ids)
                plans.append(_ChoicePlan(token_ids=ids[:max_tokens], error=reply.error,
                                         finish_reason="length" if len(ids) > max_tokens
                                         else "stop"))
                continue
            base = vocab.encode(reply.text or "")
            if eos is not None:
                base.append(eos)
            if not base:
                base = [eos if eos is not None else 0]
            plans.append(self._one_choice(base, max_tokens, sp.min_tokens, eos, stops,
                                          sp.ignore_eos, reply.error))
        return plans

    @staticmethod
    def _one_choice(
        base: list[int],
        max_tokens: int,
        min_tokens: int,
        eos: int | None,
        stops: set[int],
        ignore_eos: bool,
        error: str | None,
    ) -> _ChoicePlan:
        if error is not None:  # the reply's tokens, then the error (no finish)
            return _ChoicePlan(token_ids=base[:max_tokens], finish_reason="error", error=error)
        out: list[int] = []
        for token in itertools.cycle(base):
            out.append(token)
            if len(out) > min_tokens:  # vLLM: no stop check before min_tokens
                if (not ignore_eos and token == eos) or token in stops:
                    return _ChoicePlan(token_ids=out, finish_reason="stop")
            if len(out) >= max_tokens:
                return _ChoicePlan(token_ids=out, finish_reason="length")
        raise AssertionError("unreachable")  # pragma: no cover

    # -- wire ---------------------------------------------------------------------------------

    def _logprobs(self, vocab: Any, ids: Sequence[int], start: int, k: int | None) -> Any:
        """vLLM main's integer-id logprobs for ``ids`` (positions from ``start``), or None."""
        if k is None:
            return None
        width = max(k, 1) if k >= 0 else 20
        size = vocab.size
        content = []
        for p, token in enumerate(ids, start):
            lp = -round(0.05 + 0.01 * (p % 17), 4)
            top = [GenerateLogProb(token_id=token, logprob=lp, rank=1)]
            candidate = token
            while len(top) < width:
                candidate = (candidate + 101) % size
                if candidate == token or candidate in vocab.added_ids:
                    continue
                rank = len(top) + 1
                top.append(GenerateLogProb(token_id=candidate, logprob=round(lp - rank * 0.5, 4),
                                           rank=rank))
            content.append(GenerateLogProbsContent(token_id=token, logprob=lp, rank=1,
                                                   top_logprobs=top))
        return GenerateLogProbs(content=content)

    def respond(self, req: GenerateRequest, rid: str) -> dict[str, Any]:
        """The non-streaming ``GenerateTokensResponse`` (spec 2.2) as a JSON-ready dict."""
        model = self.registry.get(req.model)
        plans = self.plan(req)
        record = RequestRecord(request_id=rid, stream=False, n=len(plans),
                               prompt_len=len(req.token_ids))
        if any(p.error for p in plans):
            self._remember(record)
            raise _EngineFailure(next(p.error for p in plans if p.error) or "engine error")
        choices = [
            GenerateTokensChoice(
                index=i,
                finish_reason=p.finish_reason,
                token_ids=p.token_ids,
                logprobs=self._logprobs(model.vocab, p.token_ids, 0, req.sampling_params.logprobs),
            )
            for i, p in enumerate(plans)
        ]
        completion = sum(len(p.token_ids) for p in plans)
        prompt = len(req.token_ids)
        resp = GenerateTokensResponse(
            request_id=rid,
            model=req.model or model.name,
            created=int(time.time()),
            usage=UsageInfo(prompt_tokens=prompt, completion_tokens=completion,
                            total_tokens=prompt + completion),
            prompt_token_ids=list(req.token_ids) if req.return_token_ids else None,
            kv_transfer_params=req.kv_transfer_params,
            ec_transfer_params=req.ec_transfer_params,
            choices=choices,
        )
        record.finish_reasons = [p.finish_reason for p in plans]
        record.completion_tokens = [len(p.token_ids) for p in plans]
        self._remember(record)
        return resp.model_dump(
            mode="json",
            exclude={"choices": {"__all__": _CHOICE_EXTRA}, "usage": _USAGE_EXTRA},
        )

    async def stream(self, req: GenerateRequest, rid: str) -> AsyncIterator[str]:
        """The SSE text of a streamed generate (spec 2.1), one ``data:`` event at a time.

        The plan is made before the first byte, so request errors become a 400 response, never
        a broken stream.
        """
        model = self.registry.get(req.model)
        plans = self.plan(req)
        return self._events(req, rid, model, plans)

    async def _events(
        self, req: GenerateRequest, rid: str, model: Any, plans: list[_ChoicePlan]
    ) -> AsyncIterator[str]:
        sp = req.sampling_params
        opts = req.stream_options
        include_usage = bool(opts and opts.include_usage)
        continuous = include_usage and bool(opts and opts.continuous_usage_stats)
        prompt = len(req.token_ids)
        record = RequestRecord(request_id=rid, stream=True, n=len(plans), prompt_len=prompt,
                               finish_reasons=[None] * len(plans),
                               completion_tokens=[0] * len(plans))
        self._remember(record)
        with self._lock:
            self._running.add(rid)
        first = True
        ks = itertools.cycle(self.tokens_per_event)
        try:
            while not all(p.done for p in plans):
                # a real pause, or at least a turn of the event loop so aborts can land
                await asyncio.sleep(self.delay)
                aborted = self._is_aborted(rid)
                k = next(ks)
                for index, p in enumerate(plans):
                    if p.done:
                        continue
                    if aborted:
                        ids: list[int] = []
                        finish: str | None = "abort"
                        p.done = True
                        record.aborted = True
                    elif p.error is not None and p.sent >= len(p.token_ids):
                        # a scripted failure: the tokens went out, now the error event ends it all
                        record.finish_reasons[index] = "error"
                        yield _sse({"error": {"message": p.error, "type": "InternalServerError",
                                              "param": None, "code": 500}})
                        yield "data: [DONE]\n\n"
                        return
                    else:
                        ids = p.token_ids[p.sent:p.sent + k]
                        finish = None
                        if p.error is None and p.sent + len(ids) >= len(p.token_ids):
                            finish = p.finish_reason
                            p.done = True
                    lp = self._logprobs(model.vocab, ids, p.sent, sp.logprobs) if ids else None
                    p.sent += len(ids)
                    record.completion_tokens[index] = p.sent
                    if finish is not None:
                        record.finish_reasons[index] = finish
                    usage = None
                    if continuous:
                        usage = UsageInfo(prompt_tokens=prompt, completion_tokens=p.sent,
                                          total_tokens=prompt + p.sent)
                    event = GenerateTokensStreamResponse(
                        request_id=rid,
                        usage=usage,
                        prompt_token_ids=list(req.token_ids) if first and req.return_token_ids
                        else None,
                        choices=[GenerateTokensStreamChoice(index=index, finish_reason=finish,
                                                            token_ids=ids, logprobs=lp)],
                    )
                    first = False
                    record.events += 1
                    yield _sse(_dump_stream_event(event))
            if include_usage:
                completion = sum(p.sent for p in plans)
                final = GenerateTokensStreamResponse(
                    request_id=rid,
                    usage=UsageInfo(prompt_tokens=prompt, completion_tokens=completion,
                                    total_tokens=prompt + completion),
                    choices=[],
                )
                yield _sse(final.model_dump(mode="json", exclude_none=True,
                                            exclude={"usage": _USAGE_EXTRA}))
            yield "data: [DONE]\n\n"
        except (GeneratorExit, asyncio.CancelledError):
            # the client went away: vLLM aborts the request then, so does the fake engine
            record.aborted = True
            record.finish_reasons = [r if p.done else "abort"
                                     for r, p in zip(record.finish_reasons, plans)]
            raise
        finally:
            with self._lock:
                self._running.discard(rid)
                self.aborted.discard(rid)

    def _remember(self, record: RequestRecord) -> None:
        with self._lock:
            self.records.append(record)


class _EngineFailure(Exception):
    """A scripted engine error (500)."""


def _response_id(request_id: str) -> str:
    if request_id.startswith(RESPONSE_ID_PREFIX):
        return request_id
    return RESPONSE_ID_PREFIX + request_id


def _dump_stream_event(event: GenerateTokensStreamResponse) -> dict[str, Any]:
    """vLLM's ``model_dump_json(exclude={...when None})`` for one stream event."""
    exclude: dict[str, Any] = {k: True for k in _STREAM_EXCLUDE_WHEN_NONE
                               if getattr(event, k) is None}
    exclude["choices"] = {"__all__": _CHOICE_EXTRA}
    data = event.model_dump(mode="json", exclude=exclude)
    if data.get("usage"):
        data["usage"].pop("completion_tokens_details", None)
    for choice in data["choices"]:
        lp = choice.get("logprobs")
        if isinstance(lp, dict) and lp.get("sampled") is None:
            lp.pop("sampled", None)
    return data


def _sse(obj: dict[str, Any]) -> str:
    return "data: " + json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n\n"


# -- the app -------------------------------------------------------------------------------------


def create_fake_engine_app(engine: FakeEngine | None = None, **kwargs: Any) -> FastAPI:
    """The fake engine as a FastAPI app (``kwargs`` build a :class:`FakeEngine` when none given).

    It reuses tito's app shell for vLLM's error shape, the JSON-only guard, ``/health`` and
    ``/v1/models``; ``app.state.engine`` is the engine, for tests.
    """
    from tito.adapters.app import create_app, error_response

    engine = engine or FakeEngine(**kwargs)
    app = create_app(endpoints=[])
    app.title = "tito fake engine"
    app.state.engine = engine

    @app.post("/inference/v1/generate", response_model=None)
    async def generate(request: Request) -> Response:
        try:
            req = GenerateRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err.get("loc", ()))
            return error_response(f"{len(exc.errors())} validation error(s): {loc}: {err['msg']}",
                                  type_=ErrorType.VALIDATION, code=400, param=loc or None)
        if req.output_mode != "tokens":
            raise BadRequest("this fake engine serves output_mode 'tokens' only",
                             param="output_mode")
        rid = RESPONSE_ID_PREFIX + (request.headers.get("x-request-id") or req.request_id)
        if req.stream:
            events = await engine.stream(req, rid)
            return ClosingStreamingResponse(events, media_type="text/event-stream")
        try:
            return JSONResponse(engine.respond(req, rid))
        except _EngineFailure as exc:
            return error_response(str(exc), type_=ErrorType.INTERNAL, code=500)

    @app.post("/inference/v1/abort_requests")
    async def abort_requests(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            raise BadRequest("the body is not valid JSON") from None
        ids = body.get("request_ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise BadRequest("`request_ids` (a list of strings) is required", param="request_ids")
        engine.abort(ids)
        return Response(status_code=200)

    @app.get("/fake/records")
    def records() -> list[dict[str, Any]]:
        """What the engine did (newest last): lets a test in another process check aborts."""
        return [r.__dict__ for r in list(engine.records)]

    return app


# -- serving on loopback -------------------------------------------------------------------------


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LoopbackServer:
    """Run an ASGI app with uvicorn in a daemon thread on a free loopback port.

    Why here: the fake engine is a test double, and tests and the load benchmark need to serve it
    (and the gateway, and tito itself) on real sockets without subprocess start-up costs::

        with LoopbackServer(create_fake_engine_app()) as url:
            httpx.post(url + "/inference/v1/generate", json=...)
    """

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int | None = None) -> None:
        import uvicorn

        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning",
                                lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True,
                                       name=f"uvicorn:{self.port}")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"server on {self.url} failed to start")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- CLI -----------------------------------------------------------------------------------------


def _parse_k(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("expected an int or a comma-separated list") from None
    if not ks or any(k < 1 for k in ks):
        raise argparse.ArgumentTypeError("token counts must be positive")
    return ks


def main(argv: list[str]) -> int:
    """Parse the options and serve the fake engine with uvicorn until interrupted."""
    parser = new_parser(
        "tito fake-engine",
        "A test double for the GPU engine: serves vLLM's /inference/v1/generate "
        "(JSON and SSE) and /inference/v1/abort_requests with the exact wire shapes, "
        "generating scripted replies with the served models' tokenizers. For tests, demos and "
        "load tests of render/derender; it runs no model.",
    )
    add_server_options(parser, port=8100, log_level="warning")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--reply", help="the reply text of every choice (EOS is appended)")
    src.add_argument("--replies", type=Path, metavar="FILE.jsonl",
                     help='replies, one per line, used in order and cycled: a JSON string or '
                     '{"text": ...} / {"token_ids": [...]} / {"error": ...}')
    parser.add_argument("--tokens-per-event", "-k", type=_parse_k, default=[1], metavar="K[,K...]",
                        help="tokens per SSE event (a list is cycled per engine step)")
    parser.add_argument("--delay-ms", type=float, default=0.0,
                        help="pause between engine steps, in milliseconds")
    parser.add_argument("--max-num-seqs", type=int, default=256,
                        help="largest n accepted (vLLM's max_num_seqs)")
    args = parser.parse_args(argv)
    script: ReplyScript | None
    try:
        if args.replies is not None:
            script = ReplyScript.from_jsonl(args.replies)
        else:
            script = ReplyScript.from_text(args.reply) if args.reply is not None else None
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    import uvicorn

    engine = FakeEngine(script, tokens_per_event=args.tokens_per_event,
                        delay=args.delay_ms / 1000.0, max_num_seqs=args.max_num_seqs)
    _ = engine.registry  # load the tokenizers before accepting traffic
    uvicorn.run(create_fake_engine_app(engine), host=args.host, port=args.port,
                log_level=args.log_level)
    return 0

