"""The derender fuzzer's classifier: which differences a case's tags explain.

Why: a tag that explains every field of a case hides findings. ``special_x`` (a special token in
the output, about half of all cases) explains differences in the text and what parsing it
decides, not in usage, ids or logprobs, and never an echoed prefix that is not the expected one
(fuzz seed 513 run with the tag off: only text, content differed on mistral-v3 / -hf)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.fuzz_derender_case import Case  # noqa: E402
from conformance.fuzz_derender_classify import intended  # noqa: E402


def _case(*tags: str) -> Case:
    return Case(cid="gpt2:0:0", model="gpt2", request={}, tags=set(tags))


@pytest.mark.parametrize("path", ["choices.0.text", "text", "choices.0.message.content",
                                  "choices.0.message.reasoning", "choices.0.finish_reason",
                                  "choices.0.message.tool_calls.0.function.arguments"])
def test_a_special_token_explains_the_text_and_its_parse(path: str) -> None:
    found = intended(_case("special_x"), "derender_completion", path, "a")
    assert found is not None and "skip_special_tokens" in found.reason


@pytest.mark.parametrize("path", ["usage.completion_tokens", "choices.0.token_ids.0",
                                  "choices.0.logprobs.token_logprobs.0", "choices.0.echo_prompt",
                                  "choices.0.stop_reason"])
def test_a_special_token_does_not_explain_other_fields(path: str) -> None:
    assert intended(_case("special_x"), "derender_completion", path, 5) is None


def _stop_case(stop: list[str], ids: list[int]) -> Case:
    return Case(cid="mistral-v3-hf:520:0", model="mistral-v3-hf",
                request={"stop": stop, "include_stop_str_in_output": True},
                choices=[{"index": 0, "token_ids": ids, "finish_reason": "stop"}],
                tags={"special_x", "stop_string"})


def test_a_stop_string_fired_inside_a_kept_special_token_is_the_special_deviation() -> None:
    """vLLM's derender keeps mistral-v3-hf's ``</s>`` (id 2) as text and stop ``"s"`` fires in
    it (fuzz mistral-v3-hf:520:0: ``stop_reason`` "s", tito null); a stop string sharing no
    character with the output's special tokens, or a stop id, is still compared."""
    ids = [29473, 781, 1055, 29493, 2]  # " \n b, </s>"
    found = intended(_stop_case(["s", "ok."], ids), "derender_chat_mistral",
                     "choices.0.stop_reason", "s")
    assert found is not None and "skip_special_tokens" in found.reason
    assert intended(_stop_case(["ok."], ids), "derender_chat_mistral",
                    "choices.0.stop_reason", "ok.") is None
    assert intended(_stop_case(["s"], ids[:-1]), "derender_chat_mistral",
                    "choices.0.stop_reason", "s") is None
    assert intended(_stop_case(["s"], ids), "derender_chat_mistral",
                    "choices.0.stop_reason", 2) is None


def test_mismatched_logprob_counts_drawn_and_split() -> None:
    """The draw of logprob lists longer or shorter than the ids (``fuzz_derender_more4``): the
    batch list and every stream chunk's list are changed, a chunk's own entries cut from the
    list before the change; only a case whose changed chunk precedes a character's later bytes
    has its stream logprobs explained (``*_repair_*``), and only in streams."""
    from conformance.fuzz_derender_draw import gen_case
    from conformance.fuzz_derender_more4 import changed

    entries = [{"token_id": t} for t in range(5)]
    rnd = random.Random(0)
    assert changed(entries, "zero", rnd) == [] and len(changed(entries, "fewer", rnd)) < 5
    assert changed(entries, "more", rnd)[:5] == entries
    assert len(changed(entries, "more_mid", rnd)) > 5
    case = gen_case(531, 1, "gpt2")  # (the draw that found the repair difference)
    assert {"lp_count", "lp_count_repair_context"} <= case.tags
    chunks = case.lp_split[0]
    assert len(chunks) == len(case.sizes[0])
    assert [len(c) for c in chunks] != case.sizes[0]
    path = "logprobs.tokens.9"
    assert intended(case, "stream_completion", path, "x") is not None
    assert intended(case, "derender_completion", "choices.0." + path, "x") is None
    case.tags.discard("lp_count_repair_context")
    assert intended(case, "stream_completion", path, "x") is None


def test_odd_choice_indexes_drawn() -> None:
    """The draw of choice indexes not numbered 0..n-1 (``fuzz_derender_more5``): a shift keeps
    each choice's chunking under its new index (one stream each); a repeated index is batch
    only (the fuzzer's streams and stop comparisons key choices by index)."""
    from conformance.fuzz_derender_draw import gen_case
    from conformance.fuzz_derender_drive import stream_cases

    shifted = gen_case(550, 35, "qwen3")
    assert "index_shift" in shifted.tags
    assert [ch["index"] for ch in shifted.choices] == [3, 4, 5] == sorted(shifted.sizes)
    streams = stream_cases(shifted, [1, 2])
    assert [s["index"] for s in streams] == [3, 4, 5]
    assert all(c["choices"][0]["index"] == s["index"] for s in streams for c in s["chunks"]
               if c["choices"])
    dup = gen_case(550, 21, "qwen3-cmpl")
    assert "dup_index" in dup.tags and {ch["index"] for ch in dup.choices} == {0}


def test_a_multi_prompt_stream_echoes_its_first_prompt() -> None:
    """A completions stream is the first prompt's choices: its echo is that prompt's text, cut
    with its logprob offsets even when the rest differs (seed 557, ``qwen3-cmpl:557:7``)."""
    from conformance import echo_cut
    from conformance.fuzz_derender_classify import cut_echo
    from conformance.fuzz_derender_drive import stream_echo

    request = {"prompt": [" The weather", "x"], "echo": True}
    echo = stream_echo(request, echo_cut.echoed(request))
    assert echo == " The weather"
    fold = {"text": " The weather Hi<|im_end|>",
            "logprobs": {"tokens": [" Hi"], "text_offset": [12]}}
    assert cut_echo(fold, echo)["logprobs"]["text_offset"] == [0]
    assert stream_echo({"prompt": [[1, 2]], "echo": True}, echo_cut.ANY_PROMPT) is \
        echo_cut.ANY_PROMPT
    assert stream_echo({"prompt": "x", "echo": True}, "x") == "x"


def test_a_multi_prompt_batch_echoes_each_choice_its_prompt() -> None:
    """A completions batch of several prompt strings echoes prompt ``k`` in response ``k``'s
    choices: each choice's echo is cut with its logprob entries even when the rest differs by
    an intended kept special token (seed 435, ``mistral-v3-hf-cmpl:435:58``)."""
    from conformance import echo_cut
    from conformance.fuzz_derender_classify import echo_aware_diff
    from conformance.fuzz_derender_drive import batch_echoes

    case = Case(cid="m:435:58", model="mistral-v3-hf-cmpl",
                request={"prompt": [" The weather", "Hello"], "echo": True, "logprobs": 1},
                choices=[{"index": 0}], more=[{"choices": [{"index": 0}, {"index": 1}]}])
    echo = batch_echoes(case, echo_cut.echoed(case.request))
    assert echo == [" The weather", "Hello", "Hello"]
    lp = {"tokens": [" ok", "[/TOOL_RESULTS]"], "token_logprobs": [-1.0, 0.0],
          "top_logprobs": [{" ok": -1.0}, {"[/TOOL_RESULTS]": 0.0}], "text_offset": [0, 3]}
    want = {"choices": [{"text": " ok[/TOOL_RESULTS]", "logprobs": lp}]}
    got = {"choices": [{"text": " The weather ok", "logprobs": {
        "tokens": ["<s>", " The", " weather", *lp["tokens"]],
        "token_logprobs": [None, -2.0, -3.0, *lp["token_logprobs"]],
        "top_logprobs": [None, {" The": -2.0}, {" weather": -3.0}, *lp["top_logprobs"]],
        "text_offset": [0, 3, 7, 15, 18]}}]}
    paths = {p for p, _, _ in echo_aware_diff(want, got, echo[:1])}
    assert paths == {"choices.0.echo_prefix", "choices.0.text"}  # (the text: special_x's)
    assert batch_echoes(case, None) is None
    ids_prompt = Case(cid="x", model="gpt2", request={"prompt": [[1, 2], "x"], "echo": True},
                      choices=[{"index": 0}], more=[{"choices": [{"index": 0}]}])
    assert batch_echoes(ids_prompt, echo_cut.ANY_PROMPT) is echo_cut.ANY_PROMPT


def test_only_vllms_lone_surrogate_400_is_explained() -> None:
    """vLLM's batch re-serializes a call's arguments and answers 400 for a lone surrogate they
    then hold; tito keeps the text (200, the ``tool_call_escaped_args_lone*`` deviation: seed
    443, ``mistral-v3-hf:443:5``). Only that 400 of a case with escaped arguments is intended."""
    from conformance.fuzz_derender_classify import lone_surrogate

    msg = "'utf-8' codec can't encode character '\\ud83c' in position 857: surrogates not allowed"
    golden = {"status": 400, "response": {"error": {"message": msg, "code": 400}}}
    other = {"status": 400, "response": {"error": {"message": "Invalid tool call", "code": 400}}}
    for tags, answer, explained in ((("tool_call_escaped_args",), golden, True),
                                    (("tool_call_escaped_args",), other, False),
                                    ((), golden, False)):
        case = Case(cid="mistral-v3-hf:443:5", model="mistral-v3-hf", request={},
                    tags=set(tags))
        lone_surrogate(case, answer)
        found = intended(case, "derender_chat_mistral", "status", 400)
        assert (found is not None) is explained, (tags, answer)


def test_a_stream_offset_moved_by_a_kept_special_tokens_text_is_the_special_deviation() -> None:
    """A stream chunk with no logprob entry moves ``text_offset`` by its text (vLLM 0.33's
    rule); vLLM's derender keeps mistral-v3-hf's ``[INST]`` (id 3) in that text and tito drops
    it (``special_x``), so tito's later offsets are behind by its length (fuzz seed 492,
    ``mistral-v3-hf-cmpl:492:15``: vLLM 11, tito 5). Only a lag of at most the output's special
    tokens' text, with fewer entries than ids, is explained; a lead or a larger lag is compared."""
    from conformance.fuzz_derender_classify import special_offset

    ids = [29473, 29648, 29473, 29508, 3, 29518, 29538, 1032, 3354, 2]  # " ß 1[INST]23 a\".</s>"
    case = Case(cid="mistral-v3-hf-cmpl:492:15", model="mistral-v3-hf-cmpl",
                request={"prompt": "x", "logprobs": 2, "stream": True},
                choices=[{"index": 0, "token_ids": ids, "finish_reason": "stop"}],
                tags={"special_x", "lp_count", "lp_count_fewer"})
    path = "logprobs.text_offset.0"
    found = special_offset(case, path, 11, 5)
    assert found is not None and "skip_special_tokens" in found.reason
    assert special_offset(case, path, 5, 11) is None  # tito ahead: never the dropped text
    assert special_offset(case, path, 5 + 6 + 4 + 1, 5) is None  # more than [INST] and </s>
    assert special_offset(case, "logprobs.token_logprobs.0", 11, 5) is None
    assert intended(case, "stream_completion", path, 11) is None
    case.tags.discard("lp_count_fewer")
    assert special_offset(case, path, 11, 5) is None


def test_a_gpt_oss_output_ending_in_a_listed_stop_id_by_chance_is_the_harmony_deviation() -> None:
    """A plain gpt-oss output (no harmony end) finished ``stop`` whose last id happens to be one
    of the request's ``stop_token_ids`` (``"."``, 13): tito drops it as the stop token, vLLM's
    harmony path keeps it as content, the ``stop_id_harmony`` deviation, as when the engine
    names the id (``--show gpt-oss:808:8``: vLLM ``" The} in\\n\\n is."``, tito without the
    ``"."``). Every such draw is tagged; a stop string's cut is not."""
    from conformance.fuzz_derender_draw import gen_case

    case = gen_case(808, 8, "gpt-oss")
    ch = case.choices[0]
    assert ch["token_ids"][-1] == 13 and 13 in case.request["stop_token_ids"]
    assert "stop_reason" not in ch and "stop_id_harmony" in case.tags
    assert intended(case, "derender_chat_gptoss", "choices.0.message.content", "x") is not None
    for i in range(200):
        c = gen_case(900, i, "gpt-oss")
        ends = [ch for ch in c.choices if ch["finish_reason"] == "stop"
                and not isinstance(ch.get("stop_reason"), str) and ch["token_ids"]
                and ch["token_ids"][-1] in (c.request.get("stop_token_ids") or ())]
        assert not ends or "stop_id_harmony" in c.tags, c.cid
