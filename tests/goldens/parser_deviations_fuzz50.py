"""The deliberate deviations of ``parser_cases_fuzz50``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), written from the cases' own text,
never tito's output copied back.
"""

from __future__ import annotations

from parser_cases_fuzz50 import _DSML_FORMATS, DSML_NAMES, dsml_text

_FUZZ50_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{tool}/fz50_{key}": (
        {"reasoning": None, "content": dsml_text(tool, name), "calls": []},
        "text_kept: an invoke whose name is not in double quotes right after `name=` is no "
        "call, as in vLLM (its prefix is `name=\"`); vLLM drops the section's text, tito keeps "
        "it as content")
    for tool in _DSML_FORMATS for key, name in DSML_NAMES.items()
}
