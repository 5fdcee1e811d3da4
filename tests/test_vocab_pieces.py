"""``Vocab.piece``: a logprob's token string, the tokenizer's own single-id decode.

Reference: ``tokenizers.Tokenizer.decode([id], skip_special_tokens=False)`` for every id of the
real vocabularies (and ``""`` past them). A ``ByteLevel`` vocabulary keeps no table of pieces
of its own (its whole-token texts hold them): a second vocabulary-sized table of strings was
~20 MB on qwen3 once full.
"""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("name", ["qwen3", "gpt2"])
def test_every_piece_is_the_tokenizers_decode(vocabs, name):
    vocab = vocabs[name]
    tokenizer = vocab.tokenizer
    for token_id in range(vocab.size + 3):
        expected = (tokenizer.decode([token_id], skip_special_tokens=False)
                    if tokenizer.id_to_token(token_id) is not None else "")
        assert vocab.piece(token_id) == expected, token_id
    assert vocab.piece(-1) == ""
    assert vocab._pieces is None  # ByteLevel: no table of its own
    assert any(vocab.piece(i).endswith("\ufffd") for i in range(vocab.size))  # partial bytes
