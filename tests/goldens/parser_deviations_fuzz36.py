"""The deliberate deviations of ``parser_cases_fuzz36``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): case id -> (tito's result, why). Each
rule is in ``docs/conformance.md`` ("Tool and reasoning parsers") and named by the fuzzer's
classifier (``conformance/fuzz_parsers_classify.deviation``).

Nothing here is tito's output copied back: calls are vLLM's records (of the case, or of a
companion case spelt right, ``*_fixed``), content vLLM's stream's where tito follows it, else
the case's text with the calls' markup cut out.
"""

from __future__ import annotations

from parser_cases_fuzz36 import cases
from parser_deviations import RECORDED, _stream_of, text_between, vllm_calls

_TEXT = {c["id"]: c["text"] for c in cases()}


_calls, _stream = vllm_calls, _stream_of


def _between(cid: str, start: str, end: str) -> str:
    """The case's text from ``start`` (included) to ``end`` after it (excluded)."""
    return text_between(_TEXT[cid], start, end)


_AFTER = ("text_after_calls: the text after and between the blocks is content (vLLM's batch "
          "keeps only the text before the first block; its stream keeps it, as tito)")
_BROKEN_INVOKE = ("an invoke whose </invoke> is misspelt before the block's end is no call, as in "
                  "vLLM (batch and stream); its text up to the block's end is content, as vLLM's "
                  "stream gives a block without a call")
_K3 = ("text_kept: text in the section that is no call (a misspelt call opener, stray text) "
       "leaves the section open: the calls after it are read, as vLLM's regex reads every call "
       "of the section; vLLM drops that text, tito keeps it (and the section's opener before "
       "it) as content")
_D, _K, _M = "dots/fz36_", "kimi_k3/fz36_", "minimax_m2/fz36_"
_H, _E, _MB = "hunyuan_a13b/fz36_", "ernie45+ernie45/fz36_", "mistral+mistral/fz36_mismatched_bracket"
_HR = "hunyuan_a13b+hunyuan_a13b/fz36_argless_element"
_ARGLESS = ("text_kept: a list element without \"arguments\" (misspelt) is no call and the "
            "list goes on, as vLLM's batch skips it; vLLM drops its text (with no call at all its "
            "batch keeps the whole output, markers included), tito keeps the object's text as "
            "content, the list's markup dropped")
#: vLLM's arguments of the broken call (to the next [TOOL_CALLS]), and tito's: up to the ']'
_MB_ARGS = RECORDED[_MB]["batch"]["calls"][0][1]
_MB_CUT = _MB_ARGS[: _MB_ARGS.index("]") + 1]
_K3_CALL = '<|open|>call tool="get_weather" index="2"'

_FUZZ36_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{_D}misspelt_invoke_end": (
        {"reasoning": None, "calls": _calls(f"{_D}misspelt_invoke_end"),
         "content": RECORDED[f"{_D}misspelt_invoke_end"]["stream"]["content"]},
        _AFTER + "; " + _BROKEN_INVOKE),
    f"{_D}misspelt_invoke_end_only": (
        _stream(f"{_D}misspelt_invoke_end_only"),
        "follows_vllm_stream: " + _BROKEN_INVOKE + " (the block's markers dropped); with no "
        "call in the output vLLM's batch makes the whole output content, markers included"),
    f"{_D}misspelt_invoke_end_after_call": (
        {"reasoning": None, "calls": _calls(f"{_D}misspelt_invoke_end_after_call"),
         "content": _between(f"{_D}misspelt_invoke_end_after_call", '<invoke name="search"',
                             "\n</dots_function_call>") + "Bye"},
        "text_kept: " + _BROKEN_INVOKE + "; after a call in the same block vLLM drops that text "
        "(batch and stream), tito keeps it"),
    f"{_D}long_misspelt_invoke_end": (
        {"reasoning": None, "calls": _calls(f"{_D}long_misspelt_invoke_end_fixed"),
         "content": "</invok>\n"},
        "call_unclosed: an invoke whose </invoke> does not start within its first CALL_HOLD "
        "(200) characters is sent as it comes (a bounded hold), so with a misspelt closer it "
        "stays a call (its stray closer content); vLLM drops it (the calls: vLLM's, of the same "
        "output spelt right)"),
    f"{_K}misspelt_call_open": (
        {"reasoning": None, "calls": _calls(f"{_K}misspelt_call_open"),
         "content": _between(f"{_K}misspelt_call_open", "<|open|>tools", _K3_CALL)}, _K3),
    f"{_K}misspelt_call_open_text": (
        {"reasoning": None, "calls": _calls(f"{_K}misspelt_call_open_text"),
         "content": "Let me check that for you." + _between(
             f"{_K}misspelt_call_open_text", "<|open|>tools", _K3_CALL)}, _K3),
    f"{_K}text_between_calls": (
        {"reasoning": None, "calls": _calls(f"{_K}text_between_calls"), "content": "strayafter"},
        _K3 + "; the text after the section too (text_after_calls)"),
    f"{_M}invoke_as_text": (
        {"reasoning": None, "calls": _calls(f"{_M}invoke_as_text_fixed"),
         "content": _TEXT[f"{_M}invoke_as_text"].split("<minimax:tool_call>")[0]
         + _TEXT[f"{_M}invoke_as_text"].split("</minimax:tool_call>")[1]},
        "call_unclosed: an '<invoke name=\"' written as text before the section: vLLM's call "
        "runs from it over the section's markers (a name that is no tool: dropped, batch and "
        "stream), the real call lost; tito's header of that text does not parse (a quoted name "
        "then no '>'), so it is content and the section's call is read (the calls: vLLM's, of "
        "the same output without the stray text)"),
    f"{_M}invoke_as_text_fixed": (_stream(f"{_M}invoke_as_text_fixed"), _AFTER),
    _HR: (
        {"reasoning": RECORDED[_HR]["batch"]["reasoning"], "calls": _calls(_HR),
         "content": _between(_HR, "I'll", "<tool_calls>")
         + _between(_HR, '{"name": "get_weather"', "]</tool_calls>")}, _ARGLESS),
    f"{_H}argless_first": (
        {"reasoning": None, "calls": _calls(f"{_H}argless_first"),
         "content": "Hi\n" + _between(f"{_H}argless_first", "{", ", {")}, _ARGLESS),
    f"{_H}argless_only": (
        {"reasoning": None, "calls": [],
         "content": "Hi\n" + _between(f"{_H}argless_only", "{", "]</tool_calls>")}, _ARGLESS),
    f"{_E}misspelt_call_end": (
        {"reasoning": RECORDED[f"{_E}misspelt_call_end"]["batch"]["reasoning"],
         "calls": _calls(f"{_E}misspelt_call_end_fixed"), "content": "OK</tool_calll>"},
        "call_unclosed: a misspelt </tool_call>: vLLM's regex and its stream need the closer and "
        "drop the call with its text (batch and stream); tito makes the call once its JSON "
        "closed and keeps the misspelt closer as content (the calls: vLLM's, of the same output "
        "spelt right)"),
    _MB: (
        {"reasoning": RECORDED[_MB]["batch"]["reasoning"],
         "calls": [[_calls(_MB)[0][0], _MB_CUT], _calls(_MB)[1]],
         "content": RECORDED[_MB]["batch"]["content"] + _MB_ARGS[len(_MB_CUT) :] + "OK"},
        "bracket_kinds: arguments whose '[' was dropped: tito's O(1) scanner counts brackets, "
        "not their kinds, so the ']' closes the arguments and the rest of them is content (with "
        "the text after the calls: text_after_calls); vLLM's engine takes the text up to the "
        "next [TOOL_CALLS] (the calls: vLLM's, the first cut at its ']'; neither is JSON)"),
}

_HQ = "hermes+qwen3/fz36_marker_before_think_end"


def _hermes_kept(cid: str, start: str) -> dict:
    """tito's result of a ``_HQ`` case: reasoning vLLM's batch's, the calls vLLM's stream's (of
    the output spelt right; its batch re-serializes them), the text around the calls content."""
    text = _TEXT[cid]
    return {"reasoning": RECORDED[cid]["batch"]["reasoning"],
            "calls": [[n, a] for n, a in RECORDED[_HQ + "_fixed"]["stream"]["calls"]],
            "content": _between(cid, start, "<tool_call>\n") + text.rsplit("</tool_call>", 1)[1]}


_FUZZ36_DEVIATIONS.update({
    _HQ: (_hermes_kept(_HQ, "<tool_call> to"),
          "batch_whole_text: a <tool_call> written as text before </think> ends qwen3's block "
          "there; vLLM's hermes batch then reads a call from it over the real ones, not JSON, and "
          "makes the whole output content (without the </think>); its stream and tito make the "
          "calls, tito keeping the text around them (the </think> included) as content"),
    _HQ + "_fixed": (_hermes_kept(_HQ + "_fixed", "好的"),
                     _AFTER + "; vLLM's hermes batch re-serializes the arguments, its stream sends "
                     "the model's text, as tito (batch_reserializes)"),
})

_V41 = "deepseek_v41+deepseek_v41/fz36_start_after_call_marker"
_FUZZ36_DEVIATIONS[_V41] = (
    {"reasoning": RECORDED[_V41]["stream"]["reasoning"], "content": _TEXT[_V41], "calls": []},
    "reopen_after_call: a <think> after the grammar's call start written as text: vLLM's batch "
    "reasoning pass reads the call start as text and opens the block at the <think>, its stream "
    "one token per delta hands over to the tool grammar (no reasoning); tito's reasoning is that "
    "stream's, and the text, which no call took, is content (vLLM's stream drops it)")

#: cases whose arguments are not JSON in vLLM either (a bracket dropped)
NOT_JSON = {_MB}
