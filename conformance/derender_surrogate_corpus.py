"""A tool call whose arguments hold a lone surrogate escape (groups
``derender_lone_surrogate``, batch, and ``stream_lone_surrogate``, streams).

Why: the derender fuzzer's seed 435 (``--show mistral-v3-hf:443:5``) found vLLM 0.33's batch
answering 400 ("'utf-8' codec can't encode character '\\ud83c' in position N: surrogates not
allowed") where tito answered 200. vLLM's batch parsers (hermes, mistral) re-serialize a call's
arguments with ``json.dumps(ensure_ascii=False)``, which writes the lone surrogate a
``\\ud83c`` escape decodes to as a raw character; its UTF-8 response cannot carry it. Its
stream sends the model's text (200, the escape as written), as tito does in batch and stream
(the ``tool_call_escaped_args`` deviation): a deliberate deviation, recorded here so the
replay shows both. Cases: a lone high surrogate (before text, at the string's end, before another escape), a lone
low one, a reversed pair, and a pair (vLLM's batch: the character), on qwen3 (hermes) and
mistral-v3 (its ``[TOOL_CALLS]`` list).
"""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import derender_batch, derender_stream, ids

_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
#: the city the model writes (JSON string escapes, as written)
_CITIES = {"lone_high": "\\ud83c x", "lone_low": "\\udf38", "pair": "\\ud83c\\udf38 x",
           "lone_high_end": "\\ud83c", "lone_high_then_escape": "\\ud83c\\u00e9",
           "lone_reversed": "\\udf38\\ud83c"}
#: server -> (ids before the call text, the call text with {city}, ids after)
_MODELS: dict[str, tuple[list[int], str, list[int]]] = {
    "qwen3": ([], '<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{city}"}}}}'
              "\n</tool_call>", [151645]),
    "mistral-v3": ([5], ' [{{"name": "get_weather", "arguments": {{"city": "{city}"}}}}]', [2]),
}


def _ids(server: str, city: str) -> list[int]:
    pre, text, post = _MODELS[server]
    return pre + ids(text.format(city=_CITIES[city]), server) + post


def _case(server: str, city: str) -> tuple[str, str, dict[str, Any]]:
    choice = {"index": 0, "token_ids": _ids(server, city), "finish_reason": "stop"}
    return derender_batch(server, True, {"tools": [_WEATHER]}, [choice])


def _stream(server: str, city: str) -> tuple[str, str, str, dict[str, Any], list[int],
                                              list[dict[str, Any]]]:
    token_ids = _ids(server, city)
    parts = [token_ids[:5], token_ids[5:12], token_ids[12:]]
    chunks = [{"request_id": "r", "choices": [{
        "index": 0, "token_ids": part, "finish_reason": "stop" if k == 2 else None}]}
        for k, part in enumerate(parts)]
    return derender_stream(server, True, {"tools": [_WEATHER]}, chunks)


#: names start with the deviation's tag (``deviations_derender``: tool_call_escaped_args*)
DERENDER_LONE_SURROGATE = {f"tool_call_escaped_args_{city}_{server.replace('-', '_')}":
                           _case(server, city) for server in _MODELS for city in _CITIES}
STREAM_LONE_SURROGATE = {f"tool_call_escaped_args_{city}_{server.replace('-', '_')}":
                         _stream(server, city) for server in _MODELS for city in _CITIES}
