"""The ``render_json_values`` group: render bodies holding values JSON itself has not (``NaN``,
``Infinity``, which Python's ``json`` reads) or nested deep, on every render route.

What vLLM 0.33 does with them, measured: on gpt-oss a tool's ``parameters`` go through
openai-harmony's conversation JSON (``serde_json``: no ``NaN``, at most 127 levels, the
parameters at the tenth), so a non-finite number there or parameters nested past 118 levels is a
400 on chat, Responses, Messages and ``/tokenize``; elsewhere (a constraint's schema,
``logit_bias``, ``kv_transfer_params``, qwen3's tools) a non-finite number is written ``null``
in the answer. A chat or Messages render's ``parse_context`` validates its template kwargs as
pydantic ``JsonValue`` s, which stop at 254 nested containers (400); the Responses render and
``/tokenize`` build none. Depths stay well under the fuzzers' own recursion (``fuzz_hard``
mutates these requests too).
"""

from __future__ import annotations

from typing import Any

CHAT_R, RESPONSES_R, MESSAGES_R = ("/v1/chat/completions/render", "/v1/responses/render",
                                   "/v1/messages/render")
NAN, INF = float("nan"), float("inf")
HI = [{"role": "user", "content": "Hi"}]


def deep(levels: int, leaf: Any = 1) -> Any:
    """``leaf`` inside ``levels`` containers, lists and objects in turn."""
    value = leaf
    for i in range(levels):
        value = {"a": value} if i % 2 else [value]
    return value


def _params(extra: Any) -> dict[str, Any]:
    """Tool parameters one level above ``extra`` (so their depth is 1 + ``extra``'s)."""
    return {"type": "object", "properties": {"city": {"type": "string"}}, "y": extra}


def _chat_tool(model: str, extra: Any, **more: Any) -> dict[str, Any]:
    return {"model": model, "messages": HI, "tools": [{"type": "function", "function": {
        "name": "get_weather", "description": "Weather", "parameters": _params(extra)}}], **more}


def _cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    g = "gpt-oss"
    out: dict[str, tuple[str, str, dict[str, Any]]] = {
        "gptoss_tool_nan": (g, CHAT_R, _chat_tool(g, NAN)),
        "gptoss_tool_neg_inf": (g, CHAT_R, _chat_tool(g, [1, -INF])),
        "gptoss_tool_nan_required": (g, CHAT_R, _chat_tool(g, {"default": NAN},
                                                           tool_choice="required")),
        "gptoss_tool_depth_118": (g, CHAT_R, _chat_tool(g, deep(117))),
        "gptoss_tool_depth_119": (g, CHAT_R, _chat_tool(g, deep(118))),
        "gptoss_tool_depth_119_nan": (g, CHAT_R, _chat_tool(g, deep(118, NAN))),
        "gptoss_tokenize_tool_inf": (g, "/tokenize", _chat_tool(g, INF)),
        "gptoss_responses_tool_nan": (g, RESPONSES_R, {"model": g, "input": "Hi", "tools": [
            {"type": "function", "name": "get_weather", "parameters": _params(NAN)}]}),
        "gptoss_responses_tool_depth_119": (g, RESPONSES_R, {"model": g, "input": "Hi", "tools": [
            {"type": "function", "name": "get_weather", "parameters": _params(deep(118))}]}),
        "gptoss_messages_tool_inf": (g, MESSAGES_R, {
            "model": g, "max_tokens": 64, "messages": HI,
            "tools": [{"name": "get_weather", "input_schema": _params(INF)}]}),
        "gptoss_response_format_nan": (g, CHAT_R, {
            "model": g, "messages": HI, "response_format": {"type": "json_schema", "json_schema": {
                "name": "s", "schema": {"type": "number", "maximum": NAN}}}}),
        "gptoss_call_arguments_nan": (g, CHAT_R, {"model": g, "messages": [
            *HI, {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_weather", "arguments": '{"x": NaN}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "1"}]}),
        "gptoss_completions_kv_nan": (g, "/v1/completions/render", {
            "model": g, "prompt": "Hi", "kv_transfer_params": {"x": NAN, "y": [1, INF]},
            "structured_outputs": {"json": {"type": "number", "maximum": -INF}}}),
    }
    q = "qwen3"
    out.update({
        "qwen3_tool_nan": (q, CHAT_R, _chat_tool(q, NAN)),
        "qwen3_tool_depth_200_nan": (q, CHAT_R, _chat_tool(q, deep(200, NAN))),
        "qwen3_logit_bias_inf": (q, CHAT_R, {"model": q, "messages": HI,
                                             "logit_bias": {"9707": INF, "0": NAN}}),
        "qwen3_kwargs_nan": (q, CHAT_R, {"model": q, "messages": HI,
                                         "chat_template_kwargs": {"x": NAN}}),
        "qwen3_kwargs_depth_254": (q, CHAT_R, {"model": q, "messages": HI,
                                               "chat_template_kwargs": {"x": deep(254)}}),
        "qwen3_kwargs_depth_255": (q, CHAT_R, {"model": q, "messages": HI,
                                               "chat_template_kwargs": {"x": deep(255)}}),
        "qwen3_messages_kwargs_depth_255": (q, MESSAGES_R, {
            "model": q, "max_tokens": 64, "messages": HI, "chat_template_kwargs": {"x": deep(255)}}),
        "qwen3_responses_kwargs_depth_255": (q, RESPONSES_R, {
            "model": q, "input": "Hi", "chat_template_kwargs": {"x": deep(255)}}),
        "qwen3_tokenize_kwargs_depth_255": (q, "/tokenize", {
            "model": q, "messages": HI, "chat_template_kwargs": {"x": deep(255)}}),
        "qwen3_responses_text_nan": (q, RESPONSES_R, {
            "model": q, "input": "Hi", "text": {"format": {
                "type": "json_schema", "name": "s", "schema": {"type": "number", "maximum": NAN}}}}),
        "qwen3_completions_structured_inf": (q, "/v1/completions/render", {
            "model": q, "prompt": "Hi", "response_format": {"type": "json_schema", "json_schema": {
                "name": "s", "schema": {"type": "number", "minimum": -INF}}}}),
    })
    return out


RENDER_JSON_VALUES = _cases()
