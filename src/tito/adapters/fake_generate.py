"""``FakeEngine``: what the engine double does with one generate request.

Why apart from the app (:mod:`tito.adapters.fake_engine`): the plan (each choice's tokens and
finish reason, decided up front from the reply script and vLLM's stop rules) and the responses
and SSE events in vLLM's shapes are the engine's behaviour; the app only routes HTTP to it.
The rules are those of :mod:`tito.adapters.fake_engine`'s header.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tito.adapters.fake_replies import Reply, ReplyScript
from tito.errors import BadRequest
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

__all__ = ["FakeEngine", "RequestRecord"]

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
