"""The served-model registry with the real shipped tokenizers, and the S3 source against moto."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import MODELS_DIR, SHIPPED_MODELS
from tito.errors import NotFound
from tito.models import (
    ModelConfig,
    ModelLoadError,
    ModelRegistry,
    choose_default,
    get_registry,
    load_model,
    load_registry,
    models_dirs,
    reset_registry,
    token_content,
)
from tito.models import s3 as models_s3
from tito.models.registry import checkout_models_dir


@pytest.fixture(scope="module")
def registry() -> ModelRegistry:
    return ModelRegistry.from_dir(MODELS_DIR, default="")


@pytest.fixture(autouse=True)
def _no_default_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TITO_DEFAULT_MODEL", raising=False)
    monkeypatch.delenv("TITO_MODELS_S3_URI", raising=False)


def copy_model(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copytree(MODELS_DIR / name, target)
    return target


# -- loading the shipped models -----------------------------------------------------------------


def test_all_shipped_models_load(registry: ModelRegistry) -> None:
    assert registry.names() == sorted(SHIPPED_MODELS)
    for name in SHIPPED_MODELS:
        model = registry.get(name)
        assert model.name == name
        assert model.path == MODELS_DIR / name
        assert model.vocab.size > 1000
        assert model.created == int((MODELS_DIR / name / "tokenizer.json").stat().st_mtime)


def test_eos_ids(registry: ModelRegistry) -> None:
    qwen = registry.get("qwen3")
    assert qwen.vocab.eos_token_id == 151645
    assert qwen.vocab.extra_eos_token_ids == (151643,)
    assert qwen.eos_token_ids == {151645, 151643}
    assert registry.get("mistral-v3").vocab.eos_token_id == 2
    assert registry.get("mistral-v3").eos_token_ids == {2}
    assert registry.get("gpt2").vocab.eos_token_id == 50256


def test_special_tokens_and_bos(registry: ModelRegistry) -> None:
    mistral = registry.get("mistral-v3")
    assert mistral.special_tokens == {"bos_token": 1, "eos_token": 2, "unk_token": 0}
    assert mistral.bos_token == "<s>" and mistral.vocab.bos_token_id == 1
    assert mistral.add_bos_token is True
    assert mistral.vocab.tokenizer.encode("hi", add_special_tokens=True).ids[0] == 1
    qwen = registry.get("qwen3")
    assert qwen.special_tokens == {"eos_token": 151645, "pad_token": 151643}
    assert qwen.special_token_strings["eos_token"] == "<|im_end|>"
    assert qwen.bos_token is None and qwen.add_bos_token is False
    gpt2 = registry.get("gpt2")
    assert gpt2.special_tokens["bos_token"] == 50256
    assert gpt2.add_bos_token is False  # not stated: measured from the post-processor


def test_config_fields(registry: ModelRegistry) -> None:
    qwen = registry.get("qwen3")
    assert qwen.tool_parser == "hermes" and qwen.reasoning_parser == "qwen3"
    assert qwen.max_model_len == 40960 and qwen.max_logprobs == 20
    assert registry.get("mistral-v3").tool_parser == "mistral"
    assert registry.get("gpt2").max_model_len == 1024


def test_model_config_validation() -> None:
    cfg = ModelConfig.model_validate({"max_model_len": 10})
    assert cfg.served_model_name is None and cfg.max_logprobs == 20
    assert cfg.extra_eos_token_ids == [] and cfg.default_chat_template_kwargs == {}
    assert ModelConfig.model_validate({"max_model_len": 1, "max_logprobs": -1}).max_logprobs == -1
    for bad in ({}, {"max_model_len": 0}, {"max_model_len": 5, "max_logprobs": -2},
                {"max_model_len": 10, "future_key": [1]},
                {"max_model_len": "5"}, {"max_model_len": 5, "served_model_name": ""}):
        with pytest.raises(ValueError):
            ModelConfig.model_validate(bad)


def test_token_content_forms() -> None:
    assert token_content("</s>") == "</s>"
    assert token_content({"content": "</s>", "lstrip": False}) == "</s>"
    assert token_content(None) is None
    with pytest.raises(ValueError):
        token_content(3)


def test_eos_token_dict_form_and_served_name(tmp_path: Path) -> None:
    folder = copy_model("gpt2", tmp_path)
    tok_cfg = json.loads((folder / "tokenizer_config.json").read_text())
    tok_cfg["eos_token"] = {"__type": "AddedToken", "content": "<|endoftext|>", "special": True}
    (folder / "tokenizer_config.json").write_text(json.dumps(tok_cfg))
    cfg = json.loads((folder / "tito.json").read_text())
    cfg.pop("served_model_name")
    (folder / "tito.json").write_text(json.dumps(cfg))
    renamed = folder.rename(tmp_path / "my-gpt")
    model = load_model(renamed)
    assert model.name == "my-gpt"
    assert model.vocab.eos_token_id == 50256


# -- chat templates -----------------------------------------------------------------------------


def test_chat_template_from_tokenizer_config(registry: ModelRegistry) -> None:
    qwen = registry.get("qwen3")
    raw = json.loads((MODELS_DIR / "qwen3" / "tokenizer_config.json").read_text())["chat_template"]
    assert qwen.chat_template == raw
    assert "<|im_start|>" in qwen.chat_template
    # mistral-v3 ships tito's own chat_template.jinja (read from the file, not the config)
    mistral_file = (MODELS_DIR / "mistral-v3" / "chat_template.jinja").read_text()
    assert registry.get("mistral-v3").chat_template == mistral_file
    assert registry.get("gpt2").chat_template is None


def test_chat_template_jinja_file_wins(tmp_path: Path) -> None:
    folder = copy_model("gpt2", tmp_path)
    tok_cfg = json.loads((folder / "tokenizer_config.json").read_text())
    tok_cfg["chat_template"] = "FROM CONFIG"
    (folder / "tokenizer_config.json").write_text(json.dumps(tok_cfg))
    (folder / "chat_template.jinja").write_text("{{ messages[0].content }}")
    model = load_model(folder)
    assert model.chat_template == "{{ messages[0].content }}"


def test_chat_template_named_list(tmp_path: Path) -> None:
    folder = copy_model("gpt2", tmp_path)
    tok_cfg = json.loads((folder / "tokenizer_config.json").read_text())
    tok_cfg["chat_template"] = [
        {"name": "tool_use", "template": "TOOLS"},
        {"name": "default", "template": "DEFAULT"},
    ]
    (folder / "tokenizer_config.json").write_text(json.dumps(tok_cfg))
    model = load_model(folder)
    assert model.chat_template == "DEFAULT"
    assert model.chat_templates == {"tool_use": "TOOLS", "default": "DEFAULT"}


# -- broken folders -----------------------------------------------------------------------------


def test_missing_file_is_named(tmp_path: Path) -> None:
    folder = copy_model("gpt2", tmp_path)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelLoadError, match=r"gpt2.*missing tokenizer\.json"):
        load_model(folder)


@pytest.mark.parametrize(
    ("file", "content", "match"),
    [
        ("tito.json", '{"max_model_len": 0}', "invalid tito.json"),
        ("tito.json", '{"max_model_len": 8, "extra_eos_token_ids": [99999999]}', "outside the vocabulary"),
        ("tokenizer_config.json", '{"eos_token": "<no-such-token>"}', "eos_token '<no-such-token>'"),
        ("tokenizer_config.json", "{not json", "cannot read tokenizer_config.json"),
        ("tokenizer.json", '{"version": "1.0"}', "cannot load tokenizer.json"),
    ],
)
def test_broken_folder_named_at_registry_init(
    tmp_path: Path, file: str, content: str, match: str, caplog: pytest.LogCaptureFixture
) -> None:
    copy_model("gpt2", tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "tito.json"):
        shutil.copy(MODELS_DIR / "gpt2" / name, broken / name)
    (broken / "tito.json").write_text('{"max_model_len": 8}')  # served name defaults to "broken"
    (broken / file).write_text(content)
    with pytest.raises(ModelLoadError, match=match) as info:
        load_model(broken)
    assert str(broken) in str(info.value)
    # in a directory, the other folders are still served; the broken one is logged and named
    with caplog.at_level("ERROR", logger="tito.models.registry"):
        registry = ModelRegistry.from_dir(tmp_path, default="")
    assert registry.names() == ["gpt2"]
    assert list(registry.failed) == ["broken"] and str(broken) in registry.failed["broken"]
    assert any(str(broken) in r.getMessage() and not r.exc_info for r in caplog.records)
    with pytest.raises(NotFound, match="failed to load"):
        registry.get("broken")
    with pytest.raises(ModelLoadError, match="did not load"):
        ModelRegistry.from_dir(tmp_path, default="broken")
    with pytest.raises(ModelLoadError, match=match):  # strict: any broken folder stops the start
        load_registry({"TITO_MODELS_DIR": str(tmp_path), "TITO_MODELS_STRICT": "1"})


def test_only_the_default_loads_at_init_the_others_on_first_use() -> None:
    """Cold start: the init pays for the default model's tokenizer only; another model loads on
    the first request naming it, once, equal to loading its folder directly."""
    registry = ModelRegistry.from_dir(MODELS_DIR, default="")
    assert registry.default_name == "qwen3" and registry.loaded() == ["qwen3"]
    assert registry.names() == sorted(SHIPPED_MODELS) and "gpt2" in registry
    listed = registry.list_models()  # the cards come from the settings files: nothing loads
    assert registry.loaded() == ["qwen3"]
    assert [card["id"] for card in listed["data"]] == ["qwen3", "gpt-oss", "gpt2", "mistral-v3"]
    gpt2 = registry.get("gpt2")
    assert registry.loaded() == ["gpt2", "qwen3"] and registry.get("gpt2") is gpt2
    direct = load_model(MODELS_DIR / "gpt2")
    assert (gpt2.vocab.size, gpt2.vocab.eos_token_id, gpt2.config, gpt2.created) == (
        direct.vocab.size, direct.vocab.eos_token_id, direct.config, direct.created)
    assert registry.list_models() == listed  # same cards once loaded
    explicit = ModelRegistry.from_dir(MODELS_DIR, default="gpt2")
    assert explicit.loaded() == ["gpt2"] and explicit.get().name == "gpt2"


def test_broken_non_default_folder_reports_its_reason_on_first_use(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    copy_model("gpt2", tmp_path)
    broken = tmp_path / "zz-broken"  # sorts after gpt2: not the default, so not loaded at init
    shutil.copytree(MODELS_DIR / "gpt2", broken)
    (broken / "tito.json").write_text('{"max_model_len": 8}')
    (broken / "tokenizer.json").write_text('{"version": "1.0"}')
    with caplog.at_level("ERROR", logger="tito.models.registry"):
        registry = ModelRegistry.from_dir(tmp_path, default="")
        assert registry.loaded() == ["gpt2"] and registry.names() == ["gpt2", "zz-broken"]
        assert registry.failed == {}
        for _ in range(2):  # found on first use, remembered (not reloaded per request)
            with pytest.raises(NotFound, match="failed to load") as info:
                registry.get("zz-broken")
            assert info.value.status == 404 and info.value.param == "model"
    assert list(registry.failed) == ["zz-broken"]
    assert str(broken) in registry.failed["zz-broken"] and "cannot load tokenizer.json" in registry.failed["zz-broken"]
    errors = [r for r in caplog.records if str(broken) in r.getMessage()]
    assert len(errors) == 1 and errors[0].levelname == "ERROR" and not errors[0].exc_info
    assert registry.names() == ["gpt2"]
    assert [card["id"] for card in registry.list_models()["data"]] == ["gpt2"]
    with pytest.raises(NotFound, match="does not exist"):
        registry.get("zz-missing")
    with pytest.raises(ModelLoadError, match="did not load.*cannot load tokenizer.json"):
        ModelRegistry.from_dir(tmp_path, default="zz-broken")  # asked for: the start fails
    # settings files are read at init: a broken tito.json is reported before any request
    (broken / "tito.json").write_text('{"max_model_len": 8, "tool_parser": "nope"}')
    registry = ModelRegistry.from_dir(tmp_path, default="")
    assert "unknown tool_parser 'nope'" in registry.failed["zz-broken"]


def test_broken_implicit_default_is_skipped(tmp_path: Path) -> None:
    """The default is chosen among the folders that load (as when every folder loaded at init)."""
    copy_model("gpt2", tmp_path)
    copy_model("qwen3", tmp_path)
    (tmp_path / "qwen3" / "tokenizer.json").write_text("{}")
    registry = ModelRegistry.from_dir(tmp_path, default="")
    assert registry.default_name == "gpt2" and registry.loaded() == ["gpt2"]
    assert "cannot load tokenizer.json" in registry.failed["qwen3"]
    assert registry.names() == ["gpt2"]


def test_folder_with_tito_json_but_no_tokenizer_is_an_error(tmp_path: Path) -> None:
    copy_model("gpt2", tmp_path)
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "tito.json").write_text('{"max_model_len": 8}')
    (tmp_path / "notes").mkdir()  # not a model folder: ignored
    (tmp_path / "README.md").write_text("x")
    registry = ModelRegistry.from_dir(tmp_path, default="")
    assert registry.names() == ["gpt2"]
    assert re.search(r"half.*missing tokenizer\.json", registry.failed["half"])
    (tmp_path / "gpt2" / "tokenizer.json").unlink()
    with pytest.raises(ModelLoadError, match=r"(?s)no models to serve\n.*half: missing tokenizer\.json"):
        ModelRegistry.from_dir(tmp_path)


def test_duplicate_served_name(tmp_path: Path) -> None:
    copy_model("gpt2", tmp_path)
    shutil.copytree(MODELS_DIR / "gpt2", tmp_path / "gpt2-copy")  # tito.json says "gpt2" too
    with pytest.raises(ModelLoadError, match="used by both"):
        ModelRegistry.from_dir(tmp_path)


def test_empty_dir(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="no model folders"):
        ModelRegistry.from_dir(tmp_path)


# -- default model and lookup -------------------------------------------------------------------


def test_default_rules(registry: ModelRegistry, monkeypatch: pytest.MonkeyPatch) -> None:
    models = list(registry)
    assert registry.default_name == "qwen3"
    assert choose_default(["gpt2"]) == "gpt2"
    assert choose_default(["gpt2", "mistral-v3", "qwen3"]) == "qwen3"
    assert choose_default(["mistral-v3", "gpt2"]) == "gpt2"
    assert choose_default(["gpt2", "qwen3"], "gpt2") == "gpt2"
    with pytest.raises(ModelLoadError, match="TITO_DEFAULT_MODEL"):
        choose_default(["gpt2"], "nope")
    only_mistral = ModelRegistry([registry.get("mistral-v3")], default="")
    assert only_mistral.default_name == "mistral-v3"
    no_qwen = ModelRegistry([registry.get("mistral-v3"), registry.get("gpt2")], default="")
    assert no_qwen.default_name == "gpt2"
    monkeypatch.setenv("TITO_DEFAULT_MODEL", "mistral-v3")
    assert ModelRegistry(models).default_name == "mistral-v3"
    assert ModelRegistry(models, default="gpt2").default_name == "gpt2"  # explicit wins
    monkeypatch.setenv("TITO_DEFAULT_MODEL", "unknown")
    with pytest.raises(ModelLoadError, match="unknown"):
        ModelRegistry(models)


def test_get(registry: ModelRegistry) -> None:
    assert registry.get(None).name == "qwen3"
    assert registry.get("").name == "qwen3"
    assert registry.get("gpt2").name == "gpt2"
    assert registry.default is registry.get()
    assert "gpt2" in registry and "nope" not in registry and len(registry) == len(SHIPPED_MODELS)


def test_not_found_wording(registry: ModelRegistry) -> None:
    with pytest.raises(NotFound) as info:
        registry.get("gpt-4o")
    # vLLM 0.33's words: the served names follow
    assert info.value.message == ("The model `gpt-4o` does not exist. Valid aliases: "
                                  f"{', '.join(registry._specs)}.")
    assert info.value.param == "model"
    assert info.value.status == 404 and info.value.type == "NotFoundError"


def test_list_models_shape(registry: ModelRegistry) -> None:
    body = registry.list_models()
    assert body["object"] == "list"
    assert [card["id"] for card in body["data"]] == ["qwen3", "gpt-oss", "gpt2", "mistral-v3"]  # default first
    for card in body["data"]:
        model = registry.get(card["id"])
        assert card["object"] == "model"
        assert card["owned_by"] == "tito"
        assert card["root"] == card["id"]
        assert card["parent"] is None
        assert card["created"] == model.created
        assert card["max_model_len"] == model.max_model_len
        assert card["permission"][0]["object"] == "model_permission"
    assert json.loads(json.dumps(body)) == body
    assert registry.list_models() == body  # stable


# -- process-wide registry and environment ------------------------------------------------------


def test_models_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert checkout_models_dir() == MODELS_DIR
    assert models_dirs({"TITO_MODELS_DIR": str(tmp_path)}) == [tmp_path]
    import os

    assert models_dirs({"TITO_MODELS_DIR": f"{tmp_path}{os.pathsep}{MODELS_DIR}"}) == [tmp_path, MODELS_DIR]
    with pytest.raises(ModelLoadError, match="TITO_MODELS_DIR"):
        models_dirs({"TITO_MODELS_DIR": str(tmp_path / "missing")})
    if not Path("/opt/models").is_dir():
        assert models_dirs({}) == [MODELS_DIR]  # the checkout fallback


def test_get_registry_is_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy_model("gpt2", tmp_path)
    monkeypatch.setenv("TITO_MODELS_DIR", str(tmp_path))
    reset_registry()
    try:
        first = get_registry()
        assert first.names() == ["gpt2"] and first.default_name == "gpt2"
        assert get_registry() is first
        reset_registry()
        assert get_registry() is not first
    finally:
        reset_registry()


# -- S3 (moto) ----------------------------------------------------------------------------------

BUCKET = "tito-models-test"
GPT2_FILES = ("tokenizer.json", "tokenizer_config.json", "tito.json")


@pytest.fixture
def s3_client():
    moto = pytest.importorskip("moto")
    import boto3

    with moto.mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


def upload_gpt2(client, prefix: str, name: str = "gpt2-s3") -> None:
    for file in GPT2_FILES:
        body = (MODELS_DIR / "gpt2" / file).read_bytes()
        if file == "tito.json":
            cfg = json.loads(body)
            cfg["served_model_name"] = name
            body = json.dumps(cfg).encode()
        client.put_object(Bucket=BUCKET, Key=f"{prefix}/{name}/{file}", Body=body)


def test_s3_models_load_next_to_layer(s3_client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layer = tmp_path / "layer"
    layer.mkdir()
    copy_model("gpt2", layer)  # one local model keeps the test fast; the rules are the same
    upload_gpt2(s3_client, "models")
    s3_client.put_object(Bucket=BUCKET, Key="models/README.md", Body=b"not a model")  # ignored
    s3_client.put_object(Bucket=BUCKET, Key="other/x/tito.json", Body=b"{}")  # outside the prefix
    env = {
        "TITO_MODELS_DIR": str(layer),
        "TITO_MODELS_S3_URI": f"s3://{BUCKET}/models",
        "TITO_MODELS_CACHE_DIR": str(tmp_path / "cache"),
    }
    calls: list[str] = []
    real_download = models_s3._download

    def counting_download(client, bucket, key, *args):
        calls.append(key)
        return real_download(client, bucket, key, *args)

    monkeypatch.setattr(models_s3, "_download", counting_download)
    registry = load_registry(env)
    assert registry.names() == ["gpt2", "gpt2-s3"]
    assert registry.default_name == "gpt2"  # no qwen3: first by name
    s3_model = registry.get("gpt2-s3")
    assert s3_model.vocab.eos_token_id == 50256
    assert s3_model.path.is_relative_to(tmp_path / "cache")
    assert sorted(calls) == sorted(f"models/gpt2-s3/{f}" for f in GPT2_FILES)

    # second cold start in the same sandbox: listing only, nothing downloaded
    calls.clear()
    again = load_registry(env)
    assert calls == []
    assert again.get("gpt2-s3").created == s3_model.created  # mtime = S3 LastModified


def test_s3_sync_cache_update_and_removal(s3_client, tmp_path: Path) -> None:
    upload_gpt2(s3_client, "p")
    uri = f"s3://{BUCKET}/p/"
    first = models_s3.sync_models(uri, tmp_path, client=s3_client)
    assert sorted(first.downloaded) == sorted(f"gpt2-s3/{f}" for f in GPT2_FILES)
    second = models_s3.sync_models(uri, tmp_path, client=s3_client)
    assert second.downloaded == [] and len(second.cached) == 3
    # a changed object (new ETag) is downloaded again; a deleted one is removed from the cache
    s3_client.put_object(Bucket=BUCKET, Key="p/gpt2-s3/tito.json", Body=b'{"max_model_len": 7}')
    s3_client.put_object(Bucket=BUCKET, Key="p/gone/tito.json", Body=b'{"max_model_len": 7}')
    models_s3.sync_models(uri, tmp_path, client=s3_client)
    s3_client.delete_object(Bucket=BUCKET, Key="p/gone/tito.json")
    third = models_s3.sync_models(uri, tmp_path, client=s3_client)
    assert third.removed == ["gone/tito.json"]
    assert not (third.local_dir / "gone").exists()
    assert load_model(third.local_dir / "gpt2-s3").max_model_len == 7


def test_s3_missing_bucket_is_an_error(s3_client, tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="cannot list"):
        models_s3.sync_models("s3://no-such-bucket/p", tmp_path, client=s3_client)


@pytest.mark.parametrize("key", ["p/../../etc/passwd", "p/m/../../x", "p//abs", "p/m/./x", "p/m\\..\\x"])
def test_s3_path_traversal_rejected(s3_client, tmp_path: Path, key: str) -> None:
    upload_gpt2(s3_client, "p")
    s3_client.put_object(Bucket=BUCKET, Key=key, Body=b"evil")
    with pytest.raises(ModelLoadError, match="not a safe relative path"):
        models_s3.sync_models(f"s3://{BUCKET}/p", tmp_path / "cache", client=s3_client)
    assert not (tmp_path / "cache").exists()  # refused before writing anything
    assert not (tmp_path / "etc").exists()


def test_s3_size_bound(s3_client, tmp_path: Path) -> None:
    upload_gpt2(s3_client, "p")
    with pytest.raises(ModelLoadError, match="TITO_MODELS_S3_MAX_BYTES"):
        models_s3.sync_models(f"s3://{BUCKET}/p", tmp_path, client=s3_client, max_bytes=1000)


@pytest.mark.parametrize("uri", ["http://x/y", "s3://", "s3:///p", "s3://b/../p"])
def test_s3_bad_uri(uri: str) -> None:
    with pytest.raises(ModelLoadError):
        models_s3.parse_s3_uri(uri)


def test_parse_s3_uri() -> None:
    assert models_s3.parse_s3_uri("s3://b") == ("b", "")
    assert models_s3.parse_s3_uri("s3://b/a/b/") == ("b", "a/b/")


def test_harmony_parsers_go_together(tmp_path):
    from tito.models.served import ModelLoadError, load_model

    folder = copy_model("gpt2", tmp_path)
    cfg = json.loads((folder / "tito.json").read_text())
    cfg.update(tool_parser="openai", reasoning_parser="qwen3")
    (folder / "tito.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelLoadError, match="harmony"):
        load_model(folder)


@pytest.mark.parametrize("key", ["tool_parser", "reasoning_parser"])
def test_hy_v4_with_suffixed_markers_is_refused(tmp_path, key):
    """vLLM 0.33's hy_v4 parsers read a per-checkpoint marker suffix (``<think:6124c78e>``) from
    the vocabulary; tito's rows know the unsuffixed markers, so such a model is refused at load
    (not misread at the first request), and one with unsuffixed markers loads."""
    from tokenizers import AddedToken, Tokenizer

    from tito.models.served import ModelLoadError, load_model

    folder = copy_model("qwen3", tmp_path)
    cfg = json.loads((folder / "tito.json").read_text())
    cfg.update({"tool_parser": None, "reasoning_parser": None, key: "hy_v4"})
    (folder / "tito.json").write_text(json.dumps(cfg))
    assert load_model(folder).config.model_dump()[key] == "hy_v4"  # Qwen3's <think>: unsuffixed
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.add_special_tokens([AddedToken("<think:6124c78e>", special=True)])
    tok.save(str(folder / "tokenizer.json"))
    with pytest.raises(ModelLoadError, match=r"suffix \(<think:6124c78e>\)"):
        load_model(folder)
