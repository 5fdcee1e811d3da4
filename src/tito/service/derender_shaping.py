"""Derender shaping: engine values and request settings to the pipeline's inputs and the wire.

Why a module of its own: the batch derender (:mod:`tito.service.derender`), the streamed one
(:mod:`tito.service.derender_stream`) and the Responses derender read the engine's logprobs and
ids, seed the detokenizer and count usage the same way; these helpers are that shared part
(completions' ``echo`` of the prompt included).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from tito.core.pipeline import ChoiceConfig, ChoiceOutput, ChoiceState, start_choice, step_choice
from tito.core.pipeline_parsers import parses_tools
from tito.errors import BadRequest
from tito.models import ServedModel
from tito.protocol import (
    ChatCompletionLogProbs,
    FunctionCall,
    GenerateTokensStreamResponse,
    ToolCall,
    UsageInfo,
)
from tito.protocol.common import CompletionTokenUsageInfo

if TYPE_CHECKING:  # the completions models: imported where used (a chat derender function
    # never defines them)
    from tito.protocol import CompletionRequest


def _engine_logprobs(choice: Any) -> list[dict[str, Any]] | None:
    """The choice's logprob entries as plain dicts (integer-id or legacy shape), or None."""
    if choice.logprobs is None or choice.logprobs.content is None:
        return None
    content = choice.logprobs.content
    if not content or type(content[0]) is dict:
        return content  # the integer-id shape: held as dicts (``GenerateLogProbs``)
    return choice.logprobs.model_dump()["content"]  # legacy: one serializer call for all


def _hides_metadata(model: ServedModel, cfg: ChoiceConfig) -> bool:
    """``include_reasoning: false`` on a model with a reasoning or tool parser: a chat choice's
    logprobs and token ids are left out (they would show the reasoning), as vLLM's derender
    and coupled chat endpoint do whenever the server has a parser (the request's tools aside)."""
    return not cfg.include_reasoning and not cfg.completion and (
        model.config.reasoning_parser is not None or model.config.tool_parser is not None)


def _token_ids(model: ServedModel, cfg: ChoiceConfig,
               ids: Sequence[int] | None) -> list[int] | None:
    """``return_token_ids``: the choice's (or chunk's) engine ids, as vLLM returns them; hidden
    with the reasoning (:func:`_hides_metadata`)."""
    if not cfg.return_token_ids or _hides_metadata(model, cfg):
        return None
    return list(ids or [])


def _has_logprobs(choice: Any) -> bool:
    return choice.logprobs is not None


def _chat_logprobs(out: ChoiceOutput) -> ChatCompletionLogProbs:
    """The choice's resolved logprob entries as the wire model, not validated again: they are
    :func:`tito.core.logprobs.resolve`'s own dicts, of exactly the wire shape (a batch has tens
    of thousands); :func:`_dump_chat` puts them into the dumped response as they are."""
    return ChatCompletionLogProbs.model_construct(content=out.logprobs)


def _usage(prompt_tokens: int, completion_tokens: int, reasoning: int | None) -> UsageInfo:
    return UsageInfo(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
        completion_tokens_details=(
            CompletionTokenUsageInfo(reasoning_tokens=reasoning) if reasoning is not None else None
        ),
    )


def _reasoning_tokens(cfg: ChoiceConfig, state: ChoiceState) -> int | None:
    if cfg.reasoning_parser is None:
        return None
    if state.harmony is not None:
        return state.harmony.reasoning_tokens
    if state.muse is not None:
        return state.muse.reasoning_tokens
    if state.inkling is not None:
        return state.inkling.reasoning_tokens
    if state.reasoning is None:
        return None
    return state.reasoning.reasoning_tokens


def _merge_calls(outputs: list[ChoiceOutput]) -> list[ToolCall]:
    """Collapse streamed tool-call deltas into complete calls (batch shape)."""
    calls: dict[int, dict[str, str]] = {}
    for out in outputs:
        for d in out.tool_calls:
            c = calls.setdefault(d.index, {"id": "", "name": "", "arguments": ""})
            c["id"] = d.id or c["id"]
            c["name"] = d.name or c["name"]
            c["arguments"] += d.arguments
    return [
        ToolCall(id=c["id"], function=FunctionCall(name=c["name"], arguments=c["arguments"]))
        for _, c in sorted(calls.items())
    ]


def _seed(
    request_ids: Sequence[int] | None, engine_ids: Sequence[int] | None, context: Any
) -> Sequence[int] | None:
    """Prompt ids seeding the detokenizer: request, then engine payload, then render's context."""
    if request_ids is not None:
        return request_ids
    if engine_ids is not None:
        return engine_ids
    if context is not None and getattr(context, "prompt_token_ids", None):
        return context.prompt_token_ids  # echo: the whole prompt
    if context is not None and context.prompt_tail:
        return context.prompt_tail
    return None


def _prompt_tokens(req: Any) -> int:
    if req.prompt_tokens is not None:
        return int(req.prompt_tokens)
    context = getattr(req, "derender_context", None)
    return int(context.prompt_tokens or 0) if context is not None else 0


def _batch_choice(
    model: ServedModel,
    cfg: ChoiceConfig,
    seed: Sequence[int] | None,
    choice: Any,
    response_id: str,
    index: int,
) -> tuple[ChoiceState, ChoiceOutput]:
    """A whole choice through the streaming state machine: one chunk with every id, then finish.

    This is what makes batch == stream by construction: there is no separate batch decoder.
    """
    state = start_choice(model.vocab, cfg, seed)
    return step_choice(
        model.vocab,
        cfg,
        state,
        list(choice.token_ids or []),
        finish_reason=choice.finish_reason,
        last=True,
        stop_reason=choice.stop_reason,
        engine_logprobs=_engine_logprobs(choice),
        response_id=response_id,
        choice_index=index,
    )


def _replayed(cfg: ChoiceConfig) -> bool:
    """Is the state of these settings more than vLLM's window fields can carry (parsers, or stop
    strings with their hold-back and fired flag)? A client keeping only vLLM's fields then
    continues by replaying ``output_token_ids``, vLLM's own method."""
    return _parsing(cfg) or bool(cfg.stop.stop)


def _parsing(cfg: ChoiceConfig) -> bool:
    """Does a reasoning or tool parser run for these settings?"""
    return cfg.reasoning_parser is not None or parses_tools(cfg)


def _stream_chunks(req: Any) -> list[GenerateTokensStreamResponse]:
    if req.generate_chunks is None:  # (the usual call: one chunk)
        return [] if req.generate_chunk is None else [req.generate_chunk]
    return [c for c in req.generate_chunks if c is not None]


def _echo_requested(req: CompletionRequest | None) -> bool:
    """``echo`` prepends the prompt. A ``suffix`` is render's business (DeepSeek-V4's
    fill-in-the-middle prompt, else render's 400): derender shapes the output alone and never
    reads it, as vLLM 0.33's derender."""
    return req is not None and bool(req.echo)


def prompt_string(settings: Any, index: int, count: int) -> str | None:
    """The prompt string of response ``index`` of ``count`` when the completions request sent
    its prompt as text (one string, or one string per response), else None (ids, or render's
    ``derender_context``, which carries no text)."""
    prompt = getattr(settings, "prompt", None)
    if isinstance(prompt, str):
        return prompt if count == 1 else None
    if isinstance(prompt, list) and len(prompt) == count and isinstance(prompt[index], str):
        return prompt[index]
    return None


def stream_prompt_string(model: ServedModel, settings: Any,
                         prompt_ids: Sequence[int] | None) -> str | None:
    """The prompt string a completions stream echoes: one stream is one prompt's, and its
    chunks do not say which of a list's, so a list's string is the one render encodes to the
    stream's prompt ids (vLLM's completions echo each prompt as sent); None when none does
    (ids, a truncated prompt: its ids are decoded). Encodes at most the request's prompts,
    once per stream (its first call), as render did."""
    prompt = getattr(settings, "prompt", None)
    if not isinstance(prompt, list) or len(prompt) == 1:
        return prompt_string(settings, 0, 1)
    if not prompt_ids:
        return None
    from tito.core.render_tokenize import tokenize_prompt

    add = getattr(settings, "add_special_tokens", True) is not False
    want = list(prompt_ids)
    return next((p for p in prompt if isinstance(p, str) and tokenize_prompt(
        model.vocab, p, add_special_tokens=add).token_ids == want), None)


def _echo(
    model: ServedModel,
    cfg: ChoiceConfig,
    prompt_ids: Sequence[int] | None,
    prompt_logprobs: list[Any] | None,
    prompt_text: str | None = None,
) -> tuple[str, dict[str, Any] | None, int]:
    """The echoed prompt: its text, its completion-shaped logprobs (when the engine sent
    ``prompt_logprobs``) and the text offset where the output's logprobs continue. Each
    position keeps the engine's first ``cfg.top_logprobs`` candidates (``logprobs + 1``), as
    vLLM's completions cut the echoed prompt's logprobs and the output's alike.

    The text is ``prompt_text`` when the request's prompt was that string (vLLM's completions
    echo the prompt as sent, ``final_res.prompt``: no BOS the tokenizer added, whatever
    ``skip_special_tokens``), else the prompt's ids decoded; ``""`` with ``return_token_ids``,
    as vLLM 0.33's completions (``prompt_text = ""``: the client has the prompt's ids on the
    choice), which still echo the prompt's logprobs, their offsets counted from 0. The
    logprobs' offsets count every token string, the prompt's BOS too (vLLM's
    ``_create_completion_logprobs``), so they run past the echoed text's length."""
    from tito.core import logprobs as lp

    if prompt_ids is None:
        raise BadRequest("echo needs the prompt: send prompt_token_ids", param="prompt_token_ids")
    text = "" if cfg.return_token_ids else prompt_text if prompt_text is not None else (
        model.vocab.decode(prompt_ids, skip_special_tokens=cfg.skip_special_tokens))
    if prompt_logprobs is None:
        return text, None, len(text)
    entries: list[dict[str, Any]] = []
    for pos, token_id in enumerate(prompt_ids):
        at = prompt_logprobs[pos] if pos < len(prompt_logprobs) else None
        if not at:
            entries.append({"token_id": token_id, "logprob": 0.0, "top_logprobs": []})
            continue
        mine = at.get(token_id)
        entries.append({
            "token_id": token_id,
            "logprob": mine.logprob if mine is not None else -9999.0,
            "top_logprobs": [{"token_id": t, "logprob": v.logprob}
                             for t, v in islice(at.items(), cfg.top_logprobs)],
        })
    resolved, _ = lp.resolve(model.vocab, entries, [])
    shaped, offset = lp.to_completion(resolved, 0)
    for pos in range(len(prompt_ids)):  # positions the engine could not score (the first)
        if pos >= len(prompt_logprobs) or not prompt_logprobs[pos]:
            shaped["token_logprobs"][pos] = None
            shaped["top_logprobs"][pos] = None
    return text, shaped, offset


def _join_lp(first: dict[str, Any] | None, second: dict[str, Any]) -> dict[str, Any]:
    if first is None:
        return second
    return {key: first[key] + second[key] for key in second}
