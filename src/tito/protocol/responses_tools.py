"""The Responses request's ``tools``: vLLM 0.33's union of tool types (the openai SDK's), each
with the fields it requires, as one model whose ``type`` says which.

Why a module of its own: the union is wide (the hosted tools, ``custom`` tools with their
input ``format``, ``namespace`` tools holding function and custom tools) and its checks are
the schema's: a tool outside it is a schema error (400), before render reads any of it
(:mod:`tito.service.responses_custom` says what the model is shown of each).
"""

from typing import Any

from pydantic import model_validator

from tito.protocol.common import OpenAIBaseModel

__all__ = ["TOOL_TYPES", "ResponsesTool"]

#: the tool types of vLLM 0.33's Responses request (the openai SDK's union) -> the fields each
#: requires besides ``type``; a tool of another type is a schema error
TOOL_TYPES: dict[str, tuple[str, ...]] = {
    "function": ("name",), "file_search": ("vector_store_ids",), "computer": (),
    "computer_use_preview": ("display_height", "display_width", "environment"),
    "web_search": (), "web_search_2025_08_26": (), "mcp": ("server_label",),
    "code_interpreter": ("container",), "programmatic_tool_calling": (),
    "image_generation": (), "local_shell": (), "shell": (), "custom": ("name",),
    "namespace": ("description", "name", "tools"), "tool_search": (),
    "web_search_preview": (), "web_search_preview_2025_03_11": (), "apply_patch": (),
}

class ResponsesTool(OpenAIBaseModel):
    """A tool: a function in the Responses' flat form (``{"type": "function", "name", ...}``),
    or one of the built-in kinds vLLM's schema takes (:data:`TOOL_TYPES`; their fields extras)."""

    type: str = "function"
    name: str | None = None
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None

    @model_validator(mode="after")
    def _known_kind(self) -> "ResponsesTool":
        """vLLM's union: a known type with its required fields, else a schema error."""
        required = TOOL_TYPES.get(self.type)
        if required is None:
            raise ValueError(f"tool type {self.type!r} is not one of vLLM's Responses tools.")
        given = self.model_fields_set | set(self.model_extra or {})
        missing = [f for f in required if f not in given or getattr(self, f, 0) is None]
        if missing:
            raise ValueError(f"a {self.type!r} tool needs {', '.join(missing)}.")
        if self.type == "custom":
            _check_custom(self.model_dump(include={"name", "description"})
                          | dict(self.model_extra or {}), "a custom tool")
        elif self.type == "namespace":
            self._check_namespace()
        return self

    def _check_namespace(self) -> None:
        """The SDK's ``NamespaceTool``: a string name and description, and a list of function
        (a string ``name``) and custom tools."""
        extra = self.model_extra or {}
        if not isinstance(self.name, str) or not isinstance(self.description, str):
            raise ValueError("a namespace tool needs a string name and description.")
        subs = extra.get("tools")
        if not isinstance(subs, list):
            raise ValueError("a namespace tool's tools must be a list.")
        for sub in subs:
            if not isinstance(sub, dict) or sub.get("type") not in ("function", "custom"):
                raise ValueError("a namespace tool's tools are function or custom tools.")
            _check_custom(sub, f"a namespace's {sub['type']} tool")

    def namespace_tools(self) -> list[dict[str, Any]]:
        """A namespace tool's own tools (checked: :meth:`_check_namespace`)."""
        return list((self.model_extra or {}).get("tools") or ())


def _check_custom(tool: dict[str, Any], what: str) -> None:
    """A function or custom tool of the SDK's union: a string ``name``; a custom one's
    ``format`` text or a grammar with a string ``definition`` and a ``lark`` / ``regex``
    ``syntax`` (a top-level tool's grammar, of any shape, is refused earlier by vLLM's request
    rule; a namespace's is only validated, then not shown: fuzz_render seed 710)."""
    if not isinstance(tool.get("name"), str):
        raise ValueError(f"{what} needs a string name.")
    if not isinstance(tool.get("description"), (str, type(None))):
        raise ValueError(f"{what}'s description must be a string.")
    fmt = tool.get("format")
    if tool.get("type", "custom") == "custom" and fmt is not None and (
            not isinstance(fmt, dict) or fmt.get("type") not in ("text", "grammar")):
        raise ValueError(f"{what}'s format must be a text or a grammar format.")
    if isinstance(fmt, dict) and fmt["type"] == "grammar" and (
            not isinstance(fmt.get("definition"), str) or fmt.get("syntax") not in (
                "lark", "regex")):
        raise ValueError(f"{what}'s grammar format needs a string definition and a 'lark' or "
                         "'regex' syntax.")
