"""Logprob tokens of a Metaspace vocabulary (Llama / Mistral v0.x ``tokenizer.json``) as vLLM 0.33.

The golden (``tests/goldens/metaspace_logprobs_vllm.json``) is vLLM's own derender functions run
on tito's shipped ``mistral-v3`` folder in ``--tokenizer-mode hf``
(``tests/goldens/record_metaspace_logprobs.py``): a token keeps the leading space its raw
``▁`` piece stands for (`` Hi``, not ``Hi``), which moves the completions ``text_offset`` too.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from tito.core import logprobs as lp

GOLDEN = json.loads((pathlib.Path(__file__).parent / "goldens"
                     / "metaspace_logprobs_vllm.json").read_text())
CASES = GOLDEN["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:12] for c in CASES])
def test_chat_and_completion_logprobs_equal_vllms(vocabs, case):
    vocab = vocabs["mistral-v3"]
    out, _ = lp.resolve(vocab, case["entries"], [])
    assert json.loads(out.json_text()) == case["chat"]
    completion, end = lp.to_completion(out, 0)
    assert completion == case["completion"]
    assert end == sum(len(t) for t in case["completion"]["tokens"])


def test_the_space_is_the_pieces_own(vocabs):
    """What the rule reads: the raw piece's leading markers, less the spaces the decode kept."""
    vocab = vocabs["mistral-v3"]
    assert vocab.space_marker == "\u2581"
    hi = vocab.encode("Hi")[0]
    assert vocab.token(hi) == "\u2581Hi" and vocab.decode([hi]) == "Hi"
    assert vocab.piece(hi) == " Hi"
    bare = vocab.token_id("\u2581")
    assert vocab.decode([bare], skip_special_tokens=False) == "" and vocab.piece(bare) == " "
    assert vocab.piece(vocab.token_id("<0xF0>")) == "\ufffd"  # (no marker: as decoded)


def test_byte_level_vocabularies_have_no_marker(vocabs):
    for name in ("qwen3", "gpt2"):
        vocab = vocabs[name]
        assert vocab.space_marker is None
        ids = vocab.encode(" Hi there")
        assert [vocab.piece(i) for i in ids] == [vocab.decode([i], skip_special_tokens=False)
                                                 for i in ids]
