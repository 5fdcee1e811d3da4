"""The deliberate deviations of ``parser_cases_fuzz44``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_cases_fuzz44 import TEXT_OPENS_BLOCK

_FUZZ44_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "olmo3/fz44_text_opens_block": (
        {"reasoning": None, "content": TEXT_OPENS_BLOCK, "calls": []},
        "start_only: text before <function_calls> (a stray '<', parser fuzz seed 132) makes "
        "the output content, its block too, as vLLM's stream reads olmo3's block only when it "
        "opens the output (its stream here makes no call and no content; its batch reads the "
        "block anywhere and drops the text before it)"),
}
