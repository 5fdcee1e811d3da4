"""issue 10's hunyuan_a13b reasoning cases: blocks that do not close (``parser_cases.CASES``
includes them).

vLLM 0.33's ``HunyuanA13BReasoningParser`` reads its batch with two regexes (a block is
``<think>\\n`` ... ``\\n</think>\\n<answer>\\n``; any output without that closer, or with an
``\\n</answer>`` before it, is content as written) and its stream with a token-id state machine
over *Hunyuan's own* ids (hardcoded in the class: ``<think>\\n`` is 14023 771 397). The goldens'
tokenizer (Qwen3's) has other ids, so ``record_parsers.py``'s stream of these cases says
nothing; ``record_hunyuan_stream.py`` runs the stream class on Hunyuan's ids
(``hunyuan_stream_vllm.json``) and ``parser_deviations._HUNYUAN_DEVIATIONS`` holds tito to it
where tito follows the stream (``granite_unclosed``).
"""

from __future__ import annotations

#: case id -> output text (reasoning parser only; the composed case below adds the tool parser)
TEXTS = {
    "closed": "<think>\nreason\n</think>\n<answer>\nThe answer\n</answer>",
    "unclosed": "<think>\nunfinished",
    "unclosed_text_before": "hello <think>\nunfinished",
    "unclosed_answer_end": "<think>\nreason\n</answer>",
    "unclosed_no_answer_tag": "<think>\nreason\n</think>\nanswer\n</answer>",
    "unclosed_cut_in_end": "<think>\nreason\n</think>\n",
    "unclosed_start_only": "<think>\n",
    "unclosed_blank_line": "<think>\n\nreason",
    "closed_blank_line": "<think>\n\nreason\n</think>\n<answer>\nans\n</answer>",
}

_CALL = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>'
_TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def cases() -> list[dict]:
    out = [{"id": f"hunyuan_a13b/reasoning_{cid}", "tool": None, "reasoning": "hunyuan_a13b",
            "tools": [], "text": text} for cid, text in TEXTS.items()]
    out.append({"id": "hunyuan_a13b+hunyuan_a13b/unclosed_call", "tool": "hunyuan_a13b",
                "reasoning": "hunyuan_a13b", "tools": _TOOLS,
                "text": f"<think>\nI will call.\n{_CALL}"})
    return out
