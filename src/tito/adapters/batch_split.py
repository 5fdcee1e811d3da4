"""A batch derender too large for one Lambda call, sent as streamed calls and assembled.

Why: a derender function takes and returns at most Lambda's 6 MB. With top-5 logprobs a chat
answer passes that near 11k tokens (32k tokens: a ~10 MB request, a ~17 MB answer), and the
function can only refuse it (a 413 saying to stream). :mod:`tito.client` (and so the gateway)
does the streaming itself, so a caller of ``chat`` / ``completions`` gets the batch answer anyway.

How, with nothing re-implemented on the client:

1. **Decide before sending.** The request's size is known (its JSON, counted as the Lambda
   event carries it: :func:`tito.adapters.payload.event_bytes`, as the function counts it); the
   answer's is estimated from the logprob candidates it will hold
   (:func:`estimated_answer_bytes`, about 96 escaped bytes each in chat's shape). Over
   ``max_payload_bytes`` either way, the batch is split (:func:`whole_or_split`). An answer the
   estimate missed still comes back as the function's 413, and is split then.
2. **The skeleton**: the same batch derender without the choices' engine logprobs (the token
   ids alone are ~6 bytes a token). Its answer is the exact batch answer (text, reasoning, tool
   calls, finish and stop reasons, usage, ids, every default field), with ``logprobs`` missing.
3. **The logprobs**: each such choice streamed through derender (``stream: true``) in pieces
   sized to fit, carrying the returned ``stream_state`` from piece to piece, its logprobs
   concatenated. Derender is chunking-invariant (the stream equals the batch, logprobs
   included), so the concatenation is the batch's logprobs.
4. **Assembly**: the skeleton with each choice's ``logprobs`` filled in, in place (key order
   kept), after a completions echo's prompt logprobs when the skeleton has them.

A Responses answer needs no skeleton: it is its stream's events assembled, so the one choice is
streamed whole in pieces and the assembled ``Response`` is the answer (:func:`responses_split`).

The skeleton decodes the text a second time; that is the price of not rebuilding the answer's
shape on the client, and small next to the logprobs (most of a logprobs derender's time).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from tito.adapters.payload import MAX_EVENT_BODY_BYTES, event_bytes
from tito.client.wire import TitoClientError
from tito.errors import ErrorType, error_body

__all__ = [
    "DEFAULT_MAX_PAYLOAD_BYTES",
    "derender_split",
    "estimated_answer_bytes",
    "oversized",
    "responses_split",
    "splittable",
    "whole_or_split",
]

#: The largest derender body (request or answer) sent in one call by default, counted as Lambda
#: counts it (:func:`tito.adapters.payload.event_bytes`: JSON-escaped in the event or proxy
#: answer): the functions' own default limit (``TITO_MAX_BODY_BYTES``), Lambda's 6 MB less room
#: for the rest of the event.
DEFAULT_MAX_PAYLOAD_BYTES = MAX_EVENT_BODY_BYTES
#: Estimated answer bytes (escaped as in the proxy answer) per logprob candidate (chat's
#: ``{"token","logprob","bytes"}`` objects: ~75 for English text, more for multi-byte
#: characters), per output token (text, ids) and for the rest of the answer.
ANSWER_BYTES_PER_CANDIDATE = 96
ANSWER_BYTES_PER_TOKEN = 16
ANSWER_BYTES_FIXED = 4096
#: Most tokens in one streamed piece, whatever the budget allows.
MAX_PIECE_TOKENS = 8192

Post = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def _choices(responses: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [c for r in responses for c in r.get("choices") or []]


def _entries(choice: Mapping[str, Any]) -> list[Any] | None:
    """The choice's engine logprob entries when there are any (what the split moves)."""
    lp = choice.get("logprobs")
    content = lp.get("content") if isinstance(lp, Mapping) else None
    return content if isinstance(content, list) and content else None


def estimated_answer_bytes(responses: Sequence[Mapping[str, Any]]) -> int:
    """A (generous) estimate of a batch derender answer's size, from what the engine returned."""
    total = ANSWER_BYTES_FIXED
    for choice in _choices(responses):
        total += ANSWER_BYTES_PER_TOKEN * len(choice.get("token_ids") or [])
        for entry in _entries(choice) or []:
            top = entry.get("top_logprobs") if isinstance(entry, Mapping) else None
            total += ANSWER_BYTES_PER_CANDIDATE * (1 + len(top or []))
    return total


def oversized(request_bytes: int, responses: Sequence[Mapping[str, Any]], limit: int) -> bool:
    """Would the batch call's request (its :func:`~tito.adapters.payload.event_bytes`) or its
    (estimated) answer be over ``limit`` bytes?"""
    return request_bytes > limit or estimated_answer_bytes(responses) > limit


def splittable(responses: Sequence[Mapping[str, Any]]) -> bool:
    """Is there anything the split can move out of the batch call (engine logprobs)?"""
    return any(_entries(c) is not None for c in _choices(responses))


def _piece_tokens(responses: Sequence[Mapping[str, Any]], request_bytes: int, limit: int) -> int:
    """Tokens per streamed call: half the budget at the larger of the per-token sizes."""
    tokens = max(1, sum(len(c.get("token_ids") or []) for c in _choices(responses)))
    per_token = max(request_bytes, estimated_answer_bytes(responses)) / tokens
    return max(1, min(MAX_PIECE_TOKENS, int(limit / 2 / per_token)))


def _skeleton(responses: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The engine responses without the choices' logprob entries."""
    out = []
    for r in responses:
        choices = [{**c, "logprobs": None} if _entries(c) is not None else c
                   for c in r.get("choices") or []]
        out.append({**r, "choices": choices})
    return out


def _chunk_events(
    request_id: Any, choice: Mapping[str, Any], piece: int
) -> Iterator[dict[str, Any]]:
    """The engine stream events of one batch ``choice``, ``piece`` tokens (and their logprob
    entries) each; the last one carries the choice's finish reason."""
    ids = list(choice.get("token_ids") or [])
    lp = dict(choice["logprobs"])
    content, sampled = lp["content"], lp.get("sampled")
    for start in range(0, max(len(ids), 1), piece):
        end = start + piece
        logprobs = {**lp, "content": content[start:end]}
        if isinstance(sampled, list):
            logprobs["sampled"] = sampled[start:end]
        yield {"request_id": request_id, "choices": [{
            "index": choice.get("index", 0), "token_ids": ids[start:end], "logprobs": logprobs,
            "finish_reason": (choice.get("finish_reason") or "stop") if end >= len(ids)
            else None}]}


async def _streamed_logprobs(
    path: str, first: Mapping[str, Any], model: Any, request_id: Any,
    choice: Mapping[str, Any], piece: int, post: Post, every_call: bool,
) -> list[Any]:
    """One choice streamed in ``piece``-token calls: the answer's logprobs of every chunk."""
    state: Any = None
    parts: list[Any] = []
    for event in _chunk_events(request_id, choice, piece):
        body: dict[str, Any] = {"stream": True}
        body.update(first if state is None or every_call else {"model": model})
        body["stream_state"] = state
        body["generate_chunk"] = event
        out = await post(path, body)
        state = out.get("stream_state")
        for c in (out.get("chunk") or {}).get("choices") or []:
            if c.get("logprobs") is not None:
                parts.append(c["logprobs"])
        if isinstance(state, Mapping) and state.get("stop_fired"):
            break  # a stop string ended the choice: the rest has no output, as in the batch
    return parts


def _join(endpoint: str, head: Any, parts: list[Any]) -> Any:
    """The streamed logprobs of one choice in the batch's shape (after ``head``, if any)."""
    if endpoint == "chat":
        entries = list((head or {}).get("content") or [])
        for p in parts:
            entries.extend(p.get("content") or [])
        return {**(head or {}), "content": entries}
    keys = ("text_offset", "token_logprobs", "tokens", "top_logprobs")
    joined: dict[str, Any] = {k: list((head or {}).get(k) or []) for k in keys}
    for p in parts:
        for k in keys:
            joined[k].extend(p.get(k) or [])
    return {**(head or {}), **joined}


async def derender_split(
    endpoint: str,
    path: str,
    body: Mapping[str, Any],
    response_field: str,
    firsts: Sequence[Mapping[str, Any]],
    request_bytes: int,
    limit: int,
    post: Post,
    *,
    every_call: bool = False,
) -> dict[str, Any]:
    """The batch answer of ``body`` made of a skeleton call and streamed calls (module header).

    ``response_field`` is ``generate_response`` (chat) or ``generate_responses`` (completions);
    ``firsts`` the fields of each engine response's first streamed call (its request context);
    ``every_call``: send them on every call (a vLLM derender).
    """
    raw = body[response_field]
    responses = [raw] if isinstance(raw, Mapping) else list(raw)
    skeleton_body = dict(body)
    skeleton = _skeleton(responses)
    skeleton_body[response_field] = skeleton[0] if isinstance(raw, Mapping) else skeleton
    piece = _piece_tokens(responses, request_bytes, limit)
    streamed: list[Any] = []
    for r, resp in enumerate(responses):
        for choice in resp.get("choices") or []:
            if _entries(choice) is None:
                streamed.append(None)
                continue
            streamed.append(_streamed_logprobs(path, firsts[r], body.get("model"),
                                               resp.get("request_id"), choice, piece, post,
                                               every_call))
    answer, *parts = await asyncio.gather(
        post(path, skeleton_body), *(s for s in streamed if s is not None))
    pending = iter(parts)
    choices = answer.get("choices") or []
    if len(choices) != len(streamed):
        raise TitoClientError("derender", 502, error_body(
            f"derender answered {len(choices)} choices for {len(streamed)}",
            type_=ErrorType.BAD_GATEWAY, code=502))
    for choice, job in zip(choices, streamed, strict=True):
        if job is not None:
            choice["logprobs"] = _join(endpoint, choice.get("logprobs"), next(pending))
    return answer


async def responses_split(
    path: str,
    body: Mapping[str, Any],
    first: Mapping[str, Any],
    request_bytes: int,
    limit: int,
    post: Post,
) -> dict[str, Any]:
    """A Responses batch derender made of streamed calls: the ``Response`` of the events.

    A Responses answer is its stream assembled (``tito.service.responses_assembler``; the batch
    derender is the assembled stream of one chunk), so no skeleton is needed: the one choice goes
    in ``piece``-token calls carrying ``stream_state``, and the assembled ``response.completed``
    (or ``.incomplete``) event's ``Response`` is the batch answer. The first call carries the
    request's context (``first``) and what the batch takes the input token count from (the
    engine's ``prompt_token_ids`` and ``usage``).
    """
    from tito.service.responses_assembler import Assembler

    resp = body["generate_response"]
    piece = _piece_tokens([resp], request_bytes, limit)
    assembler = Assembler()
    state: Any = None
    last: dict[str, Any] | None = None
    for event in _chunk_events(resp.get("request_id"), resp["choices"][0], piece):
        call: dict[str, Any] = {"stream": True}
        if state is None:
            call.update(first)
            event.update({k: resp[k] for k in ("prompt_token_ids", "usage") if resp.get(k)})
        else:
            call["model"] = first.get("model")
        call["stream_state"] = state
        call["generate_chunk"] = event
        out = await post(path, call)
        state = out.get("stream_state")
        for e in out.get("events") or []:
            last = assembler.feed(e)
        if isinstance(state, Mapping) and state.get("stop_fired"):
            break  # a stop string ended the response: the rest has no output, as in the batch
    if last is None or not isinstance(last.get("response"), dict):
        raise TitoClientError("derender", 502, error_body(
            "the streamed Responses derender did not complete the response",
            type_=ErrorType.BAD_GATEWAY, code=502))
    return last["response"]


async def whole_or_split(
    content: bytes,
    responses: Sequence[Mapping[str, Any]],
    limit: int,
    whole: Callable[[], Awaitable[dict[str, Any]]],
    split: Callable[[int], Awaitable[dict[str, Any]]],
) -> dict[str, Any]:
    """The batch call ``whole()`` (its JSON ``content``), or ``split(request_bytes)`` when it
    would not fit ``limit`` (module header), or when the function answered 413 anyway."""
    request_bytes = event_bytes(content)
    can_split = splittable(responses)
    if can_split and oversized(request_bytes, responses, limit):
        return await split(request_bytes)
    try:
        return await whole()
    except TitoClientError as exc:
        if exc.status == 413 and can_split:  # an answer the estimate missed
            return await split(request_bytes)
        raise
