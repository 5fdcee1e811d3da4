"""Streamed chunks built as dicts (``tito.service.stream_chunks``) equal the wire models' dumps.

Why: the per-call shaping skips ``ChatCompletionStreamResponse`` / ``CompletionStreamResponse``
for speed; a client must get the same JSON, byte for byte, as those models give. The reference
builds the models from the same pipeline output, as the service did, and dumps them.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core.pipeline import ChoiceOutput, ToolCallOut
from tito.protocol import (
    ChatCompletionLogProbs,
    ChatCompletionResponseStreamChoice,
    ChatCompletionStreamResponse,
    CompletionLogProbs,
    CompletionResponseStreamChoice,
    CompletionStreamResponse,
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    PerRequestMetrics,
    UsageInfo,
)
from tito.protocol.common import CompletionTokenUsageInfo
from tito.service import stream_chunks

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
NAME = st.none() | TEXT
ENTRY = st.fixed_dictionaries({
    "token": TEXT, "logprob": st.floats(-50, 0), "bytes": st.lists(st.integers(0, 255), max_size=3),
    "top_logprobs": st.lists(st.fixed_dictionaries({"token": TEXT, "logprob": st.floats(-50, 0),
                                                    "bytes": st.none()}), max_size=2),
})
CALL = st.builds(ToolCallOut, index=st.integers(0, 3), id=NAME, name=NAME, arguments=TEXT)
OUTPUT = st.builds(
    ChoiceOutput, text=TEXT, reasoning=TEXT, tool_calls=st.lists(CALL, max_size=2),
    logprobs=st.none() | st.lists(ENTRY, max_size=2),
    finish_reason=st.sampled_from([None, "stop", "length", "tool_calls"]),
    stop_reason=st.none() | st.integers(0, 10**6) | TEXT, role=st.sampled_from([None, "assistant"]),
)
USAGE = st.none() | st.builds(
    UsageInfo, prompt_tokens=st.integers(0, 99), completion_tokens=st.integers(0, 99),
    total_tokens=st.integers(0, 99),
    completion_tokens_details=st.none() | st.builds(CompletionTokenUsageInfo,
                                                    reasoning_tokens=st.integers(0, 9)))
METRICS = st.none() | st.sampled_from([
    PerRequestMetrics.model_validate({}),
    PerRequestMetrics.model_validate({"time_to_first_token_ms": 1.5, "engine_extra": [1, "x"]}),
])
IDS = st.none() | st.lists(st.integers(0, 151935), max_size=3)


def _same(built: dict[str, Any], model: Any) -> None:
    reference = model.model_dump(warnings=False)
    assert built == reference
    assert json.dumps(built, ensure_ascii=False) == json.dumps(reference, ensure_ascii=False)


def _delta(out: ChoiceOutput) -> DeltaMessage:
    return DeltaMessage(
        role=out.role, content=out.text or None, reasoning=out.reasoning or None,
        tool_calls=[DeltaToolCall(index=c.index, id=c.id, type="function" if c.id else None,
                                  function=DeltaFunctionCall(name=c.name, arguments=c.arguments))
                    for c in out.tool_calls],
    )


@given(out=OUTPUT, index=st.integers(0, 3), logprobs=st.booleans(), token_ids=IDS, usage=USAGE,
       metrics=METRICS, created=st.integers(0, 2**40), id_=TEXT, model=TEXT)
@settings(max_examples=150, deadline=None)
def test_chat_chunk_is_the_models_dump(out: ChoiceOutput, index: int, logprobs: bool,
                                       token_ids: Any, usage: Any, metrics: Any, created: int,
                                       id_: str, model: str) -> None:
    if logprobs and out.logprobs is None:
        out.logprobs = []
    choice = stream_chunks.chat_choice(index, out, logprobs=logprobs, token_ids=token_ids)
    reference = ChatCompletionResponseStreamChoice(
        index=index, delta=_delta(out),
        logprobs=ChatCompletionLogProbs.model_construct(content=out.logprobs) if logprobs else None,
        finish_reason=out.finish_reason, stop_reason=out.stop_reason, token_ids=token_ids)
    _same(choice, reference)
    chunk = stream_chunks.chat_chunk(id_, created, model, [choice], usage, metrics)
    _same(chunk, ChatCompletionStreamResponse(id=id_, created=created, model=model,
                                              choices=[reference], usage=usage, metrics=metrics))


@given(out=OUTPUT, index=st.integers(0, 3), text=TEXT, logprobs=st.booleans(), token_ids=IDS,
       usage=USAGE, metrics=METRICS, created=st.integers(0, 2**40), id_=TEXT, model=TEXT,
       offsets=st.lists(st.integers(0, 99), max_size=2))
@settings(max_examples=100, deadline=None)
def test_completion_chunk_is_the_models_dump(out: ChoiceOutput, index: int, text: str,
                                             logprobs: bool, token_ids: Any, usage: Any,
                                             metrics: Any, created: int, id_: str, model: str,
                                             offsets: list[int]) -> None:
    lp = CompletionLogProbs(text_offset=offsets, token_logprobs=[-1.0] * len(offsets),
                            tokens=["a"] * len(offsets), top_logprobs=[None] * len(offsets)
                            ) if logprobs else None
    choice = stream_chunks.completion_choice(index, text, out, logprobs=lp, token_ids=token_ids)
    reference = CompletionResponseStreamChoice(index=index, text=text, logprobs=lp,
                                               finish_reason=out.finish_reason,
                                               stop_reason=out.stop_reason, token_ids=token_ids)
    _same(choice, reference)
    chunk = stream_chunks.completion_chunk(id_, created, model, [choice], usage, metrics)
    _same(chunk, CompletionStreamResponse(id=id_, created=created, model=model,
                                          choices=[reference], usage=usage, metrics=metrics))


def test_chunks_never_share_dicts() -> None:
    """Each chunk owns its dicts: changing one (a caller filling in fields) changes no other."""
    out = ChoiceOutput(text="a", tool_calls=[ToolCallOut(index=0, id="x", name="f")])
    first = stream_chunks.chat_chunk("i", 1, "m", [stream_chunks.chat_choice(
        0, out, logprobs=False, token_ids=None)])
    first["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = "changed"
    first["usage"] = "changed"
    second = stream_chunks.chat_chunk("i", 1, "m", [stream_chunks.chat_choice(
        0, out, logprobs=False, token_ids=None)])
    assert second["usage"] is None
    assert second["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "f"
