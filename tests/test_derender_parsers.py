"""Reasoning and tool-call parsing through the derender endpoints, batch and stream (real ids)."""

from __future__ import annotations

import json

import openai.types.chat as oac
import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, post, split, stream_chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/derender"
IM_END = 151645
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}},
]
QWEN_PROMPT = "<|im_start|>user\nWeather in Paris and the time?<|im_end|>\n<|im_start|>assistant\n"
QWEN_OUT = (
    "<think>\nThe user wants weather and time. 中文 😀\n</think>\n\n"
    "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
    "</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>"
)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_derender"]), raise_server_exceptions=False)


def chat_request(model="qwen3", **kw):
    return {"model": model, "messages": [{"role": "user", "content": "hi"}], **kw}


def batch(client, model, prompt, ids, request, finish="stop", logprobs=None):
    body = {"model": model, "prompt_token_ids": prompt, "chat_request": request,
            "generate_response": generate_response(ids, finish_reason=finish, logprobs=logprobs)}
    out = post(client, CHAT, body)
    oac.ChatCompletion.model_validate(out)
    return out


def stream(client, model, prompt, chunks, request, finish="stop"):
    state, outs = None, []
    for k, ids in enumerate(chunks):
        body = {"stream": True, "model": model, "stream_state": state,
                "generate_chunk": stream_chunk(ids, finish_reason=finish if k == len(chunks) - 1 else None)}
        if state is None:
            body.update(prompt_token_ids=prompt, chat_request=request)
        res = post(client, CHAT, body)
        oac.ChatCompletionChunk.model_validate(res["chunk"])
        outs.append(res["chunk"])
        state = json.loads(json.dumps(res["stream_state"]))
    return outs, state


def collect(outs):
    """Concatenate a stream: content, reasoning, calls {index: [id, name, args]}, finish."""
    content, reasoning, calls, finish = "", "", {}, None
    for o in outs:
        for ch in o["choices"]:
            d = ch["delta"]
            content += d.get("content") or ""
            reasoning += d.get("reasoning") or ""
            for tc in d.get("tool_calls", []):
                c = calls.setdefault(tc["index"], [None, None, ""])
                if tc.get("id"):
                    assert c[0] is None, "id sent twice"
                    c[0] = tc["id"]
                fn = tc.get("function") or {}
                if fn.get("name"):
                    assert c[1] is None, "name sent twice"
                    c[1] = fn["name"]
                c[2] += fn.get("arguments") or ""
            if ch["finish_reason"]:
                assert finish is None
                finish = ch["finish_reason"]
    return content, reasoning, calls, finish


def batch_view(out):
    msg = out["choices"][0]["message"]
    calls = {i: [c["id"], c["function"]["name"], c["function"]["arguments"]]
             for i, c in enumerate(msg.get("tool_calls", []))}
    return msg["content"] or "", msg["reasoning"] or "", calls, out["choices"][0]["finish_reason"]


def test_qwen3_reasoning_and_parallel_tool_calls(client, vocabs):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    out = batch(client, "qwen3", prompt, ids, chat_request(tools=TOOLS))
    content, reasoning, calls, finish = batch_view(out)
    assert reasoning == "\nThe user wants weather and time. 中文 😀\n"
    assert content == "\n\nLet me check.\n"  # as vLLM: text around markers kept verbatim
    assert [c[1] for c in calls.values()] == ["get_weather", "get_time"]
    assert json.loads(calls[0][2]) == {"city": "Paris"} and json.loads(calls[1][2]) == {}
    assert finish == "tool_calls"
    assert "<tool_call>" not in content and "<think>" not in content
    assert out["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0
    ids_again = batch_view(batch(client, "qwen3", prompt, ids, chat_request(tools=TOOLS)))[2]
    assert [c[0] for c in ids_again.values()] == [c[0] for c in calls.values()]  # deterministic


def test_duplicate_choice_indexes_get_distinct_call_ids(client, vocabs):
    """An engine may send two choices with one index (vLLM 0.33 takes it and draws every call id
    at random); tito's ids derive from the index, so a repeated index must still give ids of
    their own (goldens ``derender_choice_index`` ``*_dup*``), while the first choice of an index
    keeps the id its stream gets."""
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    body = {"model": "qwen3", "prompt_token_ids": prompt, "chat_request": chat_request(tools=TOOLS),
            "generate_response": generate_response(ids, n=3)}
    for choice, index in zip(body["generate_response"]["choices"], [1, 1, 0]):
        choice["index"] = index
    out = post(client, CHAT, body)
    got = [[c["id"] for c in ch["message"]["tool_calls"]] for ch in out["choices"]]
    flat = [i for call_ids in got for i in call_ids]
    assert len(flat) == 6 and len(set(flat)) == 6
    # the first choice of index 0 (the third) keeps the ids of a lone choice 0, batch and stream
    single = post(client, CHAT, {**body, "generate_response": generate_response(ids)})
    streamed = collect(stream(client, "qwen3", prompt, [ids], chat_request(tools=TOOLS))[0])[2]
    assert got[2] == [c["id"] for c in single["choices"][0]["message"]["tool_calls"]]
    assert got[2] == [c[0] for c in streamed.values()]


@given(data=st.data())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_chunking_equals_batch(client, vocabs, data):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    request = chat_request(tools=TOOLS, parallel_tool_calls=data.draw(st.booleans()))
    finish = data.draw(st.sampled_from(["stop", "length"]))
    if finish == "length":
        ids = ids[: data.draw(st.integers(1, len(ids) - 1))]
    sizes = data.draw(st.one_of(st.just([1] * len(ids)), st.lists(st.integers(0, 6), max_size=len(ids))))
    expected = batch_view(batch(client, "qwen3", prompt, ids, request, finish=finish))
    outs, _ = stream(client, "qwen3", prompt, split(ids, sizes), request, finish=finish)
    got = collect(outs)
    assert got[0] == expected[0] and got[1] == expected[1] and got[3] == expected[3]
    assert {i: c[1:] for i, c in got[2].items()} == {i: c[1:] for i, c in expected[2].items()}
    assert [c[0] for c in got[2].values()] == [c[0] for c in expected[2].values()]


def test_arguments_only_append_and_name_once(client, vocabs):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    outs, _ = stream(client, "qwen3", prompt, [[i] for i in ids], chat_request(tools=TOOLS))
    content, reasoning, calls, finish = collect(outs)  # asserts name/id sent once
    assert finish == "tool_calls" and len(calls) == 2
    roles = [o["choices"][0]["delta"].get("role") for o in outs if o["choices"]]
    assert roles[0] == "assistant" and not any(roles[1:])


def test_parallel_tool_calls_false_keeps_first(client, vocabs):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    out = batch(client, "qwen3", prompt, ids, chat_request(tools=TOOLS, parallel_tool_calls=False))
    calls = batch_view(out)[2]
    assert [c[1] for c in calls.values()] == ["get_weather"]


def test_tool_choice_none_keeps_markup_as_content(client, vocabs):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    content, reasoning, calls, finish = batch_view(
        batch(client, "qwen3", prompt, ids, chat_request(tools=TOOLS, tool_choice="none")))
    assert calls == {} and "<tool_call>" in content and finish == "stop"
    assert reasoning  # reasoning is still split off


def test_named_tool_choice_keeps_stop(client, vocabs):
    v = vocabs["qwen3"]
    prompt = v.encode(QWEN_PROMPT + "<think>\n\n</think>\n\n")
    # vLLM 0.33 constrains named output to the format's own block (structural tag)
    ids = v.encode('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
                   '</tool_call>') + [IM_END]
    req = chat_request(tools=TOOLS, tool_choice={"type": "function", "function": {"name": "get_weather"}})
    out = batch(client, "qwen3", prompt, ids, req)
    content, _, calls, finish = batch_view(out)
    assert calls[0][1] == "get_weather" and json.loads(calls[0][2]) == {"city": "Paris"}
    assert finish == "stop" and out["choices"][0]["message"]["content"] == ""


def test_required_tool_choice(client, vocabs):
    v = vocabs["qwen3"]
    prompt = v.encode(QWEN_PROMPT + "<think>\n\n</think>\n\n")
    ids = v.encode('<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>'
                   '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n'
                   '</tool_call>') + [IM_END]
    out = batch(client, "qwen3", prompt, ids, chat_request(tools=TOOLS, tool_choice="required"))
    _, _, calls, finish = batch_view(out)
    assert [c[1] for c in calls.values()] == ["get_time", "get_weather"]
    assert json.loads(calls[1][2]) == {"city": "Rome"} and finish == "tool_calls"


def test_truncated_call_same_in_batch_and_stream(client, vocabs):
    v = vocabs["qwen3"]
    prompt = v.encode(QWEN_PROMPT)
    ids = v.encode('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par')
    out = batch(client, "qwen3", prompt, ids, chat_request(tools=TOOLS), finish="length")
    b = batch_view(out)
    s = collect(stream(client, "qwen3", prompt, [[i] for i in ids], chat_request(tools=TOOLS), finish="length")[0])
    assert b[3] == s[3] == "length"
    assert {i: c[1:] for i, c in b[2].items()} == {i: c[1:] for i, c in s[2].items()}
    assert b[2][0][2].startswith('{"city": "Par')


def test_include_reasoning_false_and_thinking_disabled(client, vocabs):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode("<think>\nhidden\n</think>\n\nvisible") + [IM_END]
    out = batch(client, "qwen3", prompt, ids, chat_request(include_reasoning=False))
    assert out["choices"][0]["message"]["reasoning"] is None
    assert out["choices"][0]["message"]["content"] == "\n\nvisible"
    closed = v.encode(QWEN_PROMPT + "<think>\n\n</think>\n\n")
    out = batch(client, "qwen3", closed, v.encode("Just text.") + [IM_END],
                chat_request(chat_template_kwargs={"enable_thinking": False}))
    assert out["choices"][0]["message"]["content"] == "Just text."
    assert out["choices"][0]["message"]["reasoning"] is None


def test_never_closed_reasoning(client, vocabs):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode("<think>\nstill thinking when cut")
    out = batch(client, "qwen3", prompt, ids, chat_request(), finish="length")
    assert out["choices"][0]["message"]["reasoning"] == "\nstill thinking when cut"
    assert out["choices"][0]["message"]["content"] is None


def test_logprobs_kept_on_parser_path(client, vocabs):
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode("<think>\nhmm\n</think>\n\nok") + [IM_END]
    lp = {"content": [{"token_id": i, "logprob": -0.1, "top_logprobs": []} for i in ids]}
    out = batch(client, "qwen3", prompt, ids, chat_request(logprobs=True), logprobs=lp)
    assert len(out["choices"][0]["logprobs"]["content"]) == len(ids)
    state, n = None, 0
    for k, i in enumerate(ids):
        body = {"stream": True, "model": "qwen3", "stream_state": state,
                "generate_chunk": stream_chunk([i], logprobs={"content": [lp["content"][k]]},
                                               finish_reason="stop" if k == len(ids) - 1 else None)}
        if state is None:
            body.update(prompt_token_ids=prompt, chat_request=chat_request(logprobs=True))
        res = post(client, CHAT, body)
        n += len(res["chunk"]["choices"][0]["logprobs"]["content"])
        state = res["stream_state"]
    assert n == len(ids)


def test_mistral_tool_calls_by_special_token(client, vocabs):
    v = vocabs["mistral-v3"]
    prompt = v.encode("[INST] weather? [/INST]", add_special_tokens=True)
    ids = [5] + v.encode('[{"name": "get_weather", "arguments": {"city": "Oslo"}}]') + [2]
    req = chat_request("mistral-v3", tools=TOOLS)
    out = batch(client, "mistral-v3", prompt, ids, req)
    content, _, calls, finish = batch_view(out)
    assert calls[0][1] == "get_weather" and json.loads(calls[0][2]) == {"city": "Oslo"}
    assert finish == "tool_calls" and "[TOOL_CALLS]" not in content
    s = collect(stream(client, "mistral-v3", prompt, [[i] for i in ids], req)[0])
    assert {i: c[1:] for i, c in s[2].items()} == {i: c[1:] for i, c in calls.items()}


def test_mistral_markers_kept_other_special_tokens_skipped_and_ids_validate(client, vocabs):
    """[TOOL_CALLS] is a special token of Mistral v0.3: the parser still sees it while every other
    special token stays out of the content (vLLM turns skip_special_tokens off for the whole
    output instead, so [INST] and </s> leak); with skip_special_tokens false they all show.
    The call ids have Mistral's shape, which mistral-common (the reference) accepts back."""
    from mistral_common.protocol.instruct.messages import (
        AssistantMessage,
        ToolMessage,
        UserMessage,
    )
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.protocol.instruct.tool_calls import Function, FunctionCall, Tool, ToolCall
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    v = vocabs["mistral-v3"]
    inst, eos = 3, 2  # [INST] and </s>: special, not the parser's
    assert {inst, eos, 5} <= v.special_ids
    prompt = v.encode("[INST] weather? [/INST]", add_special_tokens=True)
    ids = (
        v.encode("Sure")
        + [inst]
        + [5]
        + v.encode('[{"name": "get_weather", "arguments": {"city": "Oslo"}}]')
        + [eos]
    )
    req = chat_request("mistral-v3", tools=TOOLS)
    for r, content in ((req, " Sure"), ({**req, "skip_special_tokens": False}, " Sure[INST]</s>")):
        out = batch_view(batch(client, "mistral-v3", prompt, ids, r, finish="length"))
        streamed = collect(stream(client, "mistral-v3", prompt, [[i] for i in ids], r, "length")[0])
        assert streamed == out
        got, _, calls, _ = out
        assert got == content
        assert [c[1:] for c in calls.values()] == [["get_weather", '{"city": "Oslo"}']]
    call_id = calls[0][0]
    assert len(call_id) == 9 and call_id.isalnum()
    msgs = [
        UserMessage(content="weather?"),
        AssistantMessage(tool_calls=[ToolCall(id=call_id, function=FunctionCall(
            name="get_weather", arguments='{"city": "Oslo"}'))]),
        ToolMessage(tool_call_id=call_id, content="sunny"),
    ]
    tools = [Tool(function=Function(name="get_weather", description="", parameters={}))]
    MistralTokenizer.v3().encode_chat_completion(ChatCompletionRequest(tools=tools, messages=msgs))


def test_markers_inside_json_strings_and_plain_json_content(client, vocabs):
    v = vocabs["qwen3"]
    prompt = v.encode(QWEN_PROMPT + "<think>\n\n</think>\n\n")
    text = 'Here is JSON: {"name": "x", "arguments": {}} and code `</tool_call>`.'
    ids = v.encode(text) + [IM_END]
    out = batch(client, "qwen3", prompt, ids, chat_request(tools=TOOLS))
    content, _, calls, finish = batch_view(out)
    assert content == text and calls == {} and finish == "stop"
    inner = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "<tool_call></think>"}}\n</tool_call>'
    out = batch(client, "qwen3", prompt, v.encode(inner) + [IM_END], chat_request(tools=TOOLS))
    assert json.loads(batch_view(out)[2][0][2]) == {"city": "<tool_call></think>"}


def test_vllm_shaped_client_on_the_parser_path(client, vocabs):
    """A client that keeps only vLLM's state fields and resends chat_request + prompt_token_ids
    every call (as vLLM requires) gets the same stream as a tito client: served by replay."""
    from tito.protocol import DerenderStreamState

    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    request = chat_request(tools=TOOLS)
    reference, _ = stream(client, "qwen3", prompt, [[i] for i in ids], request)
    vllm_fields = set(DerenderStreamState.model_fields) - {"tito"}
    state, outs = None, []
    for k, i in enumerate(ids):
        body = {"stream": True, "model": "qwen3", "stream_state": state, "prompt_token_ids": prompt,
                "chat_request": request,
                "generate_chunk": stream_chunk([i], finish_reason="stop" if k == len(ids) - 1 else None)}
        res = post(client, CHAT, body)
        outs.append(res["chunk"])
        state = {f: val for f, val in res["stream_state"].items() if f in vllm_fields}
    assert collect(outs) == collect(reference)
    assert [o["choices"][0]["delta"] for o in outs] == [o["choices"][0]["delta"] for o in reference]


@given(data=st.data())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_stop_strings_with_parsers_any_chunking(client, vocabs, data):
    """Stop strings cut the text before the parsers see it, identically in batch and stream."""
    v = vocabs["qwen3"]
    prompt, ids = v.encode(QWEN_PROMPT), v.encode(QWEN_OUT) + [IM_END]
    start = data.draw(st.integers(0, len(QWEN_OUT) - 2))
    stop = QWEN_OUT[start:start + data.draw(st.integers(1, 6))]
    request = chat_request(tools=TOOLS, stop=[stop],
                           include_stop_str_in_output=data.draw(st.booleans()))
    expected = batch_view(batch(client, "qwen3", prompt, ids, request))
    sizes = data.draw(st.lists(st.integers(0, 5), max_size=len(ids)))
    got = collect(stream(client, "qwen3", prompt, split(ids, sizes), request)[0])
    assert got[0] == expected[0] and got[1] == expected[1] and got[3] == expected[3]
    assert {i: c[1:] for i, c in got[2].items()} == {i: c[1:] for i, c in expected[2].items()}
