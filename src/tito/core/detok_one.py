"""One id through the detokenizer: :func:`tito.core.detokenizer.step` of a single id, faster.

Why a module of its own: a streamed call most often carries one id, and on ``ByteLevel``
vocabularies (GPT-2's byte-split CJK and emoji: ~40% of the ids of a mixed text) the general
loop's set-up (the piece list, the skip set, the held bytes, the window sliced at the end) cost
as much as the decode itself. :func:`step_one` computes each outcome of the detokenizer's fast
path for one id directly (the theory, the rule and the bounds are in
:mod:`tito.core.detokenizer`'s header), with the same state and piece as ``step``;
``tests/test_pipeline_one_id.py`` compares them on text, byte garbage, specials and
wire-shaped states. Any other case is ``step`` itself.
"""

from __future__ import annotations

from collections.abc import Collection

from tito.core.detokenizer import (
    _AFTER_WHOLE,
    FFFD,
    INTERNED_STATES,
    MAX_CONTEXT,
    MAX_HELD,
    DetokState,
    _after_whole,
    _context_complete,
    step,
)
from tito.core.vocab import Vocab

__all__ = ["step_one"]


def step_one(
    vocab: Vocab,
    state: DetokState,
    token_id: int,
    skip_special_tokens: bool,
    keep_special_ids: Collection[int] = (),
) -> tuple[DetokState, str]:
    """``step(vocab, state, [token_id], ...)``, its one piece (see the module header).

    Taken here: a ``ByteLevel`` vocabulary, an id not skipped, a context that ends at a
    character boundary, and then a whole token, a token that completes or starts a character,
    or one more held id. ``step`` takes the rest: another vocabulary, a skipped special id, a
    context that ends inside a character, an unknown id, a due cut.
    """
    whole = vocab.whole_texts
    if whole is not None and not (
        skip_special_tokens and token_id in vocab.special_ids and token_id not in keep_special_ids
    ):
        window = state.window
        read = state.read_offset
        prefix = state.prefix_offset
        if read - prefix > MAX_CONTEXT:
            prefix = read - MAX_CONTEXT
        if read == prefix or whole.get(window[read - 1]) or _context_complete(
            vocab, window, prefix, read
        ):
            end = len(window)
            table: dict[int, bytes] = vocab.byte_table  # type: ignore[assignment]
            if read == end:  # nothing held
                text = whole.get(token_id)
                if text is None:
                    text = vocab.whole_text(token_id)
                if text:  # a whole token (the common case): it alone becomes the context
                    return _AFTER_WHOLE.get(token_id) or _after_whole(token_id), text
                piece = table.get(token_id) or vocab.token_bytes(token_id)
                if piece:
                    text = piece.decode("utf-8", "replace")
                    if text and not text.endswith(FFFD):
                        return DetokState._construct([token_id], 0, 1), text
                    # held: the context stays, what precedes it is dropped
                    return (DetokState._construct([*window[prefix:], token_id], 0, read - prefix),
                            "")
            elif end - read < MAX_HELD:
                pair = (window[read], token_id) if read == end - 1 else None
                if pair is not None:  # a character split in two (GPT-2's CJK, emoji)
                    found = vocab.split_memo.get(pair)
                    if found is not None:
                        return found  # type: ignore[no-any-return]
                piece = table.get(token_id) or vocab.token_bytes(token_id)
                if piece:
                    held = (table.get(window[read]) or vocab.token_bytes(window[read])
                            if pair is not None
                            else b"".join([table.get(i) or vocab.token_bytes(i)
                                           for i in window[read:]]))
                    text = (held + piece).decode("utf-8", "replace")
                    if text and not text.endswith(FFFD):
                        # emitted: the held ids and this one become the context (fewer than
                        # MAX_HELD ids, so within MAX_CONTEXT); after one held id, the outcome
                        # depends on the two ids alone: kept in a bounded memo (states are
                        # values, shared as :func:`_after_whole`'s are)
                        out = (DetokState._construct([*window[read:], token_id], 0,
                                                     end + 1 - read), text)
                        if pair is not None:
                            memo = vocab.split_memo
                            if len(memo) >= INTERNED_STATES:
                                memo.clear()
                            memo[pair] = out
                        return out
                    return (DetokState._construct([*window[prefix:], token_id], 0, read - prefix),
                            "")
    state, pieces = step(vocab, state, [token_id], skip_special_tokens=skip_special_tokens,
                         keep_special_ids=keep_special_ids)
    return state, pieces[0]
