"""The reasoning parsers' carried state: :class:`ReasoningState`, one per choice.

Why a module of its own: the state is the wire's (a JSON round trip between a stream's calls,
checked by :mod:`tito.service.derender_checks`); its fields are read by the text split
(:mod:`tito.core.parsers.reasoning`) and by the count (:mod:`tito.core.parsers.reasoning_count`,
:mod:`tito.core.parsers.reasoning_lead`), each documenting the fields it owns. Every field is
bounded (strings and lists by ``max_length``, ints by the output's length), so the state's JSON
stays small whatever the output.
"""

from __future__ import annotations

from typing import Literal

from tito.core.parsers.reasoning_count import MAX_MARKER_IDS
from tito.core.state import Field, State

#: the text split's phases (:mod:`tito.core.parsers.reasoning`'s header); ``call``: inside a
#: tool call, for a row with a ``call_end`` (gemma4, GLM), until that marker
Phase = Literal["pre", "think", "post", "call", "done"]

#: Longest trailing reasoning whitespace held back by ``strip_trailing_ws`` (characters).
WS_HOLD = 64


class ReasoningState(State):
    """Everything a reasoning parser carries between chunks (small, JSON round trip)."""

    phase: Phase = "pre"  #: text phase (see module header)
    held: str = Field(default="", max_length=48)  #: possible marker prefix, not yet emitted
    opened: bool = False  #: an output ``<think>`` was consumed (only one ever is)
    answered: bool = False  #: the parser's ``content_end`` was consumed (only one ever is)
    #: the tool format's call start that also ends the block (kept as content), if any
    implicit_end: str = Field(default="", max_length=40)
    implicit_end_id: int | None = None  #: its id, when it is one token
    #: trailing whitespace of the reasoning held back (``strip_trailing_ws``)
    ws: str = Field(default="", max_length=WS_HOLD)
    id_phase: Phase = "pre"  #: the same phases, tracked on ids for counting
    start_id: int | None = None  #: ``<think>`` id in this vocabulary (None: not a token)
    end_id: int | None = None  #: ``</think>`` id
    #: a marker's ids when it takes several tokens (Kimi K3's ``<|open|>think<|sep|>``), else
    #: empty (its single id is above): the count matches the sequences
    start_ids: list[int] = Field(default_factory=list, max_length=MAX_MARKER_IDS)
    end_ids: list[int] = Field(default_factory=list, max_length=MAX_MARKER_IDS)
    implicit_end_ids: list[int] = Field(default_factory=list, max_length=MAX_MARKER_IDS)
    #: the row's ``call_end`` (gemma4's ``<tool_call|>``, GLM's ``</tool_call>``): its id, or
    #: its ids when it takes several; the count leaves phase ``call`` there (defaults for the
    #: other rows)
    call_end_id: int | None = None
    call_end_ids: list[int] = Field(default_factory=list, max_length=MAX_MARKER_IDS)
    #: the last output ids, while they may begin a multi-id marker (not counted yet)
    id_held: list[int] = Field(default_factory=list, max_length=MAX_MARKER_IDS)
    id_opened: bool = False  #: a start marker was seen in the output ids (``count_reopens``)
    reasoning_tokens: int = Field(default=0, ge=0)  #: ids inside the block so far
    #: ``count_rule="depth"`` formats: the start markers open in the output ids (an int: vLLM's
    #: depth counter; its size grows as the log of the output's length at most)
    id_depth: int = Field(default=0, ge=0)
    #: ``block_prefix`` / ``lead_opens`` formats only (gemma4): the reasoning's first characters
    #: while they may still be the prefix; the prefix is decided; the output's start is decided
    lead: str = Field(default="", max_length=16)
    led: bool = False
    #: ``lead_opens`` formats (gemma4), :mod:`tito.core.parsers.reasoning_lead`: the ids counted
    #: under the hypothesis "the block opened at the output's start" (vLLM's injected start)
    #: beyond the count without it; its block ("open": its ids count, "closed": an end marker
    #: or a call closed it, "off": no hypothesis: the prompt opened the block, or a start
    #: marker came); vLLM's cue for it was seen (an end marker, the thought line first)
    lead_ids: int = Field(default=0, ge=0)
    lead_block: Literal["open", "closed", "off"] = "off"
    lead_cue: bool = False
    begun: bool = False  #: (also ``lead_end`` formats, minimax_m3: the output's start is decided)
    cbegun: bool = False  #: ``content_lstrip`` formats: the content has started
