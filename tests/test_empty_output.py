"""An output whose text is empty: the message's ``""`` or null, as vLLM 0.33's parsers give it.

References: ``tests/goldens/empty_output_vllm.json`` (vLLM's composed parsers' ``parse("")``,
recorded by ``tests/goldens/record_empty_output.py``) and the derender fuzzer's case
``empty_text_thinking_off`` (``conformance/goldens/derender_fuzz.json``: vLLM's server, Qwen3
with thinking off and the whole output cut by a stop string: content ``""``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tito.core.parsers import INKLING_REASONING_PARSERS, MUSE_REASONING_PARSERS
from tito.core.parsers.empty_output import empty_output
from tito.core.parsers.reasoning_formats import get_reasoning_parser
from tito.models import get_registry
from tito.protocol import DerenderChatRequest
from tito.service.derender import derender_chat

GOLDEN = json.loads((Path(__file__).parent / "goldens" / "empty_output_vllm.json").read_text())
#: the template kwargs the recording used for thinking off (every switch off)
OFF = {"enable_thinking": False, "thinking": False, "reasoning_effort": "no_think",
       "thinking_mode": "disabled"}


def _thinking(reasoning: str | None, on: bool) -> bool:
    """tito's reading of the recording's template kwargs (on: none; off: :data:`OFF`)."""
    if reasoning is None or reasoning in MUSE_REASONING_PARSERS | INKLING_REASONING_PARSERS:
        return True  # (Muse's and Inkling's routers have no switch)
    return get_reasoning_parser(reasoning).enabled_from_kwargs({} if on else OFF)


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: (
    f"{c['tool']}+{c['reasoning']}{'' if c['thinking'] else '-off'}{'-tools' * c['tools']}"))
def test_empty_output_table_matches_vllm(case: dict[str, Any]) -> None:
    if case["tool"] == "mistral" and case["reasoning"] is None and not case["tools"]:
        pytest.skip("recorded with a Hugging Face tokenizer; tito serves Mistral as vLLM's "
                    "--tokenizer-mode mistral does (test_mistral_empty_output_by_tools)")
    got = empty_output(case["tool"], case["reasoning"],
                       thinking=_thinking(case["reasoning"], case["thinking"]),
                       auto_tools=case["tools"] and case["tool"] is not None)
    assert list(got) == case["vllm"]


def _derender(name: str, ids: list[int], **request: Any) -> dict[str, Any]:
    model = get_registry().get(name)
    req = DerenderChatRequest.model_validate({
        "model": name,
        "chat_request": {"model": name, "messages": [{"role": "user", "content": "Hi"}],
                         **request},
        "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": ids, "finish_reason": "stop"}]},
    })
    message = derender_chat(model, req).model_dump()["choices"][0]["message"]
    return {"content": message["content"], "reasoning": message["reasoning"]}


TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def test_qwen3_empty_output_by_thinking_and_tools() -> None:
    """The served Qwen3 (reasoning ``qwen3``, tools ``hermes``): an output of only its EOS."""
    eos = get_registry().get("qwen3").vocab.encode("<|im_end|>")
    off = {"chat_template_kwargs": {"enable_thinking": False}}
    assert _derender("qwen3", eos, **off) == {"content": "", "reasoning": None}
    assert _derender("qwen3", eos, tools=TOOLS, **off) == {"content": "", "reasoning": None}
    assert _derender("qwen3", eos) == {"content": None, "reasoning": None}
    assert _derender("qwen3", eos, tools=TOOLS, tool_choice="required") == {
        "content": "", "reasoning": None}


def test_text_left_by_the_parsers_is_not_an_empty_output() -> None:
    """Markers only (``<think></think>``): the text was not empty, the parsers' null stands."""
    vocab = get_registry().get("qwen3").vocab
    ids = vocab.encode("<think></think><|im_end|>")
    assert _derender("qwen3", ids) == {"content": None, "reasoning": None}


def test_mistral_empty_output_by_tools() -> None:
    """mistral-v3 (tool parser ``mistral``, no reasoning parser): its EOS alone is ``""``
    without tools (golden ``derender_chat_mistral`` ``only_eos``), null with tools (auto)."""
    eos = [get_registry().get("mistral-v3").vocab.eos_token_id]
    assert _derender("mistral-v3", eos)["content"] == ""
    assert _derender("mistral-v3", eos, tools=TOOLS)["content"] is None
