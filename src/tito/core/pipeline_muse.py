"""The choice pipeline's Muse stage: the channel router in place of the text parsers (4-5).

Why a module of its own: Muse reads reasoning, content and tool calls out of one sequence of
addressed messages, so one router (:mod:`tito.core.parsers.muse`) stands where the reasoning
and tool stages stand for other formats, as harmony's does (:mod:`tito.core.pipeline_harmony`);
this adapter is :mod:`tito.core.pipeline`'s only code for it, and the router itself is imported
only when a Muse choice steps.
"""

from __future__ import annotations

from collections.abc import Sequence

from tito.core.parsers.muse_state import MuseState
from tito.core.parsers.tools import ToolCallDelta, ToolParser
from tito.core.vocab import Vocab

__all__ = ["muse_step"]


def muse_step(
    vocab: Vocab,
    state: MuseState,
    ids: Sequence[int],
    pieces: Sequence[str],
    flushed: str,
    *,
    final: bool,
    parser: ToolParser | None,
    glimmer: bool = False,
) -> tuple[MuseState, str, str, list[ToolCallDelta]]:
    """Muse: the channel router over the chunk's ids and pieces (stop strings only cut its ids,
    as harmony's); ``parser``: the request's ATEM parser (None: tool channels are content);
    ``glimmer``: Muse Glimmer's table and rules (``muse_glimmer``)."""
    from tito.core.parsers import muse

    state, out = muse.step(vocab, state, ids, pieces[: len(ids)], final=final, flushed=flushed,
                           parser=parser, glimmer=glimmer)
    return state, out.reasoning, out.content, out.calls
