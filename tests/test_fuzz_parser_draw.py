"""The parser fuzzer's model outputs (``conformance/fuzz_parser_cases.py`` with its formats'
writers in ``fuzz_parser_markup.py`` and calls in ``fuzz_parser_values.py``): every format and
reasoning name it draws is a parser tito registers under vLLM's name, and a name's cases are
regenerated exactly from its generator (a finding is replayed by seed)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))

import fuzz_parser_cases as cases  # noqa: E402

from tito.core.parsers.reasoning_formats import REASONING_PARSERS  # noqa: E402
from tito.core.parsers.tools import TOOL_PARSERS  # noqa: E402


def _names() -> list[str]:
    return (list(cases.FORMATS) + [f"reasoning:{r}" for r in cases.REASONING]
            + [f"{t}+{r}" for t, r in cases.PAIRS])


def test_every_drawn_parser_is_registered_under_vllms_name() -> None:
    assert set(cases.FORMATS) <= set(TOOL_PARSERS)
    assert set(cases.REASONING) <= set(REASONING_PARSERS)
    assert {t for t, _ in cases.PAIRS} <= set(cases.FORMATS)
    # (a pair's reasoning is a reasoning format, or the tool's own router: muse, inkling)
    assert all(r in cases.REASONING or r == t for t, r in cases.PAIRS)


def test_cases_regenerate_and_have_the_golden_shape() -> None:
    for name in _names():
        first = cases.generate(name, random.Random(f"{name}-7"), 12)
        again = cases.generate(name, random.Random(f"{name}-7"), 12)
        assert json.dumps(first) == json.dumps(again), name
        assert len({c["id"] for c in first}) == len(first)
        for c in first:
            assert {"id", "tool", "reasoning", "tools", "text"} <= set(c), name
            assert isinstance(c["text"], str) and c["text"], name

