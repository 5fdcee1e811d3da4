"""Structural tags of every tool-call format, against goldens recorded from vLLM 0.33.0's render
server (``conformance/record_structural.py``: ``vllm launch render --tool-call-parser P`` on the
qwen3 tokenizer with every format's markers added as special tokens, ``conformance.markers``:
the ids are not the models'; on gpt-oss's tokenizer for ``openai``).

Each golden file is one parser; its requests (chat and Responses render: required, named, auto
with strict tools, ``parallel_tool_calls: false``, auto with ``response_format`` /
``structured_outputs``, the or-format) are rendered by tito on a model folder naming the same
parser, and compared: the prompt ids and ``sampling_params.structured_outputs`` (the structural
tag as parsed JSON; the rest of the render is the conformance suite's, on the default models).
Formats without a tag in vLLM 0.33 are in the corpus too: their goldens hold vLLM's fallback
(the JSON schema of a list of calls, or nothing), and tito must send the same. The derender
cases feed what each constrained model writes back (required: calls and finish ``tool_calls``;
named: the call, finish ``stop``) and compare what a client reads.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import markers  # noqa: E402
from tito.core.parsers.tools import TOOL_PARSERS  # noqa: E402
from tito.models import registry  # noqa: E402

GOLDENS = sorted((ROOT / "conformance" / "goldens" / "structural").glob("*.json"))
MODELS = ROOT / "layers" / "tokenizer" / "models"


def test_every_format_has_goldens() -> None:
    recorded = {g.stem for g in GOLDENS}
    assert set(TOOL_PARSERS) | {"openai"} <= recorded


@pytest.fixture(scope="module")
def marker_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """qwen3's tokenizer with the formats' markers added, as recorded (``conformance.markers``)."""
    return markers.marker_folder(tmp_path_factory.mktemp("markers") / "qwen3")


def _client(parser: str, tmp: Path, marker_folder: Path) -> TestClient:
    from tito.adapters.app import create_app

    src = MODELS / "gpt-oss" if parser == "openai" else marker_folder
    folder = tmp / src.name
    shutil.copytree(src, folder)
    cfg = json.loads((folder / "tito.json").read_text())
    cfg["tool_parser"] = parser
    if parser != "openai":
        cfg["reasoning_parser"] = None  # as recorded (record_structural.py)
    (folder / "tito.json").write_text(json.dumps(cfg))
    registry.reset_registry(registry.load_registry({"TITO_MODELS_DIR": str(tmp)}))
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


def _has_bare_tool(case: dict) -> bool:
    """A tool without ``parameters``: its prompt differs by the template's null keys (the
    conformance suite's ``tools_required_noparams`` deviation), its tag is still compared."""
    return any("parameters" not in t.get("function", t) for t in case["request"].get("tools", []))


def _message(resp: dict) -> list[dict]:
    """What a client reads of a chat answer (tool-call ids are random on both sides)."""
    return [{"content": c["message"].get("content") or None,
             "reasoning": c["message"].get("reasoning"),
             "tool_calls": [(t["function"]["name"], json.loads(t["function"]["arguments"]))
                            for t in c["message"].get("tool_calls") or []],
             "finish_reason": c["finish_reason"]} for c in resp["choices"]]


def _structured(req: dict) -> dict | None:
    so = (req.get("sampling_params") or {}).get("structured_outputs")
    if not isinstance(so, dict):
        return None
    so = {k: v for k, v in so.items() if not k.startswith("_") and v not in (None, False)}
    if isinstance(so.get("structural_tag"), str):
        so["structural_tag"] = json.loads(so["structural_tag"])
    return so or None


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.stem)
def test_render_matches_vllm(golden: Path, tmp_path: Path, marker_tokenizer: Path) -> None:
    data = json.loads(golden.read_text())
    assert data["vllm"]["version"].startswith("0.33.0")
    saved = registry._registry
    try:
        client = _client(data["tool_call_parser"], tmp_path, marker_tokenizer)
        problems = []
        for name, case in data["cases"].items():
            if (data["tool_call_parser"], name) in DEVIATIONS:
                continue
            got = client.post(case["path"], json=case["request"])
            if got.status_code != case["status"]:
                problems.append(f"{name}: status {got.status_code} != {case['status']}")
                continue
            want, body = case["response"], got.json()
            if case["path"].endswith("/derender"):
                if _message(body) != _message(want):
                    problems.append(f"{name}: derender\n tito {_message(body)}\n "
                                    f"vllm {_message(want)}")
                continue
            if body.get("token_ids") != want.get("token_ids") and not _has_bare_tool(case):
                problems.append(f"{name}: token_ids differ")
            # both omit a default: an absent skip_special_tokens is true
            flag = (want.get("sampling_params") or {}).get("skip_special_tokens", True)
            ours = (body.get("sampling_params") or {}).get("skip_special_tokens", True)
            if ours != flag:
                problems.append(f"{name}: skip_special_tokens {ours} != {flag}")
            if _structured(body) != _structured(want):
                problems.append(f"{name}: structured_outputs\n tito {_structured(body)}\n "
                                f"vllm {_structured(want)}")
        assert not problems, "\n".join(problems[:30])
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
