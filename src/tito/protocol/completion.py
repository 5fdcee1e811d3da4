"""OpenAI (legacy) completions shapes: the request render consumes, the responses derender fills.

Why separate from chat: completions have their own prompt union, their own logprob layout
(parallel lists with ``text_offset``) and different defaults (``max_tokens`` 16,
``add_special_tokens`` true). Names and defaults are vLLM's.
"""

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from tito.protocol.common import (
    INT64_MAX,
    INT64_MIN,
    Logprob,
    OpenAIBaseModel,
    PerRequestMetrics,
    RepetitionDetectionParams,
    StreamOptions,
    StructuredOutputsParams,
    TokenId,
    UsageInfo,
    check_thinking_token_budget,
    check_response_format,
    new_list,
    random_uuid,
    unix_now,
)
from tito.protocol.raw_rules import completion_rules

__all__ = [
    "CompletionLogProbs",
    "CompletionPrompt",
    "CompletionRequest",
    "CompletionResponse",
    "CompletionResponseChoice",
    "CompletionResponseStreamChoice",
    "CompletionStreamResponse",
]

CompletionPrompt = list[TokenId] | list[list[TokenId]] | str | list[str]
"""One token-id prompt, several, one text, or several texts (vLLM's order: a value none fits
is reported member by member in this order)."""


class CompletionRequest(OpenAIBaseModel):
    """The OpenAI completions request plus vLLM's extras, with vLLM's defaults and checks."""

    # OpenAI fields
    model: str | None = None
    prompt: CompletionPrompt | None = None
    echo: bool | None = False
    frequency_penalty: float | None = None  # (vLLM 0.33: unset takes the generation config's)
    logit_bias: dict[str, float] | None = None
    logprobs: int | None = None
    max_tokens: int | None = 16
    n: int = 1
    presence_penalty: float | None = None
    seed: int | None = Field(default=None, ge=INT64_MIN, le=INT64_MAX)
    stop: str | list[str] | None = Field(default_factory=new_list)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    suffix: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    user: str | None = None

    # vLLM sampling extras
    use_beam_search: bool = False
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    length_penalty: float = 1.0
    stop_token_ids: list[TokenId] | None = Field(default_factory=new_list)
    include_stop_str_in_output: bool = False
    ignore_eos: bool = False
    min_tokens: int = 0  #: >= 0, checked with vLLM's message (core.sampling)
    skip_special_tokens: bool = True
    spaces_between_special_tokens: bool = True
    truncate_prompt_tokens: int | None = Field(default=None, ge=-1, le=INT64_MAX)
    truncation_side: Literal["left", "right"] | None = None
    prompt_logprobs: int | None = None
    logprob_token_ids: list[TokenId] | None = None
    allowed_token_ids: list[TokenId] | None = None
    bad_words: list[str] = Field(default_factory=new_list)

    # vLLM completion extras
    add_special_tokens: bool = True
    prompt_embeds: bytes | list[bytes] | None = None
    response_format: dict[str, Any] | None = None
    structured_outputs: StructuredOutputsParams | None = None
    priority: int = Field(default=0, ge=INT64_MIN, le=INT64_MAX)
    request_id: str = Field(default_factory=random_uuid)
    session_id: str | None = None
    return_tokens_as_token_ids: bool | None = None
    return_token_ids: bool | None = None
    # typed as vLLM 0.33 types them (a wrong type is its schema error); the engine and
    # multimodal ones are not acted on here (text-only prompts, no weight versions)
    return_weight_versions: bool = False
    routed_experts_prompt_start: int = Field(default=0, ge=0)
    return_token_offsets: bool | None = False
    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    cache_salt: str | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    vllm_xargs: dict[str, Any] | None = None
    repetition_detection: RepetitionDetectionParams | None = None
    stream_interval: int | None = Field(default=None, ge=1)
    thinking_token_budget: int | None = None
    watermarking: bool | None = None  #: passed to the engine (SamplingParams), as vLLM 0.33
    #: not a field of vLLM's completions request: an extra it reads as sent, any type (a
    #: truthy value refused unless trusted: goldens render_trust_mm_kwargs)
    mm_processor_kwargs: Any = None

    @field_validator("thinking_token_budget", mode="before")
    @classmethod
    def _thinking_token_budget(cls, value: Any) -> Any:
        """-1 means unlimited, which the engine spells null (:func:`check_thinking_token_budget`)."""
        return check_thinking_token_budget(value)

    @field_validator("max_tokens", mode="before")
    @classmethod
    def _max_tokens(cls, value: Any) -> Any:
        """OpenAI documents null as "the default"; for completions that default is 16."""
        return 16 if value is None else value

    @field_validator("response_format")
    @classmethod
    def _response_format(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """Its ``type`` is a schema rule, as for chat (:func:`check_response_format`)."""
        return check_response_format(value)

    @model_validator(mode="before")
    @classmethod
    def _raw_rules(cls, data: Any) -> Any:
        """vLLM's checks of the raw body, in its order, before any field
        (:func:`tito.protocol.raw_rules.completion_rules`)."""
        return completion_rules(data) if isinstance(data, dict) else data


class CompletionLogProbs(OpenAIBaseModel):
    """Completions logprobs: parallel lists, one entry per token, with absolute text offsets."""

    text_offset: list[int] = Field(default_factory=new_list)
    token_logprobs: list[float | None] = Field(default_factory=new_list)
    tokens: list[str] = Field(default_factory=new_list)
    top_logprobs: list[dict[str, float] | None] = Field(default_factory=new_list)


class CompletionResponseChoice(OpenAIBaseModel):
    """One choice of a non-streaming completions response."""

    index: int
    text: str
    logprobs: CompletionLogProbs | None = None
    finish_reason: str | None = None
    stop_reason: int | str | None = None
    token_ids: list[int] | None = None
    prompt_logprobs: list[dict[int, Logprob] | None] | None = None
    prompt_token_ids: list[int] | None = None
    routed_experts: str | None = None
    #: vLLM 0.33: the engine's weight-version spans of the choice (null unless the engine sends)
    weight_versions: list[Any] | None = None


class CompletionResponse(OpenAIBaseModel):
    """A non-streaming completions response (batch derender output)."""

    id: str = Field(default_factory=lambda: f"cmpl-{random_uuid()}")
    object: Literal["text_completion"] = "text_completion"
    created: int = Field(default_factory=unix_now)
    model: str
    choices: list[CompletionResponseChoice]
    service_tier: str | None = None
    system_fingerprint: str | None = None
    usage: UsageInfo
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    metrics: PerRequestMetrics | None = None


class CompletionResponseStreamChoice(OpenAIBaseModel):
    """One choice of a completions stream chunk."""

    index: int
    text: str
    logprobs: CompletionLogProbs | None = None
    finish_reason: str | None = None
    stop_reason: int | str | None = None
    prompt_token_ids: list[int] | None = None
    token_ids: list[int] | None = None
    weight_versions: list[Any] | None = None  # vLLM 0.33: null in derender streams


class CompletionStreamResponse(OpenAIBaseModel):
    """A completions stream chunk (streaming derender output)."""

    id: str = Field(default_factory=lambda: f"cmpl-{random_uuid()}")
    object: Literal["text_completion"] = "text_completion"
    created: int = Field(default_factory=unix_now)
    model: str
    choices: list[CompletionResponseStreamChoice]
    usage: UsageInfo | None = None
    system_fingerprint: str | None = None
    metrics: PerRequestMetrics | None = None
    kv_transfer_params: dict[str, Any] | None = None  # vLLM 0.33: null in derender streams
