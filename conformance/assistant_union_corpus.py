"""The ``render_assistant_union`` group: an assistant message whose OpenAI type refuses a field
only that type types (``function_call``, ``audio``, ``refusal``).

What vLLM 0.33 does, measured: its message union then has only its custom type left, whose
parts are a list checked up front and permissively (a text part without its text is skipped);
when the custom type refuses the message too (a part ``3``, a ``reasoning: 5``, a ``task: 5``,
``tools: 5``, a non-list of calls) no type fits and the body is its schema 400 ("Bad Request").
tito took such a message as OpenAI's (a render-time BadRequestError, a strict part check, or a
200 without the custom type's checks). Found by fuzz_render seed 755 case 260. Chat render and
``/tokenize``, on qwen3 (template) and gpt-oss (harmony).
"""

from __future__ import annotations

from typing import Any

_CHAT, _TOKENIZE = "/v1/chat/completions/render", "/tokenize"
_CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_TEXT = {"type": "text", "text": "x"}
#: name -> the assistant message's fields beside its role
_ASSISTANTS: dict[str, dict[str, Any]] = {
    "str_fc_list": {"content": "hi", "function_call": []},
    "bad_part_fc_list": {"content": [3, _TEXT], "function_call": []},
    "str_fc_list_reasoning5": {"content": "hi", "function_call": [], "reasoning": 5},
    "bogus_part_audio5": {"content": [{"type": "bogus"}], "audio": 5},
    "str_refusal5_task5": {"content": "hi", "refusal": 5, "task": 5},
    "bad_part_fc_ok": {"content": [3], "function_call": {"name": "a", "arguments": "b"}},
    "text_fc_name1": {"content": [_TEXT], "function_call": {"name": 1, "arguments": "b"}},
    "bad_part_refusal5": {"content": [3], "refusal": 5},
    "str_part_audio_noid": {"content": ["x"], "audio": {}},
    "textless_fc_list": {"content": [{"type": "text"}], "function_call": []},
    "bad_part_fc_list_reasoning": {"content": [3], "function_call": [], "reasoning": "r"},
    "str_fc_list_tools5": {"content": "hi", "function_call": [], "tools": 5},
    "str_fc_list_rc5": {"content": "hi", "function_call": [], "reasoning_content": 5},
    "textless_refusal5": {"content": [{"type": "text"}], "refusal": 5},
    "str_fc_list_calls_x": {"content": "hi", "function_call": [], "tool_calls": "x"},
    "thinking_part_fc_list": {"content": [{"type": "thinking", "thinking": "t"}],
                              "function_call": []},
    "str_audio_id5": {"content": "hi", "audio": {"id": 5}},
    "bad_part_fc_null": {"content": [3], "function_call": None},
    "no_content_fc_list": {"function_call": []},
    "null_content_fc_list": {"content": None, "function_call": []},
    "parts_fc_list_calls": {"content": [_TEXT], "function_call": [], "tool_calls": [_CALL]},
    "parts_fc_list_name5": {"content": [_TEXT], "function_call": [], "name": 5},
    "refusal_part_fc_list": {"content": [{"type": "refusal", "refusal": "no"}],
                             "function_call": []},
    "image_part_refusal5": {"content": [{"type": "image_url", "image_url": {"url": "u"}}],
                            "refusal": 5},
}

RENDER_ASSISTANT_UNION: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"{server}_{route}_{name}": (server, path, {"model": server, "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", **fields},
        {"role": "user", "content": "q"}]})
    for server in ("qwen3", "gpt-oss") for route, path in (("chat", _CHAT), ("tokenize", _TOKENIZE))
    for name, fields in _ASSISTANTS.items()
}
