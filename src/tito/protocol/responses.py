"""The OpenAI Responses API request render consumes. The ``Response`` object and the stream
events derender produces live in :mod:`tito.protocol.responses_output`, the derender bodies in
:mod:`tito.protocol.responses_derender`, so the Responses render function never defines the
derender and engine-response models.

Why these names: they are the openai SDK's (``openai.types.responses``) and vLLM 0.33's
(``ResponsesRequest``), field for field, so an SDK client parses every object tito sends into its
own types (the tests check exactly that). Input items stay plain dicts: the Responses input is a
large union (messages, ``function_call``, ``function_call_output``, ``reasoning``, ...) that
render walks item by item with clear 400s, as vLLM's ``construct_input_messages`` does.
"""

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from tito.errors import BadRequest
from tito.protocol.raw_rules import responses_rules
from tito.protocol.responses_input import check_input_items
from tito.protocol.responses_tools import ResponsesTool
from tito.protocol.common import (
    INT64_MAX,
    INT64_MIN,
    OpenAIBaseModel,
    StructuredOutputsParams,
    new_list,
    random_uuid,
)

__all__ = [
    "ResponsesRequest",
]

#: ``include`` values that mean "output logprobs" (the only one render acts on).
OUTPUT_LOGPROBS = "message.output_text.logprobs"


#: the ``tool_choice`` objects of vLLM 0.33's Responses request (the openai SDK's union) -> the
#: fields each requires besides ``type`` (``allowed_tools``' ``mode`` and ``tools`` checked apart);
#: another ``type`` is a schema error. Only ``function`` and ``custom`` name a tool to call: every
#: other one renders as ``"auto"`` (no constraint, every tool shown), as vLLM 0.33 renders it.
TOOL_CHOICE_TYPES: dict[str, tuple[str, ...]] = {
    "allowed_tools": ("mode", "tools"), "function": ("name",), "custom": ("name",),
    "mcp": ("server_label",), "file_search": (), "web_search_preview": (), "computer": (),
    "computer_use_preview": (), "computer_use": (), "web_search_preview_2025_03_11": (),
    "image_generation": (), "code_interpreter": (), "programmatic_tool_calling": (),
    "apply_patch": (), "shell": (),
}



class ReasoningConfig(OpenAIBaseModel):
    """``reasoning``: ``effort`` drives the template's ``reasoning_effort``/``enable_thinking``."""

    effort: Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"] | None = None
    # typed as the openai SDK's ``Reasoning`` (vLLM's), otherwise unused
    summary: Literal["auto", "concise", "detailed"] | None = None
    generate_summary: Literal["auto", "concise", "detailed"] | None = None
    context: Literal["auto", "current_turn", "all_turns"] | None = None
    mode: str | None = None


class TextConfig(OpenAIBaseModel):
    """``text``: ``format`` is ``{"type": "text"|"json_object"|"json_schema", ...}``."""

    format: dict[str, Any] | None = None
    verbosity: Literal["low", "medium", "high"] | None = None

    @field_validator("format")
    @classmethod
    def _format(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """The openai SDK's union (vLLM validates it): text, json_object, or json_schema with
        a ``name`` and a ``schema``; anything else is a schema error."""
        if value is None:
            return None
        kind = value.get("type")
        if kind not in ("text", "json_object", "json_schema"):
            raise ValueError("format.type must be 'text', 'json_object' or 'json_schema'.")
        if kind == "json_schema" and (not isinstance(value.get("name"), str)
                                      or not isinstance(value.get("schema"), dict)):
            raise ValueError("a json_schema format needs a string `name` and a `schema` object.")
        return value


class PromptCacheOptions(OpenAIBaseModel):
    """OpenAI's ``prompt_cache_options`` as vLLM 0.33 types the request's (its
    ``PromptCacheOptionsParam``): a wrong value is its schema error; nothing here acts on it."""

    mode: Literal["implicit", "explicit"] = "implicit"
    ttl: Literal["30m"] = "30m"
    comparison_response_id: str | None = None
    prewarm: bool | None = None


class ResponsesStructuredOutputs(StructuredOutputsParams):
    """A Responses body's constraint: vLLM 0.33 types its ``structural_tag`` as its dataclass
    does, JSON text (an object is the schema's 400; a chat body's raw rule refuses one before
    its schema, with its own 400)."""

    structural_tag: str | None = None


class ResponsesRequest(OpenAIBaseModel):
    """The Responses create request, with vLLM 0.33's extras and defaults."""

    background: bool | None = False
    #: vLLM 0.33's accepted values (a schema error otherwise)
    include: list[Literal["code_interpreter_call.outputs", "computer_call_output.output.image_url",
                          "file_search_call.results", "message.input_image.image_url",
                          "message.output_text.logprobs", "reasoning.encrypted_content"]
                  ] | None = None
    input: str | list[dict[str, Any]]
    instructions: str | None = None
    max_output_tokens: int | None = None
    max_tool_calls: int | None = None
    metadata: dict[str, str] | None = None
    model: str | None = None
    logit_bias: dict[str, float] | None = None
    parallel_tool_calls: bool | None = True
    previous_response_id: str | None = None
    prompt: dict[str, Any] | None = None
    reasoning: ReasoningConfig | None = None
    include_reasoning: bool = True
    service_tier: Literal["auto", "default", "flex", "scale", "priority"] = "auto"
    store: bool | None = True
    stream: bool | None = False
    temperature: float | None = None
    text: TextConfig | None = None
    tool_choice: Literal["none", "auto", "required"] | dict[str, Any] = "auto"
    tools: list[ResponsesTool] = Field(default_factory=new_list)
    top_logprobs: int | None = Field(default=0, ge=0, le=20)
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    truncation: Literal["auto", "disabled"] | None = "disabled"
    user: str | None = None
    skip_special_tokens: bool | None = None
    spaces_between_special_tokens: bool = True
    include_stop_str_in_output: bool = False
    presence_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    frequency_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    repetition_penalty: float | None = None
    seed: int | None = Field(default=None, ge=INT64_MIN, le=INT64_MAX)
    stop: str | list[str] | None = Field(default_factory=new_list)
    stop_token_ids: list[int] | None = Field(default_factory=new_list)
    ignore_eos: bool = False
    request_id: str = Field(default_factory=lambda: f"resp_{random_uuid()}")
    priority: int = Field(default=0, ge=INT64_MIN, le=INT64_MAX)
    cache_salt: str | None = Field(default=None, min_length=1, max_length=1024)
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    # typed as vLLM's StructuredOutputsParams (a wrong-typed kind is its schema error), kept as
    # the body's object (the render reads it as a dict)
    structured_outputs: ResponsesStructuredOutputs | None = None
    vllm_xargs: dict[str, Any] | None = None
    # typed as vLLM 0.33 types them (a wrong type is its schema error), otherwise unused
    prompt_cache_key: str | None = None
    prompt_cache_options: PromptCacheOptions | None = None
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    safety_identifier: str | None = None
    watermarking: bool | None = None
    session_id: str | None = None
    media_io_kwargs: dict[str, dict[str, Any]] | None = None
    mm_processor_kwargs: dict[str, Any] | None = None
    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    enable_response_messages: bool = False
    # earlier messages to render before ``input`` (chat or harmony shaped: dicts; vLLM reads
    # them on gpt-oss only)
    previous_input_messages: list[dict[str, Any]] | None = None

    @field_validator("structured_outputs", mode="after")
    @classmethod
    def _structured_as_sent(cls, value: StructuredOutputsParams | None) -> Any:
        """The constraint's object as sent (its kinds' types checked)."""
        return None if value is None else value.model_dump(exclude_unset=True)

    @field_validator("tool_choice")
    @classmethod
    def _tool_choice(cls, value: Any) -> Any:
        """An object is one of the union's members (:data:`TOOL_CHOICE_TYPES`), with its
        required fields of their types: else a schema error, as vLLM's."""
        if not isinstance(value, dict):
            return value
        kind = value.get("type")  # (a lookup of an unhashable type was a 500: fuzz_hard 120)
        required = TOOL_CHOICE_TYPES.get(kind) if isinstance(kind, str) else None
        if required is None:
            raise ValueError("tool_choice must be 'none', 'auto', 'required' or one of the "
                             "Responses tool choice objects.")
        for name in required:
            if name == "tools":
                ok = isinstance(value.get(name), list) and all(
                    isinstance(t, dict) for t in value[name])
            elif name == "mode":
                ok = value.get(name) in ("auto", "required")
            else:
                ok = isinstance(value.get(name), str)
            if not ok:
                raise ValueError(f"a {value['type']!r} tool_choice needs a valid {name}.")
        if value["type"] == "mcp" and not isinstance(value.get("name"), (str, type(None))):
            raise ValueError("an 'mcp' tool_choice's name must be a string.")
        return value

    @field_validator("prompt_cache_retention", mode="before")
    @classmethod
    def _cache_retention(cls, value: Any) -> Any:
        """vLLM reads ``in-memory`` as ``in_memory``."""
        return "in_memory" if value == "in-memory" else value

    @field_validator("input")
    @classmethod
    def _input_messages(cls, value: Any) -> Any:
        """A message item (``type`` message or none) has a role of the union vLLM validates
        against (user, assistant, system, developer) and content: else a schema error."""
        check_input_items(value)
        return value

    @model_validator(mode="before")
    @classmethod
    def _raw_rules(cls, data: Any) -> Any:
        """vLLM's checks of the raw body, in its order, before any field
        (:func:`tito.protocol.raw_rules.responses_rules`)."""
        return responses_rules(data) if isinstance(data, dict) else data

    def check_ranges(self) -> None:
        """vLLM's SamplingParams range checks, reported on the request's own field names (at
        render, after the model lookup, as vLLM's)."""
        t = self.temperature
        if t is not None and t < 0:
            raise BadRequest(f"temperature must be non-negative, got {t}.", param="temperature")
        if t is not None and t > 2:
            raise BadRequest(f"temperature must be in [0, 2], got {t}.", param="temperature")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise BadRequest(f"top_p must be in (0, 1], got {self.top_p}.", param="top_p")

    def output_logprobs(self) -> bool:
        """Does the request ask for output logprobs (``include``)?"""
        return OUTPUT_LOGPROBS in (self.include or [])
