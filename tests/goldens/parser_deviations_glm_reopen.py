"""Deliberate deviations of the GLM call-reopen cases (``parser_cases._glm_call_reopen``; data
for ``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): case id -> (tito's result, why).

GLM's grammar returns to the content at a call's ``</tool_call>``, where ``<think>`` opens the
block again: tito now matches vLLM 0.33's batch and stream there (the reasoning ``"ab"``). What
remains is the documented ``text_after_calls``: the content after the calls, which vLLM's
batch drops and its stream sends (recorded in ``parsers_vllm.json``'s ``stream``), is content
in tito's batch as in its stream.
"""

from __future__ import annotations

_CALL = ["get_weather", '{"city": "Rome"}']
_WHY = ("text_after_calls: the content after the calls (and after the block they reopened) is "
        "content, as vLLM's stream sends it; vLLM's batch keeps only the text before the "
        "first call")

_GLM_REOPEN_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{name}+{name}/glmcall_{cid}": ({"reasoning": "ab", "content": content,
                                       "calls": [_CALL] * calls}, _WHY)
    for name in ("glm45", "glm47", "ling3")
    for cid, content, calls in (("call_reopen", "c", 1), ("call_reopen_implicit", "c", 1),
                                ("call_reopen_two_calls", "d", 2))
}
