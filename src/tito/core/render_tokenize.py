"""Prompt text -> token ids: truncation, offsets, the assistant mask, bounds on long prompts.

Why a module of its own: the tokenization rules of :mod:`tito.core.render` (its docstring,
which re-exports every name here): chat prompts without special tokens, completions prompts
with them, ids by :mod:`tito.core.fast_encode` when no offsets are asked for, long prompts
refused or truncated in bounded pieces; and the prompt's reasoning state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from tito.core.fast_encode import fast_encoder
from tito.core.vocab import Vocab
from tito.errors import BadRequest


@dataclass(frozen=True)
class TokenizedPrompt:
    """Prompt ids plus, when asked for, offsets into the prompt text and the assistant mask."""

    token_ids: list[int]
    token_offsets: list[tuple[int, int]] | None = None
    assistant_mask: list[int] | None = None
    truncated: int = 0
    """How many tokens truncation removed."""


def assistant_mask(
    offsets: Sequence[tuple[int, int]], spans: Iterable[tuple[int, int]]
) -> list[int]:
    """1 for every token whose characters overlap a span, else 0 (spans are [start, end))."""
    ordered = sorted((s, e) for s, e in spans if e > s)
    mask = [0] * len(offsets)
    if not ordered:
        return mask
    k = 0
    for i, (start, end) in enumerate(offsets):
        while k < len(ordered) and ordered[k][1] <= start:
            k += 1
        if k == len(ordered):
            break
        s, e = ordered[k]
        if start < e and (end > s or (end == start and s <= start)):
            mask[i] = 1
    return mask


def truncate(n_tokens: int, keep: int | None, side: Literal["left", "right"] = "left") -> slice:
    """The slice of ``n_tokens`` ids that truncating to ``keep`` tokens leaves.

    ``left`` (vLLM's default) drops from the start and keeps the end of the prompt, which holds
    the most recent turns and the generation prompt.
    """
    if keep is None or keep >= n_tokens:
        return slice(0, n_tokens)
    if keep <= 0:
        return slice(0, 0)
    return slice(n_tokens - keep, n_tokens) if side == "left" else slice(0, keep)


#: Prompts at least this long are encoded in chunks, in parallel (see :func:`_encode`).
PARALLEL_ENCODE_MIN_CHARS = 8192


_CHUNK_CHARS = 4096


@lru_cache(maxsize=16)
def _split_pattern(vocab: Vocab) -> re.Pattern[str] | None:
    """Special added tokens that are matched verbatim (no strip/single-word/normalisation rules):
    a chunk may safely start at any of them."""
    contents = [
        token.content
        for token in vocab.tokenizer.get_added_tokens_decoder().values()
        if token.special and not (token.lstrip or token.rstrip or token.single_word or token.normalized)
        and token.content
    ]
    if not contents:
        return None
    contents.sort(key=len, reverse=True)
    return re.compile("|".join(re.escape(c) for c in contents))


def _encode(
    vocab: Vocab, text: str, add_special_tokens: bool, with_offsets: bool = False
) -> tuple[list[int], list[tuple[int, int]]]:
    """Ids of ``text`` and, when ``with_offsets``, their character offsets (else ``[]``: a long
    prompt's offsets cost a tuple per token, read from the encoding and shifted per chunk).

    Why chunks: ``tokenizers`` first splits the input on added tokens and encodes the pieces
    between them independently, so cutting the text right before a special token and encoding
    the chunks with ``encode_batch`` (which runs on all cores) gives the same ids; offsets are
    shifted back by each chunk's start. Every chunk but the first starts with a special token,
    so position-dependent rules (Metaspace's "prepend to the first piece") see what they would
    have seen in the whole text. Only without added special tokens (a BOS/EOS post-processor
    would apply to each chunk) and only for long prompts (short ones gain nothing).
    """
    tokenizer = vocab.tokenizer
    if tokenizer is None:  # a vocabulary without a `tokenizers` object (mistral-common)
        return vocab.encode(text, add_special_tokens=add_special_tokens), []
    fast = None if with_offsets else fast_encoder(tokenizer, add_special_tokens)
    if fast is not None:  # the same ids, without the Rust pre-tokenizer (tito.core.fast_encode)
        return fast(text), []
    pattern = _split_pattern(vocab) if not add_special_tokens and len(text) >= PARALLEL_ENCODE_MIN_CHARS else None
    if pattern is None:
        encoding = tokenizer.encode(text, add_special_tokens=add_special_tokens)
        return encoding.ids, encoding.offsets if with_offsets else []
    starts = [0]
    for match in pattern.finditer(text):
        if match.start() - starts[-1] >= _CHUNK_CHARS:
            starts.append(match.start())
    if len(starts) == 1:
        encoding = tokenizer.encode(text, add_special_tokens=False)
        return encoding.ids, encoding.offsets if with_offsets else []
    bounds = list(zip(starts, [*starts[1:], len(text)]))
    encodings = tokenizer.encode_batch([text[a:b] for a, b in bounds], add_special_tokens=False)
    ids: list[int] = []
    offsets: list[tuple[int, int]] = []
    for (start, _), encoding in zip(bounds, encodings):
        ids.extend(encoding.ids)
        if with_offsets:
            offsets.extend((s + start, e + start) for s, e in encoding.offsets)
    return ids, offsets


#: Below this many characters a prompt is simply tokenized (it cannot cost much).
LOWER_BOUND_MIN_CHARS = 64 * 1024


#: Piece size of :func:`prompt_tokens_lower_bound`, and the tokens a cut may add at most.
_BOUND_PIECE_CHARS = 16 * 1024


_BOUND_SLACK_PER_CUT = 16


def _safe_cut(text: str, near: int, lo: int, hi: int) -> int:
    """A cut position in ``[lo, hi]`` near ``near``: right before a space that follows a
    non-space when one is within 1024 characters (a pre-tokenizer boundary), else ``near``."""
    space = text.rfind(" ", max(lo + 1, near - 1024), near)
    if space > lo and not text[space - 1].isspace():
        return space
    space = text.find(" ", near, min(hi, near + 1024))
    if space > lo and space < hi and not text[space - 1].isspace():
        return space
    return near


def _truncation_span(
    vocab: Vocab, text: str, keep: int, side: Literal["left", "right"]
) -> tuple[int, int]:
    """The part of a long ``text`` that holds every token truncation to ``keep`` tokens keeps
    (plus a margin), found by counting bounded pieces from the kept end: only that part is then
    tokenized, so a 6 MiB prompt truncated to a few thousand tokens costs what those cost."""
    tokenizer = vocab.tokenizer
    need = keep + 64
    count, n = 0, len(text)
    if side == "left":
        start = n
        while start > 0 and count < need:
            cut = _safe_cut(text, max(start - _BOUND_PIECE_CHARS, 0), 0, start) if start > _BOUND_PIECE_CHARS else 0
            count += len(tokenizer.encode(text[cut:start], add_special_tokens=False).ids) - _BOUND_SLACK_PER_CUT
            start = cut
        return start, n
    end = 0
    while end < n and count < need:
        cut = _safe_cut(text, end + _BOUND_PIECE_CHARS, end, n) if n - end > _BOUND_PIECE_CHARS else n
        count += len(tokenizer.encode(text[end:cut], add_special_tokens=False).ids) - _BOUND_SLACK_PER_CUT
        end = cut
    return 0, end


def prompt_tokens_lower_bound(vocab: Vocab, text: str, stop_above: int) -> int:
    """A lower bound of ``text``'s token count, computed in bounded pieces, that stops as soon as
    it exceeds ``stop_above`` (0 for a short text: no bound needed).

    Why: tokenizing a 6 MiB prompt whole costs over 10 s and ~1 GiB (the encoding keeps ids,
    offsets and strings per token) only to answer that it exceeds ``max_model_len``. Pieces of
    :data:`_BOUND_PIECE_CHARS` are cut right before a space that follows a non-space (where
    byte-level pre-tokenizers split anyway) when there is one near the end of the piece; a cut
    can at worst split what would have been a few tokens, which :data:`_BOUND_SLACK_PER_CUT`
    per cut covers. The scan stops after about ``stop_above`` tokens' worth of text, so a prompt
    that is far too long fails fast and in small memory.
    """
    tokenizer = vocab.tokenizer
    if len(text) < LOWER_BOUND_MIN_CHARS or tokenizer is None:
        return 0
    total, start, n = 0, 0, len(text)
    while start < n and total <= stop_above:
        end = min(start + _BOUND_PIECE_CHARS, n)
        if end < n:
            space = text.rfind(" ", end - 1024, end)
            if space > start and not text[space - 1].isspace():
                end = space
        total += len(tokenizer.encode(text[start:end], add_special_tokens=False).ids)
        if end < n:
            total -= _BOUND_SLACK_PER_CUT
        start = end
    return max(total, 0)


def tokenize_prompt(
    vocab: Vocab,
    text: str,
    *,
    add_special_tokens: bool,
    truncate_to: int | None = None,
    truncation_side: Literal["left", "right"] = "left",
    with_offsets: bool = False,
    generation_spans: Sequence[tuple[int, int]] | None = None,
) -> TokenizedPrompt:
    """Encode prompt text; offsets and the assistant mask follow the same truncation as the ids.

    A long text truncated to far fewer tokens is tokenized only over the part that holds the
    kept tokens (:func:`_truncation_span`); the ids kept are the same.
    """
    if vocab.tokenizer is None:  # mistral-common: no offsets, null as vLLM's slow tokenizers'
        with_offsets = False
    shift = 0
    if (truncate_to is not None and vocab.tokenizer is not None
            and len(text) >= LOWER_BOUND_MIN_CHARS and truncate_to * 16 < len(text)):
        start, end = _truncation_span(vocab, text, truncate_to, truncation_side)
        if (start, end) != (0, len(text)):
            text, shift = text[start:end], start
    need_offsets = with_offsets or generation_spans is not None
    ids, raw_offsets = _encode(vocab, text, add_special_tokens, need_offsets)
    bos = getattr(vocab, "bos_token_id", None) if vocab.tokenizer is None else None
    if (bos is not None and add_special_tokens and truncation_side == "left" and ids
            and ids[0] == bos and truncate_to is not None and 0 < truncate_to < len(ids)):
        # mistral-common's transformers tokenizer (vLLM's text prompts): left truncation keeps
        # the BOS it added, then the last tokens (no offsets: mistral-common gives none)
        removed = len(ids) - truncate_to
        return TokenizedPrompt(token_ids=ids[:1] + ids[removed + 1:], truncated=removed)
    window = truncate(len(ids), truncate_to, truncation_side)
    offsets = None
    if need_offsets:
        offsets = [(int(s) + shift, int(e) + shift) for s, e in raw_offsets]
    mask = assistant_mask(offsets, generation_spans) if generation_spans is not None and offsets is not None else None
    return TokenizedPrompt(
        token_ids=ids[window],  # a new list (ids is a list)
        token_offsets=offsets[window] if with_offsets and offsets is not None else None,
        assistant_mask=mask[window] if mask is not None else None,
        truncated=len(ids) - (window.stop - window.start),
    )


def normalize_completion_prompts(prompt: Any) -> list[str | list[int]]:
    """A completions ``prompt`` as a list of prompts: texts and/or token-id lists.

    ``"text"`` -> 1 text; ``["a", "b"]`` -> 2 texts; ``[1, 2]`` -> 1 id prompt; ``[[1], [2]]`` ->
    2 id prompts. Anything else (mixed lists, booleans, empty lists) is a 400.
    """
    if isinstance(prompt, str):
        return [prompt]
    if not isinstance(prompt, list) or not prompt:
        raise BadRequest("`prompt` must be a string, a list of strings or a list of token ids.",
                         param="prompt")

    def is_id(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if all(isinstance(p, str) for p in prompt):
        return list(prompt)
    if all(is_id(p) for p in prompt):
        return [list(prompt)]
    if all(isinstance(p, list) for p in prompt):
        out: list[str | list[int]] = []
        for i, ids in enumerate(prompt):
            if not ids or not all(is_id(t) for t in ids):
                raise BadRequest(f"prompt[{i}] must be a non-empty list of token ids.",
                                 param=f"prompt.{i}")
            out.append(list(ids))
        return out
    raise BadRequest("`prompt` mixes texts, token ids and lists; use one kind.", param="prompt")


def prompt_reasoning_ended(
    token_ids: Sequence[int], vocab: Vocab, start_marker: str, end_marker: str, *,
    default: bool = False,
) -> bool:
    """Whether the prompt already closed the reasoning block the model would otherwise open.

    Scans back from the end of the prompt: the end marker first means reasoning is over (e.g.
    Qwen3 with ``enable_thinking=false`` ends with ``<think>\\n\\n</think>\\n\\n``), the start
    marker first means the prompt opened reasoning. The scan stops at the last special token (the
    turn boundary the generation prompt starts with) and then answers False: markers of earlier
    assistant turns (a tool-call loop) say nothing about the turn being generated. vLLM scans the
    whole prompt and reports True in that case, which makes structured outputs and reasoning
    parsing start in the wrong place. ``default``: the answer when the turn shows neither
    marker (True for formats whose reasoning opens only at its start marker: gemma4).
    """
    start_id = vocab.token_id(start_marker)
    end_id = vocab.token_id(end_marker)
    specials = vocab.special_ids
    for token in reversed(token_ids):
        if token == end_id:
            return True
        if token == start_id:
            return False
        if token in specials:
            return default
    return default


def prompt_newest_marker_ended(
    token_ids: Sequence[int], start_ids: Sequence[int], end_ids: Sequence[int],
    stop_id: int | None = None,
) -> bool:
    """Whether the end marker's id sequence occurs later in the prompt than the start marker's
    (neither: False): vLLM 0.33's ``KimiK3ReasoningParser.is_reasoning_end``, whose markers are
    several ids each (``<|open|>think<|sep|>``), scanned over the whole prompt, turns included
    (a prior turn's closed block with this turn's opener newer still reads as open). One
    backward pass, stopping at the newest marker: O(prompt). ``stop_id``: a turn boundary that
    ends the scan as not ended (vLLM's ``Plamo3Parser.is_reasoning_end``: ``<|plamo:tag|>``
    when the vocabulary holds it as one id; the end marker checked first at each position)."""
    if not start_ids or not end_ids:
        return False
    start, end = tuple(start_ids), tuple(end_ids)
    s0, e0 = start[0], end[0]
    n = len(token_ids)
    first = n - 1 if stop_id is not None else n - min(len(start), len(end))
    for i in range(first, -1, -1):
        head = token_ids[i]
        if head == e0 and tuple(token_ids[i : i + len(end)]) == end:
            return True
        if head == s0 and tuple(token_ids[i : i + len(start)]) == start:
            return False
        if head == stop_id:
            return False
    return False
