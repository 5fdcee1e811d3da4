"""The deliberate deviations of ``parser_cases_fuzz40``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_deviations import RECORDED, _stream_of, vllm_calls

_A = '{"city": "Paris"}'
_UNCLOSED = (
    "call_unclosed: a closer vLLM's regex does not accept (\\n```<｜tool▁call▁end｜> written "
    "otherwise) makes vLLM's batch run the call on to the next call's closer, taking its text "
    "(not JSON); tito ends the call there, the whitespace after the JSON the arguments' but for a "
    "newline the closing fence follows (vLLM's stream ends it there too, "
)


def _two(first_args: str) -> dict:
    return {"reasoning": None, "content": None,
            "calls": [["get_weather", first_args], ["get_time", _A]]}


_FUZZ40_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{f"deepseek_v3/fz40_args_ws_{k}": (_stream_of(f"deepseek_v3/fz40_args_ws_{k}"),
                                         _UNCLOSED + "as tito)")
       for k in ("no_fence", "fence_same_line")},
    "deepseek_v3/fz40_args_ws_newline_no_fence": (
        _two(_A + "\n"), _UNCLOSED + "its trailing newline dropped)"),
    "deepseek_v3/fz40_args_ws_fence_then_space": (
        _two(_A + "   "), _UNCLOSED + "the fence and the space after it its arguments', not JSON)"),
    "deepseek_v3/fz40_args_ws_fence_long_space": (
        _two(_A), _UNCLOSED + "the fence and the spaces after it its arguments', not JSON)"),
}

_JUNK = (
    "text_kept + text_after_calls: text between a request's marker and its name marker: vLLM's "
    "engine drops it in its preamble (batch and stream) and makes the call; tito makes the call "
    "and keeps the text as content, the markers dropped (as text between requests); the text "
    "after the section is content (vLLM's stream keeps it, its batch drops it)")
_PLAMO_JUNK_CONTENT = {
    "text": "ax yb", "ws_text": "a \n xb", "second": "a>b", "doubled_marker": "ab",
    "end_marker": "a<|plamo:end_tool_name:plamo|>b",
    "no_name": "ax<|plamo:end_tool_request:plamo|>b",
}
_FUZZ40_DEVIATIONS.update({
    "plamo3+plamo3/fz40_request_junk": (
        {"reasoning": RECORDED["plamo3+plamo3/fz40_request_junk"]["batch"]["reasoning"],
         "content": ">", "calls": vllm_calls("plamo3+plamo3/fz40_request_junk")}, _JUNK),
    **{f"plamo3/fz40_request_junk_{k}": (
        {"reasoning": None, "content": content,
         "calls": vllm_calls(f"plamo3/fz40_request_junk_{k}")}, _JUNK)
       for k, content in _PLAMO_JUNK_CONTENT.items()},
})
_ARGS_JUNK = _JUNK.replace("a request's marker and its name marker", "a call's name and its "
                            "arguments marker")
_FUZZ40_DEVIATIONS.update({
    f"plamo3/fz40_args_junk_{k}": (
        {"reasoning": None, "content": content, "calls": vllm_calls(f"plamo3/fz40_args_junk_{k}")},
        _ARGS_JUNK)
    for k, content in (("gt", "a>b"), ("spaced", "a> x  y b"), ("second", "axb"),
                       ("no_args_marker", "axb"))})

#: plamo3's ``<|plamo:msg|>`` followed by text that opens no JSON object (session 48, parser fuzz
#: seed 154): tito's content is the case's own text (the junk and the call's end markers, from
#: the case's text), its calls vLLM's with that call's arguments ``{}``
_PLAMO_ARGS_END = "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
_MSG_JUNK = (
    "args_not_json + text_after_calls: text after a call's arguments marker that opens no JSON "
    "object (a stray '>'): vLLM's engine sends the raw text as the arguments, not JSON (batch "
    "and stream); tito's call, its name already sent, has the arguments {} and the text, to the "
    "next request, is content (the call's end markers with it, as a broken request's); the text "
    "after the section is content (vLLM's stream keeps it, its batch drops it)")


def _msg_junk(cid: str, junk: str, before: str = "a", after: str = "b") -> tuple[dict, str]:
    """tito's result for a ``msg_junk`` case: ``junk`` (the raw arguments vLLM sent) is content."""
    calls = [[n, "{}" if a == junk else a] for n, a in vllm_calls(cid)]
    assert len([a for _, a in vllm_calls(cid) if a == junk]) == 1
    reasoning = RECORDED[cid]["batch"]["reasoning"]
    return {"reasoning": reasoning, "content": before + junk + _PLAMO_ARGS_END + after,
            "calls": calls}, _MSG_JUNK


_FUZZ40_DEVIATIONS.update({
    "plamo3/fz40_msg_junk_gt": _msg_junk("plamo3/fz40_msg_junk_gt", ">" + _A),
    "plamo3/fz40_msg_junk_text": _msg_junk("plamo3/fz40_msg_junk_text", "x y"),
    "plamo3/fz40_msg_junk_then_call": _msg_junk("plamo3/fz40_msg_junk_then_call", ">" + _A),
    "plamo3/fz40_msg_junk_after_call": _msg_junk("plamo3/fz40_msg_junk_after_call", "x{}"),
    "plamo3+plamo3/fz40_msg_junk_gt": _msg_junk("plamo3+plamo3/fz40_msg_junk_gt", ">{}",
                                                before="Sure.", after=""),
})
