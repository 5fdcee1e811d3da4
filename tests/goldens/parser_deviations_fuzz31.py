"""The deliberate deviations of ``parser_cases_fuzz31``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): case id -> (tito's result, why). Each
rule is in ``docs/conformance.md`` ("Tool and reasoning parsers") and named by the fuzzer's
classifier (``conformance/fuzz_parsers_classify.deviation``).

Nothing here is tito's output copied back: calls are vLLM's records, content the case's text
with the good calls' markup cut out.
"""

from __future__ import annotations

from parser_cases_fuzz31 import _CE, _CS, cases
from parser_deviations import RECORDED

_TEXT = {c["id"]: c["text"] for c in cases()}
_V31 = "deepseek_v31/fz31_"
_NOT_JSON = ("args_not_json: a call whose arguments do not open as a JSON object (a stray "
             "character before the '{'): vLLM's deepseek_v31 makes the call with that text as "
             "its arguments (not JSON; its stream in chunks loses them); tito never makes "
             "arguments that are not JSON: the call's text is content (with the section's "
             "opener when no call came before it; the section's closer dropped as markup)")


def _calls(cid: str, keep: slice) -> list:
    return [[n, a] for n, a in RECORDED[cid]["batch"]["calls"][keep]]


def _cut(cid: str, start: str, end: str) -> str:
    """The case's text without its part from ``start`` (included) to ``end`` (included)."""
    text = _TEXT[cid]
    i = text.index(start)
    return text[:i] + text[text.index(end, i) + len(end):]


_GOOD_FIRST = "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
_GOOD_SECOND = '<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>'

_FUZZ31_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{_V31}args_not_json": (
        {"reasoning": None, "calls": _calls(f"{_V31}args_not_json", slice(0, 1)),
         "content": _cut(f"{_V31}args_not_json", _CS, _GOOD_FIRST).replace(_CE, "")},
        _NOT_JSON),
    f"{_V31}args_not_json_first": (
        {"reasoning": None, "calls": _calls(f"{_V31}args_not_json_first", slice(1, 2)),
         "content": _cut(f"{_V31}args_not_json_first", _GOOD_SECOND, _CE)},
        _NOT_JSON),
    f"{_V31}args_not_json_only": (
        {"reasoning": None, "calls": [],
         "content": _TEXT[f"{_V31}args_not_json_only"].replace(_CE, "")},
        _NOT_JSON),
    "qwen3_coder/fz31_function_name_cut": (
        {"reasoning": None, "calls": _calls("qwen3_coder/fz31_function_name_cut", slice(1, None)),
         "content": _TEXT["qwen3_coder/fz31_function_name_cut"].split("<tool_call>")[0]},
        "markup_name: '<function=' written as text right before the section's token opens a "
        "call in vLLM's engine named with the text up to that token ('Sure.'); tito's name "
        "header must end with '>', so that text is content (as qwen3_xml/fz_function_as_text)"),
}

_MM = "minimax_m2/fz31_invoke_header_cut"
_MM_FIRST = '<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n</minimax:tool_call>'
_MM_GOOD = '<invoke name="get_weather">\n<parameter'
_AFTER = ("text_after_calls: the text after and between the sections is content (vLLM's batch "
          "keeps only the text before the first one; its stream keeps it, as tito)")
_FUZZ31_DEVIATIONS.update({
    _MM: (
        {"reasoning": None, "calls": _calls(f"{_MM}_fixed", slice(None)),
         "content": _cut(_MM, _MM_GOOD, "</invoke>").replace(_MM_FIRST, "", 1)},
        "call_unclosed: an invoke whose header lost its '>': vLLM's name runs from its quote "
        "over the markup to the next invoke's name (no tool: both calls lost, batch and "
        "stream); tito's header does not parse, so its text is content (with the section's "
        "markers around it) and the next invoke is a call (the calls: vLLM's, of the same "
        "output spelt right); " + _AFTER),
    f"{_MM}_fixed": (
        {"reasoning": None, "calls": _calls(f"{_MM}_fixed", slice(None)),
         "content": RECORDED[f"{_MM}_fixed"]["stream"]["content"]}, _AFTER),
})
