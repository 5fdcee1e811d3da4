"""The Responses stream events of one choice, from the per-chunk pipeline output (compact form).

Grammar (OpenAI's documented order; vLLM 0.33 emits the same)::

    stream   := response.created response.in_progress item* final
    item     := reasoning | message | call | custom
    reasoning:= output_item.added content_part.added reasoning_text.delta*
                reasoning_text.done content_part.done output_item.done
    message  := output_item.added content_part.added output_text.delta*
                output_text.done content_part.done output_item.done
    call     := output_item.added function_call_arguments.delta*
                function_call_arguments.done output_item.done
    custom   := output_item.added custom_tool_call_input.delta*
                custom_tool_call_input.done output_item.done
    final    := response.completed | response.incomplete   (a length finish)

Compact events, O(1) state. OpenAI's ``.done`` events and the final ``Response`` repeat the whole
output; carrying it between calls would make the stream state grow with the output. So this
module emits every event of the grammar with every field that carries new information, and
leaves out the fields that only repeat earlier events of the same stream:

- ``reasoning_text.done.text``, ``output_text.done.text`` and ``.logprobs``,
  ``function_call_arguments.done.arguments`` and ``.name``, ``custom_tool_call_input.done.input``;
- ``content_part.done.part``'s ``text`` (and a message's ``logprobs`` when they were asked for;
  otherwise ``logprobs: null`` is given, which is new information);
- ``output_item.done.item``: only ``id``, ``type`` and ``status`` (none for a custom call:
  the SDK's item has no status) are given (the rest is the ``output_item.added`` item, the
  filled part, the arguments or the input);
- the final event's ``response``: only ``id``, ``object``, ``created_at``, ``model``, ``status``,
  ``error``, ``incomplete_details`` and ``usage`` are given (``output`` and the request fields
  are ``response.created``'s).

:mod:`tito.service.responses_assembler` (a pure fold over the events, O(output) memory) fills
them; the gateway and ``tito.client`` run it over every stream they relay, and the batch derender
runs it over its one-chunk stream, so batch == stream by construction and users see OpenAI's
complete events. A direct caller of the streaming endpoint runs the assembler too, or applies
its rule: an absent field is the concatenation of the item's deltas (or the earlier event's
value).

Rules:

- every :class:`~tito.core.pipeline.ChoiceOutput` maps to events in a fixed order: its reasoning,
  then its content, then its tool-call deltas; an item opens on its first non-empty delta and
  closes when another kind opens or the choice finishes, so the items, their texts and the final
  ``Response`` do not depend on how the engine output was chunked (only the number of delta
  events does);
- an item closed by the next one is ``completed``; the last one takes the finish status
  (``incomplete`` on ``length``), as vLLM's ``build_response_output_items``;
- calls (:mod:`tito.service.responses_custom`, vLLM 0.33's rules): a call of a custom tool's
  name is a ``custom_tool_call`` item, its arguments decoded by :mod:`tito.core.custom_input`
  into ``custom_tool_call_input.delta`` pieces (only non-empty ones; the last one, if any, at
  the close), which concatenate to its ``input``; a call of a namespace's flat
  ``<namespace>__<name>`` is a ``function_call`` item with its ``namespace`` and bare ``name``;
  the names to tell them by ride in the state (``custom``, ``spaces``: the request's, only
  when it has such tools), with the open custom call's decoder (``dec``);
- ids are derived, not random: ``rs_``/``msg_``/``fc_``/``ctc_`` + a hash of (response id, output index),
  and a call's ``call_id`` from the pipeline's deterministic tool-call id, so a retried chunk
  gets the same ids and batch equals stream;
- ``sequence_number`` counts every event of the stream, continuing across calls;
- output logprobs (``include: ["message.output_text.logprobs"]``): the caller passes the chunk's
  entries that belong to the open message (``tito.service.responses_derender`` decides it per
  token, so the split does not depend on chunking); they ride on the chunk's text delta, or on an
  empty-text delta when the message's text of this chunk is still held back;
- the state (:class:`~tito.service.responses_event_state.EventState`) is counters and flags;
  its size does not depend on the output.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from tito.core import custom_input
from tito.core.custom_input import InputDecoder
from tito.core.pipeline import ChoiceOutput
from tito.service.responses_event_state import EventState, ItemKind, Usage

__all__ = ["events_for", "item_id", "kind_after", "opens_item", "response_object"]

_PREFIX = {"reasoning": "rs", "message": "msg", "function_call": "fc", "custom_tool_call": "ctc"}
_CALLS = frozenset({"function_call", "custom_tool_call"})
#: the final ``response`` fields a compact event gives (the others are ``response.created``'s)
FINAL_FIELDS = ("id", "object", "created_at", "model", "status", "error", "incomplete_details",
                "usage")


@lru_cache(maxsize=256)
def item_id(response_id: str, kind: ItemKind, index: int) -> str:
    """A deterministic output item id (cached: a stream's every delta event names its item)."""
    digest = hashlib.sha256(f"{response_id}\x00{index}".encode()).hexdigest()[:32]
    return f"{_PREFIX[kind]}_{digest}"


def _call_id(tool_call_id: str | None) -> str:
    return "call_" + (tool_call_id or "").rsplit("-", 1)[-1]


def kind_after(open_: ItemKind | None, out: ChoiceOutput) -> ItemKind | None:
    """The kind of the item open after ``out`` (the order of :func:`events_for`)."""
    if out.reasoning:
        open_ = "reasoning"
    if out.text:
        open_ = "message"
    if any(call.name is not None for call in out.tool_calls):
        open_ = "function_call"
    return open_


def opens_item(open_: ItemKind | None, out: ChoiceOutput) -> bool:
    """Does ``out`` open an item (so its tokens may belong to different items)?"""
    if any(call.name is not None for call in out.tool_calls):
        return True
    return bool((out.reasoning and open_ != "reasoning")
                or (out.text and (open_ != "message" or out.reasoning)))


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

    def __init__(self, st: EventState, response_id: str) -> None:
        self.st = st
        self.id = response_id
        self.events: list[dict[str, Any]] = []

    def emit(self, type_: str, **fields: Any) -> None:
        self.events.append({"type": type_, "sequence_number": self.st.seq, **fields})
        self.st.seq += 1

    def where(self) -> dict[str, Any]:
        assert self.st.open is not None
        return {"item_id": item_id(self.id, self.st.open, self.st.out), "output_index": self.st.out}

    def open_call(self, call_id: str, name: str) -> None:
        """A call's item: a custom tool's (its input decoded), a namespace's function (its own
        name and namespace), or a function's."""
        st = self.st
        if st.custom and name in st.custom:
            st.dec = InputDecoder()
            self.open("custom_tool_call", call_id=call_id, name=name)
        elif st.spaces and name in st.spaces:
            space = st.spaces[name]
            self.open("function_call", call_id=call_id, name=name[len(space) + 2:],
                      namespace=space)
        else:
            self.open("function_call", call_id=call_id, name=name)

    def arguments(self, delta: str) -> None:
        """A call's arguments delta: as it is, or a custom call's input piece it decodes to."""
        if self.st.open == "custom_tool_call" and self.st.dec is not None:
            self.st.dec, piece = custom_input.feed(self.st.dec, delta)
            if piece:
                self.emit("response.custom_tool_call_input.delta", **self.where(), delta=piece)
        else:
            self.emit("response.function_call_arguments.delta", **self.where(), delta=delta)

    def open(self, kind: ItemKind, *, call_id: str | None = None, name: str | None = None,
             namespace: str | None = None) -> None:
        st = self.st
        st.open = kind
        ident = item_id(self.id, kind, st.out)
        if kind == "reasoning":
            item: dict[str, Any] = {"id": ident, "type": "reasoning", "summary": [],
                                    "status": "in_progress"}
        elif kind == "message":
            item = {"id": ident, "type": "message", "role": "assistant", "content": [],
                    "status": "in_progress"}
        elif kind == "custom_tool_call":
            item = {"id": ident, "type": "custom_tool_call", "call_id": call_id, "name": name,
                    "input": ""}
        else:
            item = {"id": ident, "type": "function_call", "call_id": call_id, "name": name,
                    "arguments": "", "status": "in_progress"}
            if namespace is not None:
                item["namespace"] = namespace
        self.emit("response.output_item.added", output_index=st.out, item=item)
        if kind == "reasoning":
            self.emit("response.content_part.added", **self.where(), content_index=0,
                      part={"type": "reasoning_text", "text": ""})
        elif kind == "message":
            self.emit("response.content_part.added", **self.where(), content_index=0,
                      part={"type": "output_text", "text": "", "annotations": [], "logprobs": []})

    def close(self, status: str = "completed") -> None:
        """The closing events, compact (see the module header)."""
        st = self.st
        if st.open is None:
            return
        where = self.where()
        if st.open == "reasoning":
            self.emit("response.reasoning_text.done", **where, content_index=0)
            self.emit("response.content_part.done", **where, content_index=0,
                      part={"type": "reasoning_text"})
        elif st.open == "message":
            part: dict[str, Any] = {"type": "output_text", "annotations": []}
            if not st.lp:
                part["logprobs"] = None
            self.emit("response.output_text.done", **where, content_index=0)
            self.emit("response.content_part.done", **where, content_index=0, part=part)
        elif st.open == "custom_tool_call":
            last = custom_input.finish(st.dec) if st.dec is not None else ""
            if last:
                self.emit("response.custom_tool_call_input.delta", **where, delta=last)
            self.emit("response.custom_tool_call_input.done", **where)
            st.dec = None
        else:
            self.emit("response.function_call_arguments.done", **where)
        done = {"id": where["item_id"], "type": st.open}
        if st.open != "custom_tool_call":  # (the SDK's custom call item has no status)
            done["status"] = status
        self.emit("response.output_item.done", output_index=st.out, item=done)
        st.out += 1
        st.open = None

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
    echo: dict[str, Any] | None = None,
    message_logprobs: list[dict[str, Any]] | None = None,
) -> tuple[EventState, list[dict[str, Any]]]:
    """The compact events of one pipeline output (see the module header).

    ``usage`` is asked for only when the choice finishes; ``echo`` (the request fields the
    ``Response`` repeats) is needed only by the stream's first call; ``message_logprobs`` are the
    chunk's logprob entries that belong to the message (when logprobs were asked for)."""
    if (st.seq and not st.done and out.finish_reason is None and not out.tool_calls
            and not (out.text and out.reasoning)):
        # the per-token case: one delta in the item already open, or nothing (the general
        # path's events, written at once; property-tested against it)
        lps = message_logprobs if st.lp else None
        if out.reasoning and st.open == "reasoning":
            new = st.model_copy()
            new.seq += 1
            return new, [{"type": "response.reasoning_text.delta", "sequence_number": st.seq,
                          "item_id": item_id(response_id, "reasoning", st.out),
                          "output_index": st.out, "content_index": 0, "delta": out.reasoning}]
        if st.open == "message" and (out.text or lps) and not out.reasoning:
            new = st.model_copy()
            new.seq += 1
            return new, [{"type": "response.output_text.delta", "sequence_number": st.seq,
                          "item_id": item_id(response_id, "message", st.out),
                          "output_index": st.out, "content_index": 0, "delta": out.text,
                          "logprobs": lps or []}]
        if not (out.text or out.reasoning):
            return st.model_copy(), []
    return _events(st, out, response_id, created, model, usage, echo, message_logprobs)


def _events(st: EventState, out: ChoiceOutput, response_id: str, created: int, model: str,
            usage: Callable[[], Usage], echo: dict[str, Any] | None,
            message_logprobs: list[dict[str, Any]] | None
            ) -> tuple[EventState, list[dict[str, Any]]]:
    """:func:`events_for`'s general case."""
    st = st.model_copy()
    if st.done:
        return st, []
    em = _Emitter(st, response_id)
    if st.seq == 0:
        created_response = response_object(response_id=response_id, created=created,
                                           model=model, echo=echo or {}, status="in_progress",
                                           output=[], usage=None)
        em.emit("response.created", response=created_response)
        em.emit("response.in_progress", response=created_response)
    if out.reasoning:
        em.ensure("reasoning")
        em.emit("response.reasoning_text.delta", **em.where(), content_index=0,
                delta=out.reasoning)
    lps = message_logprobs if st.lp else None
    if out.text:
        em.ensure("message")
    if out.text or (lps and st.open == "message"):
        em.emit("response.output_text.delta", **em.where(), content_index=0, delta=out.text,
                logprobs=lps or [])
    for call in out.tool_calls:
        if call.name is not None:
            em.close()
            em.open_call(_call_id(call.id), call.name)
        elif st.open not in _CALLS:
            continue  # a continuation without its start cannot be placed (never from parsers)
        if call.arguments:
            em.arguments(call.arguments)
    if out.finish_reason is not None:
        status = "incomplete" if out.finish_reason == "length" else "completed"
        em.close(status)
        st.done = True
        final = response_object(response_id=response_id, created=created, model=model, echo={},
                                status=status, output=[], usage=usage())
        em.emit(f"response.{status}", response={k: final[k] for k in FINAL_FIELDS})
    return st, em.events
