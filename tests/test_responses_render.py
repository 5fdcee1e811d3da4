"""``POST /v1/responses/render`` against goldens recorded from the real vLLM 0.33 render server
(``tests/goldens/responses_render/record.py``; qwen3 tokenizer, qwen3 reasoning + hermes tools).

Compared: status, error ``type``/``param``; on success the token ids exactly, the sampling params
(both sides through tito's ``SamplingParams`` so absent-vs-default does not matter), the template
kwargs, ``reasoning_ended``, ``stream``, ``model`` and the request id (random ids normalized to
their ``resp_`` prefix). Normalized, each for a stated reason:

- ``skip_reading_prefix_cache`` false, ``extra_args`` ``{}``: derived defaults (null on tito's
  wire, the engine derives the same);
- ``stop``/``output_text_buffer_length``: tito matches stop strings in derender (README), so it
  never sends them to the engine (same as its chat render);
- ``cohere_format`` in the template kwargs: a server default of vLLM for another model family's
  template, which the qwen3 template never reads (same as chat).

The structural tags (required/named tool choice, strict tools, ``parallel_tool_calls: false``)
are compared here for hermes and, for every other format, in ``tests/test_structural_tags.py``.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from fastapi.testclient import TestClient

from tito.adapters.app import create_app
from tito.protocol import SamplingParams

GOLDENS = sorted((pathlib.Path(__file__).parent / "goldens" / "responses_render").glob("*.json"))
PATH = "/v1/responses/render"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(endpoints=["responses_render"]))


def _sampling(raw: dict) -> dict:
    raw = {k: v for k, v in raw.items() if k not in ("stop", "output_text_buffer_length")}
    so = raw.get("structured_outputs")
    if isinstance(so, dict):
        raw["structured_outputs"] = {
            k: v for k, v in so.items() if not k.startswith("_") and v not in (None, False)
        } or None
    if raw.get("extra_args") == {}:
        raw["extra_args"] = None
    if raw.get("skip_reading_prefix_cache") is False:  # vLLM's __post_init__ derives it
        raw["skip_reading_prefix_cache"] = None
    return SamplingParams.model_validate(raw).model_dump(mode="json", exclude={"stop"})


def _kwargs(raw: dict | None) -> dict | None:
    if raw is None:
        return None
    return {k: v for k, v in raw["chat_template_kwargs"].items() if k != "cohere_format"}


CASES = [pytest.param(g, id=g.stem) for g in GOLDENS]


def test_there_are_enough_goldens():
    assert len(GOLDENS) >= 40


@pytest.mark.parametrize("path", CASES)
def test_render_matches_vllm(client, path):
    golden = json.loads(path.read_text())
    got = client.post(PATH, json=golden["request"])
    assert got.status_code == golden["status"], got.text
    body, want = got.json(), golden["response"]
    if golden["status"] != 200:
        assert body["error"]["type"] == want["error"]["type"]
        assert body["error"]["param"] == want["error"]["param"]
        assert body["error"]["code"] == want["error"]["code"]
        return
    assert body["token_ids"] == want["token_ids"]
    assert _sampling(body["sampling_params"]) == _sampling(want["sampling_params"])
    assert _kwargs(body["reasoning_parser_kwargs"]) == _kwargs(want["reasoning_parser_kwargs"])
    for key in ("reasoning_ended", "stream", "model", "cache_salt", "priority", "output_mode",
                "kv_transfer_params", "features", "content_parts"):
        assert body[key] == want.get(key), key
    if want["request_id"].startswith("resp_"):
        assert body["request_id"].startswith("resp_")
    else:
        assert body["request_id"] == want["request_id"]


def test_derender_context_carries_the_response_fields(client):
    body = client.post(PATH, json={
        "model": "qwen3", "input": "Hi", "instructions": "Be brief.", "max_output_tokens": 9,
        "metadata": {"k": "v"}, "tools": [{"type": "function", "name": "f"}],
    }).json()
    ctx = body["derender_context"]
    assert ctx["kind"] == "responses"
    assert ctx["request_id"] == body["request_id"]
    assert ctx["tools"] == ["f"] and ctx["tool_choice"] == "auto"
    echo = ctx["response"]
    assert echo["instructions"] == "Be brief." and echo["max_output_tokens"] == 9
    assert echo["metadata"] == {"k": "v"} and echo["tools"][0]["name"] == "f"


@pytest.mark.parametrize(
    "body, param",
    [
        ({"model": "qwen3", "input": "Hi", "tools": [{"type": "bogus"}]}, "body.tools.0"),
        ({"model": "qwen3", "input": "Hi", "tools": [{"type": "mcp"}]}, "body.tools.0"),
        ({"model": "qwen3", "input": "Hi", "tools": [{"type": "web_search"}],
          "tool_choice": "required"}, "tool_choice"),
        # (a call item without its call_id is vLLM's schema error: fuzz_render seeds 700-713)
        ({"model": "qwen3", "input": [{"type": "function_call", "name": "f"}]}, "body.input"),
        ({"model": "qwen3", "input": [{"type": "bogus"}]}, "body.input"),
        ({"model": "qwen3", "input": [{"role": "assistant", "content": [{"type": "x"}]}]},
         "body.input"),  # (no input part type: vLLM's schema error, render_responses_messages)
        ({"model": "qwen3", "input": "Hi", "top_logprobs": 21}, "body.top_logprobs"),
        ({"model": "qwen3", "input": 5}, "body.input"),
        # (a tool_choice type that is not a string was a 500: fuzz_hard seeds 120, 122-125)
        ({"model": "qwen3", "input": "Hi", "tool_choice": {"type": {"a": 1}}}, "body.tool_choice"),
        ({"model": "gpt-oss", "input": "Hi", "tool_choice": {"type": [1]}}, "body.tool_choice"),
        ({"model": "qwen3", "input": "Hi", "tool_choice": {"type": "custom", "name": [[0]]},
          "tools": [{"type": "function", "name": {"a": 1}}]}, "tool_choice"),
        # (an output_text annotation whose type is an object was a 500: fuzz_hard seed 203)
        ({"model": "gpt-oss", "input": [{"role": "assistant", "type": "message", "content": [
            {"type": "output_text", "text": "b", "annotations": [{"type": {"a": 1}}]}]}]},
         "body.input"),
        ({"model": "qwen3", "input": [{"role": "assistant", "type": "message", "content": [
            {"type": "output_text", "text": "b", "annotations": [{"type": [1]}]}]}]},
         "body.input"),
    ],
)
def test_bad_inputs_are_clear_400s(client, body, param):
    """vLLM 0.33's answers: an unknown tool or item type, a built-in tool without its fields
    are schema errors; built-in tools are ignored on template models (vLLM's render)."""
    got = client.post(PATH, json=body)
    assert got.status_code == 400, got.text
    assert (got.json()["error"]["param"] or "").startswith(param)
