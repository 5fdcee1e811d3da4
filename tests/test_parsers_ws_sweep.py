"""The whitespace sweep (``tests/parser_ws_sweep.py``) over every tool and reasoning parser, a
few seeds at a small size (the full run: ``PYTHONPATH=src:tests python3
tests/parser_ws_sweep.py 0 1 ... 40``, clean at session 41; ``--pairs -n 20`` for the models'
pairs), and its shrinker on a toy parser."""

from __future__ import annotations

import time

import pytest

import parser_ws_sweep as W


@pytest.mark.parametrize("seed", [0, 23])
def test_every_parser_streams_as_batch_with_long_whitespace_runs(seed: int) -> None:
    start = time.monotonic()
    found = W.sweep(seed, n=10)
    assert [f.line() for f in found] == []
    assert time.monotonic() - start < 30  # a few seconds on an idle core


def test_each_models_pair_streams_as_batch_with_long_whitespace_runs() -> None:
    """Three pairs through the whole choice pipeline (token chunks; ``--pairs``): each pair
    builds its own tokenizer, so CI keeps to a few."""
    found = W.sweep(0, n=6, names=("hermes", "minimax_m2", "deepseek_v4"), pairs=True)
    assert [f.line() for f in found] == []


def test_the_sweep_finds_and_shrinks_a_stream_that_loses_a_held_character() -> None:
    """A toy parser that drops the first character of every chunk after the first (a hold that
    forgets one character): a finding, shrunk to two chunks."""
    def run(chunks: list[str]) -> str:
        return chunks[0] + "".join(c[1:] for c in chunks[1:])

    what, batch, stream = W._differs(run, ["ab ", "  cd", "ef"])
    assert what == "neq" and batch != stream
    small = W.shrink(run, ["ab ", "  cd", "ef"])
    assert len(small) == 2 and W._differs(run, small)[0] == "neq"
    assert W._differs(run, ["abc"])[0] == ""  # one chunk (and the final ""): no difference


def test_every_parser_has_fragments_with_whitespace() -> None:
    from tito.core.parsers import reasoning as R
    from tito.core.parsers import tools as T

    for name in T.TOOL_PARSERS:
        frags = W.tool_fragments(name)
        assert " " in frags or "\n" in frags, name
        assert len(frags) > 4, name
    for name in R.REASONING_PARSERS:
        assert " " in W.reasoning_fragments(name), name
