"""Replay the recorded vLLM 0.33.0 goldens against tito and list every difference.

Why a module of its own: ``tests/test_conformance.py`` asserts on it, and a developer can run
``python conformance/replay.py [group] [case-glob]`` to print the differences (the intended ones
included, with their reason) while fixing. No vLLM needed: the goldens hold vLLM's answers.

What is compared (see ``docs/conformance.md``):

- HTTP cases (render, batch derender, errors): status, then the JSON body field by field after
  :func:`normalize` (random ids, timestamps); for errors ``type``, ``param``, ``code`` and
  ``message``.
- Streaming cases: the stream vLLM produced (its chunks folded into one choice: content,
  reasoning, tool calls, logprobs, token ids, finish and stop reasons, usage, metrics, and the
  number of chunks that carried a finish reason) against the same fold of tito's stream, driven
  two ways: as tito's README says (settings and prompt on the first call only, the returned
  state echoed whole) and as a vLLM client would (only vLLM's ``DerenderStreamState`` fields
  kept, settings and prompt resent on every call).
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "goldens"
HARMONY_DATE_ENV, HARMONY_DATE = "TITO_HARMONY_START_DATE", "2026-12-01"  # as record.py
TRUST_ENV = "TITO_TRUST_REQUEST_CHAT_TEMPLATE"

#: vLLM's DerenderStreamState fields (what a client written for vLLM keeps)
VLLM_STATE_FIELDS = (
    "prev_tokens", "prefix_offset", "read_offset", "role_sent", "logprob_context_token_ids",
    "logprob_text_offset", "output_token_ids", "output_chunk_lens", "tools_streamed",
    "last_tool_call_ids",
)


if str(HERE.parent) not in sys.path:  # (run as a script or imported as ``replay``)
    sys.path.insert(0, str(HERE.parent))
from conformance.deviations import DEVIATIONS, Deviation, deviation_for  # noqa: E402,F401
from conformance.echo_cut import echo_diffs, echoed  # noqa: E402
from conformance.jsondiff import diff, normalize, normalize_render  # noqa: E402

# -- tito in-process --------------------------------------------------------------------------


class Tito:
    """tito's app in-process (FastAPI TestClient): the same code path as ``tito serve``, on the
    models as recorded (``record.py``'s folders: tito's own, mistral-v3 through mistral-common)."""

    def __init__(self) -> None:
        from fastapi.testclient import TestClient

        from tito.adapters.app import create_app
        from tito.models import registry

        sys.path.insert(0, str(HERE.parent))
        from conformance import corpus

        self._dir = tempfile.TemporaryDirectory(prefix="tito-replay-")
        root = Path(self._dir.name)
        for name in ("qwen3", "gpt2", "gpt-oss"):
            (root / name).symlink_to(corpus.MODELS / name)
        corpus.mistral_folder(root / "mistral-v3")
        corpus.mistral_hf_folder(root / "mistral-v3-hf")
        for name in corpus.NATIVE:
            corpus.native_folder(name, root / name)
        self.registry = registry.load_registry({"TITO_MODELS_DIR": str(root),
                                                "TITO_DEFAULT_MODEL": "qwen3"})
        self.client = TestClient(create_app())

    def post(self, path: str, body: Any, *, trusted: bool = False) -> tuple[int, Any]:
        """``trusted``: as recorded from the ``qwen3-trusted`` server (a request's own
        ``chat_template`` taken: ``TITO_TRUST_REQUEST_CHAT_TEMPLATE``)."""
        from tito.models import registry

        # harmony's "Current date:" as recorded (vLLM's VLLM_SYSTEM_START_DATE, record.py)
        env = {HARMONY_DATE_ENV: HARMONY_DATE}
        if trusted:
            env[TRUST_ENV] = "1"
        saved, saved_registry = {k: os.environ.get(k) for k in env}, registry._registry
        os.environ.update(env)
        registry.reset_registry(self.registry)
        try:
            r = self.client.post(path, content=json.dumps(body),
                                 headers={"content-type": "application/json"})
        finally:
            registry.reset_registry(saved_registry)
            for k, v in saved.items():
                if v is None:
                    del os.environ[k]
                else:
                    os.environ[k] = v
        return r.status_code, r.json()


def fold_stream(calls: list[dict[str, Any]], completion: bool) -> dict[str, Any]:
    """A stream's chunks as one choice (what a client assembles), plus shape facts."""
    folded: dict[str, Any] = {"finishes": 0, "roles": 0, "chunk_keys": [], "choice_keys": []}
    text, reasoning, calls_by_index = "", "", {}  # type: ignore[var-annotated]
    logprobs: list[Any] | None = None
    token_ids: list[int] | None = None
    for call in calls:
        if call["status"] != 200:
            folded["error"] = {"status": call["status"], "type": call["response"]["error"]["type"]}
            break
        chunk = call["response"]["chunk"]
        _add_keys(folded["chunk_keys"], chunk)
        if chunk.get("usage") is not None:
            folded["usage"] = chunk["usage"]
        if chunk.get("metrics") is not None:
            folded["metrics"] = chunk["metrics"]
        if chunk.get("prompt_token_ids") is not None:  # chat: on the chunk
            folded["prompt_token_ids"] = chunk["prompt_token_ids"]
        for choice in chunk["choices"]:
            _add_keys(folded["choice_keys"], choice)
            if completion:
                text += choice.get("text") or ""
            else:
                delta = choice["delta"]
                if delta.get("role"):
                    folded["roles"] += 1
                text += delta.get("content") or ""
                reasoning += delta.get("reasoning") or ""
                for tc in delta.get("tool_calls") or []:
                    c = calls_by_index.setdefault(tc["index"], {"id": None, "name": None,
                                                                "arguments": ""})
                    c["id"] = c["id"] or tc.get("id")
                    fn = tc.get("function") or {}
                    c["name"] = c["name"] or fn.get("name")
                    c["arguments"] += fn.get("arguments") or ""
            lp = choice.get("logprobs")
            if lp is not None:
                logprobs = logprobs or []
                if completion:
                    logprobs.append(lp)
                else:
                    logprobs.extend(lp.get("content") or [])
            if choice.get("token_ids") is not None:
                token_ids = (token_ids or []) + list(choice["token_ids"])
            if choice.get("prompt_token_ids") is not None:  # completions: on the choice
                folded["prompt_token_ids"] = choice["prompt_token_ids"]
            if choice.get("finish_reason") is not None:
                folded["finishes"] += 1
                folded["finish_reason"] = choice["finish_reason"]
                folded["stop_reason"] = choice.get("stop_reason")
    folded.update(text=text, logprobs=_merge_completion_lp(logprobs) if completion else logprobs,
                  token_ids=token_ids)
    if not completion:
        folded.update(reasoning=reasoning, tool_calls=[calls_by_index[i]
                                                       for i in sorted(calls_by_index)])
    return normalize(folded)


def _add_keys(seen: list[str], obj: dict[str, Any]) -> None:
    """The keys of the stream's chunks (or choices), each once, in order of first appearance:
    a chunk key one side never writes (vLLM's always-null ``weight_versions``) shows here."""
    seen.extend(k for k in obj if k not in seen)


def _merge_completion_lp(parts: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    if parts is None:
        return None
    merged: dict[str, list[Any]] = {}
    for p in parts:
        for k, v in p.items():
            merged.setdefault(k, []).extend(v or [])
    return merged


def tito_stream(tito: Tito, case: dict[str, Any], *, vllm_client: bool) -> list[dict[str, Any]]:
    """Drive tito's streaming derender over the recorded engine events."""
    calls, state = [], None
    for k, chunk in enumerate(case["chunks"]):
        body: dict[str, Any] = {"stream": True, "model": case["server"], "generate_chunk": chunk,
                                "stream_state": state}
        if vllm_client or k == 0:
            body.update({"prompt_token_ids": case["prompt_token_ids"],
                         "prompt_tokens": len(case["prompt_token_ids"]),
                         case["settings_key"]: case["settings"]})
        for key in case.get("omit", ()):  # body keys the case leaves out (fuzz_derender_more)
            body.pop(key, None)
        status, resp = tito.post(case["path"], body)
        calls.append({"status": status, "response": resp})
        if status != 200:
            break
        state = resp["stream_state"]
        if vllm_client:
            state = {k2: state[k2] for k2 in VLLM_STATE_FIELDS if k2 in state}
    return calls


# -- the comparison ---------------------------------------------------------------------------


@dataclass
class Difference:
    group: str
    case: str
    path: str
    vllm: Any
    tito: Any
    deviation: Deviation | None


def load(group: str) -> dict[str, Any]:
    return json.loads((GOLDENS / f"{group}.json").read_text())["cases"]


#: every recorded group (``record.py`` writes one file each; chat groups per model: qwen3's
#: without a suffix, gpt-oss's ``_gptoss``, mistral-v3's ``_mistral``)
GROUPS = ["render_chat", "render_chat_errors", "render_completion", "render_completion_errors",
          "derender_chat", "derender_completion", "derender_errors", "stream_chat",
          "stream_completion", "render_chat_gptoss", "render_chat_gptoss_errors",
          "derender_chat_gptoss", "stream_chat_gptoss", "render_chat_mistral",
          "render_chat_mistral_errors", "derender_chat_mistral", "stream_chat_mistral",
          "render_chat_edge", "render_chat_edge_errors", "derender_chat_edge", "stream_chat_edge",
          "render_media_errors", "tokens_gptoss", "tokens_ids", "derender_stop_empty",
          "render_template_vars",
          "render_chat_template", "render_chat_messages",
          "render_responses_items", "render_responses_tools", "render_responses_custom",
          "render_responses_custom_gptoss", "tokenize_harmony_reasoning",
          "render_openai_parts_errors", "render_dsv32_empty", "render_responses_outputs",
          "render_responses_order", "render_responses_constraints",
          "render_responses_messages", "render_top_logprobs_null", "render_tool_choice_null",
          "render_messages_models", "render_json_values", "render_request_fields",
          "render_responses_tool_shapes", "render_responses_item_shapes",
          "render_tokenize_kwargs", "render_message_edges", "render_tokenize_lazy_dump",
          "render_dsv41_shapes", "render_inkling_lazy", "derender_logprob_ids",
          "derender_logprob_entries", "stream_logprob_entries", "derender_choice_index",
          "stream_choice_index", "derender_stop_reason_eos", "stream_stop_reason_eos",
          "derender_lone_surrogate", "stream_lone_surrogate",
          "derender_chunk_dup", "stream_chunk_dup", "stream_after_finish", "render_rf_schema_none",
          "stream_request_id_change", "render_assistant_union", "render_tokenize_sent_calls",
          "derender_fuzz", "stream_fuzz",
          "render_fuzz",
          "render_fuzz_errors", "render_fuzz_order", "render_fuzz_lazy_calls", "render_union_parts",
          "render_untyped_parts_errors",
          "render_structured_options", "render_structural_model", "render_responses_forced_none",
          "render_mistral_untyped_parts", "render_mistral_spent_parts",
          "render_messages_named"]


def _http_diffs(tito: Tito, group: str, name: str, case: dict[str, Any]) -> Iterator[
        tuple[str, Any, Any]]:
    status, resp = tito.post(case["path"], case["request"],
                             trusted=case["server"].endswith("-trusted"))
    if status != case["status"]:
        yield "status", case["status"], status
    want, got = normalize(case["response"]), normalize(resp)
    request = case["request"]
    if isinstance(request, dict) and request.get("stream") is True and status == 200 \
            and isinstance(want, dict) and isinstance(got, dict):
        # a stream call's state is each server's own: its chunk is compared, the state by what
        # the next calls make of it (the stream groups)
        want, got = {**want, "stream_state": None}, {**got, "stream_state": None}
    if "/render" in case["path"] and status == 200:
        if isinstance(want, list) and isinstance(got, list):
            want, got = [normalize_render(r) for r in want], [normalize_render(r) for r in got]
        else:
            want, got = normalize_render(want), normalize_render(got)
    prompt = echoed(case["request"]) if case["path"] == "/v1/completions/derender" else None
    if (prompt is not None and status == 200
            and len(want.get("choices") or []) == len(got.get("choices") or [])):
        for k, (w, g) in enumerate(zip(want["choices"], got["choices"])):
            yield from echo_diffs(w, g, f"choices.{k}.", prompt)
        want, got = {**want, "choices": None}, {**got, "choices": None}
    yield from diff(want, got)


def compare_case(tito: Tito, group: str, name: str, case: dict[str, Any]) -> list[Difference]:
    if group.startswith("stream_"):
        completion = case["path"].startswith("/v1/completions")
        want = fold_stream(case["calls"], completion)
        found: list[tuple[str, Any, Any]] = []
        prompt = echoed(case["settings"]) if completion else None
        for label, vllm_client in (("readme", False), ("vllm_client", True)):
            got = fold_stream(tito_stream(tito, case, vllm_client=vllm_client), completion)
            pairs = diff(want, got) if prompt is None else echo_diffs(want, got, "", prompt)
            found += [(f"{label}.{p}", a, b) for p, a, b in pairs]
    else:
        found = list(_http_diffs(tito, group, name, case))
    out = []
    for path, a, b in found:
        bare = path.split(".", 1)[1] if group.startswith("stream_") else path
        out.append(Difference(group, name, path, a, b, deviation_for(group, name, bare, a)))
    return out


def compare_all(groups: list[str] | None = None, pattern: str = "*") -> list[Difference]:
    tito = Tito()
    result: list[Difference] = []
    for group in groups or GROUPS:
        for name, case in load(group).items():
            if fnmatch.fnmatchcase(name, pattern):
                result += compare_case(tito, group, name, case)
    return result


def main() -> None:
    groups = [sys.argv[1]] if len(sys.argv) > 1 else None
    pattern = sys.argv[2] if len(sys.argv) > 2 else "*"
    show_all = "--all" in sys.argv
    diffs = compare_all(groups, pattern)
    unexplained = [d for d in diffs if d.deviation is None]
    for d in diffs if show_all else unexplained:
        tag = "intended" if d.deviation else "DIFF"
        print(f"{tag} {d.group}/{d.case} {d.path}: vllm={json.dumps(d.vllm)[:300]} "
              f"tito={json.dumps(d.tito)[:300]}")
    print(f"{len(unexplained)} unexplained differences ({len(diffs) - len(unexplained)} "
          "intended)")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent / "src"))
    main()
