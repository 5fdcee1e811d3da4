"""The ``/v1/completions/derender`` bodies: batch or one streamed call, and the streamed answer.

Why apart from :mod:`tito.protocol.derender` (whose state, context and stream base they share):
they build on the completions models, which the chat derender function never needs (its cold
start).
"""

from typing import Annotated, Any

from pydantic import (
    Discriminator,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
    model_validator,
)

from tito.errors import InvalidField
from tito.protocol.common import NonNegativeInt, TokenId, WireModel
from tito.protocol.completion import CompletionRequest, CompletionStreamResponse
from tito.protocol.derender import (
    DerenderContext,
    DerenderStreamState,
    _DerenderBatchRequestBase,
    _DerenderStreamRequestBase,
    _each_tokens_only,
    _omit_null_chunks,
    _stream_member,
)
from tito.protocol.generate_response import GenerateTokensResponse

__all__ = [
    "DerenderCompletionBody",
    "DerenderCompletionRequest",
    "DerenderCompletionStreamRequest",
    "DerenderCompletionStreamResponse",
]


class DerenderCompletionRequest(_DerenderBatchRequestBase):
    """Body of a batch ``/v1/completions/derender``: one generate response per prompt."""

    generate_responses: list[GenerateTokensResponse]
    prompt_tokens: list[NonNegativeInt] | None = None
    prompt_token_ids: list[list[TokenId] | None] | None = None
    completion_request: CompletionRequest | None = None
    derender_context: DerenderContext | None = None

    @field_validator("generate_responses", mode="before")
    @classmethod
    def _mode(cls, value: Any) -> Any:
        """Refuse text-mode output with a clear message (see :func:`_tokens_only`); an empty list
        is vLLM's own rule (a BadRequestError, not a schema error)."""
        if isinstance(value, list) and not value:
            raise InvalidField("generate_responses must not be empty", param="generate_responses")
        return _each_tokens_only(value)

    @model_validator(mode="after")
    def _per_prompt_lengths(self) -> "DerenderCompletionRequest":
        """The per-prompt lists are matched by position, so their lengths must agree."""
        n = len(self.generate_responses)
        for name in ("prompt_tokens", "prompt_token_ids"):
            value = getattr(self, name)
            if value is not None and len(value) != n:
                raise InvalidField(
                    f"`{name}` has {len(value)} entries but there are {n} generate_responses.",
                    param=name,
                )
        return self


class DerenderCompletionStreamRequest(_DerenderStreamRequestBase):
    """Body of one streaming ``/v1/completions/derender`` call."""

    completion_request: CompletionRequest | None = None
    derender_context: DerenderContext | None = None


class DerenderCompletionStreamResponse(WireModel):
    """``{chunk, stream_state}`` for completions; same ``chunks`` extension as chat."""

    chunk: CompletionStreamResponse | None = None
    chunks: list[CompletionStreamResponse] | None = None
    stream_state: DerenderStreamState

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Omit the tito-only ``chunks`` key when null."""
        return _omit_null_chunks(handler(self))


DerenderCompletionBody = Annotated[
    Annotated[DerenderCompletionRequest, Tag("DerenderCompletionRequest")]
    | Annotated[DerenderCompletionStreamRequest, Tag("DerenderCompletionStreamRequest")],
    Discriminator(_stream_member("DerenderCompletionRequest", "DerenderCompletionStreamRequest")),
]
"""Body of ``/v1/completions/derender``: batch unless ``stream`` is true."""
