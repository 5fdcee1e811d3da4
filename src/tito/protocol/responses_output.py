"""The OpenAI Responses API's output shapes: the ``Response`` object and the stream events
derender produces.

Why a module of their own: only derender builds them, so the Responses render function (which
imports :mod:`tito.protocol.responses` for the request) never defines them on a cold start. The
names and fields are the openai SDK's (``openai.types.responses``), so an SDK client parses every
object tito sends into its own types (the tests check exactly that).
"""

from typing import Any, Literal

from pydantic import ConfigDict, Field

from tito.protocol.common import OpenAIBaseModel, WireModel, new_list, unix_now

__all__ = [
    "IncompleteDetails",
    "InputTokensDetails",
    "OutputTokensDetails",
    "ResponseCustomToolCall",
    "ResponseFunctionToolCall",
    "ResponseOutputMessage",
    "ResponseOutputText",
    "ResponseReasoningItem",
    "ResponseReasoningTextContent",
    "ResponseUsage",
    "ResponsesResponse",
    "ResponsesStreamEvent",
]



class ResponseOutputText(OpenAIBaseModel):
    """An ``output_text`` content part of a message."""

    type: Literal["output_text"] = "output_text"
    text: str
    annotations: list[Any] = Field(default_factory=new_list)
    logprobs: list[dict[str, Any]] | None = None


class ResponseOutputMessage(OpenAIBaseModel):
    """A ``message`` output item (the assistant's visible text)."""

    id: str
    type: Literal["message"] = "message"
    role: Literal["assistant"] = "assistant"
    status: Literal["in_progress", "completed", "incomplete"] = "completed"
    content: list[ResponseOutputText] = Field(default_factory=new_list)


class ResponseReasoningTextContent(OpenAIBaseModel):
    """The text of a reasoning item (``reasoning_text``)."""

    type: Literal["reasoning_text"] = "reasoning_text"
    text: str


class ResponseReasoningItem(OpenAIBaseModel):
    """A ``reasoning`` output item."""

    id: str
    type: Literal["reasoning"] = "reasoning"
    summary: list[Any] = Field(default_factory=new_list)
    content: list[ResponseReasoningTextContent] | None = None
    encrypted_content: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class ResponseFunctionToolCall(OpenAIBaseModel):
    """A ``function_call`` output item; ``arguments`` is JSON text."""

    id: str
    type: Literal["function_call"] = "function_call"
    call_id: str
    name: str
    arguments: str
    status: Literal["in_progress", "completed", "incomplete"] = "completed"
    namespace: str | None = None  #: a namespace tool's function: its namespace (name: its own)


class ResponseCustomToolCall(OpenAIBaseModel):
    """A ``custom_tool_call`` output item: a call of a custom tool, its free-form ``input``."""

    id: str
    type: Literal["custom_tool_call"] = "custom_tool_call"
    call_id: str
    name: str
    input: str


class InputTokensDetails(OpenAIBaseModel):
    cached_tokens: int = 0
    cache_write_tokens: int = 0


class OutputTokensDetails(OpenAIBaseModel):
    reasoning_tokens: int = 0


class ResponseUsage(OpenAIBaseModel):
    """Token accounting: input, output (with reasoning) and total."""

    input_tokens: int
    input_tokens_details: InputTokensDetails = Field(default_factory=InputTokensDetails)
    output_tokens: int
    output_tokens_details: OutputTokensDetails = Field(default_factory=OutputTokensDetails)
    total_tokens: int


class IncompleteDetails(OpenAIBaseModel):
    reason: Literal["max_output_tokens", "content_filter"] | None = None


class ResponsesResponse(OpenAIBaseModel):
    """The ``response`` object (batch derender output; also inside created/completed events)."""

    id: str
    object: Literal["response"] = "response"
    created_at: int = Field(default_factory=unix_now)
    status: Literal["completed", "failed", "in_progress", "cancelled", "queued", "incomplete"]
    incomplete_details: IncompleteDetails | None = None
    error: dict[str, Any] | None = None
    instructions: str | None = None
    metadata: dict[str, str] | None = None
    model: str
    output: list[ResponseReasoningItem | ResponseOutputMessage | ResponseFunctionToolCall
                 | ResponseCustomToolCall]
    parallel_tool_calls: bool = True
    temperature: float | None = None
    tool_choice: Any = "auto"
    tools: list[Any] = Field(default_factory=new_list)
    top_p: float | None = None
    background: bool | None = False
    max_output_tokens: int | None = None
    previous_response_id: str | None = None
    reasoning: dict[str, Any] | None = None
    service_tier: str | None = "auto"
    text: dict[str, Any] | None = None
    top_logprobs: int | None = None
    truncation: str | None = "disabled"
    usage: ResponseUsage | None = None
    user: str | None = None


class ResponsesStreamEvent(WireModel):
    """One stream event: ``type`` and ``sequence_number`` plus the type's own fields (kept as
    given; their shapes are the SDK's once assembled, see :mod:`tito.service.responses_events`)."""

    model_config = ConfigDict(extra="allow")

    type: str
    sequence_number: int
