"""The deliberate deviations of ``parser_cases_fuzz38``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_cases_fuzz38 import cases
from parser_deviations import RECORDED, _stream_of, text_between, vllm_calls

_TEXT = {c["id"]: c["text"] for c in cases()}


def _between(cid: str, start: str, end: str) -> str:
    """The case's text from ``start`` (included) to ``end`` after it (excluded)."""
    return text_between(_TEXT[cid], start, end)


_DS = "dots/fz38_spaced_name"
_MT, _MC = "muse/fz38_message_as_text", "muse+muse/fz38_message_as_text"
#: the text outside any message: before the first <|message|>, after the last <|eom|>
_M_OUTSIDE = _TEXT[_MT].split("<|message|>", 1)[0] + _TEXT[_MT].rsplit("<|eom|>", 1)[1]

_FUZZ38_DEVIATIONS: dict[str, tuple[dict, str]] = {
    _DS: (
        {"reasoning": None, "calls": vllm_calls(_DS),
         "content": _stream_of(_DS)["content"].replace(
             "Here you go:", _between(_DS, '\n<invoke name="not_a_tool">',
                                      '\n<invoke name="get_time">') + "\nHere you go:")},
        "the call is vLLM's (batch and stream: a quoted name keeps the spaces inside its quotes, "
        "so \" get_time\" names no tool); the content keeps what vLLM drops: the first block's "
        "invoke of no tool (vLLM's stream keeps it, a block without a call being content), the "
        "unknown tool's invoke in the second block (unknown_tool_text: vLLM drops it, both "
        "paths) and the text after the blocks (text_after_calls: vLLM's stream keeps it)"),
    _DS + "_then_call": (
        {"reasoning": None, "calls": vllm_calls(_DS + "_then_call"),
         "content": _between(_DS + "_then_call", "<invoke", '<invoke name="get_weather">')},
        "unknown_tool_text: \"get_time \" (a space inside the quotes) names no tool, as in "
        "vLLM (batch and stream), which drops its invoke in a block with a call; tito keeps its "
        "text as content"),
    "minimax_m2/fz38_name_open_quote_dropped": (
        _stream_of("minimax_m2/fz38_name_open_quote_dropped"),
        "text_after_calls: the text after the section is content (vLLM's stream keeps it, its "
        "batch drops it); the call is vLLM's (both paths)"),
    **{f"minimax_m2/fz38_name_quotes_{k}": (
        {"reasoning": None, "calls": [],
         "content": _TEXT[f"minimax_m2/fz38_name_quotes_{k}"]},
        "unknown_tool_text: a quote not right after name= or right before '>' stays in the name, "
        "no tool, as in vLLM (batch and stream), which drops the invoke; tito keeps it as "
        "content, and with it the section that holds no call")
       for k in ("spaced_quotes", "space_before_gt")},
    _MT: (
        {"reasoning": RECORDED[_MC]["batch"]["reasoning"], "calls": vllm_calls(_MT),
         "content": _M_OUTSIDE},
        "the tool parser alone: a header without <|eom|> ends the reasoning message that a "
        "<|message|> written in the text opened, and the spaces before it are the reasoning's, "
        "as vLLM's composed parsers give them (batch and stream, muse+muse/fz38_message_as_text) "
        "and its reasoning parser alone; vLLM's tool parser alone gives no reasoning in its "
        "batch, and its stream gives them to the header or, one token per delta, leaks its "
        "held-back \" to\" (muse/no_eom_before_header); the text outside any message is content "
        "(text_kept: vLLM drops it)"),
    _MC: (
        {"reasoning": RECORDED[_MC]["batch"]["reasoning"], "calls": vllm_calls(_MC),
         "content": _M_OUTSIDE},
        "text_kept: the text outside any message (before the first <|message|>, after the last "
        "<|eom|>) is content; vLLM drops it when a header follows (batch and stream)"),
}
