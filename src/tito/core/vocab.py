"""A tokenizer seen as a vocabulary: the only tokenizer surface the core uses.

Why a wrapper: every core module (detokenizer, logprobs, stops, parsers, render) needs the same
few facts (vocabulary size, which ids are special or added, EOS ids, id <-> token string) and the
same safe decode (out-of-vocabulary ids decode to ``""`` instead of raising, as vLLM does).
Keeping them here means one place answers "what is a special token" for the whole project.

Example::

    vocab = Vocab.from_file("layers/tokenizer/models/qwen3/tokenizer.json")
    vocab.decode(vocab.encode("héllo"), skip_special_tokens=True)  # 'héllo'
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

from tokenizers import Tokenizer

#: Longest id list :meth:`Vocab.decode` decodes in Python (a detokenizer window; longer lists are
#: faster in the tokenizer).
_PY_DECODE_MAX = 64


def _byte_level_chars() -> list[str]:
    """GPT-2's byte-to-character table (the alphabet of every ``ByteLevel`` vocabulary)."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    table: dict[int, str] = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return [table[b] for b in range(256)]


BYTE_LEVEL_CHARS = _byte_level_chars()
_BYTE_OF_CHAR = {c: b for b, c in enumerate(BYTE_LEVEL_CHARS)}
#: most ids :meth:`Vocab.exact_tokens` keeps (a few MB of short strings at most)
_MAX_EXACT = 32768


class Vocab:
    """Immutable view of a ``tokenizers.Tokenizer`` plus the model's EOS ids."""

    #: None, or the only special ids an output's text shows with ``skip_special_tokens: false``
    #: (vLLM's Mistral detokenizer: :class:`tito.core.mistral.MistralVocab`)
    text_special_ids: frozenset[int] | None = None

    def __init__(
        self,
        tokenizer: Tokenizer,
        *,
        eos_token_id: int | None = None,
        extra_eos_token_ids: Sequence[int] = (),
        bos_token_id: int | None = None,
    ) -> None:
        self.tokenizer = tokenizer
        self.size: int = tokenizer.get_vocab_size(with_added_tokens=True)
        added = tokenizer.get_added_tokens_decoder()
        self.added_ids: frozenset[int] = frozenset(added)
        self.special_ids: frozenset[int] = frozenset(i for i, t in added.items() if t.special)
        self.added_tokens: dict[str, int] = {t.content: i for i, t in added.items()}
        self.eos_token_id = eos_token_id
        self.bos_token_id = bos_token_id
        self.extra_eos_token_ids: tuple[int, ...] = tuple(
            i for i in extra_eos_token_ids if i != eos_token_id
        )

    @classmethod
    def from_file(cls, path: str, **kwargs: object) -> Vocab:
        """Load a ``tokenizer.json``; keyword arguments as for the constructor."""
        return cls(Tokenizer.from_file(str(path)), **kwargs)  # type: ignore[arg-type]

    # -- ids and token strings -------------------------------------------------------------

    def in_vocab(self, token_id: int) -> bool:
        """True when ``token_id`` names a token of this vocabulary."""
        return 0 <= token_id < self.size and self.tokenizer.id_to_token(token_id) is not None

    def token(self, token_id: int) -> str | None:
        """The raw vocabulary string of an id (``Ġhello``, ``▁hi``, ``<0xE2>``), or None."""
        if token_id < 0 or token_id >= self.size:
            return None
        return self.tokenizer.id_to_token(token_id)

    def token_id(self, token: str) -> int | None:
        """Inverse of :meth:`token`."""
        return self.tokenizer.token_to_id(token)

    @cached_property
    def _exact(self) -> dict[int, str]:
        """Cache of :meth:`exact_tokens` (bounded: emptied at :data:`_MAX_EXACT` ids)."""
        return {}

    @cached_property
    def _exact_ids(self) -> dict[str, int]:
        """The inverse of :attr:`_exact` (each string :meth:`token_id` reads as its id), for
        :meth:`token_ids`; emptied with it."""
        return {}

    def exact_tokens(self, ids: Iterable[int]) -> tuple[list[str], bool]:
        """(each id's :meth:`token`, ``""`` for an unknown one; whether every string names its
        id alone, i.e. :meth:`token_id` of each gives back the id).

        Why: a streamed call writes its detokenizer window as vLLM's ``prev_tokens`` strings
        and keeps the state only when they read back to the same ids (a string two ids share,
        an unknown id's ``""`` would not): two tokenizer calls per id per call, for a window
        that holds the same few ids call after call. The ids that read back are cached with
        their strings (at most :data:`_MAX_EXACT`, then the cache starts over)."""
        cache = self._exact
        out = []
        exact = True
        for i in ids:
            text = cache.get(i)
            if text is None:
                text = self.token(i) or ""
                if text and self.token_id(text) == i:
                    if len(cache) >= _MAX_EXACT:
                        cache.clear()
                        self._exact_ids.clear()
                    cache[i] = text
                    self._exact_ids[text] = i
                else:
                    exact = False
            out.append(text)
        return out, exact

    def token_ids(self, tokens: Sequence[str]) -> list[int | None]:
        """:meth:`token_id` of each (a stream state's window): read in the strings
        :meth:`exact_tokens` wrote (a dict lookup), any other through the tokenizer."""
        out = list(map(self._exact_ids.get, tokens))
        if None in out:
            return list(map(self.tokenizer.token_to_id, tokens))
        return out  # type: ignore[return-value]

    @cached_property
    def all_eos_ids(self) -> frozenset[int]:
        """The primary EOS id and every extra (generation-config) EOS id."""
        ids = set(self.extra_eos_token_ids)
        if self.eos_token_id is not None:
            ids.add(self.eos_token_id)
        return frozenset(ids)

    @cached_property
    def _pieces(self) -> dict[int, str] | None:
        """Cache of :meth:`piece`; None for a ``ByteLevel`` vocabulary, whose pieces its
        :attr:`whole_texts` already hold (a second table of every id's text was ~20 MB on
        qwen3 once full)."""
        return None if self.byte_table is not None else {}

    @cached_property
    def space_marker(self) -> str | None:
        """The character a ``Metaspace`` pre-tokenizer writes for a space (``▁``), or None.

        Why: a SentencePiece-style vocabulary (Llama, Mistral v0.x as ``tokenizer.json``) decodes
        a single ``▁Hi`` to ``Hi``: its decoder strips the first piece's leading space. vLLM 0.33
        names a logprob's token with that space put back (``detokenizer_utils.
        get_leading_space_marker``, read from the pre-tokenizer alone or in a ``Sequence``), so
        :meth:`piece` does too. ByteLevel and other vocabularies have none."""
        pre = getattr(self.tokenizer, "pre_tokenizer", None)
        if pre is None:
            return None
        try:
            config = json.loads(pre.__getstate__())
        except (TypeError, ValueError):  # (not a JSON state: no marker, as vLLM's reader)
            return None
        if config.get("type") == "Metaspace":
            return str(config.get("replacement", "\u2581"))
        if config.get("type") == "Sequence":
            for sub in config.get("pretokenizers") or ():
                if sub.get("type") == "Metaspace":
                    return str(sub.get("replacement", "\u2581"))
        return None

    def piece(self, token_id: int) -> str:
        """``decode([token_id], skip_special_tokens=False)`` (``""`` out of vocabulary), cached,
        with the leading spaces a ``Metaspace`` vocabulary's decode strips put back (one per
        leading :attr:`space_marker` of the raw piece, less those the decode kept), as vLLM's
        ``convert_ids_list_to_tokens`` names a logprob's token.

        Why cached: logprobs name every sampled and top-k token by its own decode, tens of
        thousands of times per batch, always from the same vocabulary. The cache holds at most one
        string per vocabulary id, so it is bounded by the vocabulary, whatever requests send. A
        ``ByteLevel`` token's piece is its :meth:`whole_text` when it has one (the same text:
        its bytes are complete UTF-8), else its bytes read as the decoder reads them (lossy).
        """
        pieces = self._pieces
        if pieces is None:
            text = self.whole_text(token_id)
            if text or not self.in_vocab(token_id):
                return text
            return self.token_bytes(token_id).decode("utf-8", "replace")
        text = pieces.get(token_id)
        if text is None:
            text = self.decode([token_id], skip_special_tokens=False) if self.in_vocab(token_id) else ""
            marker = self.space_marker
            if marker is not None:
                raw = self.tokenizer.id_to_token(token_id) or ""
                missing = (len(raw) - len(raw.lstrip(marker))) - (len(text) - len(text.lstrip(" ")))
                if missing > 0:
                    text = " " * missing + text
            pieces[token_id] = text
        return text

    # -- text --------------------------------------------------------------------------------

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
        """Decode ids; out-of-vocabulary ids contribute nothing (vLLM maps them to ``""``).

        A few ids of a ``ByteLevel`` vocabulary (Qwen3, GPT-2, gpt-oss) decode in Python from
        each token's cached bytes: the tokenizer's decode is exactly the lossy UTF-8 reading of
        their concatenation (its decoder maps each token to bytes on its own), and crossing into
        the tokenizer costs microseconds per call, which the detokenizer pays twice per token.
        """
        table = self.byte_table
        if table is not None and isinstance(ids, list | tuple) and len(ids) <= _PY_DECODE_MAX:
            special = self.special_ids if skip_special_tokens else ()
            parts = [table.get(i) or self.token_bytes(i) for i in ids if i not in special]
            return b"".join(parts).decode("utf-8", "replace")
        clean = [i for i in ids if 0 <= i < self.size]
        if not clean:
            return ""
        return self.tokenizer.decode(clean, skip_special_tokens=skip_special_tokens)

    @cached_property
    def byte_table(self) -> dict[int, bytes] | None:
        """Cache of :meth:`token_bytes`: id -> the bytes its token decodes to (filled as ids are
        met), for ``ByteLevel`` decoders only (None otherwise); bounded by the vocabulary."""
        if type(self).decode is not Vocab.decode:  # a vocabulary of its own rules (Mistral's)
            return None
        decoder = getattr(self.tokenizer, "decoder", None)
        return {} if type(decoder).__name__ == "ByteLevel" else None

    @cached_property
    def whole_texts(self) -> dict[int, str] | None:
        """Cache of :meth:`whole_text` (None: not a ``ByteLevel`` vocabulary). Read it with
        ``.get(id)``: None means not looked up yet."""
        return {} if self.byte_table is not None else None

    @cached_property
    def pair_memo(self) -> dict[tuple[int, ...], bool]:
        """The detokenizer's memo of two- to four-id contexts: does their decode end at a
        character boundary (``tito.core.detokenizer``; it bounds the memo's size)."""
        return {}

    @cached_property
    def split_memo(self) -> dict[tuple[int, int], tuple[Any, str]]:
        """The detokenizer's memo of characters split in two ids: (held id, next id) -> (the
        state after them, the text they emit) (``tito.core.detokenizer.step_one``; it bounds
        the memo's size)."""
        return {}

    def whole_text(self, token_id: int) -> str:
        """A ``ByteLevel`` token's text when its bytes are complete UTF-8 on their own and the
        text does not end in U+FFFD, else ``""``: after context that is complete UTF-8 such a
        token decodes to exactly this text, whatever the context (the detokenizer's fast path).
        """
        cache = self.whole_texts
        if cache is None or not 0 <= token_id < self.size:
            return ""
        text = cache.get(token_id)
        if text is None:
            try:
                text = self.token_bytes(token_id).decode("utf-8")
            except UnicodeDecodeError:
                text = ""
            if text.endswith("\ufffd"):
                text = ""
            cache[token_id] = text
        return text

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a ``ByteLevel`` token decodes to (``b""`` out of vocabulary or for other
        vocabularies), cached."""
        table = self.byte_table
        if table is None:
            return b""
        b = table.get(token_id)
        if b is None:
            b = self._bytes_of(token_id)
            if 0 <= token_id < self.size:  # bounded by the vocabulary, whatever ids come in
                table[token_id] = b
        return b

    def _bytes_of(self, token_id: int) -> bytes:
        """What the ``ByteLevel`` decoder makes of one id: each character of the token mapped
        back to its byte, or the token's UTF-8 when a character is not in the byte alphabet
        (added tokens); ``b""`` out of vocabulary."""
        token = self.token(token_id)
        if token is None:
            return b""
        try:
            return bytes([_BYTE_OF_CHAR[c] for c in token])
        except KeyError:
            return token.encode("utf-8")

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """Encode text to ids (special-token strings in the text are recognised)."""
        return self.tokenizer.encode(text, add_special_tokens=add_special_tokens).ids
