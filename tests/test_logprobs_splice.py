"""Resolved logprobs held as JSON text and spliced into answers (``tito.adapters.splice``).

The reference is the standard library: ``json.dumps`` with FastAPI's ``JSONResponse`` settings of
the same answer with the entries as plain dicts, byte for byte, on real tokenizers (Qwen3's and
GPT-2's byte-level pieces, byte-split characters repaired with context, special tokens, tokens
holding quotes, backslashes and control characters).
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tito.adapters.splice import dump_json
from tito.core import logprobs as lp

FASTAPI = {"ensure_ascii": False, "allow_nan": False, "indent": None, "separators": (",", ":")}


def reference(content: Any) -> bytes:
    return json.dumps(content, **FASTAPI).encode("utf-8")


def _entries(vocab: Any, ids: list[int], k: int) -> list[dict[str, Any]]:
    return [{"token_id": i, "logprob": -0.5 - p / 7,
             "top_logprobs": [{"token_id": (i + 31 * j) % vocab.size, "logprob": -1.0 - j / 3}
                              for j in range(k)]} for p, i in enumerate(ids)]


TEXTS = ['He said "hi" \\ back\n\ttab \x01 ctrl', "中文字符 😀 café", "<|im_end|> plain"]


@settings(max_examples=40, deadline=None)
@given(text=st.sampled_from(TEXTS) | st.text(max_size=12), k=st.integers(0, 3),
       name=st.sampled_from(["qwen3", "gpt2"]))
def test_spliced_answer_is_the_json_of_its_entries(vocabs: Any, text: str, k: int,
                                                  name: str) -> None:
    vocab = vocabs[name]
    ids = vocab.encode(text) or [0]
    resolved, _ = lp.resolve(vocab, _entries(vocab, ids, k), [])
    plain = list(resolved)
    assert [e["token"] for e in plain] == [e["token"] for e in resolved]
    answer = {"id": "x", "choices": [{"logprobs": {"content": resolved}, "text": text}]}
    expected = {"id": "x", "choices": [{"logprobs": {"content": plain}, "text": text}]}
    assert dump_json(answer) == reference(expected)
    assert resolved.json_text().encode("utf-8") == resolved.json_bytes() == reference(plain)


def test_entries_are_the_wire_dicts(vocabs: Any) -> None:
    vocab = vocabs["qwen3"]
    ids = vocab.encode('😀 "q"\\')
    resolved, _ = lp.resolve(vocab, _entries(vocab, ids, 1), [])
    text = "".join(e["token"] for e in resolved)
    assert text == vocab.decode(ids, skip_special_tokens=False)  # the repaired pieces add up
    for entry in resolved:
        assert list(entry) == ["token", "logprob", "bytes", "top_logprobs"]
        assert entry["bytes"] == list(entry["token"].encode("utf-8"))
        assert [list(c) for c in entry["top_logprobs"]] == [["token", "logprob", "bytes"]]


def test_a_string_that_looks_like_a_placeholder_stays_as_sent(vocabs: Any) -> None:
    resolved, _ = lp.resolve(vocabs["gpt2"], _entries(vocabs["gpt2"], [31373], 1), [])
    sneaky = ["\x00" + "0" * 16 + ":0", "\x00:0", '"\\u0000']
    answer = {"a": sneaky, "b": resolved, "c": sneaky}
    assert dump_json(answer) == reference({"a": sneaky, "b": list(resolved), "c": sneaky})


def test_non_finite_values_elsewhere_take_pydantic_json_mode_with_the_splice(
        vocabs: Any) -> None:
    """FastAPI's fallback for values plain JSON cannot hold (NaN -> null) keeps the splice."""
    resolved, _ = lp.resolve(vocabs["gpt2"], _entries(vocabs["gpt2"], [31373, 995], 2), [])
    answer = {"prompt_logprobs": [None, {"5": {"logprob": -math.inf}}], "content": resolved,
              "n": (1, 2)}
    expected = {"prompt_logprobs": [None, {"5": {"logprob": None}}], "content": list(resolved),
                "n": [1, 2]}
    assert dump_json(answer) == reference(expected)


def test_the_fragment_tables_are_bounded_by_the_vocabulary(vocabs: Any) -> None:
    """Any ids (out of the vocabulary too) leave two tables of the vocabulary's size; a
    fragment built again is the same."""
    vocab = vocabs["gpt2"]
    ids = [*range(1000, 1300), vocab.size, vocab.size + 10**9]
    first, _ = lp.resolve(vocab, _entries(vocab, ids[:300], 2) + [
        {"token_id": i, "logprob": -1.0, "top_logprobs": [{"token_id": i, "logprob": -2.0}]}
        for i in ids[300:]], [])
    heads, tails = lp._fragments(vocab)
    assert len(heads) == len(tails) == vocab.size
    heads[:] = [None] * vocab.size  # rebuilt on the next look-up
    again, _ = lp.resolve(vocab, _entries(vocab, ids[:300], 2) + [
        {"token_id": i, "logprob": -1.0, "top_logprobs": [{"token_id": i, "logprob": -2.0}]}
        for i in ids[300:]], [])
    assert again == first and first.json_bytes() == again.json_bytes()
    assert first[-1] == {"token": "", "logprob": -1.0, "bytes": None, "top_logprobs": [
        {"token": "", "logprob": -2.0, "bytes": None}]}  # vLLM's for an id past the vocabulary


@settings(max_examples=200, deadline=None)
@given(text=st.text())
def test_fragments_are_the_json_of_their_entry(text: str) -> None:
    """The fragment writer's shortcut for plain texts (no escaping) is json.dumps's answer."""
    head, tail = lp._text_fragment(text)
    entry = json.loads(head + "-1.5" + tail + "}")
    assert entry == {"token": text, "logprob": -1.5, "bytes": list(text.encode("utf-8"))}
    assert (head + "-1.5" + tail + "}").encode() == reference(entry)


def test_top_keeps_the_engines_first_candidates(vocabs: Any) -> None:
    vocab = vocabs["qwen3"]
    entries = _entries(vocab, vocab.encode("one two"), 3)
    kept, _ = lp.resolve(vocab, entries, [], 2)
    every, _ = lp.resolve(vocab, entries, [])
    assert [e["top_logprobs"] for e in kept] == [e["top_logprobs"][:2] for e in every]
