"""The ``render_tokenize_lazy_dump`` group: gpt-oss's ``/tokenize`` on a message vLLM 0.33 holds
as its role's OpenAI type, whose part list is a lazily validated iterator.

What vLLM 0.33 does, measured: its ``/tokenize`` rebuilds a chat request from a
``model_dump(exclude_none=True)`` of its own body before the harmony render; the dumped iterator
still yields the parts, and the new request's smart union tries its custom message type, whose
``list`` content reads them all (spending the iterator whichever type wins). So the parts are
kept only when that custom type takes the dumped message: its nulls gone (a tool message's
``name: null``), a non-list ``tool_calls`` listed by the chat request's before-validator
(``""`` / ``{}`` no calls), ``reasoning_content`` renamed. Otherwise (``reasoning: {}``, a
number ``name``, a non-string ``task``, ...) the message renders with no content, its parts
never checked. Every role x a known key x a value pool, two part lists (typed text parts, one
with a null key; and a part of no known type).
"""

from __future__ import annotations

from typing import Any

_TOKENIZE = "/tokenize"
_CALL = {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_ROLES: dict[str, dict[str, Any]] = {
    "user": {"role": "user"}, "system": {"role": "system"}, "developer": {"role": "developer"},
    "assistant": {"role": "assistant"}, "tool": {"role": "tool", "tool_call_id": "x"},
    "function": {"role": "function", "name": "f"},
}
_KEYS = ("name", "tool_call_id", "tool_calls", "reasoning", "reasoning_content", "tools", "task",
         "refusal", "audio", "function_call", "bogus")
_VALUES: dict[str, Any] = {"null": None, "empty": "", "str": "x", "num": 5, "obj": {},
                           "list": [], "true": True}
_PARTS: dict[str, list[Any]] = {
    "text": [{"type": "text", "text": "hi"}, {"type": "text", "text": "yo", "x": None}],
    "bogus": [{"type": "bogus", "v": 1}],
}


def _cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for role, fixed in _ROLES.items():
        for key in _KEYS:
            for vname, value in _VALUES.items():
                for pname, parts in _PARTS.items():
                    if pname == "bogus" and key not in ("tool_calls", "name", "reasoning"):
                        continue
                    msg = {**fixed, "content": parts, key: value}
                    convo = ([{"role": "assistant", "content": "", "tool_calls": [_CALL]}, msg]
                             if role == "tool" else [msg])
                    # (a non-assistant's calls of strings: harmony's ``.get`` on a string)
                    crash = key == "tool_calls" and vname == "str" and role not in (
                        "assistant", "function")
                    out[f"{role}_{key}_{vname}_{pname}" + (".vllm500" if crash else "")] = (
                        "gpt-oss", _TOKENIZE, {"model": "gpt-oss", "messages": convo})
    both = {"calls_and_reasoning": {"tool_calls": "", "reasoning": {}},
            "calls_and_reasoning_content": {"tool_calls": {}, "reasoning_content": "r"},
            "name_null_and_reasoning_content": {"name": None, "reasoning_content": {}}}
    for k, extra in both.items():
        for role in ("user", "tool"):
            msg = {**_ROLES[role], "content": _PARTS["text"], **extra}
            convo = ([{"role": "assistant", "content": "", "tool_calls": [_CALL]}, msg]
                     if role == "tool" else [msg])
            out[f"{role}_{k}_text"] = ("gpt-oss", _TOKENIZE, {"model": "gpt-oss",
                                                              "messages": convo})
    return out


RENDER_TOKENIZE_LAZY_DUMP = _cases()
