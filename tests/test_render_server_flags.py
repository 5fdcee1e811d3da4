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

``render_tool_reasoning.json`` (``conformance/record_tool_reasoning.py``, session 52): a tool
parser and a reasoning parser on one server, 48 pairs; no difference was tito's (:data:`RIG`:
the stand-in model's own).

``render_mistral_no_parser.json`` (``conformance/record_mistral_no_parser.py``, session 52):
mistral-v3 through mistral-common with no tool parser. vLLM's chat render checks a tool choice
only where tool parsing is unavailable, which excludes Mistral tokenizers: auto, required and
named render with the tools in the prompt and no constraint; tito refused them. Its derender
makes no call (a ``[TOOL_CALLS]`` output is content, the marker skipped by tito: ``INTENDED``).

``render_responses_forced_parsers.json`` (``conformance/record_responses_forced_parsers.py``,
session 52): Responses tools that show the model no function, every tool choice, on servers
without a structural tag. A JSON-schema parser refuses a named choice of a tool not shown ("has
not been passed in `tools`"), tito rendered it; no tool parser renders ``required`` with
nothing to call, tito refused it.

``render_harmony_parsers.json`` (``conformance/record_harmony_parsers.py``, session 53):
gpt-oss (``config.json`` ``model_type: gpt_oss``) with no parser flags, the reasoning parser
alone, the tool parser alone; chat renders and derenders (batch and streamed) and Responses
renders. vLLM serves a gpt-oss model with the ``openai_gptoss`` reasoning parser when none is
named, so it is always harmony and its reasoning always parsed; its chat render takes every tool
choice there, without a tool parser no call and no calls' tag. tito rendered a parserless
gpt-oss with its chat template, dropped the reasoning without the reasoning parser, refused a
tool choice without the tool parser, and made forced calls and tags without it.

``render_effort_map.json`` (``conformance/record_effort_map.py``, session 53): servers started
with ``--reasoning-effort-map`` (qwen3, hy_v4, gpt-oss, Inkling), every effort on chat, /tokenize,
Responses and Messages renders, and qwen3-tokenizer derenders whose parse the effort decides.
vLLM rewrites the effort before building the template kwargs (``enable_thinking`` from the
rewritten one: hy_v4's ``no_think`` turns it on), harmony's effort and the derender's parser
kwargs; /tokenize keeps the request's. tito had no such setting (tito.json
``reasoning_effort_map`` now).

``render_content_format.json`` (``conformance/record_content_format.py``, session 53): qwen3
servers with ``--chat-template-content-format`` ``openai`` and ``string``, content parts in every
role, qwen3's template and a request's own (trusted) one that reads both formats. The flag wins
over the detected format; tito always used the detected one. One difference stays (``INTENDED``):
a null content for a template that tests ``content is none``.

``render_disabled_thinking.json`` (``conformance/record_disabled_thinking.py``, session 53):
``--anthropic-disabled-thinking-effort`` ``none``, ``low``, ``high`` (with an effort map): a
Messages request with thinking disabled renders with that effort, not the probed one.

``render_exclude_tools.json`` (``conformance/record_exclude_tools.py``, session 53):
``--exclude-tools-when-tool-choice-none`` on qwen3, gpt-oss and mistral-v3 (mistral-common),
every tool choice on chat, /tokenize, Responses and Messages renders and a call derendered.
tito had the setting, never recorded: vLLM's harmony Responses render writes the tools whatever
the flag (its own preamble), tito dropped them.

``render_trust_mm_kwargs.json`` (``conformance/record_trust_mm_kwargs.py``, session 54): qwen3
with ``--trust-request-mm-kwargs``: ``mm_processor_kwargs`` / ``media_io_kwargs`` (empty, set,
naming a template variable, bad types) on chat, completions, /tokenize and Responses renders are
accepted and change nothing (the template never sees them); completions read the field as an
extra of any type. tito refused them with vLLM's message naming a flag tito did not have.

``render_generation_config.json`` (``conformance/record_generation_config.py``, session 54):
qwen3 folders whose ``generation_config.json`` (the golden's ``files``) sets every sampling
field vLLM reads, or transformers' old defaults, with and without ``--generation-config vllm``
and ``--override-generation-config``: the request's unset fields, ``max_tokens`` (capped by the
override's ``max_new_tokens``) and the engine's ``skip_special_tokens`` come from it.

``render_chat_template_flag.json`` (``conformance/record_chat_template_flag.py``, session 54):
qwen3 with ``--chat-template`` a file, an inline template, and a file over a folder naming a
``tool_use`` template: the server's template renders every chat (tools too), /tokenize,
Responses and Messages. tito had no such setting.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance import flag_servers, markers, record, replay  # noqa: E402
from conformance.deviation_base import HY_V4_RESPONSES_500, MISTRAL_SKIP  # noqa: E402
from conformance.deviations import deviation_for  # noqa: E402
from conformance.jsondiff import diff, normalize, normalize_render  # noqa: E402

GOLDENS = {name: json.loads((ROOT / "conformance" / "goldens" / f"{name}.json").read_text())
           for name in ("render_joined_markers", "render_responses_no_parser",
                        "render_reasoning_flags", "render_tool_reasoning",
                        "render_mistral_no_parser", "render_responses_forced_parsers",
                        "render_harmony_parsers", "render_effort_map",
                        "render_content_format", "render_disabled_thinking",
                        "render_exclude_tools", "render_trust_mm_kwargs",
                        "render_generation_config", "render_chat_template_flag")}
GOLDEN = GOLDENS["render_joined_markers"]


@pytest.fixture(scope="module")
def marker_qwen3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = markers.marker_folder(tmp_path_factory.mktemp("joined") / "qwen3")
    for f in (ROOT / "conformance" / "models" / "qwen3").glob("*.json"):
        shutil.copy(f, folder)
    return folder


def _client(folder: Path, tmp: Path, reasoning: str | None, tool: str | None,  # noqa: ANN202
            model: str = "qwen3", tito_json: dict | None = None, files: dict | None = None,
            copies: dict | None = None):
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app
    from tito.models import registry

    dst = tmp / "models" / model
    if model != "qwen3":  # (the recorder's folder: mistral-v3 through mistral-common)
        folder = record.model_folder(model, tmp / "other")
    elif flag_servers.extra_markers(reasoning, tool):  # (the markers its vLLM classes look up)
        folder = flag_servers.parser_folder(tmp / "extra", reasoning, tool,
                                            ("tokenizer_config.json", "tito.json"))
    shutil.copytree(folder, dst)
    cfg = json.loads((dst / "tito.json").read_text()) if (dst / "tito.json").is_file() else {}
    cfg.update(reasoning_parser=reasoning, tool_parser=tool, **(tito_json or {}))
    (dst / "tito.json").write_text(json.dumps(cfg))
    for name, content in (files or {}).items():  # (the server folder's own files)
        (dst / name).write_text(json.dumps(content))
    for name, source in (copies or {}).items():  # (and files of the repository)
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / source, dst / name)
    registry.reset_registry(registry.load_registry({"TITO_MODELS_DIR": str(dst.parent)}))
    return TestClient(create_app())


#: (server glob, case glob, path) -> why the stand-in model makes vLLM's answer differ from what
#: it gives on the format's own model (tito's answer is that one)
RIG: dict[tuple[str, str, str], str] = {
    (f"{tool}+{tool}", "*/chat_*", "reasoning_ended"): "vLLM's GLM-style engines scan the prompt "
    "back to GLM's own turn tokens (<|system|>, <|user|>, <|assistant|>, <|observation|>), "
    "which qwen3's ChatML template never writes: the scan runs on to the <tool_call> the "
    "template's tool instructions hold in the system turn (an implicit reasoning end) and "
    "reports reasoning over. tito stops at the turn's last special token (<|im_start|> here, "
    "<|assistant|> in GLM's own prompt, where vLLM stops too): not over, as with no tools"
    for tool in ("glm45", "glm47", "ling3")}


#: (server glob, case glob, path) -> an intended deviation of the replay's list met here too
INTENDED: dict[tuple[str, str, str], str] = {
    ("mistral_plain", "*/derender_*_call", "choices.0.message.content"): MISTRAL_SKIP,
    ("mistral_exclude", "*/derender_none", "choices.0.message.content"): MISTRAL_SKIP,
    **{("qwen3_*", f"*/{kind}_own_template_tool_parts", path): "tito hands a null content "
       "to a template that tests `content is none` (transformers' form, "
       "test_render_template_parity); vLLM 0.33 hands \"\" (string format) or [] (openai)"
       for kind, paths in (("chat", ("token_ids*", "sampling_params.max_tokens")),
                           ("tokenize", ("tokens*", "count")))
       for path in paths},
    ("qwen3_gen_*", "*/derender_chat_[ds]*", "choices.0.message.content"): "the replay's "
    "special_plain_skip: skip_special_tokens (the request's, default true) drops special "
    "tokens from content also when the request turned thinking off; vLLM then keeps them",
    ("hy_v4_map", "*/stream_low_think", "reasoning"): "stream == batch: vLLM's hy_v4 stream "
    "keeps a <think> written at the output's start in the reasoning, its batch drops it (as "
    "`derender_low_think` records); tito drops it in both",
}


def _explained(server: str, name: str, path: str) -> bool:
    return any(fnmatch.fnmatchcase(server, s) and fnmatch.fnmatchcase(name, c)
               and fnmatch.fnmatchcase(path, p) for s, c, p in [*RIG, *INTENDED])


def _stream_problems(client, name: str, case: dict) -> list[str]:  # noqa: ANN001
    """A recorded stream driven through tito both ways the replay drives them (every call
    carries the request, or only the first does), folded and compared."""
    class _Post:
        def post(self, path: str, body: object) -> tuple[int, object]:
            got = client.post(path, json=body)
            return got.status_code, got.json()

    model = case["settings"]["model"]
    want = replay.fold_stream(case["calls"], False)
    return [f"{name}: {label}.{path}: vLLM {a!r} tito {b!r}"
            for label, vllm_client in (("readme", False), ("vllm_client", True))
            for path, a, b in diff(want, replay.fold_stream(replay.tito_stream(
                _Post(), {**case, "server": model}, vllm_client=vllm_client), False))
            if not _explained(case["server"], name, path)]


def _unlisted(resp: object) -> object:
    return resp[0] if isinstance(resp, list) and len(resp) == 1 else resp


@pytest.mark.parametrize(("golden", "server"), [(g, s) for g, data in GOLDENS.items()
                                                 for s in sorted(data["servers"])])
def test_the_engine_request_is_vllms(golden: str, server: str, marker_qwen3: Path,
                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tito.models import registry

    monkeypatch.setenv(replay.HARMONY_DATE_ENV, replay.HARMONY_DATE)  # (as recorded)
    parsers = GOLDENS[golden]["servers"][server]
    for key, value in parsers.get("env", {}).items():  # (settings the server's flags set)
        monkeypatch.setenv(key, value)
    saved = registry._registry
    try:
        client = _client(marker_qwen3, tmp_path, parsers["reasoning_parser"],
                         parsers["tool_parser"], parsers.get("model", "qwen3"),
                         parsers.get("tito_json"), parsers.get("files"),
                         parsers.get("template_files"))
        problems = []
        for name, case in GOLDENS[golden]["cases"].items():
            if case["server"] != server:
                continue
            if "calls" in case:  # (a stream: folded, as the replay compares them)
                problems += _stream_problems(client, name, case)
                continue
            if case["status"] is None:  # (no server: its error)
                continue
            if case["status"] == 500 and case["response"]["error"]["message"] == (
                    HY_V4_RESPONSES_500):  # (vLLM's bug: tito renders, as test_structural_tags)
                continue
            got = client.post(case["path"], json=case["request"])
            if got.status_code != case["status"]:
                problems.append(f"{name}: status {got.status_code}, vLLM {case['status']}")
                continue
            if case["status"] != 200:  # (vLLM's words, tito's own: the status and type)
                if got.json()["error"]["type"] != case["response"]["error"]["type"]:
                    problems.append(f"{name}: {got.json()} vLLM {case['response']}")
                continue
            derender = case["path"].endswith("/derender")
            norm = normalize if derender else normalize_render
            want, have = norm(_unlisted(case["response"])), norm(_unlisted(got.json()))
            # (the replay's intended deviations: tito's derender_context, vLLM's CLI-wide
            # Cohere kwarg, tito's reasoning-token count...)
            group = "derender_flags" if derender else "render_flags"
            problems += [f"{name}: {path}: vLLM {a!r} tito {b!r}"
                         for path, a, b in diff(want, have)
                         if deviation_for(group, name, path, a) is None
                         and not _explained(server, name, path)]
        assert not problems, "\n".join(problems[:20])
    finally:
        registry.reset_registry(saved)


def test_the_rig_entries_are_needed() -> None:
    """Each :data:`RIG` entry explains a recorded difference: vLLM reports reasoning over for
    those servers' chat renders with tools (the template's <tool_call>), not without tools."""
    cases = GOLDENS["render_tool_reasoning"]["cases"]
    for server, case_glob, path in RIG:
        tools = [c for n, c in cases.items() if fnmatch.fnmatchcase(n, f"{server}/chat_*")
                 and c["request"].get("tools") and not c["request"].get("chat_template_kwargs")]
        assert tools and all(c["response"][path] is True for c in tools), server
        assert cases[f"{server}/chat_no_tools"]["response"][path] is False, server


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
