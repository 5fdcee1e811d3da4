"""The ``render_inkling_lazy`` group: Inkling's encoding on messages vLLM 0.33's union types as
their role's OpenAI type.

What vLLM 0.33 does, measured: its chat body lists a non-list ``tool_calls`` and renames
``reasoning_content`` before the union; a message its custom type refuses or sets no more fields
of is its role's OpenAI type, whose part list is an unread iterable Inkling's encoding refuses
(400 "message content must be a string or a sequence of parts"); its ``/tokenize`` body does
neither transform, and an OpenAI-typed assistant's calls are an iterable vLLM's chat
preprocessing consumes before the encoding reads them (none written). Every role x a key x a
value pool, with a part list (and an assistant's string content beside calls), chat render
and ``/tokenize``.
"""

from __future__ import annotations

from typing import Any

_CHAT, _TOKENIZE = "/v1/chat/completions/render", "/tokenize"
_USER = {"role": "user", "content": "q"}
_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_PARTS = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
_KEYS = ("tool_calls", "reasoning", "reasoning_content", "tool_call_id", "name", "tools", "task")
_VALUES: dict[str, Any] = {"null": None, "empty": "", "str": "x", "num": 5, "obj": {},
                           "list": [], "strs": ["a"]}
_ROLES: dict[str, dict[str, Any]] = {
    "system": {"role": "system", "content": _PARTS}, "user": {"role": "user", "content": _PARTS},
    "developer": {"role": "developer", "content": _PARTS},
    "tool": {"role": "tool", "tool_call_id": "c1", "content": _PARTS},
    "assistant": {"role": "assistant", "content": _PARTS},
    "assistant_calls": {"role": "assistant", "content": "b", "tool_calls": [_CALL]},
    "assistant_null_calls": {"role": "assistant", "content": None, "tool_calls": [_CALL]},
}


def _cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for role, fixed in _ROLES.items():
        for key in _KEYS:
            for vname, value in _VALUES.items():
                if key in fixed and key != "tool_call_id":
                    continue
                msg = {**fixed, key: value}
                convo = ([_USER, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                          msg, _USER] if role == "tool" else [_USER, msg, _USER])
                for route, path in (("chat", _CHAT), ("tokenize", _TOKENIZE)):
                    out[f"inkling_{route}_{role}_{key}_{vname}"] = (
                        "inkling", path, {"model": "inkling", "messages": convo})
    return out


RENDER_INKLING_LAZY = _cases()
