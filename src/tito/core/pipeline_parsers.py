"""The choice pipeline's text-parser stages (4-5) and the wire shape of their tool calls.

Why a module of its own: :mod:`tito.core.pipeline` owns the stages' order and the per-token
path; what the reasoning and tool parsers need around them (their initial states read off the
prompt, the parser a choice's settings select, one step of both, and the tool-call deltas as
the OpenAI wire wants them, with deterministic ids) is set-up and shaping that lives here, as
harmony's and Muse's adapters live in :mod:`tito.core.pipeline_harmony` and
:mod:`tito.core.pipeline_muse`. The pipeline calls these functions directly (no wrapper in
between), and only on the chunks that have a parser or a tool call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tito.core.parsers import is_inkling, is_muse, plamo3_cut
from tito.core.parsers import reasoning as reasoning_parsers
from tito.core.parsers import reasoning_skip
from tito.core.parsers import tools as tool_parsers
from tito.core.parsers.reasoning import ReasoningState
from tito.core.parsers.tools import ToolCallDelta, ToolState
from tito.core.vocab import Vocab

if TYPE_CHECKING:
    from tito.core.pipeline import ChoiceConfig, ChoiceState

__all__ = ["ToolCallOut", "muse_tools", "parses_tools", "parsers_initial", "parsers_step",
           "tool_call_id", "tool_calls_out", "tool_parser_for"]

_ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass(slots=True)
class ToolCallOut:
    """One tool-call delta as the OpenAI wire wants it (``id``/``name`` only on a call's first delta)."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


def tool_call_id(response_id: str, choice_index: int, call_index: int, shape: str = "openai") -> str:
    """A deterministic tool-call id: a retried or replayed chunk gets the same id.

    ``shape`` is the format's (:attr:`tito.core.parsers.tools.ToolParser.id_shape`): ``mistral``
    gives 9 alphanumerics (mistral-common validates that shape when the call comes back in the
    history; vLLM draws such ids at random), anything else ``chatcmpl-tool-`` + 24 hex digits.
    """
    digest = hashlib.sha256(f"{response_id}\x00{choice_index}\x00{call_index}".encode())
    if shape == "mistral":
        n = int.from_bytes(digest.digest()[:8], "big")
        chars = []
        for _ in range(9):
            n, r = divmod(n, 62)
            chars.append(_ALPHANUMERIC[r])
        return "".join(chars)
    return f"chatcmpl-tool-{digest.hexdigest()[:24]}"


def tool_calls_out(
    cfg: ChoiceConfig,
    state: ChoiceState,
    calls: Sequence[ToolCallDelta],
    response_id: str,
    choice_index: int,
) -> list[ToolCallOut]:
    """The wire's tool-call deltas; a call's first delta (it names the function) counts the call
    in ``state.tool_calls`` and carries its id (the format's own, or a derived one)."""
    out = []
    for call in calls:
        first = call.name is not None
        if first:
            state.tool_calls += 1
        out.append(
            ToolCallOut(
                index=call.index,
                id=(
                    call.id
                    or tool_call_id(
                        response_id, choice_index, call.index, tool_parsers.id_shape(cfg.tool_parser)
                    )
                    if first
                    else None
                ),
                name=call.name,
                arguments=call.arguments,
            )
        )
    return out


def parsers_initial(
    vocab: Vocab, cfg: ChoiceConfig, prompt_ids: Sequence[int] | None
) -> tuple[ReasoningState | None, ToolState | None]:
    """Parser states before the first token; the reasoning phase is read off the prompt's tail."""
    if cfg.harmony or is_muse(cfg.tool_parser, cfg.reasoning_parser) or is_inkling(
            cfg.tool_parser, cfg.reasoning_parser):
        return None, None
    reasoning_state = None
    if cfg.reasoning_parser is not None:
        parser = reasoning_parsers.get_reasoning_parser(cfg.reasoning_parser, cfg.reasoning_variant)
        tail = list(prompt_ids or [])[-reasoning_parsers.PROMPT_TAIL_IDS :]
        reasoning_state = reasoning_parsers.initial(
            parser, vocab, tail, enabled=cfg.reasoning_enabled, tool_parser=cfg.tool_parser
        )
    tool_state = None
    if parses_tools(cfg):
        tool_state = tool_parsers.initial(tool_parser_for(cfg))
    return reasoning_state, tool_state


def parses_tools(cfg: ChoiceConfig) -> bool:
    """Does a tool parser read these settings' output? Not for tool choice "none", nor without
    a tool parser: vLLM's ``_extract_tool_calls`` then makes no call, ``required`` and named
    too (the tool choice still shapes the message: content ``""`` for them)."""
    return cfg.tool_choice != "none" and cfg.tool_parser is not None


def tool_parser_for(cfg: ChoiceConfig) -> tool_parsers.ToolParser:
    """The tool parser these settings select (also used to check a carried state's phase)."""
    return tool_parsers.make_tool_parser(
        cfg.tool_parser,
        cfg.tool_choice,
        named_tool=cfg.named_tool,
        parallel_tool_calls=cfg.parallel_tool_calls,
        tool_params=cfg.tool_params,
    )


def muse_tools(cfg: ChoiceConfig) -> tool_parsers.ToolParser | None:
    """The ATEM parser of a Muse tool channel, or the JSON call parser of an Inkling tool block
    (None: the request takes no calls, so tool channels / blocks are content, as vLLM's
    reasoning parser alone passes them)."""
    if not parses_tools(cfg):
        return None
    return tool_parser_for(cfg)


def _strip_at_end(out: str, pending: str, vocab: Vocab, cfg: ChoiceConfig) -> str:
    """``out`` without a cut marker at its end, when that marker ends the output (``pending``,
    the step's text): a marker piece before another marker (``<|plamo:end_<|plamo:tag|>``) is
    text, as vLLM's stream gives it (its batch strips the whole string's tail wherever the
    string ended: a stream cannot, the piece went out before the marker came; fuzz sweep)."""
    cut = plamo3_cut.strip_cut(out, vocab, thinking=cfg.reasoning_enabled)
    return cut if cut == out or pending.endswith(out[len(cut) :]) else out


def parsers_step(
    cfg: ChoiceConfig,
    reasoning_state: ReasoningState | None,
    tool_state: ToolState | None,
    text: str,
    ids: Sequence[int],
    *,
    final: bool,
    vocab: Vocab,
) -> tuple[ReasoningState | None, ToolState | None, str, str, list[ToolCallDelta]]:
    """Reasoning split, then tool calls in the content (never inside reasoning, as vLLM).
    ``vocab``: the model's, whose special ids some formats' counts leave out
    (:mod:`tito.core.parsers.reasoning_skip`)."""
    reasoning, content = "", text
    # what the stages had pending before this step (held + new text): a cut marker is one the
    # output's end cut only when it ends this text (plamo3_cut)
    cut_r = final and cfg.reasoning_parser == "plamo3"  # (only then: no work per chunk)
    pending_r = (reasoning_state.held if reasoning_state is not None else "") + text \
        if cut_r else ""
    if reasoning_state is not None and cfg.reasoning_parser is not None:
        parser = reasoning_parsers.get_reasoning_parser(cfg.reasoning_parser, cfg.reasoning_variant)
        reasoning_state, reasoning, content = reasoning_parsers.step(
            parser, reasoning_state, text, ids, final=final,
            skip=reasoning_skip.skip_ids(parser, vocab),
            ends=reasoning_skip.end_ids(parser, vocab),
        )
    calls: list[ToolCallDelta] = []
    cut_c = final and tool_state is not None and cfg.tool_parser == "plamo3"
    pending_c = tool_state.buf + content if cut_c and tool_state is not None else ""
    if tool_state is not None:
        tool_state, content, calls = tool_parsers.step(
            tool_parser_for(cfg), tool_state, content, final=final
        )
    # a cut marker is markup (plamo3_cut); only while the block is open is the reasoning's
    # tail the output's end (``pending_r`` may end with the same text by chance: ws sweep
    # ``--pairs`` seed 68, ``<|plamo:end_<|plamo:tag|>x<|plamo:end_``, the batch dropped the
    # reasoning's piece, the stream kept it)
    if cut_r and reasoning_state is not None and reasoning_state.phase not in ("post", "call",
                                                                                 "done"):
        reasoning = _strip_at_end(reasoning, pending_r, vocab, cfg)
    if cut_c:
        content = _strip_at_end(content, pending_c, vocab, cfg)
    return reasoning_state, tool_state, reasoning, content, calls
