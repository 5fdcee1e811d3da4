"""``Vocab.exact_tokens`` and ``Vocab.token_ids``: a stream state's window written as vLLM's
``prev_tokens`` strings and read back, through their caches.

Reference: the tokenizer itself (``id_to_token`` / ``token_to_id``): ``exact_tokens`` gives
each id's string (``""`` for an unknown id) and says whether every string reads back to its id
(the stream state codec keeps a state only then); ``token_ids`` gives ``token_to_id`` of each
string, whether or not ``exact_tokens`` cached it, for strings of this vocabulary or not.
"""

from __future__ import annotations

import random

import pytest

from tito.core import vocab as vocab_module


def _reference(tokenizer, size, ids):
    texts = [(tokenizer.id_to_token(i) if 0 <= i < size else None) or "" for i in ids]
    return texts, all(t and tokenizer.token_to_id(t) == i for t, i in zip(texts, ids))


@pytest.mark.parametrize("name", ["qwen3", "gpt2", "mistral-v3"])
def test_exact_tokens_and_token_ids_are_the_tokenizers(vocabs, name, monkeypatch):
    vocab = vocabs[name]
    tokenizer = vocab.tokenizer
    monkeypatch.setattr(vocab_module, "_MAX_EXACT", 4096)  # the cache starts over, often
    rng = random.Random(7)
    others = [t for v in vocabs.values() for t in (v.token(rng.randrange(v.size)),) * 2]
    inexact = 0
    for k in range(6000):
        ids = [rng.randrange(vocab.size + 5) if k % 7 == 0 else rng.randrange(300 + k % 3000)
               for _ in range(rng.randrange(1, 7))]
        if k % 50 == 0:
            ids.insert(rng.randrange(len(ids)), vocab.size + k % 3)  # an unknown id
        got = vocab.exact_tokens(ids)
        expected = _reference(tokenizer, vocab.size, ids)
        assert got == expected, ids
        inexact += not expected[1]
        tokens = [*got[0], rng.choice(others), "", "not a token \u00e9"]
        rng.shuffle(tokens)
        assert vocab.token_ids(tokens) == [tokenizer.token_to_id(t) for t in tokens]
        assert vocab.token_ids(got[0]) == [tokenizer.token_to_id(t) for t in got[0]]
    assert inexact  # windows with an unknown id (and any string two ids share) were seen
    assert len(vocab._exact) <= 4096 and len(vocab._exact_ids) <= 4096


def test_a_mistral_common_vocabulary_writes_and_reads_through_its_own_methods():
    """``MistralVocab`` (mistral-common, no ``tokenizers`` object) names ids by its own
    ``token`` / ``token_id``: ``exact_tokens`` uses those, as the state codec did."""
    pytest.importorskip("mistral_common")
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    from tito.core.mistral import MistralVocab

    vocab = MistralVocab(MistralTokenizer.v3())
    rng = random.Random(3)
    for k in range(500):
        ids = [rng.randrange(vocab.size + (5 if k % 9 == 0 else 0)) for _ in range(5)]
        texts = [vocab.token(i) or "" for i in ids]
        exact = all(t and vocab.token_id(t) == i for t, i in zip(texts, ids))
        assert vocab.exact_tokens(ids) == (texts, exact)
        assert vocab.token_ids(texts) == [vocab.token_id(t) for t in texts]
