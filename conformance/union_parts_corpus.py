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

#: A part without ``type`` (or with a ``uuid``): vLLM 0.33 infers its type from the first of its
#: payload keys ``image_url``, ``image_pil``, ``image_embeds``, ``audio_embeds``,
#: ``video_embeds``, ``prompt_embeds``, ``audio_url``, ``input_audio``, ``video_url``,
#: ``tool_reference`` (not ``input_image``: "Missing 'type' field in multimodal part.", param
#: ``type``), refuses any media on a text-only model before it reads the payload (null too),
#: answers a ``prompt_embeds`` part with its own two 400s (param ``prompt_embeds``) and renders
#: a ``tool_reference`` without a ``name``; in an OpenAI-typed message the part is first
#: pydantic's lazily checked part (its 400, no param). tito inferred ``input_image``, took
#: ``prompt_embeds`` for an unknown type, asked a media payload first and a tool reference's name.
_IMG = {"url": "data:image/png;base64,iVBORw0KGgo="}
_UNTYPED: dict[str, tuple[str, list[Any]]] = {
    "input_image": ("custom", [{"input_image": _IMG}]),
    "input_image_text": ("custom", [{"input_image": "data:x"}]),
    "input_image_uuid": ("custom", [{"uuid": "u", "input_image": "x"}]),
    "input_image_user": ("user", [{"input_image": _IMG}]),
    "prompt_embeds_key": ("custom", [{"prompt_embeds": "x"}]),
    "prompt_embeds_key_data": ("custom", [{"prompt_embeds": "x", "data": "AAAA"}]),
    "prompt_embeds_typed": ("custom", [{"type": "prompt_embeds", "data": "AAAA"}]),
    "prompt_embeds_typed_no_data": ("custom", [{"type": "prompt_embeds"}]),
    "prompt_embeds_user": ("user", [{"prompt_embeds": "x"}]),
    "tool_reference_key": ("custom", [{"tool_reference": "t"}]),
    "tool_reference_key_named": ("user", [{"tool_reference": "t", "name": "n"}]),
    "tool_reference_typed_no_name": ("custom", [{"type": "tool_reference"}]),
    "tool_reference_typed_no_name_user": ("user", [{"type": "tool_reference"}]),
    "tool_reference_name_number": ("custom", [{"type": "tool_reference", "name": 5}]),
    "image_pil_null": ("custom", [{"type": "image_pil", "image_pil": None}]),
    "image_pil_absent": ("user", [{"type": "image_pil"}]),
    "image_url_null_key": ("custom", [{"image_url": None}]),
    "image_url_typed_absent": ("custom", [{"type": "image_url"}]),
    "input_audio_null_key": ("custom", [{"input_audio": None}]),
    "uuid_image_url_null": ("custom", [{"uuid": "u", "image_url": None}]),
    "uuid_text": ("custom", [{"uuid": "u", "type": "text", "text": "x"}]),
    "file_key": ("custom", [{"file": {"file_id": "f"}}]),
    "text_key": ("custom", [{"text": "hi"}]),
    "text_key_user": ("user", [{"text": "hi"}]),
    "image_then_input_image": ("custom", [{"input_image": "x", "image_url": _IMG}]),
    "audio_embeds_video_typed_uuid": ("custom", [{"uuid": "u", "type": "video_embeds",
                                                  "audio_embeds": "x"}]),
}


def _untyped_messages(kind: str, parts: list[Any]) -> list[dict[str, Any]]:
    """``custom``: vLLM's custom message type (a ``reasoning`` field), else a plain user."""
    extra = {"reasoning": "r"} if kind == "custom" else {}
    return [{"role": "user", "content": parts, **extra}]


RENDER_UNTYPED_PARTS_ERRORS: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"qwen3_{name}{suffix}": ("qwen3", path, {"model": "qwen3",
                                              "messages": _untyped_messages(kind, parts)})
    for name, (kind, parts) in _UNTYPED.items()
    for suffix, path in (("", CHAT_R), ("_tokenize", "/tokenize"))
}
