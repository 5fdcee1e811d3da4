"""Qwen3 chat render: ids equal ``transformers.apply_chat_template(tokenize=True)`` on the same folder.

The reference receives what vLLM hands ``transformers`` for the same OpenAI request: JSON-string
tool-call arguments parsed into objects, ``content: null`` as ``""``, text parts joined with
``"\\n"``, ``reasoning`` as ``reasoning_content``, and ``enable_thinking`` derived from
``reasoning_effort``.
"""

from __future__ import annotations

import copy
import json
import os
import pathlib

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from tito.core import render as core_render  # noqa: E402
from tito.protocol import ChatCompletionRequest  # noqa: E402
from tito.service.render import RenderSettings, render_chat_request  # noqa: E402

QWEN3 = pathlib.Path(__file__).resolve().parents[1] / "layers" / "tokenizer" / "models" / "qwen3"

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the weather <now> & 'later'",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                        "unit": {"type": "string", "enum": ["c", "f"]}},
                       "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search the web",
                                      "parameters": {"type": "object",
                                                     "properties": {"q": {"type": "string"}}}}},
]


def call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


CONVERSATIONS = {
    "plain": dict(messages=[{"role": "user", "content": "Hello, who are you?"}]),
    "system": dict(messages=[{"role": "system", "content": "Be terse."},
                             {"role": "user", "content": "héllo wörld 😀 中文"}]),
    "developer_role_is_system": dict(messages=[{"role": "developer", "content": "Be terse."},
                                               {"role": "user", "content": "hi"}]),
    "tools": dict(messages=[{"role": "system", "content": "You help with weather."},
                            {"role": "user", "content": "Weather in Paris?"}], tools=TOOLS),
    "tool_call_and_results": dict(messages=[
        {"role": "user", "content": "Weather in Paris and news?"},
        {"role": "assistant", "content": None, "reasoning": "Call both tools.",
         "tool_calls": [call("call_1", "get_weather", {"city": "Paris <FR>", "unit": "c"}),
                        call("call_2", "search", {"q": "Paris news"})]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21, "sky": "clear"}'},
        {"role": "tool", "tool_call_id": "call_2", "content": "No news today."},
    ], tools=TOOLS),
    "tool_loop_answered": dict(messages=[
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [call("c1", "get_weather", {"city": "Paris"})]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "assistant", "content": "It is sunny.", "reasoning": "The tool said sunny."},
        {"role": "user", "content": "Thanks! And London?"},
    ], tools=TOOLS),
    "reasoning_history": dict(messages=[
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning": "Simple arithmetic."},
        {"role": "user", "content": "And 3+3?"},
    ]),
    "legacy_reasoning_content": dict(messages=[
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning_content": "Simple."},
    ], add_generation_prompt=False),
    "think_inline_in_content": dict(messages=[
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "<think>\nadd them\n</think>\n\n4"},
        {"role": "user", "content": "3+3?"},
    ]),
    "enable_thinking_false": dict(messages=[{"role": "user", "content": "2+2?"}],
                                  chat_template_kwargs={"enable_thinking": False}),
    "enable_thinking_true": dict(messages=[{"role": "user", "content": "2+2?"}],
                                 chat_template_kwargs={"enable_thinking": True}),
    "reasoning_effort_none": dict(messages=[{"role": "user", "content": "2+2?"}], reasoning_effort="none"),
    "reasoning_effort_high": dict(messages=[{"role": "user", "content": "2+2?"}], reasoning_effort="high"),
    "continue_final_message": dict(messages=[
        {"role": "user", "content": "Write a haiku"},
        {"role": "assistant", "content": "Autumn moonlight\n"},
    ], add_generation_prompt=False, continue_final_message=True),
    "no_generation_prompt": dict(messages=[{"role": "user", "content": "x"},
                                           {"role": "assistant", "content": "y"}],
                                 add_generation_prompt=False),
    "text_parts": dict(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Describe"}, {"type": "text", "text": "this."}]}]),
}


def to_hf(case: dict) -> tuple[list[dict], dict]:
    """The messages and kwargs vLLM passes to transformers for the same request."""
    messages = []
    for m in copy.deepcopy(case["messages"]):
        m = {k: v for k, v in m.items() if v is not None}
        if m["role"] == "developer":
            m["role"] = "system"
        m.setdefault("content", "")
        if isinstance(m["content"], list):
            m["content"] = "\n".join(p["text"] for p in m["content"])
        for tc in m.get("tool_calls", []):
            tc["function"]["arguments"] = json.loads(tc["function"]["arguments"] or "{}")
        if "reasoning" in m:
            m["reasoning_content"] = m.pop("reasoning")
        messages.append(m)
    kwargs = dict(case.get("chat_template_kwargs") or {})
    if case.get("reasoning_effort") is not None and "enable_thinking" not in kwargs:
        kwargs["enable_thinking"] = case["reasoning_effort"] != "none"
    kwargs["add_generation_prompt"] = case.get("add_generation_prompt", True)
    kwargs["continue_final_message"] = case.get("continue_final_message", False)
    return messages, kwargs


@pytest.fixture(scope="module")
def hf_tokenizer():
    transformers = pytest.importorskip("transformers")
    return transformers.AutoTokenizer.from_pretrained(str(QWEN3))


def tito_render(**body):
    return render_chat_request(ChatCompletionRequest(model="qwen3", **body), settings=RenderSettings())


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_ids_equal_transformers(name, hf_tokenizer):
    case = CONVERSATIONS[name]
    messages, kwargs = to_hf(case)
    expected = hf_tokenizer.apply_chat_template(
        messages, tools=case.get("tools"), tokenize=True, return_dict=False, **kwargs
    )
    assert tito_render(**case).token_ids == expected


def test_enable_thinking_false_ends_reasoning_in_prompt():
    on = tito_render(**CONVERSATIONS["enable_thinking_true"])
    off = tito_render(**CONVERSATIONS["enable_thinking_false"])
    assert on.reasoning_ended is False and on.derender_context["reasoning_ended"] is False
    assert off.reasoning_ended is True and off.derender_context["reasoning_ended"] is True
    assert off.reasoning_parser_kwargs.chat_template_kwargs["enable_thinking"] is False
    assert off.derender_context["chat_template_kwargs"]["enable_thinking"] is False


def test_earlier_turn_reasoning_does_not_end_the_new_turn():
    # The previous assistant turn (after the last user query) carries <think>...</think>; the
    # generation prompt opens a fresh turn, whose reasoning has not ended.
    result = tito_render(**CONVERSATIONS["tool_call_and_results"])
    assert result.reasoning_ended is False


def test_token_offsets_point_into_the_rendered_prompt(hf_tokenizer):
    case = CONVERSATIONS["tool_call_and_results"]
    messages, kwargs = to_hf(case)
    prompt = hf_tokenizer.apply_chat_template(messages, tools=TOOLS, tokenize=False, **kwargs)
    result = tito_render(**case, return_token_offsets=True)
    assert len(result.token_offsets) == len(result.token_ids)
    vocab_pieces = "".join(prompt[s:e] for s, e in result.token_offsets)
    assert vocab_pieces == prompt


GENERATION_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.role == 'assistant' %}{% generation %}{{ m.content }}<|im_end|>{% endgeneration %}"
    "{% else %}{{ m.content }}<|im_end|>{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def test_assistant_tokens_mask_equals_transformers(hf_tokenizer, monkeypatch):
    monkeypatch.setenv("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "1")
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello there 😀!"},
                {"role": "user", "content": "bye"}, {"role": "assistant", "content": "Bye."}]
    expected = hf_tokenizer.apply_chat_template(
        messages, chat_template=GENERATION_TEMPLATE, tokenize=True, return_dict=True,
        return_assistant_tokens_mask=True, add_generation_prompt=False,
    )
    result = render_chat_request(ChatCompletionRequest(
        model="qwen3", messages=messages, chat_template=GENERATION_TEMPLATE,
        add_generation_prompt=False, return_assistant_tokens_mask=True))
    assert result.token_ids == expected["input_ids"]
    assert result.assistant_tokens_mask == list(expected["assistant_masks"])
    assert sum(result.assistant_tokens_mask) > 0


def test_long_prompts_encode_in_chunks_identically(vocabs):
    vocab = vocabs["qwen3"]
    turns = "".join(f"<|im_start|>user\nquestion {i} héllo 中文 😀<|im_end|>\n<|im_start|>assistant\n"
                    f"answer {i} with some words\n\n<|im_end|>\n" for i in range(600))
    assert len(turns) > core_render.PARALLEL_ENCODE_MIN_CHARS
    whole = vocab.tokenizer.encode(turns, add_special_tokens=False)
    chunked = core_render.tokenize_prompt(vocab, turns, add_special_tokens=False, with_offsets=True)
    assert chunked.token_ids == whole.ids
    assert chunked.token_offsets == [tuple(o) for o in whole.offsets]
