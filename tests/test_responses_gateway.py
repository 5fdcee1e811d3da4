"""End to end: the official ``openai`` SDK's Responses API (``client.responses.create``) ->
``tito gateway`` ``POST /v1/responses`` -> render / fake engine / derender.

Checked: the SDK parses every object and every stream event into its own types, the assembled
stream equals the non-stream output, a follow-up turn sending ``function_call_output`` back
renders and answers, stop strings abort the engine, and errors become the SDK's exceptions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.responses import Response, ResponseCompletedEvent

from tito.adapters.fake_engine import FakeEngine, LoopbackServer, ReplyScript, create_fake_engine_app
from tito.adapters.gateway import create_gateway_app
from tito.client import TitoClient

TOOLS = [{"type": "function", "name": "get_weather", "description": "Current weather in a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"]}}]
REASONING = "<think>\nThe user greets me. I greet back.\n</think>\n\nHello there!"
TOOL_REPLY = ("<think>\nI need the weather.\n</think>\n\n<tool_call>\n"
              '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[FakeEngine, openai.OpenAI, str]]:
    engine = FakeEngine(ReplyScript.from_text("Hi."), tokens_per_event=[1, 2, 3], delay=0.001,
                        max_num_seqs=8)
    with LoopbackServer(create_fake_engine_app(engine)) as engine_url:
        with LoopbackServer(create_gateway_app(generate_url=engine_url)) as gateway_url:
            sdk = openai.OpenAI(base_url=gateway_url + "/v1", api_key="unused", max_retries=0,
                                timeout=60)
            yield engine, sdk, engine_url


def create(sdk: openai.OpenAI, reply: str, **kwargs: Any) -> Any:
    kwargs.setdefault("input", "Hi")
    extra = {"vllm_xargs": {"fake_reply": reply}, **kwargs.pop("extra_body", {})}
    return sdk.responses.create(model="qwen3", extra_body=extra, **kwargs)


def fold(events: list[Any]) -> dict[int, str]:
    """Each output item's text, from the delta events only."""
    texts: dict[int, str] = {}
    for e in events:
        if e.type.endswith(".delta"):
            texts[e.output_index] = texts.get(e.output_index, "") + e.delta
    return texts


def texts_of(resp: Response) -> dict[int, str]:
    out = {}
    for i, item in enumerate(resp.output):
        if item.type == "function_call":
            out[i] = item.arguments
        elif item.type == "reasoning":
            out[i] = item.content[0].text
        else:
            out[i] = item.content[0].text
    return out


def comparable(resp: Response) -> dict[str, Any]:
    """Two separate requests differ in their random ids (and what derives from them) only."""
    data = resp.model_dump()
    output = [{**item, "id": "", **({"call_id": ""} if "call_id" in item else {})}
              for item in data["output"]]
    return {**data, "created_at": 0, "id": "", "output": output}


@pytest.mark.parametrize("reply", [REASONING, TOOL_REPLY, "Grüße aus 世界 🌍"])
def test_stream_equals_batch_and_every_event_is_an_sdk_type(stack, reply):
    _, sdk, _ = stack
    kwargs = {"tools": TOOLS} if "tool_call" in reply else {}
    batch = create(sdk, reply, **kwargs)
    assert isinstance(batch, Response) and batch.status == "completed"
    events = list(create(sdk, reply, stream=True, **kwargs))
    assert all(type(e).__module__.startswith("openai.types.responses") for e in events)
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[0].type == "response.created" and isinstance(events[-1], ResponseCompletedEvent)
    final = events[-1].response
    assert comparable(final) == comparable(batch)
    assert fold(events) == texts_of(batch)
    assert batch.output_text == final.output_text
    assert batch.usage.output_tokens > 0 and batch.usage.input_tokens > 0


def test_reasoning_and_usage(stack, vocabs):
    _, sdk, _ = stack
    resp = create(sdk, REASONING, instructions="Be brief.")
    assert [i.type for i in resp.output] == ["reasoning", "message"]
    assert resp.output[0].content[0].text == "\nThe user greets me. I greet back.\n"
    assert resp.output_text.endswith("Hello there!")
    assert resp.instructions == "Be brief."
    ids = vocabs["qwen3"].tokenizer.encode(REASONING, add_special_tokens=False).ids
    assert resp.usage.output_tokens == len(ids) + 1  # + <|im_end|>
    think = vocabs["qwen3"].tokenizer.encode("<think>\nThe user greets me. I greet back.\n</think>",
                                             add_special_tokens=False).ids
    assert resp.usage.output_tokens_details.reasoning_tokens == len(think) - 2


def test_function_call_then_follow_up_turn_with_its_output(stack):
    _, sdk, _ = stack
    first = create(sdk, TOOL_REPLY, input="Weather in Paris?", tools=TOOLS)
    calls = [i for i in first.output if i.type == "function_call"]
    assert len(calls) == 1 and calls[0].name == "get_weather"
    assert json.loads(calls[0].arguments) == {"city": "Paris"}
    follow = [{"role": "user", "content": "Weather in Paris?"},
              *[i.model_dump(exclude_none=True) for i in first.output],
              {"type": "function_call_output", "call_id": calls[0].call_id,
               "output": json.dumps({"temp_c": 21})}]
    # Qwen3 thinks again before it answers (vLLM's rule: without </think> all is reasoning)
    answer = "<think>\nThe tool says 21.\n</think>\n\nIt is 21 °C in Paris."
    second = create(sdk, answer, input=follow, tools=TOOLS)
    assert second.status == "completed"
    assert [i.type for i in second.output] == ["reasoning", "message"]
    assert second.output_text == "\n\nIt is 21 °C in Paris."
    # the follow-up prompt holds the call and its output (more input than the first turn)
    assert second.usage.input_tokens > first.usage.input_tokens
    streamed = list(create(sdk, answer, input=follow, tools=TOOLS, stream=True))
    assert streamed[-1].response.output_text == "\n\nIt is 21 °C in Paris."


def test_length_finish_is_incomplete(stack):
    _, sdk, _ = stack
    resp = create(sdk, "one two three four five six seven", max_output_tokens=3)
    assert resp.status == "incomplete"
    assert resp.incomplete_details.reason == "max_output_tokens"
    events = list(create(sdk, "one two three four five six seven", max_output_tokens=3,
                         stream=True))
    assert events[-1].type == "response.incomplete"
    assert comparable(events[-1].response) == comparable(resp)


def test_stop_string_cuts_and_aborts_the_engine(stack):
    engine, sdk, _ = stack
    long = "alpha beta gamma STOP delta " * 60
    # thinking off: the plain reply is the message (vLLM's qwen3 rule: else reasoning)
    extra = {"stop": ["STOP"], "chat_template_kwargs": {"enable_thinking": False}}
    batch = create(sdk, long, extra_body=extra)
    assert batch.output_text == "alpha beta gamma "
    before = len(engine.abort_calls)
    events = list(create(sdk, long, stream=True, extra_body=extra))
    assert events[-1].response.output_text == "alpha beta gamma "
    # the stream stopped reading the engine: its usage counts fewer tokens than the batch's
    assert events[-1].response.usage.output_tokens < batch.usage.output_tokens
    assert len(engine.abort_calls) > before, "the engine request was aborted"


@pytest.mark.parametrize("kwargs, status, param", [
    ({"previous_response_id": "resp_1"}, 400, "previous_response_id"),
    ({"model": "no-such-model"}, 404, "model"),
    ({"input": []}, 400, None),
    ({"tool_choice": "required"}, 400, "tool_choice"),
    ({"tools": TOOLS, "tool_choice": {"type": "function", "name": "nope"}}, 400, "tool_choice"),
    ({"max_output_tokens": 0}, 400, "max_tokens"),
    ({"max_output_tokens": 10**6}, 400, "max_output_tokens"),
    ({"temperature": 3.0}, 400, "temperature"),
])
def test_errors_are_sdk_exceptions(stack, kwargs, status, param):
    _, sdk, _ = stack
    kwargs = {"model": "qwen3", "input": "Hi", **kwargs}
    expected = openai.NotFoundError if status == 404 else openai.BadRequestError
    for stream in (False, True):
        with pytest.raises(expected) as info:
            result = sdk.responses.create(stream=stream, **kwargs)
            list(result) if stream else None
        assert info.value.status_code == status
        assert info.value.body.get("param") == param


def test_python_client_responses(stack):
    _, _, engine_url = stack

    async def run() -> tuple[dict, list[dict]]:
        async with TitoClient(engine=engine_url) as client:
            body = {"model": "qwen3", "input": "Hi", "vllm_xargs": {"fake_reply": REASONING}}
            batch = await client.responses(body)
            events = [e async for e in client.responses_stream(body)]
            return batch, events

    batch, events = asyncio.run(run())
    assert comparable(Response.model_validate(events[-1]["response"])) == comparable(
        Response.model_validate(batch))
    assert batch["id"].startswith("resp_")


CUSTOM_TOOLS = [{"type": "custom", "name": "run", "description": "Run Python"},
                {"type": "namespace", "name": "crm", "description": "CRM", "tools": [
                    {"type": "function", "name": "lookup", "parameters": {"type": "object"}}]}]
CUSTOM_REPLY = ("<think>\nRun it.\n</think>\n\n<tool_call>\n"
                '{"name": "run", "arguments": {"input": "print(\\"h\\u00e9\\")\\n"}}\n</tool_call>\n'
                '<tool_call>\n{"name": "crm__lookup", "arguments": {"q": "ann"}}\n</tool_call>')


def test_custom_and_namespace_calls_then_follow_up_turn(stack):
    """The SDK's custom_tool_call items and their input events, a namespace's function call,
    stream == batch, and both calls sent back in the next turn."""
    _, sdk, _ = stack
    first = create(sdk, CUSTOM_REPLY, tools=CUSTOM_TOOLS)
    _, custom, space = first.output
    assert custom.type == "custom_tool_call" and custom.input == 'print("h\u00e9")\n'
    assert (space.type, space.name, space.namespace) == ("function_call", "lookup", "crm")
    events = list(create(sdk, CUSTOM_REPLY, tools=CUSTOM_TOOLS, stream=True))
    assert comparable(events[-1].response) == comparable(first)
    deltas = [e.delta for e in events if e.type == "response.custom_tool_call_input.delta"]
    assert "".join(deltas) == custom.input
    done = [e for e in events if e.type == "response.custom_tool_call_input.done"]
    assert [e.input for e in done] == [custom.input]
    follow = ["Run it", *[i.model_dump(exclude_none=True) for i in first.output],
              {"type": "custom_tool_call_output", "call_id": custom.call_id, "output": "hé"},
              {"type": "function_call_output", "call_id": space.call_id, "output": "found"}]
    follow[0] = {"role": "user", "content": follow[0]}
    second = create(sdk, "<think>\nok\n</think>\n\nDone.", input=follow, tools=CUSTOM_TOOLS)
    assert second.output_text == "\n\nDone."
    assert second.usage.input_tokens > first.usage.input_tokens
