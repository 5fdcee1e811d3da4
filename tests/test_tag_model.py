"""xgrammar's ``StructuralTag`` models' verdicts on a request's own structural tag, and their dump
of the tags they take: ``tito.core.tag_model.structural_tag_model_error`` and
``tito.core.parsers.tools.structural_dump.dump_format`` against xgrammar 0.2.8 (vLLM 0.33's
venv), recorded by ``conformance/record_tag_model.py`` (end to end: ``render_structural_model`` goldens)."""

from __future__ import annotations

import json
from pathlib import Path

from tito.core.parsers.tools.structural_dump import dump_format
import pytest

from tito.core.structured_check import structural_tag_error
from tito.core.tag_model import (
    lax_bool,
    lax_int,
    legacy_tag_format,
    structural_tag_model_error,
)

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
    # Rust's whitespace (no \x1c-\x1f, which Python's str.strip takes), floats strictly
    # inside i64 (vLLM's Responses annotation indexes: render_responses_item_shapes goldens)
    assert [lax_int(v) for v in ("\xa01", "1\u3000", "1\x1c", "\x1f1", -2.0**63,
                                 -2.0**63 + 1024)] == [1, 1, None, None, None, -2**63 + 1024]
    # pydantic's int_parsing_size: at most 4,300 digits (underscores, a zero fraction,
    # whitespace and the sign not counted), never Python's ValueError
    assert [len(str(lax_int(v))) for v in ("9" * 4300, "9" * 4299 + ".0", " " + "9" * 4300,
                                           "9_" * 2000 + "9", "-" + "9" * 4300)] == [
        4300, 4299, 4300, 2001, 4301]
    assert lax_int("9" * 4301) is None and lax_int("9" * 100_000) is None
    assert [lax_bool(v) for v in ("ON", "f", 1, 0.0, "Yes")] == [True, False, True, False, True]
    assert [lax_bool(v) for v in (" true", "1.0", 2, "", None)] == [None] * 5


def _legacy(structure: dict[str, object] | None = None, **tag: object) -> dict[str, object]:
    return {"structures": [{"begin": "<a>", "schema": {}, "end": "</a>", **(structure or {})}],
            "triggers": ["<a"], **tag}


def test_legacy_tag_is_vllms_triggered_tags() -> None:
    """gpt-oss: vLLM 0.33 builds ``TriggeredTagsFormat`` of a legacy tag's structures; its
    models coerce what they read (``schema: "yes"`` is true, a token ``begin`` gets its type)
    and refuse what they cannot (``render_structural_model``'s ``gptoss_legacy_*`` goldens)."""
    fmt = legacy_tag_format(_legacy({"schema": "yes", "begin": {"token": 5}}))
    assert structural_tag_model_error({"format": fmt}) is None
    tag = dump_format(fmt)["tags"][0]
    assert tag["begin"] == {"type": "token", "token": 5}
    assert tag["content"] == {"type": "json_schema", "json_schema": True, "style": "json",
                              "any_order": False, "max_whitespace_cnt": None, "excludes": []}
    assert dump_format(fmt)["at_least_one"] is False
    for bad in (_legacy(triggers=None), _legacy(triggers="<a"), _legacy({"begin": 5}),
                _legacy({"schema": 5}), _legacy({"end": ["a", 5]}), _legacy({"schema": "{}"})):
        assert structural_tag_model_error({"format": legacy_tag_format(bad)}) is not None, bad
    assert legacy_tag_format({"structures": {}, "triggers": []})["tags"] == []
    with pytest.raises(KeyError):  # (vLLM's 500)
        legacy_tag_format({"structures": []})
    with pytest.raises(TypeError):
        legacy_tag_format({"structures": [5], "triggers": []})


def test_chat_legacy_check_ignores_type_and_reads_lax_schemas() -> None:
    """chat: vLLM compiles a legacy tag through xgrammar's ``StructuralTagItem`` without reading
    its ``type``; a schema any lax boolean; ``begin`` / ``end`` strings only (tito refused an
    untyped legacy tag vLLM renders)."""
    assert structural_tag_error(json.dumps(_legacy())) is None
    assert structural_tag_error(json.dumps(_legacy(type="other"))) is None
    assert structural_tag_error(json.dumps(_legacy({"schema": 1.0}))) is None
    assert structural_tag_error(json.dumps(_legacy({"end": ["</a>", ""]}))) is not None
    assert structural_tag_error(json.dumps(_legacy({"schema": 5}))) is not None
    assert structural_tag_error(json.dumps(_legacy(triggers="<a"))) is not None
