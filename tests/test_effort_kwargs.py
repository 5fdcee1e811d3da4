"""Where a reasoning parser reads ``reasoning_effort`` (hy_v3, hy_v4): vLLM 0.33 builds it with
the effective chat-template kwargs, where the request's ``reasoning_effort`` field wins over
``chat_template_kwargs.reasoning_effort`` (``build_chat_params``). tito reads them the same way
whether derender gets the whole ``chat_request`` or render's ``derender_context``. (Before: the
``chat_request`` path read only ``chat_template_kwargs``, so hy_v3 with ``reasoning_effort:
"high"`` gave its reasoning as content.)

Goldens: ``goldens/effort_kwargs_vllm.json``, recorded from vLLM 0.33.0's render server on the
Qwen3 folder (``goldens/record_effort_kwargs.py``).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from tito.models.served import load_model
from tito.protocol import ChatCompletionRequest
from tito.protocol.derender import DerenderChatRequest
from tito.service.derender import derender_chat
from tito.service.render import render_chat_request

HERE = pathlib.Path(__file__).parent
GOLDENS = json.loads((HERE / "goldens" / "effort_kwargs_vllm.json").read_text(encoding="utf-8"))
MODELS = HERE.parent / "layers" / "tokenizer" / "models"
CASES = [(parser, name) for parser, cases in GOLDENS.items() for name in cases]


@pytest.fixture(scope="module", params=sorted(GOLDENS))
def model(request):
    return load_model(MODELS / "qwen3", {"reasoning_parser": request.param})


@pytest.mark.parametrize("name", sorted(next(iter(GOLDENS.values()))))
@pytest.mark.parametrize("via", ["chat_request", "derender_context"])
def test_the_effort_field_and_kwargs_as_vllm(model, name, via):
    golden = GOLDENS[model.config.reasoning_parser][name]
    chat = {"model": "qwen3", "messages": [{"role": "user", "content": "Weather?"}],
            **golden["request"]}
    rendered = render_chat_request(ChatCompletionRequest.model_validate(chat), model=model)
    assert rendered.derender_context["reasoning_ended"] is golden["reasoning_ended"] or (
        rendered.derender_context["reasoning_ended"] == golden["reasoning_ended"])
    ids = model.vocab.encode(golden["output"]) + [model.vocab.eos_token_id]
    resp = {"request_id": "chatcmpl-e", "choices": [
        {"index": 0, "token_ids": ids, "finish_reason": "stop"}]}
    extra = ({"chat_request": chat, "prompt_token_ids": rendered.token_ids} if via == "chat_request"
             else {"derender_context": rendered.derender_context})
    out = derender_chat(model, DerenderChatRequest.model_validate(
        {"model": "qwen3", "generate_response": resp, **extra}))
    message = out.choices[0].message
    # a block the prompt closed (reasoning_ended): the output is content, as vLLM's streaming
    # parser reads the prompt (its batch derender does not: deviation echo_chat's reason);
    # else vLLM's batch (its stream of this chunking keeps "<think>" in the reasoning)
    reasoning, content = golden["stream"] if golden["reasoning_ended"] else golden["batch"]
    assert (message.reasoning or None, message.content) == (reasoning or None, content)
