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

from collections.abc import Iterable, Sequence
from functools import cached_property

from tokenizers import Tokenizer


class Vocab:
    """Immutable view of a ``tokenizers.Tokenizer`` plus the model's EOS ids."""

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
    def all_eos_ids(self) -> frozenset[int]:
        """The primary EOS id and every extra (generation-config) EOS id."""
        ids = set(self.extra_eos_token_ids)
        if self.eos_token_id is not None:
            ids.add(self.eos_token_id)
        return frozenset(ids)

    @cached_property
    def _pieces(self) -> dict[int, str]:
        return {}

    def piece(self, token_id: int) -> str:
        """``decode([token_id], skip_special_tokens=False)`` (``""`` out of vocabulary), cached.

        Why cached: logprobs name every sampled and top-k token by its own decode, tens of
        thousands of times per batch, always from the same vocabulary. The cache holds at most one
        string per vocabulary id, so it is bounded by the vocabulary, whatever requests send.
        """
        text = self._pieces.get(token_id)
        if text is None:
            text = self.decode([token_id], skip_special_tokens=False) if self.in_vocab(token_id) else ""
            self._pieces[token_id] = text
        return text

    # -- text --------------------------------------------------------------------------------

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
        """Decode ids; out-of-vocabulary ids contribute nothing (vLLM maps them to ``""``)."""
        clean = [i for i in ids if 0 <= i < self.size]
        if not clean:
            return ""
        return self.tokenizer.decode(clean, skip_special_tokens=skip_special_tokens)

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """Encode text to ids (special-token strings in the text are recognised)."""
        return self.tokenizer.encode(text, add_special_tokens=add_special_tokens).ids
