"""OpenAI chat completions request shapes: the request render consumes (the responses derender
fills are in :mod:`tito.protocol.chat_response`, still importable from here).

Why these exact names and defaults: users move between a vLLM server and tito, so every field keeps
vLLM's name, default and validation message (same 400s for the same bodies). Responses are dumped
with plain ``model_dump()`` (nulls kept, as vLLM does), except ``tool_calls``, which is omitted when
empty, and ``FunctionDefinition.strict``/``defer_loading``, omitted when null.
"""

from typing import Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from tito.core.message_union import (
    LAZY_CONTENT_ROLES,
    custom_refuses,
    openai_refuses,
    tool_calls_ignored,
)
from tito.core.message_union import openai_function as _openai_function
from tito.core.message_union import openai_message as _openai_message
from tito.protocol.common import (
    INT64_MAX,
    INT64_MIN,
    OpenAIBaseModel,
    ReasoningEffort,
    RepetitionDetectionParams,
    StreamOptions,
    StructuredOutputsParams,
    TokenId,
    SchemaRule,
    check_thinking_token_budget,
    check_response_format,
    new_list,
    random_uuid,
)
from tito.protocol.raw_rules import chat_rules

__all__ = [
    "ChatCompletionNamedFunction",
    "ChatCompletionNamedToolChoiceParam",
    "ChatCompletionRequest",
    "ChatCompletionToolsParam",
    "FunctionDefinition",
    "ReasoningEffort",
    "ToolChoice",
    "normalize_messages",
    "tool_calls_ignored",
]


# --------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------


class FunctionDefinition(OpenAIBaseModel):
    """A callable tool's schema, as the chat template and tool parsers see it."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None
    defer_loading: bool | None = None

    @model_serializer(mode="wrap")
    def _omit_null_flags(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Templates test ``strict is defined``; a null would flip that test, so vLLM omits it."""
        data = handler(self)
        for key in ("strict", "defer_loading"):
            if key in data and data[key] is None:
                del data[key]
        return data


class ChatCompletionToolsParam(OpenAIBaseModel):
    """One entry of ``tools``."""

    type: Literal["function"] = "function"
    function: FunctionDefinition


class ChatCompletionNamedFunction(OpenAIBaseModel):
    """The function a named ``tool_choice`` forces."""

    name: str


class ChatCompletionNamedToolChoiceParam(OpenAIBaseModel):
    """``tool_choice: {"type": "function", "function": {"name": ...}}``."""

    type: Literal["function"] = "function"
    function: ChatCompletionNamedFunction


ToolChoice = Literal["none", "auto", "required"] | ChatCompletionNamedToolChoiceParam


# --------------------------------------------------------------------------------------------
# Shared request validation (also used by CompletionRequest)
# --------------------------------------------------------------------------------------------


#: roles whose openai message type reads a non-string ``content`` as an ``Iterable`` of parts,
#: which pydantic checks only when render iterates it (vLLM 0.33: a 400 at render, after the
#: model lookup, or no check at all where its harmony path never iterates it)
_LAZY_CONTENT = LAZY_CONTENT_ROLES


#: fields one message type alone can take, and their JSON types: the OpenAI assistant type's
#: (the only one a null content fits) and vLLM's custom type's (the only one a custom role, or
#: a function message without a name, fits)
_ASSISTANT_FIELDS = (("function_call", dict), ("audio", dict), ("refusal", str))
#: what the OpenAI assistant type's typed dicts require (``FunctionCall``, ``Audio``; found by
#: fuzz_render seed 320: an ``audio`` without ``id`` beside a null content is vLLM's 400)
_ASSISTANT_REQUIRED = {"function_call": ("name", "arguments"), "audio": ("id",), "refusal": ()}
_CUSTOM_FIELDS = (("reasoning", str), ("task", str), ("tools", list))


def _check_typed_fields(msg: dict[str, Any], role: str, i: int) -> None:
    """The fields vLLM 0.33's message union types when only one of its types can take the
    message (a schema error otherwise); where several can, a value one refuses picks another."""
    if role == "assistant" and "content" in msg and msg["content"] is None:
        if "tool_calls" in msg and msg["tool_calls"] is None:
            # the custom type refuses the null content, the OpenAI type the null calls
            raise ValueError(f"messages[{i}].tool_calls must not be null beside a null content "
                             "(OpenAI's assistant message type, the only one a null content "
                             "fits, types them as a list).")
        fields: tuple[tuple[str, Any], ...] = _ASSISTANT_FIELDS
    elif role == "assistant" and openai_refuses(msg):
        if custom_refuses(msg):  # (OpenAI's type refuses a field only it types)
            raise ValueError(f"messages[{i}] fits no message type: OpenAI's assistant type "
                             "refuses its function_call / audio / refusal, vLLM's custom "
                             "type its other fields or parts.")
        return
    elif (role not in _LAZY_CONTENT and not _openai_function(msg)
          or role == "tool" and not isinstance(msg.get("tool_call_id"), str)):
        fields = _CUSTOM_FIELDS
    else:
        return
    for key, kinds in fields:
        if msg.get(key) is not None and not isinstance(msg[key], kinds):
            raise ValueError(f"messages[{i}].{key} has the wrong type for a {role!r} message.")
        if fields is _ASSISTANT_FIELDS and isinstance(msg.get(key), dict) and not all(
                isinstance(msg[key].get(name), str) for name in _ASSISTANT_REQUIRED[key]):
            raise ValueError(f"messages[{i}].{key} needs the string field(s) "
                             f"{', '.join(_ASSISTANT_REQUIRED[key])} (OpenAI's type).")


def normalize_messages(messages: Any, *, check_calls: bool = True) -> Any:
    """Check the structure of ``messages`` and rename the deprecated ``reasoning_content``.

    Messages stay plain dicts (the chat template consumes dicts and templates use arbitrary keys),
    but their skeleton is checked here so a malformed body is a clear 400, not a template crash.
    The input is never mutated: renamed messages are copies. ``check_calls`` (the chat request)
    is vLLM's chat request model: a ``tool_calls`` that is not a list becomes one before the
    union validates it (a string's characters, an object's keys, a number's TypeError) and an
    assistant's calls are checked up front; false (``/tokenize``'s body, which has no such
    validator) takes a string or object as the OpenAI assistant type's iterable, left as it
    is, and the calls' shape to the render (:mod:`tito.service.tokenize`). An OpenAI-typed
    message of another role ignores ``tool_calls`` (:func:`tool_calls_ignored`).
    """
    if not isinstance(messages, list):
        return messages  # let the field type report it
    out: list[Any] = []
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise ValueError(f"messages[{i}] must be an object.")
        role = msg.get("role")
        if not isinstance(role, str):  # any string: "" is vLLM's custom role (templates skip it)
            raise ValueError(f"messages[{i}].role must be a string.")
        content = msg.get("content")
        if content is None and "content" in msg and role != "assistant" and not (
                role == "function" and isinstance(msg.get("name"), str)):
            # vLLM's message types: only the assistant's (and a named function's) content may
            # be null; an absent one is its custom message type's (any role: empty content)
            raise ValueError(f"messages[{i}].content must be a string or a list of parts "
                             f"for role {msg['role']!r}.")
        lazy = _openai_message(msg)
        if content is not None and not isinstance(content, str) and not (
                lazy and isinstance(content, dict)):  # an object iterates as its keys
            if not isinstance(content, list):
                raise ValueError(
                    f"messages[{i}].content must be a string, a list of parts or null."
                )
            for j, part in enumerate(() if lazy else content):
                if not isinstance(part, (dict, str)):
                    raise ValueError(f"messages[{i}].content[{j}] must be an object.")
                if isinstance(part, dict) and "type" in part and not isinstance(part["type"], str):
                    raise ValueError(f"messages[{i}].content[{j}].type must be a string.")
        tool_calls = msg.get("tool_calls")
        if tool_calls is not None and not isinstance(tool_calls, list) and check_calls:
            if not isinstance(tool_calls, (str, dict)):  # vLLM's words for list(3)
                raise ValueError(f"'{type(tool_calls).__name__}' object is not iterable")
            msg = {**msg, "tool_calls": list(tool_calls)}
            tool_calls = msg["tool_calls"]
        if tool_calls is not None and not tool_calls_ignored(msg) and (check_calls or not (
                role == "assistant" and isinstance(tool_calls, (str, dict, list)))):
            # (a tokenize body: an assistant's iterable of calls is OpenAI's type's, unread
            # there; its render checks each call, the tokenize service's BadRequestError)
            if not isinstance(tool_calls, list):
                raise ValueError(f"messages[{i}].tool_calls must be a list of objects.")
            for k, call in enumerate(tool_calls):
                if not isinstance(call, dict):
                    raise SchemaRule(f"messages[{i}].tool_calls[{k}] must be an object.",
                                     param=f"body.messages.{i}.tool_calls.{k}")
            for k, call in enumerate(tool_calls if check_calls else ()):
                # vLLM's schema: openai's typed call (id, function with name and arguments
                # strings, type "function"), checked in its declaration order
                where = f"messages[{i}].tool_calls[{k}]"
                if not isinstance(call.get("id"), str):
                    raise SchemaRule(f"{where}.id must be a string.",
                                     param=f"body.messages.{i}.tool_calls.{k}.id")
                function = call.get("function")
                if not isinstance(function, dict) or not isinstance(function.get("name"), str) \
                        or not isinstance(function.get("arguments"), str):
                    raise SchemaRule(f"{where}.function must be an object with string `name` "
                                     "and `arguments`.",
                                     param=f"body.messages.{i}.tool_calls.{k}.function")
                if call.get("type") != "function":
                    raise SchemaRule(f"{where}.type must be 'function'.",
                                     param=f"body.messages.{i}.tool_calls.{k}.type")
        # vLLM's types: a tool message's has no name (any is taken), every other member types
        # it a string (null refused); the other OpenAI roles' (the function message's too)
        # have no tool_call_id (any is taken), the custom type's is a string or null
        if "name" in msg and not isinstance(msg["name"], str) and not (role == "tool" and lazy):
            raise ValueError(f"messages[{i}].name must be a string.")
        if msg.get("tool_call_id") is not None and not isinstance(msg["tool_call_id"], str) and (
                role not in _LAZY_CONTENT or role == "tool") and not _openai_function(msg):
            raise ValueError(f"messages[{i}].tool_call_id must be a string.")
        _check_typed_fields(msg, role, i)
        if "reasoning_content" in msg:
            msg = dict(msg)
            legacy = msg.pop("reasoning_content")
            if msg.get("reasoning") is None:
                msg["reasoning"] = legacy
        out.append(msg)
    return out


# --------------------------------------------------------------------------------------------
# Request
# --------------------------------------------------------------------------------------------


class ChatCompletionRequest(OpenAIBaseModel):
    """The OpenAI chat request plus vLLM's extras, with vLLM's defaults and checks.

    Defaults that are ``None`` mean "use the server/generation-config default" (the sampling
    mapping resolves them); defaults that are concrete values are vLLM's own.
    """

    # OpenAI fields
    messages: list[dict[str, Any]]
    model: str | None = None
    frequency_penalty: float | None = None  # (vLLM 0.33: unset takes the generation config's)
    logit_bias: dict[str, float] | None = None
    logprobs: bool | None = False
    top_logprobs: int | None = 0
    max_tokens: int | None = None  # deprecated by OpenAI in favour of max_completion_tokens
    max_completion_tokens: int | None = None
    n: int | None = 1
    presence_penalty: float | None = None
    response_format: dict[str, Any] | None = None
    seed: int | None = Field(default=None, ge=INT64_MIN, le=INT64_MAX)
    stop: str | list[str] | None = Field(default_factory=new_list)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    temperature: float | None = None
    top_p: float | None = None
    tools: list[ChatCompletionToolsParam] | None = None
    tool_choice: ToolChoice | None = "none"
    reasoning_effort: ReasoningEffort | None = None
    include_reasoning: bool = True
    parallel_tool_calls: bool | None = True
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

    # vLLM chat extras
    echo: bool = False
    add_generation_prompt: bool = True
    continue_final_message: bool = False
    add_special_tokens: bool = False
    documents: list[dict[str, str]] | None = None
    chat_template: str | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    media_io_kwargs: dict[str, dict[str, Any]] | None = None
    mm_processor_kwargs: dict[str, Any] | None = None
    structured_outputs: StructuredOutputsParams | None = None
    priority: int = Field(default=0, ge=INT64_MIN, le=INT64_MAX)
    request_id: str = Field(default_factory=random_uuid)
    session_id: str | None = None
    return_tokens_as_token_ids: bool | None = None
    return_token_ids: bool | None = None
    # typed as vLLM 0.33 types them (a wrong type is its schema error); the engine and
    # multimodal ones are not acted on here (text-only models, no weight versions)
    return_weight_versions: bool = False
    routed_experts_prompt_start: int = Field(default=0, ge=0)
    return_token_offsets: bool | None = False
    return_prompt_text: bool | None = None
    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    cache_salt: str | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    vllm_xargs: dict[str, Any] | None = None
    repetition_detection: RepetitionDetectionParams | None = None
    stream_interval: int | None = Field(default=None, ge=1)
    thinking_token_budget: int | None = None
    watermarking: bool | None = None

    @field_validator("thinking_token_budget", mode="before")
    @classmethod
    def _thinking_token_budget(cls, value: Any) -> Any:
        """-1 means unlimited, which the engine spells null (:func:`check_thinking_token_budget`)."""
        return check_thinking_token_budget(value)

    @field_validator("messages", mode="before")
    @classmethod
    def _messages(cls, value: Any) -> Any:
        """Structural check and ``reasoning_content`` rename; see :func:`normalize_messages`."""
        return normalize_messages(value)

    @field_validator("response_format")
    @classmethod
    def _response_format(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """Its ``type`` is a schema rule; see :func:`check_response_format`."""
        return check_response_format(value)

    @model_validator(mode="before")
    @classmethod
    def _raw_rules(cls, data: Any) -> Any:
        """vLLM's checks of the raw body, in its order, before any field
        (:func:`tito.protocol.raw_rules.chat_rules`; ``tool_choice`` defaults to "auto" when
        tools are given, which only the raw body shows)."""
        return chat_rules(data) if isinstance(data, dict) else data


#: the response models, whose old home this module was: still importable from it, lazily
_RESPONSE_NAMES = frozenset({
    "ChatCompletionLogProb", "ChatCompletionLogProbs", "ChatCompletionLogProbsContent",
    "ChatCompletionResponse", "ChatCompletionResponseChoice", "ChatCompletionResponseStreamChoice",
    "ChatCompletionStreamResponse", "ChatMessage", "DeltaFunctionCall", "DeltaMessage",
    "DeltaToolCall", "FunctionCall", "ToolCall",
})


def __getattr__(name: str) -> Any:
    """A response model from :mod:`tito.protocol.chat_response` (imported on first use only)."""
    if name not in _RESPONSE_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import tito.protocol.chat_response as response

    return getattr(response, name)
