"""The deliberate deviations of ``parser_cases_fuzz45``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_cases_fuzz45 import PLAMO_PIECE

_PIECE = "<|plamo:end_"
_TAG = "<|plamo:tag|>"

_FUZZ45_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "plamo3+plamo3/fz45_piece_then_same_piece_at_end": (
        {"reasoning": _PIECE, "content": PLAMO_PIECE[len(_PIECE + _TAG) : -len(_PIECE)],
         "calls": []},
        "follows_vllm_stream: a marker piece before <|plamo:tag|> is reasoning text, as vLLM's "
        "stream gives it (its batch strips the reasoning's tail as a cut marker wherever the "
        "reasoning ended; a stream sent the piece before the tag came); the output ending with "
        "the same piece does not make the reasoning's piece a cut marker (ws sweep --pairs "
        "seed 68: tito's batch dropped it, its stream kept it)"),
}
