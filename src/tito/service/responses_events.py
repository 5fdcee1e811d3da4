"""The Responses stream events of one choice, from the per-chunk pipeline output.

Grammar (OpenAI's documented order; vLLM 0.33 emits the same)::

    stream   := response.created response.in_progress item* final
    item     := reasoning | message | call
    reasoning:= output_item.added content_part.added reasoning_text.delta*
                reasoning_text.done content_part.done output_item.done
    message  := output_item.added content_part.added output_text.delta*
                output_text.done content_part.done output_item.done
    call     := output_item.added function_call_arguments.delta*
                function_call_arguments.done output_item.done
    final    := response.completed | response.incomplete   (a length finish)

Rules:

- every :class:`~tito.core.pipeline.ChoiceOutput` maps to events in a fixed order: its reasoning,
  then its content, then its tool-call deltas; an item opens on its first non-empty delta and
  closes when another kind opens or the choice finishes, so the items, their texts and the final
  ``Response`` do not depend on how the engine output was chunked (only the number of delta
  events does);
- an item closed by the next one is ``completed``; the last one takes the finish status
  (``incomplete`` on ``length``), as vLLM's ``build_response_output_items``;
- ids are derived, not random: ``rs_``/``msg_``/``fc_`` + a hash of (response id, output index),
  and a call's ``call_id`` from the pipeline's deterministic tool-call id, so a retried chunk
  gets the same ids and batch equals stream;
- ``sequence_number`` counts every event of the stream, continuing across calls;
- output logprobs (``include: ["message.output_text.logprobs"]``) ride on the message's text
  deltas: a chunk's logprobs wait until the message has text to carry them, and are dropped once
  the message is closed (tokens of reasoning before it are carried by its first delta);
- the state (:class:`EventState`) holds counters, the open item's text (the ``.done`` events and
  ``response.completed`` repeat the whole output, so this part grows with the output; the
  pipeline's own state stays O(1)), and the finished items.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tito.core.pipeline import ChoiceOutput

__all__ = ["EventState", "Usage", "events_for", "item_id", "response_object"]

ItemKind = Literal["reasoning", "message", "function_call"]
_PREFIX = {"reasoning": "rs", "message": "msg", "function_call": "fc"}


class Usage(BaseModel):
    """What the final ``usage`` needs, known only at the end."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0


class EventState(BaseModel):
    """The events' state between calls (serialized into ``stream_state.tito.ext``)."""

    model_config = ConfigDict(extra="forbid")

    seq: int = Field(default=0, ge=0)
    started: bool = False
    done: bool = False
    out: int = Field(default=0, ge=0)  #: output index of the open item, else of the next one
    open: ItemKind | None = None
    text: str = ""  #: the open item's text (arguments for a call)
    call_id: str | None = None
    name: str | None = None
    lps: list[dict[str, Any]] = Field(default_factory=list)  #: open message's logprobs
    pending_lps: list[dict[str, Any]] = Field(default_factory=list)
    items: list[dict[str, Any]] = Field(default_factory=list)  #: finished output items
    input_tokens: int = Field(default=0, ge=0)
    #: request fields the Response repeats (``tito.service.responses.echo_fields``)
    echo: dict[str, Any] = Field(default_factory=dict)


def item_id(response_id: str, kind: ItemKind, index: int) -> str:
    """A deterministic output item id."""
    digest = hashlib.sha256(f"{response_id}\x00{index}".encode()).hexdigest()[:32]
    return f"{_PREFIX[kind]}_{digest}"


def _call_id(tool_call_id: str | None) -> str:
    return "call_" + (tool_call_id or "").rsplit("-", 1)[-1]


def response_object(
    *, response_id: str, created: int, model: str, echo: dict[str, Any], status: str,
    output: list[dict[str, Any]], usage: Usage | None,
) -> dict[str, Any]:
    """The ``Response`` object (the SDK's ``openai.types.responses.Response`` fields)."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "instructions": echo.get("instructions"),
        "metadata": echo.get("metadata"),
        "model": model,
        "output": output,
        "parallel_tool_calls": echo.get("parallel_tool_calls", True),
        "temperature": echo.get("temperature"),
        "tool_choice": echo.get("tool_choice", "auto"),
        "tools": echo.get("tools", []),
        "top_p": echo.get("top_p"),
        "background": echo.get("background", False),
        "max_output_tokens": echo.get("max_output_tokens"),
        "previous_response_id": None,
        "reasoning": echo.get("reasoning"),
        "service_tier": echo.get("service_tier", "auto"),
        "text": echo.get("text"),
        "top_logprobs": echo.get("top_logprobs"),
        "truncation": echo.get("truncation", "disabled"),
        "user": echo.get("user"),
        "usage": None if usage is None else {
            "input_tokens": usage.input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
            "total_tokens": usage.input_tokens + usage.output_tokens,
        },
    }


class _Emitter:
    """Appends events with consecutive sequence numbers; mutates only its own state copy."""

    def __init__(self, st: EventState, response_id: str, snapshot: Callable[..., dict[str, Any]]):
        self.st = st
        self.id = response_id
        self.snapshot = snapshot
        self.events: list[dict[str, Any]] = []

    def emit(self, type_: str, **fields: Any) -> None:
        self.events.append({"type": type_, "sequence_number": self.st.seq, **fields})
        self.st.seq += 1

    def _where(self) -> dict[str, Any]:
        return {"item_id": item_id(self.id, self.st.open, self.st.out), "output_index": self.st.out}  # type: ignore[arg-type]

    def open(self, kind: ItemKind, *, call_id: str | None = None, name: str | None = None) -> None:
        st = self.st
        st.open, st.text, st.lps = kind, "", []
        ident = item_id(self.id, kind, st.out)
        if kind == "reasoning":
            item: dict[str, Any] = {"id": ident, "type": "reasoning", "summary": [],
                                    "status": "in_progress"}
        elif kind == "message":
            item = {"id": ident, "type": "message", "role": "assistant", "content": [],
                    "status": "in_progress"}
        else:
            st.call_id, st.name = call_id, name
            item = {"id": ident, "type": "function_call", "call_id": call_id, "name": name,
                    "arguments": "", "status": "in_progress"}
        self.emit("response.output_item.added", output_index=st.out, item=item)
        if kind == "reasoning":
            self.emit("response.content_part.added", **self._where(), content_index=0,
                      part={"type": "reasoning_text", "text": ""})
        elif kind == "message":
            self.emit("response.content_part.added", **self._where(), content_index=0,
                      part={"type": "output_text", "text": "", "annotations": [], "logprobs": []})

    def close(self, status: str = "completed") -> None:
        st = self.st
        if st.open is None:
            return
        where = self._where()
        if st.open == "reasoning":
            part = {"type": "reasoning_text", "text": st.text}
            self.emit("response.reasoning_text.done", **where, content_index=0, text=st.text)
            self.emit("response.content_part.done", **where, content_index=0, part=part)
            item = {"id": where["item_id"], "type": "reasoning", "summary": [], "content": [part],
                    "status": status}
        elif st.open == "message":
            st.lps.extend(st.pending_lps)
            st.pending_lps = []
            part = {"type": "output_text", "text": st.text, "annotations": [],
                    "logprobs": st.lps if st.echo.get("logprobs") else None}
            self.emit("response.output_text.done", **where, content_index=0, text=st.text,
                      logprobs=[])
            self.emit("response.content_part.done", **where, content_index=0, part=part)
            item = {"id": where["item_id"], "type": "message", "role": "assistant",
                    "content": [part], "status": status}
        else:
            self.emit("response.function_call_arguments.done", **where, name=st.name,
                      arguments=st.text)
            item = {"id": where["item_id"], "type": "function_call", "call_id": st.call_id,
                    "name": st.name, "arguments": st.text, "status": status}
        self.emit("response.output_item.done", output_index=st.out, item=item)
        st.items.append(item)
        st.out += 1
        st.open, st.text, st.lps, st.call_id, st.name = None, "", [], None, None

    def ensure(self, kind: ItemKind) -> None:
        if self.st.open != kind:
            self.close()
            self.open(kind)


def events_for(
    st: EventState,
    out: ChoiceOutput,
    *,
    response_id: str,
    created: int,
    model: str,
    usage: Callable[[], Usage],
) -> tuple[EventState, list[dict[str, Any]]]:
    """The events of one pipeline output (see the module header); ``usage`` is asked for only
    when the choice finishes."""
    st = st.model_copy(deep=True)
    if st.done:
        return st, []

    def snapshot(status: str, output: list[dict[str, Any]], use: Usage | None) -> dict[str, Any]:
        return response_object(response_id=response_id, created=created, model=model,
                               echo=st.echo, status=status, output=output, usage=use)

    em = _Emitter(st, response_id, snapshot)
    if not st.started:
        st.started = True
        em.emit("response.created", response=snapshot("in_progress", [], None))
        em.emit("response.in_progress", response=snapshot("in_progress", [], None))
    if out.logprobs and st.echo.get("logprobs"):
        st.pending_lps.extend(out.logprobs)
    if out.reasoning:
        em.ensure("reasoning")
        st.text += out.reasoning
        em.emit("response.reasoning_text.delta", **em._where(), content_index=0,
                delta=out.reasoning)
    if out.text:
        em.ensure("message")
        st.text += out.text
        lps, st.pending_lps = st.pending_lps, []
        st.lps.extend(lps)
        em.emit("response.output_text.delta", **em._where(), content_index=0, delta=out.text,
                logprobs=lps)
    for call in out.tool_calls:
        if call.name is not None:
            em.close()
            em.open("function_call", call_id=_call_id(call.id), name=call.name)
        elif st.open != "function_call":
            continue  # a continuation without its start cannot be placed (never from parsers)
        if call.arguments:
            st.text += call.arguments
            em.emit("response.function_call_arguments.delta", **em._where(),
                    delta=call.arguments)
    if out.finish_reason is not None:
        status = "incomplete" if out.finish_reason == "length" else "completed"
        em.close(status)
        st.pending_lps = []
        st.done = True
        final = snapshot(status, list(st.items), usage())
        em.emit(f"response.{status}", response=final)
    return st, em.events
