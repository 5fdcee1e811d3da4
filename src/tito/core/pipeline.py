"""One choice's derender state machine: engine token ids in, OpenAI deltas out.

Theory of operation
-------------------
A *choice* is one generated sequence. Its engine output arrives as chunks of token ids (a batch
response is a single chunk that carries every id and the finish reason). For every chunk,
:func:`step_choice` runs the same stages in the same order, over explicit state:

1. **stop token**: when the chunk finishes with ``finish_reason == "stop"``, the last id is kept out
   of the text if it is an EOS or a request stop token (``tito.core.stop_tokens.stop_token_check``);
   such an id ending a chunk that does not finish waits (``pending``) for the next chunk;
2. **detokenize**: one text piece per id (held-back bytes of an unfinished character stay in the
   window); at finish the window's held-back text is flushed;
3. **stop strings**: earliest-ending match cuts the text; a proper prefix of a stop string is held
   back; once fired, the choice emits nothing more and reports ``finish_reason: "stop"``;
4. **reasoning parser**: text splits into reasoning and content;
5. **tool parser**: content splits into content and tool-call deltas;
6. **logprobs**: the chunk's engine logprobs get OpenAI ``token``/``bytes`` with a 4-id context.

Rules that make stream == batch by construction:

- every stage is a pure function of (its state, its input) whose output does not depend on how the
  input was split, so any chunking of the same ids yields the same concatenated output;
- a choice finishes exactly once: on the chunk whose engine ``finish_reason`` is not null, or on the
  chunk where a stop string fires, whichever comes first; after that every step is a no-op;
- the state (:class:`ChoiceState`) is small and bounded: the detokenizer window, the stop hold-back
  and the parsers' compact states; never the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tito.core import detokenizer, logprobs, stop_tokens, stops
from tito.core.detok_one import step_one
from tito.core.detokenizer import DetokState
from tito.core.parsers import is_inkling, is_muse, is_muse_glimmer
# the harmony parser itself is imported only by a gpt-oss choice: its state is all others need
from tito.core.parsers.harmony_state import HarmonyState
# likewise the Muse channel router (tito.core.parsers.muse): only its state here
from tito.core.parsers.muse_state import MuseState
# and the Inkling block router (tito.core.parsers.inkling)
from tito.core.parsers.inkling_state import InklingState
from tito.core.parsers.reasoning import ReasoningState
from tito.core.parsers.tools import ToolChoiceMode, ToolState
from tito.core.pipeline_harmony import harmony_pieces, harmony_step
from tito.core.pipeline_muse import muse_step
from tito.core.pipeline_parsers import (
    ToolCallOut,
    muse_tools,
    parsers_initial,
    parsers_step,
    tool_calls_out,
)
from tito.core.state import Field, State
from tito.core.stops import StopConfig, StopState
from tito.core.vocab import Vocab


class ChoiceConfig(State):
    """Request-derived settings of one stream; fixed for its whole life and carried in the state."""

    skip_special_tokens: bool = True
    #: special ids decoded even with ``skip_special_tokens``: the parsers' markers
    #: (:func:`tito.core.parsers.marker_special_ids`)
    keep_special_ids: list[int] = Field(default_factory=list, max_length=32)
    spaces_between_special_tokens: bool = True
    stop: StopConfig = Field(default_factory=StopConfig)
    reasoning_parser: str | None = None
    #: False when the request turned thinking off (``enable_thinking: false``): all content
    reasoning_enabled: bool = True
    #: the request's choice of markers for a reasoning row that has several (k2_horizon's
    #: ``reasoning_effort``: ``high``, ``medium``, ``low``), ``""`` otherwise: carried so that
    #: any instance parses any chunk with the markers the request chose
    reasoning_variant: str = Field(default="", max_length=16)
    include_reasoning: bool = True
    tool_parser: str | None = None
    tool_choice: ToolChoiceMode = "none"
    named_tool: str | None = None
    parallel_tool_calls: bool = True
    #: the request's tool parameter types, for the formats that type text values
    #: (``tito.core.parsers.tools._schema``); None otherwise
    tool_params: dict[str, dict[str, Any]] | None = None
    completion: bool = False  #: completions (text + flat logprobs) instead of chat
    #: gpt-oss: one token-level harmony parser replaces stages 4-5 (tito.core.parsers.harmony)
    harmony: bool = False
    #: logprob candidates kept per position, in the engine's order (None: all the engine sent):
    #: chat's ``top_logprobs`` (0 with only ``logprobs: true``), completions' ``logprobs + 1``
    top_logprobs: int | None = Field(default=None, ge=0)
    #: ``return_token_ids``: every choice / chunk carries its own token ids
    return_token_ids: bool = False


class ChoiceState(State):
    """Everything one choice needs between chunks (JSON-serializable, bounded)."""

    detok: DetokState = Field(default_factory=DetokState)
    stop: StopState = Field(default_factory=StopState)
    reasoning: ReasoningState | None = None
    tools: ToolState | None = None
    harmony: HarmonyState | None = None
    #: Muse: one channel router replaces stages 4-5 (tito.core.parsers.muse)
    muse: MuseState | None = None
    #: Inkling: one block router replaces stages 4-5 (tito.core.parsers.inkling)
    inkling: InklingState | None = None
    role_sent: bool = False
    lp_context: list[int] = Field(default_factory=list, max_length=4)
    text_offset: int = Field(default=0, ge=0)
    tokens: int = Field(default=0, ge=0)  #: output tokens seen (bounds, min_tokens)
    tool_calls: int = Field(default=0, ge=0)  #: tool calls started (their ids are derived)
    pending: int | None = Field(default=None, ge=0)  #: a possible stop token awaiting the next chunk
    finished: bool = False


@dataclass(slots=True)
class ChoiceOutput:
    """What one chunk of one choice produced."""

    text: str = ""  #: content (chat) or text (completions)
    reasoning: str = ""
    tool_calls: Sequence[ToolCallOut] = ()  #: a list when there are some
    logprobs: list[dict[str, Any]] | None = None  #: chat-shaped logprob entries, when given
    finish_reason: str | None = None
    stop_reason: int | str | None = None
    role: str | None = None


_NO_TOKEN_STOP = stop_tokens.NO_TOKEN_STOP
_detok_step = detokenizer.step
_detok_one = step_one
#: The per-token path of :func:`step_choice` on (its tests turn it off to compare the two paths).
_ONE_ID_PATH = True


def start_choice(
    vocab: Vocab, cfg: ChoiceConfig, prompt_ids: Sequence[int] | None
) -> ChoiceState:
    """The state before the first token: detokenizer seeded from the prompt tail, parsers primed."""
    state = ChoiceState(
        detok=detokenizer.seed(
            vocab,
            prompt_ids,
            skip_special_tokens=cfg.skip_special_tokens,
            keep_special_ids=cfg.keep_special_ids,
        )
    )
    state.reasoning, state.tools = parsers_initial(vocab, cfg, prompt_ids)
    if cfg.harmony:
        state.harmony = HarmonyState()  # harmony's initial()
    elif is_muse(cfg.tool_parser, cfg.reasoning_parser):
        from tito.core.parsers import muse

        state.muse = muse.initial(muse_tools(cfg))
    elif is_inkling(cfg.tool_parser, cfg.reasoning_parser):
        from tito.core.parsers import inkling

        state.inkling = inkling.initial(vocab, prompt_ids, muse_tools(cfg),
                                        reasoning=cfg.reasoning_parser is not None)
    return state


def step_choice(
    vocab: Vocab,
    cfg: ChoiceConfig,
    state: ChoiceState,
    ids: Sequence[int],
    *,
    finish_reason: str | None,
    engine_logprobs: list[dict[str, Any]] | None = None,
    response_id: str = "",
    choice_index: int = 0,
    stop_reason: int | str | None = None,
    last: bool = False,
) -> tuple[ChoiceState, ChoiceOutput]:
    """Advance one choice by one engine chunk; see the module header for the stages.

    ``last``: the output ends here although the engine gave no ``finish_reason`` (a batch
    response's choice without one, as vLLM's batch derender reads it: everything decoded and
    flushed, no stop token dropped, ``finish_reason`` stays null).

    ``stop_reason`` is the engine's: on a ``stop`` finish an id names the token that stopped it
    (dropped as a stop token even when the request's ``stop_token_ids`` do not list it), and
    whatever tito's own stop rules did not explain is reported as the engine said, on any
    finish (vLLM's derender passes the engine's ``stop_reason`` on: ``repetition`` comes with
    "repetition_detected", a ``length`` or ``abort`` with whatever the engine wrote).

    Written for the per-token path (a streamed call often carries one id): each stage's work is
    skipped when its input says there is none, and ``ids`` is never copied unless it changes.
    """
    if state.finished:
        return state, ChoiceOutput()
    stop_cfg = cfg.stop
    held = state.stop
    # The per-token path: one id that cannot be a stop token, nothing pending or final, no
    # stop string in play, no harmony nor Muse router. Stages 1-3 (the general path below) then reduce to one
    # detokenizer step whose one piece is the text; with no parser and no logprobs either, the
    # whole step is that piece. The same outcome, stage by stage, without their set-up
    # (``tests/test_pipeline_one_id.py`` compares the two paths).
    one = (
        _ONE_ID_PATH and len(ids) == 1 and finish_reason is None and not last and state.pending is None
        and not cfg.harmony and state.harmony is None and state.muse is None
        and state.inkling is None and not stop_cfg.stop
        and not (held.fired or held.held or held.tail)
        and not (ids[0] in stop_cfg.stop_token_ids
                 or (not stop_cfg.ignore_eos and ids[0] in vocab.all_eos_ids))
    )
    if one and engine_logprobs is None and state.reasoning is None and state.tools is None:
        detok, text = _detok_one(vocab, state.detok, ids[0], cfg.skip_special_tokens,
                                 cfg.keep_special_ids)
        role, role_sent = None, state.role_sent
        if not role_sent and not cfg.completion:
            role, role_sent = "assistant", True
        return (
            ChoiceState._construct(detok, held, None, None, None, None, None, role_sent,
                                   state.lp_context,
                                   state.text_offset, state.tokens + 1, state.tool_calls, None,
                                   False),
            ChoiceOutput(text, "", (), None, None, None, role),
        )
    state = state.model_copy()  # shallow: every stage returns new sub-states, never mutates
    role = None
    if not state.role_sent and not cfg.completion:
        role = "assistant"
        state.role_sent = True
    final = finish_reason is not None or last

    if one:
        carried, token_stop, fired, fired_at = False, _NO_TOKEN_STOP, False, None
        decode_ids, flushed = ids, ""
        state.detok, text = _detok_one(vocab, state.detok, ids[0], cfg.skip_special_tokens,
                                       cfg.keep_special_ids)
    else:
        # 1. stop token. A stop-token candidate ending a non-final chunk waits in ``pending``: only
        # the next chunk tells whether it ended the choice (then it is never decoded) or not.
        carried = state.pending is not None
        decode_ids = [state.pending, *ids] if carried else ids
        if carried:
            state.pending = None
        token_stop = _NO_TOKEN_STOP
        if not final:
            # could the engine stop on the last id? Then it waits: never decoded if it did, and
            # its stop_reason reported on a finish-only chunk (include_stop_str_in_output too:
            # then it is decoded with the next chunk, as batch reports it)
            if decode_ids:
                last = decode_ids[-1]
                if last in stop_cfg.stop_token_ids or (
                    not stop_cfg.ignore_eos and last in vocab.all_eos_ids
                ):
                    state.pending = last
                    decode_ids = decode_ids[:-1]
        elif finish_reason == "stop":
            token_stop = stop_tokens.stop_token_check(
                vocab, stop_cfg, decode_ids[-1] if decode_ids else None, finish_reason,
                stop_reason
            )
            if token_stop.drop:
                decode_ids = decode_ids[:-1]

        # 2. detokenize, one piece per id
        skip, keep = cfg.skip_special_tokens, cfg.keep_special_ids
        if cfg.harmony:
            detok, pieces = harmony_pieces(vocab, state.detok, decode_ids, state.harmony)
            skip_text = False
        else:
            detok, pieces = _detok_step(vocab, state.detok, decode_ids, skip_special_tokens=skip,
                                        keep_special_ids=keep)
            skip_text = skip
        flushed = ""
        if final:
            detok, flushed = detokenizer.flush(
                vocab, detok, skip_special_tokens=skip_text, keep_special_ids=keep
            )
        state.detok = detok

        # 3. stop strings (none configured and nothing carried: the text passes, as stops.step's
        # first rule; inline, a call per token saved)
        fired_at = None
        if not stop_cfg.stop and not (held.fired or held.held or held.tail):
            text, fired = "".join(pieces), False
            if flushed:
                text += flushed
        else:
            seen = pieces
            if cfg.harmony and skip:
                # the engine's text, which stop strings match, holds no special id and no id past
                # the tokenizer (render's skip_special_tokens); harmony reads the ids and pieces
                hidden, size = vocab.special_ids, vocab.size
                seen = ["" if i in hidden or i >= size else p
                        for i, p in zip(decode_ids, pieces, strict=True)]
            state.stop, text, fired, fired_at = stops.step(
                stop_cfg, held, seen, final=final, flush_text=flushed
            )
            if fired:
                state.pending = None
    state.tokens += len(ids)

    # 4-5. parsers
    if (state.harmony is None and state.reasoning is None and state.tools is None
            and state.muse is None and state.inkling is None):
        reasoning, content, calls = "", text, ()
    else:
        parser_ids = decode_ids if fired_at is None else decode_ids[: fired_at + 1]
        if state.harmony is not None:
            state.harmony, reasoning, content, calls = harmony_step(
                vocab, cfg, state.harmony, parser_ids, pieces,
                flushed if fired_at is None else "", final=final or fired,
            )
        elif state.muse is not None:
            state.muse, reasoning, content, calls = muse_step(
                vocab, state.muse, parser_ids, pieces, flushed if fired_at is None else "",
                final=final or fired, parser=muse_tools(cfg),
                glimmer=is_muse_glimmer(cfg.tool_parser, cfg.reasoning_parser))
        elif state.inkling is not None:
            from tito.core.parsers import inkling

            state.inkling, got = inkling.step(
                vocab, state.inkling, text, parser_ids, final=final or fired,
                parser=muse_tools(cfg), count=cfg.reasoning_parser is not None)
            reasoning, content, calls = got.reasoning, got.content, got.calls
        else:
            state.reasoning, state.tools, reasoning, content, calls = parsers_step(
                cfg, state.reasoning, state.tools, text, parser_ids, final=final or fired,
                vocab=vocab,
            )
    out = ChoiceOutput(content, reasoning if cfg.include_reasoning else "", (), None, None, None,
                       role)
    if calls:
        out.tool_calls = tool_calls_out(cfg, state, calls, response_id, choice_index)

    # 6. logprobs: every entry the engine sent, as vLLM 0.33 reports them (also more or fewer
    # than the ids); a stop string that fired drops one entry from the end per id it cut away
    # (with one entry per id: the entries of the ids up to the match)
    if engine_logprobs is not None:
        entries = engine_logprobs
        if fired_at is not None:
            cut = len(ids) - (fired_at + 1 - carried)
            entries = engine_logprobs[: max(len(engine_logprobs) - cut, 0)]
        out.logprobs, state.lp_context = logprobs.resolve(
            vocab, entries, state.lp_context, cfg.top_logprobs)

    # finish
    if fired or final:
        out.finish_reason = "stop" if fired else finish_reason
        out.stop_reason = stop_tokens.resolve_stop_reason(token_stop, state.stop, stop_reason)
        state.finished = True
        if out.finish_reason == "stop" and state.tool_calls and cfg.tool_choice in (
            "auto", "required"
        ):
            out.finish_reason = "tool_calls"
    return state, out


def pending_text(vocab: Vocab, cfg: ChoiceConfig, state: ChoiceState) -> str:
    """The text of the stop-token candidate ``state`` holds (``pending``), decoded where it came
    (``""`` when nothing is pending). Why: vLLM 0.33's stream shows that id's text in the chunk
    that brought it, tito with the next chunk; a completions chunk without logprob entries moves
    vLLM's next ``text_offset`` by its text, so tito counts this text in the chunk it came in
    (derender fuzz seed 558, ``gpt2:558:10``: ``<|endoftext|>`` mid-output, kept)."""
    if state.pending is None:
        return ""
    if cfg.harmony:
        _, pieces = harmony_pieces(vocab, state.detok, [state.pending], state.harmony)
    else:
        _, pieces = _detok_step(vocab, state.detok, [state.pending],
                                skip_special_tokens=cfg.skip_special_tokens,
                                keep_special_ids=cfg.keep_special_ids)
    return "".join(pieces)
