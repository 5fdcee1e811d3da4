"""gemma4: a container the call's end leaves open drops its trailing bare leaf, as vLLM's engine.

Why: vLLM 0.33's gemma4 engine strips the call's body and drops one ``}`` (the call's closer)
before reading it, then reads every container the body leaves open as partial
(``_parse_gemma4_args`` / ``_parse_gemma4_array`` with ``partial=True``), which drops a bare
leaf or a ``KEY:`` at its end: ``tags:[1}<tool_call|>`` is ``{"tags": []}``,
``options:{x:true}<tool_call|>`` is ``{"options": {}}`` (batch and stream). tito kept the leaf
(session 44's open-array note in docs/conformance.md). The cases ``gemma4/fz45_*``
(``tests/goldens/parser_cases_fuzz45.py``) are recorded from vLLM; this checks tito against
those records at every chunking (one chunk, one character per chunk, every two-way cut), so a
stream, which cannot take back a written leaf, holds the leaf's key and comma with it.
"""

from __future__ import annotations

import json
import pathlib
import sys

import pytest
from helpers import drive_tools

from tito.core.parsers.tools import make_tool_parser
from tito.core.parsers.tools._schema import tool_params

GOLDENS = pathlib.Path(__file__).parent / "goldens"
sys.path.insert(0, str(GOLDENS))
from parser_cases_fuzz45 import cases  # noqa: E402

_RECORDED = {r["id"]: r for r in json.loads((GOLDENS / "parsers_vllm.json").read_text())}
_CASES = [c for c in cases() if c["tool"] == "gemma4"]


def _chunkings(text: str) -> list[list[str]]:
    return [[text], list(text), *([text[:k], text[k:]] for k in range(1, len(text)))]


@pytest.mark.parametrize("case", _CASES, ids=[c["id"] for c in _CASES])
def test_partial_leaf_is_dropped_as_vllm(case: dict) -> None:
    want = _RECORDED[case["id"]]["batch"]
    calls = [tuple(c) for c in want["calls"]]
    parser = make_tool_parser("gemma4", tool_params=tool_params(case["tools"]))
    for chunks in _chunkings(case["text"]):
        content, got = drive_tools(parser, chunks)
        assert got == calls, chunks
        assert content.strip() == (want["content"] or "").strip(), chunks


def test_open_array_item_untyped() -> None:
    """Without a schema too: ``tags:[1, 2}`` keeps ``1``, drops the cut ``2`` (and its comma)."""
    parser = make_tool_parser("gemma4")
    text = '<|tool_call>call:f{tags:[1, 2}<tool_call|>'
    for chunks in _chunkings(text):
        assert drive_tools(parser, chunks) == ("", [("f", '{"tags": ["1"]}')]), chunks
