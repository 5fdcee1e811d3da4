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

from tito.core.message_union import breakpoint_fits
from tito.errors import BadRequest
from tito.protocol.raw_rules import responses_rules
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
    "input_part_fits",
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

#: the input item types of vLLM 0.33's Responses request (the openai SDK's union): another
#: ``type`` is a schema error
INPUT_ITEM_TYPES = frozenset({
    "message", "file_search_call", "computer_call", "computer_call_output", "web_search_call",
    "function_call", "function_call_output", "tool_search_call", "tool_search_output",
    "additional_tools", "configuration_update", "reasoning", "compaction",
    "image_generation_call", "code_interpreter_call", "local_shell_call",
    "local_shell_call_output", "shell_call", "shell_call_output", "apply_patch_call",
    "apply_patch_call_output", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
    "mcp_call", "custom_tool_call_output", "custom_tool_call", "compaction_trigger",
    "item_reference", "program", "program_output",
})


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


#: openai's ``ImageDetail`` and an input file's ``detail``
_IMAGE_DETAILS = ("low", "high", "auto", "original")
_FILE_DETAILS = ("auto", "low", "high")


def input_part_fits(part: Any, *, listed: bool, image_detail: str = "") -> bool:
    """Whether ``part`` validates as one of the input part types of a Responses item, as
    pydantic checks openai's typed dicts (extra keys ignored): ``listed``, a
    ``function_call_output``'s ``ResponseInput{Text,Image,File}ContentParam`` (an image's
    ``detail`` optional, the optional keys nullable); else a message's or a
    ``custom_tool_call_output``'s ``ResponseInput{Text,Image,File}Param`` (an image needs its
    ``detail``, which vLLM 0.33 writes ``image_detail`` = ``"auto"`` into a message's image part
    without one; a file's ``file_data``, ``file_url`` and ``filename`` strings). vLLM refuses a
    part that fits none: with the body (a schema error), but a ``custom_tool_call_output``'s at
    render (its ``400``; fuzz_render seed 339 case 57)."""
    if not isinstance(part, dict) or not breakpoint_fits(part, nullable=listed):
        return False
    kind = part.get("type")
    if kind == "input_text":
        return isinstance(part.get("text"), str)
    if kind == "input_image":
        detail = part.get("detail", None if listed else image_detail)
        return (detail in _IMAGE_DETAILS or listed and detail is None) and all(
            _optional(part, key, nullable=True) for key in ("file_id", "image_url"))
    if kind == "input_file":
        return part.get("detail", "auto") in _FILE_DETAILS and _optional(
            part, "file_id", nullable=True) and all(
            _optional(part, key, nullable=listed) for key in ("file_data", "file_url", "filename"))
    return False


def _optional(part: dict[str, Any], key: str, *, nullable: bool) -> bool:
    """An optional string key of a part: absent, a string, or (``nullable``) null."""
    value = part.get(key, "")
    return isinstance(value, str) or nullable and value is None


def _check_call_item(item: dict[str, Any]) -> None:
    """A call or call output item as vLLM 0.33's input union takes it (the SDK's param types,
    and for the calls its output item models too), else a schema error: a call's ``call_id``,
    ``name`` and ``arguments`` / ``input`` strings; an output's ``output`` a string or a list, a
    ``custom_tool_call_output``'s ``call_id`` a string and a ``function_call_output``'s a string
    or null (it may be left out); a ``namespace`` a string or null; an ``id`` a string or, but
    for a ``custom_tool_call_output`` (the param type alone), null (fuzz_render seeds 700-). A
    ``function_call_output``'s list of parts is checked here (openai's ``List``), a
    ``custom_tool_call_output``'s at render (openai's ``Iterable``, which pydantic reads lazily:
    any JSON container, an object iterating its keys; :func:`input_part_fits`)."""
    kind = item["type"]
    required = {"function_call": ("call_id", "name", "arguments"),
                "custom_tool_call": ("call_id", "name", "input"),
                "custom_tool_call_output": ("call_id",)}.get(kind, ())
    if not all(isinstance(item.get(key), str) for key in required):
        raise ValueError(f"a {kind} item needs a string {', '.join(required)}.")
    output = item.get("output")
    if kind == "custom_tool_call_output" and not isinstance(output, (str, list, dict)):
        raise ValueError(f"a {kind} item's output is a string or an iterable of parts.")
    if kind == "function_call_output" and not (isinstance(output, str) or isinstance(
            output, list) and all(input_part_fits(p, listed=True) for p in output)):
        raise ValueError(f"a {kind} item's output is a string or a list of input_text, "
                         "input_image or input_file parts.")
    if not isinstance(item.get("call_id"), (str, type(None))):
        raise ValueError(f"a {kind} item's call_id must be a string.")
    if not isinstance(item.get("namespace"), (str, type(None))):
        raise ValueError("a call item's namespace must be a string.")
    if "id" in item and not (isinstance(item["id"], str) or item["id"] is None
                             and kind != "custom_tool_call_output"):
        raise ValueError(f"a {kind} item's id must be a string.")


_ITEM_STATUSES = ("in_progress", "completed", "incomplete")
#: an output_text annotation's type -> its required fields and their JSON types
_ANNOTATIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "url_citation": {"url": str, "title": str, "start_index": int, "end_index": int},
    "file_citation": {"file_id": str, "filename": str, "index": int},
    "container_file_citation": {"container_id": str, "file_id": str, "filename": str,
                                "start_index": int, "end_index": int},
    "file_path": {"file_id": str, "index": int},
}


def _lax_int(value: Any) -> bool:
    """pydantic's lax ``int``: an int (a bool too), an integral float, a string of digits."""
    return isinstance(value, int) or isinstance(value, float) and value.is_integer() or (
        isinstance(value, str) and value.strip().lstrip("+-").isdigit())


def _annotation_fits(value: Any) -> bool:
    """One ``output_text`` annotation of the SDK's union (its required fields typed)."""
    fields = _ANNOTATIONS.get(value.get("type")) if isinstance(value, dict) else None
    return fields is not None and all(
        _lax_int(value.get(k)) if t is int else isinstance(value.get(k), t)
        for k, t in fields.items())


def _check_reasoning_item(item: dict[str, Any]) -> None:
    """A reasoning item as vLLM 0.33's input union takes it: a ``summary`` (of any shape here:
    its parts are checked where the item is converted, :mod:`tito.service.responses_items`),
    an ``id`` a string when given, a ``status`` one of the item statuses or null, an
    ``encrypted_content`` a string or null."""
    if item.get("summary") is None:
        raise ValueError("a reasoning item needs a summary (a list of summary_text parts).")
    if "id" in item and not isinstance(item["id"], str):
        raise ValueError("a reasoning item's id must be a string.")
    if item.get("status") not in (None, *_ITEM_STATUSES):
        raise ValueError(f"a reasoning item's status is one of {', '.join(_ITEM_STATUSES)}.")
    if not isinstance(item.get("encrypted_content"), (str, type(None))):
        raise ValueError("a reasoning item's encrypted_content must be a string.")


def _check_output_parts(item: dict[str, Any]) -> bool:
    """A message with ``output_text`` / ``refusal`` parts is an output message (the other
    message types take input parts only): an assistant's, ``type: "message"`` written out, and
    every part an ``output_text`` with its text or a ``refusal`` (vLLM 0.33's union; recorded:
    ``render_fuzz_order``; its id, status and annotations may be missing); whether it is one."""
    parts = item["content"]
    if not isinstance(parts, list) or not any(
            isinstance(p, dict) and p.get("type") in ("output_text", "refusal") for p in parts):
        return False
    if item.get("role") != "assistant" or item.get("type") != "message":
        raise ValueError("a message with output_text or refusal parts is an output message: an "
                         "assistant's, with type 'message'.")
    for p in parts:
        if not (isinstance(p, dict) and (
                p.get("type") == "output_text" and isinstance(p.get("text"), str)
                or p.get("type") == "refusal" and isinstance(p.get("refusal"), str))):
            raise ValueError("an output message's parts are output_text or refusal parts.")
        if "annotations" in p and not (isinstance(p["annotations"], list) and all(
                _annotation_fits(a) for a in p["annotations"])):
            raise ValueError("an output_text part's annotations are a list of url_citation, "
                             "file_citation, container_file_citation or file_path objects.")
        if not isinstance(p.get("logprobs"), (list, type(None))):
            raise ValueError("an output_text part's logprobs are a list.")
    if "id" in item and not isinstance(item["id"], str):
        raise ValueError("an output message's id must be a string.")
    if "status" in item and item["status"] not in _ITEM_STATUSES:
        raise ValueError(f"an output message's status is one of {', '.join(_ITEM_STATUSES)}.")
    return True


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
        if isinstance(value, list):
            for item in value:
                kind = item.get("type", "message") if isinstance(item, dict) else None
                if not isinstance(kind, str) or kind not in INPUT_ITEM_TYPES:
                    raise ValueError("an input item is an object of one of the Responses input "
                                     "item types.")
                if kind in ("custom_tool_call", "function_call", "function_call_output",
                            "custom_tool_call_output"):
                    _check_call_item(item)
                if kind == "reasoning":
                    _check_reasoning_item(item)
                if kind != "message":
                    continue
                if item.get("role") not in ("user", "assistant", "system", "developer"):
                    raise ValueError("a message's role must be 'user', 'assistant', 'system' or "
                                     "'developer'.")
                if not isinstance(item.get("content"), (str, list)):
                    raise ValueError("a message needs content (a string or a list of parts).")
                if not _check_output_parts(item) and isinstance(item["content"], list) and not all(
                        input_part_fits(p, listed=False, image_detail="auto")
                        for p in item["content"]):
                    raise ValueError("a message's parts are input_text, input_image or "
                                     "input_file parts.")
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
