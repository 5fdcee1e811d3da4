"""OpenAI chat completions response shapes: the ``ChatCompletion`` and its stream chunks, which
derender fills.

Why a module of their own: the render functions validate chat requests but never build a chat
response, so they need not define these models at cold start (``tito.protocol`` imports a
submodule only when one of its names is used). Dumped with plain ``model_dump()`` (nulls kept, as
vLLM does), except ``tool_calls``, omitted when empty.
"""

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from tito.protocol.common import (
    Logprob,
    OpenAIBaseModel,
    PerRequestMetrics,
    UsageInfo,
    new_list,
    random_uuid,
    unix_now,
)

__all__ = [
    "ChatCompletionLogProb",
    "ChatCompletionLogProbs",
    "ChatCompletionLogProbsContent",
    "ChatCompletionResponse",
    "ChatCompletionResponseChoice",
    "ChatCompletionResponseStreamChoice",
    "ChatCompletionStreamResponse",
    "ChatMessage",
    "DeltaFunctionCall",
    "DeltaMessage",
    "DeltaToolCall",
    "FunctionCall",
    "ToolCall",
]

class FunctionCall(OpenAIBaseModel):
    """A complete function call inside a tool call; ``id`` is internal and never serialized."""

    id: str | None = Field(default=None, exclude=True)
    name: str
    arguments: str


class ToolCall(OpenAIBaseModel):
    """A complete tool call of a non-streaming message; ``arguments`` is JSON text."""

    id: str = Field(default_factory=lambda: f"chatcmpl-tool-{random_uuid()}")
    type: Literal["function"] = "function"
    function: FunctionCall


class DeltaFunctionCall(OpenAIBaseModel):
    """A piece of a function call: the name once, then argument text fragments."""

    name: str | None = None
    arguments: str | None = None


class DeltaToolCall(OpenAIBaseModel):
    """A streamed tool-call fragment; ``index`` ties fragments of one call together."""

    id: str | None = None
    type: Literal["function"] | None = None
    index: int
    function: DeltaFunctionCall | None = None


def _omit_empty_tool_calls(data: dict[str, Any]) -> dict[str, Any]:
    if "tool_calls" in data and not data["tool_calls"]:
        del data["tool_calls"]
    return data


class ChatMessage(OpenAIBaseModel):
    """The assistant message of a non-streaming choice."""

    role: str
    content: str | None = None
    refusal: str | None = None
    annotations: list[dict[str, Any]] | None = None
    audio: dict[str, Any] | None = None
    function_call: FunctionCall | None = None
    tool_calls: list[ToolCall] = Field(default_factory=new_list)
    reasoning: str | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """OpenAI clients treat ``tool_calls: []`` as "a tool call happened"; vLLM omits it."""
        return _omit_empty_tool_calls(handler(self))


class DeltaMessage(OpenAIBaseModel):
    """The delta of a streamed choice."""

    role: str | None = None
    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[DeltaToolCall] = Field(default_factory=new_list)

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Same rule as :class:`ChatMessage`: an empty list is omitted, not sent."""
        return _omit_empty_tool_calls(handler(self))


class ChatCompletionLogProb(OpenAIBaseModel):
    """One token's logprob; -9999.0 stands for -inf/NaN (JSON has no infinity)."""

    token: str
    logprob: float = -9999.0
    bytes: list[int] | None = None


class ChatCompletionLogProbsContent(ChatCompletionLogProb):
    """A sampled token's logprob with its top alternatives."""

    top_logprobs: list[ChatCompletionLogProb] = Field(default_factory=new_list)


class ChatCompletionLogProbs(OpenAIBaseModel):
    """Chat logprobs; also the legacy engine shape, where ``token`` is ``"token_id:<N>"``."""

    content: list[ChatCompletionLogProbsContent] | None = None


class ChatCompletionResponseChoice(OpenAIBaseModel):
    """One choice of a non-streaming chat response."""

    index: int
    message: ChatMessage
    logprobs: ChatCompletionLogProbs | None = None
    finish_reason: str | None = "stop"
    stop_reason: int | str | None = None
    token_ids: list[int] | None = None
    routed_experts: str | None = None
    #: vLLM 0.33: the engine's weight-version spans of the choice (null unless the engine sends)
    weight_versions: list[Any] | None = None


class ChatCompletionResponse(OpenAIBaseModel):
    """A non-streaming chat response (batch derender output)."""

    id: str = Field(default_factory=lambda: f"chatcmpl-{random_uuid()}")
    object: Literal["chat.completion"] = "chat.completion"
    created: int = Field(default_factory=unix_now)
    model: str
    choices: list[ChatCompletionResponseChoice]
    service_tier: str | None = None
    system_fingerprint: str | None = None
    usage: UsageInfo
    prompt_logprobs: list[dict[int, Logprob] | None] | None = None
    prompt_token_ids: list[int] | None = None
    prompt_text: str | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    metrics: PerRequestMetrics | None = None


class ChatCompletionResponseStreamChoice(OpenAIBaseModel):
    """One choice of a chat stream chunk."""

    index: int
    delta: DeltaMessage
    logprobs: ChatCompletionLogProbs | None = None
    finish_reason: str | None = None
    stop_reason: int | str | None = None
    token_ids: list[int] | None = None
    weight_versions: list[Any] | None = None  # vLLM 0.33: null in derender streams


class ChatCompletionStreamResponse(OpenAIBaseModel):
    """A chat stream chunk (streaming derender output)."""

    id: str = Field(default_factory=lambda: f"chatcmpl-{random_uuid()}")
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int = Field(default_factory=unix_now)
    model: str
    choices: list[ChatCompletionResponseStreamChoice]
    usage: UsageInfo | None = None
    system_fingerprint: str | None = None
    prompt_token_ids: list[int] | None = None
    prompt_text: str | None = None
    metrics: PerRequestMetrics | None = None
    kv_transfer_params: dict[str, Any] | None = None  # vLLM 0.33: null in derender streams
