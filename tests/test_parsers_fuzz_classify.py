"""The parser fuzzer's classifier (``conformance/fuzz_parsers_classify.deviation``) on the
settled fuzz cases: each difference between vLLM 0.33's recorded batch and tito's result is
named as a documented class its deviation's reason starts with, so a later fuzz run counts
those cases apart (``deviation:NAME``) and shows only what is open. No vLLM needed: vLLM's side
is its record (``tests/goldens/parsers_vllm.json``), tito's the goldens' pipeline.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "goldens"), str(ROOT / "conformance")]

from fuzz_parsers_classify import deviation  # noqa: E402
from fuzz_parsers_compare import compare  # noqa: E402
from parser_cases import CASES  # noqa: E402
from parser_deviations import RECORDED  # noqa: E402
from parser_deviations_fuzz39 import _FUZZ39_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz40 import _FUZZ40_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz43 import _FUZZ43_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz44 import _FUZZ44_DEVIATIONS  # noqa: E402
from parser_deviations_fuzz48 import _FUZZ48_DEVIATIONS  # noqa: E402
from parser_pipeline import norm, run  # noqa: E402

_BY_ID = {c["id"]: c for c in CASES}


_SETTLED = {**_FUZZ39_DEVIATIONS, **_FUZZ40_DEVIATIONS, **_FUZZ43_DEVIATIONS,
            **_FUZZ44_DEVIATIONS, **_FUZZ48_DEVIATIONS}


@pytest.mark.parametrize("cid", sorted(_SETTLED))
def test_the_classifier_names_each_settled_deviation(cid: str) -> None:
    case, (_, why) = _BY_ID[cid], _SETTLED[cid]
    want, got = norm(RECORDED[cid]["batch"]), norm(run(case, [10**6]))
    kinds = compare(want, got)
    assert kinds, "tito equals vLLM's batch: no deviation to name"
    # (vLLM's one-token stream, as the fuzzer passes it; its random-chunk stream may differ)
    named = {k: deviation(case, k, want, got, {"1": RECORDED[cid]["stream"]}) for k in kinds}
    # (the reason opens with the class names: ``text_kept: ...``, ``a + b: ...``)
    assert set(named.values()) <= set(why.split(":", 1)[0].split(" + ")), named
    assert None not in named.values(), named


def test_a_kimi_k2_header_that_reads_on_into_the_next_call_is_args_marker_broken() -> None:
    """Fuzz seed 40 (``kimi_k2+kimi_k2/1``): call 0's argument marker misspelt, both calls of
    one tool: vLLM's one-token stream has call 0's id run on to call 1's, the calls agree, and
    only the ids differ (the fuzzer flagged ``ids``)."""
    from fuzz_parsers_classify_args import ids_deviation

    text = ("<think>ok\n\n</think>  <|tool_calls_section_begin|><|tool_call_begin|>"
            "functions.get_weather:0 <|tool_cal_argument_begin|>{\"detailed\": false}"
            "<|tool_call_end|><|tool_call_begin|>functions.get_weather:1 "
            "<|tool_call_argument_begin|>{\"city\": \"x\"}<|tool_call_end|>"
            "<|tool_calls_section_end|>Let me check that for you.")
    case = {"id": "t", "tool": "kimi_k2", "reasoning": "kimi_k2", "tools": [
        {"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}}}}], "text": text}
    tito = run(case, [10**6])
    assert tito["calls"] == [["get_weather", '{"city": "x"}']]
    vllm_ids = [text[text.index("functions.get_weather:0") : text.index(":1 ") + 2]]
    assert ids_deviation(case, vllm_ids, tito["ids"]) == "args_marker_broken"
    assert ids_deviation(case, ["functions.get_weather:7"], tito["ids"]) is None
    fixed = dict(case, text=text.replace("tool_cal_arg", "tool_call_arg"))
    assert ids_deviation(fixed, vllm_ids, tito["ids"]) is None


def test_a_repeated_granite_marker_before_a_list_is_marker_repeated() -> None:
    """Fuzz seed 117 (``granite/5``): ``<tool_call>  <tool_call>[...]``: vLLM's engine bails the
    first marker to content and the second marker and its list go with it (no call; recorded
    from vLLM 0.33 in the fuzz run, batch and streams alike); tito makes the list's call."""
    call = '[{"name": "not_a_tool", "arguments": {"temp": 0}}]'
    later = '<tool_call>[{"name": "search", "arguments": {"limit": 1}}]'
    case = {"id": "t", "tool": "granite", "reasoning": None, "tools": [],
            "text": f"<tool_call>  <tool_call>{call}Result{later}Done!"}
    want = {"reasoning": None, "content": f"<tool_call>{call}Result",
            "calls": [["search", '{"limit": 1}']]}
    got = norm(run(case, [10**6]))
    assert [c[0] for c in got["calls"]] == ["not_a_tool", "search"]
    kinds = compare(want, got)
    named = {k: deviation(case, k, want, got, {"1": dict(want, content=want["content"] + "Done!")})
             for k in kinds}
    assert "n_calls" in named and named["n_calls"] == "marker_repeated", named
    assert None not in named.values(), named


def test_tito_as_vllm_one_token_stream_when_vllm_streams_disagree() -> None:
    """Fuzz seed 124 (``step5+step5/5``): vLLM's stream in random chunks leaks ``<think>`` into
    the reasoning, its stream of one token per delta does not, and tito answers as the latter:
    ``follows_vllm_stream`` (vLLM's chunking-dependent stream is not tito's to follow); a tito
    answer that matches neither stream stays unnamed."""
    cid = "step5+step5/fz43_cut_bare_opener"
    case, one = _BY_ID[cid], RECORDED[cid]["stream"]
    want, got = norm(RECORDED[cid]["batch"]), norm(run(case, [10**6]))
    leaky = {**one, "reasoning": "<think>" + (one.get("reasoning") or "")}
    streams = {"1": one, "rand": leaky}
    assert {deviation(case, k, want, got, streams) for k in compare(want, got)} == {
        "follows_vllm_stream"}
    wrong = {**got, "content": (got.get("content") or "") + " extra"}
    assert None in {deviation(case, k, want, wrong, streams) for k in compare(want, wrong)}


def test_inkling_whitespace_before_a_later_thinking_block_is_ws_between_thinking() -> None:
    """Parser fuzz seed 126 (``fuzz/inkling/1``, the tool parser alone): vLLM's batch drops the
    thinking blocks, its stream has them but for the whitespace the first ends with (a tool block
    between); tito keeps that whitespace (the documented ``ws_between_thinking``)."""
    text = ('OK<|content_thinking|>Let me check.  \n<|end_message|><|message_model|>'
            '<|content_invoke_tool_json|>{"name": "get_time", "args": {}}'
            '<|content_model_end_sampling|>  <|content_thinking|>想一想<|end_message|>'
            '<|message_model|><|content_invoke_tool_json|>{"name": "get_time", "args": {}}'
            '<|content_model_end_sampling|>Done.')
    case = {**_BY_ID["inkling/ws_between_thinking"], "id": "t", "text": text}
    got = norm(run(case, [10**6]))
    assert got["reasoning"] == "Let me check.  \n想一想"
    want = {**got, "reasoning": None}
    stream = {**got, "reasoning": "Let me check.想一想"}
    assert deviation(case, "reasoning", want, got, {"1": stream}) == "ws_between_thinking"
    other = {**got, "reasoning": "Let me check.  \nelse"}
    assert deviation(case, "reasoning", want, other, {"1": stream}) is None


def test_a_dots_invoke_of_a_spaced_name_is_unknown_tool_text() -> None:
    """Parser fuzz seed 136 (``fuzz/dots/0``, the ``ws`` mutation): ``<invoke name=" get_time">``
    names no tool (a quoted name keeps its spaces), the only invoke of its block: vLLM's batch
    makes the whole output content, tito the invoke's text (the settled
    ``dots/fz38_spaced_name`` rule, ``unknown_tool_text``); an invoke of a known tool is not."""
    text = ('<dots_function_call>\n  \n<invoke name=" get_time">\n</invoke>\n'
            '</dots_function_call>Let me check that for you.')
    case = {**_BY_ID["dots/fz38_spaced_name"], "id": "fuzz/dots/0:text_after,ws", "text": text}
    got = norm(run(case, [10**6]))
    assert got["calls"] == [] and '<invoke name=" get_time">' in got["content"]
    want = {**got, "content": text}
    assert deviation(case, "content", want, got, {"1": want}) == "unknown_tool_text"
    known = {**got, "content": got["content"].replace(" get_time", "get_time")}
    assert deviation(case, "content", want, known, {"1": want}) is None


def test_mistral_typed_args_beside_a_markup_named_call_are_batch_reserializes() -> None:
    """Parser fuzz seed 138 (``fuzz/mistral+mistral/4``): a ``[TOOL_CALLS]`` written before the
    real one makes vLLM's batch name call 0 with the text between them (``markup_name``) and
    call 1's ``2.0`` is its schema-typed ``2`` (``batch_reserializes``); the name's difference
    kept the typed call from being named. A different value is still tito's."""
    case = {"id": "fuzz/mistral+mistral/4", "tool": "mistral", "reasoning": "mistral",
            "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
                "type": "object", "properties": {"temp": {"type": "number"}}}}}],
            "text": "[TOOL_CALLS]ok\n\n[/THINK]  [TOOL_CALLS]get_weather{\"temp\": 0}"
                    "[TOOL_CALLS]get_weather[ARGS]{\"temp\": 2.0}"}
    want = {"reasoning": None, "content": None, "calls": [
        ["ok\n\n  [TOOL_CALLS]get_weather", '{"temp": 0}'], ["get_weather", '{"temp": 2}']]}
    got = {"reasoning": None, "content": "[TOOL_CALLS]ok\n\n[/THINK]  ", "calls": [
        ["get_weather", '{"temp": 0}'], ["get_weather", '{"temp": 2.0}']]}
    assert deviation(case, "args_bytes", want, got, {"1": want}) == "batch_reserializes"
    other = {**got, "calls": [got["calls"][0], ["get_weather", '{"temp": 3.0}']]}
    assert deviation(case, "args", want, other, {"1": want}) is None


def test_a_mistral_call_whose_arguments_lost_their_brace_is_args_not_json() -> None:
    """Parser fuzz seed 140 (``fuzz/mistral+mistral/5``): ``[ARGS]}`` (the ``{`` dropped) is
    in vLLM's batch and streams a call whose arguments are the raw text to the end; tito's
    header needs the ``{`` and the call's text is content (``args_not_json``, as kimi_k2's)."""
    text = "Here you go:[TOOL_CALLS]get_time[ARGS]}好的"
    case = {"id": "fuzz/mistral+mistral/5", "tool": "mistral", "reasoning": "mistral",
            "tools": [{"type": "function", "function": {"name": "get_time", "parameters": {
                "type": "object", "properties": {}}}}], "text": text}
    want = {"reasoning": None, "content": "Here you go:", "calls": [["get_time", "}好的"]]}
    got = {"reasoning": None, "content": text, "calls": []}
    for kind in ("content", "n_calls"):
        assert deviation(case, kind, want, got, {"1": want}) == "args_not_json"
    json_args = {**want, "calls": [["get_time", "{}"]]}
    assert deviation(case, "n_calls", json_args, got, {"1": json_args}) is None


def test_poolside_whitespace_between_calls_kept_by_vllms_stream_is_gap_between_calls() -> None:
    """Parser fuzz seed 141 (``fuzz/poolside_v1+poolside_v1/0``): vLLM's poolside_v1 stream keeps
    the ``\\n`` between two calls as content when text follows them (its batch drops that
    text, and a call whose first key is misspelt); tito's gap rule drops the newline. Another
    difference in the content is still tito's."""
    text = ("A<tool_call>get_time\n</tool_call>\n<tool_call>get_weather\n<ar_key>x</arg_key>\n"
            "<arg_value>1</arg_value>\n<arg_key>temp</arg_key>\n<arg_value>3.14</arg_value>\n"
            "</tool_call>B")
    case = {"id": "fuzz/poolside_v1+poolside_v1/0", "tool": "poolside_v1",
            "reasoning": "poolside_v1", "tools": [], "text": text}
    calls = [["get_time", "{}"], ["get_weather", '{"temp": 3.14}']]
    want = {"reasoning": None, "content": "A", "calls": calls[:1]}
    stream = {"reasoning": None, "content": "A\nB", "calls": calls}
    got = {"reasoning": None, "content": "AB", "calls": calls}
    for kind in compare(want, got):
        assert deviation(case, kind, want, got, {"1": stream}) == "gap_between_calls"
    other = {**got, "content": "AC"}
    assert deviation(case, "content", want, other, {"1": stream}) is None


def test_a_kimi_k3_call_header_over_its_closer_is_call_unclosed() -> None:
    """Parser fuzz seed 146 (``fuzz/kimi_k3+kimi_k3/2``): a call header whose ``<|sep|>`` lost
    its ``<`` reads on over ``<|close|>call`` to that closer's ``<|sep|>`` (vLLM and tito alike),
    so the call has no closer: vLLM never emits it, tito keeps it (``call_unclosed``); with the
    header's ``<|sep|>`` whole the same difference is still tito's."""
    def case(sep: str) -> dict:
        return {"id": "fuzz/kimi_k3+kimi_k3/2", "tool": "kimi_k3", "reasoning": "kimi_k3",
                "tools": [], "text": f'<|open|>tools<|sep|><|open|>call tool="get_time" '
                                     f'index="1"{sep}<|close|>call<|sep|><|close|>tools<|sep|>'
                                     "<|close|>message<|sep|>Let me check."}
    want = {"reasoning": None, "content": "Sure.", "calls": []}
    got = {"reasoning": None, "content": "Sure.Let me check.", "calls": [["get_time", "{}"]]}
    for kind in ("content", "n_calls"):
        assert deviation(case("|sep|>"), kind, want, got, {"1": want}) == "call_unclosed"
    assert deviation(case("<|sep|>"), "n_calls", want, got, {"1": want}) is None


@pytest.mark.parametrize("cid", ["inkling+inkling/args_array", "inkling/args_array"])
def test_an_inkling_args_value_that_is_no_object_is_inkling_args_not_object(cid: str) -> None:
    """Parser fuzz seed 150 (``fuzz/inkling+inkling/1``, a ``{`` dropped): ``"args": }}`` is
    no JSON, so vLLM's batch sends the whole body as the arguments (an array value: its
    ``json.dumps``, the recorded ``args_array``) and its stream ``""``; tito's are ``{}`` (the
    documented ``inkling_args_not_object``). Other arguments are still tito's to answer for."""
    body = '{"name": "get_time", "args": }}'
    case = {**_BY_ID[cid], "id": "fuzz/inkling+inkling/1", "text":
            f"OK<|content_invoke_tool_json|>{body}<|content_model_end_sampling|>Calling now."}
    got = norm(run(case, [10**6]))
    assert got["calls"] == [["get_time", "{}"]]
    want = {**got, "calls": [["get_time", body]]}
    stream = {**got, "calls": [["get_time", ""]]}
    assert compare(want, got) == ["args"]
    assert deviation(case, "args", want, got, {"1": stream}) == "inkling_args_not_object"
    recorded = RECORDED[cid]
    want, got = norm(recorded["batch"]), norm(run(_BY_ID[cid], [10**6]))
    assert deviation(_BY_ID[cid], "args", want, got,
                     {"1": recorded["stream"]}) == "inkling_args_not_object"
    other = {**got, "calls": [[got["calls"][0][0], '{"x": 1}']]}
    assert deviation(_BY_ID[cid], "args", want, other, {"1": recorded["stream"]}) is None


def test_a_plamo3_call_whose_arguments_open_with_no_brace_is_args_not_json() -> None:
    """Parser fuzz seed 154 (``fuzz/plamo3+plamo3/1``): ``<|plamo:msg|>>{}`` (a stray ``>``):
    vLLM's engine sends ``>{}`` as the arguments (batch and stream); tito's call has ``{}`` and
    the text, with the call's end markers, is content (``args_not_json``, as deepseek_v31's,
    kimi_k2's and mistral's, the call kept: its name was sent). Other arguments, or content
    beyond that text, are still tito's to answer for."""
    msg = "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
    end = "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
    text = ("<|plamo:begin_think:plamo|>Let me think.<|plamo:end_think:plamo|>Sure."
            "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
            f"<|plamo:begin_tool_name:plamo|>get_time<|plamo:end_tool_name:plamo|>{msg}>{{}}{end}"
            "<|plamo:end_tool_requests:plamo|>")
    case = {"id": "fuzz/plamo3+plamo3/1", "tool": "plamo3", "reasoning": "plamo3",
            "tools": [], "text": text}
    want = {"reasoning": "Let me think.", "content": "Sure.", "calls": [["get_time", ">{}"]]}
    got = norm(run(case, [10**6]))
    assert got == {"reasoning": "Let me think.", "content": f"Sure.>{{}}{end}",
                   "calls": [["get_time", "{}"]]}
    assert compare(want, got) == ["args", "content"]
    for kind in compare(want, got):
        assert deviation(case, kind, want, got, {"1": want}) == "args_not_json"
    other = {**got, "calls": [["get_time", '{"x": 1}']]}
    assert deviation(case, "args", want, other, {"1": want}) is None
    more = {**got, "content": f"Sure.>{{}}{end}extra"}
    assert deviation(case, "content", {**want, "content": "Sure.!"}, more, {"1": want}) is None


def test_a_minimax_m2_invoke_with_a_misspelt_closer_is_call_unclosed() -> None:
    """Parser fuzz seed 211 (``fuzz/minimax_m2/2``, the ``dup:'/'`` mutation): ``<//invoke>``
    leaves the first invoke unclosed; vLLM's engine (recorded below) reads the next invoke's
    parameters into it, one call; tito ends it at the next invoke, two calls and the misspelt
    closer content (``call_unclosed``). With the closer spelt right it is not named."""
    text = ('Sure.<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="note">42'
            '</parameter>\n<//invoke>\n<invoke name="get_weather">\n<parameter name="city">'
            "</parameter>\n<parameter name=\"days\">0</parameter>\n</invoke>\n"
            "</minimax:tool_call>")
    case = {**_BY_ID["minimax_m2/fz49_key_quote_empty"], "id": "fuzz/minimax_m2/2", "text": text}
    got = norm(run(case, [10**6]))
    assert len(got["calls"]) == 2 and "<//invoke>" in got["content"]
    want = {"reasoning": None, "content": "Sure.",
            "calls": [["get_weather", '{"note": "42", "city": "", "days": "0"}']]}
    assert deviation(case, "n_calls", want, got, {"1": want}) == "call_unclosed"
    fixed = {**case, "text": text.replace("<//invoke>", "</invoke>")}
    assert deviation(fixed, "n_calls", want, got, {"1": want}) is None


def test_an_lfm2_call_with_a_positional_argument_is_positional_arg() -> None:
    """Parser fuzz seed 956 (``fuzz/lfm2/0``): ``get_weather(detailedFalse)`` (a dropped ``=``)
    is a positional argument, which vLLM's ``ast`` reading drops, calling the tool with ``{}``
    (its record below); tito makes the block content (``positional_arg``, now named for lfm2
    and for any positional argument, not only a doubled ``=``). Keywords only: not named."""
    text = "<|tool_call_start|>[get_weather(detailedFalse), get_weather()]<|tool_call_end|>"
    case = {**_BY_ID["lfm2/py49_ident_not_python"], "id": "fuzz/lfm2/0", "text": text}
    got = norm(run(case, [10**6]))
    assert got["calls"] == [] and "detailedFalse" in got["content"]
    want = {"reasoning": None, "content": None,
            "calls": [["get_weather", "{}"], ["get_weather", "{}"]]}
    assert deviation(case, "n_calls", want, got, {"1": want}) == "positional_arg"
    keywords = {**case, "text": text.replace("detailedFalse", "detailed=False")}
    assert deviation(keywords, "n_calls", want, got, {"1": want}) is None


def test_an_inkling_thinking_block_opened_in_a_broken_tool_block_is_reopen_after_call() -> None:
    """Parser fuzz seed 172 (``fuzz/inkling+inkling/2``): a ``<|content_invoke_tool_json|>``
    written in text, a thinking block opened in its broken body, then real calls. vLLM's batch
    reasoning pass reopens reasoning there, markup in it (its record below); its stream, and
    tito, drop the broken block (``reopen_after_call``, now named for inkling). The recorded
    ``fz51_`` cases are named too; a reasoning of tito's own is not."""
    text = ("The <|content_invoke_tool_json|> token Sure.<|content_thinking|>Let me check."
            "<|end_message|><|message_model|><|content_invoke_tool_json|>"
            '{"name": "get_time", "args": {}}<|content_model_end_sampling|>'
            "<|message_model|><|content_text|>Done.<|end_message|>")
    case = {**_BY_ID["inkling+inkling/fz51_thinking_in_call_text"], "id": "fuzz/inkling+inkling/2",
            "text": text}
    got = norm(run(case, [10**6]))
    assert got == {"reasoning": None, "content": "Done.", "calls": [["get_time", "{}"]]}
    want = {**got, "reasoning": "Let me check.<|end_message|><|message_model|>"}
    assert compare(want, got) == ["reasoning"]
    assert deviation(case, "reasoning", want, got, {"1": got}) == "reopen_after_call"
    assert deviation(case, "reasoning", want, {**got, "reasoning": "x"}, {"1": got}) is None
    for cid in ("inkling+inkling/fz51_thinking_in_call_text",
                "inkling+inkling/fz51_thinking_in_call_text_after_reasoning"):
        want, got = norm(RECORDED[cid]["batch"]), norm(run(_BY_ID[cid], [10**6]))
        assert "reasoning" in compare(want, got)
        assert deviation(_BY_ID[cid], "reasoning", want, got,
                         {"1": RECORDED[cid]["stream"]}) == "reopen_after_call"


def test_a_minimax_m2_spelt_parameter_header_without_its_gt_is_markup_key() -> None:
    """Parser fuzz seed 996 (``fuzz/minimax_m2/0``, ``drop:'>'``): ``< parameter name = "city"true
    </parameter>`` lost its ``>``; vLLM's engine (its record below) reads the key on to the
    closer's ``>`` (a key of markup, value ``"\\n"``), tito drops the bad header
    (``markup_key``, named before only for ``<parameter=``). Without a parameter header in the
    text (the same answers): not named."""
    text = ('Here you go:<minimax:tool_call>\n<invoke name="get_weather">\n'
            '< parameter name = "city"true</parameter>\n< parameter name = "note">null'
            '</parameter>\n< parameter name = "tags">[]</parameter>\n</invoke>\n</minimax:tool_call>')
    case = {**_BY_ID["minimax_m2/fz49_key_quote_empty"], "id": "fuzz/minimax_m2/0", "text": text}
    got = norm(run(case, [10**6]))
    assert got["calls"] == [["get_weather", '{"note": "null", "tags": "[]"}']]
    want = {"reasoning": None, "content": "Here you go:", "calls": [[
        "get_weather", '{"\\"city\\"true</parameter": "\\n", "note": "null", "tags": "[]"}']]}
    assert deviation(case, "args", want, got, {"1": want}) == "markup_key"
    other = {**case, "text": text.replace("< parameter name = ", "<param name=")}
    assert deviation(other, "args", want, got, {"1": want}) is None
