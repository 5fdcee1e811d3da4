"""Derender operations: one request in, one OpenAI response (or one stream chunk) out.

Why this layer: it is where a request meets the core. It resolves the model, checks the bounds of
spec 3.1 (each a 400 naming the limit, checked before any decoding), turns the request's fields into
the pipeline's :class:`~tito.core.pipeline.ChoiceConfig`, runs the per-choice state machine and
shapes the result with the protocol models. A batch derender is the stream of one chunk plus
finish, through the very same :func:`~tito.core.pipeline.step_choice`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from tito import models as _models
from tito.models import ServedModel
from tito.protocol import (
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatMessage,
    DerenderChatRequest,
    DerenderChatStreamRequest,
)
from tito.core.parsers.empty_output import empty_output
from tito.errors import BadRequest
from tito.service import stream_body
from tito.service.config import chat_config, completion_config
from tito.service.derender_checks import _check_choice_count, _check_ids, _check_response
from tito.service.derender_shaping import (
    _batch_choice,
    _chat_logprobs,
    _echo,
    _echo_requested,
    _has_logprobs,
    _hides_metadata,
    _join_lp,
    _merge_calls,
    _parsing,
    _prompt_tokens,
    _reasoning_tokens,
    _seed,
    _token_ids,
    _usage,
    prompt_string,
)

# the streamed call, importable from here as before (its own module since the split)
from tito.service.derender_stream import derender_chat_stream, derender_completion_stream

if TYPE_CHECKING:  # the completions models: imported where used (a chat derender function
    # never defines them)
    from tito.protocol import (
        CompletionResponse,
        DerenderCompletionRequest,
        DerenderCompletionStreamRequest,
    )

__all__ = ["derender_chat", "derender_chat_stream", "derender_completion",
           "derender_completion_stream", "handle_chat", "handle_completions",
           "handle_stream_body"]


def _empty_output(
    model: ServedModel, cfg: Any, seed: Any, choice: Any, response_id: str, *, checked: bool
) -> tuple[str | None, str | None]:
    """The message's (reasoning, content) when the parsers made nothing of a choice: vLLM's
    answer for an empty output text (``""`` or null by parser:
    :mod:`tito.core.parsers.empty_output`) if the text was empty, else (null, null). Whether
    it was is asked, unless ``checked`` (no parser ran: the content is the text), of the same
    ids decoded with the parsers off (markers kept as text), only in this rare case."""
    if not checked:
        plain = cfg.model_copy(update={"reasoning_parser": None, "tool_parser": None,
                                       "tool_choice": "none"})
        if _batch_choice(model, plain, seed, choice, response_id, choice.index)[1].text:
            return None, None
    reasoning, content = empty_output(
        model.config.tool_parser, cfg.reasoning_parser,
        thinking=cfg.reasoning_enabled, auto_tools=cfg.tool_choice == "auto")
    return (reasoning if cfg.include_reasoning else None), content


def derender_chat(model: ServedModel, req: DerenderChatRequest) -> ChatCompletionResponse:
    """Batch chat derender: every choice through the pipeline as one chunk plus finish."""
    resp = req.generate_response
    _check_response(model, resp, "generate_response")
    _check_ids(model, req.prompt_token_ids, "prompt_token_ids")
    cfg = chat_config(model, req.chat_request or req.derender_context)
    seed = _seed(req.prompt_token_ids, resp.prompt_token_ids, req.derender_context)
    choices = []
    completion_tokens = 0
    reasoning_total: int | None = None
    seen: dict[int, int] = {}  # index -> its choices so far (an engine may repeat an index)
    for choice in resp.choices:
        completion_tokens += len(choice.token_ids or [])
        repeat = seen[choice.index] = seen.get(choice.index, -1) + 1
        # (a repeated index: its calls' ids derive from a salted response id, so no two calls
        # share one, as vLLM 0.33's random ids; the first keeps its stream's ids)
        rid = resp.request_id if not repeat else f"{resp.request_id}\x00{repeat}"
        state, out = _batch_choice(model, cfg, seed, choice, rid, choice.index)
        r = _reasoning_tokens(cfg, state)
        if r is not None:
            reasoning_total = (reasoning_total or 0) + r
        tool_calls = _merge_calls([out])
        content: str | None = out.text
        reasoning = out.reasoning or None
        parsing = _parsing(cfg)
        if content:
            pass
        elif cfg.tool_choice in ("required", "named"):
            content = ""
        elif reasoning is None and not tool_calls and not cfg.harmony and (
                parsing or model.config.tool_parser):
            reasoning, content = _empty_output(model, cfg, seed, choice, resp.request_id,
                                               checked=not parsing)
        elif parsing:  # vLLM's parser path: no content is null, not ""
            content = None
        choices.append(
            ChatCompletionResponseChoice(
                index=choice.index,
                message=ChatMessage(
                    role="assistant",
                    content=content,
                    reasoning=reasoning,
                    tool_calls=tool_calls,
                ),
                logprobs=(
                    _chat_logprobs(out)
                    if _has_logprobs(choice) and not _hides_metadata(model, cfg) else None
                ),
                finish_reason=out.finish_reason or _unfinished_reason(cfg, tool_calls),
                stop_reason=out.stop_reason,
                token_ids=_token_ids(model, cfg, choice.token_ids),
            )
        )
    return ChatCompletionResponse(
        id=resp.request_id,
        created=int(time.time()),
        model=req.model or model.name,
        choices=choices,
        usage=_usage(_prompt_tokens(req), completion_tokens, reasoning_total),
        prompt_logprobs=resp.prompt_logprobs,
        # return_token_ids: the engine's prompt ids, as vLLM (not hidden with the reasoning)
        prompt_token_ids=resp.prompt_token_ids if cfg.return_token_ids else None,
        kv_transfer_params=resp.kv_transfer_params,
        metrics=resp.metrics,
    )


def _unfinished_reason(cfg: Any, tool_calls: list[Any]) -> str:
    """A chat choice the engine sent without ``finish_reason``: ``stop``, or ``tool_calls`` when
    it holds calls (not for a named tool), as vLLM's ``resolve_finish_reason`` reads it (a
    completions choice keeps null, as vLLM's)."""
    return "tool_calls" if tool_calls and cfg.tool_choice in ("auto", "required") else "stop"


def derender_completion(model: ServedModel, req: DerenderCompletionRequest) -> CompletionResponse:
    """Batch completions derender: every choice of every response, indices counted across them."""
    from tito.core import logprobs as lp
    from tito.protocol import CompletionLogProbs, CompletionResponse, CompletionResponseChoice

    responses = req.generate_responses
    if not responses:
        raise BadRequest("generate_responses must not be empty", param="generate_responses")
    _check_choice_count(len(responses), "generate_responses", "generate_responses")
    n = len(responses)
    if req.prompt_tokens is not None and len(req.prompt_tokens) != n:
        raise BadRequest(
            f"prompt_tokens has {len(req.prompt_tokens)} entries for {n} generate_responses",
            param="prompt_tokens",
        )
    if req.prompt_token_ids is not None and len(req.prompt_token_ids) != n:
        raise BadRequest(
            f"prompt_token_ids has {len(req.prompt_token_ids)} entries for {n} generate_responses",
            param="prompt_token_ids",
        )
    for r, resp in enumerate(responses):
        _check_response(model, resp, f"generate_responses.{r}")
        if req.prompt_token_ids is not None:
            _check_ids(model, req.prompt_token_ids[r], f"prompt_token_ids.{r}")
    settings = req.completion_request or req.derender_context
    if req.derender_context is not None:
        _check_ids(model, req.derender_context.prompt_token_ids, "derender_context.prompt_token_ids")
    cfg = completion_config(model, settings)
    echo = _echo_requested(settings)
    # the echoed prompt's logprobs only with the request's logprobs (vLLM's completions)
    echo_lp = settings is not None and settings.logprobs is not None \
        and settings.logprobs is not False  # (0 asks for them: the sampled token's alone)
    choices = []
    k = 0
    prompt_tokens = completion_tokens = 0
    for r, resp in enumerate(responses):
        seed = req.prompt_token_ids[r] if req.prompt_token_ids is not None else None
        if seed is None:
            seed = resp.prompt_token_ids
        if seed is None and len(responses) == 1:
            seed = _seed(None, None, req.derender_context)  # render's context (gateway path)
        for choice in resp.choices:
            completion_tokens += len(choice.token_ids or [])
            _, out = _batch_choice(model, cfg, seed, choice, resp.request_id, k)
            prefix, prefix_lp, offset = (
                _echo(model, cfg, seed, resp.prompt_logprobs if echo_lp else None,
                      prompt_string(settings, r, len(responses))) if echo
                else ("", None, 0)
            )
            logprobs = None
            if _has_logprobs(choice) or prefix_lp is not None:
                logprobs_dict, _ = lp.to_completion(out.logprobs or [], offset)
                logprobs = CompletionLogProbs(**_join_lp(prefix_lp, logprobs_dict))
            choices.append(
                CompletionResponseChoice(
                    index=k,
                    text=prefix + out.text,
                    logprobs=logprobs,
                    finish_reason=out.finish_reason,
                    stop_reason=out.stop_reason,
                    prompt_token_ids=resp.prompt_token_ids if cfg.return_token_ids else None,
                    token_ids=_token_ids(model, cfg, choice.token_ids),
                )
            )
            k += 1
        prompt_tokens += req.prompt_tokens[r] if req.prompt_tokens is not None else 0
    kv = [resp.kv_transfer_params for resp in responses]
    return CompletionResponse(
        id=responses[0].request_id,
        created=int(time.time()),
        model=req.model or model.name,
        choices=choices,
        usage=_usage(prompt_tokens, completion_tokens, None),
        kv_transfer_params=kv[0] if all(x == kv[0] for x in kv) else None,
        metrics=responses[0].metrics if len(responses) == 1 else None,
    )


def handle_chat(body: DerenderChatRequest | DerenderChatStreamRequest) -> dict[str, Any]:
    """A validated chat derender body (batch or one streamed call) -> the response as a dict."""
    from tito.models import get_registry

    model = get_registry().get(body.model)
    if isinstance(body, DerenderChatStreamRequest):
        return derender_chat_stream(model, body)
    return _dump_chat(derender_chat(model, body))


def _dump_chat(resp: ChatCompletionResponse) -> dict[str, Any]:
    """The batch response as a dict, its resolved logprob entries put in as they are (already
    plain dicts of the wire shape: serializing tens of thousands again would only copy them)."""
    out = resp.model_dump(exclude={"choices": {"__all__": {"logprobs": {"content"}}}})
    for choice, dumped in zip(resp.choices, out["choices"], strict=True):
        if choice.logprobs is not None:
            dumped["logprobs"]["content"] = choice.logprobs.content
    return out


def handle_stream_body(data: Any, *, completion: bool) -> tuple[dict[str, Any], bool] | None:
    """(the answer, whether it is float-free) to a parsed JSON body that is the common streamed
    call (:func:`tito.service.stream_body.read`: checked by hand, no pydantic), or None:
    validate the body with its model and call :func:`handle_chat` / :func:`handle_completions`.

    Same answers and errors as those (the checks after validation are the same code)."""
    call = stream_body.read(data)
    if call is None:
        return None
    model = _models.get_registry().get(call.model)  # (the module's: tests may replace it)
    run = derender_completion_stream if completion else derender_chat_stream
    try:
        return run(model, call), call.float_free  # type: ignore[operator]
    except stream_body.NotCommon:  # (a state's vLLM fields, checked late: the model's)
        return None


def handle_completions(
    body: DerenderCompletionRequest | DerenderCompletionStreamRequest,
) -> dict[str, Any]:
    """A validated completions derender body (batch or one streamed call) -> the response."""
    from tito.models import get_registry

    model = get_registry().get(body.model)
    if body.stream:  # DerenderCompletionStreamRequest (its stream is Literal[True])
        return derender_completion_stream(model, body)
    return derender_completion(model, body).model_dump()
