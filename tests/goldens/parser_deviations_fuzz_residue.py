"""The deliberate deviations of ``parser_cases_fuzz_residue``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): case id -> (tito's result, why). Each
rule is in ``docs/conformance.md`` ("Tool and reasoning parsers") and named by the fuzzer's
classifier (``conformance/fuzz_parsers_classify.deviation``).

Nothing here is tito's output copied back: calls are vLLM's records (of the case, or of a
companion case spelt right, ``*_fixed``); the content tito keeps is the case's text with the
calls' markup cut out by the format's rule (:func:`_kept`).
"""

from __future__ import annotations

import re

from parser_cases_fuzz_residue import cases
from parser_deviations import RECORDED

_TEXT = {c["id"]: c["text"] for c in cases()}

#: a whole functiongemma call as tito reads one (vLLM's header; whitespace may stand between the
#: arguments' ``}`` and the end marker)
_FG_CALL = r"<start_function_call>call:\w+\{.*?\}\s*<end_function_call>"
#: a whole hy_v3 section or call, and a stray section end
_HY_CALL = r"<tool_calls>.*?</tool_calls>|<tool_call>.*?</tool_call>|</tool_calls>"
#: a whole GLM-style call (poolside_v1)
_GLM_CALL = r"<tool_call>.*?</tool_call>"


def _kept(cid: str, call: str) -> str:
    """The case's text without its calls (the whitespace after the last call goes with it)."""
    text = _TEXT[cid]
    ends = [m.end() for m in re.finditer(call, text, flags=re.DOTALL)]
    if ends and not text[ends[-1] :].strip():
        text = text[: ends[-1]]
    return re.sub(call, "", text, flags=re.DOTALL)


def _stray(cid: str, closer: str, opener: str) -> str:
    """The case's text from the misspelt ``closer`` to the ``opener`` of the call after it (kept
    as content: a call that ends without its closer)."""
    text = _TEXT[cid]
    i = text.index(closer)
    return text[i : text.index(opener, i)]


def _calls(cid: str, path: str = "batch") -> list:
    return [[n, a] for n, a in RECORDED[cid][path]["calls"]]


_HEADER = ("text_kept: a header that is not exactly 'call:NAME{' after <start_function_call> "
           "(whitespace or '>' before 'call:', a missing ':', a NAME with a '-', no '{') is no "
           "call, as vLLM's regex (batch and stream); vLLM drops its text, tito keeps it as "
           "content")
_AFTER = ("text_after_calls: the text after and between the calls is content (vLLM's batch "
          "keeps only the text before the first call)")

_FG = "functiongemma/fr_"
_KF = "kimi_k2/fr_misspelt_arg_begin_first_fixed"

_RESIDUE_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{
        f"{_FG}{name}": ({"reasoning": None, "calls": _calls(f"{_FG}{name}"),
                          "content": _kept(f"{_FG}{name}", _FG_CALL)}, _HEADER)
        for name in ("newline_before_call", "space_before_call", "gt_before_call",
                     "missing_colon", "name_hyphen", "no_brace")
    },
    f"{_FG}ws_before_end": (
        {"reasoning": None, "calls": _calls(f"{_FG}ws_before_end_fixed"),
         "content": _kept(f"{_FG}ws_before_end", _FG_CALL)},
        "call_unclosed: whitespace between the arguments' '}' and <end_function_call>: vLLM's "
        "regex (needing '}<end_function_call>') runs the call on to the next call's end and "
        "takes its members, that call lost (its stream makes each call); tito ends the call at "
        "its marker (the calls: vLLM's, of the same output without the whitespace)"),
    f"{_FG}ws_before_end_fixed": (
        {"reasoning": None, "calls": _calls(f"{_FG}ws_before_end_fixed"),
         "content": _kept(f"{_FG}ws_before_end_fixed", _FG_CALL)}, _AFTER),
    "hy_v3/fr_call_after_section_text": (
        {"reasoning": None, "calls": _calls("hy_v3/fr_call_after_section_text"),
         "content": _kept("hy_v3/fr_call_after_section_text", _HY_CALL)},
        _AFTER + "; a stray </tool_calls> after the section is dropped"),
    "kimi_k2/fr_misspelt_arg_begin_first": (
        {"reasoning": None, "calls": _calls(_KF, "stream")[1:],
         "content": _TEXT["kimi_k2/fr_misspelt_arg_begin_first"].split(
             "<|tool_call_end|>")[0] + "<|tool_call_end|>" + _TEXT[
             "kimi_k2/fr_misspelt_arg_begin_first"].split("<|tool_calls_section_end|>")[1]},
        "args_marker_broken: a call whose <|tool_call_argument_begin|> is misspelt is no call "
        "(its header meets <|tool_call_end|> first): its text is content and the next call is "
        "read; vLLM's engine reads that header on into the next call, names the call from the "
        "first id and gives it the next call's arguments, the next call lost (the calls: "
        "vLLM's stream's, of the same output spelt right, but the broken one)"),
    "kimi_k2/fr_misspelt_arg_begin_first_fixed": (
        {"reasoning": None, "calls": _calls(_KF, "stream"),
         "content": _TEXT["kimi_k2/fr_misspelt_arg_begin_first_fixed"].split(
             "<|tool_calls_section_begin|>")[0] + _TEXT[
             "kimi_k2/fr_misspelt_arg_begin_first_fixed"].split("<|tool_calls_section_end|>")[1]},
        _AFTER + "; vLLM's batch re-serializes the arguments, its stream sends the model's text, "
        "as tito (batch_reserializes: the calls are its stream's)"),
    "mistral+mistral/fr_stray_quote": (
        {**{k: RECORDED["mistral+mistral/fr_stray_quote"]["batch"][k]
            for k in ("reasoning", "content")},
         "calls": [["get_weather", _TEXT["mistral+mistral/fr_stray_quote"].split(
             "[TOOL_CALLS]get_weather", 1)[1]]]},
        "marker_in_string: tito's arguments scanner reads JSON strings, and a [TOOL_CALLS] "
        "inside one is its text (a valid string may hold it); a stray '\"' leaves a string "
        "open, so the next calls are that call's arguments, to the end of the output (not "
        "JSON); vLLM's engine splits at the token wherever it stands (it also cuts a valid "
        "string holding it and makes a call named with the string's rest)"),
    "hy_v4/fr_calls_after_section": (
        {"reasoning": None, "calls": _calls("hy_v4/fr_calls_after_section"),
         "content": _TEXT["hy_v4/fr_calls_after_section"].split("<tool_calls>")[0] + _TEXT[
             "hy_v4/fr_calls_after_section"].split("</tool_calls>", 1)[1]},
        _AFTER + " (vLLM's strict hy_v4 batch reads the first section only: the calls after it, "
        "behind a misspelt <tool_callss>, stay text; its stream reads them)"),
    "step3+step3/fr_misspelt_call_end": (
        {"reasoning": RECORDED["step3+step3/fr_misspelt_call_end"]["batch"]["reasoning"],
         "content": _TEXT["step3+step3/fr_misspelt_call_end"].split("</think>")[1].split(
             "<｜tool_calls_begin｜>")[0]
         + _stray("step3+step3/fr_misspelt_call_end", "</steptml:invoke><｜tool_call_ed｜>",
                  "<｜tool_call_begin｜>") + "Sure.",
         "calls": _calls("step3+step3/fr_misspelt_call_end_fixed")},
        "call_unclosed: a misspelt <｜tool_call_ed｜>: vLLM's batch drops that call, its stream "
        "merges the next call's parameters into it; tito ends it at the next call marker and "
        "keeps the text before it (its </steptml:invoke> and the misspelt marker: step3's call "
        "ends with both) as content (the calls: vLLM's, of the same output spelt right)"),
    "step3/fr_no_call_section": (
        {"reasoning": None, "calls": [],
         "content": _TEXT["step3/fr_no_call_section"].replace("<｜tool_calls_end｜>", "")},
        "section_end_dropped: a section that holds no call (a misspelt <｜tool__call_begin｜>): "
        "vLLM's batch makes the whole output content, the section's end marker included, its "
        "stream drops the section; tito keeps the section's text as content and drops its end "
        "marker as markup, as after a section with calls (a stream cannot know there will be "
        "no call)"),
}

_RESIDUE_DEVIATIONS.update({
    f"{_FG}misspelt_value_open_last": (
        {"reasoning": None, "calls": _calls(f"{_FG}misspelt_value_open_last"),
         "content": _kept(f"{_FG}misspelt_value_open_last", _FG_CALL)}, _AFTER),
    "gigachat3/fr_role_without_sep": (
        {"reasoning": None, "calls": _calls("gigachat3/fr_role_without_sep"),
         "content": _TEXT["gigachat3/fr_role_without_sep"].split("function call<|role_sep|>")[0]},
        "role_without_sep: the function-call role with no <|message_sep|> before it (misspelt "
        "<|message_ep|>) is a call, as vLLM's regex reads it anywhere (batch and stream); vLLM's "
        "batch content regex then finds no separator and makes the whole output content, the "
        "call's JSON included (its stream sends the text through the role); tito's content is "
        "the text before the role, the call's markup dropped as after <|message_sep|>"),
    "poolside_v1/fr_misspelt_call_end": (
        {"reasoning": None, "calls": _calls("poolside_v1/fr_misspelt_call_end_fixed"),
         "content": _kept("poolside_v1/fr_misspelt_call_end",
                          r"<tool_call>.*?(?:</tool_call>|<//tool_call>\s*$)")},
        "call_unclosed: a misspelt </tool_call> (<//tool_call>): vLLM's batch regex needs the "
        "closer and drops that call (its stream makes it, arguments \"\"); tito's call runs to "
        "the end of the output (the calls: vLLM's, of the same output spelt right)"),
    "poolside_v1/fr_misspelt_call_end_fixed": (
        {"reasoning": None, "calls": _calls("poolside_v1/fr_misspelt_call_end_fixed"),
         "content": _kept("poolside_v1/fr_misspelt_call_end_fixed", _GLM_CALL)}, _AFTER),
    "poolside_v1/fr_misspelt_call_end_text": (
        {"reasoning": None, "calls": _calls("poolside_v1/fr_misspelt_call_end_text_fixed"),
         "content": "Sure." + _stray("poolside_v1/fr_misspelt_call_end_text", "<//tool_call>",
                                     "<tool_call>") + "Done."},
        "call_unclosed: text between a call whose </tool_call> is misspelt (<//tool_call>) and "
        "the next call: vLLM loses it in both paths (its batch regex runs the broken call to the "
        "next </tool_call> and finds only the next call in it, the broken one dropped; its "
        "stream reads the text as stray text inside the call and gives the broken call the next "
        "call's arguments, the next call lost); tito ends the call at the next <tool_call> and "
        "keeps the text, the misspelt closer included, as content (the calls: vLLM's, of the "
        "same output spelt right)"),
    "poolside_v1/fr_misspelt_call_end_text_fixed": (
        {"reasoning": None, "calls": _calls("poolside_v1/fr_misspelt_call_end_text_fixed"),
         "content": _kept("poolside_v1/fr_misspelt_call_end_text_fixed", _GLM_CALL)}, _AFTER),
    "hy_v4/fr_no_call_section": (
        {"reasoning": None, "calls": [],
         "content": _TEXT["hy_v4/fr_no_call_section"].replace("</tool_calls>", "")},
        "section_end_dropped: a section that holds no call (a misspelt </tool_caall>): vLLM's "
        "strict batch makes the whole output content, the section's end marker included, its "
        "stream drops the section; tito keeps the section's text as content and drops its end "
        "marker as markup (as step3 and hy_v3)"),
})

#: cases whose arguments are not JSON in vLLM either (a stray quote, an unclosed object)
NOT_JSON = {"mistral+mistral/fr_stray_quote", "deepseek_v3+deepseek_r1/fr_unbalanced_fence"}
