"""Responses ``custom`` and ``namespace`` tools: what the model is shown, and how its calls of
them read back, as vLLM 0.33 maps them.

Rules (vLLM's ``tool_parsers/utils.py`` and ``entrypoints/openai/responses/utils.py``):

- a custom tool is shown as a function of the same name and description taking one string,
  ``input`` (:data:`CUSTOM_PARAMETERS`); a custom tool whose ``format`` is a grammar is refused
  before (:mod:`tito.protocol.raw_rules`), a text format is shown the same;
- a namespace's function tools are shown as functions named ``<namespace>__<name>``
  (:func:`flat_name`); its custom tools are not shown;
- input items: a ``function_call`` with a ``namespace`` calls the flat name, a
  ``custom_tool_call`` calls its tool with the arguments ``{"input": <its input>}``
  (:func:`encode_input`, JSON with non-ASCII kept);
- output: a call of a custom tool's name is a ``custom_tool_call`` item whose ``input`` is the
  shim's string (:mod:`tito.core.custom_input`); a call of a flat name of a namespace's function
  is a ``function_call`` item with that ``namespace`` and the function's own name
  (:func:`call_names`: what the stream carries to read them).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tito.protocol.responses import ResponsesTool

__all__ = ["CUSTOM_PARAMETERS", "call_names", "custom_function", "encode_input", "flat_name",
           "shown_tools"]

#: the parameters of the function a custom tool is shown as (vLLM's ``custom_tool_parameters``)
CUSTOM_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"input": {"type": "string",
                             "description": "The freeform text payload for this tool."}},
    "required": ["input"],
    "additionalProperties": False,
}


def flat_name(namespace: str, name: str) -> str:
    """The name a namespace's function is shown and called by."""
    return f"{namespace}__{name}"


def custom_function(name: str, description: str | None) -> dict[str, Any]:
    """The chat function definition a custom tool is shown as (a fresh copy each time: the chat
    render may change what it is given)."""
    out: dict[str, Any] = {"name": name}
    if description is not None:
        out["description"] = description
    out["parameters"] = json.loads(json.dumps(CUSTOM_PARAMETERS))
    return out


def encode_input(text: str) -> str:
    """A custom call's input as the shim's arguments (vLLM's ``encode_custom_tool_input``)."""
    return json.dumps({"input": text}, ensure_ascii=False)


def call_names(tools: Any) -> tuple[list[str], dict[str, str]]:
    """(the custom tools' names, flat name -> namespace of every namespace's function) of the
    ``Response``'s echoed ``tools`` (dicts): what the derender needs to read calls back. A
    custom tool's name wins over a namespace's flat name that equals it, as vLLM's batch
    output checks it first."""
    custom: list[str] = []
    spaces: dict[str, str] = {}
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "custom" and isinstance(tool.get("name"), str):
            custom.append(tool["name"])
        elif tool.get("type") == "namespace" and isinstance(tool.get("name"), str):
            for sub in tool.get("tools") or ():
                if isinstance(sub, dict) and sub.get("type") == "function" \
                        and isinstance(sub.get("name"), str):
                    spaces[flat_name(tool["name"], sub["name"])] = tool["name"]
    return custom, {k: v for k, v in spaces.items() if k not in custom}


def shown_tools(tools: list[ResponsesTool]) -> list[dict[str, Any]]:
    """The functions the model is shown (vLLM 0.33's ``get_function_tools``), in request order,
    as chat function definitions: a function tool as it is, a custom tool as the function
    :func:`tito.service.responses_custom.custom_function` makes of it, a namespace's function
    tools named ``<namespace>__<name>`` (its custom tools are not shown); built-in tools are
    none."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        if tool.type == "function":
            out.append(tool.model_dump(exclude={"type"}, exclude_none=True))
        elif tool.type == "custom":
            out.append(custom_function(tool.name or "", tool.description))
        elif tool.type == "namespace":
            out.extend({**{k: v for k, v in sub.items() if k != "type" and v is not None},
                        "name": flat_name(tool.name or "", sub["name"])}
                       for sub in tool.namespace_tools() if sub.get("type") == "function")
    return out
