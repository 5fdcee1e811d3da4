"""The Responses ``input`` items' schema, as vLLM 0.33's request types them (the openai SDK's
union of input items).

Why a module of its own: the union is wide and its checks are the schema's (a 400 before
render reads anything): item types, a message's role and parts, call and call output items,
reasoning items, output messages with their annotations. The render's own reading of the items
(what vLLM's conversion refuses later) is :mod:`tito.service.responses_items`'.
"""

from __future__ import annotations

from typing import Any

from tito.core.message_union import breakpoint_fits
from tito.core.tag_model import lax_int

__all__ = ["INPUT_ITEM_TYPES", "check_input_items", "input_part_fits"]

#: the input item types of vLLM 0.33's Responses request (the openai SDK's union): another
#: ``type`` is a schema error
INPUT_ITEM_TYPES = frozenset({
    "message", "file_search_call", "computer_call", "computer_call_output", "web_search_call",
    "function_call", "function_call_output", "tool_search_call", "tool_search_output",
    "additional_tools", "configuration_update", "reasoning", "compaction",
    "image_generation_call", "code_interpreter_call", "local_shell_call",
    "local_shell_call_output", "shell_call", "shell_call_output", "apply_patch_call",
    "apply_patch_call_output", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
    "mcp_call", "custom_tool_call_output", "custom_tool_call", "compaction_trigger",
    "item_reference", "program", "program_output",
})

#: openai's ``ImageDetail`` and an input file's ``detail``
_IMAGE_DETAILS = ("low", "high", "auto", "original")
_FILE_DETAILS = ("auto", "low", "high")


def input_part_fits(part: Any, *, listed: bool, image_detail: str = "") -> bool:
    """Whether ``part`` validates as one of the input part types of a Responses item, as
    pydantic checks openai's typed dicts (extra keys ignored): ``listed``, a
    ``function_call_output``'s ``ResponseInput{Text,Image,File}ContentParam`` (an image's
    ``detail`` optional, the optional keys nullable); else a message's or a
    ``custom_tool_call_output``'s ``ResponseInput{Text,Image,File}Param`` (an image needs its
    ``detail``, which vLLM 0.33 writes ``image_detail`` = ``"auto"`` into a message's image part
    without one; a file's ``file_data``, ``file_url`` and ``filename`` strings). vLLM refuses a
    part that fits none: with the body (a schema error), but a ``custom_tool_call_output``'s at
    render (its ``400``; fuzz_render seed 339 case 57)."""
    if not isinstance(part, dict) or not breakpoint_fits(part, nullable=listed):
        return False
    kind = part.get("type")
    if kind == "input_text":
        return isinstance(part.get("text"), str)
    if kind == "input_image":
        detail = part.get("detail", None if listed else image_detail)
        return (detail in _IMAGE_DETAILS or listed and detail is None) and all(
            _optional(part, key, nullable=True) for key in ("file_id", "image_url"))
    if kind == "input_file":
        return part.get("detail", "auto") in _FILE_DETAILS and _optional(
            part, "file_id", nullable=True) and all(
            _optional(part, key, nullable=listed) for key in ("file_data", "file_url", "filename"))
    return False


def _optional(part: dict[str, Any], key: str, *, nullable: bool) -> bool:
    """An optional string key of a part: absent, a string, or (``nullable``) null."""
    value = part.get(key, "")
    return isinstance(value, str) or nullable and value is None


def _check_call_item(item: dict[str, Any]) -> None:
    """A call or call output item as vLLM 0.33's input union takes it (the SDK's param types,
    and for the calls its output item models too), else a schema error: a call's ``call_id``,
    ``name`` and ``arguments`` / ``input`` strings; an output's ``output`` a string or a list, a
    ``custom_tool_call_output``'s ``call_id`` a string and a ``function_call_output``'s a string
    or null (it may be left out); a ``namespace`` a string or null; an ``id`` a string or, but
    for a ``custom_tool_call_output`` (the param type alone), null (fuzz_render seeds 700-). A
    ``function_call_output``'s list of parts is checked here (openai's ``List``), a
    ``custom_tool_call_output``'s at render (openai's ``Iterable``, which pydantic reads lazily:
    any JSON container, an object iterating its keys; :func:`input_part_fits`)."""
    kind = item["type"]
    required = {"function_call": ("call_id", "name", "arguments"),
                "custom_tool_call": ("call_id", "name", "input"),
                "custom_tool_call_output": ("call_id",)}.get(kind, ())
    if not all(isinstance(item.get(key), str) for key in required):
        raise ValueError(f"a {kind} item needs a string {', '.join(required)}.")
    output = item.get("output")
    if kind == "custom_tool_call_output" and not isinstance(output, (str, list, dict)):
        raise ValueError(f"a {kind} item's output is a string or an iterable of parts.")
    if kind == "function_call_output" and not (isinstance(output, str) or isinstance(
            output, list) and all(input_part_fits(p, listed=True) for p in output)):
        raise ValueError(f"a {kind} item's output is a string or a list of input_text, "
                         "input_image or input_file parts.")
    if not isinstance(item.get("call_id"), (str, type(None))):
        raise ValueError(f"a {kind} item's call_id must be a string.")
    if not isinstance(item.get("namespace"), (str, type(None))):
        raise ValueError("a call item's namespace must be a string.")
    if "id" in item and not (isinstance(item["id"], str) or item["id"] is None
                             and kind != "custom_tool_call_output"):
        raise ValueError(f"a {kind} item's id must be a string.")
    if kind in ("function_call", "function_call_output") and item.get("status") not in (
            None, *_ITEM_STATUSES):  # (a custom call's is not typed)
        raise ValueError(f"a {kind} item's status is one of {', '.join(_ITEM_STATUSES)}.")
    if kind == "function_call_output" and not isinstance(item.get("name"), (str, type(None))):
        raise ValueError(f"a {kind} item's name must be a string.")


_ITEM_STATUSES = ("in_progress", "completed", "incomplete")
_PHASES = (None, "commentary", "final_answer")
#: an output_text annotation's type -> its required fields and their JSON types
_ANNOTATIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "url_citation": {"url": str, "title": str, "start_index": int, "end_index": int},
    "file_citation": {"file_id": str, "filename": str, "index": int},
    "container_file_citation": {"container_id": str, "file_id": str, "filename": str,
                                "start_index": int, "end_index": int},
    "file_path": {"file_id": str, "index": int},
}


def _annotation_fits(value: Any) -> bool:
    """One ``output_text`` annotation of the SDK's union (its required fields typed; an index
    as pydantic's lax int reads it, :func:`tito.core.tag_model.lax_int`: ``"1.0"`` and
    ``"1_0"`` are indexes, ``"\u0663"`` and ``1e20`` are not, as in vLLM 0.33)."""
    kind = value.get("type") if isinstance(value, dict) else None
    fields = _ANNOTATIONS.get(kind) if isinstance(kind, str) else None  # (a dict: unhashable)
    return fields is not None and all(
        lax_int(value.get(k)) is not None if t is int else isinstance(value.get(k), t)
        for k, t in fields.items())


def _check_reasoning_item(item: dict[str, Any]) -> None:
    """A reasoning item as vLLM 0.33's input union takes it: a ``summary`` (of any shape here:
    its parts are checked where the item is converted, :mod:`tito.service.responses_items`),
    an ``id`` a string when given, a ``status`` one of the item statuses or null, an
    ``encrypted_content`` a string or null."""
    if item.get("summary") is None:
        raise ValueError("a reasoning item needs a summary (a list of summary_text parts).")
    if "id" in item and not isinstance(item["id"], str):
        raise ValueError("a reasoning item's id must be a string.")
    if item.get("status") not in (None, *_ITEM_STATUSES):
        raise ValueError(f"a reasoning item's status is one of {', '.join(_ITEM_STATUSES)}.")
    if not isinstance(item.get("encrypted_content"), (str, type(None))):
        raise ValueError("a reasoning item's encrypted_content must be a string.")


def _check_output_parts(item: dict[str, Any]) -> bool:
    """A message with ``output_text`` / ``refusal`` parts is an output message (the other
    message types take input parts only): an assistant's, ``type: "message"`` written out, and
    every part an ``output_text`` with its text or a ``refusal`` (vLLM 0.33's union; recorded:
    ``render_fuzz_order``; its id, status and annotations may be missing); whether it is one."""
    parts = item["content"]
    if not isinstance(parts, list) or not any(
            isinstance(p, dict) and p.get("type") in ("output_text", "refusal") for p in parts):
        return False
    if item.get("role") != "assistant" or item.get("type") != "message":
        raise ValueError("a message with output_text or refusal parts is an output message: an "
                         "assistant's, with type 'message'.")
    for p in parts:
        if not (isinstance(p, dict) and (
                p.get("type") == "output_text" and isinstance(p.get("text"), str)
                or p.get("type") == "refusal" and isinstance(p.get("refusal"), str))):
            raise ValueError("an output message's parts are output_text or refusal parts.")
        if "annotations" in p and not (isinstance(p["annotations"], list) and all(
                _annotation_fits(a) for a in p["annotations"])):
            raise ValueError("an output_text part's annotations are a list of url_citation, "
                             "file_citation, container_file_citation or file_path objects.")
        if not isinstance(p.get("logprobs"), (list, type(None))):
            raise ValueError("an output_text part's logprobs are a list.")
    if "id" in item and not isinstance(item["id"], str):
        raise ValueError("an output message's id must be a string.")
    if "status" in item and item["status"] not in _ITEM_STATUSES:
        raise ValueError(f"an output message's status is one of {', '.join(_ITEM_STATUSES)}.")
    _check_phase(item)
    return True


def _check_phase(item: dict[str, Any]) -> None:
    """A message's ``phase``, typed by the easy input message and the output message (the
    other message type, a user / system / developer message of input parts, has none: there
    any value is an unread extra)."""
    if item.get("phase") not in _PHASES:
        raise ValueError(f"a message's phase is one of {', '.join(map(str, _PHASES[1:]))}.")


def check_input_items(value: Any) -> None:
    """A message item (``type`` message or none) has a role of the union vLLM validates
    against (user, assistant, system, developer) and content, and every item fits its type:
    else a schema error (``ValueError``, raised inside the request's validator)."""
    if isinstance(value, list):
        for item in value:
            kind = item.get("type", "message") if isinstance(item, dict) else None
            if not isinstance(kind, str) or kind not in INPUT_ITEM_TYPES:
                raise ValueError("an input item is an object of one of the Responses input "
                                 "item types.")
            if kind in ("custom_tool_call", "function_call", "function_call_output",
                        "custom_tool_call_output"):
                _check_call_item(item)
            if kind == "reasoning":
                _check_reasoning_item(item)
            if kind != "message":
                continue
            if item.get("role") not in ("user", "assistant", "system", "developer"):
                raise ValueError("a message's role must be 'user', 'assistant', 'system' or "
                                 "'developer'.")
            if not isinstance(item.get("content"), (str, list)):
                raise ValueError("a message needs content (a string or a list of parts).")
            if _check_output_parts(item):
                continue
            if isinstance(item["content"], list) and not all(
                    input_part_fits(p, listed=False, image_detail="auto")
                    for p in item["content"]):
                raise ValueError("a message's parts are input_text, input_image or "
                                 "input_file parts.")
            if isinstance(item["content"], str) or item["role"] == "assistant":
                _check_phase(item)  # (only the easy input message takes it)
