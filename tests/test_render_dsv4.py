"""DeepSeek-V4's native chat encoding, against vLLM 0.33.0's render server.

The golden (``tests/goldens/dsv4_render_vllm.json``) is vLLM's ``/v1/chat/completions/render``
(and ``/tokenize``, ``/v1/responses/render``, ``/v1/messages/render`` for some, and
``/v1/completions/render`` with a fill-in-the-middle ``suffix``) on a folder
whose ``config.json`` names ``DeepseekV4ForCausalLM`` (Qwen3's tokenizer files, no template;
``tests/goldens/record_dsv32_render.py --model dsv4``, cases in
``tests/goldens/dsv4_render_cases.py``): vLLM renders it with DeepSeek's own encoding. tito
serves the same files and must give the same ids, or the same 400.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from native_render import check_answer, load_native, read_counter, served_alone
from tito.core import render_dsv4

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN = json.loads((ROOT / "tests" / "goldens" / "dsv4_render_vllm.json").read_text())
CASES, TOKENIZE = GOLDEN["cases"], GOLDEN["tokenize"]
OTHERS = [(api, name) for api in ("responses", "messages", "completions")
          for name in sorted(GOLDEN[api])]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    yield from served_alone(load_native("dsv4", tmp_path_factory.mktemp("dsv4")), "deepseek_v4")


@pytest.mark.parametrize("name", sorted(CASES))
def test_render_equals_vllms(client, name):
    case = CASES[name]
    r = client.post("/v1/chat/completions/render", json={"model": "dsv4", **case["request"]})
    check_answer(r, case, "token_ids")


@pytest.mark.parametrize("name", sorted(TOKENIZE))
def test_tokenize_equals_vllms(client, name):
    case = TOKENIZE[name]
    check_answer(client.post("/tokenize", json={"model": "dsv4", **case["request"]}), case, "tokens")


@pytest.mark.parametrize(("api", "name"), OTHERS)
def test_responses_messages_and_completions_render_equal_vllms(client, api, name):
    case = GOLDEN[api][name]
    r = client.post(f"/v1/{api}/render", json={"model": "dsv4", **case["request"]})
    check_answer(r, case, "token_ids")


def test_modes_from_kwargs():
    """Thinking on by default (effort high); the switches, and the efforts' three levels."""
    mode = render_dsv4.mode_of
    assert mode({}) == render_dsv4.Mode(True, "high", True)
    assert mode({"thinking": None}).thinking is False
    assert mode({"thinking": False, "enable_thinking": True}).thinking is True
    assert mode({"reasoning_effort": "none", "thinking": True}).thinking is False
    assert [mode({"reasoning_effort": e}).effort for e in ("minimal", "medium", "xhigh", "?")] \
        == ["low", "low", "high", "high"]
    assert mode({"drop_thinking": 0}).drop_thinking is False


def test_results_sorted_and_merged_on_text():
    """Results become one user turn sorted by their calls' order; the history's reasoning
    is dropped in thinking mode unless a message has tools."""
    calls = [{"id": i, "type": "function", "function": {"name": "f", "arguments": {}}}
             for i in ("a", "b")]
    msgs = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "reasoning": "r", "tool_calls": calls},
            {"role": "tool", "tool_call_id": "b", "content": "B"},
            {"role": "tool", "tool_call_id": "a", "content": "A"},
            {"role": "user", "content": "more"}]
    text = render_dsv4.encode(msgs, None, render_dsv4.Mode(False, "low", True))
    assert text.endswith("<｜User｜><tool_result>A</tool_result>\n\n<tool_result>B</tool_result>"
                         "\n\nmore<｜Assistant｜></think>")
    assert ">r</think>" not in render_dsv4.encode(msgs, None, render_dsv4.Mode(True, "low", True))
    tools = [{"type": "function", "function": {"name": "f"}}]
    assert ">r</think>" in render_dsv4.encode(msgs, tools, render_dsv4.Mode(True, "low", True))


def test_a_long_run_of_tool_results_is_linear():
    """Merging and sorting a run of n results reads each message a bounded number of times."""

    Counted = read_counter()

    def reads(n: int) -> int:
        calls = [{"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": {}}}
                 for i in range(n)]
        msgs = [Counted(role="user", content="q"),
                Counted(role="assistant", content=None, tool_calls=calls),
                *(Counted(role="tool", tool_call_id=f"c{n - 1 - i}", content=str(i))
                  for i in range(n))]
        Counted.reads = 0
        text = render_dsv4.encode(msgs, None, render_dsv4.Mode(False, "low", True))
        assert text.count("<tool_result>") == n
        assert text.index(f"<tool_result>{n - 1}<") < text.index("<tool_result>0<")
        return Counted.reads

    assert reads(400) < 2.2 * reads(200)
