"""The per-token path (one id per call) against the general one: same states, same outputs.

``tito.core.detok_one.step_one`` must equal ``step`` of one id, and ``step_choice``'s one-id
path (``pipeline._ONE_ID_PATH``) must equal its general stages, call by call: both are shortcuts
that exist only for speed, so any difference is a bug. Real tokenizers; text, byte garbage,
special ids, EOS and stop token ids, wire-shaped detokenizer states (long context, held bytes).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.core import detokenizer as d
from tito.core.detok_one import step_one
from tito.core import pipeline
from tito.core.detokenizer import DetokState
from tito.core.parsers import marker_special_ids
from tito.core.pipeline import ChoiceConfig, start_choice, step_choice
from tito.core.stops import StopConfig

TEXTS = [
    " The quick brown fox 😀 jumps over the lazy dog; 中文字符 and café. ",
    "Family: 👩\u200d👩\u200d👧 and 👨\u200d💻, flags 🇯🇵 🏴\u200d☠️, rare 𠀀𠀁 𝔘𝔫𝔦",
    "<think>\nplan: 中文 ✓\n</think>\n\nanswer 😀 done",
]


_BROKEN: dict[int, list[int]] = {}


def broken_ids(vocab):
    """Byte-level tokens that are not whole text yet whose lossy reading ends in a complete
    character (a stray continuation byte, then a CJK character): the one-id path's rarest
    outcome. (GPT-2 has 4, Qwen3 45; none for other vocabularies.)"""
    if id(vocab) not in _BROKEN:
        found = []
        if vocab.byte_table is not None:
            for i in range(vocab.size):
                text = vocab.token_bytes(i).decode("utf-8", "replace")
                if text and not text.endswith("\ufffd") and not vocab.whole_text(i):
                    found.append(i)
        _BROKEN[id(vocab)] = found
    return _BROKEN[id(vocab)]


def any_ids(vocab, data, max_size):
    """Ids of text, single bytes and broken tokens (byte-level vocabularies), added/special ids
    and unknown ids."""
    text_ids = [i for t in TEXTS for i in vocab.encode(t)]
    singles = [i for i in (vocab.token_id(c) for c in d._BYTE_LEVEL_CHARS) if i is not None]
    choices = [st.sampled_from(text_ids), st.sampled_from(sorted(vocab.added_ids)),
               st.integers(0, vocab.size + 3)]
    for extra in (singles, broken_ids(vocab)):
        if extra:
            choices.append(st.sampled_from(extra))
    return data.draw(st.lists(st.one_of(*choices), max_size=max_size))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["gpt2", "qwen3", "mistral-v3"]), data=st.data(),
       skip=st.booleans(), keep_eos=st.booleans())
def test_step_one_equals_step_of_one_id(vocabs, name, data, skip, keep_eos):
    """From seeded, stepped and wire-shaped states (any window, offsets with a context past
    MAX_CONTEXT or bytes held): the same state (by value) and the one piece."""
    vocab = vocabs[name]
    keep = [vocab.eos_token_id] if keep_eos and vocab.eos_token_id is not None else []
    prompt = any_ids(vocab, data, 9)
    ids = any_ids(vocab, data, 60)
    state = d.seed(vocab, prompt, skip_special_tokens=skip, keep_special_ids=keep)
    window = any_ids(vocab, data, d.MAX_CONTEXT + 8)
    read = data.draw(st.integers(0, len(window)))
    wire = DetokState(window=window, prefix_offset=data.draw(st.integers(0, read)),
                      read_offset=read)
    for token_id in ids:
        for start in (state, wire):
            expected, pieces = d.step(vocab, start, [token_id], skip_special_tokens=skip,
                                      keep_special_ids=keep)
            assert step_one(vocab, start, token_id, skip, keep) == (expected, pieces[0])
        state, _ = d.step(vocab, state, [token_id], skip_special_tokens=skip,
                          keep_special_ids=keep)
        wire = state


def configs(vocab):
    """Settings that take the one-id path, or parts of it (parsers after it), or not at all."""
    eos = sorted(vocab.all_eos_ids)
    return [
        ChoiceConfig(),
        ChoiceConfig(completion=True),
        ChoiceConfig(skip_special_tokens=False),
        ChoiceConfig(stop=StopConfig(ignore_eos=True)),
        ChoiceConfig(stop=StopConfig(include_stop_str_in_output=True)),
        ChoiceConfig(stop=StopConfig(stop_token_ids=[*eos, vocab.encode(" fox")[0]])),
        ChoiceConfig(stop=StopConfig(stop=["jumps"])),
        ChoiceConfig(reasoning_parser="qwen3", keep_special_ids=marker_special_ids(
            vocab, None, "qwen3")),
        ChoiceConfig(reasoning_parser="qwen3", tool_parser="hermes", tool_choice="auto"),
        ChoiceConfig(top_logprobs=1),
    ]


def run(vocab, cfg, prompt, ids, fast, monkeypatch):
    """Every call's (state, output), one id per call, then the finishing call."""
    monkeypatch.setattr(pipeline, "_ONE_ID_PATH", fast)
    state = start_choice(vocab, cfg, prompt)
    steps = []
    for k, token_id in enumerate(ids):
        logprobs = None
        if cfg.top_logprobs is not None:
            logprobs = [{"token_id": token_id, "logprob": -0.5, "top_logprobs": []}]
        state, out = step_choice(vocab, cfg, state, [token_id], finish_reason=None,
                                 engine_logprobs=logprobs, response_id="r", choice_index=k % 2)
        steps.append((state.model_dump(), out))
    state, out = step_choice(vocab, cfg, state, [], finish_reason="length")
    steps.append((state.model_dump(), out))
    return steps


@pytest.mark.parametrize("name", ["gpt2", "qwen3", "mistral-v3"])
def test_step_choice_one_id_path_equals_the_general_stages(vocabs, name, monkeypatch):
    """Text of every kind, the prompt's tail seeding the detokenizer or not, every config: each
    call's state and output are those of the general stages."""
    vocab = vocabs[name]
    eos = sorted(vocab.all_eos_ids)
    ids = [i for t in TEXTS for i in vocab.encode(t)]
    ids = [*ids[:40], *eos, *sorted(vocab.added_ids)[:6], vocab.size + 1, *ids[40:50],
           *broken_ids(vocab), *ids[50:]]
    for cfg in configs(vocab):
        for prompt in (None, vocab.encode("Say 中")[:-1] or None):
            fast = run(vocab, cfg, prompt, ids, True, monkeypatch)
            general = run(vocab, cfg, prompt, ids, False, monkeypatch)
            assert fast == general, cfg


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["gpt2", "qwen3"]), data=st.data(), cfg_index=st.integers(0, 9))
def test_step_choice_one_id_path_on_any_ids(vocabs, name, data, cfg_index):
    """Random ids (byte garbage, specials, unknown ids) through both paths."""
    vocab = vocabs[name]
    cfg = configs(vocab)[cfg_index]
    ids = any_ids(vocab, data, 50)
    with pytest.MonkeyPatch.context() as mp:
        fast = run(vocab, cfg, None, ids, True, mp)
        general = run(vocab, cfg, None, ids, False, mp)
    assert fast == general


def test_step_one_memos_stay_bounded(vocabs, monkeypatch):
    """The interned states and the memos the one-id path fills (a whole token's state, a
    character split in two, contexts of two to four ids) stay under their bound, whatever ids
    come in, and the pieces stay those of ``step``."""
    from tito.core import detok_one

    vocab = vocabs["gpt2"]
    interned: dict = {}
    for module in (d, detok_one):
        monkeypatch.setattr(module, "INTERNED_STATES", 8)
        monkeypatch.setattr(module, "_AFTER_WHOLE", interned)
    monkeypatch.setattr(vocab, "pair_memo", {})
    monkeypatch.setattr(vocab, "split_memo", {})
    text = "中文测试：你好，世界。日本語のテキスト、한국어 문장. 😀 👍🏽 🇯🇵 字符 " * 2
    ids = [*range(1000, 1100), *vocab.encode(text)]
    state = expected = d.DetokState()
    for token_id in ids:
        state, piece = step_one(vocab, state, token_id, True)
        expected, pieces = d.step(vocab, expected, [token_id], skip_special_tokens=True)
        assert (state, piece) == (expected, pieces[0])
        assert len(interned) <= 8 and len(vocab.pair_memo) <= 8 and len(vocab.split_memo) <= 8
    assert vocab.split_memo  # the text splits characters in two ids (more than 8 of them)
