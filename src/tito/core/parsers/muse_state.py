"""The Muse channel router's carried state (:mod:`tito.core.parsers.muse`), on its own.

Why a module of its own: every chat choice's state (:class:`tito.core.pipeline.ChoiceState`)
declares a ``muse`` field of this type, so every derender function needs the class, while only
one serving a Muse model runs the router (its module is imported on first use).
"""

from __future__ import annotations

from typing import Literal

from tito.core.parsers.tools._base import ToolState
from tito.core.state import Field, State

__all__ = ["HEADER_LIMIT", "Kind", "MuseState", "Phase", "WS_LIMIT"]

#: Longest message header held while waiting for ``<|message|>`` (characters): the text after
#: ``<|start|>``, or a recipient's ``to=NAME`` (NAME at most this long).
HEADER_LIMIT = 200
#: Spaces and tabs before a ``to=NAME`` header that belong to it (more are text).
WS_LIMIT = 16

Phase = Literal["out", "head", "body"]
Kind = Literal["reasoning", "content", "tool", "framed", "drop"]


class MuseState(State):
    """Everything the Muse router carries between chunks (small, JSON round trip)."""

    phase: Phase = "out"
    #: text not decided yet: a possible header's tail or marker prefix, or a ``<|start|>``
    #: header's text (at most :data:`HEADER_LIMIT` characters and a marker prefix)
    buf: str = Field(default="", max_length=HEADER_LIMIT + WS_LIMIT + 16)
    kind: Kind = "drop"  #: where the open message's body goes
    #: usage's count (rule 6, vLLM's ``count_reasoning_tokens``, on the ids, apart from the
    #: router's text split): the ids since the last ``<|message|>`` id count
    counts: bool = False
    #: the header text since the last marker id, as much as decides its recipient: the last
    #: run of non-space non-``<`` characters' last two characters, or once it holds ``to=``,
    #: ``to=`` and the recipient's first five characters (:func:`tito.core.parsers.muse._feed`)
    hdr: str = Field(default="", max_length=8)
    hdr_ws: bool = False  #: whitespace came after that run (the next character starts another)
    reasoning_tokens: int = Field(default=0, ge=0)
    #: the ATEM parser's state (:mod:`tito.core.parsers.tools.muse`), across all tool channels
    tools: ToolState | None = None
