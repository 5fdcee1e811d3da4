"""A streamed derender call's chunk as the dict its wire model dumps, built without the model.

Why: a stream makes one call per engine chunk, and building ``ChatCompletionStreamResponse``
(its choice, its ``DeltaMessage``, tool-call deltas) then dumping it cost more than the core
step. The dicts here are written out as the wire models dump them (:mod:`tito.protocol` keeps
the field names, their order and defaults), with the per-call values put in; values that are
models (usage, metrics, completions logprobs) are dumped by their model,
chat logprob entries are the pipeline's own dicts (already of the wire shape). ``DeltaMessage``'s
rule is kept: ``tool_calls`` only when there are some.
``tests/test_stream_chunks.py`` compares every shape with the models' dumps.
"""

from __future__ import annotations

from typing import Any

from tito.core.pipeline import ChoiceOutput

__all__ = ["chat_chunk", "chat_choice", "completion_chunk", "completion_choice"]


# Each shape is written as one dict display, its keys in the order and with the defaults its
# model dumps (cheaper than copying a template and setting the per-call values; literals, not
# dumps made at run time: dumping the models would build their pydantic schemas, ~15 ms deferred
# to first use, on a function's first streamed call). ``tests/test_stream_chunks.py`` compares
# every shape, key order included, with its model's dump.


def chat_chunk(id_: str, created: int, model: str, choices: list[dict[str, Any]],
               usage: Any = None, metrics: Any = None) -> dict[str, Any]:
    """``ChatCompletionStreamResponse(...).model_dump()``; ``usage``/``metrics``: their models."""
    return {"id": id_, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": choices, "usage": None if usage is None else usage.model_dump(),
            "system_fingerprint": None, "prompt_token_ids": None, "prompt_text": None,
            "metrics": None if metrics is None else metrics.model_dump(),
            "kv_transfer_params": None}


def completion_chunk(id_: str, created: int, model: str, choices: list[dict[str, Any]],
                     usage: Any = None, metrics: Any = None) -> dict[str, Any]:
    """``CompletionStreamResponse(...).model_dump()``."""
    return {"id": id_, "object": "text_completion", "created": created, "model": model,
            "choices": choices, "usage": None if usage is None else usage.model_dump(),
            "system_fingerprint": None,
            "metrics": None if metrics is None else metrics.model_dump(),
            "kv_transfer_params": None}


def chat_choice(index: int, out: ChoiceOutput, *, logprobs: bool,
                token_ids: list[int] | None) -> dict[str, Any]:
    """``ChatCompletionResponseStreamChoice`` of the pipeline's output: the delta (role, content,
    reasoning, tool calls), logprobs (the entries, when the engine sent logprobs), finish."""
    delta = {"role": out.role, "content": out.text or None, "reasoning": out.reasoning or None}
    if out.tool_calls:
        delta["tool_calls"] = [
            {"id": call.id, "type": "function" if call.id else None, "index": call.index,
             "function": {"name": call.name, "arguments": call.arguments}}
            for call in out.tool_calls]
    return {"index": index, "delta": delta,
            "logprobs": {"content": out.logprobs} if logprobs else None,
            "finish_reason": out.finish_reason, "stop_reason": out.stop_reason,
            "token_ids": token_ids, "weight_versions": None}


def completion_choice(index: int, text: str, out: ChoiceOutput, *, logprobs: Any,
                      token_ids: list[int] | None) -> dict[str, Any]:
    """``CompletionResponseStreamChoice``; ``logprobs``: a ``CompletionLogProbs`` or None."""
    return {"index": index, "text": text,
            "logprobs": logprobs.model_dump() if logprobs is not None else None,
            "finish_reason": out.finish_reason, "stop_reason": out.stop_reason,
            "prompt_token_ids": None, "token_ids": token_ids, "weight_versions": None}
