"""DeepSeek-V4.1's native chat encoding, against vLLM 0.33.0's render server.

The golden (``tests/goldens/dsv41_render_vllm.json``) is vLLM's ``/v1/chat/completions/render``
(and ``/tokenize``, ``/v1/responses/render``, ``/v1/messages/render`` for some, and
``/v1/completions/render`` with a fill-in-the-middle ``suffix``) on a folder
whose ``config.json`` names ``DeepseekV41ForCausalLM`` (Qwen3's tokenizer files, no template;
``tests/goldens/record_dsv32_render.py --model dsv41``, cases in
``tests/goldens/dsv41_render_cases.py``): vLLM renders it with DeepSeek's own encoding. tito
serves the same files and must give the same ids, or the same 400. Where vLLM fails with a 500
(its encoder asserts), tito answers 400 with the same words; where its ``/tokenize`` cannot
deep-copy a history call pydantic left lazy (a 400), tito tokenizes as the chat render does;
where it cannot load an image's data, tito (which loads no media) answers as for a loadable
image: vLLM's 400 when the prompt writes the image (the Qwen3 vocabulary lacks
``<｜deepseek_image｜>``), the prompt without it when it does not.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from native_render import check_answer, load_native, served_alone
from tito.core import render_dsv41

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN = json.loads((ROOT / "tests" / "goldens" / "dsv41_render_vllm.json").read_text())
CASES, TOKENIZE = GOLDEN["cases"], GOLDEN["tokenize"]
OTHERS = [(api, name) for api in ("responses", "messages", "completions")
          for name in sorted(GOLDEN[api])]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    yield from served_alone(load_native("dsv41", tmp_path_factory.mktemp("dsv41")), "deepseek_v41")


#: images vLLM fails to load (a 400 before it encodes); tito loads no media, so its answer is
#: that of the same request with a loadable image: (case -> that case)
UNLOADED = {"image_undecodable": "image_user",
            "image_own_content_blocks_undecodable": "image_own_content_blocks"}


def _answer_for(cases: dict, name: str) -> dict:
    """vLLM's recorded answer tito must give for ``name``: its own, or for an undecodable
    image the loadable one's."""
    return cases[UNLOADED[name]] if name in UNLOADED else cases[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_render_equals_vllms(client, name):
    r = client.post("/v1/chat/completions/render",
                    json={"model": "dsv41", **CASES[name]["request"]})
    check_answer(r, _answer_for(CASES, name), "token_ids")


@pytest.mark.parametrize("name", sorted(TOKENIZE))
def test_tokenize_equals_vllms(client, name):
    r = client.post("/tokenize", json={"model": "dsv41", **TOKENIZE[name]["request"]})
    case = _answer_for(TOKENIZE, name)
    if "cannot pickle" in str(case.get("error")):  # (vLLM's bug: tito tokenizes the chat)
        chat = _answer_for(CASES, name)
        check_answer(r, {**chat, "tokens": chat.get("token_ids")}, "tokens")
        return
    check_answer(r, case, "tokens")


def test_images_vllm_cannot_load_are_refused_or_dropped_as_loadable_ones():
    """The cases :data:`UNLOADED` stands in for: vLLM refused only the image's data."""
    for name, stand_in in UNLOADED.items():
        assert "Failed to load image" in CASES[name]["error"]["message"]
        url = re.compile(r"data:image/png;base64,[^\"]*")
        assert url.sub("", json.dumps(CASES[name]["request"])) == url.sub(
            "", json.dumps(CASES[stand_in]["request"]))


@pytest.mark.parametrize(("api", "name"), OTHERS)
def test_responses_messages_and_completions_render_equal_vllms(client, api, name):
    case = GOLDEN[api][name]
    r = client.post(f"/v1/{api}/render", json={"model": "dsv41", **case["request"]})
    check_answer(r, case, "token_ids")


def test_modes_from_kwargs():
    """Thinking on by default (effort high: 75); the efforts V4.1 knows, and the ones it
    refuses (V4's ``minimal`` / ``medium`` among them)."""
    mode = render_dsv41.mode_of
    assert mode({}) == render_dsv41.Mode(True, 75, True)
    assert mode({"reasoning_effort": "none", "thinking": True}).thinking is False
    assert [mode({"reasoning_effort": e}).effort for e in ("low", "xhigh", "max", 42)] \
        == [50, 75, 100, 42]
    for bad in ("medium", 0, 101, True, 7.5):
        with pytest.raises(render_dsv41.DsEncodingError, match="reasoning_effort must be"):
            mode({"reasoning_effort": bad})


def test_the_last_user_turn_is_found_once(monkeypatch):
    """vLLM's encoder looks for the last user turn again for every message (quadratic in the
    conversation); tito looks once (twice with the history drop), whatever the length."""
    calls = []
    real = render_dsv41._last_user
    monkeypatch.setattr(render_dsv41, "_last_user", lambda turns: calls.append(1) or real(turns))

    def lookups(n: int) -> int:
        calls.clear()
        msgs = [m for i in range(n) for m in (
            {"role": "user", "content": str(i)}, {"role": "system", "content": "s"},
            {"role": "assistant", "content": "a", "reasoning": "r"})]
        assert render_dsv41.encode(msgs, None, {}).text.count("<｜System｜>") == n + 1  # (+ effort)
        return len(calls)

    assert lookups(10) == lookups(300) == 2


@pytest.mark.parametrize("key", ("tools", "tool_calls"))
@pytest.mark.parametrize("value,words", [
    ("x", "string indices must be integers"), (5, "'int' object is not iterable"),
    ({"a": 1}, "string indices must be integers"), ([5], "'int' object is not subscriptable"),
    ([{}], "misses its 'function'"), ([{"function": 5}], None)])
def test_a_written_messages_tools_and_calls_are_read_in_openais_shape(key, value, words):
    """vLLM's encoder converts every written message's truthy ``tools`` / ``tool_calls``,
    whatever its role (a TypeError in Python's words); a user message merged into a result's
    turn is not written, so its keys are never read (the ``render_dsv41_shapes`` goldens)."""
    if key == "tools" and value == [{"function": 5}]:
        words = None  # (a tool's function is written as JSON, whatever it is)
    elif value == [{"function": 5}]:
        words = "'int' object is not subscriptable"
    msgs = [{"role": "system", "content": "s", key: value}, {"role": "user", "content": "q"}]
    if words is None:
        assert render_dsv41.encode(msgs, None, {"thinking": False}).text
    else:
        with pytest.raises(render_dsv41.DsEncodingError, match=re.escape(words)):
            render_dsv41.encode(msgs, None, {"thinking": False})
    merged = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "",
              "tool_calls": [{"function": {"name": "f", "arguments": {}}}]},
              {"role": "tool", "tool_call_id": "c", "content": "r"},
              {"role": "user", "content": "again", key: value}]
    assert "again" in render_dsv41.encode(merged, None, {"thinking": False}).text
