"""The deliberate deviations of ``parser_cases_fuzz51``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), written from the cases' own text,
never tito's output copied back.
"""

from __future__ import annotations

_FUZZ51_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "inkling+inkling/fz51_thinking_in_call_text": (
        {"reasoning": None, "content": "Done.", "calls": []},
        "reopen_after_call: a thinking block opened inside a tool block whose body is no JSON: "
        "vLLM's batch reasoning pass reads the tool block as text and reopens reasoning there, "
        "its framing markers and the answer in it; its stream drops the broken block, as tito"),
    "inkling+inkling/fz51_thinking_in_call_text_after_reasoning": (
        {"reasoning": "Let me check.", "content": "Done.", "calls": []},
        "reopen_after_call: as fz51_thinking_in_call_text, after a closed thinking block: "
        "vLLM's batch appends the reopened block (markup and answer) to the reasoning"),
}
