"""xgrammar's ``StructuralTag`` models' verdicts on a request's own structural tag, and their dump
of the tags they take: ``tito.core.tag_model.structural_tag_model_error`` and
``tito.core.parsers.tools.structural_dump.dump_format`` against xgrammar 0.2.8 (vLLM 0.33's
venv), recorded by ``conformance/record_tag_model.py`` (end to end: ``render_structural_model`` goldens)."""

from __future__ import annotations

import json
from pathlib import Path

from tito.core.parsers.tools.structural_dump import dump_format
from tito.core.tag_model import lax_bool, lax_int, structural_tag_model_error

GOLDEN = (Path(__file__).resolve().parent.parent / "conformance" / "goldens"
          / "structural_tag_model.json")


def test_tag_model_matches_xgrammars_models() -> None:
    cases = json.loads(GOLDEN.read_text())["cases"]
    assert len(cases) > 1000 and {c["valid"] for c in cases} == {True, False}
    wrong = [c for c in cases if (structural_tag_model_error(c["tag"]) is None) != c["valid"]]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"



def test_dump_is_xgrammars_byte_for_byte() -> None:
    """vLLM re-sends a request's format as the models dump it (``json.dumps`` of
    ``model_dump()``): defaults filled, unknown keys dropped, each value as pydantic's lax mode
    read it (``"max_tokens": true`` is 1, ``"loop": "on"`` true, a token ``2.0`` 2)."""
    cases = [c for c in json.loads(GOLDEN.read_text())["cases"] if c["valid"]]
    assert len(cases) > 1000
    coerced = [c for c in cases if json.dumps(c["tag"]["format"]) != c["dump"]]
    assert len(coerced) > 500
    wrong = [c for c in cases if json.dumps(dump_format(c["tag"]["format"])) != c["dump"]]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"


def test_lax_readers() -> None:
    """pydantic's lax int and bool, as checked in pydantic 2.14 (vLLM 0.33's venv)."""
    assert [lax_int(v) for v in (True, 2.0, " 4 ", "+3", "1.0", "1_0.00", "01", -0.0)] == [
        1, 2, 4, 3, 1, 10, 1, 0]
    assert [lax_int(v) for v in ("1.", "1e3", "1.5", "_1", "1__0", "\u0663", 2.5, 1e20, None,
                                 [], "")] == [None] * 11
    assert [lax_bool(v) for v in ("ON", "f", 1, 0.0, "Yes")] == [True, False, True, False, True]
    assert [lax_bool(v) for v in (" true", "1.0", 2, "", None)] == [None] * 5
