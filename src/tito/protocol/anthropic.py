"""Anthropic Messages API request shapes: what ``POST /v1/messages/render`` consumes.

Why these names and rules: they are vLLM 0.33's (``vllm.entrypoints.anthropic.protocol``), so a
body vLLM's render server accepts is accepted here and a body it refuses gets the same 400 (same
``param``, same validator message): ``max_tokens`` required and positive, a non-empty ``model``,
``thinking.budget_tokens`` at least 1024 and below ``max_tokens`` (except on a prefill leg,
``kv_transfer_params.do_remote_decode``), at most 4 ``stop_sequences`` (``VLLM_MAX_STOP_STRINGS``),
``tool_choice.name`` for ``type: "tool"``, ``tool_addition`` / ``tool_removal`` blocks only in
``role: "system"`` messages, a tool's ``input_schema`` an object (``type`` defaults to
``"object"``). Unknown fields are ignored, as vLLM's plain ``BaseModel`` does. Only the request is
modelled: vLLM has no Messages derender, a rendered Messages request is derendered as chat.
Schemas are built on first use (``WireModel``); only the Messages function imports this module.
"""

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from tito.protocol.common import WireModel

__all__ = [
    "AnthropicContentBlock",
    "AnthropicJsonOutputFormat",
    "AnthropicMessage",
    "AnthropicMessagesRequest",
    "AnthropicOutputConfig",
    "AnthropicThinkingConfigAdaptive",
    "AnthropicThinkingConfigDisabled",
    "AnthropicThinkingConfigEnabled",
    "AnthropicTool",
    "AnthropicToolChangeDefinition",
    "AnthropicToolChangeReference",
    "AnthropicToolChoice",
]

#: vLLM's ``VLLM_MAX_STOP_STRINGS`` default: the most ``stop_sequences`` a request may send.
MAX_STOP_SEQUENCES = 4

AnthropicEffort = Literal["low", "medium", "high", "xhigh", "max"]
AnthropicThinkingDisplay = Literal["summarized", "omitted", "updates"]
_TOOL_CHANGES = ("tool_addition", "tool_removal")


class AnthropicTool(WireModel):
    """A tool: ``input_schema`` is the JSON schema of its input (an object by default)."""

    name: str
    description: str | None = None
    input_schema: dict[str, Any]
    strict: bool | None = None
    defer_loading: bool | None = None

    @field_validator("input_schema")
    @classmethod
    def _default_object(cls, value: dict[str, Any]) -> dict[str, Any]:
        if "type" not in value:
            value["type"] = "object"
        return value


class AnthropicToolChangeReference(WireModel):
    """A tool named by a ``tool_addition`` / ``tool_removal`` block (declared in ``tools``)."""

    type: Literal["tool_reference"]
    name: str


class AnthropicToolChangeDefinition(WireModel):
    """A tool defined by value in a ``tool_addition`` block."""

    type: Literal["tool_definition"]
    definition: AnthropicTool


AnthropicToolChange = Annotated[
    AnthropicToolChangeReference | AnthropicToolChangeDefinition, Field(discriminator="type")
]


class AnthropicContentBlock(WireModel):
    """One content block; which fields count depends on ``type`` (as vLLM: one flat model)."""

    type: Literal["text", "image", "tool_use", "tool_result", "tool_reference", "thinking",
                  "redacted_thinking", "tool_addition", "tool_removal"]
    text: str | None = None
    source: dict[str, Any] | None = None
    id: str | None = None
    tool_use_id: str | None = None
    name: str | None = None
    input: dict[str, Any] | None = None
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = None
    tool_name: str | None = None
    thinking: str | None = None
    signature: str | None = None
    data: str | None = None
    tool: AnthropicToolChange | None = None

    @model_validator(mode="after")
    def _tool_change(self) -> "AnthropicContentBlock":
        if self.type not in _TOOL_CHANGES:
            return self
        if self.tool is None:
            raise ValueError(f"tool is required for {self.type} blocks")
        if self.type == "tool_removal" and self.tool.type != "tool_reference":
            raise ValueError("tool_removal only accepts a tool_reference")
        return self


def _reject_tool_changes(content: str | list[AnthropicContentBlock] | None) -> None:
    if content is None or isinstance(content, str):
        return
    for block in content:
        if block.type in _TOOL_CHANGES:
            raise ValueError(f'{block.type} blocks are only allowed in messages with role "system"')


class AnthropicMessage(WireModel):
    """One turn: a string or a list of blocks."""

    role: Literal["user", "assistant", "system"]
    content: str | list[AnthropicContentBlock]

    @model_validator(mode="after")
    def _tool_changes_in_system_only(self) -> "AnthropicMessage":
        if self.role != "system":
            _reject_tool_changes(self.content)
        return self


class AnthropicToolChoice(WireModel):
    """``auto`` / ``any`` (chat's ``required``) / ``tool`` (named) / ``none``."""

    type: Literal["auto", "any", "tool", "none"]
    name: str | None = None
    disable_parallel_tool_use: bool | None = None

    @model_validator(mode="after")
    def _name_for_tool(self) -> "AnthropicToolChoice":
        if self.type == "tool" and not self.name:
            raise ValueError("tool_choice.name is required when type is 'tool'")
        return self


class AnthropicJsonOutputFormat(WireModel):
    """``output_config.format``: a JSON schema the answer must follow."""

    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    type: Literal["json_schema"] = "json_schema"


class AnthropicOutputConfig(WireModel):
    effort: AnthropicEffort | None = None
    format: AnthropicJsonOutputFormat | None = None


class AnthropicThinkingConfigEnabled(WireModel):
    """Thinking with a token budget (``display`` accepted, ignored: reasoning is kept)."""

    type: Literal["enabled"]
    budget_tokens: int = Field(ge=1024)
    display: AnthropicThinkingDisplay | None = None


class AnthropicThinkingConfigDisabled(WireModel):
    type: Literal["disabled"]


class AnthropicThinkingConfigAdaptive(WireModel):
    type: Literal["adaptive"]
    display: AnthropicThinkingDisplay | None = None


AnthropicThinkingConfig = Annotated[
    AnthropicThinkingConfigEnabled | AnthropicThinkingConfigDisabled
    | AnthropicThinkingConfigAdaptive,
    Field(discriminator="type"),
]


class AnthropicMessagesRequest(WireModel):
    """The Messages create request with vLLM 0.33's extensions (``cache_salt``,
    ``kv_transfer_params``, ``vllm_xargs``, ``chat_template_kwargs``...)."""

    model: str
    messages: list[AnthropicMessage]
    max_tokens: int
    metadata: dict[str, Any] | None = None
    output_config: AnthropicOutputConfig | None = None
    thinking: AnthropicThinkingConfig | None = None
    stop_sequences: Annotated[list[str], Field(max_length=MAX_STOP_SEQUENCES)] | None = None
    stream: bool | None = False
    system: str | list[AnthropicContentBlock] | None = None
    temperature: float | None = None
    tool_choice: AnthropicToolChoice | None = None
    tools: list[AnthropicTool] | None = None
    top_k: int | None = None
    top_p: float | None = None
    # vLLM's extensions
    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    cache_salt: str | None = Field(default=None, min_length=1, max_length=1024)
    watermarking: bool | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    vllm_xargs: dict[str, str | int | float | list[str | int | float]] | None = None
    chat_template_kwargs: dict[str, Any] | None = None

    @field_validator("model")
    @classmethod
    def _model(cls, value: str) -> str:
        if not value:
            raise ValueError("Model is required")
        return value

    @field_validator("max_tokens")
    @classmethod
    def _max_tokens(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("max_tokens must be positive")
        return value

    @field_validator("system")
    @classmethod
    def _system(cls, value: str | list[AnthropicContentBlock] | None) -> Any:
        _reject_tool_changes(value)
        return value

    @model_validator(mode="before")
    @classmethod
    def _return_mm_kwargs_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("return_mm_kwargs") is False \
                and "mm_payload" not in data:
            data = {**data, "mm_payload": "none"}
        return data

    @model_validator(mode="after")
    def _thinking_budget(self) -> "AnthropicMessagesRequest":
        if self.kv_transfer_params and self.kv_transfer_params.get("do_remote_decode"):
            return self  # a prefill leg (max_tokens=1) never decodes
        if isinstance(self.thinking, AnthropicThinkingConfigEnabled) \
                and self.thinking.budget_tokens >= self.max_tokens:
            raise ValueError("thinking.budget_tokens must be less than max_tokens")
        return self
