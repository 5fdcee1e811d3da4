"""A streamed derender call's chunk as the dict its wire model dumps, built without the model.

Why: a stream makes one call per engine chunk, and building ``ChatCompletionStreamResponse``
(its choice, its ``DeltaMessage``, tool-call deltas) then dumping it cost more than the core
step. The dicts here are shallow copies of templates, the wire models' dumps of their defaults
(:mod:`tito.protocol` keeps the field names, their order and defaults), with the per-call values
put in; values that are models (usage, metrics, completions logprobs) are dumped by their model,
chat logprob entries are the pipeline's own dicts (already of the wire shape). ``DeltaMessage``'s
rule is kept: ``tool_calls`` only when there are some.
``tests/test_stream_chunks.py`` compares every shape with the models' dumps.
"""

from __future__ import annotations

from typing import Any

from tito.core.pipeline import ChoiceOutput

__all__ = ["chat_chunk", "chat_choice", "completion_chunk", "completion_choice"]


#: Each shape as its model dumps it with the fields left at their defaults (the per-call values
#: are put in by the functions below). Literals, not dumps made at run time: dumping the models
#: would build their pydantic schemas (~15 ms, deferred to first use) on a function's first
#: streamed call. ``tests/test_stream_chunks.py`` compares each with its model's dump.
_TEMPLATES: dict[str, dict[str, Any]] = {
    "chat": {"id": "", "object": "chat.completion.chunk", "created": 0, "model": "",
             "choices": [], "usage": None, "system_fingerprint": None, "prompt_token_ids": None,
             "prompt_text": None, "metrics": None},
    "chat_choice": {"index": 0, "delta": {"role": None, "content": None, "reasoning": None},
                    "logprobs": None, "finish_reason": None, "stop_reason": None,
                    "token_ids": None},
    "delta": {"role": None, "content": None, "reasoning": None},
    "tool_call": {"id": None, "type": None, "index": 0, "function": None},
    "function": {"name": None, "arguments": None},
    "logprobs": {"content": None},
    "completion": {"id": "", "object": "text_completion", "created": 0, "model": "",
                   "choices": [], "usage": None, "system_fingerprint": None, "metrics": None},
    "completion_choice": {"index": 0, "text": "", "logprobs": None, "finish_reason": None,
                          "stop_reason": None, "prompt_token_ids": None, "token_ids": None},
}


def _chunk(kind: str, id_: str, created: int, model: str, choices: list[dict[str, Any]],
           usage: Any, metrics: Any) -> dict[str, Any]:
    out = dict(_TEMPLATES[kind])
    out["id"], out["created"], out["model"], out["choices"] = id_, created, model, choices
    if usage is not None:
        out["usage"] = usage.model_dump()
    if metrics is not None:
        out["metrics"] = metrics.model_dump()
    return out


def chat_chunk(id_: str, created: int, model: str, choices: list[dict[str, Any]],
               usage: Any = None, metrics: Any = None) -> dict[str, Any]:
    """``ChatCompletionStreamResponse(...).model_dump()``; ``usage``/``metrics``: their models."""
    return _chunk("chat", id_, created, model, choices, usage, metrics)


def completion_chunk(id_: str, created: int, model: str, choices: list[dict[str, Any]],
                     usage: Any = None, metrics: Any = None) -> dict[str, Any]:
    """``CompletionStreamResponse(...).model_dump()``."""
    return _chunk("completion", id_, created, model, choices, usage, metrics)


def chat_choice(index: int, out: ChoiceOutput, *, logprobs: bool,
                token_ids: list[int] | None) -> dict[str, Any]:
    """``ChatCompletionResponseStreamChoice`` of the pipeline's output: the delta (role, content,
    reasoning, tool calls), logprobs (the entries, when the engine sent logprobs), finish."""
    templates = _TEMPLATES
    delta = dict(templates["delta"])
    delta["role"] = out.role
    delta["content"] = out.text or None
    delta["reasoning"] = out.reasoning or None
    if out.tool_calls:
        calls = []
        for call in out.tool_calls:
            item = dict(templates["tool_call"])
            item["id"], item["index"] = call.id, call.index
            item["type"] = "function" if call.id else None
            function = item["function"] = dict(templates["function"])
            function["name"], function["arguments"] = call.name, call.arguments
            calls.append(item)
        delta["tool_calls"] = calls
    choice = dict(templates["chat_choice"])
    choice["index"], choice["delta"] = index, delta
    if logprobs:
        choice["logprobs"] = dict(templates["logprobs"])
        choice["logprobs"]["content"] = out.logprobs
    choice["finish_reason"], choice["stop_reason"] = out.finish_reason, out.stop_reason
    choice["token_ids"] = token_ids
    return choice


def completion_choice(index: int, text: str, out: ChoiceOutput, *, logprobs: Any,
                      token_ids: list[int] | None) -> dict[str, Any]:
    """``CompletionResponseStreamChoice``; ``logprobs``: a ``CompletionLogProbs`` or None."""
    choice = dict(_TEMPLATES["completion_choice"])
    choice["index"], choice["text"] = index, text
    choice["logprobs"] = logprobs.model_dump() if logprobs is not None else None
    choice["finish_reason"], choice["stop_reason"] = out.finish_reason, out.stop_reason
    choice["token_ids"] = token_ids
    return choice
