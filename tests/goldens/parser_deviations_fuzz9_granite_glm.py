"""The deliberate deviations (``parser_cases_fuzz9_granite_glm``'s cases; data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): case id -> (tito's result, why). Each
reason is also in ``docs/conformance.md`` ("Tool and reasoning parsers"); the fuzzer's
classifier (``conformance/fuzz_parsers.deviation``) names them ``text_kept`` /
``text_after_calls``, ``batch_reserializes`` and ``value_kept``.

Where tito's calls are vLLM's, they are taken from vLLM's record; the text tito keeps is cut
from the case's own text, so nothing here is tito's output copied back.
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import cases
from parser_deviations import RECORDED

_TEXT = {c["id"]: c["text"] for c in cases()}


def _cut(cid: str, start: str, end: str | None = None) -> str:
    """The case's text from ``start`` up to ``end`` (to its end when None)."""
    text = _TEXT[cid]
    i = text.index(start)
    return text[i:] if end is None else text[i : text.index(end, i)]


def _calls(cid: str) -> list:
    return [[n, a] for n, a in RECORDED[cid]["batch"]["calls"]]


_SKIPPED = ("text_kept: a list element that is no call (no \"name\", a missing ':', cut) is "
            "dropped by vLLM's array splitter, batch and stream, and the list goes on; tito "
            "goes on too and keeps the element's text as content (text is never lost)")
_TYPED = ("batch_reserializes: vLLM's batch types the values from the tool's schema "
          "(_fix_arg_types: \"42\" for an integer is 42, \"null\" for a nullable string is null, "
          "0 in a list of strings is \"0\") and re-serializes the arguments; its stream does only "
          "while the bytes it sent stay a prefix, then stops sending them (granite/fuzz9_typed_values: "
          "the arguments end at '\"tags\": '). tito sends the model's text in both")
_G, _GG = "granite/fuzz9_", "granite+granite/fuzz9_"
_GW = "{\"name\": \"get_weather\", \"arguments\": "

_FUZZ9_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{_G}element_no_colon": (
        {"reasoning": None, "calls": _calls(f"{_G}element_no_colon"),
         "content": "Let me check that for you."
         + _cut(f"{_G}element_no_colon", '{"name" "not_a_tool"', ", " + _GW + '{"note"')},
        _SKIPPED),
    f"{_G}element_no_name": (
        {"reasoning": None, "calls": _calls(f"{_G}element_no_name"),
         "content": "Hi " + _cut(f"{_G}element_no_name", '{"namme"', ', {"name": "get_time"')},
        _SKIPPED),
    f"{_G}first_element_no_name": (
        {"reasoning": None, "calls": _calls(f"{_G}first_element_no_name"),
         "content": '{"arguments": {}}'},
        _SKIPPED + " (the marker and '[' stay markup)"),
    f"{_G}element_cut": (
        {"reasoning": None, "calls": _calls(f"{_G}element_cut"),
         "content": "Hi " + _cut(f"{_G}element_cut", '{"name" "x"')},
        _SKIPPED + " (here the end of the output cuts the element)"),
    f"{_G}element_marker": (
        {"reasoning": None, "calls": _calls(f"{_G}element_marker"),
         "content": "Hi " + _cut(f"{_G}element_marker", '{"name" "x"', "<|tool_call|>[{")},
        _SKIPPED + "; a marker outside strings ends the element and a new list starts"),
    f"{_GG}element_no_name": (
        {"reasoning": "ok\n\n", "calls": _calls(f"{_GG}element_no_name"),
         "content": "  " + _cut(f"{_GG}element_no_name", '{"namme"', ', {"name": "not_a_tool"')
         + "Here you go:"},
        _SKIPPED + "; text_after_calls: the text after the list is content too (vLLM drops "
        "it); vLLM's stream here makes the whole answer content"),
    **{f"{g}list_no_call": (
        {"reasoning": None, "calls": [],
         "content": "Hi " + _cut(f"{g}list_no_call", '{"namee"', "] bye").replace("}, {", "}{")
         + " bye"},
        "list_markup: a list whose elements are all no call: tito keeps the elements' text as "
        "content, without the list's markup (<tool_call>, '[', ',', ']'); vLLM's tool parser "
        "drops the list, text and all ('Hi  bye'), and composed with granite's reasoning "
        "parser it gives the whole text, markup included (batch and stream)")
       for g in (_G, _GG)},
    f"{_G}typed_values": (
        {"reasoning": None, "content": "I'll look it up.\nI'll look it up.\n",
         "calls": [["search", _cut(f"{_G}typed_values", '{"query"', "}, {")],
                   ["get_weather", _cut(f"{_G}typed_values", '{"note"', "}]I'll")]]},
        _TYPED + "; text_after_calls: the text after the list is content (vLLM drops it)"),
    f"{_GG}typed_values": (
        {"reasoning": "  spaced thought  ", "content": "OK\n",
         "calls": [["get_weather", _cut(f"{_GG}typed_values", '{\n  "options"', "}]OK")],
                   ["get_weather", _cut(f"{_GG}typed_values", '{"detailed"', "}]")]]},
        _TYPED + "; text_after_calls: the text between the lists is content (vLLM drops it); "
        "vLLM's stream here makes the whole answer content"),
    "step3/fuzz9_misspelt_param_close": (
        {"reasoning": None, "content": "好的，我来查一下。OKResult below 🎉",
         "calls": [
             ["get_weather", '{"note": "null", "city": "back\\\\slash", "tags": '
              '"[0, \\"\\\\\\\\u00e9 literal\\"]</steptml:paraeter></steptml:invoke>"}'],
             ["get_weather", '{"options": "{\\"x y\\": [false, \\"a, b; c\\", 3]}", '
              '"detailed": true, "city": "say \\"hi\\""}']]},
        "value_kept: a parameter whose </steptml:parameter> is misspelt runs to the call's end "
        "and is kept as text (vLLM drops it, batch and stream); text_after_calls: vLLM reads one "
        "section, the second is content; tito reads every section"),
    "glm45+glm45/fuzz9_misspelt_value_open": (
        {"reasoning": "  spaced thought", "content": "Here you go:Done!",
         "calls": _calls("glm45+glm45/fuzz9_misspelt_value_open")},
        "text_after_calls: the text after the last call is content (vLLM's batch drops it, its "
        "stream keeps it with the newline between the calls, which tito drops as a gap)"),
}
