"""gemma4's usage ``reasoning_tokens`` where the output's start is decided by its whole text.

Why a module of its own: vLLM 0.33's gemma4 class (``vllm/parser/gemma4.py``,
``Gemma4Parser._preprocess_feed``) counts through its parser engine, fed the whole output at
once (``ParserEngineReasoningAdapter.count_reasoning_tokens`` re-parses the decoded ids), and
before the first feed it decides whether to *inject* a ``<|channel>`` start marker in front of
the output: when the text (special tokens kept) holds no ``<|channel>`` and either holds a
``<channel|>`` anywhere, or starts with the thought line ``thought\\n``, or is ``thought``. With
the start injected the block opens at the output's first id and its ids count up to the first
end marker or call start; without it the output starts outside the block. The decision rests
on text that may come last (an end marker at the output's end; a start marker that cancels
it), so a stream cannot know it before the end, and holding the output back is no option
(unbounded).

Theory of operation
===================

The two readings differ only before their machines meet: without the start, the count's
:mod:`tito.core.parsers.reasoning_count` scan (``id_phase``, from ``pre``) runs as ever; with
it, the block is open from the first id, so its count is the other's plus the ids before the
first end marker or call start (both readings are then outside the block, in the same phase;
a start marker cancels the injection, so the readings never differ after one). This module
carries that difference beside the count, three fields of
:class:`~tito.core.parsers.reasoning_state.ReasoningState`:

``lead_ids``
    the ids counted under "opened at the start" before its block closed (those the skip set
    of :mod:`tito.core.parsers.reasoning_skip` leaves out excepted);
``lead_block``
    ``open`` (the hypothetical block is open: ids add to ``lead_ids``), ``closed`` (an end
    marker or a call start closed it: ``lead_ids`` is final), ``off`` (no hypothesis: the
    prompt opened the block, so vLLM's stream side counts from there as the scan does, a
    marker is not one id in this vocabulary, or the output held a start marker);
``lead_cue``
    vLLM's reason to inject was seen: an end marker id, or the text's start is the thought
    line (read on the text the split holds while the output's start is undecided).

The choice's last call (``final``) adds ``lead_ids`` to the count when the cue was seen and
the hypothesis is still on, then turns it off. Per chunk: one C-level pass over the ids when
no marker id is among them, else one pass in Python; the state adds an int, a word and a bool.
The markers are read on the ids (vLLM reads ``<|channel>`` / ``<channel|>`` on the text: the
same but for a marker spelt with ordinary tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tito.core.parsers.reasoning_count import counted_ids

if TYPE_CHECKING:
    from tito.core.parsers.reasoning_row import ReasoningParser
    from tito.core.parsers.reasoning_state import ReasoningState


def first_block(parser: ReasoningParser, id_phase: str, start_id: int | None,
                end_id: int | None) -> str:
    """``lead_block`` before the first output id: ``open`` for a ``lead_opens`` row whose count
    starts outside the block with single-id markers, else ``off``."""
    on = parser.lead_opens and id_phase == "pre" and start_id is not None and end_id is not None
    return "open" if on else "off"


def step(parser: ReasoningParser, state: ReasoningState, text: str, ids: Sequence[int],
         skip: frozenset[int], *, final: bool) -> ReasoningState:
    """The state after a chunk (``text``, its ``ids``), before the count reads the chunk;
    ``state`` itself when nothing changed (a closed hypothesis without marker ids)."""
    block, cue, n = state.lead_block, state.lead_cue, state.lead_ids
    if block == "off":
        return state
    start, end, call = state.start_id, state.end_id, state.implicit_end_id
    if not cue and not state.begun and state.phase == "pre":  # (the split holds the text)
        s, prefix = state.held + text, parser.block_prefix
        cue = s.startswith(prefix) or (final and s == prefix.rstrip())
    if start in ids:
        block, n = "off", 0
    elif block == "open" and end not in ids and (call is None or call not in ids):
        n += counted_ids(ids, skip)
    else:
        for tid in ids:
            if tid == end or tid == call:
                cue = cue or tid == end
                block = "closed"
            elif block == "open" and tid not in skip:
                n += 1
    if final:
        add = n if block != "off" and cue else 0
        block, n = "off", 0
    else:
        add = 0
    if (block, cue, n, add) == (state.lead_block, state.lead_cue, state.lead_ids, 0):
        return state
    st = state.model_copy()
    st.lead_block, st.lead_cue, st.lead_ids = block, cue, n
    st.reasoning_tokens += add
    return st
