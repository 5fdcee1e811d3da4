"""The parser fuzzer's classifier (``conformance/fuzz_parsers_classify.deviation``) on the
settled fuzz cases: each difference between vLLM 0.33's recorded batch and tito's result is
named as a documented class its deviation's reason starts with, so a later fuzz run counts
those cases apart (``deviation:NAME``) and shows only what is open. No vLLM needed: vLLM's side
is its record (``tests/goldens/parsers_vllm.json``), tito's the goldens' pipeline.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "goldens"), str(ROOT / "conformance")]

from fuzz_parsers_classify import deviation  # noqa: E402
from fuzz_parsers_compare import compare  # noqa: E402
from parser_cases import CASES  # noqa: E402
from parser_deviations import RECORDED  # noqa: E402
from parser_deviations_fuzz39 import _FUZZ39_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz40 import _FUZZ40_DEVIATIONS  # noqa: E402
from parser_pipeline import norm, run  # noqa: E402

_BY_ID = {c["id"]: c for c in CASES}


_SETTLED = {**_FUZZ39_DEVIATIONS, **_FUZZ40_DEVIATIONS}


@pytest.mark.parametrize("cid", sorted(_SETTLED))
def test_the_classifier_names_each_settled_deviation(cid: str) -> None:
    case, (_, why) = _BY_ID[cid], _SETTLED[cid]
    want, got = norm(RECORDED[cid]["batch"]), norm(run(case, [10**6]))
    kinds = compare(want, got)
    assert kinds, "tito equals vLLM's batch: no deviation to name"
    # (vLLM's one-token stream, as the fuzzer passes it; its random-chunk stream may differ)
    named = {k: deviation(case, k, want, got, {"1": RECORDED[cid]["stream"]}) for k in kinds}
    # (the reason opens with the class names: ``text_kept: ...``, ``a + b: ...``)
    assert set(named.values()) <= set(why.split(":", 1)[0].split(" + ")), named
    assert None not in named.values(), named
