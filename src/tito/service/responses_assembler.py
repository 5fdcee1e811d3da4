"""Fill the repeated fields of compact Responses stream events (sans-I/O, a pure fold).

Why: the streaming derender keeps its state O(1) by leaving out of its events every field that
only repeats earlier events of the stream (the list is in :mod:`tito.service.responses_events`'
header: the ``.done`` events' texts and arguments, ``output_item.done``'s item, the final
``Response``'s ``output`` and request fields). Whoever relays the stream sees every event, so it
can fill them back at O(output) memory that lives with the stream, not in the state that
travels with every call: the gateway and ``tito.client`` run an :class:`Assembler` per stream,
the batch derender runs one over its one-chunk stream (so batch == stream by construction), and
a direct caller of ``POST /v1/responses/derender`` with ``"stream": true`` can use this module
(or its rule) the same way.

Rule: a field absent from a compact event is the concatenation of the open item's deltas
(``text``/``arguments``/a custom call's ``input``; a message's ``logprobs``), the ``output_item.added`` item's field, or
``response.created``'s ``Response`` field; ``output`` is the finished items in order. A field
the event gives is kept, so feeding complete events changes nothing (idempotent).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["Assembler", "assemble"]


class Assembler:
    """One stream's fold: :meth:`feed` each event in order, get the complete event back."""

    __slots__ = ("_item", "_items", "_logprobs", "_part", "_response", "_text")

    def __init__(self) -> None:
        self._response: dict[str, Any] = {}  #: ``response.created``'s Response
        self._items: list[dict[str, Any]] = []  #: finished output items
        self._item: dict[str, Any] = {}  #: the open item as added
        self._part: dict[str, Any] = {}  #: its content part: as added, then as done
        self._text: list[str] = []
        self._logprobs: list[dict[str, Any]] = []

    def feed(self, event: dict[str, Any]) -> dict[str, Any]:
        """The complete form of ``event`` (a new dict; ``event`` is not changed)."""
        kind = event.get("type", "")
        if kind == "response.created":
            self._response = copy.deepcopy(event.get("response") or {})
        elif kind == "response.output_item.added":
            self._item = copy.deepcopy(event.get("item") or {})
            self._part, self._text, self._logprobs = {}, [], []
        elif kind == "response.content_part.added":
            self._part = copy.deepcopy(event.get("part") or {})
        elif kind.endswith(".delta"):
            self._text.append(event.get("delta") or "")
            if kind == "response.output_text.delta":
                self._logprobs.extend(event.get("logprobs") or [])
        elif kind in ("response.reasoning_text.done", "response.output_text.done"):
            event = {**event, "text": event.get("text", "".join(self._text))}
            if kind == "response.output_text.done":
                event.setdefault("logprobs", list(self._logprobs))
        elif kind == "response.custom_tool_call_input.done":
            event = {**event, "input": event.get("input", "".join(self._text))}
        elif kind == "response.function_call_arguments.done":
            event = {**event, "name": event.get("name", self._item.get("name")),
                     "arguments": event.get("arguments", "".join(self._text))}
        elif kind == "response.content_part.done":
            given = event.get("part") or {}
            part = {**self._part, **given}
            if "text" not in given:
                part["text"] = "".join(self._text)
            if part.get("type") == "output_text" and "logprobs" not in given:
                part["logprobs"] = list(self._logprobs)
            self._part = part
            event = {**event, "part": part}
        elif kind == "response.output_item.done":
            event = {**event, "item": self._done_item(event.get("item") or {})}
            self._items.append(event["item"])
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            given = event.get("response") or {}
            response = {**self._response, "output": list(self._items), **given}
            event = {**event, "response": response}
        return event

    def _done_item(self, given: dict[str, Any]) -> dict[str, Any]:
        item = {**self._item, **given}
        if item.get("type") == "function_call":
            if "arguments" not in given:
                item["arguments"] = "".join(self._text)
        elif item.get("type") == "custom_tool_call":
            if "input" not in given:
                item["input"] = "".join(self._text)
        elif "content" not in given:
            item["content"] = [dict(self._part)] if self._part else []
        return item


def assemble(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every event of one stream (in order), complete."""
    folder = Assembler()
    return [folder.feed(e) for e in events]
