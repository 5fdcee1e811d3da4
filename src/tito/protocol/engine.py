"""Engine-side shapes, the old home: what render hands to ``/inference/v1/generate``
(:mod:`tito.protocol.generate_request`) and what generate returns
(:mod:`tito.protocol.generate_response`).

Why this module stays: ``from tito.protocol.engine import X`` was the public path for these names
before the split; it re-exports both modules' names unchanged. New code imports from the two
modules (or from :mod:`tito.protocol`, which finds a name in them before it looks here).
"""

from tito.protocol.generate_request import (
    GenerateRequest,
    MultiModalFeatures,
    PlaceholderRangeInfo,
    ReasoningParserKwargs,
    RequestOutputKind,
    SamplingParams,
)
from tito.protocol.generate_response import (
    TOKEN_ID_PREFIX,
    GenerateLogProb,
    GenerateLogProbs,
    GenerateLogProbsContent,
    GenerateResponse,
    GenerateStreamResponse,
    GenerateTextChoice,
    GenerateTextResponse,
    GenerateTextStreamChoice,
    GenerateTextStreamResponse,
    GenerateTokensChoice,
    GenerateTokensLogProbs,
    GenerateTokensResponse,
    GenerateTokensStreamChoice,
    GenerateTokensStreamResponse,
    parse_generate_response,
    parse_generate_stream_response,
    parse_token_id_string,
)

__all__ = [
    "TOKEN_ID_PREFIX",
    "GenerateLogProb",
    "GenerateLogProbs",
    "GenerateLogProbsContent",
    "GenerateRequest",
    "GenerateResponse",
    "GenerateStreamResponse",
    "GenerateTextChoice",
    "GenerateTextResponse",
    "GenerateTextStreamChoice",
    "GenerateTextStreamResponse",
    "GenerateTokensChoice",
    "GenerateTokensLogProbs",
    "GenerateTokensResponse",
    "GenerateTokensStreamChoice",
    "GenerateTokensStreamResponse",
    "MultiModalFeatures",
    "PlaceholderRangeInfo",
    "ReasoningParserKwargs",
    "RequestOutputKind",
    "SamplingParams",
    "parse_generate_response",
    "parse_generate_stream_response",
    "parse_token_id_string",
]
