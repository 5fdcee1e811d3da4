"""Renders by servers of other parser flags than the replay's, against vLLM 0.33's: each golden
names its servers' ``--reasoning-parser`` / ``--tool-call-parser``, configured in tito.json as
recorded, and the whole engine request is compared, defaults dropped on both sides
(``jsondiff.normalize_render``). All found in session 51:

``render_joined_markers.json`` (``conformance/record_joined_markers.py``): vLLM's kimi_k3
reasoning parser turns ``skip_special_tokens`` and
``spaces_between_special_tokens`` off in the engine request whatever the request sends (a marker,
``<|open|>think<|sep|>``, is three tokens its parser reads unspaced); its tool parser does the
same when it reads the request's calls. tito sent the request's ``spaces_between_special_tokens``.

``render_reasoning_flags.json`` (``conformance/record_reasoning_flags.py``, one server per
reasoning parser): vLLM's parser engines turn ``skip_special_tokens`` off, its older reasoning
parsers leave the request's flag (``render_common.REASONING_LEAVES_SKIP``); tito turned it off
for all of them.

``render_responses_no_parser.json`` (``conformance/record_responses_no_parser.py``): with no
tool parser, vLLM's chat render refuses a tool choice it cannot parse, its Responses render never
checks one (tools to the template, no constraint, required and named too); tito refused both.
And vLLM's derender without a tool parser makes no call, required and named too (the text is
content, ``""`` when only reasoning came); tito parsed the forced forms.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance import markers  # noqa: E402
from conformance.jsondiff import diff, normalize, normalize_render  # noqa: E402

GOLDENS = {name: json.loads((ROOT / "conformance" / "goldens" / f"{name}.json").read_text())
           for name in ("render_joined_markers", "render_responses_no_parser",
                        "render_reasoning_flags")}
GOLDEN = GOLDENS["render_joined_markers"]


@pytest.fixture(scope="module")
def marker_qwen3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = markers.marker_folder(tmp_path_factory.mktemp("joined") / "qwen3")
    for f in (ROOT / "conformance" / "models" / "qwen3").glob("*.json"):
        shutil.copy(f, folder)
    return folder


def _client(folder: Path, tmp: Path, reasoning: str | None, tool: str | None):  # noqa: ANN202
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app
    from tito.models import registry

    dst = tmp / "models" / "qwen3"
    if reasoning is not None and tool is None:  # (the markers its vLLM class looked up too)
        sys.path.insert(0, str(ROOT / "tests" / "goldens"))
        from parser_cases import markers_for

        extra = [m for m in markers_for({"tool": None, "reasoning": reasoning})
                 if m not in markers.MARKERS]
        if extra:
            folder = markers._with_specials(tmp / "extra" / "qwen3", [*markers.MARKERS, *extra],
                                            ("tokenizer_config.json", "tito.json"))
            for f in (ROOT / "conformance" / "models" / "qwen3").glob("*.json"):
                shutil.copy(f, folder)
    shutil.copytree(folder, dst)
    cfg = json.loads((dst / "tito.json").read_text())
    cfg.update(reasoning_parser=reasoning, tool_parser=tool)
    (dst / "tito.json").write_text(json.dumps(cfg))
    registry.reset_registry(registry.load_registry({"TITO_MODELS_DIR": str(dst.parent)}))
    return TestClient(create_app())


def _unlisted(resp: object) -> object:
    return resp[0] if isinstance(resp, list) and len(resp) == 1 else resp


@pytest.mark.parametrize(("golden", "server"), [(g, s) for g, data in GOLDENS.items()
                                                 for s in sorted(data["servers"])])
def test_the_engine_request_is_vllms(golden: str, server: str, marker_qwen3: Path,
                                     tmp_path: Path) -> None:
    from tito.models import registry

    parsers = GOLDENS[golden]["servers"][server]
    saved = registry._registry
    try:
        client = _client(marker_qwen3, tmp_path, parsers["reasoning_parser"],
                         parsers["tool_parser"])
        problems = []
        for name, case in GOLDENS[golden]["cases"].items():
            if case["server"] != server or case["status"] is None:  # (no server: its error)
                continue
            got = client.post(case["path"], json=case["request"])
            if got.status_code != case["status"]:
                problems.append(f"{name}: status {got.status_code}, vLLM {case['status']}")
                continue
            if case["status"] != 200:  # (vLLM's words, tito's own: the status and type)
                if got.json()["error"]["type"] != case["response"]["error"]["type"]:
                    problems.append(f"{name}: {got.json()} vLLM {case['response']}")
                continue
            norm = normalize if case["path"].endswith("/derender") else normalize_render
            want, have = norm(_unlisted(case["response"])), norm(_unlisted(got.json()))
            if isinstance(have, dict):
                have.pop("derender_context", None)  # tito's own (docs/conformance.md)
            problems += [f"{name}: {path}: vLLM {a!r} tito {b!r}"
                         for path, a, b in diff(want, have)
                         # (vLLM's CLI-wide Cohere kwarg, tito's reasoning-token count:
                         # conformance/deviations.py, deviations_derender.py)
                         if not path.endswith(("chat_template_kwargs.cohere_format",
                                               "usage.completion_tokens_details"))]
        assert not problems, "\n".join(problems[:20])
    finally:
        registry.reset_registry(saved)


def test_kimi_k3_joins_its_markers_whatever_the_request_sends() -> None:
    """The recorded flags themselves: the reasoning parser turns both off for every chat and
    Responses request (completions run no parser), the tool parser when it reads calls."""
    for name, case in GOLDEN["cases"].items():
        if case["status"] != 200 or case["path"].startswith("/v1/completions") \
                or name.endswith("_spaces_false"):  # (the request's own)
            continue
        sp = case["response"]["sampling_params"]
        reads = case["server"] != "k3_tools" or name.endswith(("/chat_tools", "_required",
                                                               "/responses_tools"))
        assert (sp.get("spaces_between_special_tokens", True) is False) == reads, name
