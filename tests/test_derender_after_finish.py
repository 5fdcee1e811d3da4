"""Engine chunks after a choice's finish (goldens ``stream_after_finish``, recorded from vLLM
0.33.0): tito's README client gets one finish per choice, nothing derendered after it (the
deviation ``stream_after_finish``: a finish is final, as tito's stop strings need); a client
keeping only vLLM's fields, whose state cannot say the choice finished, gets vLLM's answer (more
output, a second finish), but for gpt-oss (the stop id that ended the choice is left out of the
replayed ids, so the next message reads as the finished one's text). Likewise a chunk of another
stream's ``request_id`` (goldens ``stream_request_id_change``): the README client's 400 (a state
is bound to its stream), the vLLM-fields client's vLLM answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import replay  # noqa: E402

CASES = replay.load("stream_after_finish")


@pytest.fixture(scope="module")
def tito() -> replay.Tito:
    return replay.Tito()


@pytest.mark.parametrize("name", sorted(CASES))
def test_readme_client_finishes_once(tito: replay.Tito, name: str) -> None:
    case = CASES[name]
    completion = case["path"].startswith("/v1/completions")
    calls = replay.tito_stream(tito, case, vllm_client=False)
    assert all(c["status"] == 200 for c in calls)
    first = next(k for k, ch in enumerate(case["chunks"]) if ch["choices"][0]["finish_reason"])
    assert first < len(case["chunks"]) - 1  # (the case sends chunks after the finish)
    want = replay.fold_stream(replay.tito_stream(tito, {**case, "chunks": case["chunks"][
        :first + 1]}, vllm_client=False), completion)
    got = replay.fold_stream(calls, completion)
    assert got["finishes"] == 1
    # (token_ids, asked with return_token_ids, are the engine's ids as it sent them, each chunk's)
    for key in ("text", "finish_reason", "stop_reason", "logprobs", "reasoning", "tool_calls"):
        assert got.get(key) == want.get(key), key
    for call in calls[first + 1:]:  # empty deltas, no finish
        (choice,) = call["response"]["chunk"]["choices"]
        assert choice["finish_reason"] is None
        assert not (choice.get("text") or (choice.get("delta") or {}).get("content")
                    or (choice.get("delta") or {}).get("tool_calls"))


@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("gptoss")))
def test_vllm_fields_client_gets_vllms_answer(tito: replay.Tito, name: str) -> None:
    case = CASES[name]
    completion = case["path"].startswith("/v1/completions")
    want = replay.fold_stream(case["calls"], completion)
    assert want["finishes"] == 2
    got = replay.fold_stream(replay.tito_stream(tito, case, vllm_client=True), completion)
    assert list(replay.diff(want, got)) == []


ID_CASES = replay.load("stream_request_id_change")


@pytest.mark.parametrize("name", sorted(ID_CASES))
def test_a_chunk_of_another_stream(tito: replay.Tito, name: str) -> None:
    case = ID_CASES[name]
    completion = case["path"].startswith("/v1/completions")
    calls = replay.tito_stream(tito, case, vllm_client=False)
    at = next(k for k, ch in enumerate(case["chunks"]) if ch["request_id"] != "r")
    assert [c["status"] for c in calls] == [200] * at + [400]
    assert "keep one state per stream" in calls[-1]["response"]["error"]["message"]
    want = replay.fold_stream(case["calls"], completion)
    assert "error" not in want
    got = replay.fold_stream(replay.tito_stream(tito, case, vllm_client=True), completion)
    assert list(replay.diff(want, got)) == []
