"""The Responses events' per-token shortcut (``events_for``'s first branch) against the general
path (``_events``), on every events state and pipeline output the shortcut could take.

Why its own file: ``tests/test_responses_derender.py`` checks whole streams against vLLM's
goldens; this pins the shortcut's equivalence case by case (states, outputs, logprobs)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core.pipeline import ChoiceOutput, ToolCallOut
from tito.service import responses_events
from tito.service.responses_events import EventState, Usage

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
