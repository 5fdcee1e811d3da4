"""The deliberate deviations of ``parser_cases_pylit49``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): a name Python's identifiers refuse in
a later call (``a²``) makes vLLM's batch return the whole output as content (its ``ast`` fails)
and its stream keep the calls before it; tito keeps them too and makes the text from the
refused call on content (the family's rule for any part that is not a literal). Expected calls
are vLLM's own recorded stream ones (``RECORDED``), never tito's output copied back.
"""

from __future__ import annotations

from parser_cases import CASES


def deviations(recorded: dict[str, dict]) -> dict[str, tuple[dict, str]]:
    """Case id -> (tito's result, why), from vLLM's recorded stream results."""
    out: dict[str, tuple[dict, str]] = {}
    for tool in ("pythonic", "llama4_pythonic", "lfm2"):
        cid = f"{tool}/py49_ident_not_python"
        text = next(c["text"] for c in CASES if c["id"] == cid)
        out[cid] = (
            {"reasoning": None, "content": text[text.index(", get_time("):],
             "calls": recorded[cid]["stream"]["calls"]},
            "a keyword Python's identifiers refuse (a²) in a later call: the calls before it "
            "are kept (vLLM's stream keeps them too) and the text from there is content; vLLM's "
            "batch makes the whole output content")
    return out
