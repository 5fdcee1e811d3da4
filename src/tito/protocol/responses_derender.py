"""The ``/v1/responses/derender`` bodies: batch or one streamed call, and the streamed answer.

Why apart from :mod:`tito.protocol.responses`: they build on the chat derender bodies and the
engine's response models, which the Responses render function never needs (its cold start).
"""

from typing import Annotated

from pydantic import Discriminator, Tag

from tito.protocol.common import NonNegativeInt, TokenId, WireModel
from tito.protocol.derender import (
    DerenderContext,
    DerenderStreamState,
    _DerenderBatchRequestBase,
    _DerenderStreamRequestBase,
    _stream_member,
)
from tito.protocol.generate_response import GenerateTokensResponse
from tito.protocol.responses import ResponsesRequest
from tito.protocol.responses_output import ResponsesStreamEvent

__all__ = [
    "DerenderResponsesBody",
    "DerenderResponsesRequest",
    "DerenderResponsesStreamRequest",
    "DerenderResponsesStreamResponse",
]


class DerenderResponsesRequest(_DerenderBatchRequestBase):
    """Body of a batch ``/v1/responses/derender``: the engine's whole response plus the original
    Responses request (or render's ``derender_context``)."""

    generate_response: GenerateTokensResponse
    prompt_tokens: NonNegativeInt | None = None
    prompt_token_ids: list[TokenId] | None = None
    responses_request: ResponsesRequest | None = None
    derender_context: DerenderContext | None = None


class DerenderResponsesStreamRequest(_DerenderStreamRequestBase):
    """Body of one streaming ``/v1/responses/derender`` call (the request, or render's
    context, is needed on the first call only: the settings ride in the state)."""

    responses_request: ResponsesRequest | None = None
    derender_context: DerenderContext | None = None


class DerenderResponsesStreamResponse(WireModel):
    """``{events, stream_state}``: this call's Responses stream events, in order."""

    events: list[ResponsesStreamEvent]
    stream_state: DerenderStreamState


#: The route body: batch or one streaming call, resolved by ``stream`` (as the chat route).
DerenderResponsesBody = Annotated[
    Annotated[DerenderResponsesRequest, Tag("DerenderResponsesRequest")]
    | Annotated[DerenderResponsesStreamRequest, Tag("DerenderResponsesStreamRequest")],
    Discriminator(_stream_member("DerenderResponsesRequest", "DerenderResponsesStreamRequest")),
]
