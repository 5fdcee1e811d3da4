"""deepseek_v3 / deepseek_v31: the whitespace between a call's JSON and its closer is the
arguments', whatever its length.

vLLM 0.33's batch regex takes the raw text between ```` ```json\\n ```` and
``\\n```<｜tool▁call▁end｜>``, so a trailing whitespace run of any length is part of the
arguments (goldens ``deepseek_v3/fz39_args_ws_*``, ``deepseek_v3/fz40_args_ws_*``). tito's
stream must give the batch's result for every chunking while holding O(1) text: it sends the
run as it comes and holds only a last newline (the fence's line) and a marker's prefix. Before
session 40 a run over 64 characters ended the call in a stream (the fence and marker became
content) but not in batch.
"""

from __future__ import annotations


from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import drive_tools
from tito.core.parsers.tools import ToolState, make_tool_parser

BEGIN, CALL, SEP, CALL_END, END = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
)
ARGS = '{"city": "Paris"}'
P = make_tool_parser("deepseek_v3")
#: the longest text the tail may hold: a newline and a proper prefix of the call end marker
HOLD_BOUND = 1 + len(CALL_END)


def drive(chunks: list[str], parser=P) -> tuple[str, list[tuple[str, str]], int]:
    """(content, [(name, arguments)], the longest ``buf`` held between chunks after a call's
    JSON closed), the state round-tripping through JSON between calls as a client carries it."""
    held = [0]

    def watch(state: ToolState) -> None:
        if state.phase in ("tail", "fence"):
            held[0] = max(held[0], len(state.buf))

    content, calls = drive_tools(parser, chunks, watch)
    return content, calls, held[0]


def call(args: str, name: str = "get_weather") -> str:
    return f"{CALL}function{SEP}{name}\n```json\n{args}"


def test_a_long_trailing_run_is_the_arguments_in_batch_and_every_stream():
    for run in (" " * 70, "\n" * 70, " \n\t" * 30, " " * 5000):
        text = f"{BEGIN}{call(ARGS + run)}\n```{CALL_END}{END}"
        batch = drive([text])
        assert batch[:2] == ("", [("get_weather", ARGS + run)])
        one = drive([*text, ""])
        assert one[:2] == batch[:2] and one[2] <= HOLD_BOUND


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run=st.text(alphabet=" \t\r\n", max_size=200),
    fence_ws=st.text(alphabet=" \n", max_size=100),
    tail=st.sampled_from([
        "\n```" + CALL_END, CALL_END, "```" + CALL_END, "\n```{ws}" + CALL_END, "x",
        "\n```x", "", "\n```", "\n``", END, "\n<｜tool▁call", "```{ws}" + END,
    ]),
    after=st.sampled_from(["", END, f"{call(ARGS, 'g')}\n```{CALL_END}{END} done", " t"]),
    cuts=st.lists(st.integers(0, 600), max_size=12),
)
def test_any_chunking_of_the_tail_equals_batch(run, fence_ws, tail, after, cuts):
    text = f"a{BEGIN}{call(ARGS + run)}{tail.replace('{ws}', fence_ws)}{after}"
    batch = drive([text])
    bounds = sorted({c % (len(text) + 1) for c in cuts})
    chunks = [text[i:j] for i, j in zip([0, *bounds], [*bounds, len(text)])]
    stream = drive(chunks)
    assert stream[:2] == batch[:2]
    one = drive([*text, ""])
    assert one[:2] == batch[:2] and one[2] <= HOLD_BOUND
    calls = batch[1]
    assert calls[0][0] == "get_weather"
    if tail == "\n```" + CALL_END:  # the closed call: vLLM's regex, the whole run
        assert calls[0][1] == ARGS + run
    else:  # otherwise the run stays the arguments' but for a newline the fence follows
        assert calls[0][1].startswith(ARGS) and not calls[0][1][len(ARGS):].strip(" \t\r\n")


V31 = make_tool_parser("deepseek_v31")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run=st.text(alphabet=" \t\r\n", max_size=200),
    tail=st.sampled_from([CALL_END, END, "x", "", "<｜tool▁call", CALL]),
    cuts=st.lists(st.integers(0, 400), max_size=12),
)
def test_deepseek_v31_trailing_run_is_the_arguments_in_any_chunking(run, tail, cuts):
    """deepseek_v31 alike (no fence): the run before ``<｜tool▁call▁end｜>`` is the arguments'
    whatever its length (vLLM's regex; ``deepseek_v31/fz40_args_ws_long_*``), and stays theirs
    when something else ends the call (it was dropped past 64 characters)."""
    text = f"a{BEGIN}{CALL}get_weather{SEP}{ARGS}{run}{tail}{END} b"
    batch = drive([text], V31)
    bounds = sorted({c % (len(text) + 1) for c in cuts})
    chunks = [text[i:j] for i, j in zip([0, *bounds], [*bounds, len(text)])]
    assert drive(chunks, V31)[:2] == batch[:2]
    one = drive([*text, ""], V31)
    assert one[:2] == batch[:2] and one[2] <= len(CALL_END)
    assert batch[1][0] == ("get_weather", ARGS + run)
