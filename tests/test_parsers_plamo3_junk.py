"""plamo3: text a model writes inside a request's header (between the request marker and the
name marker, or between the name's end marker and the arguments marker: a stray ``>``).

vLLM 0.33's engine drops such text in its preamble and reads the call whole (goldens
``plamo3*/fz40_request_junk*``, ``plamo3/fz40_args_junk_*``, fuzz seed 115); tito makes the
same call and keeps the text as content. Before session 40 tito made the whole request content
(junk after the request marker) or ended the call with ``{}`` and made its arguments content
(junk before the arguments marker). Every chunking must give the batch's result.
"""

from __future__ import annotations


from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import drive_tools
from tito.core.parsers.tools import make_tool_parser

P = make_tool_parser("plamo3")
BEGIN, END = "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"
REQ, REQ_END = "<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>"
NAME, NAME_END = "<|plamo:begin_tool_name:plamo|>", "<|plamo:end_tool_name:plamo|>"
ARGS = "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
ARGS_END = "<|plamo:end_tool_arguments:plamo|>"
A = '{"city": "Paris"}'


def drive(chunks: list[str]) -> tuple[str, list[tuple[str, str]]]:
    return drive_tools(P, chunks)


def request(name: str, before_name: str = "", before_args: str = "") -> str:
    return f"{REQ}{before_name}{NAME}{name}{NAME_END}{before_args}{ARGS}{A}{ARGS_END}{REQ_END}"


def test_text_inside_a_header_is_content_and_the_call_is_made():
    text = f"a{BEGIN}{request('get_weather', before_name='>')}{request('get_time', before_args=' > x ')}{END}b"
    assert drive([text]) == ("a>> x b", [("get_weather", A), ("get_time", A)])


_JUNK = st.text(alphabet=" \n>xy<|", max_size=12).filter(lambda j: "<|" not in j)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before_name=_JUNK, before_args=_JUNK, second=st.booleans(),
       cuts=st.lists(st.integers(0, 800), max_size=12))
def test_any_chunking_equals_batch(before_name, before_args, second, cuts):
    body = request("get_weather", before_name, before_args)
    if second:
        body += request("get_time", before_args=before_name)
    text = f"a{BEGIN}{body}{END}b"
    batch = drive([text])
    bounds = sorted({c % (len(text) + 1) for c in cuts})
    assert drive([text[i:j] for i, j in zip([0, *bounds], [*bounds, len(text)])]) == batch
    assert drive([*text, ""]) == batch
    assert [c for c, _ in batch[1]] == ["get_weather", "get_time"][: 1 + second]
    assert all(args == A for _, args in batch[1])


def test_a_long_whitespace_run_around_the_arguments_marker_keeps_the_state_bounded():
    """Whitespace after the arguments marker was held with the marker: a run of a few hundred
    characters made the state overflow its bound (StateError) in a stream; now it is dropped as
    it comes (vLLM strips the raw arguments)."""
    for before, after in ((" " * 400, ""), ("", " " * 400), ("\n" * 300, "\n" * 300)):
        text = (f"{BEGIN}{REQ}{NAME}f{NAME_END}{before}{ARGS}{after}{A}{ARGS_END}{REQ_END}{END}")
        batch = drive([text])
        assert batch == ("", [("f", A)])
        assert drive([*text, ""]) == batch


def test_text_after_a_long_run_behind_the_request_marker_is_decided_within_the_header_bound():
    """A run past the header's bound behind a request marker: the request is content in batch
    and stream alike (the junk rule looks only within the bound, as the header does)."""
    for run in (" " * 300, " " * 100):
        text = f"a{BEGIN}{request('get_weather', before_name=run + 'x')}{END}b"
        batch = drive([text])
        for size in (1, 7, 50):
            assert drive([text[i : i + size] for i in range(0, len(text), size)] + [""]) == batch
