"""Media content parts and the per-model multimodal flag (``tito.models.multimodal``).

Why: vLLM 0.33 refuses image/audio/video parts on a text-only model with a 400 (recorded:
``conformance/goldens/render_media_errors.json``, ``render_chat_edge*.json``,
``render_messages_errors.json``, replayed by ``tests/test_conformance.py``) and hands them to a
multimodal model's processor; tito passes them to the engine as ``content_parts`` only for a
model flagged multimodal (derived from ``config.json`` or set in ``tito.json``). These tests pin
the flag's derivation, the refusal on every route that renders chats, and the pass-through on a
copied qwen3 folder flagged multimodal.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from conftest import MODELS_DIR, SHIPPED_MODELS
from tito.adapters.app import create_app
from tito.models import ModelRegistry, load_model, reset_registry
from tito.models.multimodal import is_multimodal
from tito.models.served import read_model_spec

IMAGE = {"type": "image_url", "image_url": {"url": "https://example.invalid/cat.png",
                                            "detail": "low"}}
AUDIO = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
TEXT = {"type": "text", "text": "What is this?"}
NOT_MM = {"message": "text is not a multimodal model", "type": "BadRequestError", "param": None,
          "code": 400}


def _copy(tmp_path: Path, name: str, tito: dict, config: dict | None = None) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(MODELS_DIR / "qwen3" / file, folder / file)
    qwen3 = json.loads((MODELS_DIR / "qwen3" / "tito.json").read_text())
    (folder / "tito.json").write_text(json.dumps({**qwen3, **tito, "served_model_name": name}))
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    return folder


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """qwen3 three times: text-only (``text``), flagged multimodal in tito.json (``mm``), and a
    Qwen2-VL config.json overridden to text-only (``vl-off``)."""
    tmp = tmp_path_factory.mktemp("mm")
    vl = {"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl",
          "max_position_embeddings": 40960}
    models = [load_model(_copy(tmp, "text", {})), load_model(_copy(tmp, "mm", {"multimodal": True})),
              load_model(_copy(tmp, "vl-off", {"multimodal": False}, vl))]
    reset_registry(ModelRegistry(models, default="text"))
    try:
        yield TestClient(create_app())
    finally:
        reset_registry()


def _chat(client: TestClient, model: str, content: list) -> tuple[int, dict]:
    r = client.post("/v1/chat/completions/render",
                    json={"model": model, "messages": [{"role": "user", "content": content}]})
    return r.status_code, r.json()


# -- the flag ----------------------------------------------------------------------------------


@pytest.mark.parametrize("config, params, expected", [
    (None, None, False),
    ({"architectures": ["Qwen3ForCausalLM"], "vocab_size": 151936}, None, False),
    ({"architectures": ["GptOssForCausalLM"]}, None, False),
    ({"architectures": ["Qwen2_5_VLForConditionalGeneration"]}, None, True),
    ({"architectures": ["LlavaForConditionalGeneration"], "text_config": {}}, None, True),
    ({"architectures": ["WhisperForConditionalGeneration"]}, None, True),
    ({"architectures": ["NewVisionModel"], "vision_config": {"hidden_size": 8}}, None, True),
    ({"architectures": ["NewAudioModel"], "audio_config": {"d_model": 8}}, None, True),
    ({"architectures": "LlavaForConditionalGeneration"}, None, False),  # not a list: ignored
    ({"vision_config": None}, None, False),
    # Mistral's params.json, as vLLM's mistral config adapter reads it (Pixtral, Voxtral)
    (None, {"dim": 8, "vision_encoder": {"hidden_size": 8}}, True),
    (None, {"dim": 8, "multimodal": {"vision_encoder_args": {"hidden_size": 8}}}, True),
    (None, {"dim": 8, "multimodal": {"whisper_model_args": {"encoder_args": {"dim": 8}}}}, True),
    (None, {"dim": 8, "multimodal": {"whisper_model_args": {}}}, False),
])
def test_flag_derived_as_vllm(config: dict | None, params: dict | None, expected: bool) -> None:
    # the architecture names are vLLM 0.33's registry (_MULTIMODAL_MODELS / text models)
    assert is_multimodal(config, params) is expected


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_embedded_models_are_text_only(name: str) -> None:
    assert read_model_spec(MODELS_DIR / name).config.multimodal is False


def test_flag_from_config_json_and_tito_json(tmp_path: Path) -> None:
    vl = {"architectures": ["Qwen2VLForConditionalGeneration"], "max_position_embeddings": 4096}
    assert read_model_spec(_copy(tmp_path, "a", {}, vl)).config.multimodal is True
    assert read_model_spec(_copy(tmp_path, "b", {"multimodal": False}, vl)).config.multimodal is False
    assert read_model_spec(_copy(tmp_path, "c", {"multimodal": True})).config.multimodal is True


def test_flag_must_be_a_boolean(tmp_path: Path) -> None:
    from tito.models import ModelLoadError

    with pytest.raises(ModelLoadError, match="multimodal"):
        read_model_spec(_copy(tmp_path, "bad", {"multimodal": "yes"}))


# -- a text-only model: vLLM 0.33's 400 --------------------------------------------------------


@pytest.mark.parametrize("content", [
    [IMAGE], [TEXT, IMAGE], [AUDIO],
    [{"type": "audio_url", "audio_url": {"url": "data:audio/wav;base64,UklGRg=="}}],
    [{"type": "video_url", "video_url": {"url": "https://example.invalid/a.mp4"}}],
    [{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}],
    [{"image_url": {"url": "https://example.invalid/cat.png"}}],  # type inferred from the key
    [IMAGE, {"type": "bogus"}],  # the first media part is refused before a later bad part
])
def test_text_only_model_refuses_media(client: TestClient, content: list) -> None:
    assert _chat(client, "text", content) == (400, {"error": NOT_MM})


def test_embeds_get_vllms_other_message(client: TestClient) -> None:
    status, body = _chat(client, "text", [{"type": "image_embeds", "image_embeds": "AAAA"}])
    assert status == 400 and body["error"]["message"] == "The model is not multimodal."


def test_config_json_override_refuses_too(client: TestClient) -> None:
    status, body = _chat(client, "vl-off", [IMAGE])
    assert status == 400 and body["error"]["message"] == "vl-off is not a multimodal model"


def test_bad_parts_before_media_and_bad_media_keep_their_errors(client: TestClient) -> None:
    status, body = _chat(client, "text", [{"type": "bogus"}, IMAGE])
    assert status == 400 and "Unsupported chat content part type: 'bogus'" in body[
        "error"]["message"] and body["error"]["param"] == "type"  # vLLM 0.33's words
    # a media part without its payload: a text-only model refuses the media part before it
    # reads the payload (vLLM 0.33, render_untyped_parts_errors), a multimodal one the part
    status, body = _chat(client, "text", [{"type": "image_url"}])
    assert (status, body) == (400, {"error": NOT_MM})
    status, body = _chat(client, "mm", [{"type": "image_url"}])
    assert status == 400 and body["error"]["param"] == "messages[0].content[0]"


def test_every_chat_route_refuses(client: TestClient) -> None:
    # (a Responses message takes input_* parts only: a chat text part is the schema's 400)
    media = [{"type": "input_text", "text": "What is this?"},
             {"type": "input_image", "image_url": "https://example.invalid/cat.png", "detail": "auto"}]
    r = client.post("/v1/responses/render",
                    json={"model": "text", "input": [{"role": "user", "content": media}]})
    assert (r.status_code, r.json()) == (400, {"error": NOT_MM})
    claude = {"type": "image", "source": {"type": "url", "url": "https://example.invalid/a.png"}}
    r = client.post("/v1/messages/render", json={
        "model": "text", "max_tokens": 8, "messages": [{"role": "user", "content": [claude]}]})
    assert (r.status_code, r.json()) == (400, {"error": NOT_MM})
    r = client.post("/tokenize", json={"model": "text",
                                       "messages": [{"role": "user", "content": [IMAGE]}]})
    assert (r.status_code, r.json()) == (400, {"error": NOT_MM})


def test_text_parts_still_render_on_a_text_only_model(client: TestClient) -> None:
    status, body = _chat(client, "text", [TEXT, {"type": "refusal", "refusal": "No."}])
    assert status == 200 and body["content_parts"] is None


# -- a multimodal model: content_parts ---------------------------------------------------------


def test_multimodal_model_gets_content_parts_untouched(client: TestClient) -> None:
    status, out = _chat(client, "mm", [TEXT, IMAGE, AUDIO])
    assert status == 200, out
    assert out["content_parts"] == [IMAGE, AUDIO]
    status, text_only = _chat(client, "text", [TEXT])
    # the qwen3 template's string format drops media placeholders: the same prompt ids
    assert status == 200 and out["token_ids"] == text_only["token_ids"]
    r = client.post("/v1/messages/render", json={
        "model": "mm", "max_tokens": 8, "messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://example.invalid/a.png"}},
            {"type": "text", "text": "What is this?"}]}]})
    assert r.status_code == 200
    assert r.json()["content_parts"] == [{"type": "image_url",
                                          "image_url": {"url": "https://example.invalid/a.png"}}]
