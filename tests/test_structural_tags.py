"""Structural tags of every tool-call format, against goldens recorded from vLLM 0.33.0's render
server (``conformance/record_structural.py``: ``vllm launch render --tool-call-parser P`` on the
qwen3 tokenizer with every format's markers added as special tokens, ``conformance.markers``:
the ids are not the models'; on gpt-oss's tokenizer for ``openai``).

Each golden file is one parser; its requests (chat and Responses render: required, named, auto
with strict tools, ``parallel_tool_calls: false``, auto with ``response_format`` /
``structured_outputs``, the or-format) are rendered by tito on a model folder naming the same
parser, and compared whole: the engine request field by field (defaults dropped on both sides and
the structural tag as parsed JSON, ``jsondiff.normalize_render``), the replay's intended
deviations (``conformance.deviations``: tito's ``derender_context``, stop strings kept in
derender...) apart. Session 51 found five gaps where only the ids, the flag and the tag were
compared.
Formats without a tag in vLLM 0.33 are in the corpus too: their goldens hold vLLM's fallback
(the JSON schema of a list of calls, or nothing), and tito must send the same. The derender
cases feed what each constrained model writes back (required: calls and finish ``tool_calls``;
named: the call, finish ``stop``) and compare the whole answer (usage, logprobs, token ids; a
client's view, :func:`_message`, in the failure text). The render-time checks of
constraints (``validation_*``: chat, completions and Responses render, each recorded on every
parser's server) run for every parser.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import markers, replay  # noqa: E402
from conformance.deviation_base import HY_V4_RESPONSES_500  # noqa: E402
from conformance.deviations import deviation_for  # noqa: E402
from conformance.jsondiff import diff, normalize, normalize_render  # noqa: E402
from tito.core.parsers.tools import TOOL_PARSERS  # noqa: E402
from tito.models import registry  # noqa: E402

GOLDENS = sorted((ROOT / "conformance" / "goldens" / "structural").glob("[!_]*.json"))
MODELS = ROOT / "layers" / "tokenizer" / "models"


def test_every_format_has_goldens() -> None:
    recorded = {g.stem for g in GOLDENS}
    assert set(TOOL_PARSERS) | {"openai"} <= recorded


@pytest.fixture(autouse=True)
def _harmony_date(monkeypatch: pytest.MonkeyPatch) -> None:
    """gpt-oss's ``Current date:`` line as recorded (record_structural.py pins vLLM's
    ``VLLM_SYSTEM_START_DATE``): without it the openai goldens would match on that day only."""
    monkeypatch.setenv(replay.HARMONY_DATE_ENV, replay.HARMONY_DATE)


@pytest.fixture(scope="module")
def base_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The two tokenizers, loaded once: qwen3's with the formats' markers added, as recorded
    (``conformance.markers``), and gpt-oss's (``openai``)."""
    folder = markers.marker_folder(tmp_path_factory.mktemp("markers") / "qwen3")
    return {"qwen3": registry.load_model(folder), "gpt-oss": registry.load_model(MODELS / "gpt-oss")}


def _client(parser: str, base_models: dict[str, Any], level: str | None = None) -> TestClient:
    """tito's app serving one model naming ``parser`` (and ``tool_strict_level``), as recorded:
    no reasoning parser but for ``openai`` (record_structural.py)."""
    from tito.adapters.app import create_app

    base = base_models["gpt-oss" if parser == "openai" else "qwen3"]
    update: dict[str, Any] = {"tool_parser": parser, "tool_strict_level": level}
    if parser != "openai":
        update["reasoning_parser"] = None
    model = dataclasses.replace(base, config=base.config.model_copy(update=update))
    registry.reset_registry(registry.ModelRegistry([model], default=""))
    return TestClient(create_app())


#: (parser, case) -> why tito differs from vLLM there (each is about the format's auto parser,
#: not the tag)
DEVIATIONS = {
    (p, "derender_required_json_list"): "vLLM's llama3_json batch parser decodes any JSON object "
    "anywhere in the text (the list's brackets dropped); tito's reads calls where they start "
    "the output (its module's rule, batch == stream), so the old JSON-list form is content"
    for p in ("llama3_json", "llama4_json")
}
DEVIATIONS.update({
    ("mistral", case): "vLLM takes this non-Mistral tokenizer for a v11+ one, so it reads "
    "'[TOOL_CALLS][' as a call named '[' and the bare list as content; render's schema (vLLM's "
    "pre-v11 one, compared above) forces the bare list [{name, arguments}], which tito reads as "
    "the calls, as vLLM's pre-v11 path does for a real v0.3 tokenizer"
    for case in ("derender_required", "derender_named", "derender_required_json_list")
})


DEVIATIONS.update({
    ("hy_v4", name): "vLLM's hy_v4 Responses render is a 500 (" + HY_V4_RESPONSES_500 + ")"
    for name, case in json.loads((ROOT / "conformance" / "goldens" / "structural" / "hy_v4.json")
                                 .read_text())["cases"].items()
    if case.get("status") == 500 and case["response"]["error"]["message"] == HY_V4_RESPONSES_500
})


DEVIATIONS.update({
    ("openai", case): "vLLM's harmony render stops at openai-harmony's JSON recursion limit "
    "('invalid conversation JSON', 400) on a tool schema nested 70 deep; tito renders the "
    "prompt (its harmony encoder has no such limit; the body size bounds the work)"
    for case in ("validation_tools_deep_required", "validation_tools_deep_strict",
                 "validation_responses_required_deep_tool",
                 "validation_responses_required_deep_strict_tool")
})


def _message(resp: dict) -> list[dict]:
    """What a client reads of a chat answer (tool-call ids are random on both sides; content
    as sent: ``""`` and null differ, as for a client)."""
    return [{"content": c["message"].get("content"),
             "reasoning": c["message"].get("reasoning"),
             "tool_calls": [(t["function"]["name"], json.loads(t["function"]["arguments"]))
                            for t in c["message"].get("tool_calls") or []],
             "finish_reason": c["finish_reason"]} for c in resp["choices"]]


def _render_problems(client: TestClient, name: str, case: dict) -> list[str]:
    got = client.post(case["path"], json=case["request"])
    if got.status_code != case["status"]:
        return [f"{name}: status {got.status_code} != {case['status']} {got.text[:300]}"]
    want, body = case["response"], got.json()
    if isinstance(want, list) and isinstance(body, list):  # completions: one per prompt
        want, body = want[0], body[0]
    if case["status"] != 200:  # vLLM's error type; its param, or tito's where vLLM has none
        err, ours = want["error"], body["error"]
        if ours["type"] != err["type"] or err["param"] not in (None, ours["param"]):
            return [f"{name}: error {ours} != {err}"]
        return []
    if case["path"].endswith("/derender"):
        paths = _differences("derender_structural", name, normalize(want), normalize(body))
        if paths:
            return [f"{name}: derender {paths}\n tito {_message(body)}\n vllm {_message(want)}"]
        return []
    # the validation cases keep only the fields they are about (no token_ids): those compared
    partial = "token_ids" not in want
    return [f"{name}: render {path}\n tito {ours!r:.300}\n vllm {theirs!r:.300}"
            for path, theirs, ours in diff(normalize_render(want), normalize_render(body))
            if not (partial and (theirs == "<missing>" or path == "request_id"))
            and deviation_for("render_structural", name, path, theirs) is None]


def _differences(group: str, name: str, want: Any, body: Any) -> list[str]:
    """The paths where tito's answer differs from vLLM's, intended deviations apart."""
    return [path for path, theirs, _ in diff(want, body)
            if deviation_for(group, name, path, theirs) is None]


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.stem)
def test_render_matches_vllm(golden: Path, base_models: dict[str, Any]) -> None:
    """Every render and batch-derender case, each on a server with the level it was recorded
    with (``--tool-strict-level``; unset for the default cases)."""
    data = json.loads(golden.read_text())
    assert data["vllm"]["version"].startswith("0.33.0")
    parser = data["tool_call_parser"]
    by_level: dict[str | None, list[tuple[str, dict]]] = {}
    for name, case in data["cases"].items():
        if "calls" not in case and (parser, name) not in DEVIATIONS:
            by_level.setdefault(case.get("tool_strict_level"), []).append((name, case))
    saved = registry._registry
    try:
        problems = []
        for level, cases in by_level.items():
            client = _client(parser, base_models, level)
            for name, case in cases:
                problems += _render_problems(client, name, case)
        assert not problems, "\n".join(problems[:30])
    finally:
        registry.reset_registry(saved)


class _Tito:
    """What :func:`conformance.replay.tito_stream` drives: one POST, ``(status, body)``."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        r = self.client.post(path, json=body)
        return r.status_code, r.json()


#: (parser, stream case glob) -> why tito's stream differs from vLLM's (tito's stream is its
#: batch answer, which the derender cases above compare with vLLM's batch answer)
STREAM_DEVIATIONS: dict[tuple[str, str], str] = {
    **{(p, "stream_required.*"): "vLLM's stream of the required JSON list (the fallback schema "
       "of a format without a tag) emits nothing under this parser: no content, no call, "
       "finish stop; its batch answer is the call (derender_required_json_list), as tito's "
       "stream (stream == batch)" for p in ("granite", "seed_oss")},
    ("hunyuan_a13b", "stream_auto_strict.*"): "vLLM's hunyuan_a13b stream leaks the "
    "<tool_calls> marker into content (one id per call) and sends the arguments twice; its "
    "batch answer is the one clean call, as tito's stream",
    **{("mistral", f"stream_{m}.*"): "vLLM takes this non-Mistral tokenizer for a v11+ one "
       "(the derender deviation above), so the forced list is content; tito reads it as the "
       "calls, as vLLM's pre-v11 path does for a real v0.3 tokenizer" for m in (
           "required", "named")},
    ("phi4_mini_json", "stream_auto_strict.*"): "vLLM's phi4_mini_json parser streams nothing "
    "(its streaming method returns no delta): no call, finish stop; its batch answer is the "
    "call (derender_*), as tito's stream (stream == batch)",
    ("xlam", "stream_auto_strict.random"): "vLLM's xlam stream, in random chunks, writes the "
    "arguments' opening brace twice ('{{\"city\": ...', not JSON); one id per call and its "
    "batch give the clean call, as tito's stream",
}


def _ids_out(folded: dict) -> dict:
    """Tool-call ids are random on both sides (Mistral's 9-character ones too)."""
    return {**folded, "tool_calls": [{**c, "id": None} for c in folded.get("tool_calls", [])]}


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.stem)
def test_stream_matches_vllm(golden: Path, base_models: dict[str, Any]) -> None:
    """Streaming derender of what the constrained model writes (required, named, strict auto),
    one id per call and in seeded random chunks: vLLM's stream (driven as its protocol
    requires) folded as ``conformance.replay`` folds streams, against tito's driven as its
    README says and as a client that keeps only vLLM's state fields; tito's two must agree."""
    import fnmatch

    from conformance.replay import fold_stream, tito_stream

    data = json.loads(golden.read_text())
    parser = data["tool_call_parser"]
    streams = {n: c for n, c in data["cases"].items() if "calls" in c}
    assert len(streams) == 6
    saved = registry._registry
    try:
        tito = _Tito(_client(parser, base_models))
        problems = []
        for name, case in streams.items():
            want = _ids_out(fold_stream(case["calls"], completion=False))
            readme = _ids_out(fold_stream(tito_stream(tito, case, vllm_client=False),
                                          completion=False))
            vllm_client = _ids_out(fold_stream(tito_stream(tito, case, vllm_client=True),
                                               completion=False))
            if readme != vllm_client:
                problems.append(f"{name}: tito's two clients differ\n {readme}\n {vllm_client}")
            intended = any(p == parser and fnmatch.fnmatchcase(name, g)
                           for p, g in STREAM_DEVIATIONS)
            if readme != want and not intended:
                problems.append(f"{name}:\n tito {readme}\n vllm {want}")
            if readme == want and intended:
                problems.append(f"{name}: a stale deviation (tito and vLLM agree)")
        assert not problems, "\n".join(problems[:20])
    finally:
        registry.reset_registry(saved)


def test_single_call_leaves_the_schemas_alone() -> None:
    """``parallel_tool_calls: false`` marks call lists only: a tool schema's own ``type`` lists
    and ``tags`` keys are the request's data (once a 500)."""
    from tito.core.parsers.tools.structural import structural_tag

    params = {"type": "object", "properties": {"tags": {"type": ["array", "null"]},
                                               "type": {"type": "string"}}}
    tool = {"type": "function", "function": {"name": "f", "parameters": params, "strict": True}}
    for model in ("kimi", "hermes", "glm_4_7", "harmony"):
        tag = json.loads(structural_tag(model, [tool], "required", parallel_tool_calls=False))
        assert params in _schemas(tag)
        assert '"stop_after_first": true' in json.dumps(tag) or model == "harmony"


def _schemas(node: object) -> list:
    if isinstance(node, dict):
        found = [node["json_schema"]] if node.get("type") == "json_schema" else []
        return found + [s for k, v in node.items() if k != "json_schema" for s in _schemas(v)]
    if isinstance(node, list):
        return [s for v in node for s in _schemas(v)]
    return []
