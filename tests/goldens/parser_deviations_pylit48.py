"""The deliberate deviations of ``parser_cases_pylit48``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): where vLLM 0.33's batch and stream
paths disagree on a comment between calls, tito reads what Python's ``ast`` reads, which is
the path that did not trip: the stream's calls where the batch's ``TOOL_CALL_REGEX`` misses
the list, vLLM's recorded calls where the stream's bracket counting breaks. Expected results
are vLLM's own recorded ones (``RECORDED``), never tito's output copied back.
"""

from __future__ import annotations

from parser_cases import CASES

#: the stream's reading (the batch's regex spans no comment in a call without arguments, nor
#: after the last call's ``)``)
_REGEX_MISSES = ("comment_no_args", "comment_trailing_comma", "comment_after_last",
                 "later_ws_first_no_args")


def deviations(recorded: dict[str, dict]) -> dict[str, tuple[dict, str]]:
    """Case id -> (tito's result, why), from vLLM's recorded batch and stream results."""
    out: dict[str, tuple[dict, str]] = {}
    for tool in ("pythonic", "llama4_pythonic"):
        for name in _REGEX_MISSES:
            stream = recorded[f"{tool}/py48_{name}"]["stream"]
            out[f"{tool}/py48_{name}"] = (
                {"reasoning": None, "content": None, "calls": stream["calls"]},
                "a comment between calls, or whitespace in a later call's header, as Python "
                "reads it: vLLM's stream reads these calls; its batch's TOOL_CALL_REGEX, whose "
                ".* spans them only inside a call with arguments, misses the list and makes "
                "the output content")
    text = next(c["text"] for c in CASES if c["id"] == "olmo3/py48_comment_line")
    first = "get_weather(city='a')"
    out["olmo3/py48_comment_line"] = (
        {"reasoning": None, "content": text[text.index(first) + len(first):],
         "calls": recorded["olmo3/py48_comment_line"]["stream"]["calls"]},
        "olmo3's calls are lines: a comment line ends them and the rest is content (vLLM's "
        "stream stops reading there and drops it, its batch makes the whole output content)")
    return out
