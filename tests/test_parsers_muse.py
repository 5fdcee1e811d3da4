"""Muse's channel router (``muse`` = ``musespark1x``; ``muse_glimmer``) beyond the goldens.

The goldens (``tests/test_parsers_goldens.py``, ``muse*`` cases recorded from vLLM 0.33's own
classes) pin the answers; here: any chunking of any mix of Muse's framing gives the batch
result byte for byte with the state round-tripping through JSON, the state stays small for any
output, reasoning tokens follow vLLM's counting rule, and a tampered state is refused. Real
tokenizer: Qwen3's with Muse's four framing markers added as special tokens (as the goldens).
"""

from __future__ import annotations

import pathlib
import re
import sys
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent / "goldens"))
import parser_cases_muse as cases  # noqa: E402
from helpers import router_config, run_router  # noqa: E402
from parser_pipeline import make_vocab  # noqa: E402

from tito.core.parsers.muse import prompt_reasoning_ended
from tito.core.parsers.tools._base import HEADER_LIMIT
from tito.core.parsers.tools.muse import MuseParser
from tito.core.pipeline import ChoiceConfig, ChoiceState, start_choice
from tito.core.state import StateError
from tito.models.model_spec import ModelLoadError

VOCAB = make_vocab(tuple(cases.MARKERS))
#: the router's state bound (held text <= 232 characters, the ATEM parser's < 512 bytes)
STATE_BYTES = 2048

FRAGMENTS = [
    "<|start|>", "<|message|>", "<|eom|>", "<|eot|>", "<|start|>assistant", " to=self",
    " to=user", " to=commentary", " to=developer", " to=get_weather", "to=run", " to", "t",
    "<|start|>user", "assistant", '<atem:function_calls>', "</atem:function_calls>",
    '<atem:invoke name="get_weather">', '<atem:invoke name="run.run">', "</atem:invoke>",
    '<atem:parameter name="city">', '<atem:parameter name="n">', '<atem:parameter name="opts">',
    "</atem:parameter>", "<atem:invoke", "Paris", "7", '{"a": [1, 2]}', "[1, 'x']", " ", "\t",
    "\n", "text", "東京 é", "<", "<|", "=",
    # names missing their closing quote, headers missing their ``>`` (vLLM reads to the quote)
    '<atem:parameter name="city>', '<atem:invoke name="get_weather', 'name="', '"', ">",
    '<atem:parameter name="" name="n"',
]
PAIRS = [("muse", "muse"), (None, "muse"), ("muse", None), ("musespark1x", "musespark1x"),
         ("muse_glimmer", "muse_glimmer"), (None, "muse_glimmer"), ("muse_glimmer", None)]


def config(tool: str | None, reasoning: str | None) -> ChoiceConfig:
    return router_config(VOCAB, cases.TOOLS, tool, reasoning)


def run(cfg: ChoiceConfig, ids: list[int], sizes: list[int]) -> tuple[dict, list[int]]:
    """The ids through the pipeline in chunks of ``sizes`` (cycled), the state through JSON
    between calls (:func:`helpers.run_router`)."""
    return run_router(VOCAB, cfg, ids, sizes, [], "muse")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), pair=st.sampled_from(PAIRS))
def test_any_chunking_equals_batch_and_the_state_round_trips(data, pair):
    text = "".join(data.draw(st.lists(st.sampled_from(FRAGMENTS), max_size=24)))
    ids = VOCAB.encode(text)
    sizes = data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=6))
    cfg = config(*pair)
    batch, _ = run(cfg, ids, [max(len(ids), 1)])
    chunked, seen = run(cfg, ids, sizes)
    assert chunked == batch
    assert run(cfg, ids, [1])[0] == batch
    assert max(seen) < STATE_BYTES


@pytest.mark.parametrize("text", [
    " to=self<|message|>" + "x" * 200_000 + "<|eom|>",  # a long reasoning message
    " to=" + "a" * 100_000 + "<|message|>b",  # a recipient past the header limit: text
    "<|start|>" + "assistant " * 10_000 + "<|message|>b",  # a header past its limit
    " to=get_weather<|message|>" + cases.calls(cases.invoke("run", ("opts", "[" * 50_000))),
    " " * 100_000 + "to=user<|message|>hi",  # spaces before a header: only 16 are its
])
@pytest.mark.parametrize("name", ["muse", "muse_glimmer"])
def test_long_outputs_keep_the_state_small(text, name):
    ids = VOCAB.encode(text)
    batch, _ = run(config(name, name), ids, [len(ids)])
    chunked, seen = run(config(name, name), ids, [97])
    assert chunked == batch
    assert max(seen) < STATE_BYTES


def test_a_recipient_past_the_limit_is_text_and_no_header():
    text = " to=" + "a" * 300 + "<|message|>b<|eot|>"
    ids = VOCAB.encode(text)
    got, _ = run(config("muse", "muse"), ids, [5])
    # the run is outside any message (content); the bare <|message|> opens a reasoning message
    assert got["content"] == " to=" + "a" * 300 and got["reasoning"] == "b"


#: vLLM 0.33's reading of an invoke's name and of a parameter (``MuseToolParser``'s regexes),
#: over one invoke's text (its regex ends an invoke at the first ``</atem:invoke>``)
VLLM_NAME = re.compile(r'<atem:invoke\b[^>]*?\bname="([^"]+)"')
VLLM_PARAM = re.compile(r'<atem:parameter\b[^>]*?\bname="(?P<key>[^"]+)"[^>]*?>'
                        r"(?P<value>.*?)</atem:parameter>", re.S)
#: a parameter's header alone (its value then runs to the invoke's end: tito keeps such a
#: value, vLLM's batch drops the parameter, docs/conformance.md)
VLLM_KEY = re.compile(r'<atem:parameter\b[^>]*?\bname="(?P<key>[^"]+)"[^>]*?>')
CLOSE = "</atem:invoke>"
HEAD_PIECES = ['name="', '"', ">", "<", "x", " ", "-", "\n", "city", "=", "<atem:parameter",
               CLOSE, "</atem:parameter>", "é"]


def _decided(read, h: str) -> tuple:
    """``read`` (the parser's ``_name`` / ``_key``) on every prefix of ``h``: each undecided or
    the whole header's answer (a header decided on a prefix stays decided: any chunking)."""
    whole = read(h)
    for k in range(len(h)):
        assert read(h[:k])[0] == "need" or read(h[:k]) == whole, (h, k)
    return whole


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(HEAD_PIECES), max_size=12))
def test_names_and_keys_read_as_vllms_regexes(pieces):
    """A name or key runs to its closing quote, ``>`` and markup included, never past the
    invoke's end; the first attribute with a value wins (parser fuzz seed 137)."""
    parser = MuseParser(tool_params=None)
    h = "".join(pieces) + ">v</atem:parameter>" + CLOSE  # the invoke's end decides a header
    assume(len(h) <= HEADER_LIMIT)  # (a longer header is no call: the state stays bounded)
    invoke = h[: h.index(CLOSE) + len(CLOSE)]
    kind, _, name, _ = _decided(parser._name, h)
    want = VLLM_NAME.match("<atem:invoke" + invoke)
    assert (kind, name) == (("ok", want.group(1)) if want else ("bad", "")), h
    kind, end, key, _ = _decided(parser._key, h)
    want = VLLM_PARAM.match("<atem:parameter" + invoke)
    if want is None:  # no closer before the invoke's end: the header alone decides
        want = VLLM_KEY.match("<atem:parameter" + invoke[: -len(CLOSE)])
    assert (kind, key) == (("ok", want["key"]) if want else ("bad", "")), h
    if want:  # the value starts after the first ``>`` past the key's quote, as vLLM's
        assert end == invoke.index(">", want.end("key") - len("<atem:parameter")) + 1


def test_reasoning_tokens_follow_vllms_counting_rule():
    """vLLM's ``count_reasoning_tokens``: the ids after ``<|message|>`` of a ``self`` (or
    recipient-less) message up to its end id; none of a tool channel or an answer."""
    think, answer = "think hard about it", "hello there"
    text = (f" to=self<|message|>{think}<|eom|><|start|>assistant to=user<|message|>{answer}"
            f"<|eot|><|start|>assistant<|message|>{think}")
    ids = VOCAB.encode(text)
    for sizes in ([len(ids)], [1], [3]):
        got, _ = run(config("muse", "muse"), ids, sizes)
        assert got["reasoning_tokens"] == 2 * len(VOCAB.encode(think))
        assert got["reasoning"] == think + think and got["content"] == answer


def test_glimmer_counts_no_reasoning_tokens_and_routes_by_its_table():
    """vLLM's ``MuseGlimmerReasoningParser.count_reasoning_tokens`` is the base class's (0);
    its table: a recipient-less message is content, ``commentary`` / ``developer`` are tool
    channels (their text outside invokes is content: text_kept)."""
    think = "think hard about it"
    text = (f" to=self<|message|>{think}<|eom|><|start|>assistant<|message|>bare<|eom|>"
            "<|start|>assistant to=commentary<|message|>note<|eom|><|start|>assistant to=user"
            "<|message|>hello<|eot|>")
    ids = VOCAB.encode(text)
    for sizes in ([len(ids)], [1], [3]):
        got, _ = run(config("muse_glimmer", "muse_glimmer"), ids, sizes)
        assert got["reasoning_tokens"] == 0
        assert got["reasoning"] == think and got["content"] == "barenotehello"
        spark, _ = run(config("muse", "muse"), ids, sizes)  # Spark's table on the same output
        assert spark["reasoning"] == think + "bare" and spark["content"] == "notehello"
        assert spark["reasoning_tokens"] == len(VOCAB.encode(think)) + len(VOCAB.encode("bare"))


def test_glimmer_types_no_value_from_the_schema():
    """``_preserve_string_parameters = False``: a string parameter's JSON-looking value is JSON
    (Spark's keeps it the raw text)."""
    text = " to=get_weather<|message|>" + cases.calls(
        cases.invoke("get_weather", ("city", "42"))) + "<|eom|>"
    ids = VOCAB.encode(text)
    got, _ = run(config("muse_glimmer", "muse_glimmer"), ids, [2])
    assert got["calls"] == [["get_weather", '{"city": 42}']]
    got, _ = run(config("muse", "muse"), ids, [2])
    assert got["calls"] == [["get_weather", '{"city": "42"}']]


def test_parallel_tool_calls_false_keeps_call_zero():
    text = " to=get_weather<|message|>" + cases.calls(
        cases.invoke("get_weather", ("city", "Paris")), cases.invoke("run", ("code", "1"))) + "<|eom|>"
    cfg = config("muse", "muse").model_copy()
    cfg.parallel_tool_calls = False
    got, _ = run(cfg, VOCAB.encode(text), [2])
    assert got["calls"] == [["get_weather", '{"city": "Paris"}']]


@pytest.mark.parametrize("bad", [
    {"phase": "nowhere"},
    {"kind": "elsewhere"},
    {"buf": "x" * 1000},
    {"reasoning_tokens": -1},
    {"tools": {"buf": "y" * 10_000}},
])
def test_a_tampered_router_state_is_refused(bad):
    state = start_choice(VOCAB, config("muse", "muse"), [])
    raw = state.model_dump()
    raw["muse"] = {**raw["muse"], **bad}
    with pytest.raises(StateError):
        ChoiceState.model_validate(raw)


@pytest.mark.parametrize("tool, reasoning", [("muse", "qwen3"), ("hermes", "muse"),
                                             ("muse", "muse_glimmer"), ("muse_glimmer", "muse"),
                                             ("muse_glimmer", "qwen3")])
def test_muse_parsers_pair_only_with_each_other(tool, reasoning, tmp_path):
    from tito.models.model_spec import _check_parsers

    with pytest.raises(ModelLoadError, match="Muse parsers go together"):
        _check_parsers(tmp_path, SimpleNamespace(tool_parser=tool, reasoning_parser=reasoning))
    _check_parsers(tmp_path, SimpleNamespace(tool_parser="musespark1x", reasoning_parser="muse"))
    _check_parsers(tmp_path, SimpleNamespace(tool_parser="muse_glimmer",
                                             reasoning_parser="muse_glimmer"))
    _check_parsers(tmp_path, SimpleNamespace(tool_parser=None, reasoning_parser="muse_glimmer"))


def test_prompt_reasoning_ended_reads_only_the_current_turn():
    a = "<|start|>assistant"
    call = " to=get_weather<|message|>" + cases.calls(cases.invoke("get_weather")) + "<|eom|>"
    assert prompt_reasoning_ended(f"<|start|>user<|message|>q<|eot|>{a}{call}{a}")
    assert not prompt_reasoning_ended(f"{a}{call}<|start|>user<|message|>q<|eot|>{a}")
    assert not prompt_reasoning_ended(f"<|start|>user<|message|>q<|eot|>{a} to=self<|message|>"
                                      + cases.calls(cases.invoke("f")) + "<|eom|>")


def test_glimmer_prompt_reasoning_ended_reads_after_the_last_assistant_start():
    """Glimmer's ``is_reasoning_end``: the text after the last ``<|start|>assistant``, its
    reasoning spans stripped, holds a tool channel with ATEM (so never for a prompt ending
    with ``<|start|>assistant``; recorded cases: ``reasoning_ended_vllm.json``)."""
    a = "<|start|>assistant"
    call = " to=get_weather<|message|>" + cases.calls(cases.invoke("get_weather")) + "<|eom|>"
    assert not prompt_reasoning_ended(f"<|start|>user<|message|>q<|eot|>{a}{call}{a}",
                                      glimmer=True)
    assert prompt_reasoning_ended(f"<|start|>user<|message|>q<|eot|>{a}{call}", glimmer=True)
    assert prompt_reasoning_ended(f"{a} to=commentary<|message|>" + cases.calls(
        cases.invoke("f")), glimmer=True)
    assert not prompt_reasoning_ended(f"{a} to=commentary<|message|>" + cases.calls(
        cases.invoke("f")))
    assert not prompt_reasoning_ended(f"{a} to=self<|message|>" + cases.calls(
        cases.invoke("f")) + "<|eom|>", glimmer=True)


@pytest.mark.parametrize("tail", ["to=self<|message|>x to=", "to=self<|message|>", "to="])
def test_glimmer_prompt_reasoning_ended_is_linear_in_the_prompt(tail):
    """vLLM's regexes on a continued message of repeated heads cost its length squared (a
    ``to=self`` span searched to the end from every head, an unbounded recipient); tito's
    bound the recipient (HEADER_LIMIT) and search closed spans only up to the last
    ``<|eom|>``: 30000 heads (about 0.1 s linear, minutes squared) stay well under 3 s."""
    import time

    text = "<|start|>assistant to=self<|message|>" + tail * 30_000
    start = time.perf_counter()
    assert not prompt_reasoning_ended(text, glimmer=True)
    assert time.perf_counter() - start < 3
