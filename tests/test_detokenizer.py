"""The incremental detokenizer against the real tokenizers, DecodeStream and the full decode."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers.decoders import DecodeStream

from tito.core import detokenizer as d
from tito.core.detokenizer import DetokState
from tito.core.state import StateError
from tito.core.vocab import Vocab
from tito.errors import BadRequest

NAMES = ("qwen3", "mistral-v3", "gpt2")
BOUND = d.MAX_CONTEXT + d.MAX_HELD
FFFD = "\ufffd"

TEXTS = [
    "Hello, world! This is a plain ASCII sentence.",
    "Family: 👩\u200d👩\u200d👧 and 👨\u200d💻 at work, skin 👍🏽.",
    "Flags: 🇯🇵 🇫🇷 🇺🇸 🏴\u200d☠️",
    "中文测试：你好，世界。日本語のテキスト、한국어 문장.",
    "Rare CJK 𠀀𠀁 and math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, old ꙮ.",
    "Accents: café, naïve, Ångström, Đorđe, ĈĊċĔ.",
    "Combining: e\u0301 a\u0308 n\u0303 Z\u0335\u0321\u031b a\u20dd",
    "def f(x):\n    return {'a': [1, 2, 3], \"b\": x ** 2}  # comment\n",
    "spaces:        eight, tabs:\t\t\ttwo\t, end   ",
    "\n\nnewlines\n\n\n\nand\r\nCRLF\n",
    "   leading spaces and trailing\n",
    "مرحبا بالعالم — नमस्ते दुनिया — Γειά σου Κόσμε",
    "<not special> [INST] looks special but is text?",
]


def normalized(vocab, text):
    """The text as the tokenizer's normalizer leaves it (Qwen3 applies NFC)."""
    normalizer = vocab.tokenizer.normalizer
    return normalizer.normalize_str(text) if normalizer is not None else text


def pieces_and_flush(vocab, state, ids, *, skip=True):
    state, pieces = d.step(vocab, state, ids, skip_special_tokens=skip)
    state, tail = d.flush(vocab, state, skip_special_tokens=skip)
    return pieces, tail, state


def decode_stream(vocab, prompt_ids, ids, *, skip):
    stream = DecodeStream(ids=list(prompt_ids), skip_special_tokens=skip)
    return [stream.step(vocab.tokenizer, i) or "" for i in ids]


# -- round trips ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("skip", [True, False])
def test_round_trip_unseeded_equals_full_decode_and_text(vocabs, name, text, skip):
    vocab = vocabs[name]
    ids = vocab.encode(text)
    state = d.seed(vocab, None, skip_special_tokens=skip)
    pieces, tail, state = pieces_and_flush(vocab, state, ids, skip=skip)
    assert len(pieces) == len(ids)
    assert "".join(pieces) + tail == vocab.decode(ids, skip_special_tokens=skip)
    if not skip and (name != "mistral-v3" or not text.startswith(" ")):
        # (Metaspace strips one leading space of a decode; "[INST]" is Mistral's special token.)
        assert "".join(pieces) + tail == normalized(vocab, text)
    assert state.prefix_offset == 0 and len(state.window) <= BOUND


@pytest.mark.parametrize("name", NAMES)
def test_one_id_per_call_equals_one_call(vocabs, name):
    vocab = vocabs[name]
    ids = vocab.encode("".join(TEXTS))
    state = d.seed(vocab, vocab.encode("Prompt: "), skip_special_tokens=True)
    _, once = d.step(vocab, state, ids, skip_special_tokens=True)
    one_by_one = []
    for token_id in ids:
        state, piece = d.step(vocab, state, [token_id], skip_special_tokens=True)
        one_by_one += piece
        assert state.prefix_offset == 0 and len(state.window) <= BOUND
    assert one_by_one == once


# -- DecodeStream with a prompt -------------------------------------------------------------------


PROMPTS = {
    "qwen3": "<|im_start|>user\nSay hi<|im_end|>\n<|im_start|>assistant\n",
    "mistral-v3": "<s>[INST] Say hi[/INST]",
    "gpt2": "<|endoftext|>Once upon a time",
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("skip", [True, False])
@pytest.mark.parametrize("text", TEXTS)
def test_seeded_equals_decode_stream_prefill(vocabs, name, skip, text):
    vocab = vocabs[name]
    prompt = vocab.encode(PROMPTS[name])
    ids = vocab.encode(" " + text)
    state = d.seed(vocab, prompt, skip_special_tokens=skip)
    _, pieces = d.step(vocab, state, ids, skip_special_tokens=skip)
    assert pieces == decode_stream(vocab, prompt, ids, skip=skip)


@pytest.mark.parametrize("skip", [True, False])
def test_special_and_added_tokens_in_stream(vocabs, skip):
    vocab = vocabs["qwen3"]
    im_end, think, end_think = 151645, 151667, 151668
    assert im_end in vocab.special_ids and think not in vocab.special_ids
    ids = [think] + vocab.encode("\nhmm 🤔") + [end_think] + vocab.encode("\n\nHi 你好") + [im_end]
    prompt = vocab.encode(PROMPTS["qwen3"])
    _, pieces = d.step(vocab, d.seed(vocab, prompt, skip_special_tokens=skip), ids,
                       skip_special_tokens=skip)
    assert pieces == decode_stream(vocab, prompt, ids, skip=skip)
    pieces, tail, _ = pieces_and_flush(vocab, DetokState(), ids, skip=skip)
    text = "".join(pieces) + tail
    assert text == vocab.decode(ids, skip_special_tokens=skip)
    assert text.startswith("<think>\nhmm 🤔</think>")
    assert text.endswith("<|im_end|>") is not skip
    assert pieces[-1] == ("" if skip else "<|im_end|>")


@pytest.mark.parametrize("skip", [True, False])
def test_mistral_specials_and_leading_space(vocabs, skip):
    vocab = vocabs["mistral-v3"]
    ids = [1] + vocab.encode("Hello world") + [2]
    pieces, tail, _ = pieces_and_flush(vocab, DetokState(), ids, skip=skip)
    known = [i for i in ids if 0 <= i < vocab.size]  # the tokenizer itself is the reference
    assert "".join(pieces) + tail == vocab.tokenizer.decode(known, skip_special_tokens=skip)
    assert pieces == decode_stream(vocab, [], ids, skip=skip)
    # Seeded from the prompt, the first output token keeps its leading space (spec 3.0-B).
    prompt = vocab.encode("<s>[INST] hi[/INST]")
    _, seeded = d.step(vocab, d.seed(vocab, prompt, skip_special_tokens=skip),
                       vocab.encode("Hello"), skip_special_tokens=skip)
    _, unseeded = d.step(vocab, DetokState(), vocab.encode("Hello"), skip_special_tokens=skip)
    assert seeded == [" Hello"] and unseeded == ["Hello"]


# -- hypothesis: any chunking, through JSON -------------------------------------------------------


ALPHABET = list("ab Z09 \n\t.,(){}<>_é") + [
    "中", "𠀀", "👩\u200d👧", "🇯🇵", "e\u0301", "ĉ", "𝔘", "ꙮ", "   "
]
texts = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=40).map("".join)


def chunked(ids, cuts):
    bounds = sorted({c % (len(ids) + 1) for c in cuts} | {0, len(ids)})
    return [ids[a:b] for a, b in zip(bounds, bounds[1:])]


def run_chunks(vocab, state, chunks, skip):
    out = []
    for chunk in chunks:
        state = DetokState.model_validate_json(state.model_dump_json())
        state, pieces = d.step(vocab, state, chunk, skip_special_tokens=skip)
        assert len(pieces) == len(chunk)
        assert state.prefix_offset == 0
        assert len(state.window) <= BOUND
        out += pieces
    state = DetokState.model_validate(json.loads(json.dumps(state.model_dump(mode="json"))))
    state, tail = d.flush(vocab, state, skip_special_tokens=skip)
    return out, tail


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), text=texts, cuts=st.lists(st.integers(0, 200), max_size=8),
       seeded=st.booleans())
def test_any_chunking_equals_one_shot_and_full_decode(vocabs, name, text, cuts, seeded):
    vocab = vocabs[name]
    ids = vocab.encode(text)
    prompt = vocab.encode("Prompt text: ") if seeded else None
    state = d.seed(vocab, prompt, skip_special_tokens=True)
    _, once = d.step(vocab, state, ids, skip_special_tokens=True)
    pieces, tail = run_chunks(vocab, state, chunked(ids, cuts), True)
    assert pieces == once
    assert FFFD not in "".join(pieces) + tail  # the text has none, so the stream shows none
    if not seeded:
        assert "".join(pieces) + tail == vocab.decode(ids)
    else:
        assert pieces == decode_stream(vocab, prompt, ids, skip=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), data=st.data(), skip=st.booleans(),
       cuts=st.lists(st.integers(0, 200), max_size=6))
def test_arbitrary_ids_any_chunking_is_bounded_and_identical(vocabs, name, data, skip, cuts):
    """Random ids (specials, byte pieces, unknown ids): never raises, chunking changes nothing."""
    vocab = vocabs[name]
    interesting = sorted(vocab.added_ids)[:40] + [10**9, vocab.size, -1]
    interesting += [i for i in (vocab.token_id(f"<0x{b:02X}>") for b in (0x80, 0xE4, 0xF0, 0xB8))
                    if i is not None]
    any_id = st.one_of(st.integers(0, vocab.size - 1), st.sampled_from(interesting))
    ids = data.draw(st.lists(any_id, max_size=60))
    state = d.seed(vocab, data.draw(st.lists(st.integers(0, vocab.size - 1), max_size=9)),
                   skip_special_tokens=skip)
    _, once = d.step(vocab, state, ids, skip_special_tokens=skip)
    pieces, _ = run_chunks(vocab, state, chunked(ids, cuts), skip)
    assert pieces == once


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["qwen3", "gpt2"]), data=st.data(), skip=st.booleans())
def test_byte_level_stream_equals_full_decode_for_any_ids(vocabs, name, data, skip):
    """ByteLevel decoders are lossy UTF-8 over all bytes, so even garbage streams exactly."""
    vocab = vocabs[name]
    single_bytes = [vocab.token_id(c) for c in d._BYTE_LEVEL_CHARS]
    ids = data.draw(st.lists(st.one_of(st.sampled_from(single_bytes[0x80:]),
                                       st.integers(0, vocab.size + 3)), max_size=120))
    pieces, tail, _ = pieces_and_flush(vocab, DetokState(), ids, skip=skip)
    known = [i for i in ids if 0 <= i < vocab.size]  # the tokenizer itself is the reference
    assert "".join(pieces) + tail == vocab.tokenizer.decode(known, skip_special_tokens=skip)


class RuleVocab(Vocab):
    """The same vocabulary without the ``ByteLevel`` shortcuts: every piece by the rule, every
    decode by the tokenizer."""

    byte_table = None
    whole_texts = None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["qwen3", "gpt2"]), data=st.data(), skip=st.booleans(),
       cuts=st.lists(st.integers(0, 120), max_size=6))
def test_byte_level_fast_path_equals_the_rule(vocabs, name, data, skip, cuts):
    """The fast path (module header) yields the rule's pieces and states, call by call, for text,
    byte garbage, specials and unknown ids, seeded or not."""
    vocab = vocabs[name]
    rule = RuleVocab(vocab.tokenizer, eos_token_id=vocab.eos_token_id)
    single_bytes = [vocab.token_id(c) for c in d._BYTE_LEVEL_CHARS]
    text = vocab.encode(data.draw(st.sampled_from(TEXTS)))
    any_id = st.one_of(st.sampled_from(single_bytes), st.sampled_from(text),
                       st.sampled_from(sorted(vocab.added_ids)), st.integers(0, vocab.size + 3))
    ids = data.draw(st.lists(any_id, max_size=80))
    prompt = data.draw(st.lists(any_id, max_size=9))
    fast_state = d.seed(vocab, prompt, skip_special_tokens=skip)
    rule_state = d.seed(rule, prompt, skip_special_tokens=skip)
    assert fast_state == rule_state
    for chunk in chunked(ids, cuts):
        fast_state, fast = d.step(vocab, fast_state, chunk, skip_special_tokens=skip)
        rule_state, slow = d.step(rule, rule_state, chunk, skip_special_tokens=skip)
        assert (fast, fast_state) == (slow, rule_state)


@pytest.mark.parametrize("name", ["qwen3", "gpt2"])
def test_byte_level_fast_path_after_every_byte(vocabs, name):
    """Every single byte as the context's end (a context that ends inside or after a broken
    character only takes the rule), then continuation bytes, a lead byte, a whole token."""
    vocab = vocabs[name]
    rule = RuleVocab(vocab.tokenizer)
    byte = [vocab.token_id(c) for c in d._BYTE_LEVEL_CHARS]
    word = vocab.encode(" word")
    for last in range(256):
        prompt = [*word, byte[last]]
        ids = [byte[0x80], byte[0xBF], *word, byte[0xE4], byte[0xB8], byte[0xAD], byte[last], *word]
        for cut in range(len(ids) + 1):
            states = [d.seed(v, prompt, skip_special_tokens=True) for v in (vocab, rule)]
            outs = []
            for v, state in zip((vocab, rule), states, strict=True):
                state, first = d.step(v, state, ids[:cut], skip_special_tokens=True)
                state, second = d.step(v, state, ids[cut:], skip_special_tokens=True)
                outs.append((first, second, state))
            assert outs[0] == outs[1], (last, cut)


# -- byte fallback, truncation, unknown ids -------------------------------------------------------


def byte_ids(vocab, *values):
    return [vocab.token_id(f"<0x{v:02X}>") for v in values]


def test_mistral_byte_fallback_is_held_until_the_character_completes(vocabs):
    vocab = vocabs["mistral-v3"]
    ids = vocab.encode("a𠀀b")
    assert [vocab.token(i) for i in ids][1:5] == ["<0xF0>", "<0xA0>", "<0x80>", "<0x80>"]
    pieces, tail, _ = pieces_and_flush(vocab, DetokState(), ids)
    assert pieces == ["a", "", "", "", "𠀀", "b"] and tail == ""
    assert pieces == decode_stream(vocab, [], ids, skip=True)


@pytest.mark.parametrize("name", NAMES)
def test_truncated_character_is_flushed_as_the_full_decode_shows_it(vocabs, name):
    vocab = vocabs[name]
    ids = vocab.encode("ok 𠀀")[:-1]  # generation stopped inside the character (max_tokens)
    pieces, tail, state = pieces_and_flush(vocab, DetokState(), ids)
    assert tail.endswith(FFFD) and FFFD not in "".join(pieces)
    assert "".join(pieces) + tail == vocab.decode(ids)
    assert d.flush(vocab, state, skip_special_tokens=True)[1] == ""  # nothing held any more


def test_bytefallback_non_monotonic_run_falls_back_to_lossy_text(vocabs):
    """<E4 B8 AD> is 中, but <E4 B8 AD E4> decodes as four U+FFFD (the run is all-or-nothing)."""
    vocab = vocabs["mistral-v3"]
    ids = byte_ids(vocab, 0xE4, 0xB8, 0xAD, 0xE4)
    assert vocab.decode(ids) == FFFD * 4
    pieces, tail, _ = pieces_and_flush(vocab, DetokState(), ids)
    assert pieces == ["", "", "中", ""] and tail == FFFD  # not "中" + "���"
    more = ids[:3] + byte_ids(vocab, 0x80) + vocab.encode("x")
    pieces, tail, _ = pieces_and_flush(vocab, DetokState(), more)
    assert "".join(pieces) + tail == "中" + FFFD + " x"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("skip", [True, False])
def test_unknown_ids_yield_empty_and_never_raise(vocabs, name, skip):
    vocab = vocabs[name]
    state = d.seed(vocab, vocab.encode("hi there"), skip_special_tokens=skip)
    new, pieces = d.step(vocab, state, [10**9, vocab.size, -1, 2**40], skip_special_tokens=skip)
    assert pieces == ["", "", "", ""]
    ids = vocab.encode("a b")
    _, with_oov = d.step(vocab, state, [ids[0], 10**9, *ids[1:]], skip_special_tokens=skip)
    _, without = d.step(vocab, state, ids, skip_special_tokens=skip)
    assert with_oov == [without[0], "", *without[1:]]


def test_step_is_pure(vocabs):
    vocab = vocabs["qwen3"]
    state = d.seed(vocab, vocab.encode("prefix text here"), skip_special_tokens=True)
    before = state.model_dump()
    d.step(vocab, state, vocab.encode(" more 𠀀"), skip_special_tokens=True)
    d.flush(vocab, state, skip_special_tokens=True)
    assert state.model_dump() == before


@pytest.mark.parametrize("name", ["qwen3", "gpt2"])
def test_per_token_states_are_values_every_stream_may_share(vocabs, name):
    """A stream stepped one id at a time (states interned after whole tokens, two-id contexts
    from the memo) leaves every state it returned as it was, and a second stream over the same
    ids returns equal states and pieces (shared, never modified); under a small bound too."""
    vocab = vocabs[name]
    ids = vocab.encode("".join(TEXTS))
    runs = []
    for _ in range(2):
        state, seen = d.DetokState(), []
        for token_id in ids:
            state, piece = d.step(vocab, state, [token_id], skip_special_tokens=True)
            seen.append((state, state.model_dump(), piece))
        runs.append(seen)
    for (s1, dump1, p1), (s2, dump2, p2) in zip(*runs, strict=True):
        assert s1.model_dump() == dump1 == dump2 == s2.model_dump() and p1 == p2
    _, once = d.step(vocab, d.DetokState(), ids, skip_special_tokens=True)
    assert [p for _, _, p in runs[0] for p in p] == once


def test_interned_states_stay_bounded(vocabs, monkeypatch):
    vocab = vocabs["gpt2"]
    monkeypatch.setattr(d, "INTERNED_STATES", 8)
    monkeypatch.setattr(d, "_AFTER_WHOLE", {})
    monkeypatch.setattr(vocab, "pair_memo", {})
    state = d.DetokState()
    split = vocab.encode("中文字符 😀" * 3)  # two-id contexts
    for token_id in [*range(1000, 1100), *split]:
        state, _ = d.step(vocab, state, [token_id], skip_special_tokens=True)
        assert len(d._AFTER_WHOLE) <= 8 and len(vocab.pair_memo) <= 8


# -- the bound under pathological input -----------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_ten_thousand_stray_bytes_stay_bounded(vocabs, name):
    vocab = vocabs[name]
    byte_0x80 = "<0x80>" if name == "mistral-v3" else d._BYTE_LEVEL_CHARS[0x80]
    stray = vocab.token_id(byte_0x80)
    assert vocab.decode([stray]) == FFFD
    ids = [stray] * 10_000
    started = time.perf_counter()
    state, pieces = d.step(vocab, DetokState(), ids, skip_special_tokens=True)
    assert time.perf_counter() - started < 5  # O(window) per id, not O(history)
    assert len(state.window) <= BOUND and len(state.window) - state.read_offset <= d.MAX_HELD
    state, tail = d.flush(vocab, state, skip_special_tokens=True)
    assert "".join(pieces) + tail == vocab.decode(ids) == FFFD * 10_000
    # ... and text after the garbage comes through.
    after = vocab.encode(" then 中文 ok")
    state, pieces = d.step(vocab, DetokState(), ids[:100] + after, skip_special_tokens=True)
    assert "".join(pieces).endswith("中文 ok")


def test_lossy_decoder_keeps_a_repairable_tail_across_a_cut(vocabs):
    vocab = vocabs["qwen3"]
    stray = vocab.token_id(d._BYTE_LEVEL_CHARS[0x80])
    for n in range(d.MAX_HELD - 3, d.MAX_HELD + 4):  # the cut lands at every place of 𠀀
        ids = [stray] * n + vocab.encode("𠀀 ok")
        pieces, tail, _ = pieces_and_flush(vocab, DetokState(), ids)
        assert "".join(pieces) + tail == vocab.decode(ids) == FFFD * n + "𠀀 ok"


@pytest.mark.parametrize("name", NAMES)
def test_skipped_specials_do_not_grow_the_window(vocabs, name):
    vocab = vocabs[name]
    special = min(vocab.special_ids)
    state = d.seed(vocab, vocab.encode("x y"), skip_special_tokens=True)
    new, pieces = d.step(vocab, state, [special] * 10_000, skip_special_tokens=True)
    assert set(pieces) == {""} and new.window == state.window[state.prefix_offset:]


def test_oversized_wire_state_is_brought_under_the_bound(vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("word " * 400)[: d.MAX_WINDOW]
    for read in (0, len(ids) // 2, len(ids)):
        state = DetokState(window=ids, prefix_offset=0, read_offset=read)
        new, _ = d.step(vocab, state, vocab.encode(" end"), skip_special_tokens=True)
        assert len(new.window) <= BOUND and new.prefix_offset == 0


# -- seeding --------------------------------------------------------------------------------------


def test_seed_takes_the_last_seven_ids_like_vllm(vocabs):
    vocab = vocabs["gpt2"]
    prompt = vocab.encode("one two three four five six seven eight nine")
    state = d.seed(vocab, prompt, skip_special_tokens=True)
    assert state.window == prompt[-7:] and (state.prefix_offset, state.read_offset) == (2, 7)
    short = d.seed(vocab, prompt[:3], skip_special_tokens=True)
    assert (short.prefix_offset, short.read_offset) == (0, 3)
    assert d.seed(vocab, [], skip_special_tokens=True) == DetokState()
    assert d.seed(vocab, None, skip_special_tokens=False) == DetokState()


def test_seed_drops_skipped_specials_and_unknown_ids(vocabs):
    vocab = vocabs["qwen3"]
    prompt = vocab.encode("<|im_start|>assistant\n")
    state = d.seed(vocab, [*prompt, 10**9], skip_special_tokens=True)
    assert state.window == prompt[1:]  # <|im_start|> and the unknown id add no text
    kept = d.seed(vocab, prompt, skip_special_tokens=False)
    assert kept.window == prompt


def test_prompt_ending_inside_a_character_completes_in_the_output(vocabs):
    vocab = vocabs["qwen3"]
    ids = vocab.encode("Hi 𠀀 ok")
    cut = next(k for k in range(1, len(ids)) if vocab.decode(ids[:k]).endswith(FFFD))
    state = d.seed(vocab, ids[:cut], skip_special_tokens=True)
    assert state.read_offset < len(state.window)  # the partial character is held, not context
    pieces, tail, _ = pieces_and_flush(vocab, state, ids[cut:])
    assert "".join(pieces) + tail == "𠀀 ok"


def test_prompt_ending_with_a_real_replacement_character_stays_context(vocabs):
    vocab = vocabs["qwen3"]
    prompt = vocab.encode("broken: \ufffd")
    state = d.seed(vocab, prompt, skip_special_tokens=True)
    assert state.read_offset == len(state.window)
    _, pieces = d.step(vocab, state, vocab.encode(" ok"), skip_special_tokens=True)
    assert "".join(pieces) == " ok"


# -- vLLM token strings ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_window_tokens_round_trip(vocabs, name):
    vocab = vocabs[name]
    state = d.seed(vocab, vocab.encode("héllo wörld 中文 ok"), skip_special_tokens=True)
    tokens = d.window_tokens(vocab, state)
    assert all(isinstance(t, str) and t for t in tokens)
    assert d.state_from_tokens(vocab, tokens, state.prefix_offset, state.read_offset) == state


def test_state_from_tokens_drops_empty_entries_and_rejects_foreign_strings(vocabs):
    vocab = vocabs["gpt2"]
    tokens = ["Ġone", "", "Ġtwo", "", "Ġthree"]
    state = d.state_from_tokens(vocab, tokens, 2, 4)
    assert [vocab.token(i) for i in state.window] == ["Ġone", "Ġtwo", "Ġthree"]
    assert (state.prefix_offset, state.read_offset) == (1, 2)
    with pytest.raises(BadRequest) as err:
        d.state_from_tokens(vocab, ["Ġone", "not-a-token-💥"], 0, 2)
    assert err.value.param == "stream_state.prev_tokens"
    with pytest.raises(BadRequest):
        d.state_from_tokens(vocab, ["Ġone"], 1, 0)
    with pytest.raises(BadRequest):
        d.state_from_tokens(vocab, ["a"] * (d.MAX_WINDOW + 1), 0, 0)


def test_state_validation(vocabs):
    with pytest.raises(StateError):
        DetokState.model_validate({"window": [1, 2], "prefix_offset": 2, "read_offset": 1})
    with pytest.raises(StateError):
        DetokState.model_validate({"window": [1, 2], "prefix_offset": 0, "read_offset": 3})
    with pytest.raises(StateError):
        DetokState.model_validate({"window": [0] * (d.MAX_WINDOW + 1)})
    with pytest.raises(StateError):
        DetokState.model_validate({"window": ["1"]})
    with pytest.raises(StateError):
        DetokState.model_validate({"window": [], "prefix_offset": True})
    with pytest.raises(StateError):
        DetokState.model_validate({"window": [], "prefix_offset": -1, "read_offset": 0})
    with pytest.raises(StateError):
        DetokState.model_validate({"window": [], "extra": 1})


# -- spaces_between_special_tokens ----------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_spaces_between_special_tokens_has_no_effect_on_fast_tokenizers(vocabs, name):
    """vLLM's engine override (added token after added token -> raw content) is the identity."""
    vocab = vocabs[name]
    added = vocab.tokenizer.get_added_tokens_decoder()
    for first in {min(added), max(added)}:
        state, _ = d.step(vocab, DetokState(), [first], skip_special_tokens=False)
        for token_id, token in added.items():
            _, pieces = d.step(vocab, state, [token_id], skip_special_tokens=False,
                               spaces_between_special_tokens=False)
            assert pieces == [token.content]
    ids = [min(added), *vocab.encode("a b"), max(added), max(added)]
    for skip in (True, False):
        with_spaces = d.step(vocab, DetokState(), ids, skip_special_tokens=skip,
                             spaces_between_special_tokens=True)
        without = d.step(vocab, DetokState(), ids, skip_special_tokens=skip,
                         spaces_between_special_tokens=False)
        assert with_spaces == without
