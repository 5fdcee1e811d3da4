"""The choice pipeline's two gpt-oss stages: harmony's pieces (stage 2) and its parser (4-5).

Why a module of its own: a gpt-oss choice replaces the detokenizer's pieces and the text
parsers with the token-level harmony parser (:mod:`tito.core.parsers.harmony`); these adapters
are :mod:`tito.core.pipeline`'s only code for it, and the parser itself is imported only when a
gpt-oss choice steps (the other models' functions never load it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tito.core import detokenizer
from tito.core.detokenizer import DetokState
from tito.core.parsers.harmony_state import HarmonyState
from tito.core.parsers.tools import ToolCallDelta
from tito.core.vocab import Vocab

if TYPE_CHECKING:
    from tito.core.pipeline import ChoiceConfig

__all__ = ["harmony_pieces", "harmony_step"]


def harmony_pieces(
    vocab: Vocab, detok: DetokState, ids: Sequence[int], state: HarmonyState | None
) -> tuple[DetokState, list[str]]:
    """gpt-oss's pieces as openai-harmony reads a message: the lossy UTF-8 reading of every
    token's bytes, a special id's bytes being its name whatever ``skip_special_tokens``;
    ``state``: the harmony parser's before ``ids``.

    Why: a special id or an id past the tokenizer inside a character's bytes ends that
    character for openai-harmony (so for vLLM 0.33): U+FFFD, the name, U+FFFD for the rest. The
    detokenizer runs without skipping (a special id's piece is then the held bytes' U+FFFD and
    its name, which the harmony parser renames); at an id past the tokenizer, which decodes to
    nothing, the held bytes are flushed into its piece and the next bytes start afresh. Text
    that is no harmony message (rule 4: the output's first header read as plain text and what
    follows it) is the tokenizer's decode instead, where such an id is nothing and the
    character stays whole (gpt-oss derender fuzz seed 674): once the parser is ``raw`` the
    ids are decoded as they come, and in the chunk where it turns so (found by a dry run of the
    parser over the header, only when such an id is in the header or the chunk) from the id
    after the one that did, the detokenizer then reading the header's ids as the tokenizer
    does (a character split across the header's end stays whole too).
    """
    size = vocab.size
    if not ids or (state is not None and state.phase == "raw"):
        return detokenizer.step(vocab, detok, ids, skip_special_tokens=False)
    first = state is not None and state.phase == "header" and state.first
    held = state.header_ids if state is not None and first else ()
    if max(ids) < size and max(held, default=0) < size:
        return detokenizer.step(vocab, detok, ids, skip_special_tokens=False)
    after, pieces = _harmony_reading(vocab, detok, ids)
    at = _turns_raw(vocab, state, ids, pieces) if state is not None and first else None
    if at is not None:  # from here the tokenizer's decode of the whole output so far
        after, _ = detokenizer.step(vocab, DetokState(), [*held, *ids[: at + 1]],
                                    skip_special_tokens=False)
        after, rest = detokenizer.step(vocab, after, ids[at + 1:], skip_special_tokens=False)
        pieces = pieces[: at + 1] + rest
    return after, pieces


def _turns_raw(
    vocab: Vocab, state: HarmonyState, ids: Sequence[int], pieces: Sequence[str]
) -> int | None:
    """The index of the id that makes the first header plain text (rule 4), if one of ``ids``
    does: the parser stepped id by id while the header lasts (bounded by its limits)."""
    from tito.core.parsers import harmony as harmony_parser

    for at, (tid, piece) in enumerate(zip(ids, pieces, strict=True)):
        state, _ = harmony_parser.step(vocab, state, [tid], [piece], final=False)
        if state.phase != "header":
            return at if state.phase == "raw" else None
    return None


def _harmony_reading(
    vocab: Vocab, detok: DetokState, ids: Sequence[int]
) -> tuple[DetokState, list[str]]:
    """The pieces of ``ids``, the held bytes flushed at every id past the tokenizer."""
    size = vocab.size
    pieces: list[str] = []
    start = 0
    for k, tid in enumerate(ids):
        if tid >= size:
            detok, part = detokenizer.step(vocab, detok, ids[start:k], skip_special_tokens=False)
            pieces += part
            _, held = detokenizer.flush(vocab, detok, skip_special_tokens=False)
            pieces.append(held)
            detok, start = DetokState(), k + 1
    detok, part = detokenizer.step(vocab, detok, ids[start:], skip_special_tokens=False)
    return detok, pieces + part


def harmony_step(
    vocab: Vocab,
    cfg: ChoiceConfig,
    state: HarmonyState,
    ids: Sequence[int],
    pieces: Sequence[str],
    flushed: str,
    *,
    final: bool,
) -> tuple[HarmonyState, str, str, list[ToolCallDelta]]:
    """gpt-oss: the token-level harmony parser (stop strings only cut its ids, see its header)."""
    from tito.core.parsers import harmony as harmony_parser

    options = harmony_parser.HarmonyOptions(
        reasoning=cfg.reasoning_parser is not None,
        tools=cfg.tool_parser is not None,  # (vLLM: calls only with its tool parser)
        single_call=not cfg.parallel_tool_calls,
    )
    state, out = harmony_parser.step(
        vocab, state, ids, pieces[: len(ids)], final=final, flushed=flushed, options=options
    )
    return state, out.reasoning, out.content, out.calls or []
