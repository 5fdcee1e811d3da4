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


_INVOKES = ("deepseek_v32", "deepseek_v4", "deepseek_v41", "minimax_m2")


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(_INVOKES), stray=st.sampled_from(["y", " ", "y \n", "}{"]),
       n=st.integers(0, 300), which=st.sampled_from(["section_end", "call_open", "call_close"]),
       section=st.booleans(), size=st.integers(1, 60), data=st.data())
def test_stray_text_before_an_invoke_marker_streams_as_batch(
        name: str, stray: str, n: int, which: str, section: bool, size: int,
        data: st.DataObject) -> None:
    """Stray text in a call (before any parameter) then a marker that ends the call: the text's
    last ``HEADER_LIMIT`` characters are content. A chunk cut inside the marker held the window
    with the marker's prefix in it, so the stream lost the window's first characters (found by
    the whitespace sweep: deepseek_v32 seeds 10, 14, 23)."""
    p = make_tool_parser(name)
    marker = getattr(p, which)
    head = p.section_start if section else ""
    text = f'{head}{p.call_open}"f">' + (stray * n)[:n] + marker + ('"g">' if which == "call_open"
                                                                   else "") + "tail"
    batch = drive(p, [text])
    assert batch[1][0][0] == "f"
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=6))))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    assert drive(p, [*chunks, ""]) == batch
    assert drive(p, [text[i : i + size] for i in range(0, len(text), size)] + [""]) == batch


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["qwen3_xml", "mimo", "step5", "seed_oss"]), k=st.integers(150, 260),
       run=st.sampled_from([" ", "\n", "x"]), size=st.integers(1, 80))
def test_a_long_call_name_in_a_bare_call_streams_as_batch(
        name: str, k: int, run: str, size: int) -> None:
    """A bare call's header may run past HEADER_LIMIT by the unused lead budget, so its name
    may too: the state's ``fn`` takes it (a 201-character name was a call in batch and a
    StateError in a stream; the whitespace sweep, seeds 1, 2, 14, 23)."""
    p = make_tool_parser(name)
    text = "<function=f" + run * k + "g>tail"
    batch = drive(p, [text])
    assert drive(p, [text[i : i + size] for i in range(0, len(text), size)] + [""]) == batch
    assert drive(p, [text, ""]) == batch
