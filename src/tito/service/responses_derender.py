"""Responses derender: engine tokens -> an OpenAI ``Response`` (batch) or one call's Responses
stream events (streaming), over the chat derender's per-choice pipeline.

Why no code of its own for tokens: a Responses output is a chat choice shaped differently. The
settings come from the same :func:`~tito.service.config.chat_config` (the Responses request is
first turned into its chat request, or render's ``derender_context`` is used as for chat), the
tokens go through the same :class:`tito.service.derender_stream._Stream` (state load, bounds,
pipeline step, state encode), and only the shaping differs:
:mod:`tito.service.responses_events` turns each chunk's :class:`~tito.core.pipeline.ChoiceOutput`
into compact events, whose O(1) state rides in ``stream_state.tito.ext``. Batch is that stream
of one chunk plus finish, completed by :mod:`tito.service.responses_assembler`: its ``Response``
is the one ``response.completed`` carries once assembled (the gateway and ``tito.client``
assemble streams the same way).

Output logprobs are split between items per token, not per chunk: a token's entry belongs to
the message when the message is the item open right after that token is stepped alone. A chunk
that opens no item has all its tokens in the item that was open; only a chunk that opens one is
re-stepped token by token from its starting state (:func:`message_logprobs`), so the message's
logprobs do not depend on chunking and the extra work is bounded by one pass per item boundary.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tito.core.pipeline import ChoiceConfig, ChoiceOutput, ChoiceState, start_choice, step_choice
from tito.errors import BadRequest
from tito import models as _models
from tito.models import ServedModel
from tito.protocol import ChatCompletionRequest, DerenderContext
from tito.protocol.responses import ResponsesRequest
from tito.protocol.responses_output import ResponsesResponse
from tito.protocol.responses_derender import (
    DerenderResponsesRequest,
    DerenderResponsesStreamRequest,
)
from tito.service import stream_body, stream_state
from tito.service.config import chat_config
from tito.service.derender_checks import _check_ids, _check_response
from tito.service.derender_shaping import _engine_logprobs, _reasoning_tokens, _seed
from tito.service.derender_stream import _Stream
from tito.service.responses import chat_request_for, echo_fields
from tito.service.responses_assembler import assemble
from tito.service.responses_event_state import (
    EventState,
    ItemKind,
    Usage,
    new_event_state,
    read_event_state,
)
from tito.service.responses_events import events_for, kind_after, opens_item

__all__ = ["derender_responses", "derender_responses_stream", "handle_responses",
           "handle_stream_body", "message_logprobs"]


def _settings(
    model: ServedModel, request: ResponsesRequest | None, context: DerenderContext | None
) -> tuple[ChatCompletionRequest | DerenderContext | None, dict[str, Any]]:
    """(chat settings for the pipeline, the fields the Response echoes)."""
    if request is not None:
        return chat_request_for(request, model), echo_fields(request)
    if context is not None:
        if context.kind not in ("responses", "chat"):
            raise BadRequest(
                f"derender_context is of kind {context.kind!r}; the Responses derender needs "
                "the context of a /v1/responses/render", param="derender_context.kind",
            )
        return context, dict(context.response or {})
    return None, {}


def _response_id(engine_id: str) -> str:
    """The Response id: render's ``resp_...`` id (vLLM's engine prefixes ``generate-tokens-``)."""
    return engine_id.removeprefix("generate-tokens-")


def _input_tokens(req: Any, engine_ids: Any, engine_usage: Any) -> int:
    """Prompt length: the request's, render's context, the prompt ids, then the engine's usage."""
    if req.prompt_tokens is not None:
        return int(req.prompt_tokens)
    if req.derender_context is not None and req.derender_context.prompt_tokens is not None:
        return int(req.derender_context.prompt_tokens)
    ids = req.prompt_token_ids if req.prompt_token_ids is not None else engine_ids
    if ids:
        return len(ids)
    return int(getattr(engine_usage, "prompt_tokens", 0) or 0)


def message_logprobs(
    model: ServedModel,
    cfg: ChoiceConfig,
    before: ChoiceState,
    ids: list[int],
    out: ChoiceOutput,
    *,
    open_: ItemKind | None,
    finish_reason: str | None,
    response_id: str,
    index: int,
) -> list[dict[str, Any]]:
    """The entries of ``out.logprobs`` (the chunk ``ids`` stepped from ``before``) that belong to
    the message: the tokens after whose own step the message is the open item. An entry is
    paired with its token, so entries past the chunk's ids (an engine sending more than one a
    token, which chat and completions show as vLLM does) belong to no item and are left out."""
    entries = (out.logprobs or [])[: len(ids)]
    if not entries:
        return []
    if not opens_item(open_, out):
        return list(entries) if open_ == "message" else []
    state, kind, kept = before, open_, []
    for k, (token, entry) in enumerate(zip(ids, entries)):
        state, step = step_choice(
            model.vocab, cfg, state, [token],
            finish_reason=finish_reason if k == len(ids) - 1 else None,
            response_id=response_id, choice_index=index,
        )
        kind = kind_after(kind, step)
        if kind == "message":
            kept.append(entry)
    return kept


def derender_responses(model: ServedModel, req: DerenderResponsesRequest) -> dict[str, Any]:
    """Batch: the engine's whole response -> the ``Response`` object (choice 0)."""
    resp = req.generate_response
    _check_response(model, resp, "generate_response")
    _check_ids(model, req.prompt_token_ids, "prompt_token_ids")
    if len(resp.choices) != 1:
        raise BadRequest(
            f"a Responses derender takes exactly one choice (got {len(resp.choices)})",
            param="generate_response.choices",
        )
    settings, echo = _settings(model, req.responses_request, req.derender_context)
    cfg = chat_config(model, settings)
    seed = _seed(req.prompt_token_ids, resp.prompt_token_ids, req.derender_context)
    choice = resp.choices[0]
    choice = choice.model_copy(update={"finish_reason": choice.finish_reason or "stop"})
    ids = list(choice.token_ids or [])
    events = new_event_state(echo, _input_tokens(req, resp.prompt_token_ids, resp.usage))
    start = start_choice(model.vocab, cfg, seed)
    state = start

    def step(one: Any) -> tuple[ChoiceState, ChoiceOutput]:
        nonlocal state
        before = state
        state, out = step_choice(model.vocab, cfg, state, list(one.token_ids or []),
                                 finish_reason=one.finish_reason,
                                 engine_logprobs=_engine_logprobs(one),
                                 response_id=resp.request_id, choice_index=choice.index)
        return before, out

    def rewind() -> None:
        nonlocal state
        state = start

    def emit(one: Any, before: ChoiceState, out: ChoiceOutput) -> list[dict[str, Any]]:
        nonlocal events
        lps = None
        if events.lp:
            lps = message_logprobs(model, cfg, before, list(one.token_ids or []), out,
                                   open_=events.open, finish_reason=one.finish_reason,
                                   response_id=resp.request_id, index=choice.index)
        events, emitted = events_for(
            events, out, response_id=_response_id(resp.request_id), created=created,
            model=req.model or model.name, usage=lambda: Usage(
                input_tokens=events.input_tokens, output_tokens=len(ids),
                reasoning_tokens=_reasoning_tokens(cfg, state) or 0),
            echo=echo, message_logprobs=lps)
        return emitted

    created = int(time.time())
    emitted = ordered_events(choice, step, rewind, emit)
    response = assemble(emitted)[-1]["response"]
    ResponsesResponse.model_validate(response)  # the wire model checks the shape
    return response


def _mixes_calls(out: ChoiceOutput) -> bool:
    """Does one output hold tool-call deltas next to text or reasoning (whose order against the
    calls it does not keep)?"""
    return bool(out.tool_calls) and bool(out.text or out.reasoning)


def ordered_events(
    choice: Any,
    step: Callable[[Any], tuple[ChoiceState, ChoiceOutput]],
    rewind: Callable[[], None],
    emit: Callable[[Any, ChoiceState, ChoiceOutput], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """The events of one engine choice, batch or stream, with the output items in token order.

    Why: the items' order is the tokens' (text after a call is a new message, after the
    ``function_call`` item), but one pipeline output of many tokens keeps text, reasoning and
    calls apart, not their order. So a choice whose output mixes calls with text or reasoning
    is stepped again (``rewind``, then ``step``) a token at a time, as a stream of one token per
    call is: every chunking, and the batch, get the same items. ``step`` advances the caller's
    state and returns (state before, output); ``emit`` turns an output into events.
    """
    before, result = step(choice)
    ids = choice.token_ids or ()
    if not (result.tool_calls and _mixes_calls(result) and len(ids) > 1
            and not hasattr(choice, "text")):
        return emit(choice, before, result)
    rewind()
    out: list[dict[str, Any]] = []
    for one in _one_token_choices(choice):
        out.extend(emit(one, *step(one)))
    return out


def _one_token_choices(choice: Any) -> list[Any]:
    """``choice`` as one choice per token id: each its logprob entry, the finish on the last."""
    ids = list(choice.token_ids)
    lp = choice.logprobs
    pieces = []
    for k, token in enumerate(ids):
        last = k == len(ids) - 1
        update: dict[str, Any] = {"token_ids": [token],
                                  "finish_reason": choice.finish_reason if last else None,
                                  "stop_reason": choice.stop_reason if last else None}
        if lp is not None:  # either wire shape: per-position lists, sliced to this position
            update["logprobs"] = lp.model_copy(update={
                name: value[k:k + 1] for name in ("content", "sampled")
                if (value := getattr(lp, name, None)) is not None})
        pieces.append(choice.model_copy(update=update))
    return pieces


#: id of an events state's dump (``stream_state.tito.ext``) -> (the dump, the state): a kept
#: issued state (:func:`tito.service.stream_state_kept.issued`) carries that very dict back, whose
#: events state need not be validated again. Never changed (the wire gets a copy of it); found
#: by identity, checked against the dict it keeps alive.
_DUMPED: dict[int, tuple[dict[str, Any], EventState]] = {}
_MAX_DUMPED = 128
#: the events state's fields, which :meth:`_ResponsesStream.response` dumps as one dict literal
#: (its values are JSON scalars: ints, bools, a kind or None), in this order; then the custom and
#: namespace tools' fields, given only when set (a request without such tools: the six)
_EVENT_FIELDS = ("seq", "done", "out", "open", "lp", "input_tokens", "custom", "spaces", "dec")
if tuple(EventState.model_fields) != _EVENT_FIELDS:  # pragma: no cover - a changed class
    raise RuntimeError("EventState's fields changed: update _ResponsesStream.response's dump")


class _ResponsesStream(_Stream):
    """The chat stream's state handling, with Responses events as the per-chunk output."""

    def __init__(self, model: ServedModel, req: DerenderResponsesStreamRequest) -> None:
        settings, echo = (_settings(model, req.responses_request, req.derender_context)
                          if req.responses_request is not None or req.derender_context is not None
                          else (None, {}))  # (what _settings says to a later call)
        super().__init__(model, req, settings, completion=False)  # type: ignore[arg-type]
        self.echo: dict[str, Any] | None = None
        ext = self.meta.ext
        dumped = _DUMPED.get(id(ext)) if ext is not None else None
        if dumped is not None and dumped[0] is ext:  # a kept state's own: dumped from this
            self.events = dumped[1]
        elif ext is not None:
            try:
                self.events = read_event_state(ext)
            except ValueError as exc:
                raise BadRequest(f"invalid stream_state.tito.ext: {exc}",
                                 param="stream_state.tito.ext") from None
        else:
            first = self.chunks[0]
            self.echo = echo
            self.events = new_event_state(echo, _input_tokens(req, first.prompt_token_ids,
                                                              first.usage))

    def _one(self, chunk: Any) -> list[dict[str, Any]]:
        choices = chunk.choices
        if len(choices) == 1 and len(choices[0].token_ids or ()) <= 1:
            # one id or none: :func:`ordered_events` never steps it again (only an output of
            # several ids mixes calls with text), so its step and events at once (the usual
            # streamed call: two calls fewer)
            choice = choices[0]
            before = self.state
            return self._events(choice, before, self._step(choice))
        out: list[dict[str, Any]] = []
        for choice in choices:
            lens = len(self.history_lens)
            self._mark = (self.state, len(self.history or ()), lens)
            out.extend(ordered_events(choice, self._step_from, self._rewind, self._events))
            if self.history is not None and len(self.history_lens) > lens + 1:
                self.history_lens[lens:] = [len(choice.token_ids)]  # one engine chunk
        return out

    def _step_from(self, one: Any) -> tuple[ChoiceState, ChoiceOutput]:
        """:func:`ordered_events`' step: (the state before, the output)."""
        before = self.state
        return before, self._step(one)

    def _rewind(self) -> None:
        """:func:`ordered_events`' rewind: back to the state and history of :meth:`_one`'s
        mark."""
        start, ids, lens = self._mark
        self.state = start
        if self.history is not None:
            del self.history[ids:], self.history_lens[lens:]

    def _events(self, choice: Any, before: ChoiceState, result: ChoiceOutput
                ) -> list[dict[str, Any]]:
        """The events of ``choice``'s ``result`` (stepped from ``before``); advances the
        events' state."""
        lps = None
        if self.events.lp:
            lps = message_logprobs(
                self.model, self.cfg, before, list(choice.token_ids or []), result,
                open_=self.events.open, finish_reason=choice.finish_reason,
                response_id=self.meta.id, index=choice.index)
        self.events, emitted = events_for(  # (response_id: _response_id's, inline)
            self.events, result, response_id=self.meta.id.removeprefix("generate-tokens-"),
            created=self.meta.created, model=self.req.model or self.model.name,
            usage=self._final_usage, echo=self.echo, message_logprobs=lps,
        )
        return emitted

    def _final_usage(self) -> Usage:
        return Usage(input_tokens=self.events.input_tokens, output_tokens=self.state.tokens,
                     reasoning_tokens=_reasoning_tokens(self.cfg, self.state) or 0)

    def response(self, results: list[Any]) -> dict[str, Any]:
        ev = self.events  # its model_dump(mode="json") (every field; see _EVENT_FIELDS)
        ext = {"seq": ev.seq, "done": ev.done, "out": ev.out, "open": ev.open, "lp": ev.lp,
               "input_tokens": ev.input_tokens}
        if ev.custom is not None or ev.spaces is not None:
            ext.update(custom=ev.custom, spaces=ev.spaces,
                       dec=None if ev.dec is None else ev.dec.model_dump(mode="json"))
        if len(_DUMPED) >= _MAX_DUMPED:
            _DUMPED.clear()
        _DUMPED[id(ext)] = (ext, self.events)
        meta = self.meta
        if self.own_meta:  # decoded for this call alone: given its ext
            meta.ext = ext
        else:  # (a kept state's, shared: its model_copy with this ext, at once)
            self.meta = stream_state.StreamMeta._construct(
                meta.model, meta.id, meta.created, meta.index, meta.prompt_tokens, meta.n, ext)
        replay = (self.history, self.history_lens) if self.history else None
        state = stream_state.encode(self.model.vocab, self.meta, self.cfg, self.state,
                                    replay=replay)
        events = results[0] if len(results) == 1 else [e for one in results for e in one]
        return {"events": events, "stream_state": state}


def derender_responses_stream(
    model: ServedModel, req: DerenderResponsesStreamRequest
) -> dict[str, Any]:
    """One streaming call: engine chunk(s) + carried state -> this call's events + state."""
    stream = _ResponsesStream(model, req)
    return stream.response(stream.run())


def handle_stream_body(data: Any) -> tuple[dict[str, Any], bool] | None:
    """(the answer, whether it is float-free) to a parsed JSON body that is the common streamed
    call (checked by hand: :func:`tito.service.stream_body.read`), or None: validate it and call
    :func:`handle_responses` (same answers and errors: the code after validation is the same)."""
    call = stream_body.read(data)
    if call is None:
        return None
    model = _models.get_registry().get(call.model)  # (the module's: tests may replace it)
    try:
        return derender_responses_stream(model, call), call.float_free  # type: ignore[arg-type]
    except stream_body.NotCommon:  # (a state's vLLM fields, checked late: the model's)
        return None


def handle_responses(
    body: DerenderResponsesRequest | DerenderResponsesStreamRequest,
) -> dict[str, Any]:
    """A validated Responses derender body (batch or one streamed call) -> the answer as a dict."""
    from tito.models import get_registry

    model = get_registry().get(body.model)
    if isinstance(body, DerenderResponsesStreamRequest):
        return derender_responses_stream(model, body)
    return derender_responses(model, body)
