"""The shapes of the Responses tools, one model per ``type``, as vLLM 0.33's request types them.

Why: vLLM types ``tools`` as the openai SDK's union of tool types, so every field of a tool
is checked (a hosted tool's options, a function tool's ``allowed_callers``...) and a tool
matching no member is its schema error (400). tito serves only function, custom and namespace
tools, but must refuse what vLLM refuses and take what it takes: a field another kind has
(``name`` on a ``web_search_preview`` tool) is an unknown extra there, never checked.

Rules: one model per tool type (``TOOL_MODELS``), fields typed as the SDK types them (all
optional unless marked required), unknown fields allowed (extras), values validated in
pydantic's lax mode like vLLM's. Imported lazily by :mod:`tito.protocol.responses_tools`, only
for a request with tools: building these models is the cost of a first such request, not of
a cold start.
"""

from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TOOL_MODELS"]

Callers = list[Literal["direct", "programmatic"]] | None
MemoryLimit = Literal["1g", "4g", "16g", "64g"] | None


class _Open(BaseModel):
    """A shape that keeps fields it does not declare (the SDK's models allow extras)."""

    model_config = ConfigDict(extra="allow")


class FunctionTool(_Open):
    name: str
    parameters: dict[str, Any] | None = None
    strict: bool | None = None
    description: str | None = None
    allowed_callers: Callers = None
    async_: bool | None = Field(default=None, alias="async")
    defer_loading: bool | None = None
    output_schema: dict[str, Any] | None = None


class _TextFormat(_Open):
    type: Literal["text"]


class _GrammarFormat(_Open):
    type: Literal["grammar"]
    definition: str
    syntax: Literal["lark", "regex"]


class CustomTool(_Open):
    name: str
    description: str | None = None
    format: Union[_TextFormat, _GrammarFormat] | None = None  # noqa: UP007
    allowed_callers: Callers = None
    async_: bool | None = Field(default=None, alias="async")
    defer_loading: bool | None = None


class _NamespaceFunction(FunctionTool):
    """A namespace's function: its ``type`` written out, its ``parameters`` any value."""

    type: Literal["function"]
    parameters: Any = None


class _NamespaceCustom(CustomTool):
    type: Literal["custom"]


class NamespaceTool(_Open):
    name: str
    description: str
    tools: list[Union[_NamespaceFunction, _NamespaceCustom]]  # noqa: UP007


class _ComparisonFilter(_Open):
    key: str
    type: Literal["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"]
    value: Union[str, float, bool, list[Union[str, float]]]  # noqa: UP007


class _CompoundFilter(_Open):
    type: Literal["and", "or"]
    filters: list[Union[_ComparisonFilter, object]]  # noqa: UP007


class _HybridSearch(_Open):
    embedding_weight: float
    text_weight: float


class _RankingOptions(_Open):
    hybrid_search: _HybridSearch | None = None
    ranker: Literal["auto", "default-2024-11-15"] | None = None
    score_threshold: float | None = None


class FileSearchTool(_Open):
    vector_store_ids: list[str]
    filters: Union[_ComparisonFilter, _CompoundFilter, None] = None  # noqa: UP007
    max_num_results: int | None = None
    ranking_options: _RankingOptions | None = None


class ComputerUsePreviewTool(_Open):
    display_height: int
    display_width: int
    environment: Literal["windows", "mac", "linux", "ubuntu", "browser"]


class _Location(_Open):
    city: str | None = None
    country: str | None = None
    region: str | None = None
    timezone: str | None = None
    type: Literal["approximate"] | None = None


class _PreviewLocation(_Location):
    type: Literal["approximate"]


class _Domains(_Open):
    allowed_domains: list[str] | None = None


class WebSearchTool(_Open):
    external_web_access: bool | None = None
    filters: _Domains | None = None
    search_context_size: Literal["low", "medium", "high"] | None = None
    user_location: _Location | None = None


class WebSearchPreviewTool(_Open):
    search_content_types: list[Literal["text", "image"]] | None = None
    search_context_size: Literal["low", "medium", "high"] | None = None
    user_location: _PreviewLocation | None = None


class _ToolFilter(_Open):
    read_only: bool | None = None
    tool_names: list[str] | None = None


class _ApprovalFilter(_Open):
    always: _ToolFilter | None = None
    never: _ToolFilter | None = None


class McpTool(_Open):
    server_label: str
    allowed_callers: Callers = None
    allowed_tools: Union[list[str], _ToolFilter, None] = None  # noqa: UP007
    authorization: str | None = None
    connector_id: Literal[
        "connector_dropbox", "connector_gmail", "connector_googlecalendar",
        "connector_googledrive", "connector_microsoftteams", "connector_outlookcalendar",
        "connector_outlookemail", "connector_sharepoint"] | None = None
    defer_loading: bool | None = None
    headers: dict[str, str] | None = None
    require_approval: Union[_ApprovalFilter, Literal["always", "never"], None] = None  # noqa
    server_description: str | None = None
    server_url: str | None = None
    tunnel_id: str | None = None


class _DomainSecret(_Open):
    domain: str
    name: str
    value: str


class _PolicyDisabled(_Open):
    type: Literal["disabled"]


class _PolicyAllowlist(_Open):
    type: Literal["allowlist"]
    allowed_domains: list[str]
    domain_secrets: list[_DomainSecret] | None = None


_Policy = Union[_PolicyDisabled, _PolicyAllowlist, None]  # noqa: UP007


class _AutoContainer(_Open):
    type: Literal["auto"]
    file_ids: list[str] | None = None
    memory_limit: MemoryLimit = None
    network_policy: _Policy = None


class CodeInterpreterTool(_Open):
    container: Union[str, _AutoContainer]  # noqa: UP007
    allowed_callers: Callers = None


class _MaskImage(_Open):
    file_id: str | None = None
    image_url: str | None = None


class _SvgReasoning(_Open):
    effort: Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"] | None = None


class _Svg(_Open):
    model: str | None = None
    reasoning: _SvgReasoning | None = None


class ImageGenerationTool(_Open):
    action: Literal["generate", "edit", "auto"] | None = None
    background: Literal["transparent", "opaque", "auto"] | None = None
    complexity: Literal["low", "medium", "high"] | None = None
    frame_count: int | None = None
    frame_duration_ms: int | None = None
    input_fidelity: Literal["high", "low"] | None = None
    input_image_mask: _MaskImage | None = None
    model: str | None = None
    moderation: Literal["auto", "low"] | None = None
    output_compression: int | None = None
    output_format: Literal["png", "webp", "jpeg", "gif", "svg"] | None = None
    partial_images: int | None = None
    quality: Literal["low", "medium", "high", "xhigh", "max", "auto"] | None = None
    size: str | None = None
    svg: _Svg | None = None


class _SkillReference(_Open):
    type: Literal["skill_reference"]
    skill_id: str
    version: str | None = None


class _SkillSource(_Open):
    type: Literal["base64"]
    data: str
    media_type: Literal["application/zip"]


class _InlineSkill(_Open):
    type: Literal["inline"]
    name: str
    description: str
    source: _SkillSource


class _ContainerAuto(_Open):
    type: Literal["container_auto"]
    file_ids: list[str] | None = None
    memory_limit: MemoryLimit = None
    network_policy: _Policy = None
    skills: list[Union[_SkillReference, _InlineSkill]] | None = None  # noqa: UP007


class _LocalSkill(_Open):
    name: str
    description: str
    path: str


class _LocalEnvironment(_Open):
    type: Literal["local"]
    skills: list[_LocalSkill] | None = None


class _ContainerReference(_Open):
    type: Literal["container_reference"]
    container_id: str


class ShellTool(_Open):
    allowed_callers: Callers = None
    environment: Union[_ContainerAuto, _LocalEnvironment, _ContainerReference, None] = None  # noqa


class ToolSearchTool(_Open):
    description: str | None = None
    execution: Literal["server", "client"] | None = None
    parameters: Any = None


class CallersOnly(_Open):
    allowed_callers: Callers = None


#: tool type -> the model of its shape (the types without options: an open model)
TOOL_MODELS: dict[str, type[BaseModel]] = {
    "function": FunctionTool, "custom": CustomTool, "namespace": NamespaceTool,
    "file_search": FileSearchTool, "computer": _Open,
    "computer_use_preview": ComputerUsePreviewTool, "web_search": WebSearchTool,
    "web_search_2025_08_26": WebSearchTool, "mcp": McpTool, "code_interpreter": CodeInterpreterTool,
    "programmatic_tool_calling": _Open, "image_generation": ImageGenerationTool,
    "local_shell": _Open, "shell": ShellTool, "tool_search": ToolSearchTool,
    "web_search_preview": WebSearchPreviewTool,
    "web_search_preview_2025_03_11": WebSearchPreviewTool, "apply_patch": CallersOnly,
}
