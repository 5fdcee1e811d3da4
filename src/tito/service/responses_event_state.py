"""The Responses stream events' state between calls (``stream_state.tito.ext``) and its reader.

Why a module of its own: the state is the contract between calls (any instance serves any
chunk), so its fields, bounds and fast reader live together, apart from the event grammar in
:mod:`tito.service.responses_events` that advances it. The state is counters and flags: sequence
number, output index, the open item's kind, whether logprobs were asked for, the prompt length;
with custom or namespace tools, their names and the open custom call's decoder (a few
characters). Its size does not depend on the output.
"""

from __future__ import annotations

import operator
from typing import Any, Literal, get_args

from tito.core.custom_input import InputDecoder
from tito.core.state import Field, State
from tito.service.responses_custom import call_names

__all__ = ["EventState", "ItemKind", "Usage", "new_event_state", "read_event_state"]

ItemKind = Literal["reasoning", "message", "function_call", "custom_tool_call"]


class Usage(State):
    """What the final ``usage`` needs, known only at the end."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0


class EventState(State):
    """The events' state between calls (serialized into ``stream_state.tito.ext``): O(1).

    A :class:`tito.core.state.State` (strict, unknown keys refused), not a pydantic model: a
    streamed call validates, copies and dumps it once each, which cost pydantic several times
    the events themselves.
    """

    seq: int = Field(default=0, ge=0)  #: events emitted so far (0: the stream has not started)
    done: bool = False
    out: int = Field(default=0, ge=0)  #: output index of the open item, else of the next one
    open: ItemKind | None = None
    lp: bool = False  #: output logprobs were asked for
    input_tokens: int = Field(default=0, ge=0)
    #: the request's custom tools' names and its namespaces' flat function names -> their
    #: namespace (:func:`tito.service.responses_custom.call_names`); None without either
    custom: list[str] | None = None
    spaces: dict[str, str] | None = None
    #: the open custom call's input decoder
    dec: InputDecoder | None = None


#: what :func:`read_event_state` reads of a wire ``ext``: its fields (absent ones as their
#: defaults), the kinds an open item may have
_EVENT_DEFAULTS = {"seq": 0, "done": False, "out": 0, "open": None, "lp": False,
                   "input_tokens": 0}
_EVENT_KEYS = frozenset(_EVENT_DEFAULTS)
_EVENT_VALUES = operator.itemgetter(*_EVENT_DEFAULTS)
_KINDS = frozenset(get_args(ItemKind))
#: the exact JSON types of those fields (``open``: a kind or null)
_EVENT_TYPES = frozenset({(int, bool, int, kind, bool, int) for kind in (str, type(None))})
if len(_EVENT_KEYS) != 6:  # pragma: no cover - a changed class: read_event_state's count
    raise RuntimeError("EventState's fields changed: update read_event_state")


def read_event_state(raw: Any) -> EventState:
    """``EventState.model_validate(raw)`` (the wire's ``stream_state.tito.ext``), its six
    fields checked by hand when ``raw`` is an object of the exact JSON types and bounds the
    class declares (an ``int`` >= 0, not a ``bool``; a ``bool``; a kind or null); anything else
    is ``model_validate``'s, which reports it. Why: a Responses stream's events state is new on
    every chunk, and a state another process issued (the serverless case) was validated whole
    on each call. Both give equal states (``tests/test_responses_events.py`` compares them on
    valid and invalid values)."""
    if raw.__class__ is dict and raw.keys() <= _EVENT_KEYS:
        # (every field present, as tito writes it: read at once; else with the defaults; their
        # types compared at once)
        values = _EVENT_VALUES(raw if len(raw) == 6 else {**_EVENT_DEFAULTS, **raw})
        seq, _, out, open_, _, input_tokens = values
        if (tuple(map(type, values)) in _EVENT_TYPES and seq >= 0 and out >= 0
                and input_tokens >= 0 and (open_ is None or open_ in _KINDS)):
            return EventState._construct(*values, None, None, None)
    return EventState.model_validate(raw)


def new_event_state(echo: dict[str, Any], input_tokens: int) -> EventState:
    """A stream's first events state: what it reads from the echoed request (logprobs asked
    for, the custom and namespace tools' names)."""
    custom, spaces = call_names(echo.get("tools"))
    return EventState(lp=bool(echo.get("logprobs")), input_tokens=input_tokens,
                      custom=custom or None, spaces=spaces or None)
