"""Responses ``input`` items -> the chat messages tito renders, as vLLM 0.33 converts them.

Why a module of its own: the conversion has two sets of rules (the module docstring of
:mod:`tito.service.responses` lists them): vLLM's chat conversion (``construct_input_messages``,
items joining the assistant message before them) and its gpt-oss one
(``response_input_to_harmony``, each item on its own), and the checks vLLM's harmony path makes
of the items.
"""

from __future__ import annotations

from typing import Any

from tito.errors import BadRequest, InvalidRequest, quote
from tito.protocol.responses import ResponsesRequest
from tito.protocol.responses_input import input_part_fits

__all__ = ["check_harmony_items", "input_messages"]


def _text_of(content: Any) -> str | None:
    """The first part's text of an assistant message (vLLM reads ``content[0].text``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and isinstance(content[0], dict):
        text = content[0].get("text")
        return text if isinstance(text, str) else None
    return None


def _texts_fit(parts: Any, kind: str) -> bool:
    """A list of ``kind`` parts, each with a string ``text`` (the SDK's reasoning item)."""
    return isinstance(parts, list) and all(
        isinstance(p, dict) and p.get("type") == kind and isinstance(p.get("text"), str)
        for p in parts)


def _reasoning_typed(item: dict[str, Any]) -> bool:
    """Whether vLLM 0.33 holds the item as the SDK's reasoning item model (its ``summary`` of
    ``summary_text`` parts, its ``content`` null or of ``reasoning_text`` parts); else it holds
    the item's param type, whose parts are a lazy iterator its conversion cannot read."""
    return _texts_fit(item.get("summary"), "summary_text") and (
        item.get("content") is None or _texts_fit(item.get("content"), "reasoning_text"))


def _reasoning_text(item: dict[str, Any]) -> str:
    if not _reasoning_typed(item):  # (vLLM's conversion knows the model, not the param type)
        raise BadRequest("Unsupported input item type: reasoning", param="input")
    if item.get("encrypted_content"):
        raise BadRequest("Encrypted content is not supported.", param="input")
    for key in ("content", "summary"):
        parts = item.get(key)
        if isinstance(parts, list) and parts and isinstance(parts[0], dict):
            text = parts[0].get("text")
            if isinstance(text, str):
                return text
    return ""


def _part_text(part: Any, where: str) -> str:
    """A part's text for vLLM's harmony path ("" without one); a text that is not a string is
    a 400 (harmony's messages take strings only)."""
    text = part.get("text") if isinstance(part, dict) else None
    if text is None:
        return ""
    if not isinstance(text, str):
        raise BadRequest(f"{where}.text must be a string.", param=where)
    return text


def _flatten(content: Any) -> str | None:
    """vLLM's ``flatten_input_text_content`` (gpt-oss only: its module is imported here)."""
    from tito.core.harmony.conversation import flatten_text

    return flatten_text(content)


def _harmony_reasoning(item: dict[str, Any]) -> str | None:
    """vLLM 0.33's harmony path: a reasoning item's content texts joined with ``\n``; None
    (no message) without content (an ``encrypted_content`` beside it is never read). Content
    held as the param type's lazy iterator (:func:`_reasoning_typed`) is its 400."""
    parts = item.get("content")
    if parts is not None and not _reasoning_typed(item):  # (its lazy iterator is always true)
        raise BadRequest("a reasoning item's content cannot be read: its summary and content "
                         "are lists of summary_text / reasoning_text parts.", param="input")
    if not parts:
        return None
    return "\n".join(_part_text(p, "input") for p in parts)


def _call(item: dict[str, Any], where: str) -> dict[str, Any]:
    """A ``function_call`` (its ``namespace``'s flat name) or ``custom_tool_call`` item (its
    input as the shim's arguments) as a chat tool call, as vLLM 0.33's chat conversion."""
    from tito.service.responses_custom import encode_input, flat_name

    custom = item.get("type") == "custom_tool_call"
    keys = ("call_id", "name", "input") if custom else ("call_id", "name", "arguments")
    for key in keys:
        if not isinstance(item.get(key), str):
            raise BadRequest(f"{where}.{key} must be a string.", param=f"{where}.{key}")
    space = item.get("namespace")
    if space is not None and not isinstance(space, str):
        raise BadRequest(f"{where}.namespace must be a string.", param=f"{where}.namespace")
    # (a custom call's namespace is not read, as vLLM)
    name = flat_name(space, item["name"]) if space and not custom else item["name"]
    arguments = encode_input(item["input"]) if custom else item["arguments"]
    return {"id": item["call_id"], "type": "function",
            "function": {"name": name, "arguments": arguments}}


def _output_message(item: dict[str, Any]) -> bool:
    """Whether vLLM 0.33 reads an assistant item as its output message model (``type``
    message, every part an output part, none at all too), whose first part's text it takes;
    another assistant item without a first text is the chat message it is (its parts rendered
    as a chat message's, ``[]`` none)."""
    content = item.get("content")
    return item.get("type") == "message" and isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") in ("output_text", "refusal") for p in content)


def _output(item: dict[str, Any], where: str) -> Any:
    """A tool output item's output as its tool message's content. A ``custom_tool_call_output``'s
    (openai's ``Iterable``) is read as vLLM 0.33's render iterates it: an object is its keys,
    each part must fit its part types (:func:`tito.protocol.responses_input.input_part_fits`),
    else a 400 (pydantic's, as vLLM's render reads it)."""
    output = item["output"]
    if item.get("type") == "custom_tool_call_output" and not isinstance(output, str):
        output = list(output)  # (an object: its keys)
        for k, part in enumerate(output):
            if not input_part_fits(part, listed=False):
                raise BadRequest(f"{where}.output.{k} must be an input_text part with its text, "
                                 "an input_image part with its detail or an input_file part.",
                                 param=f"{where}.output.{k}")
    return output


def input_messages(request: ResponsesRequest, *, harmony: bool = False) -> list[dict[str, Any]]:
    """The chat messages of a Responses request (rules in the module docstring). ``harmony``:
    gpt-oss, whose items vLLM 0.33 converts one by one (``response_input_to_harmony``): none
    joins the one before, an assistant message is always its own ``final`` message."""
    messages: list[dict[str, Any]] = []
    if request.instructions if not harmony else request.instructions is not None:
        # (gpt-oss: "" too, vLLM's harmony preamble then writes empty instructions beside tools)
        messages.append({"role": "system", "content": request.instructions})
    if isinstance(request.input, str):
        if request.input or not (harmony and request.previous_input_messages):
            # (gpt-oss: an empty input after earlier messages is no turn, as vLLM's render)
            messages.append({"role": "user", "content": request.input})
        return messages
    for i, item in enumerate(request.input):
        where = f"input.{i}"
        prev = (messages[-1] if not harmony and messages
                and messages[-1].get("role") == "assistant" else None)
        kind = item.get("type")
        role = item.get("role")
        if kind in ("function_call", "custom_tool_call") and not harmony:
            call = _call(item, where)
            if prev is not None:
                prev.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "tool_calls": [call]})
        elif kind == "function_call":
            for key in ("call_id", "name", "arguments"):
                if not isinstance(item.get(key), str):
                    raise BadRequest(f"{where}.{key} must be a string.", param=f"{where}.{key}")
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            if prev is not None:
                prev.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "tool_calls": [call]})
        elif kind in ("function_call_output", "custom_tool_call_output"):
            # (its output and call_id checked by the schema: a function_call_output's call_id
            # may be missing, the tool message's id then null, as vLLM's)
            messages.append({"role": "tool", "content": _output(item, where),
                             "tool_call_id": item.get("call_id")})
        elif kind == "reasoning" and harmony:
            text = _harmony_reasoning(item)
            if text is not None:
                messages.append({"role": "assistant", "reasoning": text})
        elif kind == "reasoning":
            text = _reasoning_text(item)
            if prev is not None and prev.get("reasoning") is None:
                prev["reasoning"] = text
            else:
                messages.append({"role": "assistant", "reasoning": text})
        elif harmony and role in ("user", "assistant") and isinstance(item.get("content"), list):
            # vLLM 0.33's harmony path: one text content per part, its text or "" (an image's)
            messages.append({"role": role, "content": [
                {"type": "text", "text": _part_text(p, f"{where}.content.{k}")}
                for k, p in enumerate(item["content"])]})
        elif role == "assistant" and (_text_of(item.get("content")) is not None
                                      or _output_message(item)):
            text = _text_of(item.get("content"))
            if text is None:  # (vLLM's output message reads content[0].text: its 500)
                raise BadRequest(f"{where}: an assistant message needs text content.", param=where)
            if prev is not None and prev.get("content") is None:
                prev["content"] = text
            else:
                messages.append({"role": "assistant", "content": text})
        elif harmony and role in ("system", "developer") and not _flatten(item.get("content")) \
                and not (i == 0 and request.instructions is None):
            continue  # vLLM's harmony path: no message for instructions without text (but the
            # first item without instructions is its instructions, "" or none: peeled as such)
        elif isinstance(role, str):  # (vLLM hands the item itself to the chat render, which
            # reads a string name only: any other is no chat schema's 400 here)
            messages.append({k: v for k, v in item.items() if k not in ("type", "id", "status")
                             and not (k == "name" and not isinstance(v, str))})
        else:
            raise BadRequest(f"Unsupported input item type: {kind}", param="input")
    return messages


def check_harmony_items(items: list[dict[str, Any]]) -> None:
    """vLLM 0.33's harmony Responses path converts the input items itself: a tool output needs
    an earlier ``function_call`` item with its ``call_id`` (the tool's name comes from it) and a
    string output, and only messages, reasoning, function calls and their outputs are taken; else its
    ``invalid_request_error`` naming ``input``."""
    calls: list[Any] = []  # (a list: a call_id may be any JSON value, even an unhashable one)
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            calls.append(item.get("call_id"))
        elif kind == "function_call_output":
            if item.get("call_id") not in calls:
                raise InvalidRequest(f"No call message found for {quote(item.get('call_id'))}",
                                     param="input")
            if not isinstance(item.get("output"), str):  # harmony's Message takes text only
                raise InvalidRequest("1 validation error for Message: a tool output on gpt-oss "
                                     "must be a string.", param="input")
        elif kind not in ("message", "reasoning"):
            raise InvalidRequest(f"Unknown input type: {quote(kind)}", param="input")
