"""The ``render_message_edges`` group: chat messages at the edges of vLLM 0.33's message union,
on the chat render and ``/tokenize`` of a template model (qwen3), gpt-oss (harmony) and a
mistral-common model (found by the JSON-path probe: tito answered the opposite of vLLM).

What vLLM 0.33 does, measured:

- ``role`` is any string: ``""`` is its custom type's role (Qwen3's template skips it);
- ``name: null`` is refused by every member (each types ``name`` a string) but the OpenAI
  tool type, which has no ``name`` (a tool message with its string ``tool_call_id``);
- an OpenAI role type reads a non-string ``content`` as an iterable: ``{}`` is no parts, a
  non-empty object's keys are no parts (400); the custom type refuses an object;
- the chat request lists a ``tool_calls`` that is not a list before the union (``""`` and
  ``{}`` are no calls, a string's characters and an object's keys are no calls: 400 for an
  assistant, a number is ``'int' object is not iterable``); ``/tokenize``'s body does not;
- the OpenAI types of the other roles have no ``tool_calls``: any value is taken, unread by a
  template; gpt-oss's harmony render reads every message's calls (a null is its TypeError 400
  but for an assistant's, made ``[]``; a string's characters are its 500, ``*.vllm500``,
  tito's 400); ``/tokenize`` on gpt-oss dumps its body without nulls first;
- an assistant with ``content: null`` and ``tool_calls: null`` fits no member (400);
- mistral-common's ``/tokenize`` gets an OpenAI-typed assistant's calls as vLLM's lazy
  iterable (400), even ``[]`` beside a string content;
- the custom type's ``reasoning`` is a string, null or a ``prompt_embeds`` part: ``{}`` or a
  number make the message its role's OpenAI type (its parts checked strictly); a
  ``prompt_embeds`` reasoning or content part is vLLM's "--enable-prompt-embeds" 400;
- gpt-oss never reads a calling assistant's content (an object there is no 400).
"""

from __future__ import annotations

from typing import Any

_CHAT, _TOKENIZE = "/v1/chat/completions/render", "/tokenize"
_USER = {"role": "user", "content": "hi"}
_CALL = {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}}
#: role name -> the message's fixed fields
_ROLES: dict[str, dict[str, Any]] = {
    "user": {"role": "user"}, "system": {"role": "system"},
    "developer": {"role": "developer"}, "assistant": {"role": "assistant"},
    "tool": {"role": "tool", "tool_call_id": "x"}, "toolnoid": {"role": "tool"},
    "function": {"role": "function", "name": "f"}, "custom": {"role": "custom"},
    "empty": {"role": ""},
}
#: shape name -> the fields it adds (a ``content`` of "hi" unless it sets one)
_SHAPES: dict[str, dict[str, Any]] = {
    "content_empty_object": {"content": {}},
    "content_object": {"content": {"a": 1}},
    "name_null": {"name": None},
    "calls_empty_string": {"tool_calls": ""},
    "calls_empty_object": {"tool_calls": {}},
    "calls_string": {"tool_calls": "abc"},
    "calls_object": {"tool_calls": {"a": 1}},
    "calls_number": {"tool_calls": 0},
    "calls_null": {"tool_calls": None},
    "calls_empty_list": {"tool_calls": []},
    "calls_empty_call": {"tool_calls": [{}]},
    "no_content_calls_empty_string": {"content": "MISSING", "tool_calls": ""},
}
_SERVERS = ("qwen3", "gpt-oss", "mistral-v3")
_EMBEDS = {"type": "prompt_embeds", "data": "AAAA"}
#: reasoning values: the custom type takes a string, null or a prompt_embeds part (which every
#: render then refuses: no --enable-prompt-embeds); another value makes the message its role's
#: OpenAI type, whose parts are checked strictly
_REASONING = {"empty_object": {}, "number": 5, "embeds": _EMBEDS,
              "embeds_no_data": {"type": "prompt_embeds"}, "string": "r"}


def _message(role: str, shape: dict[str, Any]) -> dict[str, Any]:
    msg = {**_ROLES[role], "content": "hi", **shape}
    if msg["content"] == "MISSING":
        del msg["content"]
    return msg


def _vllm500(server: str, role: str, shape: str) -> bool:
    """gpt-oss: a non-assistant OpenAI-typed message's calls of strings (harmony's
    ``.get`` on a string)."""
    return (server == "gpt-oss" and shape in ("calls_string", "calls_object")
            and role in ("user", "system", "developer", "tool", "function"))


def _cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out: dict[str, tuple[str, str, dict[str, Any]]] = {}
    lenient = [{"type": "text"}, {"type": "text", "text": "b"}]  # (the custom type skips one)
    extra = {**{f"user_lenient_parts_reasoning_{k}": {"role": "user", "content": lenient,
                                                     "reasoning": r}
                for k, r in _REASONING.items()},
             "assistant_reasoning_embeds": {"role": "assistant", "content": "a",
                                            "reasoning": _EMBEDS},
             "user_part_prompt_embeds": {"role": "user", "content": [_EMBEDS]},
             "assistant_calls_object_content": {"role": "assistant", "content": {"a": 1},
                                                "tool_calls": [_CALL]},
             "assistant_null_content_null_calls": {"role": "assistant", "content": None,
                                                   "tool_calls": None},
             "assistant_null_content_empty_string_calls": {"role": "assistant", "content": None,
                                                           "tool_calls": ""},
             "assistant_calls_empty_list_with_call": {"role": "assistant", "content": None,
                                                      "tool_calls": [_CALL]}}
    messages = {f"{role}_{name}": (role, name, _message(role, shape))
                for role in _ROLES for name, shape in _SHAPES.items()}
    messages.update({k: ("assistant", k, m) for k, m in extra.items()})
    for server in _SERVERS:
        for route, path in (("chat", _CHAT), ("tokenize", _TOKENIZE)):
            for key, (role, shape, msg) in messages.items():
                convo = ([_USER, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                          msg, _USER] if msg["role"] == "tool" else [_USER, msg, _USER])
                name = f"{server}_{route}_{key}" + (
                    ".vllm500" if _vllm500(server, role, shape) else "")
                out[name] = (server, path, {"model": server, "messages": convo})
    return out


def _dump_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    """gpt-oss's ``/tokenize`` dumps its body without nulls before its chat render: a typed
    text part's null ``text`` is gone (no text, where the chat render refuses it)."""
    parts = {"null_text": [{"type": "text", "text": None}, {"type": "text", "text": "b"}],
             "null_extra": [{"type": "text", "text": "a", "x": None}]}
    return {f"gpt-oss_tokenize_dump_{role}_{k}": ("gpt-oss", _TOKENIZE, {
                "model": "gpt-oss", "messages": [_USER, {"role": role, "content": c}, _USER]})
            for role in ("user", "assistant", "system", "developer") for k, c in parts.items()}


RENDER_MESSAGE_EDGES = {**_cases(), **_dump_cases()}


#: values of a message's ``tools`` / ``tool_calls`` for DeepSeek-V4.1's encoder, which converts
#: every written message's truthy ones from OpenAI's shape, whatever its role
_DSV41_SHAPES: dict[str, Any] = {
    "str": "x", "empty_str": "", "num": 5, "float": 1.5, "true": True, "empty_list": [],
    "empty_obj": {}, "obj": {"a": 1}, "strs": ["a"], "nums": [5], "empty_item": [{}],
    "fn_num": [{"function": 5}], "fn_str": [{"function": "x"}],
    "fn_name_only": [{"function": {"name": "f"}}],
    "tool": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    "call": [_CALL],
}
#: the conversation positions a message with them takes (``{}``: the message)
_DSV41_SPOTS: dict[str, list[Any]] = {
    "system_first": [{"role": "system", "content": "s"}, _USER],
    "system_later": [_USER, {"role": "system", "content": "s"}, _USER],
    "developer": [{"role": "developer", "content": "d"}],
    "user": [{"role": "user", "content": "q"}],
    "assistant": [_USER, {"role": "assistant", "content": "a"}, _USER],
    "tool": [_USER, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
             {"role": "tool", "tool_call_id": "x", "content": "r"}, _USER],
    # (a user message after a result: merged into the result's turn, its own keys unread)
    "user_after_tool": [_USER, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                        {"role": "tool", "tool_call_id": "x", "content": "r"},
                        {"role": "user", "content": "q"}],
}


def _dsv41_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    """``render_dsv41_shapes``: each spot's message x key x value, chat render and ``/tokenize``,
    thinking off (every message written) and on (history the drop removes is not)."""
    out: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for spot, convo in _DSV41_SPOTS.items():
        at = next(i for i, m in enumerate(convo) if m is not _USER and m["role"] == spot.split(
            "_")[0])
        for key in ("tools", "tool_calls"):
            if spot == "assistant" and key == "tool_calls":
                continue  # (the chat request's own types check an assistant's calls)
            for vname, value in _DSV41_SHAPES.items():
                msgs = [dict(m) for m in convo]
                msgs[at][key] = value
                # (a missing key: the encoder's KeyError, vLLM's 500)
                crash = vname in ("empty_item", "fn_name_only") or (
                    key == "tool_calls" and vname in ("tool",))
                for route, path in (("chat", _CHAT), ("tokenize", _TOKENIZE)):
                    for think in (False, True):
                        name = f"dsv41_{route}_{spot}_{key}_{vname}" + (
                            "_thinking" if think else "") + (".vllm500" if crash else "")
                        out[name] = ("dsv41", path, {
                            "model": "dsv41", "messages": msgs,
                            "chat_template_kwargs": {"thinking": think}})
    return out


RENDER_DSV41_SHAPES = _dsv41_cases()
