"""Reasoning parsers ``mistral``, ``granite``, ``deepseek_v3`` and ``hunyuan_a13b`` (issue 11,
part B) against vLLM 0.33.0's real parsers.

Inputs: vLLM's own test cases (tests/reasoning/test_granite_reasoning_parser.py,
test_mistral_reasoning_parser.py, test_deepseekv3_reasoning_parser.py,
test_hunyuan_a13b_reasoning_parser.py) plus ours. Expected outputs: vLLM's
``extract_reasoning`` (batch), recorded with /work/vllm-venv (never imported here); ``None``
there is ``""`` here. Each case runs as one chunk, one character per chunk, random chunks, and one
token per call through the whole pipeline on a real tokenizer (Qwen3's, with Mistral's
``[THINK]``/``[/THINK]`` added as *special* tokens: the ids are not a Mistral model's).

Deliberate deviation (marked ``vLLM:``): a block that opens and never closes is reasoning (vLLM's
streaming path streams it as reasoning as it arrives; its batch path, for granite and hunyuan,
calls the whole output content: batch and stream disagree, tito follows the stream).
"""

from __future__ import annotations

import pathlib
import random

import pytest
from tokenizers import AddedToken, Tokenizer

from tito.core.parsers import marker_special_ids
from tito.core.parsers import reasoning as R
from tito.core.pipeline import ChoiceConfig, start_choice, step_choice
from tito.core.vocab import Vocab

QWEN3 = pathlib.Path(__file__).parents[1] / "layers" / "tokenizer" / "models" / "qwen3"

# (parser, chat_template_kwargs, output, vLLM's (reasoning, content))
CASES = [
    ("granite", None, "Here is my thought process:This is a reasoning sectionHere is my response:This is the rest",
     ("This is a reasoning section", "This is the rest")),
    ("granite", None, "Here is my thought process:This is a reasoning sectionHere is my response:",
     ("This is a reasoning section", "")),
    ("granite", None, "This is content", ("", "This is content")),
    ("granite", None, "Here is my thought process:This\nThatHere is my response:This is the rest\nThat",
     ("This\nThat", "This is the rest\nThat")),
    ("granite", None, "Here is my thought process: foo Here is my response: bar", (" foo ", " bar")),
    ("granite", None, "Here's my thought process: a Here's my response: b", (" a ", " b")),
    # vLLM: batch ("", whole output as content); its stream sends " unfinished" as reasoning
    ("granite", None, "Here is my thought process: unfinished", (" unfinished", "")),
    ("mistral", None, "[THINK]Let me think.[/THINK]The answer is 4.", ("Let me think.", "The answer is 4.")),
    ("mistral", None, "No thinking here.", ("", "No thinking here.")),
    ("mistral", None, "[THINK]unfinished thought", ("unfinished thought", "")),
    ("mistral", None, "Before[THINK]inner[/THINK]after", ("inner", "Beforeafter")),
    ("deepseek_v3", None, "I think.</think>The answer.", ("", "I think.</think>The answer.")),
    ("deepseek_v3", {"thinking": True}, "I think.</think>The answer.", ("I think.", "The answer.")),
    ("deepseek_v3", {"enable_thinking": True}, "<think>I think.</think>The answer.", ("I think.", "The answer.")),
    ("deepseek_v3", {"thinking": False}, "Just content", ("", "Just content")),
    ("hunyuan_a13b", None, "<think>\nreason\n</think>\n<answer>\nThe answer\n</answer>", ("reason", "The answer")),
    ("hunyuan_a13b", None, "The answer\n</answer>", ("", "The answer")),
    ("hunyuan_a13b", None, "<think>\n\n</think>\n<answer>\nfast\n</answer>", ("", "fast")),
    # vLLM: batch ("", whole output as content); its stream sends "unfinished" as reasoning
    ("hunyuan_a13b", None, "<think>\nunfinished", ("unfinished", "")),
]


def run_text(name: str, kwargs, chunks: list[str]) -> tuple[str, str]:
    parser = R.get_reasoning_parser(name)
    vocab = _vocab()
    state = R.initial(parser, vocab, [], enabled=parser.enabled_from_kwargs(kwargs))
    reasoning = content = ""
    for k, text in enumerate(chunks):
        state = R.ReasoningState.model_validate_json(state.model_dump_json())
        state, r, c = R.step(parser, state, text, [], final=k == len(chunks) - 1)
        reasoning += r
        content += c
    return reasoning, content


_VOCAB: list[Vocab] = []


def _vocab() -> Vocab:
    if not _VOCAB:
        tok = Tokenizer.from_file(str(QWEN3 / "tokenizer.json"))
        tok.add_special_tokens([AddedToken(m, special=True) for m in ("[THINK]", "[/THINK]")])
        _VOCAB.append(Vocab(tok, eos_token_id=151645))
    return _VOCAB[0]


@pytest.mark.parametrize(("name", "kwargs", "text", "expected"), CASES)
def test_like_vllm_under_any_chunking(name, kwargs, text, expected):
    assert run_text(name, kwargs, [text]) == expected
    assert run_text(name, kwargs, [*text, ""]) == expected
    rng = random.Random(text)
    for _ in range(5):
        cuts = sorted(rng.sample(range(len(text) + 1), min(4, len(text) + 1)))
        chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        assert run_text(name, kwargs, chunks) == expected


@pytest.mark.parametrize(("name", "kwargs", "text", "expected"), CASES)
def test_one_token_per_call_through_the_pipeline(name, kwargs, text, expected):
    """The whole per-choice pipeline, special tokens skipped except the parser's own markers
    (``[THINK]`` is special in this vocabulary, so only the kept-id mechanism lets it through)."""
    vocab = _vocab()
    parser = R.get_reasoning_parser(name)
    keep = marker_special_ids(vocab, None, name)
    assert (name == "mistral") == bool(keep)
    cfg = ChoiceConfig(
        reasoning_parser=name,
        reasoning_enabled=parser.enabled_from_kwargs(kwargs),
        keep_special_ids=keep,
    )
    ids = vocab.encode(text)
    for sizes in ([len(ids)], [1]):
        state, reasoning, content, k = start_choice(vocab, cfg, None), "", "", 0
        while k < len(ids):
            chunk = ids[k : k + sizes[0]]
            k += len(chunk)
            state, out = step_choice(
                vocab, cfg, state, chunk, finish_reason="length" if k >= len(ids) else None
            )
            reasoning += out.reasoning
            content += out.text
        assert (reasoning, content) == expected


def test_mistral_think_is_special_and_other_special_tokens_stay_out():
    vocab = _vocab()
    cfg = ChoiceConfig(reasoning_parser="mistral", keep_special_ids=marker_special_ids(vocab, None, "mistral"))
    ids = vocab.encode("[THINK]a[/THINK]b") + [151644]  # + <|im_start|>: special, not a marker
    state, out = step_choice(vocab, cfg, start_choice(vocab, cfg, None), ids, finish_reason="length")
    assert (out.reasoning, out.text) == ("a", "b")
    cfg = ChoiceConfig(reasoning_parser="mistral")  # without the kept ids the markers vanish
    state, out = step_choice(vocab, cfg, start_choice(vocab, cfg, None), ids, finish_reason="length")
    assert (out.reasoning, out.text) == ("", "ab")


def test_deepseek_v3_switch_reads_both_kwargs():
    p = R.get_reasoning_parser("deepseek_v3")
    assert not p.enabled_from_kwargs(None) and not p.enabled_from_kwargs({})
    assert p.enabled_from_kwargs({"thinking": True}) and p.enabled_from_kwargs({"enable_thinking": True})
    assert not p.enabled_from_kwargs({"thinking": False, "enable_thinking": False})
