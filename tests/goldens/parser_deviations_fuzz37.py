"""The deliberate deviations of ``parser_cases_fuzz37``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_cases_fuzz37 import cases
from parser_deviations import RECORDED, _stream_of, text_between, vllm_calls

_TEXT = {c["id"]: c["text"] for c in cases()}


_calls, _stream = vllm_calls, _stream_of


def _between(cid: str, start: str, end: str) -> str:
    """The case's text from ``start`` (included) to ``end`` after it (excluded)."""
    return text_between(_TEXT[cid], start, end)


_AFTER = ("text_after_calls: the text after the calls is content (vLLM's batch drops it; its "
          "stream keeps it, or, {}, sends nothing of it)")
_GB = "granite+granite/fz37_dropped_bracket"
_GB_ARGS = RECORDED[_GB]["batch"]["calls"][0][1]
_GB_TEXT = (RECORDED[_GB]["batch"]["content"] + _between(_GB, "Calling", "<|tool_call|>")
            + _TEXT[_GB].rsplit("]", 1)[1])
_KA = "kimi_k2+kimi_k2/fz37_args_not_json"
_ARGS_NOT_JSON = ("args_not_json: arguments that do not open with '{' (a dropped brace): vLLM's "
                  "engine makes the call with their raw text (batch and stream); tito's header "
                  "needs the '{', so the call's text is content (its section's end dropped as "
                  "markup), as deepseek_v31's (fz31_args_not_json): tito makes no arguments "
                  "that are not JSON of a call the model wrote broken")
_HP = "hunyuan_a13b/fz37_"
_ARGLESS = ("an element whose arguments are \"parameters\" is no call (vLLM's hunyuan_a13b reads "
            "only \"arguments\") and the list goes on, as a list element without \"arguments\" "
            "(fz36_argless_*): ")

_FUZZ37_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "llama3_json/fz37_repeated_tag": (
        {"reasoning": None, "calls": _calls("llama3_json/fz37_repeated_tag"), "content": "OK"},
        _AFTER.format("here, failing on the second <|python_tag|>, no call either")),
    "olmo3/fz37_double_equals": (
        {"reasoning": None, "calls": [], "content": _TEXT["olmo3/fz37_double_equals"]},
        "positional_arg: a positional argument (a doubled '=' makes `temp==2.0` a comparison): "
        "vLLM's ast drops it and calls the tool with the keywords alone ({}, arguments the model "
        "did not write; batch and stream); tito's grammar takes keyword arguments only, so the "
        "call's header fails and the block is content, as any block that is no list of calls"),
    _GB: (
        {"reasoning": RECORDED[_GB]["batch"]["reasoning"],
         "calls": [[_calls(_GB)[0][0], _GB_ARGS + "}"], _calls(_GB + "_fixed")[1]],
         "content": _GB_TEXT},
        "bracket_kinds: arguments whose ']' was dropped: tito's O(1) scanner counts brackets, "
        "not their kinds, so the arguments end where the count closes (the call object's '}' "
        "with them) and the next list's call is read; vLLM's batch makes the first call and "
        "drops the rest of the output, its stream makes no call (the whole output content); "
        "neither is JSON (the calls: vLLM's, the first with that '}', the second of the same "
        "output spelt right; the text around them content: text_after_calls)"),
    _GB + "_fixed": (
        {"reasoning": RECORDED[_GB + "_fixed"]["batch"]["reasoning"],
         "calls": _calls(_GB + "_fixed"), "content": _GB_TEXT},
        _AFTER.format("composed with granite's reasoning parser here, makes no call at all")),
    "plamo3+plamo3/fz37_open_string": (
        _stream("plamo3+plamo3/fz37_open_string"), _AFTER.format("as here")),
    _KA: (
        {"reasoning": RECORDED[_KA]["batch"]["reasoning"], "calls": _calls(_KA)[1:],
         "content": _between(_KA, "  <|tool_calls_section_begin|>", "<|tool_call_begin|>functions"
                             ".get_weather:1") + "OK"},
        _ARGS_NOT_JSON + " (the calls: vLLM's after it; the text after the section: "
        "text_after_calls, vLLM's both paths drop it)"),
    **{cid: ({"reasoning": None, "calls": [],
              "content": _between(cid, "<|tool_calls_section_begin|>",
                                  "<|tool_calls_section_end|>")}, _ARGS_NOT_JSON)
       for cid in ("kimi_k2/fz37_args_close_only", "kimi_k2/fz37_args_text",
                   "kimi_k2/fz37_args_word")},
    f"{_HP}parameters": (
        {"reasoning": None, "calls": [],
         "content": "Hi\n" + _between(f"{_HP}parameters", "{", "]</tool_calls>")},
        _ARGLESS + "list_markup: a list with no call keeps its elements' text as content, not "
                   "its markup (vLLM's batch and stream: the whole text)"),
    f"{_HP}parameters_then_call": (
        {"reasoning": None, "calls": _calls(f"{_HP}parameters_then_call"),
         "content": "Hi\n" + _between(f"{_HP}parameters_then_call", "{", ", {")},
        _ARGLESS + "text_kept: vLLM's batch drops the element's text, tito keeps it as content"),
}

#: cases whose arguments are not JSON in vLLM either (a bracket or a quote dropped)
NOT_JSON = {_GB, "plamo3+plamo3/fz37_open_string", "plamo3/fz37_open_string_only",
            "plamo3/fz37_open_string_request_end"}
