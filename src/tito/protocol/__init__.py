"""tito's wire models (pydantic v2), named as vLLM names them.

Why one package re-exporting everything: callers write ``from tito.protocol import X`` with X the
vLLM class name, and never need to know which submodule holds it.

Why lazily (PEP 562): defining the ~90 models costs each cold start tens of ms of CPU, and a
function uses a few submodules (a chat derender function never touches the Responses or tokenize
models). A name imports only the submodule that defines it, found in :data:`_EXPORTS` (a table,
not a search: trying the submodules in turn imported every one before the right one);
``tests/test_cold_start.py`` checks the table against each submodule's ``__all__``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers
    from tito.protocol.anthropic import *  # noqa: F403
    from tito.protocol.chat import *  # noqa: F403
    from tito.protocol.chat_response import *  # noqa: F403
    from tito.protocol.common import *  # noqa: F403
    from tito.protocol.completion import *  # noqa: F403
    from tito.protocol.derender import *  # noqa: F403
    from tito.protocol.derender_completion import *  # noqa: F403
    from tito.protocol.generate_request import *  # noqa: F403
    from tito.protocol.generate_response import *  # noqa: F403
    from tito.protocol.responses import *  # noqa: F403
    from tito.protocol.responses_output import *  # noqa: F403
    from tito.protocol.responses_derender import *  # noqa: F403
    from tito.protocol.tokenize import *  # noqa: F403

#: submodule -> the names it defines (its ``__all__``); ``engine``, the old home of the
#: ``generate_*`` names, only re-exports them and is not listed
_EXPORTS: dict[str, tuple[str, ...]] = {
    "common": (
        "CompletionTokenUsageInfo", "ErrorInfo", "ErrorResponse", "INT64_MAX", "INT64_MIN",
        "Logprob", "NonNegativeInt", "OpenAIBaseModel", "PerRequestMetrics", "PlaceholderRangeInfo",
        "PromptTokenUsageInfo", "RepetitionDetectionParams", "SpeculativeDecodingMetrics",
        "StreamOptions",
        "StructuredOutputsParams", "TokenId", "UsageInfo", "WeightVersion", "check_cache_salt",
        "check_response_format", "new_dict", "new_list", "random_uuid",
        "stop_list", "unix_now"
    ),
    "chat": (
        "ChatCompletionNamedFunction", "ChatCompletionNamedToolChoiceParam",
        "ChatCompletionRequest", "ChatCompletionToolsParam", "FunctionDefinition",
        "ReasoningEffort", "ToolChoice",
        "normalize_messages", "tool_calls_ignored"
    ),
    "chat_response": (
        "ChatCompletionLogProb", "ChatCompletionLogProbs", "ChatCompletionLogProbsContent",
        "ChatCompletionResponse", "ChatCompletionResponseChoice",
        "ChatCompletionResponseStreamChoice", "ChatCompletionStreamResponse", "ChatMessage",
        "DeltaFunctionCall", "DeltaMessage", "DeltaToolCall", "FunctionCall", "ToolCall"
    ),
    "completion": (
        "CompletionLogProbs", "CompletionPrompt", "CompletionRequest", "CompletionResponse",
        "CompletionResponseChoice", "CompletionResponseStreamChoice", "CompletionStreamResponse"
    ),
    "generate_request": (
        "GenerateRequest", "MultiModalFeatures", "ReasoningParserKwargs", "RequestOutputKind",
        "SamplingParams"
    ),
    "generate_response": (
        "GenerateLogProb", "GenerateLogProbs", "GenerateLogProbsContent", "GenerateResponse",
        "GenerateStreamResponse", "GenerateTextChoice", "GenerateTextResponse",
        "GenerateTextStreamChoice", "GenerateTextStreamResponse", "GenerateTokensChoice",
        "GenerateTokensLogProbs", "GenerateTokensResponse", "GenerateTokensStreamChoice",
        "GenerateTokensStreamResponse", "TOKEN_ID_PREFIX", "parse_generate_response",
        "parse_generate_stream_response", "parse_token_id_string"
    ),
    "derender": (
        "DerenderChatBody", "DerenderChatRequest", "DerenderChatStreamRequest",
        "DerenderChatStreamResponse", "DerenderContext", "DerenderStreamState",
        "MAX_LOGPROB_CONTEXT_TOKEN_IDS", "MAX_PREV_TOKENS"
    ),
    "derender_completion": (
        "DerenderCompletionBody", "DerenderCompletionRequest", "DerenderCompletionStreamRequest",
        "DerenderCompletionStreamResponse"
    ),
    "raw_rules": (
        "chat_rules", "completion_rules", "responses_rules", "tokenize_chat_rules"
    ),
    "tokenize": (
        "DetokenizeRequest", "DetokenizeResponse", "TokenizeChatRequest",
        "TokenizeCompletionRequest", "TokenizeRequest", "TokenizeResponse", "VersionResponse"
    ),
    "responses": ("ResponsesRequest",),
    "responses_input": ("INPUT_ITEM_TYPES", "check_input_items", "input_part_fits"),
    "responses_output": (
        "IncompleteDetails", "InputTokensDetails", "OutputTokensDetails",
        "ResponseCustomToolCall", "ResponseFunctionToolCall", "ResponseOutputMessage",
        "ResponseOutputText", "ResponseReasoningItem", "ResponseReasoningTextContent",
        "ResponseUsage", "ResponsesResponse", "ResponsesStreamEvent"
    ),
    "responses_tools": ("TOOL_TYPES", "ResponsesTool"),
    "responses_tool_types": ("TOOL_MODELS",),
    "responses_derender": (
        "DerenderResponsesBody", "DerenderResponsesRequest", "DerenderResponsesStreamRequest",
        "DerenderResponsesStreamResponse"
    ),
    "anthropic": (
        "AnthropicContentBlock", "AnthropicJsonOutputFormat", "AnthropicMessage",
        "AnthropicMessagesRequest", "AnthropicOutputConfig", "AnthropicThinkingConfigAdaptive",
        "AnthropicThinkingConfigDisabled", "AnthropicThinkingConfigEnabled", "AnthropicTool",
        "AnthropicToolChangeDefinition", "AnthropicToolChangeReference", "AnthropicToolChoice"
    ),
}

#: name -> the submodule defining it
_HOME = {name: sub for sub, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    if name == "__all__":
        names = globals()["__all__"] = sorted(_HOME)
        return names
    sub = _HOME.get(name)
    if sub is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(_submodule(sub), name)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})


def _submodule(sub: str) -> Any:
    return importlib.import_module(f"{__name__}.{sub}")
