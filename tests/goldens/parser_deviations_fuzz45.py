"""The deliberate deviations of ``parser_cases_fuzz45``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_cases_fuzz45 import PLAMO_PIECE
from parser_deviations import RECORDED


def _calls(case_id: str) -> list:
    return RECORDED[case_id]["batch"]["calls"] if case_id in RECORDED else []


_DOTS_KEPT = ("text_kept: stray text in a dots block after a call (and an unknown tool's invoke) "
              "is content and the block goes on, its later invokes calls as vLLM's (its regex "
              "finds every invoke in the block; its batch keeps only the text before the first "
              "block, its stream drops that text)")

_PIECE = "<|plamo:end_"
_TAG = "<|plamo:tag|>"

_FUZZ45_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "dots/fz45_text_between_invokes": (
        {"reasoning": None, "content": "\nhello ",
         "calls": _calls("dots/fz45_text_between_invokes")}, _DOTS_KEPT),
    "dots/fz45_text_between_unknown": (
        {"reasoning": None, "content": ' hi <invoke name="nope">\n</invoke> ',
         "calls": _calls("dots/fz45_text_between_unknown")}, _DOTS_KEPT),
    "plamo3+plamo3/fz45_piece_then_same_piece_at_end": (
        {"reasoning": _PIECE, "content": PLAMO_PIECE[len(_PIECE + _TAG) : -len(_PIECE)],
         "calls": []},
        "follows_vllm_stream: a marker piece before <|plamo:tag|> is reasoning text, as vLLM's "
        "stream gives it (its batch strips the reasoning's tail as a cut marker wherever the "
        "reasoning ended; a stream sent the piece before the tag came); the output ending with "
        "the same piece does not make the reasoning's piece a cut marker (ws sweep --pairs "
        "seed 68: tito's batch dropped it, its stream kept it)"),
}
