"""The request render hands to ``/inference/v1/generate``: ``GenerateRequest`` and its parts.

Why plain ``BaseModel`` (unknown keys ignored) rather than the OpenAI base: these mirror vLLM's
scale-out models, which ignore unknown keys, so a newer engine adding a field never breaks derender.
``SamplingParams`` is the exception: it is a msgspec struct in vLLM and an unknown key there is a
typo that would silently change generation, so it is rejected.
"""

import enum
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from tito.protocol.common import (
    INT64_MAX,
    INT64_MIN,
    NonNegativeInt,
    PlaceholderRangeInfo,
    StreamOptions,
    StructuredOutputsParams,
    TokenId,
    WireModel,
    check_cache_salt,
    new_dict,
    new_list,
    random_uuid,
    stop_list,
    wire_dump,
)

__all__ = [
    "GenerateRequest",
    "MultiModalFeatures",
    "ReasoningParserKwargs",
    "RequestOutputKind",
    "SamplingParams",
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
    (temperature ~0 forcing top_p/top_k/min_p) is done where the fields are made
    (:func:`tito.core.sampling.sampling_fields`), as vLLM 0.33's render writes it.
    """

    model_config = ConfigDict(extra="forbid")

    n: int = Field(default=1, ge=1, le=16384)
    presence_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
    frequency_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
    repetition_penalty: float = Field(default=1.0, gt=0.0)  # vLLM: no upper bound
    temperature: float = Field(default=1.0, ge=0.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    top_k: int = Field(default=0, ge=-1)
    min_p: float = Field(default=0.0, ge=0.0, le=1.0)
    seed: int | None = Field(default=None, ge=INT64_MIN, le=INT64_MAX)
    stop: list[str] = Field(default_factory=new_list)
    stop_token_ids: list[TokenId] = Field(default_factory=new_list)
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
    bad_words: list[str] = Field(default_factory=new_list)
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
        try:
            data = self.model_dump(mode="json", exclude_defaults=True, exclude=_FREE_FORM)
        except ValueError:  # a constraint's own JSON (a schema) nested past pydantic's JSON-mode
            # recursion guard: its Python-mode dump (the values as parsed from JSON; see wire_dump)
            data = self.model_dump(exclude_defaults=True, exclude=_FREE_FORM)
        reorder = False
        for name in _FREE_FORM:  # as parsed from JSON; pydantic's serializer recursion guard
            value = getattr(self, name)  # failed one nested a few hundred levels deep (a 500)
            if value is not None:
                data[name] = value
                reorder = True
        if "max_tokens" in self.model_fields_set and "max_tokens" not in data:
            data["max_tokens"] = self.max_tokens
            reorder = True
        if reorder:
            data = {k: data[k] for k in type(self).model_fields if k in data}
        return data


#: SamplingParams' free-form JSON fields: written as they were read (see ``to_wire``)
_FREE_FORM = frozenset({"extra_args", "repetition_detection"})


# --------------------------------------------------------------------------------------------
# Render-side models
# --------------------------------------------------------------------------------------------


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

    chat_template_kwargs: dict[str, Any] = Field(default_factory=new_dict)


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
                value = value.to_wire() if name == "sampling_params" else wire_dump(value)
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

