"""The deliberate deviations of ``parser_cases_fuzz39``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_deviations import _stream_of

_FUZZ39_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{cid: (
        _stream_of(cid),
        "text_kept: kimi_k3's block is open from the output's start, so the text before a "
        "written <|open|>think<|sep|> is reasoning (the opener dropped), as vLLM's stream sends "
        "it one token per delta; vLLM's batch starts the reasoning after the opener and drops "
        "the text before it (deepseek_r1's and hy_v4's <think> alike)")
       for cid in ("kimi_k3+kimi_k3/fz39_text_before_open", "kimi_k3/fz39_reasoning_text_before_open",
                   "kimi_k3/fz39_reasoning_text_before_empty_block")},
}
