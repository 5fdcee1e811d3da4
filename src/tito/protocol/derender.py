"""Derender shapes: the batch and streaming request bodies, the stream response and the state.

Why client-carried state: tito is stateless (Lambda), so everything the next streaming call needs
travels in ``DerenderStreamState``. It carries vLLM's fields (so a vLLM client's state round-trips
unchanged) plus one ``tito`` object holding tito's own versioned state, which the service validates
and signs. The route body is a union resolved by ``stream``, as in vLLM; :data:`DerenderChatBody`
is a ready-made FastAPI body type for it. The completions bodies are
:mod:`tito.protocol.derender_completion`'s (a chat derender function never defines the
completions models).

tito extensions (off unless used): ``generate_chunks`` lets one call derender several engine events,
and the response then carries ``chunks`` instead of ``chunk``.
"""

from typing import Annotated, Any, Literal

from pydantic import (
    Discriminator,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
    model_validator,
)

from tito.errors import quote
from tito.protocol.chat import ChatCompletionRequest
from tito.protocol.chat_response import ChatCompletionStreamResponse
from tito.protocol.common import NonNegativeInt, TokenId, WireModel, new_list
from tito.protocol.generate_response import GenerateTokensResponse, GenerateTokensStreamResponse

__all__ = [
    "MAX_LOGPROB_CONTEXT_TOKEN_IDS",
    "MAX_PREV_TOKENS",
    "DerenderChatBody",
    "DerenderContext",
    "DerenderChatRequest",
    "DerenderChatStreamRequest",
    "DerenderChatStreamResponse",
    "DerenderStreamState",
]

MAX_PREV_TOKENS = 1024
MAX_LOGPROB_CONTEXT_TOKEN_IDS = 4


def _tokens_only(value: Any) -> Any:
    """Derender needs token ids to decode; a text-mode response has already lost them as text."""
    if isinstance(value, dict) and value.get("output_mode") not in (None, "tokens"):
        raise ValueError(
            f"derender only accepts output_mode 'tokens' generate output "
            f"(got '{quote(value.get('output_mode'))}')."
        )
    return value


class DerenderStreamState(WireModel):
    """State carried by the client between streaming derender calls, echoed back unchanged.

    Every field defaults, so states from older vLLM versions (without the newer fields) and from
    v0.27 (with ``last_content``/``last_reasoning``, accepted and dropped) all parse. Bounds are
    the static ones; size limits tied to ``max_model_len`` are the service's job.
    """

    prev_tokens: list[str] = Field(default_factory=new_list, max_length=MAX_PREV_TOKENS)
    prefix_offset: NonNegativeInt = 0
    read_offset: NonNegativeInt = 0
    role_sent: bool = False
    logprob_context_token_ids: list[TokenId] = Field(
        default_factory=new_list, max_length=MAX_LOGPROB_CONTEXT_TOKEN_IDS
    )
    logprob_text_offset: NonNegativeInt = 0
    output_token_ids: list[TokenId] = Field(default_factory=new_list)
    output_chunk_lens: list[Annotated[int, Field(gt=0)]] = Field(default_factory=new_list)
    tools_streamed: bool = False
    last_tool_call_ids: list[str] = Field(default_factory=new_list)
    held_text: str = ""
    stop_fired: bool = False
    tito: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _drop_v027_fields(cls, data: Any) -> Any:
        """v0.27's ``last_content``/``last_reasoning`` were removed upstream as unnecessary: accept
        them (whatever their type) and drop them, so they are never kept, compared or re-emitted."""
        if isinstance(data, dict) and ("last_content" in data or "last_reasoning" in data):
            data = {k: v for k, v in data.items() if k not in ("last_content", "last_reasoning")}
        return data

    @model_validator(mode="after")
    def _chunk_lens_cover_ids(self) -> "DerenderStreamState":
        """The replay buffer is split at the original chunk boundaries; they must tile it."""
        total = sum(self.output_chunk_lens)
        if total != len(self.output_token_ids):
            raise ValueError(
                f"stream_state.output_chunk_lens sums to {total} but output_token_ids has "
                f"{len(self.output_token_ids)} ids."
            )
        return self


# --------------------------------------------------------------------------------------------
# Render's derender context (tito)
# --------------------------------------------------------------------------------------------


class DerenderContext(WireModel):
    """What tito's render returns in ``GenerateRequest.derender_context``: the request settings
    derender needs, so a client can send this small object instead of the whole original request
    (``chat_request`` / ``completion_request``). Unknown keys are ignored (newer renders)."""

    v: int = 1
    kind: Literal["chat", "completion", "responses"] = "chat"
    model: str | None = None
    request_id: str | None = None
    prompt_tokens: NonNegativeInt | None = None
    prompt_tail: list[TokenId] = Field(default_factory=new_list, max_length=64)
    #: the whole prompt, only with ``echo`` (derender prepends it)
    prompt_token_ids: list[TokenId] | None = None
    skip_special_tokens: bool = True
    spaces_between_special_tokens: bool = True
    stop: list[str] | str | None = None
    stop_token_ids: list[int] | None = None
    include_stop_str_in_output: bool = False
    min_tokens: NonNegativeInt = 0
    ignore_eos: bool = False
    tools: list[str] | None = None
    #: ``{tool: {parameter: type node}}`` for tool parsers that type text values (``_schema``)
    tool_params: dict[str, dict[str, Any]] | None = None
    tool_choice: Any = None
    parallel_tool_calls: bool = True
    include_reasoning: bool = True
    chat_template_kwargs: dict[str, Any] | None = None
    reasoning_ended: bool | None = None
    echo: bool = False
    logprobs: bool | int | None = None
    top_logprobs: int | None = None
    return_token_ids: bool = False
    n: int = Field(default=1, ge=1)
    suffix: None = None
    reasoning_effort: None = None
    #: responses: the request fields the ``Response`` object repeats (instructions, tools, ...)
    response: dict[str, Any] | None = None


# --------------------------------------------------------------------------------------------
# Non-streaming requests
# --------------------------------------------------------------------------------------------


def _each_tokens_only(value: Any) -> Any:
    """:func:`_tokens_only` for every item of a list of engine payloads."""
    if isinstance(value, list):
        for item in value:
            _tokens_only(item)
    return value


def _null_stream_is_false(data: Any) -> Any:
    """``"stream": null`` means "not streaming" to OpenAI clients; treat it like an absent key."""
    if isinstance(data, dict) and "stream" in data and data["stream"] is None:
        data = {k: v for k, v in data.items() if k != "stream"}
    return data


class _DerenderBatchRequestBase(WireModel):
    """Fields (first) and the null-``stream`` rule of every batch derender body."""

    stream: Literal[False] = False
    model: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _null_stream(cls, data: Any) -> Any:
        """See :func:`_null_stream_is_false`."""
        return _null_stream_is_false(data)


class DerenderChatRequest(_DerenderBatchRequestBase):
    """Body of a batch ``/v1/chat/completions/derender``: a whole generate response at once."""

    generate_response: GenerateTokensResponse
    prompt_tokens: NonNegativeInt | None = None
    prompt_token_ids: list[TokenId] | None = None
    chat_request: ChatCompletionRequest | None = None
    derender_context: DerenderContext | None = None

    @field_validator("generate_response", mode="before")
    @classmethod
    def _mode(cls, value: Any) -> Any:
        """Refuse text-mode output with a clear message (see :func:`_tokens_only`)."""
        return _tokens_only(value)


# --------------------------------------------------------------------------------------------
# Streaming requests
# --------------------------------------------------------------------------------------------


class _DerenderStreamRequestBase(WireModel):
    """Fields shared by the chat and completion streaming bodies."""

    stream: Literal[True]
    model: str | None = None
    generate_chunk: GenerateTokensStreamResponse | None = None
    generate_chunks: list[GenerateTokensStreamResponse] | None = Field(default=None, min_length=1)
    stream_state: DerenderStreamState | None = None
    prompt_tokens: NonNegativeInt | None = None
    prompt_token_ids: list[TokenId] | None = None

    @field_validator("generate_chunk", mode="before")
    @classmethod
    def _mode(cls, value: Any) -> Any:
        """Refuse text-mode output with a clear message (see :func:`_tokens_only`)."""
        return _tokens_only(value)

    @field_validator("generate_chunks", mode="before")
    @classmethod
    def _modes(cls, value: Any) -> Any:
        """Refuse text-mode output with a clear message (see :func:`_tokens_only`)."""
        return _each_tokens_only(value)

    @model_validator(mode="after")
    def _one_source(self) -> "_DerenderStreamRequestBase":
        """One call derenders either one event (vLLM) or a batch of events (tito), never both."""
        if (self.generate_chunk is None) == (self.generate_chunks is None):
            raise ValueError("exactly one of `generate_chunk` and `generate_chunks` is required.")
        return self

    def engine_chunks(self) -> list[GenerateTokensStreamResponse]:
        """The engine events of this call, in order, whichever field carried them."""
        if self.generate_chunks is not None:
            return list(self.generate_chunks)
        assert self.generate_chunk is not None  # guaranteed by _one_source
        return [self.generate_chunk]


class DerenderChatStreamRequest(_DerenderStreamRequestBase):
    """Body of one streaming ``/v1/chat/completions/derender`` call."""

    chat_request: ChatCompletionRequest | None = None
    derender_context: DerenderContext | None = None


# --------------------------------------------------------------------------------------------
# Streaming responses
# --------------------------------------------------------------------------------------------


def _omit_null_chunks(data: dict[str, Any]) -> dict[str, Any]:
    if "chunks" in data and data["chunks"] is None:
        del data["chunks"]
    return data


class DerenderChatStreamResponse(WireModel):
    """``{chunk, stream_state}``; with ``generate_chunks`` input, ``chunks`` and a null ``chunk``.

    ``chunks`` is omitted when unused so a vLLM client sees exactly vLLM's two keys.
    """

    chunk: ChatCompletionStreamResponse | None = None
    chunks: list[ChatCompletionStreamResponse] | None = None
    stream_state: DerenderStreamState

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Omit the tito-only ``chunks`` key when null."""
        return _omit_null_chunks(handler(self))


# --------------------------------------------------------------------------------------------
# Route body unions
# --------------------------------------------------------------------------------------------


def _stream_member(batch: str, stream: str) -> Any:
    """A discriminator callable: ``stream`` true picks the streaming model, absent/false/null the
    batch one (a number equal to false too: ``0`` is ``Literal[False]``'s, as in vLLM's union);
    any other value goes to the streaming model so its ``Literal[True]`` reports it."""

    def pick(value: Any) -> str:
        flag = value.get("stream") if isinstance(value, dict) else getattr(value, "stream", None)
        if flag is None or flag is False or type(flag) in (int, float) and flag == 0:
            return batch
        return stream

    return pick


DerenderChatBody = Annotated[
    Annotated[DerenderChatRequest, Tag("DerenderChatRequest")]
    | Annotated[DerenderChatStreamRequest, Tag("DerenderChatStreamRequest")],
    Discriminator(_stream_member("DerenderChatRequest", "DerenderChatStreamRequest")),
]
"""Body of ``/v1/chat/completions/derender``: batch unless ``stream`` is true."""
