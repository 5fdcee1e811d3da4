"""The Inkling block router's carried state (:mod:`tito.core.parsers.inkling`), on its own.

Why a module of its own: every chat choice's state (:class:`tito.core.pipeline.ChoiceState`)
declares an ``inkling`` field of this type, so every derender function needs the class, while
only one serving an Inkling model runs the router (its module is imported on first use).
"""

from __future__ import annotations

from typing import Literal

from tito.core.parsers.tools._base import ToolState
from tito.core.state import Field, State

__all__ = ["HEADER_LIMIT", "InklingState", "Phase", "WS_HOLD"]

#: Longest message header held while waiting for its content-kind marker (characters): the text
#: between ``<|message_model|>`` and ``<|content_...|>`` (vLLM's engine: an optional function
#: name); a longer one is content.
HEADER_LIMIT = 200
#: Longest trailing reasoning whitespace held back (characters): vLLM strips the reasoning's
#: trailing whitespace.
WS_HOLD = 64
#: Longest marker (``<|content_model_end_sampling|>``: 30 characters).
MARKER_LIMIT = 30

Phase = Literal["header", "content", "reasoning", "tool"]


class InklingState(State):
    """Everything the Inkling router carries between chunks (small, JSON round trip)."""

    phase: Phase = "header"
    #: text not decided yet: a header's text (at most :data:`HEADER_LIMIT` characters) and a
    #: marker's proper prefix
    buf: str = Field(default="", max_length=HEADER_LIMIT + MARKER_LIMIT)
    #: without call parsing: a tool block's opener went out as text, so the next closer is
    #: text too (vLLM's reasoning parser alone: its skipped tool span)
    span: bool = False
    #: the reasoning's trailing whitespace held back (dropped at the end, released when more
    #: reasoning follows)
    ws: str = Field(default="", max_length=WS_HOLD)
    #: usage's count (vLLM's ``InklingParser.count_reasoning_tokens``, on the ids): inside a
    #: thinking block's ids
    counting: bool = False
    reasoning_tokens: int = Field(default=0, ge=0)
    #: the call parser's state (:mod:`tito.core.parsers.tools.inkling`), across all tool blocks
    tools: ToolState | None = None
