"""Plain Hugging Face folders (no tito.json): defaults as vLLM derives them, tito.json validation,
``tito serve --model``, broken folders reported by name."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, post

from conftest import MODELS_DIR, ROOT
from tito.adapters import serve as serve_cli
from tito.adapters.app import create_app
from tito.models import ModelLoadError, ModelRegistry, load_model, reset_registry
from tito.models import hf

IM_END, ENDOFTEXT = 151645, 151643

#: Qwen3-0.6B's config.json and generation_config.json (the keys that matter here).
QWEN3_CONFIG = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                "max_position_embeddings": 40960, "vocab_size": 151936, "eos_token_id": IM_END,
                "bos_token_id": ENDOFTEXT, "rope_scaling": None}
QWEN3_GENERATION = {"bos_token_id": ENDOFTEXT, "do_sample": True, "eos_token_id": [IM_END, ENDOFTEXT],
                    "pad_token_id": ENDOFTEXT, "temperature": 0.6, "top_k": 20, "top_p": 0.95}


def hf_folder(tmp_path: Path, name: str = "Qwen3-0.6B", *, config=QWEN3_CONFIG,
              generation=QWEN3_GENERATION, src: str = "qwen3") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(MODELS_DIR / src / file, folder / file)
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    if generation is not None:
        (folder / "generation_config.json").write_text(json.dumps(generation))
    return folder


def test_plain_hf_folder_is_served_without_tito_json(tmp_path: Path) -> None:
    model = load_model(hf_folder(tmp_path))
    assert model.name == "Qwen3-0.6B"
    assert model.max_model_len == 40960
    assert model.config.vocab_size == 151936  # padded: more than the tokenizer's 151,669
    assert model.vocab.size == 151669
    assert model.vocab.eos_token_id == IM_END and model.vocab.extra_eos_token_ids == (ENDOFTEXT,)
    # vLLM's --generation-config auto: sampling defaults from generation_config.json
    assert model.config.default_sampling_params == {"temperature": 0.6, "top_k": 20, "top_p": 0.95}
    assert model.tool_parser is None and model.reasoning_parser is None


def test_hf_defaults_in_render_and_derender(tmp_path: Path) -> None:
    model = load_model(hf_folder(tmp_path), {"served_model_name": "q"})
    reset_registry(ModelRegistry([model], default=""))
    try:
        client = TestClient(create_app(), raise_server_exceptions=False)
        body = {"model": "q", "messages": [{"role": "user", "content": "hi"}]}
        rendered = post(client, "/v1/chat/completions/render", body)
        sp = rendered["sampling_params"]
        assert (sp["temperature"], sp["top_k"], sp["top_p"]) == (0.6, 20, 0.95)
        assert sp["max_tokens"] == 40960 - len(rendered["token_ids"])
        hello = model.vocab.encode("Hello")
        # the generation-config EOS <|endoftext|> ends the choice and is not content
        out = post(client, "/v1/chat/completions/derender", {
            "model": "q", "chat_request": body,
            "generate_response": generate_response([*hello, ENDOFTEXT], finish_reason="stop")})
        assert out["choices"][0]["message"]["content"] == "Hello"
        models = client.get("/v1/models").json()["data"]
        assert [(m["id"], m["max_model_len"]) for m in models] == [("q", 40960)]
    finally:
        reset_registry()


#: Configs and the max_model_len vLLM 0.33's ``_get_and_verify_max_len`` derives for them
#: (recorded with /work/vllm-venv: AutoConfig.for_model + ModelArchConfigConvertorBase).
VLLM_MAX_LEN = {
    "qwen3": ({"model_type": "qwen3", "max_position_embeddings": 40960}, {"model_max_length": 131072}, 40960),
    "llama31": ({"model_type": "llama", "max_position_embeddings": 131072,
                 "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                  "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
                {"model_max_length": 131072}, 131072),
    "linear2": ({"model_type": "llama", "max_position_embeddings": 4096,
                 "rope_scaling": {"type": "linear", "factor": 2.0}}, {}, 8192),
    "yarn": ({"model_type": "qwen2", "max_position_embeddings": 32768,
              "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}},
             {}, 32768),
    "gpt2": ({"model_type": "gpt2", "n_positions": 1024, "n_ctx": 1024}, {"model_max_length": 1024}, 1024),
    "tokenizer_caps": ({"model_type": "llama", "max_position_embeddings": 8192}, {"model_max_length": 4096}, 4096),
    "tokenizer_unset": ({"model_type": "llama", "max_position_embeddings": 8192}, {"model_max_length": 1e30}, 8192),
    "no_key": ({"model_type": "llama"}, {}, 2048),
    "gemma3": ({"model_type": "gemma3", "text_config": {
        "model_type": "gemma3_text", "max_position_embeddings": 131072,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}}, {}, 131072),
}


@pytest.mark.parametrize("case", sorted(VLLM_MAX_LEN))
def test_max_model_len_as_vllm(case: str) -> None:
    config, tokenizer_config, expected = VLLM_MAX_LEN[case]
    assert hf.max_model_len(config, tokenizer_config) == expected


def test_max_model_len_from_tokenizer_config_alone(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path, config=None, generation=None)
    tok = json.loads((folder / "tokenizer_config.json").read_text())
    assert tok["model_max_length"] == 131072
    model = load_model(folder)
    assert model.max_model_len == 131072
    assert model.config.vocab_size == model.vocab.size  # no config.json: the tokenizer's size
    assert model.vocab.extra_eos_token_ids == ()


def test_eos_from_config_json_without_generation_config(tmp_path: Path) -> None:
    model = load_model(hf_folder(tmp_path, config={**QWEN3_CONFIG, "eos_token_id": [IM_END, ENDOFTEXT]},
                                 generation=None))
    assert model.vocab.all_eos_ids == {IM_END, ENDOFTEXT}


def test_missing_tokenizer_eos_is_derived_from_generation_config(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path, generation={"eos_token_id": [ENDOFTEXT, IM_END]})
    tok = json.loads((folder / "tokenizer_config.json").read_text())
    del tok["eos_token"]
    (folder / "tokenizer_config.json").write_text(json.dumps(tok))
    model = load_model(folder)
    assert model.vocab.eos_token_id == ENDOFTEXT and model.vocab.extra_eos_token_ids == (IM_END,)


def test_no_eos_anywhere_is_refused(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path, config={"max_position_embeddings": 1024}, generation=None, src="gpt2")
    tok = json.loads((folder / "tokenizer_config.json").read_text())
    del tok["eos_token"]
    (folder / "tokenizer_config.json").write_text(json.dumps(tok))
    with pytest.raises(ModelLoadError, match=r"Qwen3-0\.6B: no EOS token"):
        load_model(folder)
    (folder / "tito.json").write_text('{"extra_eos_token_ids": [50256]}')
    assert load_model(folder).vocab.eos_token_id == 50256


@pytest.mark.parametrize(
    ("tito_json", "match"),
    [
        ({"max_model_len": 8, "tool_parsr": "hermes"}, r"unknown key\(s\) tool_parsr"),
        ({"tool_parser": "no_such_parser"}, r"unknown tool_parser 'no_such_parser'"),
        ({"reasoning_parser": "nope"}, r"unknown reasoning_parser 'nope'"),
        ({"max_model_len": "8"}, "invalid tito.json"),
        ({"tool_strict_level": "strict"}, "invalid tito.json"),  # vLLM's three levels only
        # vLLM's --reasoning-effort-map: its efforts as keys, strings as values
        ({"reasoning_effort_map": {"turbo": "high"}}, "reasoning_effort_map.turbo"),
        ({"reasoning_effort_map": {"none": 0}}, "reasoning_effort_map.none"),
        ({"reasoning_effort_map": ["none"]}, "reasoning_effort_map"),
        ({"chat_template_content_format": "list"}, "chat_template_content_format"),
        ({"anthropic_disabled_thinking_effort": "minimal"}, "anthropic_disabled_thinking"),
    ],
)
def test_tito_json_validated_at_load(tmp_path: Path, tito_json: dict, match: str) -> None:
    folder = hf_folder(tmp_path, "my-model")
    (folder / "tito.json").write_text(json.dumps(tito_json))
    with pytest.raises(ModelLoadError, match=match) as info:
        load_model(folder)
    assert str(folder) in str(info.value)


def test_tito_json_overrides_derived_values(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path)
    (folder / "tito.json").write_text(json.dumps(
        {"max_model_len": 4096, "tool_parser": "hermes", "reasoning_parser": "qwen3",
         "extra_eos_token_ids": [], "vocab_size": 151680}))
    model = load_model(folder)
    assert (model.max_model_len, model.tool_parser, model.reasoning_parser) == (4096, "hermes", "qwen3")
    assert model.vocab.extra_eos_token_ids == () and model.config.vocab_size == 151680


@pytest.mark.parametrize(
    ("file", "content", "match"),
    [
        ("config.json", "[1]", "config.json must hold a JSON object"),
        ("generation_config.json", "{", "cannot read generation_config.json"),
        ("generation_config.json", '{"eos_token_id": "x"}', "eos_token_id must be a token id"),
        ("generation_config.json", '{"eos_token_id": [999999999]}', "outside the vocabulary"),
    ],
)
def test_bad_hf_files_named(tmp_path: Path, file: str, content: str, match: str) -> None:
    folder = hf_folder(tmp_path)
    (folder / file).write_text(content)
    with pytest.raises(ModelLoadError, match=match):
        load_model(folder)


# -- tito serve -----------------------------------------------------------------------------------


def test_serve_model_flags_build_one_model(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path)
    args = serve_cli.build_parser().parse_args(
        ["--model", str(folder), "--served-model-name", "qwen", "--tool-call-parser", "hermes",
         "--reasoning-parser", "qwen3", "--enable-auto-tool-choice", "--max-model-len", "8192",
         "--tool-strict-level", "parameter", "--reasoning-effort-map", '{"none": "no_think"}',
         "--chat-template-content-format", "openai", "--anthropic-disabled-thinking-effort", "low",
         "--trust-request-mm-kwargs", "--exclude-tools-when-tool-choice-none",
         "--generation-config", "vllm",
         "--override-generation-config", '{"top_k": 20, "max_new_tokens": 64}'])
    try:
        registry = serve_cli.load(args)
        model = registry.get("qwen")
        assert registry.names() == ["qwen"] and registry.default_name == "qwen"
        assert (model.tool_parser, model.reasoning_parser, model.max_model_len) == ("hermes", "qwen3", 8192)
        assert model.config.tool_strict_level == "parameter"
        assert model.config.reasoning_effort_map == {"none": "no_think"}
        assert model.config.chat_template_content_format == "openai"
        assert model.config.anthropic_disabled_thinking_effort == "low"
        assert model.config.trust_request_mm_kwargs is True
        assert model.config.exclude_tools_when_tool_choice_none is True
        # vLLM's neutral defaults, the override over them; max_new_tokens as max_tokens
        assert model.config.default_sampling_params == {"top_k": 20, "max_tokens": 64}
    finally:
        reset_registry()


def test_serve_empty_parser_names_are_none(tmp_path: Path) -> None:
    """vLLM's ``--reasoning-parser`` defaults to ``""`` (no parser), and an empty
    ``--tool-call-parser`` names none either: tito refused them as unknown parser names."""
    folder = hf_folder(tmp_path)
    args = serve_cli.build_parser().parse_args(
        ["--model", str(folder), "--reasoning-parser", "", "--tool-call-parser", ""])
    try:
        model = serve_cli.load(args).get(folder.name)
        assert (model.tool_parser, model.reasoning_parser) == (None, None)
    finally:
        reset_registry()


def test_generation_config_folder_and_bad_values(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``generation_config`` may name another folder (relative to the model's) holding a
    ``generation_config.json``, as vLLM's ``--generation-config DIR``; one without it is a
    load error naming it. Sampling fields of the wrong type are not taken."""
    folder = hf_folder(tmp_path)
    other = tmp_path / "gen"
    other.mkdir()
    (other / "generation_config.json").write_text(json.dumps(
        {"temperature": 0.3, "top_k": True, "top_p": "0.9", "skip_special_tokens": False,
         "max_new_tokens": 12}))
    (folder / "tito.json").write_text(json.dumps({"generation_config": "../gen"}))
    model = load_model(folder)
    assert model.config.default_sampling_params == {
        "temperature": 0.3, "max_tokens": 12, "skip_special_tokens": False}
    # (on the command line a folder is named from the working directory)
    monkeypatch.chdir(tmp_path)
    args = serve_cli.build_parser().parse_args(
        ["--model", str(folder), "--generation-config", "gen"])
    assert args.generation_config == str(other.resolve())
    (folder / "tito.json").write_text(json.dumps({"generation_config": "nowhere"}))
    with pytest.raises(ModelLoadError, match="generation_config 'nowhere' holds no"):
        load_model(folder)


def test_chat_template_setting_file_inline_and_bad_path(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``--chat-template`` / ``chat_template`` as vLLM's: a file (from the working directory
    on the command line, the model folder in tito.json), else the template itself when it
    holds ``{``, ``}`` or a newline; a path that does not open is a load error."""
    folder = hf_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.jinja").write_text("{{ messages[0]['content'] }}!")
    args = serve_cli.build_parser().parse_args(["--model", str(folder),
                                                "--chat-template", "mine.jinja"])
    try:
        model = serve_cli.load(args).get(folder.name)
        assert model.chat_template == "{{ messages[0]['content'] }}!"
        assert model.chat_templates == {"default": model.chat_template}
    finally:
        reset_registry()
    inline = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    (folder / "tito.json").write_text(json.dumps({"chat_template": inline}))
    assert load_model(folder).chat_template == inline
    (folder / "tito.json").write_text(json.dumps({"chat_template": "missing.jinja"}))
    with pytest.raises(ModelLoadError, match="'missing.jinja' looks like a file path"):
        load_model(folder)


def test_serve_trust_request_chat_template(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``--trust-request-chat-template`` (vLLM's flag) lets a request bring its own template;
    without it the request is vLLM's 400."""
    import uvicorn

    folder = hf_folder(tmp_path)
    body = {"model": folder.name, "messages": [{"role": "user", "content": "hi"}],
            "chat_template": "{{ messages[0]['content'] }}!"}
    for flags, status in (([], 400), (["--trust-request-chat-template"], 200)):
        # (recorded first, so the value main sets is undone after the test)
        monkeypatch.setenv("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "")
        apps: list = []
        monkeypatch.setattr(uvicorn, "run", lambda app, **_: apps.append(app))
        try:
            assert serve_cli.main(["--model", str(folder), *flags, "--port", "1"]) == 0
            got = TestClient(apps[0]).post("/v1/chat/completions/render", json=body)
            assert got.status_code == status, got.text
        finally:
            reset_registry()
    assert got.json()["token_ids"] == load_model(folder).vocab.encode("hi!")


@pytest.mark.parametrize(("key", "name", "why"), [
    ("tool_parser", "hf", "response_template"), ("reasoning_parser", "minicpmv", "rewrites"),
    ("tool_parser", "minimax_m3", "reasoning parser is implemented")])
def test_a_vllm_parser_tito_lacks_is_named_as_such(tmp_path: Path, key: str, name: str,
                                                  why: str) -> None:
    """A vLLM 0.33 parser name tito does not implement is a load error saying so and why,
    not the unknown-name error a typo gets."""
    folder = hf_folder(tmp_path)
    (folder / "tito.json").write_text(json.dumps({key: name}))
    with pytest.raises(ModelLoadError, match=f"{key} '{name}' is vLLM's, not implemented in "
                       f"tito: .*{why}"):
        load_model(folder)


#: vLLM 0.33's render server started ``--served-model-name qwen3 qwen`` (session 54 probe, a
#: qwen3 folder): every name serves the model, a card each in the given order, answers echo the
#: name asked for, none asked is the first, an unknown one the 404 naming them all
ALIAS_404 = "The model `other` does not exist. Valid aliases: qwen3, qwen."


def test_served_model_name_aliases(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path)
    args = serve_cli.build_parser().parse_args(
        ["--model", str(folder), "--served-model-name", "qwen3", "qwen"])
    try:
        registry = serve_cli.load(args)
        model = registry.get("qwen")
        assert model is registry.get("qwen3") is registry.default and model.name == "qwen3"
        assert len(registry) == 1 and list(registry) == [model]
        assert [c["id"] for c in registry.list_models()["data"]] == ["qwen3", "qwen"]
        client = TestClient(create_app(), raise_server_exceptions=False)
        user = [{"role": "user", "content": "hi"}]
        out = {}
        for name in ("qwen", None, "other"):
            asked = {} if name is None else {"model": name}
            got = client.post("/v1/chat/completions/derender", json={
                **asked, "chat_request": {**asked, "messages": user}, "prompt_token_ids": [1],
                "generate_response": generate_response(model.vocab.encode("hi") + [151645])})
            out[name] = got.status_code, got.json()
        assert out["qwen"][1]["model"] == "qwen" and out[None][1]["model"] == "qwen3"
        assert out["other"][0] == 404
        assert out["other"][1]["error"]["message"] == ALIAS_404
    finally:
        reset_registry()
    (folder / "tito.json").write_text(json.dumps({"served_model_name": ["a", "a"]}))
    with pytest.raises(ModelLoadError, match="list of distinct names"):
        load_model(folder)


def _serve(*argv: str, env_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "src")}
    if env_dir is not None:
        env["TITO_MODELS_DIR"] = str(env_dir)
    return subprocess.run([sys.executable, "-m", "tito", "serve", *argv, "--port", "1"],
                          capture_output=True, text=True, timeout=120, env=env)


def test_serve_broken_model_folder_named_without_traceback(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path, "broken-one")
    (folder / "tito.json").write_text('{"tool_parser": "hermess"}')
    result = _serve("--model", str(folder))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"model folder {folder}: unknown tool_parser 'hermess'" in result.stderr
    # a directory where nothing loads: every folder named, no traceback
    result = _serve(env_dir=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "no models to serve" in result.stderr and "broken-one" in result.stderr


#: gpt-oss-20b's config.json (the keys that matter here) and generation_config.json
GPTOSS_CONFIG = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
                 "max_position_embeddings": 131072, "vocab_size": 201088}
GPTOSS_GENERATION = {"eos_token_id": [200002, 199999, 200012], "pad_token_id": 199999}


@pytest.mark.parametrize("tito_json", [None, {"reasoning_parser": None},
                                       {"reasoning_parser": ""}, {"tool_parser": "openai"}])
def test_a_gpt_oss_folder_is_harmony_without_parser_names(tmp_path: Path,
                                                          tito_json: dict | None) -> None:
    """vLLM 0.33 serves ``model_type: gpt_oss`` with the ``openai_gptoss`` reasoning parser
    when none is named (an empty flag too), so its chats render as harmony and their reasoning
    is parsed; a plain gpt-oss folder is served so by tito too."""
    folder = hf_folder(tmp_path, "gpt-oss-20b", config=GPTOSS_CONFIG,
                       generation=GPTOSS_GENERATION, src="gpt-oss")
    if tito_json is not None:
        (folder / "tito.json").write_text(json.dumps(tito_json))
    model = load_model(folder)
    assert model.config.reasoning_parser == "openai_gptoss"
    assert model.config.tool_parser == (tito_json or {}).get("tool_parser")
    reset_registry(ModelRegistry([model], default=""))
    try:
        client = TestClient(create_app(), raise_server_exceptions=False)
        body = {"model": "gpt-oss-20b", "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "f"}}],
                "tool_choice": "required"}
        rendered = post(client, "/v1/chat/completions/render", body)
        assert rendered["token_ids"][:2] == model.vocab.encode("<|start|>system")
        out = post(client, "/v1/chat/completions/derender", {
            "model": "gpt-oss-20b", "chat_request": body, "generate_response": generate_response(
                model.vocab.encode("<|channel|>analysis<|message|>Think.<|end|><|start|>assistant"
                                   "<|channel|>commentary to=functions.f <|constrain|>json"
                                   "<|message|>{}") + [200012], finish_reason="stop")})
        message = out["choices"][0]["message"]
        assert message["reasoning"] == "Think."
        # without the tool parser no call is made (vLLM's harmony parser: calls need it)
        assert bool(message.get("tool_calls")) == bool(tito_json and tito_json.get("tool_parser"))
    finally:
        reset_registry()


def test_a_gpt_oss_folder_refuses_another_reasoning_parser(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path, "gpt-oss-20b", config=GPTOSS_CONFIG,
                       generation=GPTOSS_GENERATION, src="gpt-oss")
    (folder / "tito.json").write_text(json.dumps({"reasoning_parser": "qwen3"}))
    with pytest.raises(ModelLoadError, match="gpt-oss-20b.*harmony.*'qwen3'"):
        load_model(folder)
