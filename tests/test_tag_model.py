"""xgrammar's ``StructuralTag`` models' verdicts on a request's own structural tag:
``tito.core.tag_model.structural_tag_model_error`` against xgrammar 0.2.8 (vLLM 0.33's venv),
recorded by ``conformance/record_tag_model.py`` (end to end: ``render_structural_model`` goldens)."""

from __future__ import annotations

import json
from pathlib import Path

from tito.core.tag_model import structural_tag_model_error

GOLDEN = (Path(__file__).resolve().parent.parent / "conformance" / "goldens"
          / "structural_tag_model.json")


def test_tag_model_matches_xgrammars_models() -> None:
    cases = json.loads(GOLDEN.read_text())["cases"]
    assert len(cases) > 1000 and {c["valid"] for c in cases} == {True, False}
    wrong = [c for c in cases if (structural_tag_model_error(c["tag"]) is None) != c["valid"]]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"

