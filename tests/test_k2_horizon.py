"""k2_horizon's reasoning markers, chosen per request by ``reasoning_effort`` (vLLM 0.33's
K2HorizonReasoningParser), carried in the stream's settings so any instance parses any chunk.

The split itself is checked against vLLM's class in ``tests/test_parsers_goldens.py`` (cases
``k2_horizon/*``, every effort); here: the choice, its carrying, its refusal.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "goldens"))
from parser_cases_k2h import MARKERS  # noqa: E402
from parser_pipeline import make_vocab  # noqa: E402

from tito.core.parsers import marker_special_ids  # noqa: E402
from tito.core.parsers.reasoning_formats import get_reasoning_parser  # noqa: E402
from tito.core.pipeline import ChoiceConfig, ChoiceState, start_choice, step_choice  # noqa: E402
from tito.errors import BadRequest  # noqa: E402

ROW = get_reasoning_parser("k2_horizon")


@pytest.mark.parametrize(("kwargs", "want"), [
    (None, "high"), ({}, "high"), ({"reasoning_effort": "high"}, "high"),
    ({"reasoning_effort": "medium"}, "medium"), ({"reasoning_effort": "low"}, "low")])
def test_the_effort_chooses_the_markers(kwargs, want):
    assert ROW.variant_from_kwargs(kwargs) == want
    chosen = get_reasoning_parser("k2_horizon", want)
    assert (chosen.block_prefix, chosen.end) == dict(
        (e[0], e[1:]) for e in ROW.efforts)[want]


@pytest.mark.parametrize("effort", ["none", "minimal", "xhigh", None, 3])
def test_an_effort_vllm_refuses_is_a_400(effort):
    """vLLM's class raises ValueError building the parser (its message, kept)."""
    with pytest.raises(BadRequest) as err:
        ROW.variant_from_kwargs({"reasoning_effort": effort})
    assert err.value.status == 400
    assert "Supported values: high, medium, low." in str(err.value)


def test_a_variant_of_a_row_without_variants_or_unknown_is_a_400():
    with pytest.raises(BadRequest):
        get_reasoning_parser("qwen3", "low")
    with pytest.raises(BadRequest):
        get_reasoning_parser("k2_horizon", "bogus")


def _run(variant: str, text: str, size: int) -> tuple[str, str]:
    vocab = make_vocab(tuple(MARKERS))
    cfg = ChoiceConfig(reasoning_parser="k2_horizon", reasoning_variant=variant,
                       keep_special_ids=marker_special_ids(vocab, None, "k2_horizon"))
    cfg = ChoiceConfig.model_validate_json(cfg.model_dump_json())  # (as the wire carries it)
    ids = vocab.encode(text)
    state = start_choice(vocab, cfg, [])
    reasoning, content = [], []
    for i in range(0, len(ids), size):
        state = ChoiceState.model_validate_json(state.model_dump_json())
        final = i + size >= len(ids)
        state, out = step_choice(vocab, cfg, state, ids[i : i + size],
                                 finish_reason="length" if final else None, response_id="r")
        reasoning.append(out.reasoning)
        content.append(out.text)
    return "".join(reasoning), "".join(content)


@pytest.mark.parametrize("size", [1, 2, 100])
def test_the_carried_choice_splits_every_chunk(size):
    low = "<ifm|think_faster>a b</ifm|think_faster>c"
    assert _run("low", low, size) == ("a b", "c")
    # the high effort's markers: low's are text, the block never closes (reasoning)
    assert _run("high", low, size) == (low, "")
    assert _run("", "<ifm|think>a</ifm|think>c", size) == ("a", "c")  # (the first: high)
