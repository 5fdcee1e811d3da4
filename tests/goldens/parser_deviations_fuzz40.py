"""The deliberate deviations of ``parser_cases_fuzz40``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), built as ``parser_deviations_fuzz36``'s
are (its docstring: vLLM's records and the cases' own text, never tito's output copied back);
each rule named in ``docs/conformance.md`` and by the fuzzer's classifier.
"""

from __future__ import annotations

from parser_deviations import _stream_of

_A = '{"city": "Paris"}'
_UNCLOSED = (
    "call_unclosed: a closer vLLM's regex does not accept (\\n```<｜tool▁call▁end｜> written "
    "otherwise) makes vLLM's batch run the call on to the next call's closer, taking its text "
    "(not JSON); tito ends the call there, the whitespace after the JSON the arguments' but for a "
    "newline the closing fence follows (vLLM's stream ends it there too, "
)


def _two(first_args: str) -> dict:
    return {"reasoning": None, "content": None,
            "calls": [["get_weather", first_args], ["get_time", _A]]}


_FUZZ40_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{f"deepseek_v3/fz40_args_ws_{k}": (_stream_of(f"deepseek_v3/fz40_args_ws_{k}"),
                                         _UNCLOSED + "as tito)")
       for k in ("no_fence", "fence_same_line")},
    "deepseek_v3/fz40_args_ws_newline_no_fence": (
        _two(_A + "\n"), _UNCLOSED + "its trailing newline dropped)"),
    "deepseek_v3/fz40_args_ws_fence_then_space": (
        _two(_A + "   "), _UNCLOSED + "the fence and the space after it its arguments', not JSON)"),
    "deepseek_v3/fz40_args_ws_fence_long_space": (
        _two(_A), _UNCLOSED + "the fence and the spaces after it its arguments', not JSON)"),
}
