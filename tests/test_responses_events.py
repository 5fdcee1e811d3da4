"""The Responses events' per-token shortcut (``events_for``'s first branch) against the general
path (``_events``), on every events state and pipeline output the shortcut could take.

Why its own file: ``tests/test_responses_derender.py`` checks whole streams against vLLM's
goldens; this pins the shortcut's equivalence case by case (states, outputs, logprobs)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core.pipeline import ChoiceOutput, ToolCallOut
from tito.service import responses_event_state, responses_events
from tito.service.responses_event_state import EventState, Usage

_LP = [{"token": "a", "logprob": -0.5, "bytes": [97], "top_logprobs": []}]


@settings(max_examples=400, deadline=None)
@given(
    seq=st.sampled_from([0, 1, 7]),
    done=st.booleans(),
    out=st.integers(0, 2),
    open_=st.sampled_from([None, "reasoning", "message", "function_call"]),
    lp=st.booleans(),
    text=st.sampled_from(["", "a b"]),
    reasoning=st.sampled_from(["", "hm"]),
    call=st.sampled_from([None, ToolCallOut(0, "call-1", "f", "{"),
                          ToolCallOut(0, None, None, "}")]),
    finish=st.sampled_from([None, None, "stop", "length"]),
    logprobs=st.sampled_from([None, [], _LP]),
)
def test_per_token_events_equal_the_general_path(seq, done, out, open_, lp, text, reasoning,
                                                 call, finish, logprobs):
    state = EventState(seq=seq, done=done, out=out, open=open_, lp=lp, input_tokens=3)
    result = ChoiceOutput(text, reasoning, [call] if call else (), None, finish)
    kwargs = {"response_id": "resp_1", "created": 1, "model": "m", "echo": {},
              "usage": lambda: Usage(input_tokens=3, output_tokens=4),
              "message_logprobs": logprobs}
    assert (responses_events.events_for(state, result, **kwargs)
            == responses_events._events(state, result, **kwargs))


#: wire values for each events-state field: valid ones, and what the checks must refuse (a bool
#: for a count, a count for a bool, a float, a negative, a string not a kind, an empty one, a
#: list, an object, null where none is allowed)
_FIELD_VALUES = [0, 1, 29, -1, True, False, 1.0, "1", None, "reasoning", "message",
                 "function_call", "web_search", "", [], {}]
_FIELDS = ["seq", "done", "out", "open", "lp", "input_tokens"]


def _validated(raw):
    try:
        return EventState.model_validate(raw)
    except ValueError as exc:
        return ("error", str(exc))


def _read(raw):
    try:
        return responses_event_state.read_event_state(raw)
    except ValueError as exc:
        return ("error", str(exc))


@settings(max_examples=600, deadline=None)
@given(raw=st.dictionaries(st.sampled_from([*_FIELDS, "extra"]), st.sampled_from(_FIELD_VALUES),
                           max_size=7))
def test_read_event_state_equals_model_validate(raw):
    """The hand read of a wire events state gives what ``model_validate`` gives: an equal state
    for a valid one (every field, or some left out), the same error for anything else."""
    assert _read(raw) == _validated(raw)


def test_read_event_state_valid_and_invalid_examples():
    """The fast path is taken for the usual state (and equals the validated one); each
    invalid value is refused with ``model_validate``'s error, not taken."""
    usual = {"seq": 29, "done": False, "out": 0, "open": "reasoning", "lp": False,
             "input_tokens": 0}
    state = responses_event_state.read_event_state(usual)
    assert state == EventState.model_validate(usual)
    assert (state.seq, state.open) == (29, "reasoning")
    for field, bad in [("seq", -1), ("seq", True), ("done", 0), ("out", 1.0), ("open", "x"),
                       ("open", ["message"]), ("lp", None), ("input_tokens", "3")]:
        raw = {**usual, field: bad}
        assert _read(raw)[0] == "error", raw
        assert _read(raw) == _validated(raw)
    for raw in (None, [], "x", {**usual, "extra": 1}):
        assert _read(raw)[0] == "error"
        assert _read(raw) == _validated(raw)
