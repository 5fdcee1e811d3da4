"""What ``/inference/v1/generate`` returns: responses, stream events, choices and logprobs.

Why plain ``BaseModel`` (unknown keys ignored): these mirror vLLM's scale-out models, which ignore
unknown keys, so a newer engine adding a field never breaks derender.

Accepted variants (spec 0.3): responses without ``output_mode`` are token responses; a token
choice's ``logprobs`` may be [main]'s integer-id shape or the legacy ``"token_id:N"`` string shape.
"""

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    Tag,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)

from tito.protocol.chat_response import ChatCompletionLogProbs
from tito.protocol.common import (
    Logprob,
    NonNegativeInt,
    PerRequestMetrics,
    PlaceholderRangeInfo,
    TokenId,
    UsageInfo,
    WeightVersion,
    WireModel,
    new_list,
    random_uuid,
)

__all__ = [
    "TOKEN_ID_PREFIX",
    "GenerateLogProb",
    "GenerateLogProbs",
    "GenerateLogProbsContent",
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
    "parse_generate_response",
    "parse_generate_stream_response",
    "parse_token_id_string",
]


# --------------------------------------------------------------------------------------------
# Logprobs
# --------------------------------------------------------------------------------------------

TOKEN_ID_PREFIX = "token_id:"


def parse_token_id_string(token: str) -> int:
    """The id inside a legacy ``"token_id:<N>"`` logprob token; ValueError when malformed."""
    if not token.startswith(TOKEN_ID_PREFIX):
        raise ValueError(f"expected a 'token_id:<N>' logprob token, got {token[:50]!r}.")
    digits = token[len(TOKEN_ID_PREFIX) :]
    if not digits.isascii() or not digits.isdigit():
        raise ValueError(f"expected a 'token_id:<N>' logprob token, got {token[:50]!r}.")
    return int(digits)


class GenerateLogProb(WireModel):
    """[main] one candidate: the id and its logprob; ``rank`` is 1 for the most likely token."""

    token_id: TokenId
    logprob: float
    rank: int | None = None


class GenerateLogProbsContent(GenerateLogProb):
    """[main] one generated position: the sampled token first in ``top_logprobs``."""

    top_logprobs: list[GenerateLogProb] = Field(default_factory=new_list)


def _plain_wire_entries(content: Any) -> bool:
    """Is ``content`` of the wire shape already, nothing to convert (only dicts, ids non-negative
    ints, logprobs floats, ranks ints or null, ``top_logprobs`` lists of such dicts)? Unknown
    keys are left in: the models would ignore them, and nothing reads them."""
    for entry in content:
        if type(entry) is not dict:
            return False
        get = entry.get
        token_id, rank = get("token_id"), get("rank")
        if type(token_id) is not int or token_id < 0 or type(get("logprob")) is not float:
            return False
        if rank is not None and type(rank) is not int:
            return False
        top = get("top_logprobs", ())
        if type(top) is not list and top != ():
            return False
        for cand in top:
            if type(cand) is not dict:
                return False
            get = cand.get
            token_id, rank = get("token_id"), get("rank")
            if type(token_id) is not int or token_id < 0 or type(get("logprob")) is not float:
                return False
            if rank is not None and type(rank) is not int:
                return False
    return True


def _entries_as_dicts(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """Engine logprob entries as plain dicts (``GenerateLogProbsContent``'s fields).

    Why: a batch of 8k tokens with top-5 logprobs holds ~50k candidates; a pydantic model each
    cost more than the derender itself, and the derender reads them as dicts anyway. Entries
    already of the exact wire shape (what JSON gives) are checked in one pass and kept as they
    are; anything else is validated as the models (so every error is pydantic's own, with its
    location) and then dumped to dicts.
    """
    if type(value) is list and _plain_wire_entries(value):
        return value
    entries = handler(value)
    return None if entries is None else [e.model_dump() for e in entries]


#: ``GenerateLogProbs.content``: validated as a list of ``GenerateLogProbsContent``, held as dicts.
GenerateLogProbsEntries = Annotated[
    list[GenerateLogProbsContent] | None,
    WrapValidator(_entries_as_dicts),
    PlainSerializer(lambda entries: entries),  # already plain data
]


class GenerateLogProbs(WireModel):
    """[main] per-choice logprobs; ``sampled`` alone is used when ``logprobs=0``.

    ``content`` holds plain dicts of :class:`GenerateLogProbsContent`'s shape (see
    :func:`_entries_as_dicts`), not models.
    """

    content: GenerateLogProbsEntries = None
    sampled: list[float] | None = None


def _logprobs_shape(value: Any) -> str:
    """Pick the logprob shape by the first entry: ``token_id`` is [main], ``token`` is legacy."""
    if isinstance(value, BaseModel):
        if isinstance(value, ChatCompletionLogProbs):
            return "ChatCompletionLogProbs"
        return "GenerateLogProbs"
    content = value.get("content") if isinstance(value, dict) else None
    if isinstance(content, list) and content and isinstance(content[0], dict):
        if "token" in content[0] and "token_id" not in content[0]:
            return "ChatCompletionLogProbs"
    return "GenerateLogProbs"


GenerateTokensLogProbs = Annotated[
    Annotated[GenerateLogProbs, Tag("GenerateLogProbs")]
    | Annotated[ChatCompletionLogProbs, Tag("ChatCompletionLogProbs")],
    Discriminator(_logprobs_shape),
]
"""A token choice's logprobs: [main] integer ids or legacy ``token_id:N`` strings."""


# --------------------------------------------------------------------------------------------
# Choices
# --------------------------------------------------------------------------------------------


class _GenerateChoiceBase(WireModel):
    """Fields every non-streaming generate choice carries."""

    index: NonNegativeInt
    finish_reason: str | None = "stop"
    stop_reason: int | str | None = None  # only some (legacy) versions send it
    token_ids: list[TokenId] | None = None
    routed_experts: str | None = None
    sampling_mask: list[list[int]] | None = None
    weight_versions: list[WeightVersion] | None = None


class GenerateTokensChoice(_GenerateChoiceBase):
    """A non-streaming choice of a token-mode response (what derender consumes)."""

    logprobs: GenerateTokensLogProbs | None = None


class GenerateTextChoice(_GenerateChoiceBase):
    """A non-streaming choice of a text-mode response (engine already detokenized)."""

    text: str = ""
    logprobs: ChatCompletionLogProbs | None = None


class _GenerateStreamChoiceBase(WireModel):
    """Fields every streamed generate choice carries; ``token_ids`` are the delta ids."""

    index: NonNegativeInt
    finish_reason: str | None = None
    stop_reason: int | str | None = None
    token_ids: list[TokenId] | None = None
    routed_experts: str | None = None
    sampling_mask: list[list[int]] | None = None
    weight_versions: list[WeightVersion] | None = None


class GenerateTokensStreamChoice(_GenerateStreamChoiceBase):
    """A streamed choice of a token-mode stream."""

    logprobs: GenerateTokensLogProbs | None = None


class GenerateTextStreamChoice(_GenerateStreamChoiceBase):
    """A streamed choice of a text-mode stream; ``text`` is the delta."""

    text: str = ""
    logprobs: ChatCompletionLogProbs | None = None


# --------------------------------------------------------------------------------------------
# Responses
# --------------------------------------------------------------------------------------------


class _GenerateResponseBase(WireModel):
    """Fields of a non-streaming generate response shared by both output modes."""

    #: vLLM's default when the body has none (the answer's ``id``); a stream chunk needs its
    #: own (its state is bound to the stream's id, which a fresh one per chunk would break)
    request_id: str = Field(default_factory=random_uuid)
    model: str | None = None
    created: int | None = None
    usage: UsageInfo | None = None
    prompt_logprobs: list[dict[int, Logprob] | None] | None = None
    prompt_token_id_logprobs: str | None = None
    prompt_token_ids: list[TokenId] | None = None
    mm_placeholders: dict[str, list[PlaceholderRangeInfo]] | None = None
    metrics: PerRequestMetrics | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None


class GenerateTokensResponse(_GenerateResponseBase):
    """Non-streaming token-mode response; older servers omit ``output_mode``."""

    output_mode: Literal["tokens"] = "tokens"
    choices: list[GenerateTokensChoice]


class GenerateTextResponse(_GenerateResponseBase):
    """Non-streaming text-mode response (not derenderable: the text is already final)."""

    output_mode: Literal["text"] = "text"
    choices: list[GenerateTextChoice]


class _GenerateStreamResponseBase(WireModel):
    """Fields of one generate SSE ``data:`` object shared by both output modes."""

    request_id: str
    usage: UsageInfo | None = None
    prompt_token_ids: list[TokenId] | None = None
    mm_placeholders: dict[str, list[PlaceholderRangeInfo]] | None = None
    metrics: PerRequestMetrics | None = None


class GenerateTokensStreamResponse(_GenerateStreamResponseBase):
    """One token-mode SSE event; ``choices`` is empty on the final usage-only event."""

    output_mode: Literal["tokens"] = "tokens"
    choices: list[GenerateTokensStreamChoice]


class GenerateTextStreamResponse(_GenerateStreamResponseBase):
    """One text-mode SSE event."""

    output_mode: Literal["text"] = "text"
    choices: list[GenerateTextStreamChoice]


def _output_mode(value: Any) -> str:
    """A missing ``output_mode`` means tokens: servers before the split never sent it."""
    if isinstance(value, dict):
        mode = value.get("output_mode")
        return "tokens" if mode is None else str(mode)
    return str(getattr(value, "output_mode", "tokens"))


GenerateResponse = Annotated[
    Annotated[GenerateTokensResponse, Tag("tokens")] | Annotated[GenerateTextResponse, Tag("text")],
    Discriminator(_output_mode),
]
"""A non-streaming generate response, resolved by ``output_mode``."""

GenerateStreamResponse = Annotated[
    Annotated[GenerateTokensStreamResponse, Tag("tokens")]
    | Annotated[GenerateTextStreamResponse, Tag("text")],
    Discriminator(_output_mode),
]
"""One generate SSE event, resolved by ``output_mode``."""

_DEFERRED = ConfigDict(defer_build=True)  # built on first use, as the models (WireModel)
_RESPONSE_ADAPTER: TypeAdapter[GenerateTokensResponse | GenerateTextResponse] = TypeAdapter(
    GenerateResponse, config=_DEFERRED
)
_STREAM_ADAPTER: TypeAdapter[GenerateTokensStreamResponse | GenerateTextStreamResponse] = (
    TypeAdapter(GenerateStreamResponse, config=_DEFERRED)
)


def parse_generate_response(obj: Any) -> GenerateTokensResponse | GenerateTextResponse:
    """Parse a generate response (dict, JSON str or bytes) into the class its mode names."""
    if isinstance(obj, (str, bytes, bytearray)):
        return _RESPONSE_ADAPTER.validate_json(obj)
    return _RESPONSE_ADAPTER.validate_python(obj)


def parse_generate_stream_response(
    obj: Any,
) -> GenerateTokensStreamResponse | GenerateTextStreamResponse:
    """Parse one generate SSE ``data:`` object (dict, JSON str or bytes) by its mode."""
    if isinstance(obj, (str, bytes, bytearray)):
        return _STREAM_ADAPTER.validate_json(obj)
    return _STREAM_ADAPTER.validate_python(obj)
