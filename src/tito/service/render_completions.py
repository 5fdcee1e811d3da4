"""Completions render: an OpenAI completions request -> one ``GenerateRequest`` per prompt (spec 4.2).

Why a module of its own: it shares the checks and the ``derender_context`` of
:mod:`tito.service.render_common` with the chat render but nothing of the template path;
:mod:`tito.service.render` re-exports :func:`render_completion_request`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tito.core import render as core_render
from tito.core import sampling as core_sampling
from tito.errors import BadRequest
from tito.protocol import GenerateRequest
from tito.service.render_settings import RenderSettings, current_settings
from tito.service.render_wire import generate_request_wire, sampling_params_wire
from tito.models.config import max_tokens_cap
from tito.service.render_common import (
    _check_mm_processor_kwargs,
    _check_prompt_ids,
    _client_request_id,
    _common_context,
    _fail_fast,
    engine_skip_special,
    _lookup,
    _sampling_params,
    _truncate_to,
)

if TYPE_CHECKING:
    from tito.models import ServedModel
    from tito.protocol import CompletionRequest


def render_completion_request(
    request: CompletionRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
) -> list[GenerateRequest]:
    """Render a completions request into one engine request per prompt, in prompt order (spec 4.2)."""
    return _render_completions(request, settings, model, header_request_id, wire=False)


def render_completion_wire(
    request: CompletionRequest,
    *,
    settings: RenderSettings | None = None,
    model: ServedModel | None = None,
    header_request_id: str | None = None,
) -> list[dict[str, Any]]:
    """``[g.to_wire() for g in render_completion_request(...)]``, what the completions render
    function answers, without building the models when no value needs their checks
    (:mod:`tito.service.render_wire`): the same dicts, the same errors."""
    return _render_completions(request, settings, model, header_request_id, wire=True)


#: the native renderers that complete a ``suffix`` (fill in the middle): vLLM 0.33's DeepSeek-V4
#: renderer and its V4.1 subclass; every other renderer refuses it
FIM_RENDERERS = frozenset({"deepseek_v4", "deepseek_v41"})


def _fim(request: CompletionRequest, model: ServedModel) -> Any:
    """The prompt(s) of a request with a ``suffix``, each text one written as its model's FIM
    prompt (:func:`tito.core.render_dsv4.fim_prompt`), after vLLM's checks in its order (all
    400s naming ``suffix``)."""
    if request.echo:
        raise BadRequest("Echo is unsupported with suffix.", param="suffix")
    if request.prompt_embeds is not None:
        raise BadRequest("suffix is not supported with prompt_embeds", param="suffix")
    if request.truncate_prompt_tokens is not None:
        raise BadRequest("suffix is not supported with truncate_prompt_tokens", param="suffix")
    prompt = request.prompt
    if not (isinstance(prompt, str)
            or isinstance(prompt, list) and all(isinstance(p, str) for p in prompt)):
        raise BadRequest("suffix requires text prompt input for FIM completion rendering",
                         param="suffix")
    if model.config.native_renderer not in FIM_RENDERERS:
        raise BadRequest("suffix is only supported for models with FIM completion rendering",
                         param="suffix")
    from tito.core.render_dsv4 import fim_prompt

    suffix = request.suffix or ""
    return fim_prompt(prompt, suffix) if isinstance(prompt, str) else [
        fim_prompt(p, suffix) for p in prompt]


def _render_completions(
    request: CompletionRequest, settings: RenderSettings | None, model: ServedModel | None,
    header_request_id: str | None, *, wire: bool,
) -> Any:
    """:func:`render_completion_request` (``wire`` false) or :func:`render_completion_wire`."""
    settings = settings or current_settings()
    model = model or _lookup(request.model)
    vocab = model.vocab

    if isinstance(request.prompt, list) and not request.prompt and request.prompt_embeds is None:
        raise BadRequest("You must pass at least one prompt", param="prompt")  # after the model
    prompt_in = request.prompt if request.suffix is None else _fim(request, model)
    if request.prompt_embeds is not None:
        if request.echo:
            raise BadRequest("Echo is unsupported with prompt embeds.", param="echo")
        if request.prompt_logprobs is not None:
            raise BadRequest("prompt_logprobs is not compatible with prompt embeds.",
                             param="prompt_logprobs")
        if request.prompt_embeds != []:  # (an empty list adds no prompt: vLLM renders the rest)
            raise BadRequest("prompt_embeds are not accepted: tito renders text and token-id "
                             "prompts only.", param="prompt_embeds")
    if request.use_beam_search:
        raise BadRequest("Beam search is not supported by the render endpoint", param="use_beam_search")
    _check_mm_processor_kwargs(model, request)

    prompts = core_render.normalize_completion_prompts(prompt_in)
    if len(prompts) > settings.max_completion_prompts:
        raise BadRequest(
            f"Too many prompts: {len(prompts)} (at most {settings.max_completion_prompts}).",
            param="prompt",
        )
    requested = request.max_tokens
    if request.echo and requested == 0:
        requested = 1
    budget = core_sampling.check_output_budget(model.max_model_len, requested, "max_tokens")
    truncate_to = _truncate_to(request.truncate_prompt_tokens, budget)
    side = request.truncation_side or "left"
    structured = core_sampling.structured_outputs_for(
        response_format=request.response_format,
        structured_outputs=(
            request.structured_outputs.model_dump(by_alias=True, exclude_none=True)
            if request.structured_outputs is not None else None
        ),
    )
    base_id = _client_request_id(request.request_id, header_request_id)

    out: list[Any] = []
    for i, prompt in enumerate(prompts):
        param = "prompt" if len(prompts) == 1 else f"prompt.{i}"
        if isinstance(prompt, str):
            if truncate_to is None:
                _fail_fast(vocab, prompt, budget, model.max_model_len, param)
            tokenized = core_render.tokenize_prompt(
                vocab,
                prompt,
                add_special_tokens=request.add_special_tokens,
                truncate_to=truncate_to,
                truncation_side=side,
                with_offsets=bool(request.return_token_offsets),
            )
        else:
            _check_prompt_ids(prompt, model.vocab_size, param)
            window = core_render.truncate(len(prompt), truncate_to, side)
            tokenized = core_render.TokenizedPrompt(token_ids=prompt[window])
        token_ids = tokenized.token_ids
        if not token_ids:
            raise BadRequest(f"No token_ids rendered for {param}", param=param)
        max_tokens = core_sampling.resolve_max_tokens(
            max_model_len=model.max_model_len,
            prompt_tokens=len(token_ids),
            requested=requested,
            param="max_tokens",
            prompt_param=param,
            default=(model.config.default_sampling_params or {}).get("max_tokens"),
            cap=max_tokens_cap(model.config),
        )
        fields = core_sampling.sampling_fields(
            request,
            kind="completion",
            max_tokens=max_tokens,
            default_sampling=model.config.default_sampling_params,
            structured_outputs=structured,
            skip_special_tokens=engine_skip_special(model, request),
            vocab_size=model.vocab_size,
            max_logprobs=model.max_logprobs,
        )
        sampling_wire = sampling_params_wire(fields) if wire else None
        sampling = _sampling_params(fields) if sampling_wire is None else None
        request_id = f"cmpl-{base_id}" if len(prompts) == 1 else f"cmpl-{base_id}-{i}"
        context = _common_context(
            kind="completion", model=model, request=request, request_id=request_id,
            token_ids=token_ids, skip_special_tokens=request.skip_special_tokens,
        )
        if request.logprobs is not None:
            context["logprobs"] = request.logprobs
        if request.echo:  # derender prepends the prompt: it needs all of it, not the tail
            context["echo"] = True
            context["prompt_token_ids"] = list(token_ids)
        values: dict[str, Any] = {
            "request_id": request_id,
            "token_ids": token_ids,
            "token_offsets": tokenized.token_offsets,
            "sampling_params": sampling if sampling_wire is None else sampling_wire,
            "model": request.model,
            "return_token_ids": request.return_token_ids,
            "stream": bool(request.stream),
            "stream_options": request.stream_options if request.stream else None,
            "cache_salt": request.cache_salt,
            "priority": request.priority,
            "kv_transfer_params": request.kv_transfer_params or None,  # {}: null, as vLLM
            "ec_transfer_params": request.ec_transfer_params or None,  # {}: null, as vLLM
            "derender_context": context,
        }
        if sampling_wire is not None:  # values the completions request validated, or render's
            out.append(generate_request_wire(values))
        else:
            generate = GenerateRequest(**values)
            out.append(generate.to_wire() if wire else generate)
    return out
