"""Engine-side shapes: what render hands to ``/inference/v1/generate`` and what generate returns.

Why plain ``BaseModel`` (unknown keys ignored) rather than the OpenAI base: these mirror vLLM's
scale-out models, which ignore unknown keys, so a newer engine adding a field never breaks derender.
``SamplingParams`` is the exception: it is a msgspec struct in vLLM and an unknown key there is a
typo that would silently change generation, so it is rejected.

Accepted variants (spec 0.3): responses without ``output_mode`` are token responses; a token
choice's ``logprobs`` may be [main]'s integer-id shape or the legacy ``"token_id:N"`` string shape.
"""

import enum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    Tag,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from tito.protocol.chat import ChatCompletionLogProbs
from tito.protocol.common import (
    INT64_MAX,
    INT64_MIN,
    Logprob,
    NonNegativeInt,
    PerRequestMetrics,
    StreamOptions,
    StructuredOutputsParams,
    TokenId,
    UsageInfo,
    WeightVersion,
    WireModel,
    check_cache_salt,
    random_uuid,
    stop_list,
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


# --------------------------------------------------------------------------------------------
# SamplingParams
# --------------------------------------------------------------------------------------------


class RequestOutputKind(enum.IntEnum):
    """How the engine reports output; render picks DELTA when streaming, else FINAL_ONLY."""

    CUMULATIVE = 0
    DELTA = 1
    FINAL_ONLY = 2


class SamplingParams(WireModel):
    """vLLM's sampling parameters as they travel inside ``GenerateRequest``.

    Defaults are the vLLM dataclass defaults, so :meth:`to_wire` can omit them exactly as msgspec's
    ``omit_defaults`` does. Range checks are vLLM's: the engine would 400 on the same values, and
    failing at render gives the client the error one hop earlier. Greedy normalisation
    (temperature ~0 forcing top_p/top_k/min_p) is deliberately not done here: it is the engine's
    business and doing it here would change what tito sends.
    """

    model_config = ConfigDict(extra="forbid")

    n: int = Field(default=1, ge=1, le=16384)
    presence_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
    frequency_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
    repetition_penalty: float = Field(default=1.0, gt=0.0, le=2.0)
    temperature: float = Field(default=1.0, ge=0.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    top_k: int = Field(default=0, ge=-1)
    min_p: float = Field(default=0.0, ge=0.0, le=1.0)
    seed: int | None = Field(default=None, ge=INT64_MIN, le=INT64_MAX)
    stop: list[str] = Field(default_factory=list)
    stop_token_ids: list[TokenId] = Field(default_factory=list)
    include_stop_str_in_output: bool = False
    ignore_eos: bool = False
    max_tokens: int | None = Field(default=16, ge=1)
    min_tokens: NonNegativeInt = 0
    logprobs: int | None = Field(default=None, ge=-1)
    prompt_logprobs: int | None = Field(default=None, ge=-1)
    detokenize: bool = True
    skip_special_tokens: bool = True
    spaces_between_special_tokens: bool = True
    output_kind: RequestOutputKind = RequestOutputKind.CUMULATIVE
    structured_outputs: StructuredOutputsParams | None = None
    logit_bias: dict[int, float] | None = None
    allowed_token_ids: list[TokenId] | None = None
    bad_words: list[str] = Field(default_factory=list)
    extra_args: dict[str, Any] | None = None
    skip_clone: bool = False
    skip_reading_prefix_cache: bool | None = None
    thinking_token_budget: int | None = None
    watermarking: bool | None = None
    repetition_detection: dict[str, Any] | None = None
    stream_interval: int | None = None
    logprob_token_ids: list[TokenId] | None = None
    routed_experts_prompt_start: int | None = None

    @field_validator("seed", mode="before")
    @classmethod
    def _seed(cls, value: Any) -> Any:
        """-1 is the historical "no seed" marker; vLLM normalises it to null."""
        return None if value == -1 else value

    @field_validator("stop", mode="before")
    @classmethod
    def _stop(cls, value: Any) -> Any:
        """OpenAI lets ``stop`` be a string, a list or null; the engine wants a list."""
        return stop_list(value)

    @field_validator("stop")
    @classmethod
    def _stop_not_empty(cls, value: list[str]) -> list[str]:
        """An empty stop string would match everywhere and end every output at once."""
        if any(s == "" for s in value):
            raise ValueError("stop cannot contain an empty string.")
        return value

    @model_validator(mode="after")
    def _cross_field(self) -> "SamplingParams":
        """Checks across fields that vLLM's SamplingParams makes at construction."""
        if self.max_tokens is not None and self.min_tokens > self.max_tokens:
            raise ValueError(
                f"min_tokens must be less than or equal to max_tokens={self.max_tokens}, "
                f"got {self.min_tokens}."
            )
        if self.stop and not self.detokenize:
            raise ValueError("stop strings are only supported when detokenize is True.")
        return self

    def to_wire(self) -> dict[str, Any]:
        """The JSON object to send: non-default fields only, as msgspec ``omit_defaults``.

        One deliberate difference: ``max_tokens`` is kept whenever it was set explicitly, even to
        the default 16, because generate only applies its own max_tokens defaulting when the key
        is absent; omitting an explicit 16 would silently change the request.
        """
        data = self.model_dump(mode="json", exclude_defaults=True)
        if "max_tokens" in self.model_fields_set and "max_tokens" not in data:
            data["max_tokens"] = self.max_tokens
            data = {k: data[k] for k in type(self).model_fields if k in data}
        return data


# --------------------------------------------------------------------------------------------
# Render-side models
# --------------------------------------------------------------------------------------------


class PlaceholderRangeInfo(WireModel):
    """Where one multimodal item's placeholder tokens sit in ``token_ids``."""

    offset: NonNegativeInt
    length: int = Field(gt=0)


class MultiModalFeatures(WireModel):
    """Pre-processed multimodal inputs keyed by modality (``image``, ``audio``, ...).

    The engine indexes these lists in parallel, so mismatched keys or lengths, or overlapping
    placeholder ranges, would misplace embeddings; they are rejected here.
    """

    mm_hashes: dict[str, list[str]]
    mm_placeholders: dict[str, list[PlaceholderRangeInfo]]
    kwargs_data: dict[str, list[str | None]] | None = None
    mm_metadata: dict[str, list[str | None]] | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "MultiModalFeatures":
        """Same modalities everywhere, same item counts per modality, no overlapping ranges."""
        fields: dict[str, dict[str, list[Any]]] = {
            "mm_hashes": self.mm_hashes,
            "mm_placeholders": self.mm_placeholders,
        }
        if self.kwargs_data is not None:
            fields["kwargs_data"] = self.kwargs_data
        if self.mm_metadata is not None:
            fields["mm_metadata"] = self.mm_metadata
        keys = set(self.mm_hashes)
        for name, value in fields.items():
            if set(value) != keys:
                raise ValueError(
                    f"multimodal features: `{name}` has modalities {sorted(value)}, "
                    f"expected {sorted(keys)}."
                )
        for modality in keys:
            lengths = {name: len(value[modality]) for name, value in fields.items()}
            if len(set(lengths.values())) > 1:
                raise ValueError(
                    f"multimodal features: item counts differ for modality {modality!r}: {lengths}."
                )
        ranges = sorted(
            (r.offset, r.offset + r.length)
            for items in self.mm_placeholders.values()
            for r in items
        )
        for (_, end), (start, _) in zip(ranges, ranges[1:]):
            if start < end:
                raise ValueError("multimodal features: placeholder ranges overlap.")
        return self


class ReasoningParserKwargs(WireModel):
    """The template kwargs the prompt was rendered with (reasoning parsers depend on them)."""

    model_config = ConfigDict(extra="forbid")

    chat_template_kwargs: dict[str, Any] = Field(default_factory=dict)


class GenerateRequest(WireModel):
    """Body of ``/inference/v1/generate``; what render returns.

    ``derender_context`` is tito's own addition: render fills it with what derender will need
    (e.g. template kwargs) so a client can pass it along; the engine ignores unknown keys, and it
    is omitted from the dump when null so the wire stays vLLM's.
    """

    request_id: str = Field(default_factory=random_uuid)
    token_ids: list[TokenId] = Field(min_length=1)
    assistant_tokens_mask: list[int] | None = None
    token_offsets: list[tuple[int, int]] | None = None
    features: MultiModalFeatures | None = None
    content_parts: list[dict[str, Any]] | None = None
    sampling_params: SamplingParams
    model: str | None = None
    reasoning_ended: bool | None = None
    reasoning_parser_kwargs: ReasoningParserKwargs | None = None
    return_token_ids: bool | None = None
    output_mode: Literal["tokens", "text"] = "tokens"
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    cache_salt: str | None = Field(default=None, min_length=1, max_length=1024)
    priority: int = Field(default=0, ge=INT64_MIN, le=INT64_MAX)
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    #: vLLM 0.33's ``ParseContext`` (chat render): what a generate server needs to parse the
    #: output itself (``output_mode="derender"``): tools, tool_choice, parallel_tool_calls,
    #: include_reasoning, the effective template kwargs, the history's tool-call count
    parse_context: dict[str, Any] | None = None
    derender_context: dict[str, Any] | None = None

    @field_validator("cache_salt")
    @classmethod
    def _cache_salt(cls, value: str | None) -> str | None:
        """The salt partitions the prefix cache; see :func:`check_cache_salt`."""
        return check_cache_salt(value)

    @model_validator(mode="after")
    def _cross_field(self) -> "GenerateRequest":
        """The structural rules the engine enforces, checked before the request leaves tito."""
        if self.content_parts is not None and self.features is not None:
            raise ValueError("`content_parts` and `features` are mutually exclusive.")
        if self.output_mode != "tokens" and not self.sampling_params.detokenize:
            raise ValueError(
                f"output_mode={self.output_mode!r} requires sampling_params.detokenize=true."
            )
        if self.features is not None:
            f = self.features
            if f.mm_metadata is not None and f.kwargs_data is None and not self.ec_transfer_params:
                raise ValueError(
                    "metadata-only multimodal features (mm_metadata without kwargs_data) "
                    "require `ec_transfer_params`."
                )
            n = len(self.token_ids)
            for modality, items in f.mm_placeholders.items():
                for r in items:
                    if r.offset + r.length > n:
                        raise ValueError(
                            f"placeholder range {modality!r} [{r.offset}, {r.offset + r.length}) "
                            f"is outside token_ids (length {n})."
                        )
        return self

    def to_wire(self) -> dict[str, Any]:
        """What ``model_dump(mode="json")`` gives (the serializers below), built field by field.

        Why: the render functions answer with this object once per request, and pydantic's
        wrap serializers (Python callbacks around a second ``model_dump`` of the sampling
        params) cost half as much again as the rest of a short chat's engine-request building.
        Values pydantic's JSON mode would still convert (tuples, and in ``Any`` fields the
        non-JSON floats) are left to the JSON encoder (:func:`tito.adapters.asgi.dump_json`
        turns them into the same bytes).
        """
        out: dict[str, Any] = {}
        for name in _GENERATE_FIELDS:
            value = getattr(self, name)
            if isinstance(value, BaseModel):
                value = value.to_wire() if name == "sampling_params" else value.model_dump(mode="json")
            elif value is None and name in _DROPPED_WHEN_NULL:
                continue
            out[name] = value
        return out

    @field_serializer("sampling_params", mode="wrap")
    def _compact_sampling_params(
        self, value: SamplingParams, handler: SerializerFunctionWrapHandler
    ) -> dict[str, Any]:
        """Send only non-default sampling fields, as vLLM's msgspec encoder does."""
        return value.to_wire()

    @model_serializer(mode="wrap")
    def _drop_null_context(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Keep the wire identical to vLLM's when tito has no derender context to pass."""
        data = handler(self)
        for key in _DROPPED_WHEN_NULL:  # tito's; absent when null
            if data.get(key, 0) is None:
                del data[key]
        return data


_GENERATE_FIELDS = tuple(GenerateRequest.model_fields)
_DROPPED_WHEN_NULL = ("derender_context", "assistant_tokens_mask")


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

    top_logprobs: list[GenerateLogProb] = Field(default_factory=list)


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

    request_id: str
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
