"""DeepSeek-V3.2's native chat encoding, against vLLM 0.33.0's render server.

The golden (``tests/goldens/dsv32_render_vllm.json``) is vLLM's ``/v1/chat/completions/render``
on a folder whose ``config.json`` names ``DeepseekV32ForCausalLM`` (Qwen3's tokenizer files, no
chat template; ``tests/goldens/record_dsv32_render.py``): vLLM renders it with DeepSeek's own
encoding. tito serves the same files and must give the same ids, or the same 400.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from native_render import load_native, native_folder, read_counter, served_alone
from tito.core import render_dsv32

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN = json.loads((ROOT / "tests" / "goldens" / "dsv32_render_vllm.json").read_text())
CASES = GOLDEN["cases"]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    yield from served_alone(load_native("dsv32", tmp_path_factory.mktemp("dsv32")), "deepseek_v32")


@pytest.mark.parametrize("name", sorted(CASES))
def test_render_equals_vllms(client, name):
    case = CASES[name]
    r = client.post("/v1/chat/completions/render", json={"model": "dsv32", **case["request"]})
    if case["status"] == 500:  # (vLLM's encoding crashes on an empty conversation: tito's 400)
        assert r.status_code == 400 and r.json()["error"]["param"] == "messages", r.text
        return
    assert r.status_code == case["status"], r.text
    if case["status"] == 200:
        assert r.json()["token_ids"] == case["token_ids"]
    else:
        error = r.json()["error"]
        assert error["type"] == case["error"]["type"] == "BadRequestError"
        # vLLM's words, but for the message dicts it quotes (Python's repr of its own dicts)
        assert error["message"].split("`")[0].split("{")[0] == \
            case["error"]["message"].split("`")[0].split("{")[0]


def test_a_template_in_the_folder_is_not_used(tmp_path):
    """vLLM renders the architecture with its encoding whatever template the folder holds;
    ``tokenizer_mode: hf`` (tito.json, as vLLM's flag) turns the encoding off."""
    from tito.models import registry

    folder = native_folder("dsv32", tmp_path / "dsv32")
    (folder / "chat_template.jinja").write_text("{{ messages[0]['content'] }}")
    model = registry.load_model(folder)
    assert model.config.native_renderer == "deepseek_v32"
    (folder / "tito.json").write_text(json.dumps({"tokenizer_mode": "hf"}))
    assert registry.load_model(folder).config.native_renderer is None


def test_encoding_rules_on_text():
    """The rules the golden exercises, on the text (no tokenizer): thinking after the last
    user message, results closed after the last call, the history's reasoning dropped."""
    calls = [{"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]
    msgs = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "reasoning": "r", "tool_calls": calls},
            {"role": "tool", "content": "out"}]
    text = render_dsv32.encode(msgs, None, thinking=True)
    assert text.endswith("<think>r</think>\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke "
                         'name="f">\n<｜DSML｜parameter name="x" string="false">1</｜DSML｜'
                         "parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls><｜end▁of▁"
                         "sentence｜>\n\n<function_results>\n<result>out</result>\n"
                         "</function_results>\n\n<think>")
    assert render_dsv32.encode(msgs, None, thinking=False).endswith("</function_results>\n\n</think>")
    with pytest.raises(render_dsv32.DsEncodingError, match="No tool calls"):
        render_dsv32.encode([*msgs, {"role": "tool", "content": "extra"}], None, thinking=False)
    history = [{"role": "user", "content": "a"},
               {"role": "assistant", "content": "b", "reasoning": "hidden"},
               {"role": "user", "content": "c"}]
    assert "hidden" not in render_dsv32.encode(history, None, thinking=True)


def test_bad_arguments_are_a_400_not_a_500(client):
    r = client.post("/v1/chat/completions/render", json={"model": "dsv32", "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "c", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "r"}]})
    assert r.status_code in (200, 400), r.text
    assert r.status_code != 500


def test_a_long_run_of_tool_results_is_read_in_one_pass():
    """DeepSeek's encoding scans back over the earlier results for each one (quadratic in a
    run of results); tito finds each result's owner in one pass: message reads grow linearly."""

    Counted = read_counter()

    def reads(n: int) -> int:
        calls = [{"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": {}}}
                 for i in range(n)]
        msgs = [Counted(role="user", content="q"),
                Counted(role="assistant", content=None, tool_calls=calls),
                *(Counted(role="tool", content=str(i)) for i in range(n))]
        Counted.reads = 0
        text = render_dsv32.encode(msgs, None, thinking=False)
        assert text.count("<result>") == n and text.endswith("</function_results>\n\n</think>")
        return Counted.reads

    assert reads(400) < 2.2 * reads(200)  # (the backward scan: ~4x)
