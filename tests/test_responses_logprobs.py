"""Output logprobs on the Responses stream (``include: ["message.output_text.logprobs"]``) with
reasoning and tool calls: independent of how the engine output is chunked.

The fake engine speaks vLLM's generate wire exactly (integer-id logprobs, the sampled token
first); ``tito.client`` runs render -> generate -> derender (in-process) and assembles the
events. Hypothesis draws the engine's chunking (tokens per event, cycled); the streamed,
assembled ``Response`` must equal the batch one, logprobs included, and the deltas' logprobs
must add up to the message's. Expected token boundaries come from the qwen3 tokenizer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from tito.adapters.fake_engine import FakeEngine, LoopbackServer, ReplyScript, create_fake_engine_app
from tito.client import TitoClient

EVENT = TypeAdapter(ResponseStreamEvent)
TOOLS = [{"type": "function", "name": "get_weather", "description": "Current weather in a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"]}}]
THINK = "<think>\nThe user wants the weather.\n</think>"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
REPLIES = [
    THINK + "\n\nLet me check that.\n" + CALL,
    THINK + "\n\n" + CALL,
    "Checking both: " + CALL + "\n" + CALL.replace("Paris", "Lyon"),
    THINK + "\n\nGrüße aus 世界 🌍, all fine.",
    "Plain text, no call at all.",
]


@pytest.fixture(scope="module")
def engine() -> Iterator[tuple[FakeEngine, str]]:
    fake = FakeEngine(ReplyScript.from_text("Hi."), tokens_per_event=1)
    with LoopbackServer(create_fake_engine_app(fake)) as url:
        yield fake, url


def body(reply: str, top: int = 2) -> dict[str, Any]:
    return {"model": "qwen3", "input": "Weather in Paris?", "tools": TOOLS,
            "include": ["message.output_text.logprobs"], "top_logprobs": top,
            "vllm_xargs": {"fake_reply": reply}}


def run(url: str, request: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    async def go() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        async with TitoClient(engine=url) as client:
            batch = await client.responses(request)
            events = [e async for e in client.responses_stream(request)]
            return batch, events

    return asyncio.run(go())


def comparable(resp: dict[str, Any]) -> dict[str, Any]:
    """Two requests differ in their random response ids (and the ids derived from them)."""
    output = [{**item, "id": "", **({"call_id": ""} if "call_id" in item else {})}
              for item in resp["output"]]
    return {**resp, "id": "", "created_at": 0, "output": output}


def message_logprobs(resp: dict[str, Any]) -> list[dict[str, Any]]:
    return [lp for item in resp["output"] if item["type"] == "message"
            for lp in item["content"][0]["logprobs"]]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reply=st.sampled_from(REPLIES), ks=st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_logprobs_do_not_depend_on_chunking(engine, reply, ks):
    fake, url = engine
    fake.tokens_per_event = ks
    batch, events = run(url, body(reply))
    for event in events:
        EVENT.validate_python(event)
    final = events[-1]["response"]
    Response.model_validate(final)
    assert comparable(final) == comparable(batch)
    # the deltas carry exactly the message's logprobs, in order
    streamed = [lp for e in events if e["type"] == "response.output_text.delta"
                for lp in e["logprobs"]]
    done = [lp for e in events if e["type"] == "response.output_text.done" for lp in e["logprobs"]]
    assert streamed == done == message_logprobs(final) == message_logprobs(batch)


def test_message_logprobs_are_the_message_tokens(engine, vocabs):
    """Reasoning, a message, a call: the message's logprobs are its own tokens, from the first
    one of its text to the last one before the call is known (its name), in the tokenizer's
    tokens; neither the reasoning's nor the call's."""
    fake, url = engine
    tok = vocabs["qwen3"].tokenizer
    reply = REPLIES[0]
    ids = tok.encode(reply, add_special_tokens=False).ids
    think = len(tok.encode(THINK, add_special_tokens=False).ids)
    for ks in ([1], [5, 2], [len(ids) + 1]):
        fake.tokens_per_event = ks
        batch, events = run(url, body(reply, top=0))
        got = message_logprobs(events[-1]["response"])
        assert got == message_logprobs(batch)
        tokens = [lp["token"] for lp in got]
        # a contiguous run of the output's tokens from the first one that releases message text:
        # "\n\n" after </think> releases nothing alone (whitespace-only content waits for more),
        # so the reasoning is still the open item after it; "Let" opens the message
        assert tok.decode([ids[think]]) == "\n\n"
        expected = [tok.decode([i]) for i in ids[think + 1:]]
        assert tokens == expected[:len(tokens)]
        text = "".join(tokens)
        assert text.startswith("Let me check that.\n<tool_call>")
        # the markup the tool parser held until the call's name was known belongs to the
        # message (the message was open after each of those tokens); the call's own tokens,
        # from the one that released its name on, carry none
        assert text.startswith('Let me check that.\n<tool_call>\n{"name": "get_weather"')
        assert "Paris" not in text
        assert all(lp["top_logprobs"] == [] for lp in got)


def test_no_message_no_logprobs_and_plain_text_gets_all(engine, vocabs):
    fake, url = engine
    tok = vocabs["qwen3"].tokenizer
    fake.tokens_per_event = [3]
    batch, _ = run(url, body(REPLIES[1]))
    assert [i["type"] for i in batch["output"]] == ["reasoning", "function_call"]
    # thinking off, the whole plain output is the message (with it on, vLLM's qwen3 rule makes
    # an output without </think> reasoning, which carries no logprobs)
    batch, events = run(url, {**body(REPLIES[4]),
                              "chat_template_kwargs": {"enable_thinking": False}})
    ids = tok.encode(REPLIES[4], add_special_tokens=False).ids
    got = message_logprobs(batch)
    # every token, and the EOS the engine stopped on (its logprob is the engine's too)
    assert [lp["token"] for lp in got][:-1] == [tok.decode([i]) for i in ids]
    assert got[-1]["token"] == "<|im_end|>"
    assert all(len(lp["top_logprobs"]) == 2 for lp in got)
    assert message_logprobs(events[-1]["response"]) == got
