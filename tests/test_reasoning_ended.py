"""Render's ``reasoning_ended`` against vLLM 0.33.0's answers (``reasoning_ended_render_vllm.json``).

vLLM's render server answers ``is_reasoning_end(prompt)`` of the reasoning parser built with the
request's template kwargs (``tests/goldens/record_reasoning_ended.py`` records it for every
reasoning parser tito implements, four kwargs and six prompt shapes, on the Qwen3 tokenizer with
the format's markers as special tokens). tito answers with
:func:`tito.service.render_common.reasoning_ended_for` on the same ids. One documented
deviation (docs/conformance.md): a block closed in an *earlier* turn says nothing about the
turn being generated; vLLM's parsers without turn boundaries scan the whole prompt and say True.
"""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

GOLDENS = pathlib.Path(__file__).parent / "goldens"
sys.path.insert(0, str(GOLDENS))
from parser_cases import markers_for  # noqa: E402
from parser_pipeline import make_vocab  # noqa: E402

from tito.service.render_common import reasoning_ended_for  # noqa: E402

RECORDED = json.loads((GOLDENS / "reasoning_ended_render_vllm.json").read_text())


@pytest.mark.parametrize("g", RECORDED, ids=lambda g: f"{g['reasoning']}-{g['kwargs']}-{g['prompt']}")
def test_reasoning_ended_equals_vllm(g):
    vocab = make_vocab(tuple(markers_for({"tool": None, "reasoning": g["reasoning"]})))
    got = reasoning_ended_for(g["reasoning"], vocab.encode(g["text"]), vocab, g["kwargs"])
    if g["prompt"] == "history" and g["vllm"] is True and got is False:
        return  # the deviation: an earlier turn's block (vLLM scans past the turn boundary)
    assert got == g["vllm"]


def test_the_new_parsers_are_answered():
    """Every reasoning parser of the goldens gets an answer (render's parse_context is never
    null for them), and the whole-prompt deviation is the only one."""
    names = {g["reasoning"] for g in RECORDED}
    vocab = make_vocab(())
    assert all(reasoning_ended_for(n, [], vocab, None) is not None for n in names)
