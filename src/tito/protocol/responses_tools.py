"""The Responses request's ``tools``: vLLM 0.33's union of tool types (the openai SDK's), each
with the fields it requires, as one model whose ``type`` says which.

Why a module of its own: the union is wide (the hosted tools, ``custom`` tools with their
input ``format``, ``namespace`` tools holding function and custom tools) and its checks are
the schema's: a tool outside it is a schema error (400), before render reads any of it
(:mod:`tito.service.responses_custom` says what the model is shown of each).
"""

from typing import Any

from pydantic import ValidationError, model_validator

from tito.protocol.common import OpenAIBaseModel

__all__ = ["TOOL_TYPES", "ResponsesTool"]

#: the tool types of vLLM 0.33's Responses request (the openai SDK's union): a tool of another
#: type is a schema error (each one's shape: :data:`tito.protocol.responses_tool_types.TOOL_MODELS`)
TOOL_TYPES = frozenset({
    "function", "file_search", "computer", "computer_use_preview", "web_search",
    "web_search_2025_08_26", "mcp", "code_interpreter", "programmatic_tool_calling",
    "image_generation", "local_shell", "shell", "custom", "namespace", "tool_search",
    "web_search_preview", "web_search_preview_2025_03_11", "apply_patch",
})
#: the keys of a plain function tool, checked here without its model
_FUNCTION_KEYS = frozenset({"type", "name", "description", "parameters", "strict"})
_NONE = type(None)


def _plain_function(data: dict[str, Any]) -> bool:
    """A function tool whose every value has its exact type (what most requests send): its
    model would take it as it is, so it is not built (building the tool models costs ~40 ms,
    once per process: only a request with another kind of tool, or values to coerce, pays)."""
    return (data.keys() <= _FUNCTION_KEYS and type(data.get("name")) is str
            and type(data.get("description")) in (str, _NONE)
            and type(data.get("parameters")) in (dict, _NONE)
            and type(data.get("strict")) in (bool, _NONE))


class ResponsesTool(OpenAIBaseModel):
    """A tool: a function in the Responses' flat form (``{"type": "function", "name", ...}``),
    or one of the other kinds vLLM's schema takes (:data:`TOOL_TYPES`; their fields extras),
    each checked against its shape (:mod:`tito.protocol.responses_tool_types`). ``name``,
    ``description``, ``parameters`` and ``strict`` are a function, custom or namespace tool's
    (checked, and coerced, by its shape); on another kind they are unchecked extras."""

    type: str = "function"
    name: Any = None
    description: Any = None
    parameters: Any = None
    strict: Any = None

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        """vLLM's union: a known type, the tool valid for its shape, else a schema error."""
        if not isinstance(data, dict):
            return data  # (the model's own error)
        kind = data.get("type", "function")
        if not isinstance(kind, str) or kind not in TOOL_TYPES:
            raise ValueError(f"tool type {kind!r} is not one of vLLM's Responses tools.")
        if kind == "function" and _plain_function(data):
            return data
        from tito.protocol.responses_tool_types import TOOL_MODELS  # (see _plain_function)

        try:
            shaped = TOOL_MODELS[kind].model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err.get("loc", ()))
            raise ValueError(f"a {kind!r} tool: {where}: {err.get('msg')}") from None
        if kind in ("function", "custom", "namespace"):  # its values as the shape read them
            data = {**data, **{k: getattr(shaped, k) for k in ("name", "description",
                                                                "parameters", "strict")
                               if k in data and k in type(shaped).model_fields}}
        return data

    def namespace_tools(self) -> list[dict[str, Any]]:
        """A namespace tool's own tools (checked by its shape)."""
        return list((self.model_extra or {}).get("tools") or ())
