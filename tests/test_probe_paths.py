"""The path probe's generator (``conformance/probe_paths.py``): the probe itself needs vLLM's
server, but which bodies it sends is pure and checked here, so a probe run covers what it says:
every key and list entry of the base body, nested, set to every pool value, and every known key
added to each chat message and Responses input item that lacks it, the base never changed."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from conformance import probe_paths as pp  # noqa: E402


def test_paths_reach_every_key_and_entry() -> None:
    body = {"a": {"b": [1, {"c": 2}]}, "d": 3}
    assert list(pp.paths(body)) == [("a",), ("a", "b"), ("a", "b", 0), ("a", "b", 1),
                                    ("a", "b", 1, "c"), ("d",)]


@pytest.mark.parametrize("route", sorted(pp.ROUTES))
def test_variants_cover_each_path_and_key_once(route: str) -> None:
    path, base = pp.ROUTES[route]
    base = {"model": "m", **base}
    before = copy.deepcopy(base)
    labels = [label for label, _ in pp.variants(base)]
    assert base == before  # every variant is a copy
    assert len(labels) == len(set(labels))
    expected = (len(list(pp.paths(base))) - 1) * len(pp.POOL)  # all but "model"
    for field, keys in (("messages", pp.MESSAGE_KEYS), ("input", pp.ITEM_KEYS)):
        for item in base.get(field) or ():
            if isinstance(item, dict):
                expected += sum(key not in item for key in keys) * len(pp.POOL)
    assert len(labels) == expected


def test_a_variant_changes_exactly_its_path() -> None:
    _, base = pp.ROUTES["chat"]
    base = {"model": "m", **base}
    for label, body in pp.variants(base):
        where, _, value = label.partition("=")
        keys = where.rstrip("+").split(".")
        target = body
        for key in keys:
            target = target[int(key)] if isinstance(target, list) else target[key]
        assert json.dumps(target) == value
        if label.startswith("tools.0.function.name="):
            assert body["messages"] == base["messages"]


def test_outcome_compares_status_and_prompt_ids() -> None:
    assert pp.outcome(200, {"token_ids": [1, 2]}) == (200, [1, 2], None)
    assert pp.outcome(200, {"tokens": [3], "token_strs": ["a"]}) == (200, [3], ["a"])
    assert pp.outcome(400, {"error": {}}) == (400,)
