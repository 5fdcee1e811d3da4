"""Long whitespace runs where a parser holds text (a header, a marker's prefix): the state must
stay within its bound (``ToolState`` validates it on the way in) and every chunking must give
the batch's result. Found by a sweep that put 300-character runs between the fragments of
``test_parsers_tools._FRAGMENTS`` (session 40): mistral held the whitespace after
``[TOOL_CALLS]`` without a bound (a StateError in a stream).
"""

from __future__ import annotations

import json

import pytest

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
