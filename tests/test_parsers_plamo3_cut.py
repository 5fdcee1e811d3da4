"""plamo3's cut markers through the whole pipeline (``tito.core.pipeline_parsers``): a marker
piece (``<|plamo:end_``) is markup only when the output's end cut it; before another marker
(``<|plamo:tag|>``, the tool-requests marker, the think end) it is text, in batch and in every
chunking. vLLM 0.33's batch strips a reasoning's or a content's tail wherever that string ended
while its stream keeps the piece (it went out before the marker came); tito's batch stripped
as vLLM's batch and its stream kept it (stream != batch: the pair sweep,
``tests/parser_ws_sweep.py --pairs``, seeds 3, 4, 7, 8).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "goldens"))

from parser_pipeline import run  # noqa: E402

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
                                                                       "properties": {}}}}]
PIECES = ["<|plamo:end_", "<|plamo:begin_", "<|plamo:begin_tool", ""]
MARKERS = ["<|plamo:tag|>", "<|plamo:begin_tool_requests:plamo|>",
           "<|plamo:end_think:plamo|>", ""]


def case(text: str) -> dict:
    return {"tool": "plamo3", "reasoning": "plamo3", "tools": TOOLS, "text": text}


def test_a_piece_before_a_marker_is_text_and_at_the_end_markup() -> None:
    assert run(case("amo<|plamo:end_<|plamo:tag|>x"), [10**6])["reasoning"] == "amo<|plamo:end_"
    assert run(case("amo<|plamo:end_"), [10**6])["reasoning"] == "amo"  # cut by the end
    after_think = "<|plamo:end_think:plamo|>x<|plamo:end_"
    assert run(case(after_think), [10**6])["content"] == "x"
    assert run(case(after_think + "<|plamo:begin_tool_requests:plamo|>"), [10**6])[
        "content"] == "x<|plamo:end_"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lead=st.sampled_from(["", "<|plamo:end_think:plamo|>x"]), piece=st.sampled_from(PIECES),
       marker=st.sampled_from(MARKERS), tail=st.sampled_from(["", "y", " "]),
       sizes=st.lists(st.integers(1, 4), min_size=1, max_size=4))
def test_every_chunking_gives_the_batch(lead: str, piece: str, marker: str, tail: str,
                                        sizes: list[int]) -> None:
    text = f"{lead}amo{piece}{marker}{tail}"
    batch = run(case(text), [10**6])
    assert run(case(text), sizes) == batch
    assert run(case(text), [1]) == batch


@pytest.mark.parametrize("text", [
    "<|plamo:end_<|plamo:tag|>o:beo_rmo|<<|plamo:end_",  # ws sweep --pairs seed 68
    "amo<|plamo:end_<|plamo:tag|>x<|plamo:end_",
    "amo<|plamo:begin_<|plamo:tag|><|plamo:begin_",
])
def test_a_piece_before_a_marker_stays_when_the_output_ends_with_it_too(text: str) -> None:
    """The reasoning's tail is the output's end only while its block is open: an output that
    ends with the same piece by chance does not make the reasoning's piece a cut marker (the
    batch dropped it, a stream kept it)."""
    piece = text[: text.index("<|plamo:tag|>")]
    batch = run(case(text), [10**6])
    assert batch["reasoning"] == piece
    for sizes in ([1], [2, 3], [len(piece), 1]):
        assert run(case(text), sizes) == batch
