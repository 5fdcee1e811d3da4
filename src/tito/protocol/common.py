"""Shapes shared by every wire model: the OpenAI base, errors, usage, stream options, metrics.

Why a separate module: the engine, chat, completion and derender models all reuse these, and keeping
them here lets those modules import one another without cycles. Names mirror vLLM's so a field seen
on a vLLM server maps one to one onto tito.
"""

import os
import time
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from tito.core.message_union import lax_bool_fits
from tito.errors import InvalidField, quote

__all__ = [
    "stop_list",
    "INT64_MAX",
    "INT64_MIN",
    "CompletionTokenUsageInfo",
    "ErrorInfo",
    "ErrorResponse",
    "Logprob",
    "NonNegativeInt",
    "OpenAIBaseModel",
    "PerRequestMetrics",
    "PlaceholderRangeInfo",
    "PromptTokenUsageInfo",
    "SpeculativeDecodingMetrics",
    "StreamOptions",
    "RepetitionDetectionParams",
    "StructuredOutputsParams",
    "TokenId",
    "UsageInfo",
    "WeightVersion",
    "check_cache_salt",
    "check_response_format",
    "new_dict",
    "new_list",
    "random_uuid",
    "unix_now",
]

#: vLLM 0.33's reasoning efforts (a chat request's ``reasoning_effort``; the keys of its
#: ``--reasoning-effort-map``): here, not in :mod:`tito.protocol.chat`, so a model's settings
#: name them without importing the chat request (a completions function never loads it)
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

NonNegativeInt = Annotated[int, Field(ge=0)]
"""An integer that may not be negative (counts, offsets)."""

TokenId = Annotated[int, Field(ge=0)]
"""A vocabulary id: a negative id can only be a client bug, so it is refused at the edge."""


def stop_list(value: Any) -> Any:
    """OpenAI's ``stop`` is a string, a list or null; everything downstream wants a list.

    Anything else is returned unchanged for the field's own validation to reject.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return value


def new_list() -> list[Any]:
    """``default_factory`` of the list fields: a Python function, not the builtin ``list``.

    Why: pydantic reads each factory's signature when it builds a schema, and a builtin's comes
    from parsing its text signature with :mod:`tokenize`, whose first use compiles its regexes
    (~2 ms of every function's cold start, for nothing).
    """
    return []


def new_dict() -> dict[str, Any]:
    """``default_factory`` of the dict fields (see :func:`new_list`)."""
    return {}


def random_uuid() -> str:
    """A random hex id as vLLM 0.33 makes its request and response ids (``vllm.utils.
    random_uuid``: the low 64 bits of a ``uuid4``, 16 hex digits, the first 8-b: its RFC 4122
    variant bits), without building the ``UUID``. Why its shape: a client may store or match
    the ids vLLM writes (``chatcmpl-`` + 16 digits)."""
    raw = bytearray(os.urandom(8))
    raw[0] = (raw[0] & 0x3F) | 0x80  # the variant bits, the low half's top two
    return raw.hex()


def unix_now() -> int:
    """The current time in whole seconds (OpenAI's ``created``)."""
    return int(time.time())


class SchemaRule(ValueError):
    """A rule of vLLM's schema (its pydantic types) that tito checks by hand: reported as the
    body's schema error (``Bad Request``), ``param`` its location (``body.x.y``)."""

    def __init__(self, message: str, *, param: str) -> None:
        super().__init__(message)
        self.param = param


RESPONSE_FORMAT_TYPES = ("text", "json_object", "json_schema", "structural_tag")


def check_response_format(value: Any) -> Any:
    """``response_format.type`` is part of vLLM 0.33's schema (its response-format models'
    literals): a missing or unknown one is the body's 400 (``Bad Request``), not a request rule."""
    if isinstance(value, dict) and value.get("type") not in RESPONSE_FORMAT_TYPES:
        raise SchemaRule("response_format.type must be 'text', 'json_object', 'json_schema' or "
                         f"'structural_tag' (got {quote(value.get('type'))}).",
                         param="body.response_format.type")
    spec = value.get("json_schema") if isinstance(value, dict) else None
    if spec is not None and (not isinstance(spec, dict) or not isinstance(spec.get("name"), str)
                             or not isinstance(spec.get("schema", {}), (dict, type(None)))
                             or not isinstance(spec.get("description"), (str, type(None)))
                             or not lax_bool_fits(spec.get("strict"))):
        # (vLLM's JsonSchemaResponseFormat: `schema` an object or null, `strict` a bool)
        raise SchemaRule("response_format.json_schema needs a string `name` (and `schema`, when "
                         "given, an object; `description` a string; `strict` a boolean).",
                         param="body.response_format.json_schema")
    return value


def check_thinking_token_budget(value: Any) -> int | None:
    """vLLM's rule: a non-negative integer, or -1 for unlimited (sent to the engine as null)."""
    if value is None or value == -1 and type(value) is int:
        return None
    if type(value) is not int or value < 0:
        raise InvalidField("`thinking_token_budget` must be a non-negative integer or -1 for "
                           "unlimited.", param="thinking_token_budget")
    return value


def check_cache_salt(value: str | None) -> str | None:
    """Apply vLLM's cache_salt rules (shared by the OpenAI requests and GenerateRequest).

    The salt partitions the prefix cache, so it must be short and must not contain the characters
    vLLM uses as separators in cache keys or paths.
    """
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidField("Parameter 'cache_salt' must be a non-empty string if provided.",
                           param="cache_salt")
    if len(value) > 128 or any(bad in value for bad in ("@", "/", "\\", "\x00")):
        raise InvalidField("Parameter 'cache_salt' must be at most 128 characters and must not "
                           "contain '@', '/', '\\\\', or NUL.", param="cache_salt")
    return value


def wire_dump(model: BaseModel) -> Any:
    """``model.model_dump(mode="json")``, or the Python-mode dump when a free-form value nests
    past pydantic's JSON-mode recursion guard (a ``ValueError``).

    Why: a request's own JSON values (``chat_template_kwargs``, ``tool_choice``) travel back in
    the answer's ``derender_context``; JSON mode refuses one nested ~200 deep while the
    Python-mode dump and tito's JSON encoder take it (vLLM answers such a body with a 200).
    """
    try:
        return model.model_dump(mode="json")
    except ValueError:
        return model.model_dump()


class WireModel(BaseModel):
    """Base of every wire model: its validator is built on first use, not at import.

    Why: building the pydantic schemas of all ~90 wire models costs each cold start ~70 ms of
    CPU, and a function uses a handful of them (a derender function never touches the render
    requests, nor render the derender ones). ``defer_build`` builds a model's schema the first
    time it validates, serializes or is asked for its JSON schema; the result is the same.
    """

    model_config = ConfigDict(defer_build=True)


class OpenAIBaseModel(WireModel):
    """Base of every OpenAI-shaped model.

    ``extra="allow"``, as vLLM: OpenAI adds fields faster than servers follow, and a client sending
    one must not get a 400. Unknown fields are kept (and re-emitted on dump) but never acted upon.
    """

    model_config = ConfigDict(extra="allow")


class PlaceholderRangeInfo(WireModel):
    """Where one multimodal item's placeholder tokens sit in ``token_ids`` (the engine request's
    multimodal features and its responses' ``mm_placeholders``)."""

    offset: NonNegativeInt
    length: int = Field(gt=0)


class ErrorInfo(OpenAIBaseModel):
    """The inside of an error body; ``code`` is the HTTP status as an int (vLLM, not OpenAI)."""

    message: str
    type: str
    param: str | None = None
    code: int


class ErrorResponse(OpenAIBaseModel):
    """Every error body of every endpoint: ``{"error": {...}}``."""

    error: ErrorInfo


class PromptTokenUsageInfo(OpenAIBaseModel):
    """Prompt-side usage detail: how many prompt tokens hit the prefix cache."""

    cached_tokens: NonNegativeInt | None = None


class CompletionTokenUsageInfo(OpenAIBaseModel):
    """Completion-side usage detail; tito fills ``reasoning_tokens`` from its reasoning parser."""

    reasoning_tokens: NonNegativeInt | None = None


class UsageInfo(OpenAIBaseModel):
    """Token accounting of a response or of a usage-only stream chunk. Counts are never negative:
    an engine's usage that says otherwise is a 400 (it reached a Responses count as a 500)."""

    prompt_tokens: NonNegativeInt = 0
    total_tokens: NonNegativeInt = 0
    completion_tokens: NonNegativeInt | None = 0
    prompt_tokens_details: PromptTokenUsageInfo | None = None
    completion_tokens_details: CompletionTokenUsageInfo | None = None


class StreamOptions(OpenAIBaseModel):
    """Streaming usage switches; ``continuous_usage_stats`` only counts with ``include_usage``."""

    include_usage: bool | None = False
    continuous_usage_stats: bool | None = False


class SpeculativeDecodingMetrics(OpenAIBaseModel):
    """Engine speculative decoding counters, passed through untouched."""

    mean_acceptance_length: float | None = None
    draft_acceptance_rate: float | None = None
    acceptance_histogram: list[int] | None = None
    num_spec_steps: int | None = None
    num_accepted_draft_tokens: int | None = None
    num_draft_tokens: int | None = None
    num_spec_tokens: int | None = None
    per_step_accepted: list[int] | None = None
    per_step_drafted: list[int] | None = None


class PerRequestMetrics(OpenAIBaseModel):
    """Engine timing metrics (only for n == 1), passed through from generate to the client."""

    time_to_first_token_ms: float | None = None
    generation_time_ms: float | None = None
    queue_time_ms: float | None = None
    mean_itl_ms: float | None = None
    tokens_per_second: float | None = None
    speculative_decoding: SpeculativeDecodingMetrics | None = None


class Logprob(OpenAIBaseModel):
    """One prompt-logprob entry (values keyed by token id in ``prompt_logprobs``)."""

    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


class WeightVersion(WireModel):
    """Which model weights produced a half-open range of output token indexes (RL setups)."""

    version: str
    start: int
    end: int


class RepetitionDetectionParams(OpenAIBaseModel):
    """vLLM's ``RepetitionDetectionParams``: stop an output that repeats an N-gram pattern.
    Typed as vLLM's request types it (a dataclass: ints, lax as pydantic's, unknown keys
    dropped) so a bad value is the request's 400 and the engine gets every field, as vLLM's
    render writes them."""

    max_pattern_size: int = 0
    min_pattern_size: int = 0
    min_count: int = 0

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="after")
    def _check(self) -> "RepetitionDetectionParams":
        """vLLM's ``__post_init__`` rules (its ``VLLMValidationError``, param null)."""
        if self.max_pattern_size < 0 or self.min_pattern_size < 0 \
                or self.min_pattern_size > self.max_pattern_size:
            raise InvalidField(
                "max_pattern_size, min_pattern_size must be >=0, with min_pattern_size <= "
                "max_pattern_size. Set both to 0 to disable repetitive pattern detection.",
                param=None)
        if self.max_pattern_size > 0 and self.min_count < 2:
            raise InvalidField(
                "min_count must be >= 2 to detect repetitive patterns in engine output. If you "
                "do not wish to detect repetitive patterns, set max_pattern_size to 0.",
                param=None)
        return self


_STRUCTURED_KINDS = ("json", "regex", "choice", "grammar", "json_object", "structural_tag")
#: vLLM's boolean options of a constraint (False, their default, is not written)
_STRUCTURED_OPTIONS = ("disable_any_whitespace", "disable_additional_properties")


class StructuredOutputsParams(OpenAIBaseModel):
    """A structured-output constraint; shared by the OpenAI requests and ``SamplingParams``.

    vLLM 0.33's ``StructuredOutputsParams`` dataclass: its constraint kinds and three options
    (typed: ``disable_any_whitespace`` a bool, not nullable, read as pydantic's lax bool); any
    other key (``disable_fallback``, its own ``_backend``, a typo) is dropped, as vLLM's body
    drops it, so it never reaches the engine's sampling params (fuzz_render: an unknown key
    rode along in tito's GenerateRequest).
    """

    json_: str | dict[str, Any] | None = Field(default=None, alias="json")
    regex: str | None = None
    choice: list[str] | None = None
    grammar: str | None = None
    json_object: bool | None = None
    structural_tag: str | dict[str, Any] | None = None
    disable_any_whitespace: bool = False
    disable_additional_properties: bool = False
    whitespace_pattern: str | None = None

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @model_serializer(mode="wrap")
    def _wire_name(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Emit ``json`` (the wire name) even without ``by_alias``: the attribute is only renamed
        because ``BaseModel.json`` is taken; an option at its default is left out (the engine's
        default), so a constraint dumps as compactly as it was sent."""
        return {("json" if k == "json_" else k): v for k, v in handler(self).items()
                if not (k in _STRUCTURED_OPTIONS and v is False)}

    @model_validator(mode="after")
    def _one_kind(self) -> "StructuredOutputsParams":
        """Two constraints cannot both hold on the same output, so vLLM refuses more than one
        (its request check counts json, regex and choice first: param ``structured_outputs``,
        as vLLM's completions, its chat sends null; then every kind, param null)."""
        values = {k: getattr(self, "json_" if k == "json" else k) for k in _STRUCTURED_KINDS}
        given = [k for k, v in values.items() if v is not None]
        if len([k for k in given if k in ("json", "regex", "choice")]) > 1:
            raise InvalidField("You can only use one kind of constraints for structured "
                               "outputs ('json', 'regex' or 'choice').",
                               param="structured_outputs")
        if len(given) > 1:
            raise InvalidField(
                "You can only use one kind of structured outputs constraint but multiple are "
                f"specified: {given}.", param=None
            )
        if not given:  # vLLM's StructuredOutputsParams refuses an empty constraint too
            raise InvalidField("You must use one kind of structured outputs constraint but none "
                               "are specified.", param=None)
        return self
