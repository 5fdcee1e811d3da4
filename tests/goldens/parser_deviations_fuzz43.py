"""The deliberate deviations of ``parser_cases_fuzz43``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_deviations import _stream_of

_MISSPELT = (
    "truncated_call: an invoke whose closer is misspelt (<atem:invoke>) is a call of what came, "
    "ended by its channel, its text after the last parameter content (text_kept); vLLM's "
    "(batch and stream) runs on into the next tool channel, skipping its invoke opener and "
    "taking its parameters into one call, ")
_GLIMMER_EOM = (
    "glimmer_start_in_reasoning + follows_vllm_stream: a to=self message whose <|eom|> is misspelt ends at the next <|start|> (vLLM's Glimmer "
    "tool parser's segmentation, its stream alone: this reasoning); vLLM's Glimmer reasoning "
    "parser reads the body on to the next to=NAME<|message|>, so its composed stream puts the "
    "<|start|>assistant framing into the reasoning (and, with no space before to=, the "
    "recipient too) and its batch reads the reasoning on over the call (no call); tito never "
    "writes framing into reasoning")

_FUZZ43_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{f"{p}/fz43_misspelt_closer_next_channel": (
        {"reasoning": None, "content": "<atem:invoke>\n</atem:function_calls>",
         "calls": [["run", '{"code": "x"}'], ["get_weather", '{"city": "Paris"}']]},
        _MISSPELT + "run's code and get_weather's city")
       for p in ("muse", "muse+muse")},
    **{f"{p}/fz43_misspelt_closer_then_answer": (
        {"reasoning": None, "content": "<atem:invoke>\n</atem:function_calls>ok",
         "calls": [["run", '{"code": "x"}']]},
        _MISSPELT + "and with no closer after it makes no call (its stream: content ok, its "
        "batch the whole framed output)")
       for p in ("muse", "muse+muse")},
    **{f"muse_glimmer/fz43_misspelt_eom{k}": (
        _stream_of(f"muse_glimmer/fz43_misspelt_eom{k}"),
        "follows_vllm_stream: the tool parser alone routes as vLLM's stream (its batch drops "
        "the reasoning)") for k in ("", "_no_space")},
    **{f"muse_glimmer+muse_glimmer/fz43_misspelt_eom{k}": (
        {"reasoning": "Let me check.<||eom|>", "content": None,
         "calls": _stream_of(f"muse_glimmer+muse_glimmer/fz43_misspelt_eom{k}")["calls"]},
        _GLIMMER_EOM) for k in ("", "_no_space")},
}

_FUZZ43_DEVIATIONS["lfm2/fz43_nested_quote_ambiguous"] = (
    {"reasoning": None, "content": None,
     "calls": [["get_weather", '{"city": "a\'b", "code": "c"}']]},
    "batch_whole_text: nested quotes with two closing quotes after which the block parses "
    "(after b and after c): vLLM's requote repair gives up and its batch makes the whole output "
    "content (its stream sends the call cut in its string); tito takes the first quote followed "
    "by a closer, as the stream reads it")

_FUZZ43_DEVIATIONS["step5+step5/fz43_cut_bare_opener"] = (
    _stream_of("step5+step5/fz43_cut_bare_opener"),
    "follows_vllm_stream: an output ending in a bare <function= (a header the end cut before "
    "any name): vLLM's composed batch keeps it as content, its stream (and its tool parser "
    "alone, batch and stream) drops it; tito drops the cut markup, as for every cut header")
