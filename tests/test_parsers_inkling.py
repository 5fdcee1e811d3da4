"""Inkling's block router (``inkling`` tool and reasoning parsers) beyond the goldens.

The goldens (``tests/test_parsers_goldens.py``, ``inkling*`` cases recorded from vLLM 0.33's
own classes) pin the answers; here: any chunking of any mix of Inkling's markers gives the batch
result byte for byte with the state round-tripping through JSON, the state stays small for any
output, reasoning tokens follow vLLM's ``count_reasoning_tokens``, the initial phase follows the
prompt as vLLM's stream, and the pairing rule. Real tokenizer: Qwen3's with Inkling's eight
markers added as special tokens (as the goldens).
"""

from __future__ import annotations

import pathlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent / "goldens"))
import parser_cases_inkling as cases  # noqa: E402
from helpers import router_config, run_router  # noqa: E402
from parser_pipeline import make_vocab  # noqa: E402

from tito.core.parsers.inkling import prompt_reasoning_ended
from tito.core.pipeline import ChoiceConfig, start_choice, step_choice
from tito.models.model_spec import ModelLoadError

VOCAB = make_vocab(tuple(cases.MARKERS))
#: the router's state bound (held text <= 230 characters, the call parser's < 512 bytes)
STATE_BYTES = 2048
M, TX, TH, TJ, TT, TE, ES, E = (cases.M, cases.TX, cases.TH, cases.TJ, cases.TT, cases.TE,
                                cases.ES, cases.E)

FRAGMENTS = [
    M, TX, TH, TJ, TT, TE, ES, E, '{"name":"get_weather"', '{"name": "run",', '"args":',
    ' "args" : ', '{"city":"SF"}', '{"code":"a\\"}b"}', "{", "}", "[", "]", '"', "\\", ",", ":",
    '"name":"x"', "get_weather", " ", "\n", "text", "東京 é", "<", "<|", "<|end_mess",
]
PAIRS = [("inkling", "inkling"), (None, "inkling"), ("inkling", None)]


def config(tool: str | None, reasoning: str | None) -> ChoiceConfig:
    return router_config(VOCAB, cases.TOOLS, tool, reasoning)


def run(cfg: ChoiceConfig, ids: list[int], sizes: list[int],
        prompt: str = cases.PROMPT) -> tuple[dict, list[int]]:
    """The ids through the pipeline in chunks of ``sizes`` (cycled), the state through JSON
    between calls (:func:`helpers.run_router`)."""
    return run_router(VOCAB, cfg, ids, sizes, VOCAB.encode(prompt), "inkling")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), pair=st.sampled_from(PAIRS))
def test_any_chunking_equals_batch_and_the_state_round_trips(data, pair):
    text = "".join(data.draw(st.lists(st.sampled_from(FRAGMENTS), max_size=24)))
    ids = VOCAB.encode(text)
    sizes = data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=6))
    prompt = data.draw(st.sampled_from(cases.ENDED_PROMPTS))
    cfg = config(*pair)
    batch, _ = run(cfg, ids, [max(len(ids), 1)], prompt)
    chunked, seen = run(cfg, ids, sizes, prompt)
    assert chunked == batch
    assert run(cfg, ids, [1], prompt)[0] == batch
    assert max(seen) < STATE_BYTES


@pytest.mark.parametrize("text", [
    TH + "x" * 200_000 + E + M + TX + "y " * 50_000 + E,  # long blocks
    TH + "a" + " \n" * 100_000 + E + M + TX + "b",  # a long whitespace run in reasoning
    "h" * 100_000 + TJ + '{"name":"run","args":{}}' + E,  # a header past its limit: content
    TJ + '{"name":"run","args":{"code":"' + "x" * 300_000 + '"}}' + E,  # long arguments
    TJ + '{"name":"run","args":' + "{" * 50_000 + E,  # deep arguments
    TJ + '{"x":"' + "y" * 100_000 + '","name":"run"}' + E + M + TX + "ok",  # a late name
    TJ + '{"name":"run"' + "}" * 50_000 + ',"args":{"a":1}}' + E,  # a deeply negative wrapper
])
@pytest.mark.parametrize("pair", PAIRS)
def test_long_outputs_keep_the_state_small(text, pair):
    ids = VOCAB.encode(text)
    batch, _ = run(config(*pair), ids, [len(ids)])
    chunked, seen = run(config(*pair), ids, [97])
    assert chunked == batch
    assert max(seen) < STATE_BYTES


def test_a_name_past_the_header_limit_makes_no_call():
    """Module header (``tools/inkling.py``): the name must match within the held header."""
    for pad, calls in ((150, [["run", "{}"]]), (250, [])):
        text = TJ + '{"x":"' + "y" * pad + '","name":"run"}' + E + M + TX + "ok" + E
        got, _ = run(config("inkling", "inkling"), VOCAB.encode(text), [3])
        assert got["calls"] == calls and got["content"] == "ok"


def test_a_header_past_its_limit_is_content():
    """Rule 1: a header longer than HEADER_LIMIT is content; a shorter one is dropped."""
    for size, content in ((200, "ok"), (201, "h" * 201 + "ok")):
        text = "h" * size + TX + "ok" + E
        got, _ = run(config("inkling", "inkling"), VOCAB.encode(text), [4])
        assert got["content"] == content


def _count_vllm(ids: list[int]) -> int:
    """vLLM 0.33's ``InklingParser.count_reasoning_tokens`` as written there: the oracle for
    random outputs the goldens do not cover."""
    thinking = VOCAB.token_id(TH)
    ends = {VOCAB.token_id(E), VOCAB.token_id(ES)}
    inside, n = False, 0
    for tid in ids:
        if tid == thinking:
            inside = True
        elif tid in ends:
            inside = False
        elif inside:
            n += 1
    return n


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(FRAGMENTS), max_size=30), seed=st.integers(1, 6))
def test_count_any_chunking_equals_vllms_rule(parts, seed):
    ids = VOCAB.encode("".join(parts))
    want = _count_vllm(ids)
    for sizes in ([max(len(ids), 1)], [1], [seed, 1]):
        assert run(config("inkling", "inkling"), ids, sizes)[0]["reasoning_tokens"] == want
        assert run(config(None, "inkling"), ids, sizes)[0]["reasoning_tokens"] == want
    # vLLM counts through the reasoning parser only
    assert run(config("inkling", None), ids, [2])[0]["reasoning_tokens"] == 0


def _ended_vllm(ids: list[int]) -> bool:
    """vLLM 0.33's ``InklingParser.is_reasoning_end`` as written there."""
    th, tx, m, es = (VOCAB.token_id(t) for t in (TH, TX, M, ES))
    for tid in reversed(ids):
        if tid in (th, m):
            return False
        if tid in (tx, es):
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.sampled_from(FRAGMENTS), max_size=20))
def test_prompt_reasoning_ended_equals_vllms_rule(parts):
    ids = VOCAB.encode("".join(parts))
    assert prompt_reasoning_ended(VOCAB, ids) is _ended_vllm(ids)


@pytest.mark.parametrize(("prompt", "want"), [
    (cases.PROMPT, {"reasoning": "", "content": "b", "calls": []}),  # a header: dropped
    # an open block (a text marker inside it is reasoning text, vLLM's table)
    (cases.PROMPT + TH, {"reasoning": "h" + TX + "b", "content": "", "calls": []}),
    (f"{M}{TX}hi", {"reasoning": "", "content": "hb", "calls": []}),  # reasoning over: content
    (f"{M}{TH}x{E}", {"reasoning": "", "content": "b", "calls": []}),  # the newest: E, a header
    ("no markers", {"reasoning": "", "content": "b", "calls": []}),
])
def test_the_prompt_decides_the_initial_phase(prompt, want):
    """Rule 3: vLLM's stream seeds its engine from the prompt (``is_reasoning_end``, then
    ``adjust_initial_state_from_prompt``)."""
    ids = VOCAB.encode("h" + TX + "b" + E)
    got, _ = run(config("inkling", "inkling"), ids, [2], prompt)
    assert {k: got[k] for k in want} == want


def test_the_tool_parser_alone_starts_in_content():
    ids = VOCAB.encode("h" + TX + "b" + E + M + "x" + TX + "c")
    got, _ = run(config("inkling", None), ids, [2])
    assert got["content"] == "hbc" and got["reasoning_tokens"] == 0


def test_without_call_parsing_a_tool_block_is_framed_content():
    """The reasoning parser alone (vLLM's batch): the block's opener and closer stay text."""
    ids = VOCAB.encode(f"{TH}t{E}{M}fn{TJ}{{}}{E}{M}{TX}x{E}")
    got, _ = run(config(None, "inkling"), ids, [1])
    assert got == {"reasoning": "t", "content": f"{TJ}{{}}{E}x", "calls": [],
                   "reasoning_tokens": 1}


@pytest.mark.parametrize("tool, reasoning", [("inkling", "qwen3"), ("hermes", "inkling"),
                                             ("inkling", "muse"), ("muse", "inkling")])
def test_inkling_parsers_pair_only_with_each_other(tool, reasoning, tmp_path):
    from types import SimpleNamespace

    from tito.models.model_spec import _check_parsers

    with pytest.raises(ModelLoadError, match="parsers go together"):
        _check_parsers(tmp_path, SimpleNamespace(tool_parser=tool, reasoning_parser=reasoning))
    for tool, reasoning in (("inkling", "inkling"), ("inkling", None), (None, "inkling")):
        _check_parsers(tmp_path, SimpleNamespace(tool_parser=tool, reasoning_parser=reasoning))


def test_the_service_state_codec_carries_the_router_state():
    """``tito.st``'s fast writer and reader (``stream_state_fast``) keep the router's state:
    the same as the generic dump, read back equal."""
    from tito.service import stream_state_fast as fast

    cfg = config("inkling", "inkling")
    state = start_choice(VOCAB, cfg, VOCAB.encode(cases.PROMPT))
    ids = VOCAB.encode(TH + "a b" + E + M + TJ + '{"name":"run","args":{"x')
    state, _ = step_choice(VOCAB, cfg, state, ids, finish_reason=None, response_id="r")
    st = fast._st_dump(state)
    assert st["inkling"] == state.inkling.model_dump(exclude_defaults=True)
    got = fast._choice_from(st, state.detok, "", 0, [], True)
    assert got is not None and got.inkling == state.inkling
    assert got.inkling.reasoning_tokens == state.inkling.reasoning_tokens > 0
