"""The deliberate deviations of ``parser_cases_fuzz48``'s cases (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`), written from the cases' own text,
never tito's output copied back.
"""

from __future__ import annotations

_FUZZ48_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{tool}/fz48_key_unclosed": (
        {"reasoning": None, "content": None,
         "calls": [["get_weather", '{"city": "Paris", "days": "3"}']]},
        "markup_key: a key header that lost its `>` (`<parameter=detailed\\nfalse\\n</parameter>`): "
        "vLLM's regex reads the key on to the next `>`, its closer's, a key of markup with the "
        "value \"\"; tito drops the bad header and reads the next parameter (a key never holds "
        "markup)")
    for tool in ("qwen3_xml", "qwen3_coder")
}
