"""From a request's OpenAI fields to the pipeline's per-stream settings.

Why one module: batch and stream, chat and completions all derive their
:class:`~tito.core.pipeline.ChoiceConfig` here, so the same request always decodes the same way.
Decode flags: the request's ``skip_special_tokens`` holds; when a parser will run, the special
tokens among its markers (Mistral's ``[TOOL_CALLS]``) are kept in the text so the parser sees them
(:func:`tito.core.parsers.marker_special_ids`). vLLM turns ``skip_special_tokens`` off for such
parsers instead, which lets every other special token leak into the content.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tito.core.pipeline import ChoiceConfig
from tito.models import ServedModel
from tito.protocol.derender import DerenderContext
from tito.models.config import mapped_effort

if TYPE_CHECKING:
    from tito.protocol import ChatCompletionRequest, CompletionRequest


def _tool_mode(model: ServedModel, req: ChatCompletionRequest | None) -> tuple[str, str | None]:
    """(mode, named function) for a chat request: none, auto, required or named."""
    if req is None or not req.tools:
        return "none", None
    choice: Any = req.tool_choice
    if choice is None or choice == "auto":
        return ("auto", None) if model.config.tool_parser else ("none", None)
    if choice in ("none", "required"):
        return choice, None
    name = choice.function.name if hasattr(choice, "function") else choice["function"]["name"]
    return "named", name


def _stop_config(req: ChatCompletionRequest | CompletionRequest | None) -> Any:
    from tito.core.stops import StopConfig

    return StopConfig.from_request(req)


def template_kwargs(model: ServedModel, req: ChatCompletionRequest | None) -> dict[str, Any]:
    """The effective chat-template kwargs the reasoning parser is built with, as vLLM 0.33's
    ``build_chat_params``: server defaults < the request's ``chat_template_kwargs`` (their null
    and ``"auto"`` values left out, as its ``merge_kwargs`` does: ``enable_thinking: null`` is no
    switch) < its ``reasoning_effort`` field (hy_v3 / hy_v4 / k2_horizon read it there), with
    ``enable_thinking`` derived from it when the request did not set that. (A render's
    ``derender_context`` already carries these, its ``reasoning_effort`` is None.)"""
    kwargs: dict[str, Any] = dict(model.config.default_chat_template_kwargs)
    if req is not None:
        user = req.chat_template_kwargs or {}
        kwargs.update({k: v for k, v in user.items() if v is not None and v != "auto"})
        effort = mapped_effort(getattr(req, "reasoning_effort", None),
                               model.config.reasoning_effort_map)
        if effort is not None:
            kwargs["reasoning_effort"] = effort
            if "enable_thinking" not in user:
                kwargs["enable_thinking"] = effort != "none"
    return kwargs


def _chat_top_logprobs(req: Any) -> int | None:
    """vLLM's ``chat_top_logprobs_limit``: the first ``top_logprobs`` candidates (none when only
    ``logprobs: true``), all for ``-1`` / ``logprob_token_ids``; None without a request that asks
    for logprobs (the engine's candidates pass through)."""
    if req is None or not getattr(req, "logprobs", None):
        return None
    top = getattr(req, "top_logprobs", None)
    if top == -1 or getattr(req, "logprob_token_ids", None):
        return None
    return int(top or 0)


def _completion_top_logprobs(req: Any) -> int | None:
    """vLLM's ``completion_top_logprobs_limit``: ``logprobs + 1`` candidates (OpenAI's
    completions convention), all for ``-1`` / ``logprob_token_ids`` or without ``logprobs``."""
    logprobs = getattr(req, "logprobs", None) if req is not None else None
    if logprobs is None or isinstance(logprobs, bool) or logprobs == -1 \
            or getattr(req, "logprob_token_ids", None):
        return None
    return max(int(logprobs) + 1, 0)


def _harmony_marker_ids(vocab: Any) -> list[int]:
    from tito.core.parsers.harmony import harmony_marker_ids  # gpt-oss only

    return harmony_marker_ids(vocab)


def _decode_flags(model: ServedModel, req: Any) -> tuple[bool, list[int]]:
    """(skip_special_tokens, special ids kept as text) of the request's output. A vocabulary
    whose detokenizer shows only some special tokens (:attr:`~tito.core.vocab.Vocab.
    text_special_ids`: vLLM's Mistral one) reads ``skip_special_tokens: false`` as skipping
    every other special token, so one between two words keeps the space after it."""
    skip = req.skip_special_tokens if req else True
    shown = model.vocab.text_special_ids
    if not skip and shown is not None:
        return True, sorted(shown)
    return skip, []


def chat_config(model: ServedModel, req: ChatCompletionRequest | None) -> ChoiceConfig:
    """Settings for a chat choice; ``req`` may be None (defaults, no tools)."""
    from tito.core.parsers import is_harmony, is_inkling, is_muse, marker_special_ids
    from tito.core.parsers.reasoning_formats import get_reasoning_parser

    mode, named = _tool_mode(model, req)
    reasoning = model.config.reasoning_parser
    harmony = is_harmony(model.config.tool_parser, reasoning)
    enabled, variant = True, ""
    muse = is_muse(model.config.tool_parser, reasoning) or is_inkling(
        model.config.tool_parser, reasoning)  # (routers: no reasoning row, no switch)
    if reasoning is not None and not harmony and not muse:
        row, kwargs = get_reasoning_parser(reasoning), template_kwargs(model, req)
        row.check_kwargs(kwargs)
        enabled = row.enabled_from_kwargs(kwargs)
        if row.efforts:  # vLLM builds the parser with the effective kwargs
            variant = row.variant_from_kwargs(kwargs)
    parsing = reasoning is not None or mode != "none" or harmony
    skip, keep = _decode_flags(model, req)
    if parsing and skip and not keep:
        keep = (
            _harmony_marker_ids(model.vocab) if harmony else marker_special_ids(
                model.vocab, model.config.tool_parser if mode != "none" else None, reasoning
            )
        )
    tool_parser = model.config.tool_parser if mode != "none" else None
    return ChoiceConfig.model_validate({  # checked here, as it will be when it comes back
        "skip_special_tokens": skip,
        "keep_special_ids": list(keep),
        "spaces_between_special_tokens": req.spaces_between_special_tokens if req else True,
        "stop": _stop_config(req),
        "reasoning_parser": reasoning,
        "reasoning_enabled": enabled,
        "reasoning_variant": variant,
        "include_reasoning": req.include_reasoning if req else True,
        "tool_parser": tool_parser,
        "tool_choice": mode,
        "named_tool": named,
        "parallel_tool_calls": (req.parallel_tool_calls is not False) if req else True,
        "harmony": harmony,
        "tool_params": _tool_params(tool_parser, req),
        "top_logprobs": _chat_top_logprobs(req),
        "return_token_ids": bool(getattr(req, "return_token_ids", None)),
    })


def _tool_params(
    tool_parser: str | None, req: ChatCompletionRequest | DerenderContext | None
) -> dict[str, dict[str, Any]] | None:
    """The parameter-type map of the request's tools, only for formats that type text values
    (from ``tools`` of a chat request, or render's ``derender_context.tool_params``)."""
    from tito.core.parsers.tools import TYPED_TOOL_PARSERS
    from tito.core.parsers.tools._schema import check_params, tool_params

    if tool_parser not in TYPED_TOOL_PARSERS or req is None:
        return None
    if isinstance(req, DerenderContext):
        return None if req.tool_params is None else check_params(req.tool_params)
    return tool_params(req.tools)


def completion_config(model: ServedModel, req: CompletionRequest | None) -> ChoiceConfig:
    """Settings for a completions choice: no parsers ever run on completions."""
    skip, keep = _decode_flags(model, req)
    return ChoiceConfig.model_validate({
        "skip_special_tokens": skip,
        "keep_special_ids": keep,
        "spaces_between_special_tokens": req.spaces_between_special_tokens if req else True,
        "stop": _stop_config(req),
        "completion": True,
        "top_logprobs": _completion_top_logprobs(req),
        "return_token_ids": bool(getattr(req, "return_token_ids", None)),
    })
