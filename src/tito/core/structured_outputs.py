"""OpenAI ``response_format`` / ``tool_choice`` -> the engine's ``structured_outputs`` constraint.

Why apart from the sampling mapping (:mod:`tito.core.sampling`, whose header states the rule):
the constraint is built from the request's format and tools, not from its sampling fields, and
it must equal vLLM 0.33's (its ``to_sampling_params`` and the Mistral parser's guided schema).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tito.errors import BadRequest, quote

__all__ = ["mistral_calls_schema", "structured_outputs_for"]

_KINDS = ("json", "regex", "choice", "grammar", "json_object", "structural_tag")


def _from_response_format(response_format: Mapping[str, Any]) -> dict[str, Any]:
    kind = response_format.get("type")
    if kind == "text" or kind is None:
        return {}
    if kind == "json_object":
        return {"json_object": True}
    if kind == "json_schema":
        spec = response_format.get("json_schema")
        if not isinstance(spec, Mapping):
            raise BadRequest(
                "When response_format type is 'json_schema', the 'json_schema' field must be "
                "provided.",
                param="response_format",
            )
        # no schema: vLLM's override is ``json=None`` (checked by the caller against the rest)
        return {"json": spec.get("schema", spec.get("json_schema"))}
    if kind == "structural_tag":
        return {"structural_tag": json.dumps(dict(response_format))}
    raise BadRequest(
        f"Unsupported response_format type '{quote(kind)}'; expected 'text', 'json_object', "
        "'json_schema' or 'structural_tag'.",
        param="response_format",
    )


def _tool_schema(tool: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
    function = tool.get("function") or {}
    return str(function.get("name")), function.get("parameters")


def structured_outputs_for(
    *,
    response_format: Mapping[str, Any] | None = None,
    structured_outputs: Mapping[str, Any] | None = None,
    tool_choice: Any = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    parallel_tool_calls: bool | None = True,
) -> dict[str, Any] | None:
    """The ``structured_outputs`` constraint for the engine, or None (rules in the module doc)."""
    result: dict[str, Any] = {
        k: v for k, v in (structured_outputs or {}).items() if v is not None
    }
    if response_format is not None:
        result.update(_from_response_format(response_format))
        # a json_schema without its schema overrides ``json`` with None (vLLM's
        # ``replace(structured_outputs, json=None)``): the request's own constraint stays (a
        # ``json_object: false`` too: fuzz_render s846-220), none left is the 400
        if "json" in result and result["json"] is None:
            del result["json"]
            if not any(result.get(k) is not None for k in _KINDS):
                raise BadRequest(  # StructuredOutputsParams' own check: no param
                    "You must use one kind of structured outputs constraint but none are "
                    "specified."
                )
    kinds = [k for k in _KINDS if result.get(k) is not None]
    if len(kinds) > 1:
        raise BadRequest(
            "You can only use one kind of structured outputs constraint but multiple are "
            f"specified: {kinds}.",
            param="response_format",
        )
    if tools:
        if tool_choice == "required":
            anyof = []
            defs: dict[str, Any] = {}
            for tool in tools:
                name, params = _tool_schema(tool)
                params = dict(params) if params else {"type": "object", "properties": {}}
                for def_name, def_schema in (params.pop("$defs", None) or {}).items():
                    if def_name in defs and defs[def_name] != def_schema:
                        raise BadRequest(
                            f"Tool definition '{def_name}' has multiple schemas, which is not "
                            "supported.",
                            param="tools",
                        )
                    defs[def_name] = def_schema
                anyof.append({
                    "properties": {"name": {"type": "string", "enum": [name]}, "parameters": params},
                    "required": ["name", "parameters"],
                })
            schema: dict[str, Any] = {
                "type": "array",
                "minItems": 1,
                "items": {"type": "object", "anyOf": anyof},
            }
            if parallel_tool_calls is False:
                schema["maxItems"] = 1
            if defs:
                schema["$defs"] = defs
            return {"json": schema}
        if isinstance(tool_choice, Mapping):
            wanted = (tool_choice.get("function") or {}).get("name")
            for tool in tools:
                name, params = _tool_schema(tool)
                if name == wanted:
                    # empty or missing parameters still constrain the arguments to an object
                    return {"json": params or {"type": "object", "properties": {}}}
    return result or None


def mistral_calls_schema(
    tools: Sequence[Mapping[str, Any]], tool_choice: Any
) -> dict[str, Any] | None:
    """vLLM 0.33's ``MistralParser._build_guided_schema_pre_v11``: required / named calls as
    Mistral's own list ``[{"name": N, "arguments": {...}}]`` (one item when named), or None
    (the named tool is not in ``tools``)."""
    if tool_choice == "required":
        chosen, extra = list(tools), {}
    else:
        wanted = ((tool_choice or {}).get("function") or {}).get("name") \
            if isinstance(tool_choice, Mapping) else None
        chosen, extra = [t for t in tools if _tool_schema(t)[0] == wanted], {"maxItems": 1}
        if not chosen:
            return None
    any_of = []
    for tool in chosen:
        name, params = _tool_schema(tool)
        any_of.append({"type": "object", "properties": {
            "name": {"type": "string", "enum": [name]},
            "arguments": params or {"type": "object"}}, "required": ["name", "arguments"]})
    return {"type": "array", "minItems": 1, **extra, "items": {"type": "object", "anyOf": any_of}}
