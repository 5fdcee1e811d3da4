"""Inkling's native chat encoding, against vLLM 0.33.0's render server.

The golden (``tests/goldens/inkling_render_vllm.json``) is vLLM's ``/v1/chat/completions/render``
on a folder whose ``config.json`` names ``InklingForCausalLM`` (Qwen3's tokenizer with Inkling's
chat tokens added as special tokens, no chat template: ``conformance.markers.inkling_folder``;
recorded by ``tests/goldens/record_dsv32_render.py --model inkling``, cases in
``inkling_render_cases.py``): vLLM renders it with its Inkling encoding, to ids, and so does its
``/tokenize`` and Responses render. tito serves the same files and must give the same ids, or a
400.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from fastapi.testclient import TestClient
from native_render import load_native, native_folder, served_alone
from tito.core import render_inkling

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN = json.loads((ROOT / "tests" / "goldens" / "inkling_render_vllm.json").read_text())
CASES, TOKENIZE, RESPONSES = GOLDEN["cases"], GOLDEN["tokenize"], GOLDEN["responses"]
#: cases whose 400 tito words its own way (vLLM's words are pydantic's dump of its types, or
#: Python's for an exception it did not expect)
OWN_WORDS = {"unknown_part_type", "tools_empty_list", "string_parts", "untyped_text_part",
             "input_text_part", "kwargs_tools_int", "kwargs_tools_item_int",
             "kwargs_tools_no_name", "kwarg_effort_huge", "developer_tools_string",
             "reasoning_not_string"}
#: vLLM answers 500 (its JSON decoder's recursion error, not caught): tito 400, as for any bad body
VLLM_500 = {"arguments_deep"}
#: tito's known deviation: the project's bare-string / Responses-style text parts, which tito
#: takes in any message (``conformance/deviation_base.py`` ``TOOL_PARTS``)
DEVIATIONS = {"string_parts", "system_string_parts", "input_text_part",
              "assistant_input_text_part"}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return load_native("inkling", tmp_path_factory.mktemp("inkling"))


@pytest.fixture(scope="module")
def client(model):
    yield from served_alone(model, "inkling")


def _check(r, expected: dict, ids: str, name: str) -> None:
    if name in VLLM_500:
        assert expected["status"] == 500 and r.status_code == 400, r.text
        return
    assert r.status_code == expected["status"], r.text
    if expected["status"] == 200:
        assert r.json()[ids] == expected[ids]
    else:
        error = r.json()["error"]
        assert error["type"] == expected["error"]["type"] == "BadRequestError"
        if name not in OWN_WORDS:
            assert error["message"] == expected["error"]["message"]


@pytest.mark.parametrize("name", sorted(set(CASES) - DEVIATIONS))
def test_render_equals_vllms(client, name):
    r = client.post("/v1/chat/completions/render", json={"model": "inkling", **CASES[name]["request"]})
    _check(r, CASES[name], "token_ids", name)


@pytest.mark.parametrize("name", sorted(set(TOKENIZE) - DEVIATIONS))
def test_tokenize_equals_vllms(client, name):
    """``/tokenize`` with messages (the chat cases, the tokenize body's fields): the default
    effort (that body has no ``reasoning_effort``), and the calls of an assistant message with
    a null content are not written."""
    r = client.post("/tokenize", json={"model": "inkling", **TOKENIZE[name]["request"]})
    _check(r, TOKENIZE[name], "tokens", name)


@pytest.mark.parametrize("name", sorted(RESPONSES))
def test_responses_render_equals_vllms(client, name):
    r = client.post("/v1/responses/render", json={"model": "inkling", **RESPONSES[name]["request"]})
    _check(r, RESPONSES[name], "token_ids", name)


def test_the_architecture_picks_the_encoding(tmp_path):
    """Both Inkling architectures pick it; ``tokenizer_mode: hf`` (tito.json, as vLLM's flag)
    turns it off; a vocabulary without Inkling's tokens is refused at load, as vLLM refuses to
    start."""
    from tito.models import registry
    from tito.models.served import ModelLoadError

    out = native_folder("inkling", tmp_path / "inkling")
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps(
        {**config, "architectures": ["InklingForConditionalGeneration"]}))
    assert registry.load_model(out).config.native_renderer == "inkling"
    (out / "tito.json").write_text(json.dumps({"tokenizer_mode": "hf"}))
    assert registry.load_model(out).config.native_renderer is None
    (out / "tito.json").write_text("{}")
    qwen3 = ROOT / "layers" / "tokenizer" / "models" / "qwen3" / "tokenizer.json"
    (out / "tokenizer.json").write_bytes(qwen3.read_bytes())
    with pytest.raises(ModelLoadError, match="lacks Inkling's special tokens"):
        registry.load_model(out)


def test_media_on_a_multimodal_inkling_model_is_a_400(tmp_path):
    """vLLM writes a bare image marker its multimodal processor expands; tito does not
    implement that contract and says so with a 400 (a text-only model: vLLM's own 400)."""
    from tito.adapters.app import create_app
    from tito.models import registry

    out = native_folder("inkling", tmp_path / "inkling")
    (out / "tito.json").write_text(json.dumps({"multimodal": True}))
    saved = registry._registry
    registry.reset_registry(registry.ModelRegistry([registry.load_model(out)], default=""))
    try:
        r = TestClient(create_app(), raise_server_exceptions=False).post(
            "/v1/chat/completions/render", json={"model": "inkling", "messages": [
                {"role": "user", "content": [{"type": "image_url", "image_url": {
                    "url": "data:image/png;base64,AAAA"}}]}]})
    finally:
        registry.reset_registry(saved)
    assert r.status_code == 400, r.text
    assert "renders no media parts" in r.json()["error"]["message"]


def test_a_long_conversation_costs_linear_time(model):
    """Each message is written once (a call's name is remembered by its id, not searched):
    the encoding's text pieces grow linearly with the conversation."""
    markers = render_inkling.marker_ids(model.vocab.token_id)
    pieces = []

    def text(s: str) -> list[int]:
        pieces.append(s)
        return [0]

    def count(n: int) -> int:
        pieces.clear()
        calls = [{"id": f"c{i}", "type": "function",
                  "function": {"name": "f", "arguments": "{}"}} for i in range(n)]
        msgs = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": None, "tool_calls": calls},
                *({"role": "tool", "tool_call_id": f"c{i}", "content": "r"} for i in range(n))]
        render_inkling.encode(msgs, None, markers=markers, text=text, effort=None,
                              add_generation_prompt=True)
        return len(pieces)

    assert count(400) == 2 * count(200) - 1
