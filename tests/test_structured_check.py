"""tito's checks of structured-output constraints (``tito.core.structured_check``,
``tito.core.grammar_check``) against xgrammar 0.2.8, vLLM 0.33.0's backend: its verdicts on a
seeded corpus of regexes, EBNF grammars, JSON schemas and structural tags are recorded in
``conformance/goldens/structural/_xgrammar.json`` (``conformance/record_xgrammar.py``); the
render server's own 4xx answers are compared in ``tests/test_structural_tags.py``
(``validation_*`` cases). Also: every check stays bounded on pathological input.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core.grammar_check import ebnf_error, regex_error, schema_error
from tito.core.structured_check import (
    exceeds_nesting,
    structural_tag_error,
    too_deep,
    xgrammar_supports,
)
from tito.errors import BadRequest

GOLDEN = Path(__file__).resolve().parent.parent / "conformance" / "goldens" / "structural" / \
    "_xgrammar.json"
CHECKS = {"regex": regex_error, "ebnf": ebnf_error, "schema": schema_error,
          "tag": structural_tag_error,
          # a chat body's tag text (conformance/tag_fields_corpus.py): whole floats stay floats
          "tag_text": lambda v: structural_tag_error(json.dumps(v))}


def test_verdicts_match_xgrammar() -> None:
    """tito's verdict is xgrammar's on every recorded case: no refusal of what xgrammar accepts
    (that would turn away a request vLLM serves), no acceptance of what it refuses (that request
    would reach the engine, where vLLM answers 400), inside multi-branch ``allOf`` schemas too
    (parsed, never generated) and in a structural tag's ``json_schema`` (whole floats count as
    integers there)."""
    data = json.loads(GOLDEN.read_text())
    assert data["xgrammar"] == "0.2.8"
    wrong = []
    for case in data["cases"]:
        err = CHECKS[case["kind"]](case["value"])
        if case["accepted"] and err is not None:
            wrong.append(f"refused {case['kind']} {case['value']!r}: {err}")
        elif not case["accepted"] and err is None:
            wrong.append(f"accepted {case['kind']} {case['value']!r}")
    assert not wrong, "\n".join(wrong[:20])
    all_of = [c["accepted"] for c in data["cases"] if '"allOf": [' in json.dumps(c["value"])]
    assert len(all_of) > 500 and min(all_of.count(True), all_of.count(False)) > 50


def test_nesting_is_vllms() -> None:
    """vLLM's ``check_json_nesting``: 64 levels for schemas, 80 for structural tags."""
    def deep(n: int) -> object:
        node: object = "x"
        for _ in range(n):
            node = [node]
        return node

    assert not exceeds_nesting(deep(64), 64) and exceeds_nesting(deep(65), 64)
    assert not too_deep(json.dumps(deep(80)), structural_tag=True)
    assert too_deep(json.dumps(deep(81)), structural_tag=True)
    assert too_deep("[" * 100_000 + "]" * 100_000)  # json's recursion limit: too deep
    assert not too_deep("{not json") and not too_deep("")


@pytest.mark.parametrize("pattern", ["(a*)*b", "(" * 5000 + "a" + ")" * 5000, "a" * 200_000,
                                     "[" + "a-z" * 50_000 + "]", "(a|b)*" * 20_000])
def test_checks_are_bounded(pattern: str) -> None:
    """Linear checks: a pathological or huge constraint is answered at once (nothing is
    compiled or matched)."""
    start = time.process_time()
    regex_error(pattern)
    ebnf_error(f'root ::= {pattern}')
    xgrammar_supports({"regex": pattern})
    structural_tag_error({"type": "structural_tag", "format": {"type": "regex",
                                                                "pattern": pattern}})
    assert time.process_time() - start < 2.0


def test_deep_structures_do_not_recurse_unbounded() -> None:
    schema: object = {"type": "string"}
    for _ in range(5000):
        schema = {"type": "array", "items": schema}
    assert schema_error(schema) is not None  # refused, not a RecursionError
    grammar = "root ::= " + "(" * 5000 + '"a"' + ")" * 5000
    assert ebnf_error(grammar) is not None
    assert not xgrammar_supports({"json": schema})


def test_render_refuses_bad_tags_with_vllms_error() -> None:
    from tito.core.structured_check import check_request

    with pytest.raises(BadRequest) as exc:
        check_request({"type": "structural_tag", "format": {"type": "regex", "pattern": "(a"}},
                      None)
    assert exc.value.param == "response_format"
    with pytest.raises(BadRequest) as exc:
        check_request(None, {"structural_tag": ""})
    assert exc.value.param == "structured_outputs"
    check_request({"type": "json_schema", "json_schema": {"schema": {"type": "foo"}}},
                  {"regex": "(a"})  # not checked at render: the engine reports them


def _naive_trigger_verdict(triggers: list[str], begins: list[str]) -> str | None:
    """The triggered_tags rules as stated (every pair, every tag against every trigger)."""
    if any(a != b and b.startswith(a) or a == b and i != j
           for i, a in enumerate(triggers) for j, b in enumerate(triggers)):
        return "triggers must be distinct, none a prefix of another"
    if not all(any(b.startswith(t) for t in triggers) for b in begins):
        return "a tag does not match any trigger"
    if not all(any(b.startswith(t) for b in begins) for t in triggers):
        return "a trigger opens no tag"
    return None


@settings(max_examples=300, deadline=None)
@given(triggers=st.lists(st.text("ab<", min_size=1, max_size=3), min_size=1, max_size=6),
       begins=st.lists(st.text("ab<", min_size=1, max_size=4), min_size=1, max_size=6))
def test_triggered_tags_verdict_is_the_pairwise_rule(triggers: list[str],
                                                     begins: list[str]) -> None:
    """The check sorts the triggers and looks each tag's trigger up (O(n log n): a body of tens
    of thousands of triggers was seconds to minutes of CPU with the pairwise scan); its verdict
    is the pairwise rule's."""
    tags = [{"type": "tag", "begin": b, "content": {"type": "any_text"}, "end": "x"}
            for b in begins]
    tag = {"type": "structural_tag",
           "format": {"type": "triggered_tags", "triggers": triggers, "tags": tags}}
    assert structural_tag_error(tag) == _naive_trigger_verdict(triggers, begins)
