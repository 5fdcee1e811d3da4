"""The deliberate deviations of ``parser_cases_muse46``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built from vLLM's records and the cases'
own text (never tito's output copied back); each rule is muse's in ``docs/conformance.md``.
"""

from __future__ import annotations

import parser_cases_muse as _muse
from parser_deviations import _MUSE_STREAM, _stream_of

_PIECES = {"eom": "<|eom|", "e": "<|e", "lt": "<"}

_MUSE46_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "muse+muse/mu46_name_unquoted_to_end": (
        {"reasoning": "think",
         "content": _muse.calls('<atem:invoke name="get_weather>\n</atem:invoke>\n') + "ok",
         "calls": []},
        "text_kept: an invoke vLLM finds no name in (its name's quote missing up to the "
        "invoke's end) is no call and its tool channel's text is content (text_after_calls); "
        "vLLM's batch makes the framed output content, its stream drops the text"),
    "muse/mu46_key_unquoted": (_stream_of("muse/mu46_key_unquoted"), _MUSE_STREAM),
    **{f"{tool}/mu46_tail_{k}": (
        {**_stream_of(f"{tool}/mu46_tail_{k}"), "reasoning": "Let me check." + piece},
        _MUSE_STREAM + ", but a piece of a marker ending a body that the next header ends is "
        "kept, as vLLM's composed parsers keep it (its tool parser alone's stream holds it back "
        "as a marker's start and never sends it: the body is never closed)")
       for tool in ("muse", "muse_glimmer") for k, piece in _PIECES.items()},
}
