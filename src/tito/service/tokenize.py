"""``/tokenize`` and ``/detokenize``: the model's tokenizer as vLLM exposes it.

Why they reuse render: a chat tokenize must give exactly the ids chat render would send to the
engine (same template, same message handling, same bounds), so it *is* a chat render whose
``GenerateRequest`` is reduced to its ``token_ids``. A text prompt is encoded as the completions
path does (``add_special_tokens`` true by default). Detokenize decodes with special tokens kept
(vLLM's ``/detokenize`` shows ``<|im_end|>``); ids outside the vocabulary decode to ``""``, as
vLLM does for the padded rows an engine can sample.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from tito.core import render_dsv41, render_inkling
from tito.core.logprobs import MAX_TOKEN_ID
from tito.core.message_union import custom_typed
from tito.core.mistral import MistralVocab
from tito.core.render import tokenize_prompt
from tito.core.render_messages import TokenizeMessages, with_sent_calls, without_ignored_calls
from tito.errors import BadRequest, InvalidField, SchemaError
from tito.models import ServedModel, get_registry
from tito.models.hf import ENCODES_EMPTY
from tito.protocol import (
    ChatCompletionRequest,
    DetokenizeRequest,
    DetokenizeResponse,
    TokenizeChatRequest,
    TokenizeRequest,
    TokenizeResponse,
)
from tito.protocol.common import SchemaRule
from tito.service import chat_body
from tito.service.harmony import is_harmony_model
from tito.service.render import current_settings, render_chat_wire
from tito.service.render_chat_parts import check_request_template, lazy_content
from tito.service.render_common import _check_mm_processor_kwargs

__all__ = ["detokenize", "tokenize"]

#: each encoding's ``/tokenize`` fix-up (:class:`tito.core.render_messages.TokenizeMessages`):
#: vLLM hands these encodings the tokenize body's own messages
_FIXUPS: dict[str | None, Callable[[list[Any], list[dict[str, Any]], dict[int, Any]],
                                   TokenizeMessages]] = {
    "deepseek_v41": render_dsv41.tokenize_messages,
    "inkling": render_inkling.tokenize_messages,
}


def _body_takes(fields: dict[str, Any], messages: Any) -> bool:
    """Whether vLLM's tokenize body takes these messages as sent (no dump; its message types
    keep ``reasoning_content`` as an extra key nothing reads), for a chat request that fails
    only after gpt-oss's body dump."""
    if not isinstance(messages, list):
        return False
    sent = [{k: v for k, v in m.items() if k != "reasoning_content"} if isinstance(m, dict)
            else m for m in messages]
    try:
        ChatCompletionRequest.model_validate({**fields, "messages": sent})
    except ValidationError:
        return False
    return True


def tokenize(request: TokenizeRequest, *, model: ServedModel | None = None) -> TokenizeResponse:
    """Token ids of a prompt or of a templated conversation (and their vocabulary strings)."""
    model = model or get_registry().get(request.model)
    if isinstance(request, TokenizeChatRequest):
        # the validated values as they are (not a dump): ``tools`` are already the chat
        # request's tool models and are not validated again; only what a chat request checks
        # beyond a tokenize body runs (message structure, cross-field rules)
        # vLLM's tokenize body has no ``documents`` (nor other chat fields): ignored, as extras
        fields = {name: getattr(request, name) for name in request.model_fields_set
                  if name != "return_token_strs" and name in TokenizeChatRequest.model_fields}
        fields.setdefault("add_special_tokens", False)
        harmony = is_harmony_model(model)
        native = model.config.native_renderer
        fixup = _FIXUPS.get(native)
        # (only the encodings with a fix-up read it: they take the body's messages; and vLLM's
        # harmony render, which reads it as the chat render does: its reasoning)
        if fixup is None and not harmony:
            fields["messages"] = [{k: v for k, v in m.items() if k != "reasoning_content"}
                                  for m in fields.get("messages") or []]
        # vLLM's template path checks the tokenize body's defaults written out, so its rule
        # sees add_generation_prompt true (tito.protocol.raw_rules); its native encodings
        # (DeepSeek-V3.2) never look
        if native is None:
            fields.setdefault("add_generation_prompt", True)
        # what vLLM's tokenize takes though its chat render refuses it: an empty tool list,
        # template kwargs for a Mistral tokenizer (mistral-common has no template to give them)
        if fields.get("tools") == []:
            del fields["tools"]
        if isinstance(model.vocab, MistralVocab):  # (a template in them is still checked,
            check_request_template(request, current_settings())  # as vLLM's tokenize first)
            fields.pop("chat_template_kwargs", None)
            for i, msg in enumerate(request.messages or ()):
                if msg.get("role") == "assistant" and msg.get("tool_calls") is not None \
                        and not custom_typed(msg):
                    # (vLLM hands mistral-common the OpenAI assistant type's lazily validated
                    # iterable as it is, even an empty list: its chat request lists it)
                    raise BadRequest(f"messages[{i}].tool_calls must be a list for a Mistral "
                                     "tokenizer.", param=f"messages[{i}].tool_calls")
        body_messages = fields.get("messages")
        sent_calls: dict[int, Any] = {}  # (the calls taken out below, by message index)
        if harmony:  # (vLLM's body dump: lazily validated parts are gone, not checked)
            from tito.core.harmony import lazy_content_dumped  # gpt-oss only

            fields["messages"] = lazy_content_dumped(body_messages)
        elif isinstance(fields.get("messages"), list):  # (its template path never reads the
            # calls a message type without them holds; the chat request's model would list them)
            fields["messages"], sent_calls = without_ignored_calls(fields["messages"])
        # harmony renders none; the encodings of ENCODES_EMPTY encode an empty conversation
        if not request.messages and not harmony and native not in ENCODES_EMPTY:
            raise BadRequest(
                "Cannot apply chat template to an empty conversation. Provide at least one message.",
                param="messages",
            )
        # plain values are checked by hand (the request validation would give, no schema
        # built: tito.service.chat_body), anything else by the chat request model
        chat = chat_body.read(fields)
        if chat is None:
            try:
                chat = ChatCompletionRequest.model_validate(fields)
            except ValidationError as exc:  # vLLM validates them with the body: its schema
                first = exc.errors()[0]  # error, or a validator's own rule (BadRequestError)
                loc = ".".join(("body", *(str(part) for part in first.get("loc", ()))))
                rule = (first.get("ctx") or {}).get("error")
                if isinstance(rule, InvalidField):
                    raise BadRequest(str(rule), param=rule.param) from None
                if isinstance(rule, SchemaRule) and ".tool_calls." in rule.param and (
                        request.messages[int(rule.param.split(".")[2])].get("role")
                        == "assistant"):
                    # vLLM's tokenize body leaves an assistant's history call to render (its
                    # Iterable is validated lazily; its chat request materializes it with the
                    # body); the custom type, any other role's, checks it with the body
                    raise BadRequest(str(rule)) from None
                if harmony and _body_takes(fields, body_messages):
                    # (vLLM's harmony path validates its chat request from the dumped body in
                    # its handler: a message only the dump breaks, a reasoning_content renamed
                    # to a reasoning of the wrong type, is its BadRequestError)
                    raise BadRequest(f"1 validation error:\n  {loc}: {first['msg']}") from None
                raise SchemaError(f"1 validation error:\n  {loc}: {first['msg']}",
                                  param=loc) from None
        encoder = None
        if fixup is not None and isinstance(body_messages, list):
            chat.messages, encoder = fixup(body_messages, chat.messages, sent_calls)
        elif native is None and not harmony and not isinstance(model.vocab, MistralVocab):
            # (the template path: its parts are typed by the body's union, the calls counted;
            # the template never reads them)
            chat.messages = with_sent_calls(chat.messages, sent_calls)
        # the engine request's ids, its wire dict built without the models when it can be
        ids = render_chat_wire(chat, model=model, tokenize=True,
                               encoder_messages=encoder)["token_ids"]
        if native == "inkling" and any(lazy_content(m) for m in request.messages or []):
            # (its body keeps reasoning_content: checked on the body's messages, not renamed)
            raise BadRequest("message content must be a string or a sequence of parts")
    else:  # as the completions render tokenizes a text prompt (vLLM reads the two kwargs
        _check_mm_processor_kwargs(model, request)  # though its tokenize body has no such fields)
        ids = tokenize_prompt(model.vocab, request.prompt,
                              add_special_tokens=request.add_special_tokens).token_ids
    strs = [model.vocab.token(i) or "" for i in ids] if request.return_token_strs else None
    return TokenizeResponse(
        count=len(ids), max_model_len=model.max_model_len, tokens=ids, token_strs=strs
    )


#: The largest id SentencePiece (mistral-common's v3 tokenizer) reads (``int32``); a
#: ``tokenizers`` vocabulary reads ``u32`` (:data:`~tito.core.logprobs.MAX_TOKEN_ID`)
_I32_MAX = 2**31 - 1


def detokenize(request: DetokenizeRequest, *, model: ServedModel | None = None) -> DetokenizeResponse:
    """The text of token ids, special tokens included.

    An id the model's decoder cannot even read is vLLM 0.33's 400, in its words: past ``u32`` for
    a ``tokenizers`` vocabulary ("number too large to fit in target type"; ids between the
    vocabulary and it decode to ``""``, the padded rows an engine can sample), past ``int32`` for
    SentencePiece. A mistral-common vocabulary has no padded rows: vLLM's decode of an id past it
    fails (its 500, "piece id is out of range"), tito's 400 says so.
    """
    model = model or get_registry().get(request.model)
    vocab = model.vocab
    if request.tokens:
        top = max(request.tokens)
        if isinstance(vocab, MistralVocab):
            if top > _I32_MAX:
                raise BadRequest("Input must be an integer buffer, list of integers, or a "
                                 "sequence of integers.")
            if top >= vocab.size:
                raise BadRequest(f"OUT_OF_RANGE: piece id is out of range (token id {top}; "
                                 f"the vocabulary has {vocab.size} ids).")
        elif top > MAX_TOKEN_ID:
            raise BadRequest("number too large to fit in target type")
    return DetokenizeResponse(prompt=vocab.decode(request.tokens, skip_special_tokens=False))
