"""Which of vLLM 0.33's message types a chat message is: its custom type or its role's OpenAI type.

Why a module of its own: vLLM's ``ChatCompletionMessageParam`` is a pydantic smart union of the
OpenAI role types (content parts an iterator, checked strictly only when render reads them) and
vLLM's custom type (parts a list, validated up front and permissively). Which one a message
gets decides whether a malformed part is a 400 or is skipped (:mod:`tito.core.render_messages`)
and whether gpt-oss's harmony path reads the parts at all (:mod:`tito.core.harmony`). The rule
(:func:`custom_typed`) is pydantic's: the type that sets the most fields wins, nested fields
counted, the OpenAI type on a tie; ``conformance/goldens/message_union.json`` (recorded from
vLLM's own request model) checks it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tito.core.tag_model import lax_bool

__all__ = ["LAZY_CONTENT_ROLES", "MEDIA_PART_TYPES", "OPENAI_PART_TYPES", "breakpoint_fits",
           "custom_refuses", "custom_typed", "lax_bool_fits", "openai_function", "openai_message",
           "openai_part_fits", "openai_refuses", "tool_calls_ignored", "typed_tools"]


#: Media part type -> the key holding its payload, and the placeholder type templates see
#: (openai's ``file`` part is none: vLLM 0.33 parses no file, its unknown part type's 400)
MEDIA_PART_TYPES: dict[str, tuple[str, str]] = {
    "image_url": ("image_url", "image"),
    "input_image": ("image_url", "image"),
    "image_embeds": ("image_embeds", "image"),
    "image_pil": ("image_pil", "image"),
    "input_audio": ("input_audio", "audio"),
    "audio_url": ("audio_url", "audio"),
    "audio_embeds": ("audio_embeds", "audio"),
    "video_url": ("video_url", "video"),
    "video_embeds": ("video_embeds", "video"),
}



#: the keys of vLLM 0.33's custom message type, and of each OpenAI role's message type
_CUSTOM_KEYS = frozenset({"role", "content", "name", "tool_call_id", "tool_calls", "reasoning",
                          "tools", "task"})
_OPENAI_KEYS = {
    **dict.fromkeys(("system", "developer", "user"), frozenset({"role", "content", "name"})),
    "assistant": frozenset({"role", "content", "name", "audio", "function_call", "refusal",
                            "tool_calls"}),
    "tool": frozenset({"role", "content", "tool_call_id"}),
}
#: the custom type's typed fields and the JSON values each takes
#: (its ``reasoning``: :func:`_reasoning_fields`)
_CUSTOM_TYPES = (("name", str), ("tool_call_id", (str, type(None))),
                 ("task", (str, type(None))))

_INVALID = object()
#: openai's ``FunctionDefinition`` typed dict: its keys in declaration order
_FUNCTION_KEYS = ("name", "description", "parameters", "strict")


def _lax_bool(value: Any) -> Any:
    """``value`` as pydantic validates an ``Optional[bool]`` in lax mode (its bool reading is
    :func:`tito.core.tag_model.lax_bool`), or ``_INVALID``."""
    if value is None:
        return None
    read = lax_bool(value)
    return _INVALID if read is None else read


def lax_bool_fits(value: Any) -> bool:
    """Whether pydantic's lax mode reads ``value`` as an ``Optional[bool]``."""
    return _lax_bool(value) is not _INVALID


def _typed_tool(tool: Any) -> dict[str, Any] | None:
    """One developer tool as openai's ``ChatCompletionFunctionToolParam`` typed dict validates
    it (typed keys first, in declaration order, then the client's extras; ``strict`` read as a
    lax bool), or None when that type refuses it."""
    if not isinstance(tool, Mapping) or tool.get("type") != "function":
        return None
    fn = tool.get("function")
    if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str) or (
            "description" in fn and not isinstance(fn["description"], str)) or (
            "parameters" in fn and not isinstance(fn["parameters"], Mapping)):
        return None
    strict = _lax_bool(fn.get("strict"))
    if strict is _INVALID:
        return None
    function = {k: fn[k] for k in _FUNCTION_KEYS if k in fn}
    if "strict" in fn:
        function["strict"] = strict
    function.update((k, v) for k, v in fn.items() if k not in function)
    out: dict[str, Any] = {"function": function, "type": "function"}
    out.update((k, v) for k, v in tool.items() if k not in out)
    return out


def typed_tools(tools: Any) -> list[dict[str, Any]] | None | bool:
    """A message's ``tools`` as vLLM 0.33's custom message type validates them (a list of
    openai's function-tool typed dicts, or null): the typed list, None for null, or False when
    the custom type refuses them (the message is then its role's OpenAI type, which keeps the
    client's ``tools`` as an extra key, unvalidated)."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        return False
    out = [_typed_tool(t) for t in tools]
    return False if None in out else out  # type: ignore[return-value]


# A typed dict's check, as pydantic's smart union scores it: the count of the declared fields a
# value sets, nested typed dicts' fields added (None: the type refuses the value). A value
# check returns a count too (0 for a scalar).
_Check = Callable[[Any], "int | None"]


def _str(value: Any) -> int | None:
    return 0 if isinstance(value, str) else None


def _opt_str(value: Any) -> int | None:
    return 0 if value is None or isinstance(value, str) else None


def _literal(*values: str) -> _Check:
    return lambda value: 0 if isinstance(value, str) and value in values else None


def _embeds(value: Any) -> int | None:
    """vLLM's ``MultiModalEmbedsPayload | None``: a string or a dict of strings / number lists."""
    if value is None or isinstance(value, str):
        return 0
    ok = isinstance(value, Mapping) and all(isinstance(v, str) or isinstance(v, list) and all(
        type(x) in (int, float) for x in v) for v in value.values())
    return 0 if ok else None


def _typed(fields: dict[str, _Check], required: tuple[str, ...] = ()) -> _Check:
    """A typed dict: an object holding its ``required`` keys, each declared key it has valid;
    its count is its declared keys plus theirs (extra keys are ignored, as pydantic does)."""
    def check(value: Any) -> int | None:
        if not isinstance(value, Mapping) or any(k not in value for k in required):
            return None
        count = 0
        for key, field_check in fields.items():
            if key in value:
                nested = field_check(value[key])
                if nested is None:
                    return None
                count += 1 + nested
        return count
    return check


_PROMPT_EMBEDS = _typed({"data": _str, "type": _literal("prompt_embeds")}, ("data", "type"))


def _reasoning_fields(value: Any) -> int | None:
    """The custom type's ``reasoning`` (a string, null or a ``prompt_embeds`` part, whose fields
    count): the fields it sets, or None when the type refuses it (``{}``, a number...: the
    message is then its role's OpenAI type, found by the path probe)."""
    return 0 if value is None or isinstance(value, str) else _PROMPT_EMBEDS(value)


_BREAKPOINT = _typed({"mode": _literal("explicit"), "ttl": _literal("30m", "12h")}, ("mode",))


def _part(kind: str, fields: dict[str, _Check], required: tuple[str, ...] = ()) -> _Check:
    return _typed({"type": _literal(kind), **fields}, ("type", *required))


#: vLLM 0.33's ``ChatCompletionContentPartParam`` (the custom message type's part union):
#: openai's text / image / input audio / file parts, then vLLM's own (the simple media, PIL
#: and tool-reference types declare every key optional, so almost any object fits them)
_CUSTOM_PARTS: tuple[_Check, ...] = (
    _part("text", {"text": _str, "prompt_cache_breakpoint": _BREAKPOINT}, ("text",)),
    _part("image_url", {"image_url": _typed({"url": _str, "detail": _literal(
        "auto", "low", "high", "original")}, ("url",)), "prompt_cache_breakpoint": _BREAKPOINT},
        ("image_url",)),
    _part("input_audio", {"input_audio": _typed({"data": _str, "format": _literal(
        "wav", "mp3")}, ("data", "format")), "prompt_cache_breakpoint": _BREAKPOINT},
        ("input_audio",)),
    _part("file", {"file": _typed(dict.fromkeys(("file_data", "file_id", "filename"), _str)),
                   "prompt_cache_breakpoint": _BREAKPOINT}, ("file",)),
    _part("audio_url", {"audio_url": _typed({"url": _str}, ("url",))}, ("audio_url",)),
    _part("image_embeds", {"image_embeds": _embeds, "uuid": _opt_str}),
    _part("audio_embeds", {"audio_embeds": _embeds, "uuid": _opt_str}),
    _part("video_embeds", {"video_embeds": _embeds, "audio_embeds": _embeds, "uuid": _opt_str}),
    _part("prompt_embeds", {"data": _str}, ("data",)),
    _part("video_url", {"video_url": _typed({"url": _str}, ("url",))}, ("video_url",)),
    _part("refusal", {"refusal": _str}, ("refusal",)),
    _typed({"image_pil": lambda v: 0 if v is None else None, "uuid": _opt_str}),
    _typed({"image_url": _opt_str, "uuid": _opt_str}),
    _typed({"audio_url": _opt_str}),
    _typed({"video_url": _opt_str, "uuid": _opt_str}),
    _typed({"name": _str, "type": _literal("tool_reference")}),
    _part("thinking", {"thinking": _str, "closed": lambda v: (
        None if _lax_bool(v) is _INVALID or v is None else 0)}, ("thinking",)),
)


def _part_fields(part: Any) -> int | None:
    """How many typed fields ``part`` sets as vLLM's custom type validates it (the best of its
    part types, nested fields counted; a string part none; None: no part type takes it)."""
    if isinstance(part, str):
        return 0
    counts = [c for c in (check(part) for check in _CUSTOM_PARTS) if c is not None]
    return max(counts) if counts else None


#: the part types each role's OpenAI message type takes (system, developer, tool: text only)
OPENAI_PART_TYPES = {"user": ("text", "image_url", "input_audio", "file"),
                     "assistant": ("text", "refusal")}
#: per OpenAI part type: its payload key and the check of the payload's value
_OPENAI_PAYLOADS: dict[str, tuple[str, Any]] = {
    "text": ("text", lambda v: isinstance(v, str)),
    "refusal": ("refusal", lambda v: isinstance(v, str)),
    "image_url": ("image_url", lambda v: isinstance(v, Mapping) and isinstance(v.get("url"), str)
                  and v.get("detail", "auto") in ("auto", "low", "high", "original")),
    "input_audio": ("input_audio", lambda v: isinstance(v, Mapping)
                    and isinstance(v.get("data"), str) and v.get("format") in ("wav", "mp3")),
    "file": ("file", lambda v: isinstance(v, Mapping) and all(
        isinstance(v[k], str) for k in ("file_data", "file_id", "filename") if k in v)),
}


def breakpoint_fits(part: Mapping[str, Any], *, nullable: bool = False) -> bool:
    """openai's ``prompt_cache_breakpoint`` of a text or media part, when present (a chat
    part's, or a Responses input part's; ``nullable``: the part type lets it be null)."""
    if "prompt_cache_breakpoint" not in part:
        return True
    value = part["prompt_cache_breakpoint"]
    return nullable and value is None or isinstance(value, Mapping) and value.get(
        "mode") == "explicit" and value.get("ttl", "30m") in ("30m", "12h")


def openai_part_fits(role: str, part: Any) -> bool:
    """Whether ``part`` validates as one of ``role``'s OpenAI content part types: what pydantic
    checks as vLLM 0.33 iterates the parts of a message that is not :func:`custom_typed` (the
    lazily validated iterable; a part that fits none is its 400 at render, found by fuzz_render
    seed 701: a ``thinking`` part in such a user message). The parts' other keys are ignored,
    as pydantic ignores a typed dict's extra keys."""
    if not isinstance(part, Mapping):
        return False
    kind = part.get("type")
    if kind not in OPENAI_PART_TYPES.get(role, ("text",)):
        return False
    key, fits = _OPENAI_PAYLOADS[kind]
    return key in part and fits(part[key]) and (kind == "refusal" or breakpoint_fits(part))


#: the roles whose OpenAI message types leave a part list to render (an unread iterable)
LAZY_CONTENT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def openai_message(msg: Mapping[str, Any]) -> bool:
    """Whether ``msg`` fits its role's openai message type apart from its content parts (then
    vLLM leaves the parts to render; a tool message's type has no ``name``, so any is taken)."""
    role = msg["role"]
    if role not in LAZY_CONTENT_ROLES:
        return False
    if role == "tool":
        return isinstance(msg.get("tool_call_id"), str)
    return "name" not in msg or isinstance(msg["name"], str)  # typed ``str``: null is refused


def openai_function(msg: Mapping[str, Any]) -> bool:
    """Whether ``msg`` is OpenAI's function message (its ``content`` given, text or null, and a
    ``name``): vLLM's union then takes it as that type, which ignores any other key (a
    ``tool_call_id`` or ``reasoning`` of any type; found by fuzz_render seed 340)."""
    return (msg["role"] == "function" and "content" in msg
            and isinstance(msg["content"], (str, type(None))) and isinstance(msg.get("name"), str))


def tool_calls_ignored(msg: Mapping[str, Any]) -> bool:
    """Whether ``msg`` is the OpenAI message type of a role other than the assistant's, which
    has no ``tool_calls``: vLLM's union then takes any value there, unchecked (its template
    path never reads them; gpt-oss's harmony path does, :mod:`tito.core.harmony.conversation`)."""
    return msg["role"] != "assistant" and (
        "content" in msg and openai_message(msg) or openai_function(msg))


def custom_refuses(message: Mapping[str, Any]) -> bool:
    """Whether vLLM 0.33's custom message type refuses ``message``: a part no custom part type
    takes, a null or object content (it types ``str`` or a list), a reasoning or calls of the
    wrong shape, a typed field of the wrong type, tools that are not its tool list."""
    return _custom_refuses(message, _parts_fields(message.get("content")),
                           _reasoning_fields(message.get("reasoning")))


def _parts_fields(content: Any) -> list[int | None]:
    """:func:`_part_fields` of each part of a list ``content`` (none for any other content)."""
    return [_part_fields(p) for p in content] if isinstance(content, list) else []


def _custom_refuses(message: Mapping[str, Any], parts: list[int | None],
                    reasoning: int | None) -> bool:
    """:func:`custom_refuses` given the message's :func:`_parts_fields` and
    :func:`_reasoning_fields` (read once by :func:`custom_typed`, which counts them after)."""
    content = message.get("content")
    calls = message.get("tool_calls")
    return (None in parts
            or reasoning is None
            or not isinstance(content, (str, list)) and "content" in message
            or not (calls is None or isinstance(calls, list) and all(
                isinstance(c, Mapping) and isinstance(c.get("id"), str)
                and isinstance(c.get("function"), Mapping) for c in calls))
            or any(key in message and not isinstance(message[key], kinds)
                   for key, kinds in _CUSTOM_TYPES)
            or "tools" in message and typed_tools(message["tools"]) is False)


def openai_refuses(message: Mapping[str, Any]) -> bool:
    """Whether the OpenAI assistant type refuses an assistant ``message`` by a field only it
    types: ``function_call`` (openai's ``FunctionCall``: ``name`` and ``arguments`` strings),
    ``audio`` (``id`` a string), ``refusal`` (a string), each nullable. The custom type then
    takes it, its parts a list checked permissively, or nothing does (a schema 400); found by
    fuzz_render seed 755 case 260 (``function_call: []`` beside a part ``3``)."""
    if message.get("role") != "assistant":
        return False
    call, audio, refusal = (message.get(k) for k in ("function_call", "audio", "refusal"))
    return (call is not None and not (isinstance(call, Mapping) and isinstance(
                call.get("name"), str) and isinstance(call.get("arguments"), str))
            or audio is not None and not (isinstance(audio, Mapping)
                                          and isinstance(audio.get("id"), str))
            or refusal is not None and not isinstance(refusal, str))


def custom_typed(message: Mapping[str, Any]) -> bool:
    """Whether vLLM 0.33 reads this message as its custom message type, whose content parts are
    a list validated up front and permissively (a text part without its text is skipped), rather
    than as its role's OpenAI type, whose parts are an iterator checked strictly as render reads
    them. pydantic's smart union picks the type that sets the most fields, nested ones counted
    (the OpenAI types' iterables count none), the OpenAI type on a tie; a custom role is always
    custom. Checked against vLLM on every 1-3 part mix and on the keys each type knows."""
    role = message.get("role")
    openai = _OPENAI_KEYS.get(role)  # type: ignore[arg-type]
    if openai is None:
        return True
    parts = _parts_fields(message.get("content"))  # (each part read once)
    reasoning = _reasoning_fields(message.get("reasoning"))
    if _custom_refuses(message, parts, reasoning):
        return False
    if openai_refuses(message):
        return True  # (both refusing it is the request's schema error: tito.protocol.chat)
    calls = message.get("tool_calls")
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        return True  # the OpenAI tool type needs its call id
    if role == "assistant" and "tool_calls" in message and calls is None:
        return True  # the OpenAI assistant type's tool_calls are not nullable
    custom = sum(1 for k in message if k in _CUSTOM_KEYS) + sum(parts)  # type: ignore[arg-type]
    custom += reasoning
    custom += 5 * len(calls or ())  # id, type, function and its name and arguments
    own = sum(1 for k in message if k in openai)
    for key in ("audio", "function_call"):
        if role == "assistant" and isinstance(message.get(key), Mapping):
            own += len(message[key])
    return custom > own
