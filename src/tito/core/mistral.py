"""Mistral models through mistral-common: its chat encoding and its decoding, behind :class:`Vocab`.

Why: Mistral's prompt format is not a chat template but code (``mistral-common``, what vLLM's
``--tokenizer-mode mistral`` runs): every tokenizer version (v1, v2, v3, v7, Tekken) places
system prompts, tools, tool calls and results its own way, and a hand-written Jinja template
matched it on one version only. So a model folder holding mistral-common's tokenizer file is
rendered by ``encode_chat_completion`` itself (as vLLM does through ``transformers``'
``MistralCommonBackend``: ``ChatCompletionRequest.from_openai`` on the request's messages, tool
call ids cut to their last 9 characters as vLLM's ``truncate_tool_call_ids``), and decoded by
mistral-common's ``decode``.

:class:`MistralVocab` gives the rest of tito (detokenizer, stops, logprobs, parsers) the same
surface as a ``tokenizers`` vocabulary:

* ``decode(ids, skip_special_tokens=True)`` is mistral-common's ``decode`` (``IGNORE``);
  ``skip_special_tokens=False`` keeps special tokens as their text and decodes the text between
  them normally (mistral-common's ``KEEP`` for Tekken; for SentencePiece its ``KEEP`` returns raw
  ``▁`` pieces, so the runs are decoded as ``IGNORE`` does): ``/detokenize``'s text.
* an output's text (derender) follows vLLM's Mistral detokenizer instead
  (``MistralTokenizer.convert_tokens_to_string``): whatever ``skip_special_tokens`` says, the
  only special tokens it shows are :attr:`text_special_ids` (``[TOOL_CALLS]``, ``[ARGS]``,
  ``[THINK]``, ``[/THINK]``, those the tokenizer has); the others vanish without splitting the
  text around them, so ``[/INST]`` + ``▁It`` reads `` It`` (recorded: ``derender_fuzz``
  ``mistral_skip_false*``).
* token strings (vLLM's ``prev_tokens``, the window a stream carries) are mistral-common's
  pieces (``id_to_piece``), except Tekken's regular tokens, written as their bytes in GPT-2's
  byte-level alphabet: Tekken's pieces of partial characters all read ``"�"`` and would not map
  back to their ids.

mistral-common is an optional dependency (``pip install 'tito[mistral]'``), imported only when a
Mistral folder is loaded. This module holds no I/O: the tokenizer object is loaded by
:mod:`tito.models.mistral`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import groupby
from typing import Any

from tito.core.render_parts import refuse_prompt_embeds
from tito.core.vocab import Vocab
from tito.errors import BadRequest

def _byte_chars() -> list[str]:
    """GPT-2's byte -> printable character table (what byte-level ``tokenizer.json`` files use)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return [table[b] for b in range(256)]


_BYTE_CHARS = _byte_chars()

#: vLLM truncates tool call ids to this many trailing characters for Mistral models.
TOOL_CALL_ID_CHARS = 9


class MistralVocab(Vocab):
    """A mistral-common tokenizer seen as a :class:`Vocab` (rules in the module docstring)."""

    def __init__(self, mistral: Any, *, extra_eos_token_ids: Sequence[int] = ()) -> None:
        # no super().__init__: there is no ``tokenizers.Tokenizer`` behind this vocabulary
        from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy

        self._ignore, self._keep = SpecialTokenPolicy.IGNORE, SpecialTokenPolicy.KEEP
        self.mistral = mistral
        self.raw = mistral.instruct_tokenizer.tokenizer
        self.tokenizer = None  # type: ignore[assignment]
        self.size = self.raw.n_words
        self.special_ids = frozenset(i for i in range(self.size) if self.raw.is_special(i))
        self.added_ids = self.special_ids
        self.added_tokens = {self.raw.id_to_piece(i): i for i in sorted(self.special_ids, reverse=True)}
        self.eos_token_id = self.raw.eos_id
        self.bos_token_id = self.raw.bos_id
        self.extra_eos_token_ids = tuple(i for i in extra_eos_token_ids if i != self.eos_token_id)
        self._sentencepiece = not hasattr(self.raw, "id_to_byte_piece")
        self.text_special_ids = frozenset(
            self.added_tokens[t] for t in ("[TOOL_CALLS]", "[ARGS]", "[THINK]", "[/THINK]")
            if t in self.added_tokens)

    @cached_property
    def _piece_ids(self) -> dict[str, int]:
        # lowest id wins (a special token's text before a regular token spelled the same)
        return {self._piece(i): i for i in range(self.size - 1, -1, -1)}

    def _piece(self, token_id: int) -> str:
        if self._sentencepiece or token_id in self.special_ids:
            return self.raw.id_to_piece(token_id)
        # Tekken: many byte pieces read "�" as text, so the window (sent as strings, vLLM's
        # prev_tokens) would not map back to its ids; GPT-2's byte-to-character mapping of the
        # token's bytes is unique and reversible, as in a byte-level tokenizer.json.
        raw_bytes = self.raw.id_to_byte_piece(token_id, self._keep)
        return "".join(_BYTE_CHARS[b] for b in raw_bytes)

    def in_vocab(self, token_id: int) -> bool:
        return 0 <= token_id < self.size

    def token(self, token_id: int) -> str | None:
        """A unique string per id: SentencePiece pieces; Tekken bytes in byte-level form."""
        return self._piece(token_id) if self.in_vocab(token_id) else None

    def token_id(self, token: str) -> int | None:
        return self._piece_ids.get(token)

    def token_ids(self, tokens: Iterable[str]) -> list[int | None]:
        return list(map(self._piece_ids.get, tokens))

    def piece(self, token_id: int) -> str:
        """A logprob's ``token``: mistral-common's piece (``▁Sun``, ``<0xF0>``), as vLLM's
        ``MistralTokenizer.convert_ids_to_tokens`` names it (recorded: conformance goldens)."""
        return self.raw.id_to_piece(token_id) if self.in_vocab(token_id) else ""

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
        clean = [i for i in ids if 0 <= i < self.size]
        if not clean:
            return ""
        if skip_special_tokens:
            return self.raw.decode(clean, self._ignore)
        if not self._sentencepiece:
            return self.raw.decode(clean, self._keep)
        out = []
        for special, group in groupby(clean, lambda i: i in self.special_ids):
            run = list(group)
            out.append("".join(self.raw.id_to_piece(i) for i in run) if special
                       else self.raw.decode(run, self._ignore))
        return "".join(out)

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        return list(self.raw.encode(text, bos=add_special_tokens, eos=False))


def _mistral_call(call: Mapping[str, Any]) -> dict[str, Any]:
    """A history tool call as vLLM hands it to mistral-common: the id cut to its last 9
    characters, the arguments a JSON object (a string is parsed; malformed or not an object:
    ``{}``, vLLM's ``_postprocess_messages``)."""
    out = dict(call)
    if isinstance(out.get("id"), str):
        out["id"] = out["id"][-TOOL_CALL_ID_CHARS:]
    function = out.get("function")
    if isinstance(function, Mapping):
        args = function.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args else {}
            except (ValueError, RecursionError):
                args = {}
        out["function"] = {**function, "arguments": args if isinstance(args, dict) else {}}
    return out


def _truncated_ids(messages: Sequence[Mapping[str, Any]],
                   spent: Collection[int] = ()) -> list[dict[str, Any]]:
    """The messages as vLLM hands them to mistral-common: call ids cut (:func:`_mistral_call`),
    an object content (an OpenAI role type's iterable, which vLLM lists) its keys, so an empty
    one is no parts and any other vLLM's 400; a ``prompt_embeds`` part or reasoning vLLM's
    400 (:func:`tito.core.render_parts.refuse_prompt_embeds`). The messages at ``spent``
    (a part list vLLM's body left an unread iterable: its parse read it before, so
    mistral-common gets none of its parts) have no parts."""
    out = []
    for i, message in enumerate(messages):
        msg = dict(message)
        if i in spent and isinstance(msg.get("content"), list):
            msg["content"] = []
        reasoning, content = msg.get("reasoning"), msg.get("content")
        for part in [reasoning, *(content if isinstance(content, list) else ())]:
            if isinstance(part, Mapping) and part.get("type") == "prompt_embeds":
                refuse_prompt_embeds(part)  # (vLLM parses them before mistral-common)
        if isinstance(msg.get("content"), Mapping):
            if msg["content"]:
                raise BadRequest(f"messages[{i}].content is an object: its keys are not "
                                 "content parts.", param=f"messages[{i}].content")
            msg["content"] = []
        calls = msg.get("tool_calls")
        if isinstance(calls, list):
            msg["tool_calls"] = [_mistral_call(c) if isinstance(c, Mapping) else c for c in calls]
        if isinstance(msg.get("tool_call_id"), str):
            msg["tool_call_id"] = msg["tool_call_id"][-TOOL_CALL_ID_CHARS:]
        out.append(msg)
    return out


def encode_chat(
    vocab: MistralVocab,
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    continue_final_message: bool = False,
    spent: Collection[int] = (),
) -> list[int]:
    """Prompt ids of a chat request, by mistral-common's ``encode_chat_completion``.

    A conversation mistral-common refuses (its exceptions, its asserts, pydantic validation)
    is a 400 with its message, as vLLM turns them into 400s. ``spent``: the indexes of the
    messages whose part list vLLM 0.33 reads once before mistral-common (its body's lazily
    validated iterable, :func:`tito.service.render_chat_parts.lazy_content`): they reach it
    with no parts (fuzz_render s430-31: a ``task: []`` the custom type refuses).
    """
    from mistral_common.exceptions import MistralCommonException
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from pydantic import ValidationError

    try:
        request = ChatCompletionRequest.from_openai(
            messages=_truncated_ids(messages, spent), tools=tools,
            continue_final_message=continue_final_message,
        )
        return list(vocab.mistral.encode_chat_completion(request).tokens)
    except ValidationError as exc:
        reason = exc.errors()[0].get("msg")
    except (MistralCommonException, AssertionError, ValueError, TypeError, KeyError,
            AttributeError) as exc:  # AttributeError: a bare string where it wants a part
        reason = str(exc) or type(exc).__name__
    raise BadRequest(f"mistral-common refused the conversation: {reason}", param="messages")
