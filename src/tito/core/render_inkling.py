"""Inkling's chat encoding: OpenAI messages -> prompt token ids (no Jinja template, no text).

vLLM 0.33 renders a model whose ``config.json`` names ``InklingForCausalLM`` or
``InklingForConditionalGeneration`` with code of its own (``tokenizer_mode`` ``inkling``),
whatever chat template the folder holds; tito does the same
(:attr:`tito.models.config.ModelConfig.native_renderer`). The prompt is built from ids: each
marker is one special token looked up by name in the vocabulary (a vocabulary without one of
them is refused at load, as vLLM refuses to start), and each text is tokenized alone, without
special tokens added (a marker spelled inside a text is still that marker, as in any
tokenization). Grammar of the prompt (``<|x|>`` is the marker ``x``)::

    prompt   := [DECLARE] item* [EFFORT] ["<|message_model|>"]        (the generation prompt)
    item     := EFFORT? message        (EFFORT before the first message not a system/developer one)
    DECLARE  := "<|message_system|>" T("tool_declare") "<|content_xml|>" T(JSON(specs)) END
    EFFORT   := "<|message_system|>" "<|content_text|>" T("Thinking effort level: " LEVEL) END
    system / developer / user := block*         (one per content part; role marker
                                                  <|message_system|> / <|message_user|>)
    assistant := [THINKING] block* CALL* "<|content_model_end_sampling|>"
    THINKING := "<|message_model|>" "<|content_thinking|>" T(reasoning) END
    CALL     := "<|message_model|>" T(name) "<|content_invoke_tool_json|>"
                T('{"name":' JSON(name) ',"args":' JSON(arguments) "}") END
    tool     := "<|message_tool|>" [T(name)] "<|content_text|>" T(text) END
    block    := ROLE "<|content_text|>" T(text) END  |  ROLE "<|content_image|>" END
              | ROLE "<|content_audio_input|><|audio_end|>" END
    END      := "<|end_message|>"

Rules (vLLM's, checked against its render server: ``tests/goldens/record_dsv32_render.py
--model inkling``, cases in ``inkling_render_cases.py``):

- Roles: system, developer (written as system), user, assistant, tool; any other is a 400.
- Content: a string is one text block (none when empty); a list gives a block per part: a
  string or a ``text`` / ``input_text`` part (or one without a type) its text (an empty one too),
  image and audio parts their bare markers (the engine's processor expands them); any other
  part type is a 400.
- Tools: the request's (the template kwargs' ``tools`` over them) and every developer message's
  ``tools`` are declared once, first: a JSON list of ``{description, name, parameters, type}``
  (missing description ``""``, parameters ``{}``, type ``"function"``), JSON here always meaning
  keys sorted at every level, no spaces, non-ASCII as is, NaN / Infinity refused. A tool without
  a function name is a 400. ``tool_choice`` changes nothing in the prompt.
- Reasoning: an assistant's ``reasoning`` (else ``reasoning_content``), when not empty, is its
  THINKING block; it must be a string.
- Calls: ``arguments`` is a JSON object: a string is parsed, and what is not JSON or not an
  object is ``{}`` (vLLM coerces a history's calls so that a bad one does not make the
  conversation unusable; a NaN parsed is refused when written); a name not a string is a 400.
  A call's ``id`` remembers its name.
- Tool results: the author is the message's ``name``, else the name of the call its
  ``tool_call_id`` answers, else none; the content is the text of its parts joined, a media
  part being a 400.
- Effort (:func:`effort_level`): ``reasoning_effort``, the request field's over the template
  kwarg's (the kwargs' merge, :mod:`tito.service.render_common`); unset is 0.9, the names none 0.0, minimal 0.1, low 0.2, medium 0.7, high 0.9, xhigh and max 0.99;
  another string or a non-number means no EFFORT block. A number outside [0, 0.99] is a 400;
  LEVEL is it to two decimals with trailing zeros cut (``0.0`` at least).
- ``add_generation_prompt`` opens the model's message. ``continue_final_message`` is refused,
  whatever ``add_generation_prompt`` says (the encoding cannot leave a message open; the render
  service checks it: :func:`tito.service.render_chat_parts.native_prompt`).

Errors are :class:`InklingEncodingError` (a 400 for the request).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tito.core.message_union import custom_typed
from tito.core.render_messages import TokenizeMessages

__all__ = ["MARKERS", "InklingEncodingError", "effort_level", "encode", "marker_ids",
           "tokenize_messages"]

#: every marker the encoding writes, with the other spellings a vocabulary may give it (an
#: Inkling vocabulary holds the XML content kind as one of its unused slots)
MARKERS: dict[str, tuple[str, ...]] = {
    name: (f"<|{name}|>", *extra) for name, extra in (
        ("message_user", ()), ("message_model", ()), ("message_system", ()),
        ("message_tool", ()), ("content_text", ()), ("content_image", ()),
        ("content_model_end_sampling", ()), ("content_thinking", ()),
        ("content_audio_input", ()), ("content_xml", ("<|unused_200024|>",)),
        ("content_invoke_tool_json", ()), ("end_message", ()), ("audio_end", ()))
}
_ROLE_MARKER = {"user": "message_user", "assistant": "message_model", "system": "message_system",
                "developer": "message_system", "tool": "message_tool"}
_IMAGE = frozenset({"image", "input_image", "image_url"})
_AUDIO = frozenset({"audio", "input_audio", "audio_url"})
_NAMED_EFFORT = {"none": 0.0, "minimal": 0.1, "low": 0.2, "medium": 0.7, "high": 0.9,
                 "xhigh": 0.99, "max": 0.99}
_MAX_EFFORT = 0.99


class InklingEncodingError(ValueError):
    """A conversation Inkling's encoding refuses (vLLM answers 400)."""


def marker_ids(lookup: Callable[[str], int | None]) -> dict[str, int]:
    """Marker name -> id, by ``lookup`` (a vocabulary's token -> id); ValueError naming the
    markers the vocabulary lacks."""
    ids: dict[str, int] = {}
    for name, spellings in MARKERS.items():
        found = next((i for i in map(lookup, spellings) if i is not None), None)
        if found is not None:
            ids[name] = found
    missing = [MARKERS[name][0] for name in MARKERS if name not in ids]
    if missing:
        raise ValueError(f"the vocabulary lacks Inkling's special tokens {missing}")
    return ids


def effort_level(value: Any) -> float | None:
    """The effort a ``reasoning_effort`` value asks (rules above); None: no EFFORT block."""
    if value is None:
        return 0.9
    if isinstance(value, str):
        return _NAMED_EFFORT.get(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        level = float(value)
    except OverflowError:  # an int beyond floats: out of range
        level = float("inf")
    if not 0.0 <= level <= _MAX_EFFORT:
        raise InklingEncodingError(f"Inkling reasoning_effort must be in [0.0, 0.99], got {level}")
    return level


def encode(messages: Sequence[Mapping[str, Any]], tools: Any, *,
           markers: Mapping[str, int], text: Callable[[str], list[int]],
           effort: float | None, add_generation_prompt: bool) -> list[int]:
    """The prompt ids of ``messages`` (the request's, as sent), ``tools`` (a list in OpenAI's
    shape, or a template kwarg's value: anything but a list is a 400),
    ``effort`` (:func:`effort_level`'s) and the generation prompt switch; ``markers``:
    :func:`marker_ids`, ``text``: a text's ids without special tokens added."""
    ids: list[int] = []

    def block(role: str, kind: str, body: str | None, author: str = "") -> None:
        ids.append(markers[role])
        if author:
            ids.extend(text(author))
        ids.append(markers[kind])
        if kind == "content_audio_input":
            ids.append(markers["audio_end"])
        elif body is not None:
            ids.extend(text(body))
        ids.append(markers["end_message"])

    declared = list(_items(tools, "tools"))
    for message in messages:  # (developer messages' tools join the request's)
        if message.get("role") == "developer":
            declared.extend(_items(message.get("tools"), "developer tools"))
    if declared:
        block("message_system", "content_xml", _declarations(declared), "tool_declare")
    names: dict[str, str] = {}  # call id -> its function's name
    for message in messages:
        role = message.get("role")
        if role not in _ROLE_MARKER:
            raise InklingEncodingError(
                f"unsupported Inkling message role {role!r}; expected one of "
                f"{sorted(_ROLE_MARKER)}")
        if effort is not None and role not in ("system", "developer"):
            block("message_system", "content_text", _effort_text(effort))
            effort = None
        if role == "tool":
            author = message.get("name") or names.get(str(message.get("tool_call_id") or ""), "")
            block("message_tool", "content_text", _tool_text(message.get("content")), str(author))
            continue
        if role == "assistant":
            reasoning = message.get("reasoning")
            if reasoning is None:
                reasoning = message.get("reasoning_content")
            if reasoning:
                if not isinstance(reasoning, str):
                    raise InklingEncodingError("assistant reasoning must be a string")
                block("message_model", "content_thinking", reasoning)
        for kind, body in _parts(message.get("content")):
            block(_ROLE_MARKER[role], kind, body)
        if role == "assistant":
            for call in _items(message.get("tool_calls"), "tool_calls"):
                name, body = _call(call)
                call_id = call.get("id")
                if call_id:
                    names[str(call_id)] = name
                block("message_model", "content_invoke_tool_json", body, name)
            ids.append(markers["content_model_end_sampling"])
    if effort is not None:
        block("message_system", "content_text", _effort_text(effort))
    if add_generation_prompt:
        ids.append(markers["message_model"])
    return ids


def tokenize_messages(body: Sequence[Any], messages: list[dict[str, Any]],
                      sent_calls: Mapping[int, Any]) -> TokenizeMessages:
    """This encoding's ``/tokenize`` fix-up (:class:`~tito.core.render_messages.TokenizeMessages`):
    the tokenize body types an assistant as OpenAI's when its custom type refuses it or sets no
    more fields (a null content, a ``reasoning: {}``, a number ``tool_call_id``:
    :func:`tito.core.message_union.custom_typed`); its calls are then an iterable that vLLM's
    chat preprocessing consumes (parsed, checked: the render's) before the encoding reads them,
    so the encoding writes none of them. (A non-assistant's ``sent_calls`` stay out: the
    encoding never reads them.)"""
    unwritten = [isinstance(sent, dict) and sent.get("role") == "assistant"
                 and "tool_calls" in sent and not custom_typed(sent) for sent in body]
    if not any(unwritten):
        return TokenizeMessages(messages)
    return TokenizeMessages(messages, [
        {k: v for k, v in msg.items() if k != "tool_calls"} if drop else msg
        for drop, msg in zip(unwritten, messages, strict=True)])


def _effort_text(level: float) -> str:
    digits = f"{level:.2f}".rstrip("0").rstrip(".")
    return f"Thinking effort level: {'0.0' if digits in ('0', '-0') else digits}"


def _items(value: Any, what: str) -> list[Any]:
    """A list field's items (absent or empty: none)."""
    if not value:
        return []
    if not isinstance(value, list):
        raise InklingEncodingError(f"{what} must be a list")
    return value


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InklingEncodingError(f"{what} must be an object, got {type(value).__name__}")
    return value


def _parts(content: Any) -> list[tuple[str, str | None]]:
    """(marker kind, text) per block of a message's content (rules above)."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [("content_text", content)]
    if not isinstance(content, list):
        raise InklingEncodingError("message content must be a string or a list of parts")
    out: list[tuple[str, str | None]] = []
    for part in content:
        if isinstance(part, str):
            out.append(("content_text", part))
            continue
        kind = _mapping(part, "a content part").get("type")
        if kind in (None, "text", "input_text"):
            body = part.get("text", "")
            out.append(("content_text", body if isinstance(body, str) else ""))
        elif kind in _IMAGE:
            out.append(("content_image", None))
        elif kind in _AUDIO:
            out.append(("content_audio_input", None))
        else:
            raise InklingEncodingError(f"unsupported content part type: {kind!r}")
    return out


def _tool_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for kind, body in _parts(content):
        if kind != "content_text":
            raise InklingEncodingError(
                f"Inkling tool response content must be text, got a part of kind {kind!r}")
        texts.append(body or "")
    return "".join(texts)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True,
                          separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise InklingEncodingError(str(exc)) from None  # (vLLM's words: json's)


def _declarations(tools: list[Any]) -> str:
    specs = []
    for tool in tools:
        tool = _mapping(tool, "a tool")
        function = _mapping(tool.get("function", {}), "a tool's function")
        if "name" not in function:
            raise InklingEncodingError("a tool's function has no name")
        specs.append({"description": function.get("description") or "", "name": function["name"],
                      "parameters": function.get("parameters") or {},
                      "type": tool.get("type", "function")})
    return _json(specs)


def _call(call: Any) -> tuple[str, str]:
    """A history tool call's name and CALL body."""
    function = _mapping(_mapping(call, "a tool call").get("function", {}), "a tool call's function")
    name = function.get("name")
    if not isinstance(name, str):
        raise InklingEncodingError("tool call function name must be a string")
    args = function.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            args = None
        except (ValueError, RecursionError) as exc:  # (digits beyond Python's limit, nesting)
            raise InklingEncodingError(f"tool call arguments: {exc}") from None
    if not isinstance(args, Mapping):
        args = {}
    return name, f'{{"name":{_json(name)},"args":{_json(args)}}}'
