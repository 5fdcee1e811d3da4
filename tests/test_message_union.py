"""Which message type vLLM 0.33 gives a message (its custom type or its role's OpenAI type):
``tito.core.message_union.custom_typed`` against vLLM's own pydantic union, recorded by
``conformance/record_message_union.py``."""

from __future__ import annotations

import json
from pathlib import Path

from tito.core.message_union import custom_typed

GOLDEN = Path(__file__).resolve().parent.parent / "conformance" / "goldens" / "message_union.json"


def test_custom_typed_matches_vllms_union() -> None:
    cases = json.loads(GOLDEN.read_text())["cases"]
    assert len(cases) > 500
    assert {c["custom"] for c in cases} == {True, False}
    wrong = [c for c in cases if custom_typed(c["message"]) != c["custom"]]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"
