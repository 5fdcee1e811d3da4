"""tito.core.fast_encode: the same ids as ``Tokenizer.encode``, on the shipped tokenizers.

The reference is the tokenizer itself (``tokenizers``' Rust pipeline), on texts built to hit
every rule: ASCII classes at their edges (Oniguruma's ``\\s`` is not Python's: ``\\x1c``-``\\x1f``
are not whitespace to it), contractions in both cases, digits, runs of spaces before a non-space
and at the end, CR/LF mixes, non-ASCII pieces (the tokenizer's path), added tokens between and
inside words.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Tokenizer

from tito.core import fast_encode
from tito.core.fast_encode import fast_encoder
from tito.core.render import tokenize_prompt

from conftest import MODELS_DIR

FAST = ("qwen3", "gpt2")

_ATOMS = [
    "a", "Z", "q", "0", "7", "42", " ", "  ", "\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c",
    "\x1f", "\x00", "\x7f", "'s", "'S", "'t", "'re", "'VE", "'m", "'ll", "'D", "'", "''", "!",
    "?!", ".", ",", "-", "_", "(", ")", "{", "}", "\"", "\\", "/", "<", ">", "|", "<|", "|>",
    "hello", " world", "Hello", "don't", "I'm", "x1", "1x", "...", " \n", "\n ", "  \n\n  ",
    "é", "ü", "€", "日本", "😀", "\u00a0", "\u2028", "\u3000", "ſ", "K", "Ⅻ", "٣",
]


def _tokenizer(name: str) -> Tokenizer:
    return Tokenizer.from_file(str(MODELS_DIR / name / "tokenizer.json"))


@pytest.fixture(scope="module")
def tokenizers() -> dict[str, Tokenizer]:
    return {name: _tokenizer(name) for name in FAST}


def _texts(tokenizer: Tokenizer) -> st.SearchStrategy[str]:
    added = [t.content for t in tokenizer.get_added_tokens_decoder().values()][:40]
    atom = st.sampled_from(_ATOMS + added) | st.text(max_size=6)
    return st.lists(atom, max_size=24).map("".join)


@pytest.mark.parametrize("name", FAST)
def test_shipped_byte_level_tokenizers_have_a_fast_encoder(tokenizers, name):
    assert fast_encoder(tokenizers[name], False) is not None
    assert fast_encoder(tokenizers[name], True) is not None  # ByteLevel post-processors add nothing


@pytest.mark.parametrize("name", FAST)
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_same_ids_as_the_tokenizer(tokenizers, name, data):
    tokenizer = tokenizers[name]
    text = data.draw(_texts(tokenizer))
    for add in (False, True):
        assert fast_encoder(tokenizer, add)(text) == tokenizer.encode(
            text, add_special_tokens=add).ids, (text, add)


@pytest.mark.parametrize("name", FAST)
def test_long_and_edge_texts(tokenizers, name):
    tokenizer = tokenizers[name]
    encode = fast_encoder(tokenizer, False)
    special = next(iter(tokenizer.get_added_tokens_decoder().values())).content
    texts = ["", " ", "   ", "\n\n\n", "a" * 5000, ("word " * 3000) + "end", "x" * 200 + " " * 70,
             special * 3, f"{special}hello{special}", f"  {special}  ", "\x1c\x1d\x1e\x1f a",
             "1234567890" * 30, "It's THEY'RE we'Ll", json.dumps({"k": [1, 2.5, "é"]} ) * 50]
    for text in texts:
        assert encode(text) == tokenizer.encode(text, add_special_tokens=False).ids, text[:80]


def test_word_cache_stays_bounded(tokenizers, monkeypatch):
    monkeypatch.setattr(fast_encode, "_MAX_CACHED_WORDS", 8)
    tokenizer = _tokenizer("qwen3")  # a fresh encoder, not the shared one
    encode = fast_encoder(tokenizer, False)
    text = " ".join(f"w{i}x" for i in range(100))
    assert encode(text) == tokenizer.encode(text, add_special_tokens=False).ids
    assert len(encode._cache) <= 8  # type: ignore[attr-defined]
    assert encode(text) == tokenizer.encode(text, add_special_tokens=False).ids


def test_other_pipelines_use_the_tokenizer():
    # Metaspace (sentencepiece-style) pre-tokenizer: not reproduced
    assert fast_encoder(_tokenizer("mistral-v3"), False) is None
    # an added token with lstrip changes the split rules
    tokenizer = _tokenizer("qwen3")
    tokenizer.add_tokens([AddedToken("<mark>", lstrip=True)])
    assert fast_encoder(tokenizer, False) is None
    # a different regex
    tokenizer = _tokenizer("gpt2")
    from tokenizers import pre_tokenizers
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    assert fast_encoder(tokenizer, False) is None
    # a post-processor that adds tokens: only without add_special_tokens
    tokenizer = _tokenizer("gpt2")
    from tokenizers import processors
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<|endoftext|> $A", special_tokens=[("<|endoftext|>", 50256)])
    assert fast_encoder(tokenizer, True) is None
    assert fast_encoder(tokenizer, False) is not None


def test_tokenize_prompt_offsets_still_come_from_the_tokenizer(vocabs):
    vocab = vocabs["qwen3"]
    text = "<|im_start|>user\nHi there!<|im_end|>\n"
    fast = tokenize_prompt(vocab, text, add_special_tokens=False)
    with_offsets = tokenize_prompt(vocab, text, add_special_tokens=False, with_offsets=True)
    encoding = vocab.tokenizer.encode(text, add_special_tokens=False)
    assert fast.token_ids == with_offsets.token_ids == encoding.ids
    assert with_offsets.token_offsets == [tuple(o) for o in encoding.offsets]
