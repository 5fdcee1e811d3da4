"""The harmony parser's carried state (:mod:`tito.core.parsers.harmony`), on its own.

Why a module of its own: every chat choice's state (:class:`tito.core.pipeline.ChoiceState`)
declares a ``harmony`` field of this type, so every derender function needs the class, while
only one serving a gpt-oss model runs the parser (its module is imported on first use).
"""

from __future__ import annotations

from typing import Literal

from tito.core.state import Field, State

__all__ = ["HEADER_IDS_LIMIT", "HEADER_LIMIT", "HELD_LIMIT", "HarmonyState", "Kind", "Phase"]

#: Longest header held while waiting for ``<|message|>`` (characters).
HEADER_LIMIT = 256
#: Longest text of headers that did not parse kept for a cut header's recovery (characters).
HELD_LIMIT = 4 * HEADER_LIMIT
#: Most ids of one header held (a header's ids past :data:`HEADER_LIMIT` characters are only
#: the at most :data:`tito.core.detok_state.MAX_HELD` ids holding an unfinished character).
HEADER_IDS_LIMIT = HEADER_LIMIT + 64

Phase = Literal["header", "content", "skip", "raw"]
Kind = Literal["reasoning", "content", "tool", "drop"]


class HarmonyState(State):
    """Everything the harmony parser carries between chunks (small, JSON round trip)."""

    phase: Phase = "header"
    header: str = Field(default="", max_length=HEADER_LIMIT + 32)  #: header text so far
    #: the header's ids so far: its text as the tokenizer decodes them (rule 4's recoveries)
    header_ids: list[int] = Field(default_factory=list, max_length=HEADER_IDS_LIMIT + 1)
    #: headers that did not parse since the last message ended, as decoded (rule 4)
    held: str = Field(default="", max_length=HELD_LIMIT)
    first: bool = True  #: the current message is the first one (its role is given)
    kind: Kind = "drop"  #: where the current message's content goes
    counts: bool = False  #: the current message's tokens are reasoning tokens (rule 6)
    said: bool = False  #: the current message emitted text
    reasoning_sent: bool = False  #: reasoning text went out (rule 3)
    content_sent: bool = False  #: content text went out (rule 3)
    calls: int = Field(default=0, ge=0, le=1_000_000)  #: tool calls started (= next index)
    reasoning_tokens: int = Field(default=0, ge=0)
