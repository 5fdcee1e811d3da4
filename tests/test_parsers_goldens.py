"""Part-A parsers against vLLM 0.33.0's own parsers (goldens), batch and streamed.

Inputs: ``tests/goldens/parser_cases.py`` (vLLM's test cases ported as data, plus ours);
expected outputs: ``tests/goldens/parsers_vllm.json``, recorded by running vLLM's real parsers
(``tests/goldens/record_parsers.py``, vLLM's venv; nothing here imports vLLM). Every case runs
through tito's whole per-choice pipeline (detokenizer, reasoning, tools) on a real tokenizer: the
Qwen3 tokenizer with the format's markers added as *special* tokens (the ids are not the models';
Qwen3's own ``<tool_call>``/``<think>`` are its real added tokens), as one chunk (batch), one
token per call and random chunks, the state round-tripping through JSON between calls.

Comparison: reasoning and tool calls (names, arguments byte for byte) must equal vLLM's; content
is compared without surrounding whitespace, because vLLM strips content when calls were made and
tito keeps text verbatim except whitespace-only gaps around calls (``tools._base`` gap rule).
:data:`DEVIATIONS` lists where tito deliberately differs, each with its reason; most are cases
where vLLM's batch and stream paths disagree and tito follows the sane side.
"""

from __future__ import annotations

import json
import pathlib
import random
import sys

import pytest

GOLDENS = pathlib.Path(__file__).parent / "goldens"
sys.path.insert(0, str(GOLDENS))
from parser_cases import CASES  # noqa: E402
from parser_pipeline import norm as _norm, run, vocab_for  # noqa: E402

from parser_deviations_fuzz9_granite_glm import _FUZZ9_DEVIATIONS  # noqa: E402
from parser_deviations_glm_reopen import _GLM_REOPEN_DEVIATIONS  # noqa: E402
from parser_deviations_pylit45 import _PYLIT45_DEVIATIONS  # noqa: E402 (their calls are cut: not JSON)
from parser_deviations_pylit46 import _PYLIT46_DEVIATIONS  # noqa: E402 (the same)
from parser_deviations_pylit48 import deviations as _pylit48_deviations  # noqa: E402
from parser_deviations_pylit49 import deviations as _pylit49_deviations  # noqa: E402
from parser_deviations_stray_markup import NOT_JSON as _STRAY_NOT_JSON  # noqa: E402
from parser_deviations_stray_markup import _STRAY_MARKUP_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz_residue import NOT_JSON as _RESIDUE_NOT_JSON  # noqa: E402
from parser_deviations_fuzz_residue import _RESIDUE_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz36 import NOT_JSON as _FUZZ36_NOT_JSON  # noqa: E402
from parser_deviations_fuzz36 import _FUZZ36_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz31 import _FUZZ31_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz37 import NOT_JSON as _FUZZ37_NOT_JSON  # noqa: E402
from parser_deviations_fuzz37 import _FUZZ37_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz38 import _FUZZ38_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz39 import _FUZZ39_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz40 import _FUZZ40_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz43 import _FUZZ43_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz44 import _FUZZ44_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz45 import _FUZZ45_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz48 import _FUZZ48_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz50 import _FUZZ50_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz51 import _FUZZ51_DEVIATIONS  # noqa: E402
from parser_deviations_lead52 import _LEAD52_DEVIATIONS  # noqa: E402
from parser_deviations_lead52 import NOT_JSON as _LEAD52_NOT_JSON  # noqa: E402
from parser_deviations_muse46 import _MUSE46_DEVIATIONS  # noqa: E402
from parser_cases_fuzz42 import NOT_JSON as _FUZZ42_NOT_JSON  # noqa: E402
from parser_deviations import (  # noqa: E402
    _FUZZ9_DS_PLAMO_DEVIATIONS,
    _GEMMA4_CALL_DEVIATIONS,
    _GLIMMER_DEVIATIONS,
    _HUNYUAN_DEVIATIONS,
    _INKLING_DEVIATIONS,
    _K2H_DEVIATIONS,
    _K3_DEVIATIONS,
    _MUSE_DEVIATIONS,
    _NP4_DEVIATIONS,
    _NP5_DEVIATIONS,
    _WEATHER_ARGS,
    RECORDED,
)


#: case id -> (tito's result {reasoning, content, calls}, why it differs from vLLM's batch result)
DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{
        f"{p}/content_after_call": (
            {"reasoning": None, "content": "\nDone.", "calls": [["get_current_weather", _WEATHER_ARGS]]},
            "vLLM's batch path drops text after the calls, its stream path keeps it: tito keeps it",
        )
        for p in ("qwen3_coder", "seed_oss")
    },
    **{
        f"{p}/truncated_in_value": (
            {"reasoning": None, "content": None,
             "calls": [["get_current_weather", '{"city": "Dallas", "state": "T"}']]},
            "cut inside a value: vLLM's batch drops the value, its stream sends it unclosed "
            '(`"state": "T`, not JSON); tito keeps it and closes the JSON',
        )
        for p in ("qwen3_coder", "seed_oss")
    },
    "glm45/content_after": (
        {"reasoning": None, "content": "\nThat is all.",
         "calls": [["get_weather", '{"city": "Beijing", "date": "2024-06-27"}']]},
        "vLLM's batch drops the text after the call, its stream keeps it: tito keeps it",
    ),
    "glm45/truncated": (
        {"reasoning": None, "content": None,
         "calls": [["get_weather", '{"city": "Beijing", "date": ""}']]},
        "cut right after <arg_value>: vLLM's batch drops the value, its stream sends "
        '`"date": "` (not JSON); tito closes the value',
    ),
    "minimax_m2/truncated": (
        {"reasoning": None, "content": None, "calls": [["get_weather", '{"city": "Seat"}']]},
        "cut inside a value: vLLM's batch drops it, its stream sends it unclosed; tito closes it",
    ),
    **{
        cid: (
            {"reasoning": None, "content": None, "calls": [["get_weather", '{"city": "杭"}']]},
            "cut inside a value: vLLM's batch drops it, its stream sends it unclosed; tito closes it",
        )
        for cid in ("deepseek_v32/truncated", "deepseek_v4/truncated_value",
                    "deepseek_v41/truncated_value")
    },
    **{
        f"{p}/unknown_tool": (
            {"reasoning": None, "content": text, "calls": []},
            "a call of a tool the request does not have: vLLM drops it with its text; tito never "
            "loses text, the markup is content (still no call)",
        )
        for p, text in (
            ("glm45", next(c["text"] for c in CASES if c["id"] == "glm45/unknown_tool")),
            ("minimax_m2", next(c["text"] for c in CASES if c["id"] == "minimax_m2/unknown_tool")),
        )
    },
    **{
        c["id"]: (
            {"reasoning": None,
             "content": c["text"][: c["text"].index("<|tool_calls_section_begin|>")]
             + c["text"][c["text"].index("<|tool_call_begin|>") : c["text"].index("<|tool_call_end|>")]
             + "<|tool_call_end|>",
             "calls": [[n, a] for n, a in RECORDED[c["id"]]["batch"]["calls"]]},
            "a call whose header has no id (.+:IDX) names no tool: vLLM drops it with its text "
            "and parses the rest of the section; tito parses the rest too but never loses text: "
            "that call's markup is content",
        )
        for c in CASES
        if c["id"] == "kimi_k2/invalid_id_skipped"
        or c["id"] in {f"kimi_k2/id_{k}" for k in (
            "bare_index", "no_index", "functions_no_index", "empty_name", "functions_empty_name",
            "non_numeric_index")}
    },
    "deepseek_v32/wrapper_truncated": (
        {"reasoning": None, "content": None, "calls": [["get_weather", '{"city": "Paris", "days": 2}']]},
        "cut before the wrapper's </parameter>: vLLM's batch drops the value ({}); tito keeps "
        "what came, as for every value cut by the end of the output, and it is the lone wrapper",
    ),
    **{
        cid: (
            {"reasoning": None, "content": content, "calls": []},
            "thinking off: nothing of the reasoning format is parsed, the markers stay content (as "
            "vLLM's reasoning-only path, qwen3/thinking_off); vLLM's tool engine drops the </think>",
        )
        for cid, content in (("qwen3+qwen3_coder/thinking_off", "plain</think> <think>tail"),
                             ("mimo+mimo/off", "a</think>b"),
                             ("qwen3_coder+nemotron_v3/off", "a</think>b"))
    },
    "mistral/reasoning_only_parser": (
        {"reasoning": "I should call.",
         "content": '[TOOL_CALLS]get_current_weather{"city": "Paris"}', "calls": []},
        "no tool parser for the request: [TOOL_CALLS] ends the block (the reasoning grammar's "
        "call start, kept) but [ARGS], a special token of the tool format only, is skipped as "
        "skip_special_tokens asks; vLLM's parser path keeps every special token",
    ),
    # -- newparsers ------------------------------------------------------------------------------
    **{
        cid: (
            {"reasoning": None, "content": content,
             "calls": [["get_current_weather", args]] * n},
            "vLLM's batch path drops text after the first call, its stream path keeps it: tito "
            "keeps it",
        )
        for cid, content, args, n in (
            ("gemma4/end_in_string", " after", '{"city": "a"}', 1),
            ("gemma4/text_around", "A  B ", '{"city": "London"}', 2))
    },
    **{
        f"gemma4/reasoning_{k}": (
            {"reasoning": "hm",
             "content": "<|tool_call>call:get_current_weather{city:London}<tool_call|>",
             "calls": []},
            "no tool parser for the request: <|tool_call> ends the block and <tool_call|> ends "
            "the call (the reasoning grammar's markers, kept) but <|\"|>, a special token of "
            "the tool format only, is skipped as skip_special_tokens asks; vLLM's parser path "
            "keeps every special token",
        )
        for k in ("block_call", "unclosed_call")
    },
    **{
        cid: (
            {"reasoning": None, "content": "hmanswer", "calls": []},
            "a <channel|> with no block open: vLLM's batch makes the text before it reasoning (it "
            "reads the whole output first), its stream content with the marker absorbed; tito "
            "follows the stream (an output starting with thought\\n opens the block in both)",
        )
        for cid in ("gemma4+gemma4/bare_end", "gemma4/reasoning_bare_end")
    },
    "qwen3_coder+granite_thinking_parser/off_markers": (
        {"reasoning": None, "content": "a</think>\nb", "calls": []},
        "thinking off: nothing of the reasoning format is parsed, the markers stay content (as "
        "vLLM's reasoning-only path); vLLM's tool engine drops the </think>",
    ),
    **{
        cid: (
            {"reasoning": None, "content": "\nDone.", "calls": [[name, args]]},
            "vLLM's batch path drops text after the calls: tito keeps it",
        )
        for cid, name, args in (
            ("ernie45/text_after", "get_current_weather", '{"city": "Dallas", "state": "TX"}'),
            ("hy_v3/text_after", "get_weather", '{"city": "Beijing", "date": "2026-03-30"}'))
    },
    "ernie45/truncated": (
        {"reasoning": None, "content": '<tool_call>\n{"name": "get_current_weathe', "calls": []},
        "a call header cut by the end of the output is content (vLLM's batch drops it)",
    ),
    **{
        cid: (
            {"reasoning": "abc", "content": "\n\ndef", "calls": []},
            "ERNIE's <response> wrapper is dropped wherever it stands (vLLM's tool-path stream); "
            "vLLM's batch keeps a <response> that no </response> follows",
        )
        for cid in ("ernie45+ernie45/response_only_open", "ernie45/reasoning_response_only_open")
    },
    "hy_v3/truncated": (
        {"reasoning": None, "content": None, "calls": [["get_weather", '{"city": "Beijing</"}']]},
        "cut inside a value: vLLM's batch drops the value, its stream sends it unclosed; tito "
        "keeps it (a marker prefix cut by the end is text) and closes the JSON",
    ),
    "jamba/truncated": (
        {"reasoning": None, "content": None, "calls": [["get_current_weather", '{"city"']]},
        "cut inside the arguments: the call with what came (vLLM's stream announces the call, "
        "its batch makes the list content)",
    ),
    "internlm/truncated": (
        {"reasoning": None, "calls": [],
         "content": '<|action_start|><|plugin|>\n{"name": "get_current_weather", "'},
        "cut inside the call header: content (vLLM's batch raises JSONDecodeError: a 500)",
    ),
    "functiongemma/unterminated": (
        {"reasoning": None, "content": None,
         "calls": [["get_current_weather", '{"city": "Lon"}']]},
        "cut inside a value: tito keeps it (vLLM's batch drops it, its stream sends no arguments)",
    ),
    **{
        cid: (
            {"reasoning": None, "content": None,
             "calls": [["get_current_weather", '{"city": "Tokyo"}']]},
            why,
        )
        for cid, why in (
            ("step3/no_type_header", "a call without function<｜tool_sep｜>: vLLM's stream reads it "
                                     "(tito too), its batch makes the section content"),
            ("step3/unclosed_section", "a section the end of the output cut: vLLM's stream sends "
                                       "its calls (tito too), its batch makes it content"))
    },
    "step3/reasoning_call": (
        {"reasoning": "hm", "calls": [],
         "content": 'function<steptml:invoke name="get_current_weather"><steptml:parameter '
                    'name="city">Tokyo</steptml:parameter></steptml:invoke>'},
        "no tool parser for the request: the tool format's special tokens are skipped as "
        "skip_special_tokens asks; vLLM's parser path keeps every special token",
    ),
    **{
        f"olmo3/{k}": (
            {"reasoning": None, "calls": [], "content": next(
                c["text"] for c in CASES if c["id"] == f"olmo3/{k}")},
            "calls not opened by <function_calls> at the output's start: content, as vLLM's "
            "stream reads them (its batch takes tags anywhere, or an output of bare calls)",
        )
        for k in ("bare_calls", "text_before")
    },
    "olmo3/text_after": (
        {"reasoning": None, "content": "\nDone.", "calls": [[
            "get_current_weather", '{"city": "San Francisco", "state": "CA", "unit": "fahrenheit"}']]},
        "vLLM drops the text after </function_calls>: tito keeps it",
    ),
    "olmo3/truncated": (
        {"reasoning": None, "content": None,
         "calls": [["get_current_weather", '{"city": "San Francisco"']]},
        "cut inside the call: the call with what came (vLLM's stream too; its batch makes the "
        "output content)",
    ),
    **{
        f"step3/{k}": (
            {"reasoning": None, "content": "Hi ", "calls": []},
            "a section the end of the output cut inside a call header: the cut markup is dropped "
            "as vLLM's stream drops it (its batch makes an unclosed section content)",
        )
        for k in ("cut_name", "cut_type")
    },
    "hy_v3/reasoning_effort_call": (
        {"reasoning": "hm", "content": "\n\n<tool_call>get_weather\ncity\nBeijing\ndate\n"
                                       "2026-03-30\n</tool_call>\n", "calls": []},
        "no tool parser for the request: the tool format's special tokens are skipped as "
        "skip_special_tokens asks; vLLM's parser path keeps every special token",
    ),
    **{
        c["id"]: (
            {"reasoning": "a" if c["reasoning"] else None,
             "content": c["text"].removeprefix("<think>a</think>").split(
                 "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time")[0] + "y",
             "calls": [["get_time", "{}"]]},
            "text_kept: a broken call inside the section is content and the next call is read; "
            "vLLM reads the same calls and drops the broken call's text with the section's",
        )
        for c in CASES if c["id"].startswith(("deepseek_v3/pc3_broken", "deepseek_v3+deepseek_r1/pc3_broken"))
    },
    # newparsers4
    **_NP4_DEVIATIONS,
    **_NP5_DEVIATIONS,
    **_K3_DEVIATIONS,
    **_K2H_DEVIATIONS,
    **_MUSE_DEVIATIONS,
    **_GLIMMER_DEVIATIONS,
    **_INKLING_DEVIATIONS,
    **_FUZZ9_DEVIATIONS,  # issue 10: fuzz_parsers seed 9 (granite, glm45, step3, kimi_k2)
    **_FUZZ9_DS_PLAMO_DEVIATIONS,
    **_GEMMA4_CALL_DEVIATIONS,
    **_HUNYUAN_DEVIATIONS,
    **_GLM_REOPEN_DEVIATIONS,  # issue 10: GLM's block opens again after a call
    **_PYLIT45_DEVIATIONS,  # session 45: pythonic literals vLLM refuses
    **_PYLIT46_DEVIATIONS,  # session 46: a sign over no number
    **_pylit48_deviations(RECORDED),  # session 48: comments between calls
    **_pylit49_deviations(RECORDED),  # session 49: identifiers Python refuses
    **_STRAY_MARKUP_DEVIATIONS,  # issue 10: fuzz_parsers seeds 9-14's residue
    **_RESIDUE_DEVIATIONS,  # fuzz_parsers' residue after them (session 33)
    **_FUZZ36_DEVIATIONS,  # fuzz_parsers seeds 23, 24, 106+ (session 36)
    **_FUZZ31_DEVIATIONS,  # fuzz_parsers seed 31 (session 37)
    **_FUZZ37_DEVIATIONS,  # fuzz_parsers seeds 29, 109 (session 37)
    **_FUZZ38_DEVIATIONS,  # fuzz_parsers seeds 110, 36+, 114+ (session 38)
    **_FUZZ39_DEVIATIONS,  # fuzz_parsers seeds 37+, 114+ (session 39)
    **_FUZZ40_DEVIATIONS,  # session 40
    **_FUZZ43_DEVIATIONS,  # session 43 (fuzz seed 120: muse, muse_glimmer)
    **_FUZZ44_DEVIATIONS,  # session 44 (fuzz seed 132: olmo3)
    **_FUZZ45_DEVIATIONS,  # session 45 (ws sweep --pairs seed 68: plamo3)
    **_MUSE46_DEVIATIONS,  # session 46 (fuzz seed 137: muse's quoted names)
    **_FUZZ48_DEVIATIONS,  # session 48 (fuzz seed 156: qwen3_xml's unclosed key header)
    **_FUZZ50_DEVIATIONS,  # session 50 (fuzz seed 169: DSML names not in double quotes)
    **_FUZZ51_DEVIATIONS,  # session 51 (fuzz seed 172: inkling's reasoning reopened)
    **_LEAD52_DEVIATIONS,  # session 52 (fuzz seed 177: a string open at </tool_calls>)
}
#: cases whose arguments are not JSON in vLLM either (the model wrote broken JSON)
NOT_JSON = {"kimi_k2/invalid_json_still_extracted", "jamba/truncated", "olmo3/truncated",
            "kimi_k2/pc3_end_in_string", "kimi_k2/pc3_end_in_string_next",
            "kimi_k2/pc3_section_end_in_string", "lfm2/truncated", "apertus/truncated", "lfm2/bad_value", "gigachat3/truncated",
            "gigachat3/bad_json", "xlam/truncated",
            # inkling10: a cut or broken args object is sent as written (vLLM's too)
            *(f"{p}{c}" for p in ("inkling+inkling/", "inkling/")
              for c in ("bad_json", "cut_in_args", "end_sampling_in_call")),
            *_STRAY_NOT_JSON, *_RESIDUE_NOT_JSON, *_FUZZ36_NOT_JSON,
            *_FUZZ37_NOT_JSON, *_FUZZ42_NOT_JSON, *_PYLIT45_DEVIATIONS, *_LEAD52_NOT_JSON,
            *_PYLIT46_DEVIATIONS}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_batch_and_stream_equal_vllm(case):
    golden = RECORDED[case["id"]]
    if case["id"] in DEVIATIONS:  # (vLLM's batch may have raised there)
        want, exact = DEVIATIONS[case["id"]][0], True
    else:
        want, exact = _norm(golden["batch"]), False
    rng = random.Random(case["id"])
    ids_len = len(vocab_for(case).encode(case["text"]))
    chunkings = [[max(ids_len, 1)], [1], [rng.randint(1, 5) for _ in range(7)], [2, 1, 3]]
    results = [run(case, sizes) for sizes in chunkings]
    for r in results[1:]:
        assert r == results[0], "stream != batch"
    got = results[0]
    if exact:
        assert {k: got[k] for k in want} == want
    else:
        assert _norm(got) == want
    if case["id"] not in NOT_JSON:
        for _, args in got["calls"]:
            json.loads(args)


def test_kimi_k2_ids_are_the_models_own():
    case = next(c for c in CASES if c["id"] == "kimi_k2/parallel")
    got = run(case, [1])
    assert got["ids"] == ["functions.get_weather:0", "functions.get_weather:1"]
    assert got["ids"] == RECORDED[case["id"]]["stream"]["ids"]


@pytest.mark.parametrize("case", [c for c in CASES if c["tool"] == "kimi_k2"], ids=lambda c: c["id"])
def test_kimi_k2_ids_equal_vllm(case):
    """Every shape of header (bare index, trailing text, colons...): the ids vLLM 0.33 streams
    (None where vLLM drew one at random: a cut header without an id)."""
    want = RECORDED[case["id"]]["stream"]["ids"]
    for sizes in ([1], [1000]):
        got = run(case, sizes)["ids"]
        if case["id"] in DEVIATIONS and [n for n, _ in DEVIATIONS[case["id"]][0]["calls"]] != [
                n for n, _ in RECORDED[case["id"]]["stream"]["calls"]]:
            # tito's calls are not vLLM's there (documented): each id is still the model's own
            assert len(got) == len(DEVIATIONS[case["id"]][0]["calls"])
            assert all(g in case["text"] for g in got)
            continue
        assert [g if w is not None else None for g, w in zip(got, want)] == want


def test_markers_reach_the_parser_other_special_tokens_stay_out():
    """Kimi's markers are special tokens here; Qwen3's ``<|endoftext|>`` (special) is skipped."""
    case = next(c for c in CASES if c["id"] == "kimi_k2/single")
    stray = dict(case, text=case["text"].replace("I'll check. ", "I'll<|endoftext|> check. "))
    for sizes in ([1], [1000]):
        got = run(stray, sizes)
        assert got["content"] == "I'll check. "
        assert got["calls"] == [["get_weather", '{"city": "Beijing"}']]


def test_every_case_was_recorded():
    assert set(RECORDED) == {c["id"] for c in CASES}


ENDED = json.loads((GOLDENS / "reasoning_ended_vllm.json").read_text())


@pytest.mark.parametrize("golden", ENDED, ids=lambda g: f"{g['reasoning']}{g['kwargs']}{g['prompt']!r}")
def test_render_reasoning_ended_equals_vllm(golden):
    """Render's ``reasoning_ended`` for the newer reasoning parsers: vLLM 0.33's
    ``is_reasoning_end`` on the prompt ids (recorded by ``record_parsers.py``)."""
    from types import SimpleNamespace

    from tito.service.render_chat_parts import _reasoning_ended

    vocab = vocab_for({"tool": None, "reasoning": golden["reasoning"]})
    model = SimpleNamespace(reasoning_parser=golden["reasoning"], vocab=vocab)
    request = SimpleNamespace(include_reasoning=True)
    ids = vocab.encode(golden["prompt"])
    assert _reasoning_ended(request, model, ids, golden["kwargs"]) is golden["ended"]


@pytest.mark.parametrize("cid", ["granite_thinking_parser/block", "granite_thinking_parser/no_start",
                                 "granite_thinking_parser/off",
                                 "qwen3_coder+granite_thinking_parser/block"])
def test_granite_thinking_content_loses_its_leading_newlines_exactly(cid):
    """The content's leading newlines are dropped under any chunking (compared unnormalized with
    vLLM's batch: the goldens' comparison strips content, which would hide them)."""
    case = next(c for c in CASES if c["id"] == cid)
    for sizes in ([10**6], [1], [2, 1, 3]):
        assert run(case, sizes)["content"] == RECORDED[cid]["batch"]["content"]
