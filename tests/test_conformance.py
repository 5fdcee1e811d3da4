"""Differential conformance with the real vLLM 0.33.0: every recorded golden replayed against tito.

Why: tito claims vLLM's scale-out wire. ``conformance/record.py`` ran the real vLLM 0.33.0 render
server (``vllm launch render``, GPU-less) on the corpus of ``conformance/corpus.py`` and stored
its answers in ``conformance/goldens/``; this test replays the stored requests against tito
in-process and compares field by field (``conformance/replay.py``). No vLLM is needed here.
Every difference must be one of the short list of intended deviations
(``conformance.replay.DEVIATIONS``, each with its reason; ``docs/conformance.md``).

Streams are driven twice: as tito's README says (settings and prompt on the first call, the
returned state echoed whole) and as a client written for vLLM (only vLLM's
``DerenderStreamState`` fields kept, settings and prompt resent on every call).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import echo_cut, markers, replay  # noqa: E402

STRUCTURAL = ROOT / "conformance" / "goldens" / "structural"
MODELS = ROOT / "layers" / "tokenizer" / "models"


@pytest.fixture(scope="module")
def marker_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """qwen3's tokenizer with the formats' markers, as the structural goldens were recorded."""
    return markers.marker_folder(tmp_path_factory.mktemp("markers") / "qwen3")


@pytest.fixture(scope="module")
def tito() -> replay.Tito:
    return replay.Tito()


@pytest.fixture(scope="module")
def differences(tito: replay.Tito) -> list[replay.Difference]:
    """Every difference of every golden, computed once."""
    out: list[replay.Difference] = []
    for group in replay.GROUPS:
        for name, case in replay.load(group).items():
            out += replay.compare_case(tito, group, name, case)
    return out


@pytest.mark.parametrize("group", replay.GROUPS)
def test_goldens_are_vllm_0_33(group: str) -> None:
    """The goldens come from the reference named in the docs (not from tito)."""
    data = json.loads((replay.GOLDENS / f"{group}.json").read_text())
    assert data["vllm"]["version"].startswith("0.33.0")
    assert len(data["cases"]) >= 10


@pytest.mark.parametrize("group", replay.GROUPS)
def test_tito_matches_vllm_except_intended_deviations(
    differences: list[replay.Difference], group: str
) -> None:
    unexplained = [f"{d.case} {d.path}: vllm={json.dumps(d.vllm)[:200]} "
                   f"tito={json.dumps(d.tito)[:200]}"
                   for d in differences if d.group == group and d.deviation is None]
    assert not unexplained, f"{len(unexplained)} unexplained differences:\n" + "\n".join(
        unexplained[:40])


def test_every_deviation_is_used_and_explained(differences: list[replay.Difference]) -> None:
    """No stale entries: each intended deviation still matches a real difference."""
    used = {id(d.deviation) for d in differences if d.deviation is not None}
    stale = [f"{d.group}/{d.case} {d.path}" for d in replay.DEVIATIONS if id(d) not in used]
    assert not stale, stale
    assert all(len(d.reason) > 30 for d in replay.DEVIATIONS)


def test_the_comparison_can_fail(tito: replay.Tito) -> None:
    """A changed golden value is reported (the differ is not vacuous)."""
    case = json.loads(json.dumps(replay.load("derender_chat")["tool_auto"]))
    case["response"]["choices"][0]["message"]["tool_calls"][0]["function"]["name"] = "other"
    found = replay.compare_case(tito, "derender_chat", "tool_auto", case)
    assert [d.path for d in found if d.deviation is None] == [
        "choices.0.message.tool_calls.0.function.name"]


@pytest.mark.parametrize("group, name", [("derender_fuzz", "echo_prompt_logprobs"),
                                         ("stream_fuzz", "echo_logprobs_gpt2.c0")])
def test_an_echo_answers_output_part_is_compared(tito: replay.Tito, group: str,
                                                 name: str) -> None:
    """Echo's prefix is cut before the comparison, not waved through: a changed output logprob
    or text of an echo case is reported, and so is a prefix that is not the prompt."""
    case = replay.load(group)[name]
    found = replay.compare_case(tito, group, name, case)
    assert found and all(d.path.endswith("echo_prefix") for d in found)
    changed = json.loads(json.dumps(case))
    if group.startswith("stream_"):
        choice = changed["calls"][-1]["response"]["chunk"]["choices"][0]
    else:
        choice = changed["response"]["choices"][0]
    choice["logprobs"]["token_logprobs"][-1] = -99.0
    found = replay.compare_case(tito, group, name, changed)
    paths = {d.path for d in found if d.deviation is None}
    assert any("token_logprobs" in p for p in paths), paths
    # a prefix that is not the prompt (tito echoes a prompt string as sent, so the request
    # cannot make one: the rule itself)
    want = {"text": " out"}
    got = {"text": "not the prompt out"}
    assert ("choices.0.echo_prompt", "the prompt", "not the prompt") in list(
        echo_cut.echo_diffs(want, got, "choices.0.", "the prompt"))


@pytest.mark.parametrize("group", ["stream_chat", "stream_completion"])
def test_a_client_keeping_only_vllm_fields_gets_the_readme_output(
    tito: replay.Tito, group: str
) -> None:
    """Issue 10.10: a client that keeps only vLLM's ``DerenderStreamState`` fields (and resends
    the settings and prompt every call) gets exactly what tito's README client gets, on every
    recorded stream, stop strings included (one finish, nothing after the stop)."""
    completion = group == "stream_completion"
    for name, case in replay.load(group).items():
        readme = replay.fold_stream(replay.tito_stream(tito, case, vllm_client=False), completion)
        vllm = replay.fold_stream(replay.tito_stream(tito, case, vllm_client=True), completion)
        assert vllm == readme, name
        assert readme["finishes"] == 1 or "error" in readme, name


def test_vllm_fields_client_survives_an_event_without_token_ids(tito: replay.Tito) -> None:
    """Issue 10.10: on the parser path a first engine event with no token ids (and a
    logprob-carrying stream whose ``token`` repair needs the carried context) continues."""
    case = json.loads(json.dumps(replay.load("stream_chat")["logprobs_unicode_bytes.one"]))
    empty = {"request_id": case["chunks"][0]["request_id"],
             "choices": [{"index": 0, "token_ids": [], "finish_reason": None,
                          "logprobs": {"content": []}}]}
    case["chunks"] = [empty, *case["chunks"]]
    readme = replay.fold_stream(replay.tito_stream(tito, case, vllm_client=False), False)
    vllm = replay.fold_stream(replay.tito_stream(tito, case, vllm_client=True), False)
    assert "error" not in vllm and vllm == readme
    want = replay.fold_stream(replay.load("stream_chat")["logprobs_unicode_bytes.one"]["calls"],
                              False)
    assert (vllm["reasoning"], vllm["text"], vllm["logprobs"]) == (
        want["reasoning"], want["text"], want["logprobs"])


#: the structural goldens' render cases whose parse_context is checked for every parser (all of
#: them for harmony, whose parse_context differs: no template kwargs, reasoning always ended)
_PARSE_CONTEXT_CASES = ("required_two", "named_noparams_strict", "none_strict",
                        "auto_strict_single_json_schema", "responses_required")


@pytest.mark.parametrize("parser", ["openai", "mistral"])
def test_parse_context(parser: str, tmp_path: Path, marker_tokenizer: Path) -> None:
    """vLLM 0.33's ``parse_context`` and ``reasoning_ended`` (recorded per
    ``--tool-call-parser`` by ``conformance/record_structural.py``): tools as vLLM serializes
    them (null ``description`` / ``parameters`` kept, ``strict`` only when set), the tool
    choice, the template kwargs (``{}`` for harmony), none for a Responses render. tito builds
    it the same way for every tool parser (``service.parse_context``; hermes is checked
    in every render group); harmony's differs, so all of its cases are checked, a few of
    mistral's (its forced-list constraint)."""
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app
    from tito.models import registry

    data = json.loads((STRUCTURAL / f"{parser}.json").read_text())
    src = MODELS / "gpt-oss" if parser == "openai" else marker_tokenizer
    folder = tmp_path / src.name
    shutil.copytree(src, folder)
    cfg = json.loads((folder / "tito.json").read_text())
    cfg["tool_parser"] = parser
    if parser != "openai":
        cfg["reasoning_parser"] = None  # as recorded
    (folder / "tito.json").write_text(json.dumps(cfg))
    saved = registry._registry
    try:
        registry.reset_registry(registry.load_registry({"TITO_MODELS_DIR": str(tmp_path)}))
        client = TestClient(create_app())
        problems = []
        for name, case in data["cases"].items():
            if case["path"].endswith("/derender") or name.startswith(
                    ("validation_", "level_")) or (  # those answers keep only the constraint
                    parser != "openai" and name not in _PARSE_CONTEXT_CASES):
                continue
            got = client.post(case["path"], json=case["request"]).json()
            for key in ("parse_context", "reasoning_ended"):
                want = case["response"].get(key)
                if isinstance(want, dict):  # vLLM's CLI-wide Cohere kwarg (DEVIATIONS)
                    want["chat_template_kwargs"].pop("cohere_format", None)
                if got.get(key) != want:
                    problems.append(f"{name} {key}:\n vllm {want}\n tito {got.get(key)}")
        assert not problems, "\n".join(problems[:10])
    finally:
        registry.reset_registry(saved)
