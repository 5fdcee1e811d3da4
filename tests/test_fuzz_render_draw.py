"""The render fuzzer's draws (``conformance/fuzz_render*.py``): a case is regenerated exactly from
its seed and index (a finding is replayed or recorded by name), every endpoint is drawn, and
every label a case can get names an intended deviation of ``deviations.py`` (a label without
one would hide nothing and mislead whoever reads the case name)."""

from __future__ import annotations

import fnmatch
import json
import re

from conformance import deviations, fuzz_render, record


def _cases(seed: int, n: int) -> list[tuple[str, str, str, dict]]:
    return [fuzz_render.generate(seed, i, list(record.SERVERS)) for i in range(n)]


def test_cases_regenerate_from_seed_and_index() -> None:
    first = _cases(353, 120)
    again = _cases(353, 120)
    assert json.dumps(first, default=str) == json.dumps(again, default=str)
    assert len({name for name, *_ in first}) == len(first)
    # a case alone (not after its predecessors) is the same case
    assert fuzz_render.generate(353, 77, list(record.SERVERS)) == first[77]


def test_every_endpoint_and_server_kind_is_drawn() -> None:
    cases = _cases(7, 400)
    endpoints = {name.split("-", 2)[2].split(".")[0] for name, *_ in cases}
    assert endpoints == set(fuzz_render.ENDPOINTS)
    assert {server for _, server, _, _ in cases} >= {"qwen3", "gpt-oss", "gpt2"}
    for _, _, path, body in cases:
        assert path.startswith("/")
        json.dumps(body)  # a body is JSON (the fuzzer posts it)


def test_every_label_names_a_deviation() -> None:
    labels = {x for s in (1, 2, 3) for name, *_ in _cases(s, 300) for x in name.split(".")[1:]}
    assert labels, "no case got a label: the labeller is not run"
    patterns = [d.case for d in deviations.DEVIATIONS if fnmatch.fnmatchcase("render_fuzz", d.group)]
    for label in labels:
        name = f"s1-0-responses.{label}"
        assert any(fnmatch.fnmatchcase(name, p) for p in patterns), label
    assert all(re.fullmatch(r"[a-z0-9_]+", x) for x in labels)


def test_lazy_copy_label_follows_vllm() -> None:
    """DeepSeek-V4.1's ``.lazy_copy`` label is on exactly the cases vLLM answered with its pickle
    400 (``render_fuzz_lazy_calls.json``, named from vLLM's answers: an assistant's calls left
    an unread iterable on ``/tokenize``; s433-111 had ``tool_calls: []`` beside an unknown key,
    which the key-set rule missed)."""
    from conformance.fuzz_render_labels import labels

    cases = json.loads((record.GOLDENS / "render_fuzz_lazy_calls.json").read_text())["cases"]
    assert sum(".lazy_copy" in n for n in cases) >= 10
    for name, case in cases.items():
        got = "lazy_copy" in labels(case["server"], case["path"], case["request"])
        assert got == name.endswith(".lazy_copy"), name
