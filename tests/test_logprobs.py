"""Engine logprobs -> OpenAI logprobs with the real tokenizers (spec 3.0-D and E)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core import logprobs as lp
from tito.core.logprobs import EngineLogprob
from tito.errors import BadRequest


def engine(token_id, logprob=-0.5, top=()):
    """An entry of the integer wire shape, as a plain dict."""
    return {"token_id": token_id, "logprob": logprob, "rank": 1,
            "top_logprobs": [{"token_id": t, "logprob": v, "rank": None} for t, v in top]}


def legacy(token, logprob=-0.5, top=()):
    """An entry of the legacy wire shape, as a plain dict."""
    return {"token": token, "logprob": logprob, "bytes": None,
            "top_logprobs": [{"token": t, "logprob": v, "bytes": None} for t, v in top]}


def tokens_of(resolved):
    return [e["token"] for e in resolved]


def test_plain_tokens_strings_bytes_and_top(vocabs):
    vocab = vocabs["qwen3"]
    ids = vocab.encode("Hello wörld")
    alt = vocab.encode(" there")[0]
    entries = [engine(i, -0.25, top=[(i, -0.25), (alt, -2.0)]) for i in ids]
    out, context = lp.resolve(vocab, entries, [])
    assert "".join(tokens_of(out)) == "Hello wörld"
    for entry, token_id in zip(out, ids):
        assert entry["token"] == vocab.decode([token_id], skip_special_tokens=False)
        assert entry["bytes"] == list(entry["token"].encode("utf-8"))
        assert entry["logprob"] == -0.25
        assert [t["token"] for t in entry["top_logprobs"]] == [entry["token"], " there"]
        assert entry["top_logprobs"][1] == {"token": " there", "logprob": -2.0,
                                            "bytes": list(b" there")}
        assert set(entry) == {"token", "logprob", "bytes", "top_logprobs"}
    assert context == ids[-4:]


def test_special_tokens_show_as_their_text(vocabs):
    vocab = vocabs["qwen3"]
    out, _ = lp.resolve(vocab, [engine(151645), engine(151667)], [])
    assert tokens_of(out) == ["<|im_end|>", "<think>"]


def test_byte_fallback_second_half_resolves_with_the_first_as_context(vocabs):
    vocab = vocabs["mistral-v3"]
    ids = vocab.encode("aĈ")
    assert [vocab.token(i) for i in ids] == ["▁a", "<0xC4>", "<0x88>"]
    out, context = lp.resolve(vocab, [engine(i) for i in ids], [])
    # (" a": the raw piece's space put back, as vLLM 0.33 names a Metaspace token;
    # tests/test_logprobs_metaspace.py)
    assert [(e["token"], e["bytes"]) for e in out] == [(" a", [32, 97]), ("", []),
                                                       ("Ĉ", [0xC4, 0x88])]
    assert context == ids


@pytest.mark.parametrize("name", ["qwen3", "mistral-v3", "gpt2"])
def test_four_byte_character_split_over_tokens(vocabs, name):
    vocab = vocabs[name]
    ids = vocab.encode("𠀀")
    assert len(ids) >= 2
    out, _ = lp.resolve(vocab, [engine(i) for i in ids], [])
    text = "".join(tokens_of(out))
    assert text.strip() == "𠀀" and "\ufffd" not in text
    # every piece but the last is empty, except mistral's lone "▁" (a space, as vLLM names it)
    assert all(e["token"] == "" and e["bytes"] == [] for i, e in zip(ids, out[:-1])
               if "𠀀" not in e["token"] and vocab.token(i) != "\u2581")


@pytest.mark.parametrize("name", ["qwen3", "mistral-v3", "gpt2"])
@pytest.mark.parametrize("cut", [1, 2, 3, 5])
def test_context_carried_across_calls_equals_one_call(vocabs, name, cut):
    vocab = vocabs[name]
    ids = vocab.encode("ok 𠀀 Ĉ 👩\u200d👧 中文 done")
    entries = [engine(i, top=[(i, -0.5), (ids[0], -3.0)]) for i in ids]
    whole, whole_ctx = lp.resolve(vocab, entries, [9, 9, 9])
    first, ctx = lp.resolve(vocab, entries[:cut], [9, 9, 9])
    assert len(ctx) <= lp.CONTEXT_IDS
    ctx = json.loads(json.dumps(ctx))  # carried through the client
    second, ctx = lp.resolve(vocab, entries[cut:], ctx)
    assert first + second == whole and ctx == whole_ctx


def test_top_entries_are_repaired_with_the_sampled_context(vocabs):
    vocab = vocabs["mistral-v3"]
    a, c4, x88 = vocab.encode("aĈ")
    x8a = vocab.token_id("<0x8A>")
    out, _ = lp.resolve(vocab, [engine(a), engine(c4), engine(x88, top=[(x88, -0.1), (x8a, -1.0)])],
                        [])
    assert [t["token"] for t in out[2]["top_logprobs"]] == ["Ĉ", "Ċ"]


def test_unknown_ids_give_empty_token_and_null_bytes(vocabs):
    # vLLM 0.33 for a padded id (qwen3's 151700: conformance derender goldens, *reserved*)
    vocab = vocabs["gpt2"]
    out, context = lp.resolve(vocab, [engine(10**9, top=[(-1, -1.0)]), engine(vocab.size)], [])
    assert [(e["token"], e["bytes"]) for e in out] == [("", None), ("", None)]
    assert out[0]["top_logprobs"][0]["token"] == ""
    assert context == [10**9, vocab.size]


@pytest.mark.parametrize("where", ["sampled", "candidate", "legacy_sampled", "legacy_candidate"])
def test_ids_past_32_bits_are_a_400_where_decoded(vocabs, where):
    """vLLM 0.33's decode of a logprob id past ``u32`` fails (its 400: goldens
    ``derender_logprob_ids``); up to ``2**32 - 1`` an unknown id is ``""``, and a candidate past
    the ``top`` cut is never decoded."""
    vocab = vocabs["qwen3"]
    hi = vocab.encode("Hi")[0]

    def entries(big: int) -> list:
        if where == "sampled":
            return [engine(big)]
        if where == "candidate":
            return [engine(hi, top=[(hi, -0.5), (big, -1.0)])]
        if where == "legacy_sampled":
            return [legacy(f"token_id:{big}")]
        return [legacy(f"token_id:{hi}", top=[(f"token_id:{hi}", -0.5), (f"token_id:{big}", -1.0)])]

    out, _ = lp.resolve(vocab, entries(lp.MAX_TOKEN_ID), [])
    assert out[0]["token"] == "" or out[0]["top_logprobs"][1]["token"] == ""
    for big in (lp.MAX_TOKEN_ID + 1, 2**63, 2**64 + 1):
        with pytest.raises(BadRequest, match="number too large"):
            lp.resolve(vocab, entries(big), [])
    if where.endswith("candidate"):
        out, _ = lp.resolve(vocab, entries(2**64), [], top=1)
        assert [c["token"] for c in out[0]["top_logprobs"]] == ["Hi"]


def test_non_finite_logprobs_are_clamped(vocabs):
    vocab = vocabs["gpt2"]
    raw = json.loads('{"token_id": 31373, "logprob": -Infinity, "top_logprobs": '
                     '[{"token_id": 31373, "logprob": NaN}]}')
    out, _ = lp.resolve(vocab, [raw, engine(31373, logprob=None)], [])
    assert out[0]["logprob"] == lp.LOGPROB_FLOOR == -9999.0
    assert out[0]["top_logprobs"][0]["logprob"] == -9999.0
    assert out[1]["logprob"] == -9999.0
    assert all(math.isfinite(e["logprob"]) for e in out)


# -- legacy shape -------------------------------------------------------------------------------


def test_legacy_placeholders_resolve_like_integer_ids(vocabs):
    vocab = vocabs["mistral-v3"]
    ids = vocab.encode("aĈ b")
    as_legacy = [legacy(f"token_id:{i}", top=[(f"token_id:{i}", -0.5)]) for i in ids]
    as_ints = [engine(i, top=[(i, -0.5)]) for i in ids]
    assert lp.resolve(vocab, as_legacy, [7]) == lp.resolve(vocab, as_ints, [7])


def test_legacy_plain_strings_pass_through(vocabs):
    vocab = vocabs["qwen3"]
    out, context = lp.resolve(vocab, [legacy("héllo", top=[("héllo", -0.5), ("token_id:9", -1)]),
                                      legacy("token_id:x")], [1, 2])
    assert out[0]["token"] == "héllo" and out[0]["bytes"] == list("héllo".encode())
    assert out[0]["top_logprobs"][1]["token"] == vocab.decode([9], skip_special_tokens=False)
    assert out[1]["token"] == "token_id:x"  # not a placeholder: passes through unchanged
    assert context == []  # the ids behind plain strings are unknown: no stale repair context


def test_wire_conversion_functions():
    assert lp.parse_token_placeholder("token_id:42") == 42
    assert lp.parse_token_placeholder("token_id:-1") is None
    assert lp.parse_token_placeholder(" token_id:4") is None
    entry = lp.from_wire(engine(5, -1.5, top=[(5, -1.5), (6, -2.0)]))
    assert entry == EngineLogprob(token_id=5, token=None, logprob=-1.5, rank=1, top=(
        EngineLogprob(5, None, -1.5), EngineLogprob(6, None, -2.0)))
    assert lp.from_wire(legacy("token_id:5")).token_id == 5
    assert lp.from_wire(legacy("word")) == EngineLogprob(token_id=None, token="word", logprob=-0.5)
    assert lp.from_wire(entry) is entry
    for bad in ({"logprob": 1.0}, {"token_id": "5", "logprob": 0.0}, {"token": 5},
                {"token_id": 1, "logprob": "x"}, [1]):
        with pytest.raises(BadRequest):
            lp.from_wire(bad)


# -- completions shape --------------------------------------------------------------------------


def test_to_completion_offsets_start_at_the_given_offset_and_accumulate(vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello big world")
    resolved, _ = lp.resolve(vocab, [engine(i, top=[(i, -0.5)]) for i in ids], [])
    out, offset = lp.to_completion(resolved[:2], 10)
    assert out["tokens"] == ["Hello", " big"]
    assert out["text_offset"] == [10, 15] and offset == 19
    assert out["token_logprobs"] == [-0.5, -0.5]
    assert out["top_logprobs"] == [{"Hello": -0.5}, {" big": -0.5}]
    more, offset = lp.to_completion(resolved[2:], offset)
    assert more["text_offset"] == [19] and offset == 25
    assert set(out) == {"text_offset", "token_logprobs", "tokens", "top_logprobs"}


def test_to_completion_without_top_and_empty():
    out, offset = lp.to_completion(
        [{"token": "a", "logprob": -1.0, "bytes": [97], "top_logprobs": []}], 0)
    assert out["top_logprobs"] == [None] and offset == 1
    assert lp.to_completion([], 7) == (
        {"text_offset": [], "token_logprobs": [], "tokens": [], "top_logprobs": []}, 7)


def test_to_completion_keeps_the_later_candidate_when_top_tokens_collide(vocabs):
    """Two candidates with the same text: the later one wins, as vLLM 0.33's dict comprehension
    (conformance golden derender_completion/logprobs, position 5)."""
    vocab = vocabs["mistral-v3"]
    a, c4, _ = vocab.encode("aĈ")
    e4 = vocab.token_id("<0xE4>")
    resolved, _ = lp.resolve(vocab, [engine(a), engine(c4, -0.1, top=[(c4, -0.1), (e4, -0.7)])], [])
    assert [t["token"] for t in resolved[1]["top_logprobs"]] == ["", ""]
    out, _ = lp.to_completion(resolved, 0)
    assert out["top_logprobs"][1] == {"": -0.7}
    late_high = [{"token": "x", "logprob": -1.0, "top_logprobs": [
        {"token": "x", "logprob": -3.0}, {"token": "y", "logprob": -2.0},
        {"token": "x", "logprob": -1.0}]}]
    out, _ = lp.to_completion(late_high, 0)
    assert out["top_logprobs"] == [{"x": -1.0, "y": -2.0}]
    early_high = [{"token": "x", "logprob": -1.0, "top_logprobs": [
        {"token": "x", "logprob": -1.0}, {"token": "x", "logprob": -3.0}]}]
    out, _ = lp.to_completion(early_high, 0)
    assert out["top_logprobs"] == [{"x": -3.0}]


@settings(max_examples=50, deadline=None)
@given(name=st.sampled_from(["qwen3", "mistral-v3", "gpt2"]),
       text=st.lists(st.sampled_from(list("ab é中") + ["𠀀", "Ĉ", "👩\u200d👧", "ꙮ"]),
                     min_size=1, max_size=20).map("".join),
       cuts=st.lists(st.integers(0, 60), max_size=4))
def test_chunked_resolution_equals_one_call_and_spells_the_text(vocabs, name, text, cuts):
    vocab = vocabs[name]
    ids = vocab.encode(text)
    entries = [engine(i) for i in ids]
    whole, _ = lp.resolve(vocab, entries, [])
    bounds = sorted({c % (len(ids) + 1) for c in cuts} | {0, len(ids)})
    ctx: list[int] = []
    pieces = []
    for lo, hi in zip(bounds, bounds[1:]):
        out, ctx = lp.resolve(vocab, entries[lo:hi], ctx)
        pieces += out
    assert pieces == whole
    assert "\ufffd" not in "".join(tokens_of(whole))
    _, offset = lp.to_completion(whole, 3)
    assert offset == 3 + sum(len(t) for t in tokens_of(whole))
