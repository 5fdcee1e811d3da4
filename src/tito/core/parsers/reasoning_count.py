"""Usage's ``reasoning_tokens``: the output ids inside the think block, counted on the ids.

Why a module of its own: the count runs apart from the text split of
:mod:`tito.core.parsers.reasoning` (vLLM counts with each reasoning class's own
``count_reasoning_tokens``, over the output ids, not its text), and it has its own state
(:class:`~tito.core.parsers.reasoning.ReasoningState`'s ``id_*`` fields, the markers' ids).

Theory of operation
===================

The markers (a row's ``start``, ``end`` and ``implicit_end``) are **id sequences** in the
model's vocabulary: one id for most formats (``<think>`` is an added token), several for
others (Kimi K3's ``<|open|>think<|sep|>`` is three tokens; PLaMo 3 writes its markers in
pieces: ``<|plamo:begin_``, ``think``, ``:plamo|>``). The output ids are read left to right;
at each position the first marker (start, end, call start, in that order: vLLM's) whose ids
follow is consumed whole (its ids never count), else the id counts when the phase is
``think`` and the scan moves on by one id. A position whose following ids are a proper
prefix of a marker waits in ``id_held`` (fewer ids than the longest marker) for the next
chunk; the choice's last chunk (``final``) decides with what is there (a cut marker's ids
are ordinary ids). The decision at a position reads only the ids after it, so every chunking
gives the batch's count, and the carried state is bounded by the longest marker.

Transitions (``id_phase``; :mod:`tito.core.parsers.reasoning`'s phases, read on the ids):

``pre`` (and ``post`` with ``reopen``)
    a start opens the block (``think``); a call start ends counting (``done``); an end is
    consumed.
``think``
    ids count; a start is consumed (absorbed); an end closes the block (``post`` with
    ``reopen``, else ``done``); a call start ends it (``done``).
``call`` (rows with a ``call_end``: gemma4, glm45/47, ling3)
    the call start led here from any phase; nothing counts; the call end leads to ``post``
    (vLLM 0.33's Gemma4 and GLM grammars: the call end returns to CONTENT, where a start opens
    the block).
``post`` without ``reopen``, ``done``
    nothing counts any more.

A row's further end markers of one id (its ``alt_ends`` that are one token of the vocabulary:
plamo3's ``<|plamo:tag|>``, its grammar's EOT, which ends vLLM's block as ``THINK_END`` does)
act as its end marker; their ids are the vocabulary's (passed in as ``ends``), not the state's.

With ``count_reopens`` (vLLM's ``KimiK3ReasoningParser.count_reasoning_tokens``): an end
leads to ``post`` and a start after it opens the block again; the call start (Kimi K3's
response channel) ends the block only while no start marker was seen in the output
(``id_opened``), and then only for now (``post``); after a start marker its ids are ordinary
ids. Rows with ``counted`` false (vLLM's class keeps the base class's count of 0) never count.

Rows whose vLLM class counts by a rule of its own (``count_rule``), whatever the text split:

``"depth"`` / ``"depth_any"`` (BaseThinkingReasoningParser's ``count_reasoning_tokens``: the
deepseek_r1 family, step5, holo2, ernie45, hy_v3, poolside_v1, k2_horizon; MiniMaxM3's on id
sequences)
    ``id_depth`` counts the start markers open in the output ids: a start adds one, an end
    takes one off (never below 0), an id counts while it is above 0. The prompt is not read
    (an output without a start marker counts 0), except minimax_m3's switch, which starts it
    at 1 (the template prefilled the start). ``id_phase`` stays ``pre``, or ``done`` when the
    row's switch is off (vLLM's identity parser counts 0); ``"depth_any"`` counts whatever the
    switch (hy_v3).
``"until_end"`` (HYV4's)
    with thinking on, every id before the first end marker counts, a start marker's ids
    included, but for a start marker opening the output; ``id_phase`` ``pre`` (the output's
    first ids not read yet), ``think``, then ``done`` at the end marker.

Ids that count 0 even inside the block (``skip``, :mod:`tito.core.parsers.reasoning_skip`):
the special tokens and id-matched framing tokens vLLM's engine-based classes count 0. gemma4's
output start, decided by the whole output in vLLM, is counted beside this scan by
:mod:`tito.core.parsers.reasoning_lead`.

Each rule decides at a position from the ids after it (and a bounded state: a phase, an int,
at most a marker's held ids), so every chunking gives the batch's count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (reasoning imports this module)
    from tito.core.parsers.reasoning_state import Phase, ReasoningState
    from tito.core.parsers.reasoning_row import ReasoningParser
    from tito.core.vocab import Vocab

#: ids a marker may take at most (Kimi K3's and PLaMo 3's take 3); a longer one is not counted
#: as a marker (its ids count), so that ``id_held`` stays bounded
MAX_MARKER_IDS = 8

#: (phase, count, held ids, a start marker seen, depth) after a chunk, or None: nothing changed
Counted = tuple["Phase", int, list[int], bool, int] | None


def initial_phase(parser: ReasoningParser, phase: Phase, *, enabled: bool) -> tuple[Phase, int]:
    """``(id_phase, id_depth)`` before the first output id, ``phase`` the text split's (read
    from the prompt by :func:`tito.core.parsers.reasoning.initial`)."""
    if not parser.counted:
        return "done", 0
    rule = parser.count_rule
    if rule in ("depth", "depth_any"):
        if rule == "depth" and not enabled and not parser.enabled_opens:
            return "done", 0  # (vLLM's identity parser)
        return "pre", 1 if parser.enabled_opens and enabled else 0
    if rule == "until_end":
        return ("pre" if enabled else "done"), 0
    return phase, 0


def marker_ids(vocab: Vocab, marker: str) -> tuple[int | None, list[int]]:
    """``(its id, [])`` when ``marker`` is one token of ``vocab``, ``(None, its ids)`` when it
    takes several (at most :data:`MAX_MARKER_IDS`), ``(None, [])`` for no marker."""
    if not marker:
        return None, []
    single = vocab.token_id(marker)
    if single is not None:
        return single, []
    ids = vocab.encode(marker)
    if len(ids) == 1:
        return ids[0], []
    return None, ids if len(ids) <= MAX_MARKER_IDS else []


def _seq(single: int | None, ids: list[int]) -> tuple[int, ...]:
    return (single,) if single is not None else tuple(ids)


def count(parser: ReasoningParser, st: ReasoningState, ids: Sequence[int], *,
          final: bool, skip: frozenset[int] = frozenset(),
          ends: frozenset[int] = frozenset()) -> Counted:
    """The count after ``ids`` (the chunk's output ids), ``final`` on the choice's last call;
    None when the state's ``id_*`` fields and count stay as they are. ``skip``: the ids that
    never count, even inside the block (:func:`tito.core.parsers.reasoning_skip.skip_ids`:
    the ids vLLM's engine-based classes count 0). ``ends``: the ids of the row's further end
    markers (:func:`tito.core.parsers.reasoning_skip.end_ids`: plamo3's ``<|plamo:tag|>``),
    which close the block as its end marker does (they come from the vocabulary, not the
    state, so the carried state is the same for every row)."""
    phase, held = st.id_phase, st.id_held
    if parser.count_rule and phase != "done":
        return _count_rule(parser, st, ids, final)
    if phase == "done" or (phase == "post" and not parser.reopen and not parser.count_reopens):
        return None
    if not ids and not (final and held):
        return None
    if (len(ids) == 1 and not held and not st.start_ids and not st.end_ids
            and not st.implicit_end_ids and not st.call_end_ids):
        # one id, each marker one id or none (most formats' per-token call): the case below
        # without its marker tuples and set, the same answer
        tid = ids[0]
        if (tid != st.start_id and tid != st.end_id and tid != st.implicit_end_id
                and tid != st.call_end_id and tid not in ends):
            if phase != "think":
                return None
            return phase, st.reasoning_tokens + (tid not in skip), held, st.id_opened, 0
    start = _seq(st.start_id, st.start_ids)
    end = _seq(st.end_id, st.end_ids)
    call = _seq(st.implicit_end_id, st.implicit_end_ids)
    call_end = _seq(st.call_end_id, st.call_end_ids)
    firsts = {m[0] for m in (start, end, call, call_end) if m} | ends
    if not held and firsts.isdisjoint(ids):  # the common cases, no per-id loop
        if phase != "think":
            return None
        return phase, st.reasoning_tokens + counted_ids(ids, skip), held, st.id_opened, 0
    seq = [*held, *ids] if held else ids
    return _scan(parser, st, seq, (start, end, call), call_end, final, skip, ends)


def counted_ids(ids: Sequence[int], skip: frozenset[int]) -> int:
    """How many of ``ids`` count inside a block: those not in ``skip`` (one C-level pass when
    none is, the common case)."""
    if not skip or skip.isdisjoint(ids):
        return len(ids)
    return sum(1 for i in ids if i not in skip)


def _scan(parser: ReasoningParser, st: ReasoningState, seq: Sequence[int],
          block_markers: tuple[tuple[int, ...], ...], call_end: tuple[int, ...], final: bool,
          skip: frozenset[int], ends: frozenset[int] = frozenset()) -> Counted:
    """:func:`count`'s general case: the markers matched at each position of ``seq`` (those
    of the block, ``block_markers``, outside phase ``call``, where an id of ``ends`` no marker
    matches is an end marker of one id; ``call_end`` alone inside it)."""
    start, end, call = block_markers
    phase: Phase = st.id_phase
    in_call = ((), (), (), call_end)  # (phase call: only the call end is a marker)
    markers = in_call if phase == "call" else (*block_markers, ())
    firsts = {m[0] for m in markers if m} | (ends if phase != "call" else frozenset())
    n_count, opened = st.reasoning_tokens, st.id_opened
    kimi, reopen = parser.count_reopens, parser.reopen or parser.count_reopens
    n, i = len(seq), 0
    while i < n:
        tid = seq[i]
        if tid not in firsts:
            if phase == "think" and tid not in skip:
                n_count += 1
            i += 1
            continue
        rest = n - i
        if not final and any(rest < len(m) and tuple(seq[i:]) == m[:rest] for m in markers if m):
            return phase, n_count, list(seq[i:]), opened, 0  # a marker may follow: wait
        hit = next((m for m in markers if m and tuple(seq[i : i + len(m)]) == m), None)
        if hit is not None and hit is call and kimi and opened:
            hit = None  # (Kimi K3: after a start marker the response channel is no marker)
        # a further end marker of one id (plamo3's tag; none inside a call)
        alt_end = hit is None and tid in ends and phase != "call"
        if hit is None and not alt_end:
            if phase == "think" and tid not in skip:
                n_count += 1
            i += 1
            continue
        i += 1 if alt_end else len(hit)  # type: ignore[arg-type]
        if phase == "call":  # the call's end: out of the block, which may open again
            phase, markers = "post", (*block_markers, ())
            firsts = {m[0] for m in markers if m} | ends
            continue
        if hit is start:  # (checked first: a row's markers may share ids only as vLLM's order)
            phase = "think"
            opened = opened or kimi  # (only Kimi K3's rule reads it)
        elif alt_end or hit is end:
            if phase == "think":
                phase = "post" if reopen else "done"
        elif kimi:  # the call start before any start marker: out of the block, for now
            phase = "post"
        elif call_end:  # (gemma4, GLM) inside the call until its end
            phase, markers, firsts = "call", in_call, {call_end[0]}
        else:
            phase = "done"
        if phase == "done" or (phase == "post" and not reopen):
            break
    return phase, n_count, [], opened, 0


def _count_rule(parser: ReasoningParser, st: ReasoningState, ids: Sequence[int],
                final: bool) -> Counted:
    """:func:`count` for a row's ``count_rule`` (the module header's rules)."""
    held = st.id_held
    if not ids and not (final and held):
        return None
    start = _seq(st.start_id, st.start_ids)
    end = _seq(st.end_id, st.end_ids)
    depth_rule = parser.count_rule != "until_end"
    phase, depth = st.id_phase, st.id_depth
    markers = (start, end) if depth_rule or phase == "pre" else ((), end)
    firsts = {m[0] for m in markers if m}
    if not held and phase != "pre" or (depth_rule and not held):
        if firsts.isdisjoint(ids):  # the common cases, no per-id loop
            if depth_rule and not depth:
                return None
            return phase, st.reasoning_tokens + len(ids), held, st.id_opened, depth
    seq = [*held, *ids] if held else ids
    n_count, n, i = st.reasoning_tokens, len(seq), 0
    while i < n:
        hit: tuple[int, ...] | None = None
        if seq[i] in firsts:
            rest = n - i
            if not final and any(rest < len(m) and tuple(seq[i:]) == m[:rest]
                                 for m in markers if m):
                return phase, n_count, list(seq[i:]), st.id_opened, depth  # wait for it
            hit = next((m for m in markers if m and tuple(seq[i : i + len(m)]) == m), None)
        if depth_rule:
            if hit is None:
                n_count += depth > 0
                i += 1
            else:  # (the start marker first, as vLLM's)
                depth = depth + 1 if hit is start else max(depth - 1, 0)
                i += len(hit)
            continue
        if hit is end:  # HYV4: the first end marker ends the count
            return "done", n_count, [], st.id_opened, 0
        if phase == "pre":  # the output's first ids: a start marker there is no reasoning
            phase, markers = "think", ((), end)
            firsts = {end[0]} if end else set()
            if hit is start:
                i += len(hit)
                continue
        n_count += 1
        i += 1
    return phase, n_count, [], st.id_opened, depth
