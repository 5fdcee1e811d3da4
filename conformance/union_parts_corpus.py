"""Messages whose parts decide vLLM 0.33's message type by their payloads' fields (media and file
parts): the ``render_union_parts`` group.

Why: pydantic's smart union gives a message vLLM's custom type (parts a list, read as they are)
when it sets more fields than the role's OpenAI type (parts a lazily checked iterator); a media
part's payload counts its own fields (``input_audio``'s data and format, ``file``'s keys,
``image_url``'s url and detail), a payload of the wrong shape none. On gpt-oss that decides
whether harmony reads each part's ``text`` (fuzz_render s342-251: an assistant's
``[input_audio, {"type": "text", "text": 5}]`` is harmony's ``TextContent`` 400, ``[input_audio]``
alone renders without the message) or the parts are checked as the role's OpenAI parts.
"""

from __future__ import annotations

from typing import Any

CHAT_R = "/v1/chat/completions/render"
_AUD = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
_AUD_OGG = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "ogg"}}
_FILE = {"type": "file", "file": {"file_id": "f1"}}
_IMG_BAD = {"type": "image_url", "image_url": {"url": 5}}
_IMG_DETAIL = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=",
                                                  "detail": "bogus"}}


def _assistant(parts: list[Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "q"}, {"role": "assistant", "content": parts},
            {"role": "user", "content": "x"}]


_CASES: dict[str, tuple[str, str, list[dict[str, Any]]]] = {
    "gptoss_assistant_audio": ("gpt-oss", CHAT_R, _assistant([_AUD])),
    "gptoss_assistant_audio_tokenize": ("gpt-oss", "/tokenize", _assistant([_AUD])),
    "gptoss_assistant_audio_text5": ("gpt-oss", CHAT_R, _assistant(
        [_AUD, {"type": "text", "text": 5}])),
    "gptoss_assistant_audio_text5_tokenize": ("gpt-oss", "/tokenize", _assistant(
        [_AUD, {"type": "text", "text": 5}])),
    "gptoss_assistant_text_audio": ("gpt-oss", CHAT_R, _assistant(
        [{"type": "text", "text": "ans"}, _AUD])),
    "gptoss_assistant_audio_text": ("gpt-oss", CHAT_R, _assistant(
        [_AUD, {"type": "text", "text": "ans"}])),
    "gptoss_assistant_audio_ogg": ("gpt-oss", CHAT_R, _assistant([_AUD_OGG])),
    "gptoss_assistant_file": ("gpt-oss", CHAT_R, _assistant([_FILE])),
    "gptoss_assistant_file_tokenize": ("gpt-oss", "/tokenize", _assistant([_FILE])),
    "gptoss_assistant_image_bad_url": ("gpt-oss", CHAT_R, _assistant([_IMG_BAD])),
    "gptoss_user_audio_text5": ("gpt-oss", CHAT_R, [{"role": "user", "content": [
        _AUD, {"type": "text", "text": 5}]}]),
    "gptoss_system_audio_text": ("gpt-oss", CHAT_R, [{"role": "system", "content": [
        _AUD, {"type": "text", "text": "sys"}]}, {"role": "user", "content": "x"}]),
    "gptoss_tool_file_text": ("gpt-oss", CHAT_R, [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [_FILE, {"type": "text", "text": "r"}]}]),
    "qwen3_assistant_audio": ("qwen3", CHAT_R, _assistant([_AUD])),
    "qwen3_assistant_file_tokenize": ("qwen3", "/tokenize", _assistant([_FILE])),
    "qwen3_user_image_bad_url": ("qwen3", CHAT_R, [{"role": "user", "content": [_IMG_BAD]}]),
    "qwen3_developer_image_detail": ("qwen3", CHAT_R, [{"role": "developer", "content": [
        _IMG_DETAIL]}, {"role": "user", "content": "x"}]),
    "qwen3_system_audio_ogg_tokenize": ("qwen3", "/tokenize", [{"role": "system", "content": [
        _AUD_OGG]}, {"role": "user", "content": "x"}]),
}
RENDER_UNION_PARTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    name: (server, path, {"model": server, "messages": messages})
    for name, (server, path, messages) in _CASES.items()
}
