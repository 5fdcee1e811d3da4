"""Reasoning parsers: split a choice's text into reasoning and content, one chunk at a time.

Format
======

``<think>`` REASONING ``</think>`` CONTENT. The markers reach us as text (the pipeline decodes
with ``skip_special_tokens=False`` whenever a parser is configured); they may be split across
chunks anywhere. For Qwen3 they are added, non-special tokens (151667 / 151668).

The formats, by vLLM's ``--reasoning-parser`` name (same phases, other markers), are listed
in :mod:`tito.core.parsers.reasoning_formats`'s header, one :class:`ReasoningParser` row each.

An *implicit end* (vLLM 0.33's grammars: a tool call straight from reasoning) is the model's tool
format's call start: it ends the block and stays in the content, where the tool parser finds it.
As in vLLM 0.33 it applies whatever tool parser runs (the grammar is the reasoning parser's own),
also with none; the marker, when it is a special token, is kept in the text for that reason.

Theory of operation
===================

The state is one :class:`ReasoningState`; its text ``phase`` is one of:

``pre``
    Outside any think block, but one may still open: text is **content**, and the first
    start marker switches to ``think``. The formats without ``implicit_open`` start here
    (mistral, granite, hunyuan_a13b, gemma4...) when the prompt did not open a block.
``think``
    Inside the think block: text is **reasoning** until the first ``</think>``, which switches to
    ``done`` (``post`` with ``absorb``). ``qwen3`` and ``deepseek_r1`` (``implicit_open``) start
    here when the prompt's turn did not close the block (vLLM 0.33: "everything before
    ``</think>`` is reasoning, even without ``<think>``"); every parser starts here when the
    prompt tail opened the block (DeepSeek-R1 / Qwen3-thinking templates end the prompt with
    ``<think>\\n``).
``post``
    Only parsers with ``absorb`` (qwen3, mistral...): the block closed with its end marker (or the
    prompt closed it); text is
    **content**, a stray end marker is dropped, the tool format's call start switches to ``done``
    (what follows belongs to the tool parser), or to ``call`` for a row with a ``call_end``.
``call``
    Only rows with a ``call_end`` (gemma4, glm45/47, ling3): inside a tool call, which the
    call start opened in any other phase; text is **content** (the tool parser's) and no
    reasoning marker is read until the call end, which stays content and leads to ``post``:
    the block may open again (vLLM 0.33's Gemma4 grammar returns to CONTENT after
    ``<tool_call|>``, GLM's after ``</tool_call>``).
``done``
    The block closed (in the output, or already in the prompt, for the parsers without
    ``absorb``), or reasoning parsing is disabled (qwen3 with ``enable_thinking: false``, whose
    template ends the prompt with ``<think>\\n\\n</think>\\n\\n``): all text is **content**,
    markers included (nothing is parsed any more).

Rules, identical for every chunking (so batch == stream by construction):

1. Markers are consumed, never emitted. Only **one** ``<think>`` is consumed per output (the first
   one seen in ``pre``/``think``); a second one inside the block is reasoning text, unless the
   parser has ``absorb`` (then it is dropped, and so is an end marker outside the block); with
   ``reopen`` a start marker in ``post`` opens the block again (vLLM 0.33's GLM / DeepSeek-V4 /
   Mistral / Gemma 4 grammars), the trailing whitespace held at its end then kept. The
   implicit end (a tool call start) ends ``pre`` as well as ``think``: after a call nothing opens,
   but for a row with a ``call_end`` (gemma4, GLM), where the call's end leads to ``post``.
   With ``lead_end`` (minimax_m3) an end marker opening the output in ``pre`` is dropped.
2. Hold-back is minimal: only the longest suffix that is a proper prefix of a marker the current
   phase is looking for is kept in ``held`` (at most ``len("</think>") - 1 = 7`` characters); the
   next chunk either completes the marker or releases the text.
3. ``final``: ``held`` is released to the current phase's side. A block that never closes is all
   reasoning (vLLM: truncated thinking stays reasoning); ``content`` is then empty.
4. Text before a start marker in ``pre`` stays content (vLLM's batch path drops it; tito never
   loses text).

Reasoning tokens (``usage.completion_tokens_details.reasoning_tokens``) are counted on the **ids**,
independently of the text: an id counts when it lies inside the block, markers excluded (the
start marker's ids open the block in ``pre``, the end marker's close it; a marker may be
several ids: :mod:`tito.core.parsers.reasoning_count`). Counting does not depend on chunking
either.

Prompt tail (:func:`initial`): scanning the prompt ids backwards from the end, the first ``<think>``
id means "open", the first ``</think>`` id means "closed"; the scan stops at the first *special* id
(``<|im_start|>``, ``<｜Assistant｜>``...), the start of the current turn, so a closed block from an
earlier assistant turn never disables reasoning for this one (vLLM's older parsers scan the whole
prompt; 0.33's grammars with turn boundaries, qwen3's among them, stop at the turn as well).

``qwen3`` follows vLLM 0.33's rule (its ``Qwen3Parser`` grammar, ``docs/conformance.md``): every
output starts in reasoning unless the prompt's turn closed the block or ``enable_thinking`` is
false, so a plain answer without any marker is all reasoning and the content stays empty;
``<tool_call>`` ends the implicit reasoning; repeated markers are absorbed. vLLM also detects
markers by token id in streaming but by text in batch; tito uses text in both (so a marker
spelled with ordinary tokens counts too) and ids only for counting.

Bounds: ``held`` < the longest marker looked for or held (at most 43 characters: PLaMo 3's
``holds``, :mod:`tito.core.parsers.plamo3_cut`); the state JSON is < 300 bytes whatever the output
length.

Example::

    parser = REASONING_PARSERS["qwen3"]
    state = initial(parser, vocab, prompt_ids[-16:])
    state, reasoning, content = step(parser, state, "<think>hm</thi", ids, final=False)
    # reasoning == "hm", content == "", state.held == "</thi"
"""

from __future__ import annotations

from collections.abc import Sequence

from tito.core.parsers import reasoning_count, reasoning_lead
from tito.core.parsers._text import drop_markers, scan_to
from tito.core.parsers.reasoning_count import marker_ids
from tito.core.parsers.reasoning_formats import (  # the table's names: public here too
    REASONING_PARSERS,
    ReasoningParser,
    get_reasoning_parser,
)
from tito.core.parsers.reasoning_state import WS_HOLD, Phase, ReasoningState
from tito.core.vocab import Vocab

#: How many prompt ids :func:`initial` needs at most to see the current turn's markers
#: (``<|im_start|>assistant\n<think>\n\n</think>\n\n`` is 7 ids for Qwen3).
PROMPT_TAIL_IDS = 32


def initial(
    parser: ReasoningParser,
    vocab: Vocab,
    prompt_tail_ids: Sequence[int],
    *,
    enabled: bool = True,
    tool_parser: str | None = None,
) -> ReasoningState:
    """The state before the first output token, decided from the prompt's last ids.

    ``prompt_tail_ids``: the last prompt ids (:data:`PROMPT_TAIL_IDS` are plenty; more is fine,
    the scan stops at the current turn's start). ``enabled=False`` (e.g. from
    :meth:`ReasoningParser.enabled_from_kwargs`) makes every output character content.
    ``tool_parser``: the request's tool format (unused: the call start that ends the block,
    :attr:`ReasoningParser.implicit_end`, is the reasoning grammar's own, as vLLM 0.33's).
    """
    start_id, start_ids = marker_ids(vocab, parser.start)
    count_start = parser.count_start
    end_id, end_ids = marker_ids(vocab, parser.end)
    phase: Phase = "think" if parser.implicit_open else "pre"
    for tid in reversed(prompt_tail_ids):
        if start_id is not None and tid == start_id:
            phase = "think"
            break
        if end_id is not None and tid == end_id:
            phase = "post" if parser.absorb else "done"  # absorb: a stray end is still dropped
            break
        if tid in vocab.special_ids:
            break
    if parser.enabled_opens:  # the switch picks the start (minimax_m3), blocks parse either way
        if enabled and phase == "pre":
            phase = "think"
    elif not enabled or parser.prepend:
        phase = "done"
    implicit = parser.implicit_end
    implicit_id, implicit_ids = marker_ids(vocab, implicit)
    call_end_id, call_end_ids = marker_ids(vocab, parser.call_end)
    id_phase, depth = reasoning_count.initial_phase(parser, phase, enabled=enabled)
    if count_start != parser.start:  # (k2_horizon: the count's start is its variant's)
        start_id, start_ids = marker_ids(vocab, count_start)
    return ReasoningState(
        phase=phase,
        id_phase=id_phase,
        id_depth=depth,
        lead_block=reasoning_lead.first_block(parser, id_phase, start_id, end_id),
        start_id=start_id,
        end_id=end_id,
        start_ids=start_ids,
        end_ids=end_ids,
        implicit_end_ids=implicit_ids,
        implicit_end=implicit,
        implicit_end_id=implicit_id,
        call_end_id=call_end_id,
        call_end_ids=call_end_ids,
    )


def step(
    parser: ReasoningParser,
    state: ReasoningState,
    text: str,
    ids: Sequence[int],
    *,
    final: bool,
    skip: frozenset[int] = frozenset(),
    ends: frozenset[int] = frozenset(),
) -> tuple[ReasoningState, str, str]:
    """Advance by one chunk: ``(new_state, reasoning_delta, content_delta)``.

    ``text`` is the chunk's text (after stop strings), ``ids`` the chunk's ids (for counting only),
    ``final`` true on the choice's last call (releases the held-back marker prefix), ``skip``
    the ids that never count (:func:`tito.core.parsers.reasoning_skip.skip_ids`), ``ends`` the
    ids of the row's one-id further end markers (:func:`~tito.core.parsers.reasoning_skip.end_ids`).
    """
    if state.lead_block != "off":
        state = reasoning_lead.step(parser, state, text, ids, skip, final=final)
    counted = reasoning_count.count(parser, state, ids, final=final, skip=skip, ends=ends)
    phase = state.phase
    # the per-token cases (property-tested against the scan): no marker can start in the text
    # (none of their first characters is in it), so there is no hit and nothing to hold, and
    # all of it goes to the phase's side, as the scan would send it; not while an edge rule of
    # the scan is pending (gemma4's output start or block prefix, granite_thinking_parser's
    # content start, ernie45's dropped content markers)
    edge = (parser.block_prefix and not (state.led and (state.begun or not parser.lead_opens))) or (
        parser.content_lstrip and not state.cbegun) or parser.content_drop or (
        parser.lead_end and not state.begun)
    plain = not state.held and not (parser.prepend and not state.opened) and not edge
    if (plain and phase != "think" and not state.ws
            and counted is None
            and ((phase == "done" and (not parser.content_end or state.answered))
                 or (phase != "done" and not final and _no_marker_start(parser, state, text)))):
        return state, "", text  # content, the state unchanged: the same (immutable) object
    st = state.model_copy()
    if counted is not None:
        st.id_phase, st.reasoning_tokens, st.id_held, st.id_opened, st.id_depth = counted
    if plain and phase != "done" and not final and _no_marker_start(parser, st, text):
        if phase == "think":
            if parser.strip_trailing_ws:
                text = _hold_trailing_ws(st, text, ended=False)
            return st, text, ""
        if parser.strip_trailing_ws:
            return st, _hold_trailing_ws(st, "", ended=not _may_reopen(parser, st)), text
        return st, "", text
    return _scan(parser, st, text, final)


def _scan(parser: ReasoningParser, st: ReasoningState, text: str,
          final: bool) -> tuple[ReasoningState, str, str]:
    """:func:`step`'s general case: the markers searched for in the held text and ``text``
    (``st``: the new state, ids counted, updated here)."""
    reasoning: list[str] = []
    content: list[str] = []
    s = st.held + text
    st.held = ""
    pos = 0
    if parser.prepend and not st.opened:
        st.opened = True
        s = parser.prepend + s
    if parser.lead_opens and not st.begun and s:
        prefix = parser.block_prefix
        if st.phase == "pre" and s.startswith(prefix):
            st.phase = "think"  # the output opens the block itself (the count: reasoning_lead)
            st.opened = True
        elif st.phase == "pre" and prefix.startswith(s) and not final:
            st.held = s
            return st, "", ""
        st.begun = True
    if parser.lead_end and not st.begun and s:
        if st.phase == "pre" and s.startswith(parser.end):
            s = s[len(parser.end) :]  # a stray closer opening the output (minimax_m3)
        elif st.phase == "pre" and parser.end.startswith(s) and not final:
            st.held = s
            return st, "", ""
        st.begun = True
    implicit = (st.implicit_end,) if st.implicit_end else ()
    while True:
        if st.phase == "done":
            if parser.content_end and not st.answered:
                pos = _content_end(parser, st, s, pos, content, final)
            if parser.content_drop:
                kept, st.held = drop_markers(s[pos:], parser.content_drop, final=final)
                content.append(kept)
                break
            content.append(s[pos:])
            break
        looking = _looking(parser, st, implicit)
        hit, marker, stop = scan_to(s, looking, pos, final, parser.holds)
        (reasoning if st.phase == "think" else content).append(s[pos:stop])
        if hit == -1:
            st.held = s[stop:]
            break
        pos = hit + len(marker or "")
        if marker == parser.content_end and st.phase == "pre":
            st.answered = True
            st.phase = "done"
        elif st.phase == "call":  # (looking for the call end only) the call's text ends
            content.append(marker or "")
            st.phase = "post"
        elif implicit and marker == implicit[0]:
            pos = hit  # a tool call ends the block: its marker is content (for the tool parser)
            st.phase = "call" if parser.call_end else "done"
        elif marker in parser.starts:
            if st.phase != "think" or not st.opened:  # else absorbed: a repeated start
                st.opened = True
                st.phase = "think"  # (from post: reopened)
        elif st.phase == "think":
            st.phase = "post" if parser.absorb else "done"
        # else: a stray end (or call end) outside the block, absorbed
    text_r = "".join(reasoning)
    if parser.block_prefix and not st.led:
        text_r = _strip_block_prefix(parser.block_prefix, st, text_r,
                                     ended=st.phase != "think" or final)
    if parser.strip_trailing_ws:
        text_r = _hold_trailing_ws(
            st, text_r, ended=final or (st.phase != "think" and not _may_reopen(parser, st)))
    text_c = "".join(content)
    if parser.content_lstrip and not st.cbegun and text_c:
        text_c = text_c.lstrip(parser.content_lstrip)
        st.cbegun = bool(text_c)
    return st, text_r, text_c


#: id of a parser -> (it, the first characters of every marker it may look for)
_FIRSTS: dict[int, tuple[ReasoningParser, str]] = {}


def _no_marker_start(parser: ReasoningParser, st: ReasoningState, text: str) -> bool:
    """Is none of the first characters of the markers ``parser`` (and the state's call start)
    may look for in ``text``? Then no marker occurs in it and no suffix of it is a marker's
    proper prefix."""
    hit = _FIRSTS.get(id(parser))
    if hit is None or hit[0] is not parser:
        if len(_FIRSTS) >= 64:  # (parsers are the table's: only tests make more)
            _FIRSTS.clear()
        markers = (*parser.starts, *parser.ends, parser.content_end, parser.implicit_end,
                   parser.call_end)
        hit = _FIRSTS[id(parser)] = (parser, "".join(sorted({m[0] for m in markers if m})))
    for c in hit[1]:
        if c in text:
            return False
    implicit = st.implicit_end
    return not (implicit and implicit[0] in text)


def _looking(
    parser: ReasoningParser, st: ReasoningState, implicit: tuple[str, ...]
) -> tuple[str, ...]:
    """The markers the current phase (not ``done``) reacts to. Out of the block, a stray end
    is absorbed, and so is a stray call end (vLLM 0.33's Gemma4 grammar: CONTENT + TOOL_END
    stays CONTENT, with a tool parser or none; GLM's keeps it as text: ``call_end_absorbed``)."""
    if st.phase == "call":
        return (parser.call_end,)
    strays = ((*parser.ends, parser.call_end) if parser.call_end and parser.call_end_absorbed
              else parser.ends)
    if st.phase == "pre":
        looking = (*parser.starts, *implicit)
        if parser.content_end and not st.answered:
            looking += (parser.content_end,)  # no block: the content ends there
        return (*looking, *strays) if parser.absorb else looking
    if st.phase == "post":
        return (*parser.starts, *strays, *implicit) if parser.reopen else (
            *strays, *implicit)
    if st.opened and not parser.absorb:
        return (*parser.ends, *implicit)
    return (*parser.starts, *parser.ends, *implicit)


def _may_reopen(parser: ReasoningParser, st: ReasoningState) -> bool:
    """Whether the block may still open again (``reopen``, after it closed, before a call or,
    with a ``call_end``, also inside or after one): then the reasoning's held trailing
    whitespace is not trailing yet."""
    return parser.reopen and (st.phase == "post" or st.phase == "call")


def _strip_block_prefix(prefix: str, st: ReasoningState, text: str, *, ended: bool) -> str:
    """The reasoning's first characters lose ``prefix`` (vLLM's gemma4 ``thought\\n``): held in
    ``st.lead`` while they may still be it; a block holding only its first line has none."""
    combined = st.lead + text
    if not combined:
        return ""
    st.lead = ""
    if combined.startswith(prefix):
        st.led = True
        return combined[len(prefix) :]
    if prefix.startswith(combined) and not ended:
        st.lead = combined
        return ""
    st.led = True
    return "" if combined == prefix.rstrip() else combined


def _hold_trailing_ws(st: ReasoningState, text: str, *, ended: bool) -> str:
    """Trailing whitespace of the reasoning waits in ``st.ws`` (see ``strip_trailing_ws``): the
    last :data:`WS_HOLD` characters of the trailing run are held, the block's end drops them, so
    the split of the text never matters."""
    combined = st.ws + text
    body = combined.rstrip()
    run = combined[len(body) :]
    held = run[-WS_HOLD:] if run else ""
    st.ws = "" if ended else held
    return combined[: len(combined) - len(held)]


def _content_end(
    parser: ReasoningParser, st: ReasoningState, s: str, pos: int, content: list[str], final: bool
) -> int:
    """In ``done``: drop the first ``content_end``; hold a trailing proper prefix of it. Returns
    where the rest of ``s`` (content) starts; a held prefix is left in ``st.held``."""
    marker = parser.content_end
    hit, _, stop = scan_to(s, (marker,), pos, final)
    content.append(s[pos:stop])
    if hit != -1:
        st.answered = True
        return hit + len(marker)
    st.held = s[stop:]
    return len(s)
