"""The chat render's prompt: the request's messages -> prompt token ids (and media parts).

Why a module of its own: a chat prompt comes from one of four sources, each with its own
tokenization and truncation rules as vLLM 0.33 applies them -- ids the client already holds
(``kv_transfer_params.prompt_token_ids``), a native encoding of vLLM's (DeepSeek's text,
Inkling's ids), an encoder written in code (gpt-oss's harmony, mistral-common) or a Jinja chat
template. Choosing among them is one decision with one result (:func:`chat_prompt`), apart from
the checks before it and the sampling after it that :func:`tito.service.render.render_chat_request`
runs in vLLM's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tito.core import render as core_render
from tito.core.mistral import MistralVocab
from tito.core.mistral import encode_chat as mistral_encode_chat
from tito.errors import BadRequest
from tito.service.harmony import harmony_prompt_ids
from tito.service.render_chat_parts import lazy_content, native_prompt
from tito.service.render_common import _check_prompt_ids, _fail_fast

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tito.models import ServedModel
    from tito.protocol import ChatCompletionRequest
    from tito.service.render_settings import RenderSettings


def chat_prompt(
    request: ChatCompletionRequest, model: ServedModel, settings: RenderSettings, *,
    template: Any, normalized: Any, tools: list[dict[str, Any]] | None,
    kwargs: dict[str, Any], reused: Any, truncate_to: int | None, budget: int,
    want_mask: bool, tokenize: bool, responses: bool,
    encoder_messages: list[dict[str, Any]] | None,
    harmony_previous: Sequence[Mapping[str, Any]] | None,
) -> tuple[core_render.TokenizedPrompt, list[dict[str, Any]]]:
    """The prompt of one chat request and its media parts (empty but for a template's).

    ``template``: the compiled chat template (None for harmony, mistral-common and native
    encodings); ``normalized``: the messages as :func:`~tito.service.render_chat_parts.chat_messages`
    normalized them (None when no template or encoding reads them); ``tools`` / ``kwargs``: the
    tools and effective template kwargs the prompt is written with; ``reused``: the
    ``prompt_token_ids`` popped from ``kv_transfer_params`` (taken as the prompt unless the
    messages carry media); ``truncate_to`` / ``budget``: the prompt's truncation and the room
    left to it (a prompt that cannot fit fails fast before tokenizing); the other flags are
    :func:`tito.service.render.render_chat_wire`'s.
    """
    vocab = model.vocab
    side = request.truncation_side or "left"
    native = model.config.native_renderer
    if reused is not None and (normalized is None or not normalized.media_parts):
        if not isinstance(reused, list) or not all(isinstance(i, int) for i in reused):
            raise BadRequest("kv_transfer_params.prompt_token_ids must be a list of token ids.",
                             param="kv_transfer_params")
        _check_prompt_ids(reused, model.vocab_size, "kv_transfer_params.prompt_token_ids")
        window = core_render.truncate(len(reused), truncate_to, side)
        return core_render.TokenizedPrompt(token_ids=list(reused)[window]), []
    if native is not None and normalized is not None:  # an encoding of vLLM's, by code
        encoded = native_prompt(model, (request.messages if encoder_messages is None
                                        else encoder_messages), normalized, tools, kwargs,
                                tokenize=tokenize, responses=responses)
        if isinstance(encoded, str):  # DeepSeek's text, tokenized without special tokens
            if truncate_to is None:
                _fail_fast(vocab, encoded, budget, model.max_model_len, "messages")
            return core_render.tokenize_prompt(
                vocab, encoded, add_special_tokens=False, truncate_to=truncate_to,
                truncation_side=side, with_offsets=bool(request.return_token_offsets)), []
        window = core_render.truncate(len(encoded), truncate_to, side)  # Inkling's ids
        return core_render.TokenizedPrompt(token_ids=encoded[window]), []
    if template is None or normalized is None:  # harmony (gpt-oss), mistral-common: by code
        ids = (
            mistral_encode_chat(vocab, request.messages, tools=tools,  # type: ignore[arg-type]
                                continue_final_message=request.continue_final_message,
                                spent=() if responses else {  # (a chat body's own messages)
                                    i for i, m in enumerate(request.messages)
                                    if isinstance(m, Mapping) and lazy_content(m)})
            if isinstance(vocab, MistralVocab)
            else harmony_prompt_ids(model, request, tools, settings.harmony_start_date,
                                    items=responses, previous=harmony_previous)
        )
        # vLLM 0.33's harmony render does not truncate (its max_tokens still counts the cut)
        window = core_render.truncate(len(ids), truncate_to, side)
        return core_render.TokenizedPrompt(token_ids=ids[window]), []
    prompt = core_render.render_chat(
        template,
        normalized,
        # vLLM 0.33 merges the request's tools under its chat_template_kwargs, and the
        # request's documents over them: the kwargs' tools win, their documents fill in
        tools=kwargs["tools"] if kwargs.get("tools") is not None else tools,
        documents=kwargs.get("documents"),
        add_generation_prompt=request.add_generation_prompt,
        continue_final_message=request.continue_final_message,
        template_kwargs=kwargs,
        special_tokens=model.special_token_strings,
        limits=settings.template_limits,
    )
    if truncate_to is None:
        _fail_fast(vocab, prompt.text, budget, model.max_model_len, "messages")
    tokenized = core_render.tokenize_prompt(
        vocab,
        prompt.text,
        add_special_tokens=request.add_special_tokens,
        truncate_to=truncate_to,
        truncation_side=side,
        with_offsets=bool(request.return_token_offsets) and not prompt.media_parts,
        generation_spans=prompt.generation_spans if want_mask else None,
    )
    return tokenized, prompt.media_parts
