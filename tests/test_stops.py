"""Stop tokens and stop strings (``tito.core.stop_tokens``, ``tito.core.stops``): spec 3.7 /
section 7 cases, limits, and properties (streamed == batch == text cut at the first eligible stop
occurrence, minimal and bounded hold-back, chunking invariance with a JSON round trip of the
state between calls).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tito.core.stop_tokens import TokenStop, resolve_stop_reason, stop_token_check
from tito.core.stops import (
    MAX_STOP_STRING_CHARS,
    MAX_STOP_STRINGS,
    MAX_STOP_TOKEN_IDS,
    StopConfig,
    StopState,
    step,
)
from tito.core.state import StateError
from tito.errors import BadRequest

QWEN_EOS = 151645  # <|im_end|>: primary EOS (tokenizer_config eos_token)
QWEN_EXTRA_EOS = 151643  # <|endoftext|>: generation-config EOS (tito.json extra_eos_token_ids)


# -- helpers ----------------------------------------------------------------------------------


def token_pieces(vocab, ids: Sequence[int], *, skip_special_tokens: bool = True):
    """Per-token text pieces as an incremental detokenizer emits them, plus the final flush.

    A token whose prefix decode ends in U+FFFD (unfinished UTF-8) or rewrites earlier text
    emits ``""``; its text arrives with a later token or in the flush.
    """
    pieces: list[str] = []
    emitted = ""
    for i in range(len(ids)):
        text = vocab.decode(ids[: i + 1], skip_special_tokens=skip_special_tokens)
        if text.endswith("\ufffd") or not text.startswith(emitted):
            pieces.append("")
            continue
        pieces.append(text[len(emitted) :])
        emitted = text
    full = vocab.decode(ids, skip_special_tokens=skip_special_tokens)
    flush = full[len(emitted) :] if full.startswith(emitted) else ""
    return pieces, flush


def roundtrip(state: StopState) -> StopState:
    """The client carries the state as JSON between calls."""
    return StopState.model_validate(json.loads(json.dumps(state.model_dump(mode="json"))))


def run_stream(cfg: StopConfig, pieces: Sequence[str], cuts: Sequence[int], flush: str = ""):
    """Feed ``pieces`` split at ``cuts`` (sorted piece indices); return (text, state, outputs)."""
    state = StopState()
    outs: list[str] = []
    bounds = [0, *cuts, len(pieces)]
    n_calls = len(bounds) - 1
    for k in range(n_calls):
        last = k == n_calls - 1
        state, text, _, _ = step(
            cfg, roundtrip(state), pieces[bounds[k] : bounds[k + 1]],
            final=last, flush_text=flush if last else "",
        )
        outs.append(text)
        assert len(state.held) + len(state.tail) <= max(cfg.max_stop_len - 1, 0)
    return "".join(outs), state, outs


def oracle(text: str, stops: Sequence[str], include: bool, searchable_from: int = 0):
    """``text`` cut at the earliest-ending stop occurrence ending after ``searchable_from``.

    Returns (output text, stop string or None, end of the occurrence or None).
    """
    for end in range(searchable_from + 1, len(text) + 1):
        for s in stops:
            if text[:end].endswith(s):
                return (text[:end] if include else text[: end - len(s)]), s, end
    return text, None, None


def piece_index(pieces: Sequence[str], end: int) -> int:
    """Index of the piece holding character ``end - 1`` of the text (the last if in the flush)."""
    pos = 0
    for j, p in enumerate(pieces):
        pos += len(p)
        if end - 1 < pos:
            return j
    return len(pieces) - 1


def longest_prefix_suffix(text: str, stops: Sequence[str]) -> str:
    best = ""
    for s in stops:
        for k in range(1, min(len(s) - 1, len(text)) + 1):
            if s.startswith(text[len(text) - k :]) and k > len(best):
                best = text[len(text) - k :]
    return best


def batch(cfg: StopConfig, pieces: Sequence[str], flush: str = ""):
    state, text, fired, _ = step(cfg, StopState(), pieces, final=True, flush_text=flush)
    return text, state, fired


# -- stop strings: spec 3.7 rule 2 --------------------------------------------------------------


@pytest.mark.parametrize("model", ["qwen3", "mistral-v3", "gpt2"])
def test_stop_string_keeps_preceding_space(vocabs, model):
    vocab = vocabs[model]
    pieces, flush = token_pieces(vocab, vocab.encode("one two three"))
    text, state, fired = batch(StopConfig(stop=["three"]), pieces, flush)
    assert (text, fired, state.stop_reason) == ("one two ", True, "three")


@pytest.mark.parametrize("model", ["qwen3", "mistral-v3", "gpt2"])
def test_include_stop_str_in_output(vocabs, model):
    vocab = vocabs[model]
    pieces, flush = token_pieces(vocab, vocab.encode("one two three four"))
    cfg = StopConfig(stop=["three"], include_stop_str_in_output=True)
    text, state, _ = batch(cfg, pieces, flush)
    assert (text, state.stop_reason) == ("one two three", "three")


def test_completion_style_single_string_stop():
    cfg = StopConfig.from_request({"stop": "\n\n", "max_tokens": 5})
    assert cfg.stop == ["\n\n"]
    text, state, _ = batch(cfg, ["Para one.", "\n", "\n", "Para two."])
    assert (text, state.stop_reason) == ("Para one.", "\n\n")


def test_no_stop_strings_pass_through():
    cfg = StopConfig()
    state, text, fired, _ = step(cfg, StopState(), ["a", "b"])
    # nothing held, and nothing counted: min_tokens only concerns stop strings
    assert (text, fired, state) == ("ab", False, StopState())


# -- stop tokens: spec 3.7 rule 1 ---------------------------------------------------------------


def test_finish_stop_alone_does_not_drop_last_token(vocabs):
    vocab = vocabs["qwen3"]
    ids = vocab.encode("hello world")
    assert stop_token_check(vocab, StopConfig(), ids[-1], "stop") == TokenStop(False, None, False)


def test_client_stop_token_dropped_with_stop_reason_id(vocabs):
    vocab = vocabs["qwen3"]
    ids = vocab.encode("hello world.")
    cfg = StopConfig(stop_token_ids=[ids[-1]])
    res = stop_token_check(vocab, cfg, ids[-1], "stop")
    assert res == TokenStop(drop=True, stop_reason=ids[-1], matched=True)
    pieces, flush = token_pieces(vocab, ids[:-1] if res.drop else ids)
    text, state, _ = batch(cfg, pieces, flush)
    assert text == "hello world"
    assert resolve_stop_reason(res, state) == ids[-1]


@pytest.mark.parametrize("model", ["qwen3", "mistral-v3", "gpt2"])
def test_primary_eos_dropped_with_stop_reason_none(vocabs, model):
    vocab = vocabs[model]
    assert vocab.eos_token_id is not None
    if model == "qwen3":
        assert vocab.eos_token_id == QWEN_EOS
    ids = [*vocab.encode("hello world"), vocab.eos_token_id]
    res = stop_token_check(vocab, StopConfig(), ids[-1], "stop")
    assert res == TokenStop(drop=True, stop_reason=None, matched=True)
    pieces, flush = token_pieces(vocab, ids[:-1], skip_special_tokens=False)
    assert "".join(pieces) + flush == vocab.decode(ids[:-1], skip_special_tokens=False)
    assert resolve_stop_reason(res, batch(StopConfig(), pieces, flush)[1]) is None


def test_generation_config_extra_eos_dropped_with_stop_reason_id(vocabs):
    vocab = vocabs["qwen3"]
    assert QWEN_EXTRA_EOS in vocab.extra_eos_token_ids
    res = stop_token_check(vocab, StopConfig(), QWEN_EXTRA_EOS, "stop")
    assert res == TokenStop(drop=True, stop_reason=QWEN_EXTRA_EOS, matched=True)


def test_include_flag_keeps_stop_token_but_reports_reason(vocabs):
    vocab = vocabs["qwen3"]
    cfg = StopConfig(include_stop_str_in_output=True, stop_token_ids=[13])
    assert stop_token_check(vocab, cfg, QWEN_EOS, "stop") == TokenStop(False, None, True)
    assert stop_token_check(vocab, cfg, QWEN_EXTRA_EOS, "stop") == TokenStop(
        False, QWEN_EXTRA_EOS, True
    )
    assert stop_token_check(vocab, cfg, 13, "stop") == TokenStop(False, 13, True)


@pytest.mark.parametrize("finish_reason", ["length", "abort", None])
def test_non_stop_finish_never_drops(vocabs, finish_reason):
    vocab = vocabs["qwen3"]
    cfg = StopConfig(stop_token_ids=[13])
    for last in (QWEN_EOS, QWEN_EXTRA_EOS, 13):
        assert stop_token_check(vocab, cfg, last, finish_reason) == TokenStop(False, None, False)
    assert stop_token_check(vocab, cfg, None, "stop") == TokenStop(False, None, False)


def test_eos_precedence_and_ignore_eos(vocabs):
    """vLLM's check_stop tests the primary EOS before stop_token_ids (so None wins), and with
    ignore_eos neither EOS kind stops the engine (the extra EOS is not merged then)."""
    vocab = vocabs["qwen3"]
    both = StopConfig(stop_token_ids=[QWEN_EOS])
    assert stop_token_check(vocab, both, QWEN_EOS, "stop") == TokenStop(True, None, True)
    ignore = StopConfig(stop_token_ids=[QWEN_EOS], ignore_eos=True)
    assert stop_token_check(vocab, ignore, QWEN_EOS, "stop") == TokenStop(True, QWEN_EOS, True)
    plain_ignore = StopConfig(ignore_eos=True)
    for last in (QWEN_EOS, QWEN_EXTRA_EOS):
        assert stop_token_check(vocab, plain_ignore, last, "stop") == TokenStop(False, None, False)


def test_engine_reported_stop_id_is_trusted_alone(vocabs):
    """An int ``stop_reason`` from the engine names the stop token, as vLLM 0.33's derender
    reads it (``_drop_stop_token``): the last id is dropped only when it is that id, and the
    reported id is the answer's ``stop_reason`` even when the last id is the primary EOS or a
    listed stop id (fuzz_derender seed 506, qwen3-cmpl case 14: tito had read the EOS)."""
    vocab = vocabs["qwen3"]
    cfg = StopConfig(stop_token_ids=[13])
    for last in (QWEN_EOS, QWEN_EXTRA_EOS, 13):
        res = stop_token_check(vocab, cfg, last, "stop", 11)
        assert res == TokenStop(False, None, False)
        assert resolve_stop_reason(res, StopState(), 11) == 11
    assert stop_token_check(vocab, cfg, QWEN_EOS, "stop", QWEN_EOS) == TokenStop(
        True, QWEN_EOS, True)
    assert stop_token_check(vocab, StopConfig(ignore_eos=True), QWEN_EOS, "stop",
                            QWEN_EOS) == TokenStop(True, QWEN_EOS, True)


def test_token_stop_before_string_scan(vocabs):
    """The stop token is dropped before the string scan: a stop string equal to its text never
    matches it, while a stop string in the remaining text still cuts and wins as stop_reason."""
    vocab = vocabs["qwen3"]
    ids = [*vocab.encode("Sure. Bye"), QWEN_EOS]

    cfg = StopConfig(stop=["<|im_end|>"])
    res = stop_token_check(vocab, cfg, ids[-1], "stop")
    assert res.drop
    pieces, flush = token_pieces(vocab, ids[:-1], skip_special_tokens=False)
    text, state, fired = batch(cfg, pieces, flush)
    assert (text, fired, resolve_stop_reason(res, state)) == ("Sure. Bye", False, None)

    cfg = StopConfig(stop=["."])
    res = stop_token_check(vocab, cfg, ids[-1], "stop")
    pieces, flush = token_pieces(vocab, ids[:-1])
    text, state, fired = batch(cfg, pieces, flush)
    assert (text, fired, resolve_stop_reason(res, state)) == ("Sure", True, ".")

    # With include_stop_str_in_output the token is decoded and its text can match the string.
    cfg = StopConfig(stop=["<|im_end|>"], include_stop_str_in_output=True)
    res = stop_token_check(vocab, cfg, ids[-1], "stop")
    assert not res.drop
    pieces, flush = token_pieces(vocab, ids, skip_special_tokens=False)
    text, state, _ = batch(cfg, pieces, flush)
    assert text == "Sure. Bye<|im_end|>"
    assert resolve_stop_reason(res, state) == "<|im_end|>"


def test_length_keeps_last_token(vocabs):
    vocab = vocabs["qwen3"]
    ids = vocab.encode("one two three")
    cfg = StopConfig(stop_token_ids=[ids[-1]])
    res = stop_token_check(vocab, cfg, ids[-1], "length")
    assert not res.drop
    pieces, flush = token_pieces(vocab, ids)
    assert batch(cfg, pieces, flush)[0] == "one two three"


# -- streaming: spec 3.7 rule 3 -----------------------------------------------------------------


def test_spec_example_minimal_hold_back():
    """Spec 3.7's chunks "one two " + "three": vLLM withholds max(len)-1 chars ("two ") in the
    first call; tito withholds only a proper prefix of a stop string, here nothing."""
    cfg = StopConfig(stop=["three"])
    s1, out1, f1, _ = step(cfg, StopState(), ["one", " two", " "])
    assert (out1, s1.held, f1) == ("one two ", "", False)
    s2, out2, f2, _ = step(cfg, roundtrip(s1), ["three"], final=True)
    assert (out2, f2, s2.stop_reason) == ("", True, "three")


def test_hold_back_released_when_disambiguated():
    cfg = StopConfig(stop=["three"])
    s1, out1, _, _ = step(cfg, StopState(), ["one two th"])
    assert (out1, s1.held) == ("one two ", "th")
    s2, out2, f2, _ = step(cfg, s1, ["ink"])
    assert (out2, s2.held, f2) == ("think", "", False)
    s3, out3, _, _ = step(cfg, StopState(), ["one two th"], final=True)
    assert (out3, s3.held) == ("one two th", "")  # released at finish


def test_after_stop_suppression():
    cfg = StopConfig(stop=["END"])
    s1, out1, f1, at = step(cfg, StopState(), ["a", "E", "ND", "b"])
    assert (out1, f1, at) == ("a", True, 2)
    s2, out2, f2, _ = step(cfg, s1, ["more", "text"])
    assert (out2, f2, s2.fired, s2.stop_reason, s2.tokens) == ("", False, True, "END", 6)
    s3, out3, f3, _ = step(cfg, roundtrip(s2), ["x"], final=True, flush_text="y")
    assert (out3, f3, s3.fired) == ("", False, True)


def test_stop_word_split_across_tokens_and_chunks(vocabs):
    vocab = vocabs["qwen3"]
    text = "The answer is forty-two, surely."
    ids = vocab.encode(text)
    pieces, flush = token_pieces(vocab, ids)
    assert "".join(pieces) + flush == text
    cfg = StopConfig(stop=["forty-two"])
    # The stop word covers more than one token.
    assert not any("forty-two" in p for p in pieces)
    want = ("The answer is ", "forty-two")
    for cuts in ([], list(range(1, len(pieces))), [2], [len(pieces) - 1]):
        got, state, outs = run_stream(cfg, pieces, cuts, flush)
        assert (got, state.stop_reason) == want
    # One token per call: the partial match is withheld, never emitted.
    emitted = "".join(run_stream(cfg, pieces, list(range(1, len(pieces))), flush)[2])
    assert "forty" not in emitted


def test_emoji_stop_split_over_byte_tokens(vocabs):
    """🎉 is three byte-level tokens in qwen3: the detokenizer emits "" for the first two."""
    vocab = vocabs["qwen3"]
    ids = vocab.encode("party 🎉 time")
    pieces, flush = token_pieces(vocab, ids)
    assert "" in pieces
    cfg = StopConfig(stop=["🎉"])
    for cuts in ([], list(range(1, len(pieces)))):
        got, state, _ = run_stream(cfg, pieces, cuts, flush)
        assert (got, state.stop_reason) == ("party ", "🎉")


def test_earliest_ending_match_wins():
    # "cd" ends before "bcdef" even though "bcdef" starts earlier.
    assert batch(StopConfig(stop=["bcdef", "cd"]), ["abcdefg"])[0] == "ab"
    # Earliest-ending beats list order.
    text, state, _ = batch(StopConfig(stop=["xyz", "abc"]), ["abc", " xyz"])
    assert (text, state.stop_reason) == ("", "abc")
    # Same end: list order breaks the tie.
    assert batch(StopConfig(stop=["bc", "abc"]), ["xabc"])[1].stop_reason == "bc"
    assert batch(StopConfig(stop=["bc", "abc"]), ["xabc"])[0] == "xa"
    assert batch(StopConfig(stop=["abc", "bc"]), ["xabc"])[0] == "x"


def test_earliest_ending_match_across_chunks():
    cfg = StopConfig(stop=["bcdef", "cd"])
    s1, out1, _, _ = step(cfg, StopState(), ["ab"])
    assert (out1, s1.held) == ("a", "b")
    s2, out2, f2, _ = step(cfg, s1, ["c"])
    assert (out2, s2.held) == ("", "bc")
    s3, out3, f3, _ = step(cfg, s2, ["def"])
    assert (out3, f3, s3.stop_reason) == ("b", True, "cd")


def test_overlapping_stop_strings_self_overlap():
    cfg = StopConfig(stop=["aaab"])
    got, state, outs = run_stream(cfg, list("aaaab"), [1, 2, 3, 4])
    assert (got, state.stop_reason) == ("a", "aaab")
    assert outs == ["", "", "", "a", ""]
    cfg = StopConfig(stop=["abab", "bac"])
    assert oracle("ababac", cfg.stop, False)[:2] == ("", "abab")
    assert run_stream(cfg, list("ababac"), [1, 2, 3, 4, 5])[0] == ""


def test_include_flag_streams_without_hold_back():
    cfg = StopConfig(stop=["three"], include_stop_str_in_output=True)
    s1, out1, _, _ = step(cfg, StopState(), ["one two th"])
    assert (out1, s1.held, s1.tail) == ("one two th", "", "th")
    s2, out2, f2, _ = step(cfg, roundtrip(s1), ["ree four"])
    assert (out2, f2, s2.stop_reason) == ("ree", True, "three")


def test_min_tokens():
    cfg = StopConfig(stop=["stop"], min_tokens=1)
    # "stop" inside the first token is not searchable; the later one fires.
    assert batch(cfg, ["stop", " x", " stop", " y"])[0] == "stop x "
    # A match that starts in the first min_tokens tokens but ends after them is eligible.
    assert batch(StopConfig(stop=["stop"], min_tokens=1), ["st", "op"])[0] == ""
    assert batch(StopConfig(stop=["stop"], min_tokens=2), ["st", "op"])[0] == "stop"
    # Flush text belongs to the last token.
    assert batch(StopConfig(stop=["é"], min_tokens=1), ["a", ""], flush="é")[0] == "a"
    assert batch(StopConfig(stop=["é"], min_tokens=2), ["a", ""], flush="é")[0] == "aé"
    # Chunking does not change the boundary.
    cfg = StopConfig(stop=["ab"], min_tokens=3)
    pieces = ["ab", "a", "b", "ab"]  # 'ab' ends in token 1 and token 3: both <= min_tokens
    for cuts in ([], [1], [2], [3], [1, 2, 3]):
        assert run_stream(cfg, pieces, cuts)[0] == "abab"
    assert run_stream(cfg, [*pieces, "x"], [1, 3])[0] == "abab"
    # min_tokens=2: "ab" spanning tokens 2 and 3 ends after the boundary and fires.
    cfg = StopConfig(stop=["ab"], min_tokens=2)
    for cuts in ([], [1], [2], [1, 2, 3, 4]):
        assert run_stream(cfg, ["ab", "a", "b", "a", "b"], cuts)[0] == "ab"


def test_hold_back_bounded_over_long_stream():
    """A stream of prefix characters keeps held at max(len)-1, not at the history length."""
    stop = "a" * (MAX_STOP_STRING_CHARS - 1) + "b"
    cfg = StopConfig(stop=[stop])
    state, emitted = StopState(), 0
    for k in range(1, 51):
        state, out, _, _ = step(cfg, state, ["a"] * 200)
        emitted += len(out)
        assert len(state.held) == min(200 * k, MAX_STOP_STRING_CHARS - 1)
    assert emitted + len(state.held) == 50 * 200
    state, out, fired, _ = step(cfg, state, ["b"])
    assert fired and out == ""


# -- config, limits, state validation -----------------------------------------------------------


def test_from_request_shapes():
    class Req(BaseModel):
        stop: str | list[str] | None = None
        stop_token_ids: list[int] | None = None
        include_stop_str_in_output: bool = False
        min_tokens: int = 0
        ignore_eos: bool = False
        temperature: float = 1.0

    assert StopConfig.from_request({}) == StopConfig()
    assert StopConfig.from_request({"stop": None, "stop_token_ids": None}) == StopConfig()
    cfg = StopConfig.from_request(
        Req(stop="x", stop_token_ids=[5], include_stop_str_in_output=True, min_tokens=2,
            ignore_eos=True)
    )
    assert cfg == StopConfig(stop=["x"], stop_token_ids=[5], include_stop_str_in_output=True,
                             min_tokens=2, ignore_eos=True)
    assert StopConfig.model_validate(cfg.model_dump(mode="json")) == cfg
    with pytest.raises(BadRequest) as exc:
        StopConfig.from_request({"stop_token_ids": ["nope"]})
    assert exc.value.param == "stop_token_ids"
    with pytest.raises(BadRequest) as exc:
        StopConfig.from_request({"stop": 5})
    assert exc.value.param == "stop"


def test_limits():
    StopConfig.model_validate({"stop": ["s"] * MAX_STOP_STRINGS})
    StopConfig.model_validate({"stop": ["s" * MAX_STOP_STRING_CHARS]})
    with pytest.raises(BadRequest, match=str(MAX_STOP_STRINGS)) as exc:
        StopConfig.from_request({"stop": ["s"] * (MAX_STOP_STRINGS + 1)})
    assert exc.value.param == "stop"
    with pytest.raises(BadRequest, match=str(MAX_STOP_STRING_CHARS)) as exc:
        StopConfig.model_validate({"stop": ["s" * (MAX_STOP_STRING_CHARS + 1)]})
    assert exc.value.param == "stop"
    # an empty stop string is no stop string at derender (vLLM 0.33's derender ignores it;
    # goldens derender_stop_empty); a carried config never holds one
    assert StopConfig.from_request({"stop": ["", "ok", ""]}).stop == ["ok"]
    assert StopConfig.from_request({"stop": ""}).stop == []
    with pytest.raises(BadRequest, match="empty"):
        StopConfig.model_validate({"stop": ["ok", ""]})
    with pytest.raises(BadRequest, match=str(MAX_STOP_TOKEN_IDS)) as exc:
        StopConfig.from_request({"stop_token_ids": list(range(MAX_STOP_TOKEN_IDS + 1))})
    assert exc.value.param == "stop_token_ids"
    with pytest.raises(BadRequest) as exc:
        StopConfig.from_request({"min_tokens": -1})
    assert exc.value.param == "min_tokens"


def test_state_validation():
    with pytest.raises(StateError):
        StopState.model_validate({"held": "x" * MAX_STOP_STRING_CHARS})
    with pytest.raises(StateError):
        StopState.model_validate({"fired": True})
    with pytest.raises(StateError):
        StopState.model_validate({"held": "a", "tail": "b"})
    with pytest.raises(StateError):
        StopState.model_validate({"tokens": -1})
    with pytest.raises(StateError):
        StopState.model_validate({"held": "", "extra": 1})
    cfg = StopConfig(stop=["three"])
    with pytest.raises(BadRequest) as exc:  # forged: not a proper prefix of a stop string
        step(cfg, StopState(held="secret"), ["x"])
    assert exc.value.param == "stream_state"
    with pytest.raises(BadRequest):  # a full stop string is not a proper prefix
        step(cfg, StopState(held="three"), ["x"])
    with pytest.raises(BadRequest):  # tail only exists with include_stop_str_in_output
        step(cfg, StopState(tail="th"), ["x"])
    with pytest.raises(BadRequest):
        step(StopConfig(), StopState(held="th"), ["x"])


def test_input_state_not_mutated():
    cfg = StopConfig(stop=["three"])
    s0 = StopState(held="th", tokens=3)
    dump = s0.model_dump()
    step(cfg, s0, ["ree"])
    assert s0.model_dump() == dump


# -- properties ---------------------------------------------------------------------------------

ALPHABET = "ab a\n🎉中文é"
texts = st.text(alphabet=ALPHABET, max_size=30)


@st.composite
def scenarios(draw, text_strategy=texts):
    text = draw(text_strategy)
    stops: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if text and draw(st.booleans()):
            i = draw(st.integers(0, len(text) - 1))
            j = draw(st.integers(i + 1, min(len(text), i + 6)))
            stops.append(text[i:j])
        else:
            stops.append(draw(st.text(alphabet=ALPHABET, min_size=1, max_size=4)))
    # Split into per-token pieces (empty pieces allowed) and an optional flush.
    cut_points = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cut_points, len(text)]
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    flush = ""
    if pieces and draw(st.booleans()):
        flush = pieces.pop()
    calls = sorted(draw(st.lists(st.integers(0, len(pieces)), max_size=6)))
    include = draw(st.booleans())
    min_tokens = draw(st.integers(0, len(pieces) + 1))
    return stops, pieces, flush, calls, include, min_tokens


def check_scenario(stops, pieces, flush, calls, include, min_tokens):
    cfg = StopConfig(stop=stops, include_stop_str_in_output=include, min_tokens=min_tokens)
    full = "".join(pieces) + flush
    if 0 < min_tokens >= len(pieces):
        searchable_from = len(full)  # the flush belongs to the last token, not past min_tokens
    else:
        searchable_from = len("".join(pieces[:min_tokens]))
    want_text, want_reason, want_end = oracle(full, stops, include, searchable_from)
    want_at = None if want_end is None else piece_index(pieces, want_end)

    b_state, b_text, b_fired, b_at = step(cfg, StopState(), pieces, final=True, flush_text=flush)
    assert (b_text, b_state.stop_reason) == (want_text, want_reason)
    assert b_fired == (want_reason is not None)
    assert b_at == want_at

    # Streamed, with the state carried as JSON and the hold-back checked after every call.
    state, emitted, seen, fired_calls, got_at = StopState(), "", "", 0, None
    bounds = [0, *calls, len(pieces)]
    for k in range(len(bounds) - 1):
        last = k == len(bounds) - 2
        chunk = pieces[bounds[k] : bounds[k + 1]]
        state, out, fired, at = step(cfg, roundtrip(state), chunk, final=last,
                                     flush_text=flush if last else "")
        emitted += out
        seen += "".join(chunk) + (flush if last else "")
        fired_calls += fired
        if fired:
            got_at = bounds[k] + at  # per-call index -> index in the whole piece list
        else:
            assert at is None
        assert len(state.held) <= max(len(s) for s in stops) - 1
        assert len(state.tail) <= max(len(s) for s in stops) - 1
        if not state.fired and not last:
            # Minimal hold-back: exactly the longest suffix that could still start a stop.
            pending = longest_prefix_suffix(seen, stops)
            assert (state.tail if include else state.held) == pending
            assert emitted == (seen if include else seen[: len(seen) - len(pending)])
    assert (emitted, state.fired, state.stop_reason) == (want_text, b_fired, want_reason)
    assert fired_calls == int(b_fired)
    assert got_at == want_at
    assert state.tokens == len(pieces)


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_property_streamed_equals_batch_equals_cut(scenario):
    check_scenario(*scenario)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.text(alphabet="ab éü🎉中文\n", min_size=1, max_size=20),
    st.data(),
)
def test_property_real_tokenizer_pieces(vocabs, text, data):
    """Pieces from real qwen3 / gpt2 tokens (byte-level tokens emit "" mid-character)."""
    vocab = vocabs[data.draw(st.sampled_from(["qwen3", "gpt2", "mistral-v3"]))]
    pieces, flush = token_pieces(vocab, vocab.encode(text))
    full = "".join(pieces) + flush
    stops = []
    for _ in range(data.draw(st.integers(1, 3))):
        if full and data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(full) - 1))
            stops.append(full[i : data.draw(st.integers(i + 1, min(len(full), i + 5)))])
        else:
            stops.append(data.draw(st.text(alphabet="ab é🎉", min_size=1, max_size=3)))
    calls = sorted(data.draw(st.lists(st.integers(0, len(pieces)), max_size=5)))
    include = data.draw(st.booleans())
    min_tokens = data.draw(st.integers(0, len(pieces)))
    check_scenario(stops, pieces, flush, calls, include, min_tokens)


def test_with_real_detokenizer(vocabs):
    """Composition as in the pipeline: stop-token check, detokenizer pieces, stop strings.
    ``fired_at`` names the token the coupled engine would have stopped after."""
    detok = pytest.importorskip("tito.core.detokenizer")
    vocab = vocabs["qwen3"]
    prompt = vocab.encode("<|im_start|>assistant\n")
    ids = [*vocab.encode("Step 1: 中文 🎉 done. STOP here, then more"), QWEN_EOS]
    for include in (False, True):
        cfg = StopConfig(stop=["STOP", "🎉 x"], include_stop_str_in_output=include)
        for size in (1, 2, 3, len(ids)):
            dstate = detok.seed(vocab, prompt, skip_special_tokens=True)
            sstate, text, kept = StopState(), "", None
            chunks = [ids[i : i + size] for i in range(0, len(ids), size)]
            for k, chunk in enumerate(chunks):
                final = k == len(chunks) - 1
                res = stop_token_check(vocab, cfg, chunk[-1], "stop" if final else None)
                decode_ids = chunk[:-1] if res.drop else chunk
                dstate, pieces = detok.step(vocab, dstate, decode_ids, skip_special_tokens=True)
                flushed = ""
                if final:
                    dstate, flushed = detok.flush(vocab, dstate, skip_special_tokens=True)
                sstate, out, fired, at = step(cfg, roundtrip(sstate), pieces, final=final,
                                              flush_text=flushed)
                text += out
                if fired:
                    kept = k * size + at + 1
            want = "Step 1: 中文 🎉 done. STOP" if include else "Step 1: 中文 🎉 done. "
            assert (text, sstate.stop_reason) == (want, "STOP")
            # The coupled engine would have generated exactly the ids through the stop string.
            assert vocab.decode(ids[:kept]).endswith("STOP")
            assert "STOP" not in vocab.decode(ids[: kept - 1])
