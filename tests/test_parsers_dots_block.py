"""dots: a block whose body does not open with ``<invoke`` is no call block up to its closer;
stray text after a call does not end the block.

Why: vLLM 0.33's ``DotsToolParser`` finds blocks with a regex from the first
``<dots_function_call>`` to the first ``</dots_function_call>`` and drops a body that is
neither invokes nor JSON; a second opener inside that body opens nothing. tito read the doubled
opener's block as a call (parser fuzz seed 133, ``fuzz/dots/0``). Its regex also finds every
invoke in a block, so text after a call does not end the block (tito ended it there, the later
invokes content: found by hand, session 45). The cases ``dots/fz45_*``
(``tests/goldens/parser_cases_fuzz45.py``) are recorded from vLLM; this checks tito against
them at every chunking (a stream must not open the inner block either).
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
from parser_deviations_fuzz45 import _FUZZ45_DEVIATIONS  # noqa: E402

_RECORDED = {r["id"]: r for r in json.loads((GOLDENS / "parsers_vllm.json").read_text())}
_CASES = [c for c in cases() if c["tool"] == "dots"]


@pytest.mark.parametrize("case", _CASES, ids=[c["id"] for c in _CASES])
def test_no_call_block_runs_to_its_closer(case: dict) -> None:
    want = _FUZZ45_DEVIATIONS.get(case["id"], (_RECORDED[case["id"]]["batch"],))[0]
    parser = make_tool_parser("dots", tool_params=tool_params(case["tools"]))
    text = case["text"]
    for chunks in [[text], list(text), *([text[:k], text[k:]] for k in range(1, len(text)))]:
        content, calls = drive_tools(parser, chunks)
        assert calls == [tuple(c) for c in want["calls"]], chunks
        assert content.strip() == (want["content"] or "").strip(), chunks
