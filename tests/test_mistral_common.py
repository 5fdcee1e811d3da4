"""Mistral folders served through mistral-common, on every tokenizer file mistral-common ships.

Render: ids equal ``MistralTokenizer.encode_chat_completion(ChatCompletionRequest.from_openai(...))``
(what vLLM runs for ``--tokenizer-mode mistral``); a conversation the reference refuses is a 400.
Derender: content equals mistral-common's ``decode`` of the ids, batch and streamed under any
chunking. The tokenizer files are the ones in mistral-common's package data.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import SAMPLE_TEXTS, generate_response, post, stream_chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.errors import BadRequest
from tito.models import ModelLoadError, ModelRegistry, load_model, reset_registry
from tito.protocol import ChatCompletionRequest
from tito.service.render import RenderSettings, render_chat_request

mistral_common = pytest.importorskip("mistral_common")
pytest.importorskip("sentencepiece")
from mistral_common.protocol.instruct.request import ChatCompletionRequest as MCRequest  # noqa: E402
from mistral_common.protocol.instruct.validator import ValidationMode  # noqa: E402
from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy  # noqa: E402
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer  # noqa: E402

DATA = Path(mistral_common.__file__).parent / "data"
#: served name -> (package data file, the name it has in a model folder)
FILES = {
    "m-v1": ("tokenizer.model.v1", "tokenizer.model.v1"),
    "m-v2": ("mistral_instruct_tokenizer_240216.model.v2", "tokenizer.model.v2"),
    "m-v3": ("mistral_instruct_tokenizer_240323.model.v3", "tokenizer.model.v3"),
    "m-v7": ("mistral_instruct_tokenizer_241114.model.v7", "tokenizer.model.v7"),
    "m-v7m1": ("mistral_instruct_tokenizer_241114.model.v7m1", "tokenizer.model.v7m1"),
    "m-tekken-240718": ("tekken_240718.json", "tekken.json"),
    "m-tekken-240911": ("tekken_240911.json", "tekken.json"),
}

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Weather <now> & 'later' — vite",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search",
                                      "parameters": {"type": "object",
                                                     "properties": {"q": {"type": "string"}}}}},
]


def call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


CONVERSATIONS: dict[str, dict[str, Any]] = {
    "plain": dict(messages=[{"role": "user", "content": "Hello there"}]),
    "system_multi_turn": dict(messages=[
        {"role": "system", "content": "Be nice."}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello! "}, {"role": "user", "content": "  how are you?\n"}]),
    "unicode": dict(messages=[{"role": "user", "content": "héllo wörld 😀 中文 \n  code\ttab"}]),
    "text_parts": dict(messages=[{"role": "user", "content": [
        {"type": "text", "text": "part a"}, {"type": "text", "text": "part b"}]}]),
    "tools_offered": dict(tools=TOOLS, messages=[{"role": "user", "content": "Weather in Paris?"}]),
    "tool_call_and_result": dict(tools=TOOLS, messages=[
        {"role": "system", "content": "You are a bot."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None,
         "tool_calls": [call("abc123XYZ", "get_weather", {"city": "Paris"})]},
        {"role": "tool", "tool_call_id": "abc123XYZ", "content": '{"temp": 21}'},
        {"role": "assistant", "content": "It is 21C."},
        {"role": "user", "content": "And London?"}]),
    "parallel_calls": dict(tools=TOOLS, messages=[
        {"role": "user", "content": "Paris and Rome?"},
        {"role": "assistant", "content": "", "tool_calls": [
            call("aaaaaaaa1", "get_weather", {"city": "Paris"}),
            call("bbbbbbbb2", "get_weather", {"city": "Rome"})]},
        {"role": "tool", "tool_call_id": "aaaaaaaa1", "content": "20"},
        {"role": "tool", "tool_call_id": "bbbbbbbb2", "content": "25"}]),
    "long_tool_call_id": dict(tools=TOOLS, messages=[  # vLLM keeps the last 9 characters
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [call("call_0123456789abcdef", "get_weather", {"city": "X"})]},
        {"role": "tool", "tool_call_id": "call_0123456789abcdef", "content": "1"}]),
    "continue_final": dict(continue_final_message=True, add_generation_prompt=False, messages=[
        {"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi, I am"}]),
    "assistant_first_is_refused_or_fixed": dict(messages=[
        {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "hi"}]),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("mistral")
    out = {}
    for name, (data_file, folder_name) in FILES.items():
        folder = root / name
        folder.mkdir()
        shutil.copy(DATA / data_file, folder / folder_name)
        (folder / "tito.json").write_text('{"max_model_len": 32768, "tool_parser": "mistral"}')
        out[name] = load_model(folder)
    return out


@pytest.fixture(scope="module")
def references() -> dict[str, Any]:
    return {name: MistralTokenizer.from_file(str(DATA / f), mode=ValidationMode.test)
            for name, (f, _) in FILES.items()}


def reference_ids(ref: Any, case: dict[str, Any]) -> list[int]:
    messages = copy.deepcopy(case["messages"])
    for m in messages:  # vLLM's truncate_tool_call_ids
        for tc in m.get("tool_calls") or []:
            tc["id"] = tc["id"][-9:]
        if "tool_call_id" in m:
            m["tool_call_id"] = m["tool_call_id"][-9:]
    request = MCRequest.from_openai(messages=messages, tools=case.get("tools"),
                                    continue_final_message=case.get("continue_final_message", False))
    return ref.encode_chat_completion(request).tokens


@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
@pytest.mark.parametrize("name", sorted(FILES))
def test_render_equals_encode_chat_completion(name: str, conversation: str, models, references) -> None:
    case = CONVERSATIONS[conversation]
    model = models[name]
    request = ChatCompletionRequest(model=model.name, **copy.deepcopy(case))
    try:
        expected = reference_ids(references[name], case)
    except Exception:  # mistral-common refuses it (version without tools, bad order...)
        with pytest.raises(BadRequest):
            render_chat_request(request, model=model, settings=RenderSettings())
        return
    assert render_chat_request(request, model=model, settings=RenderSettings()).token_ids == expected


def test_render_cases_are_not_all_refusals(references) -> None:
    rendered = 0
    for name in FILES:
        for case in CONVERSATIONS.values():
            try:
                reference_ids(references[name], case)
                rendered += 1
            except Exception:
                pass
    assert rendered >= 50  # tools are only refused where the version has none


def test_model_facts(models, references) -> None:
    for name, model in models.items():
        raw = references[name].instruct_tokenizer.tokenizer
        assert model.vocab.size == raw.n_words and model.config.vocab_size == raw.n_words
        assert model.vocab.eos_token_id == raw.eos_id and model.vocab.bos_token_id == raw.bos_id
        assert model.chat_template is None and model.max_model_len == 32768
    assert models["m-v3"].vocab.added_tokens["[TOOL_CALLS]"] == 5
    assert models["m-tekken-240911"].vocab.added_tokens["[TOOL_CALLS]"] == 9


def test_chat_template_is_refused_as_vllm(models) -> None:
    model = models["m-v3"]
    request = ChatCompletionRequest(model=model.name, chat_template="{{ 1 }}",
                                    messages=[{"role": "user", "content": "x"}])
    with pytest.raises(BadRequest, match="not supported for Mistral"):
        render_chat_request(request, model=model, settings=RenderSettings(trust_request_chat_template=True))


# -- derender ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(models):
    reset_registry(ModelRegistry(list(models.values()), default="m-v3"))
    yield TestClient(__import__("tito.adapters.app", fromlist=["create_app"]).create_app(),
                     raise_server_exceptions=False)
    reset_registry()


def _ids(ref: Any, text: str) -> list[int]:
    return ref.instruct_tokenizer.tokenizer.encode(text, bos=False, eos=False)


def _batch(client, name: str, ids: list[int]) -> str:
    body = {"model": name, "chat_request": {"model": name, "messages": [{"role": "user", "content": "x"}]},
            "generate_response": generate_response(ids, finish_reason="stop")}
    return post(client, "/v1/chat/completions/derender", body)["choices"][0]["message"]["content"]


def _stream(client, name: str, ids: list[int], cuts: list[int]) -> str:
    chunks, start = [], 0
    for cut in sorted(set(c % (len(ids) + 1) for c in cuts)) + [len(ids)]:
        chunks.append(ids[start:cut])
        start = cut
    chunks = [c for c in chunks if c] or [[]]
    state, text = None, ""
    for k, chunk in enumerate(chunks):
        body = {"stream": True, "model": name, "stream_state": state,
                "generate_chunk": stream_chunk(chunk, finish_reason="stop" if k == len(chunks) - 1 else None)}
        if state is None:
            body["chat_request"] = {"model": name, "messages": [{"role": "user", "content": "x"}]}
        res = post(client, "/v1/chat/completions/derender", body)
        text += "".join(c["delta"].get("content") or "" for c in res["chunk"]["choices"])
        state = json.loads(json.dumps(res["stream_state"]))
    return text


@pytest.mark.parametrize("name", sorted(FILES))
def test_derender_equals_decode_batch_and_stream(name: str, client, references) -> None:
    ref = references[name]
    eos = ref.instruct_tokenizer.tokenizer.eos_id
    for text in SAMPLE_TEXTS:
        ids = _ids(ref, text)
        expected = ref.decode(ids, special_token_policy=SpecialTokenPolicy.IGNORE)
        assert _batch(client, name, [*ids, eos]) == expected
        assert _stream(client, name, [*ids, eos], [1, 2, 3, 5, 8, 13]) == expected


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["m-v3", "m-v7", "m-tekken-240911"]),
       text=st.sampled_from(SAMPLE_TEXTS), cuts=st.lists(st.integers(0, 200), max_size=8))
def test_derender_stream_any_chunking(name, text, cuts, client, references) -> None:
    ref = references[name]
    ids = _ids(ref, text)
    assert _stream(client, name, ids, cuts) == ref.decode(ids, special_token_policy=SpecialTokenPolicy.IGNORE)


def test_special_tokens_kept_when_asked(client, references) -> None:
    """skip_special_tokens=false: special tokens as their text (Tekken: mistral-common's KEEP)."""
    ref = references["m-tekken-240911"]
    ids = [9, *_ids(ref, '[{"name": "f", "arguments": {}}]')]
    body = {"model": "m-tekken-240911", "generate_response": generate_response(ids, finish_reason="length"),
            "chat_request": {"model": "m-tekken-240911", "skip_special_tokens": False,
                             "messages": [{"role": "user", "content": "x"}]}}
    content = post(client, "/v1/chat/completions/derender", body)["choices"][0]["message"]["content"]
    assert content == ref.decode(ids, special_token_policy=SpecialTokenPolicy.KEEP)


@pytest.mark.parametrize("name", ["m-v3", "m-tekken-240911"])
def test_detokenize_ids_past_the_vocabulary_are_a_400(name: str, client, references) -> None:
    """mistral-common has no padded rows: vLLM 0.33's ``/detokenize`` of an id past its vocabulary
    fails (its 500, "piece id is out of range"; goldens ``tokens_ids``), tito's is a 400; an id
    past int32 is SentencePiece's own 400 there."""
    size = references[name].instruct_tokenizer.tokenizer.n_words
    assert client.post("/detokenize", json={"model": name, "tokens": [size - 1]}).status_code == 200
    for token_id in (size, 2**31 - 1, 2**31, 2**40):
        resp = client.post("/detokenize", json={"model": name, "tokens": [5, token_id]})
        assert resp.status_code == 400, (token_id, resp.text)
        assert resp.json()["error"]["type"] == "BadRequestError"


# -- loading ---------------------------------------------------------------------------------------


def test_missing_mistral_common_is_a_load_error_naming_the_extra(tmp_path: Path, monkeypatch) -> None:
    import builtins

    folder = tmp_path / "m"
    folder.mkdir()
    shutil.copy(DATA / "tokenizer.model.v1", folder / "tokenizer.model.v1")
    real_import = builtins.__import__

    def no_mistral(name, *args, **kwargs):
        if name.startswith("mistral_common"):
            raise ImportError("No module named 'mistral_common'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mistral)
    with pytest.raises(ModelLoadError, match=r"m: cannot load tokenizer\.model\.v1: .*tito\[mistral\]"):
        load_model(folder)


def test_padded_rows_decode_to_nothing_and_past_them_is_a_400(tmp_path: Path, references) -> None:
    """A mistral-common model's ``vocab_size`` (tito.json) bounds derender as for HF folders."""
    folder = tmp_path / "padded"
    folder.mkdir()
    shutil.copy(DATA / "mistral_instruct_tokenizer_240323.model.v3", folder / "tokenizer.model.v3")
    (folder / "tito.json").write_text('{"max_model_len": 100, "vocab_size": 32800}')
    model = load_model(folder)
    assert model.vocab.size == 32768 and model.vocab_size == 32800
    reset_registry(ModelRegistry([model], default="padded"))
    try:
        app = TestClient(__import__("tito.adapters.app", fromlist=["create_app"]).create_app(),
                         raise_server_exceptions=False)
        hello = _ids(references["m-v3"], "Hello")
        assert _batch(app, "padded", [*hello, 32768, 32799]) == "Hello"  # padded rows: ""
        body = {"model": "padded", "chat_request": {"model": "padded", "messages": [
            {"role": "user", "content": "x"}]},
            "generate_response": generate_response([*hello, 32800], finish_reason="stop")}
        answer = app.post("/v1/chat/completions/derender", json=body)
        assert answer.status_code == 400, answer.text
        assert "32800" in answer.json()["error"]["message"]
    finally:
        reset_registry()


def test_tokenizer_mode(tmp_path: Path) -> None:
    folder = tmp_path / "both"
    folder.mkdir()
    shutil.copy(DATA / "mistral_instruct_tokenizer_240323.model.v3", folder / "tokenizer.model.v3")
    repo_models = Path(__file__).resolve().parents[1] / "layers" / "tokenizer" / "models"
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(repo_models / "mistral-v3" / f, folder / f)
    (folder / "tito.json").write_text('{"max_model_len": 100}')
    assert load_model(folder).chat_template is None  # auto: mistral-common
    (folder / "tito.json").write_text('{"max_model_len": 100, "tokenizer_mode": "hf"}')
    assert load_model(folder).vocab.tokenizer is not None
    os.remove(folder / "tokenizer.model.v3")
    (folder / "tito.json").write_text('{"max_model_len": 100, "tokenizer_mode": "mistral"}')
    with pytest.raises(ModelLoadError, match="tokenizer_mode mistral needs"):
        load_model(folder)
