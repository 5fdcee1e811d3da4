"""The deliberate deviations of ``parser_cases_fuzz39``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_cases_fuzz39 import cases
from parser_deviations import RECORDED, _stream_of

_TEXT = {c["id"]: c["text"] for c in cases()}
_G = "gigachat3/fz39_misspelt_sep_args_ws"

_FUZZ39_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{cid: (
        _stream_of(cid),
        "text_kept: kimi_k3's block is open from the output's start, so the text before a "
        "written <|open|>think<|sep|> is reasoning (the opener dropped), as vLLM's stream sends "
        "it one token per delta; vLLM's batch starts the reasoning after the opener and drops "
        "the text before it (deepseek_r1's and hy_v4's <think> alike)")
       for cid in ("kimi_k3+kimi_k3/fz39_text_before_open", "kimi_k3/fz39_reasoning_text_before_open",
                   "kimi_k3/fz39_reasoning_text_before_empty_block")},
    _G: (
        {"reasoning": None, "calls": [[n, a] for n, a in RECORDED[_G]["stream"]["calls"]],
         "content": _TEXT[_G].split("function call<|role_sep|>")[0]},
        "batch_reserializes + role_without_sep: the arguments as the model wrote them (vLLM's "
        "stream; its batch re-serializes them with json.dumps); a misspelt <|message_sep|>: "
        "vLLM's batch makes the whole output content, its stream the text through the role, "
        "tito's content is the text before the role"),
    "gigachat3/fz39_args_ws": (
        _stream_of("gigachat3/fz39_args_ws"),
        "batch_reserializes: the arguments as the model wrote them (vLLM's stream; its batch "
        "re-serializes them with json.dumps)"),
}
