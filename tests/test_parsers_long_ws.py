"""Long whitespace runs where a parser holds text (a header, a marker's prefix): the state must
stay within its bound (``ToolState`` validates it on the way in) and every chunking must give
the batch's result. Found by a sweep that put 300-character runs between the fragments of
``test_parsers_tools._FRAGMENTS`` (session 40): mistral held the whitespace after
``[TOOL_CALLS]`` without a bound (a StateError in a stream).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import drive_tools
from tito.core.parsers.tools import make_tool_parser


drive = drive_tools


@pytest.mark.parametrize("after", ['[{"name": "k"}]', '{"name": "k"}', "x", "f[ARGS]{}", ""])
@pytest.mark.parametrize("run", [" " * 300, "\n" * 250, " " * 60])
def test_mistral_whitespace_after_the_marker(run, after):
    p = make_tool_parser("mistral")
    text = f"[TOOL_CALLS]{run}{after}"
    batch = drive(p, [text])
    for size in (1, 5, 64):
        assert drive(p, [text[i : i + size] for i in range(0, len(text), size)] + [""]) == batch
    if len(run) > 250:  # past the header's bound: the text is content, as a long header's
        assert batch == (text, [])


def test_a_typed_xml_value_after_a_long_whitespace_run_commits_alike_in_every_chunking():
    """A typed value (object or array) whose whitespace fills the value buffer: the commit
    (raw JSON or a string) is decided on its first ``VALUE_LIMIT + 1`` characters in batch and
    stream alike (the batch looked at the whole value: stream != batch)."""
    from test_parsers_tools import _parser_for

    p = _parser_for("deepseek_v32")
    for run in ("\n" * 300, " " * 100):
        text = ('<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="o">'
                f'{run}[1, 2]</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>')
        batch = drive(p, [text])
        for size in (1, 7, 64):
            assert drive(p, [text[i : i + size] for i in range(0, len(text), size)] + [""]) == batch
        assert json.loads(batch[1][0][1]) == {"o": run + "[1, 2]" if len(run) > 256 else [1, 2]}


_BLOCKS = {"hermes": ("<tool_call>", "</tool_call>"),
           "longcat": ("<longcat_tool_call>", "</longcat_tool_call>")}


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(_BLOCKS)), n=st.integers(0, 400),
       args=st.sampled_from(['{}', '""', '{"a": 1}']),
       tail=st.sampled_from(["", "}", " x", "<tool_call>"]), size=st.integers(1, 90))
def test_whitespace_before_a_blocks_end_marker_streams_as_batch(
        name: str, n: int, args: str, tail: str, size: int) -> None:
    """A run of any length between a call's JSON and its end marker: a long one is content
    (gap rule) in one chunk, and a stream cut inside it still ends the call at the marker
    (found by a 300-character whitespace sweep over the formats' fragments: hermes)."""
    start, end = _BLOCKS[name]
    p = make_tool_parser(name)
    text = f'{start}{{"name": "f", "arguments": {args}}}' + " " * n + end + tail
    batch = drive(p, [text])
    assert batch[1][0][0] == "f"
    assert drive(p, [text[i : i + size] for i in range(0, len(text), size)] + [""]) == batch
