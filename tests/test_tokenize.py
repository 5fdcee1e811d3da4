"""``/tokenize``, ``/detokenize`` and ``/version`` against vLLM 0.33.0's own answers.

``tests/goldens/tokenize.json`` was recorded from a real ``vllm launch render`` server on the
qwen3 folder by ``conformance/record_tokenize.py``. Every case is replayed through tito's app and
compared whole, except where tito deliberately differs (listed in :data:`DEVIATIONS`).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from fastapi.testclient import TestClient

from tito import __version__
from tito.adapters.app import create_app

GOLDENS = json.loads((pathlib.Path(__file__).parent / "goldens" / "tokenize.json").read_text())


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['path']}:{json.dumps(case['body'], ensure_ascii=True)[:60]}"


@pytest.mark.parametrize("case", GOLDENS, ids=_case_id)
def test_matches_vllm(client: TestClient, case: dict[str, Any]) -> None:
    if case["method"] == "GET":
        resp = client.get(case["path"])
    else:
        resp = client.post(case["path"], json=case["body"])
    assert resp.status_code == case["status"], resp.text
    got, want = resp.json(), case["response"]
    if case["path"] == "/version":
        # deliberate: tito reports its own version, plus the vLLM API version it speaks
        assert got == {"version": __version__, "vllm_api": want["version"]}
        return
    if case["status"] != 200:
        # error shape and type; messages of pydantic validation errors are tito's own wording
        assert set(got) == {"error"} and got["error"]["code"] == want["error"]["code"]
        assert got["error"]["type"] in {want["error"]["type"], "BadRequestError", "Bad Request"}
        if want["error"]["type"] == "NotFoundError":  # vLLM lists every alias; tito may not
            assert got["error"]["message"].startswith(want["error"]["message"].split(" Valid")[0])
            assert got["error"]["param"] == "model"
        elif want["error"]["type"] != "Bad Request":
            assert got["error"]["message"] == want["error"]["message"]
        return
    assert got == want


def test_round_trip_unicode(client: TestClient) -> None:
    text = "héllo wörld 😀 中文 \n  code <|im_end|>"
    tokens = client.post("/tokenize", json={"model": "qwen3", "prompt": text}).json()["tokens"]
    back = client.post("/detokenize", json={"model": "qwen3", "tokens": tokens}).json()
    assert back == {"prompt": text}


def test_chat_tokenize_equals_chat_render(client: TestClient) -> None:
    body = {"model": "qwen3", "messages": [{"role": "user", "content": "Weather in Paris?"}],
            "tools": [{"type": "function", "function": {"name": "w", "parameters": {}}}]}
    ids = client.post("/tokenize", json=body).json()["tokens"]
    rendered = client.post("/v1/chat/completions/render", json=body).json()["token_ids"]
    assert ids == rendered


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/tokenize", {"model": "qwen3", "messages": "hi"}),
        ("/tokenize", {"model": "qwen3", "messages": [{"role": "user"}], "chat_template": "{{x"}),
        ("/detokenize", {"model": "qwen3", "tokens": [1] * 1_048_577}),
        ("/tokenize", {"model": "gpt2", "messages": [{"role": "user", "content": "x"}]}),
    ],
)
def test_bad_input_is_a_4xx(client: TestClient, path: str, body: dict[str, Any]) -> None:
    resp = client.post(path, json=body)
    assert 400 <= resp.status_code < 500, resp.text
    assert set(resp.json()["error"]) >= {"message", "type", "code"}


@settings(max_examples=40, deadline=None)
@given(st.integers(151_669, 2**32 - 1))
def test_out_of_vocabulary_ids_decode_to_nothing(client: TestClient, token_id: int) -> None:
    """As vLLM: ids past the tokenizer a ``tokenizers`` decoder can read (padded rows, or
    nonsense below 2**32) are ``""``, not an error."""
    resp = client.post("/detokenize", json={"model": "qwen3", "tokens": [9707, token_id, 9707]})
    assert resp.status_code == 200 and resp.json() == {"prompt": "HelloHello"}


@settings(max_examples=40, deadline=None)
@given(st.integers(2**32, 2**80), st.sampled_from(["qwen3", "gpt2", "gpt-oss", "mistral-v3"]))
def test_ids_no_decoder_reads_are_a_400(client: TestClient, token_id: int, model: str) -> None:
    """vLLM 0.33 (goldens ``tokens_ids``): its schema bounds an id to int64 (a schema 400 naming
    the id's path), the tokenizer's decode refuses one past u32 (past int32 for mistral-common's
    SentencePiece) with a BadRequestError; never a 200 or a 5xx."""
    resp = client.post("/detokenize", json={"model": model, "tokens": [5, token_id]})
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    if token_id >= 2**63:
        assert error["param"] == "body.tokens.1" and "less than or equal" in error["message"]
    else:
        assert error["type"] == "BadRequestError" and error["param"] is None

