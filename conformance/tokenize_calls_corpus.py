"""The ``render_tokenize_sent_calls`` group: ``/tokenize`` of a non-assistant message sent with
``tool_calls`` beside a part list, on a template model (qwen3).

What vLLM 0.33 does, measured: its tokenize body keeps such a message's calls as sent (its chat
request would list them) and its message union types the message with them counted: a
``"x"`` the custom type refuses leaves the role's OpenAI type (parts checked strictly: a
``thinking`` part is a 400), a list of calls or a ``null`` adds to the custom type's fields (a
text part without its text is then skipped: 200). tito dropped the calls before its chat
request and typed the message without them (session 42). Chat render, whose body lists the
calls, beside each.
"""

from __future__ import annotations

from typing import Any

_CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_PARTS: dict[str, list[Any]] = {"thinking": [{"type": "thinking", "thinking": "t"}],
                                "textless": [{"type": "text"}],
                                "text": [{"type": "text", "text": "a"}]}
_CALLS: dict[str, Any] = {"x": "x", "list": [_CALL], "null": None, "obj": {}, "empty": []}
_ROLES: dict[str, dict[str, Any]] = {"user": {"role": "user"}, "system": {"role": "system"},
                                     "developer": {"role": "developer"},
                                     "tool": {"role": "tool", "tool_call_id": "c"}}

RENDER_TOKENIZE_SENT_CALLS: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"qwen3_{route}_{role}_{pname}_calls_{cname}": ("qwen3", path, {"model": "qwen3", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [_CALL]},
        {**fixed, "content": parts, "tool_calls": calls}, {"role": "user", "content": "q"}]})
    for route, path in (("tokenize", "/tokenize"), ("chat", "/v1/chat/completions/render"))
    for role, fixed in _ROLES.items() for pname, parts in _PARTS.items()
    for cname, calls in _CALLS.items()
}
