"""Replaying a capture through derender (as the gateway did), and checking it against batch.

Why the check: stream == batch is tito's core promise, so a replayed stream folded into one
result per choice must equal the batch derender of the same tokens (:func:`check_capture`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tito.adapters.capture import Capture, CaptureError, _is_error_event
from tito.adapters.replay_send import Sender
from tito.client.stream_driver import StreamContext, StreamDerenderer, derender_batch_sync
from tito.client.wire import DERENDER_PATHS, SSE_DONE, TitoClientError, engine_error_body, sse_event

__all__ = ["ReplayResult", "check_capture", "replay_capture"]


@dataclass
class ReplayResult:
    """What a replay produced: the user's chunks (in order) and the error that ended it, if any."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None


def _context_of(capture: Capture, endpoint: str | None, model: str | None) -> StreamContext:
    if capture.context is not None:
        ctx = StreamContext(**{**capture.context.__dict__})
    else:
        indices = {c.get("index", 0) for e in capture.events for c in e.get("choices") or []}
        ctx = StreamContext(endpoint=endpoint or "chat",  # type: ignore[arg-type]
                            n=max(indices, default=0) + 1)
    if model is not None:
        ctx.model = model
    if endpoint is not None and capture.context is not None and endpoint != ctx.endpoint:
        raise CaptureError(f"{capture.source}: the header says endpoint {ctx.endpoint!r}, "
                           f"not {endpoint!r}")
    return ctx


def replay_capture(
    capture: Capture,
    send: Sender,
    *,
    chunks_per_call: int = 1,
    endpoint: str | None = None,
    model: str | None = None,
    write: Callable[[bytes], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReplayResult:
    """Derender the capture's events ``chunks_per_call`` at a time, as the gateway did.

    ``write`` receives the SSE bytes as they are produced (ending with ``data: [DONE]``);
    ``progress`` the number of engine events consumed so far.
    """
    if chunks_per_call < 1:
        raise ValueError("chunks_per_call must be at least 1")
    driver = StreamDerenderer(_context_of(capture, endpoint, model))
    result = ReplayResult()
    events = capture.events
    for start in range(0, len(events), chunks_per_call):
        batch = events[start:start + chunks_per_call]
        error_event = next((e for e in batch if _is_error_event(e)), None)
        batch = [e for e in batch if not _is_error_event(e)]
        try:
            chunks = derender_batch_sync(driver, batch, send) if batch else []
        except TitoClientError as exc:
            result.error = exc.body
            break
        for chunk in chunks:
            result.chunks.append(chunk)
            if write is not None:
                write(sse_event(chunk))
        if progress is not None:
            progress(min(start + chunks_per_call, len(events)))
        if error_event is not None:
            result.error = engine_error_body(error_event)
            break
    if write is not None:
        if result.error is not None:
            write(sse_event(result.error))
        write(SSE_DONE)
    return result


def _batch_request(capture: Capture, ctx: StreamContext) -> tuple[dict[str, Any], list[int]]:
    """The batch derender body for the capture's tokens, and the choice indices it holds."""
    per: dict[int, dict[str, Any]] = {}
    request_id = ""
    for event in capture.events:
        if _is_error_event(event):
            continue
        request_id = request_id or str(event.get("request_id") or "")
        for choice in event.get("choices") or []:
            c = per.setdefault(int(choice.get("index", 0)),
                               {"ids": [], "finish": None, "lp": None})
            c["ids"].extend(choice.get("token_ids") or [])
            if choice.get("finish_reason") is not None:
                c["finish"] = choice["finish_reason"]
            lp = choice.get("logprobs")
            if lp is not None:
                c["lp"] = (c["lp"] or []) + list(lp.get("content") or [])
    indices = sorted(i for i, c in per.items() if c["ids"])  # batch refuses empty choices
    choices = [{"index": i, "token_ids": per[i]["ids"],
                "finish_reason": per[i]["finish"] or "length",
                "logprobs": {"content": per[i]["lp"]} if per[i]["lp"] is not None else None}
               for i in indices]
    response = {"request_id": request_id, "output_mode": "tokens", "choices": choices}
    body = ctx.derender_fields()
    if ctx.endpoint == "chat":
        body.update(generate_response=response, prompt_tokens=ctx.prompt_tokens)
    else:
        body.update(generate_responses=[response], prompt_tokens=[ctx.prompt_tokens or 0])
        if "derender_context" not in body:
            body["prompt_token_ids"] = [ctx.prompt_token_ids]
    return body, indices


def _assemble(chunks: Sequence[Mapping[str, Any]], endpoint: str,
              offset: int) -> tuple[dict[int, dict[str, Any]], dict[str, Any] | None]:
    """The stream folded into one result per choice (what a batch response would hold)."""
    out: dict[int, dict[str, Any]] = {}
    usage = None
    for chunk in chunks:
        if chunk.get("usage") and not chunk.get("choices"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            c = out.setdefault(int(choice["index"]) - offset, {
                "content": "", "reasoning": "", "tool_calls": {}, "finish_reason": None,
                "stop_reason": None, "logprobs": None})
            if choice.get("finish_reason") is not None:
                c["finish_reason"] = choice["finish_reason"]
                c["stop_reason"] = choice.get("stop_reason")
            lp = choice.get("logprobs")
            if endpoint == "completions":
                c["content"] += choice.get("text") or ""
                if lp is not None:
                    acc = c["logprobs"] or {"text_offset": [], "token_logprobs": [],
                                            "tokens": [], "top_logprobs": []}
                    for key in acc:
                        acc[key] = acc[key] + list(lp.get(key) or [])
                    c["logprobs"] = acc
                continue
            delta = choice.get("delta") or {}
            c["content"] += delta.get("content") or ""
            c["reasoning"] += delta.get("reasoning") or ""
            for call in delta.get("tool_calls") or []:
                t = c["tool_calls"].setdefault(call["index"], {"id": None, "name": "",
                                                               "arguments": ""})
                t["id"] = call.get("id") or t["id"]
                fn = call.get("function") or {}
                t["name"] += fn.get("name") or ""
                t["arguments"] += fn.get("arguments") or ""
            if lp is not None:
                c["logprobs"] = (c["logprobs"] or []) + list(lp.get("content") or [])
    return out, usage


def _from_batch(resp: Mapping[str, Any], endpoint: str) -> dict[int, dict[str, Any]]:
    out = {}
    for choice in resp.get("choices") or []:
        if endpoint == "completions":
            out[int(choice["index"])] = {
                "content": choice.get("text") or "", "reasoning": "", "tool_calls": {},
                "finish_reason": choice.get("finish_reason"),
                "stop_reason": choice.get("stop_reason"), "logprobs": choice.get("logprobs")}
            continue
        msg = choice.get("message") or {}
        calls = {k: {"id": t.get("id"), "name": t["function"]["name"],
                     "arguments": t["function"]["arguments"]}
                 for k, t in enumerate(msg.get("tool_calls") or [])}
        lp = choice.get("logprobs")
        out[int(choice["index"])] = {
            "content": msg.get("content") or "", "reasoning": msg.get("reasoning") or "",
            "tool_calls": calls, "finish_reason": choice.get("finish_reason"),
            "stop_reason": choice.get("stop_reason"),
            "logprobs": lp.get("content") if lp is not None else None}
    return out


def check_capture(capture: Capture, result: ReplayResult, send: Sender, *,
                  endpoint: str | None = None, model: str | None = None) -> list[str]:
    """Differences between the replayed stream and the batch derender of the same tokens."""
    ctx = _context_of(capture, endpoint, model)
    body, indices = _batch_request(capture, ctx)
    problems: list[str] = []
    if not indices:
        return ["the capture has no tokens: nothing to compare with a batch derender"]
    try:
        batch = send(DERENDER_PATHS[ctx.endpoint], body)
    except TitoClientError as exc:
        return [f"the batch derender failed ({exc.status}): "
                f"{exc.body.get('error', {}).get('message')}"]
    streamed, usage = _assemble(result.chunks, ctx.endpoint, ctx.index_offset)
    batched = _from_batch(batch, ctx.endpoint)
    for i in indices:
        s, b = streamed.get(i), batched.get(i)
        if s is None or b is None:
            problems.append(f"choice {i}: present in {'batch' if s is None else 'stream'} only")
            continue
        for key in ("content", "reasoning", "finish_reason", "stop_reason", "tool_calls",
                    "logprobs"):
            if s[key] != b[key]:
                problems.append(f"choice {i} {key}: stream {_short(s[key])} != "
                                f"batch {_short(b[key])}")
    if usage is not None:
        b_usage = batch.get("usage") or {}
        keys = ["prompt_tokens", "completion_tokens", "total_tokens"]
        if ctx.n == 1:
            keys.append("completion_tokens_details")
        for key in keys:
            if usage.get(key) != b_usage.get(key):
                problems.append(f"usage {key}: stream {usage.get(key)!r} != "
                                f"batch {b_usage.get(key)!r}")
    return problems


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:197] + "..."
