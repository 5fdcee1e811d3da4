"""Reasoning and tool-call parsers as pure state machines over text deltas.

The pipeline runs, per chunk: ``reasoning.step`` on the emitted text (-> reasoning, content), then
``tools.step`` on that content (-> content, tool-call deltas). Every state is a small
:class:`tito.core.state.State` (JSON round trip, validated where it comes in), bounded whatever the
output length; every step is linear in the new text.
"""

from __future__ import annotations

#: vLLM's parser names for gpt-oss (``--tool-call-parser openai``,
#: ``--reasoning-parser openai_gptoss``). Here, not in :mod:`tito.core.parsers.harmony` (which
#: re-exports them): every function checks a model's parser names at init, and only one that
#: serves gpt-oss imports the harmony parser.
HARMONY_TOOL_PARSERS = frozenset({"openai"})
HARMONY_REASONING_PARSERS = frozenset({"openai_gptoss"})


def is_harmony(tool_parser: str | None, reasoning_parser: str | None) -> bool:
    """Do these parser names (a model's tito.json) mean the harmony format?"""
    return tool_parser in HARMONY_TOOL_PARSERS or reasoning_parser in HARMONY_REASONING_PARSERS


#: vLLM's parser names for Muse (``--tool-call-parser muse`` / ``musespark1x``: Muse Spark,
#: ``muse_glimmer``: Muse Glimmer; the same for ``--reasoning-parser``): one channel router
#: reads both (:mod:`tito.core.parsers.muse`); the tool names are also :data:`TOOL_PARSERS`
#: keys (the ATEM parser of a tool channel).
MUSE_TOOL_PARSERS = frozenset({"muse", "musespark1x", "muse_glimmer"})
MUSE_REASONING_PARSERS = frozenset({"muse", "musespark1x", "muse_glimmer"})
#: the Glimmer flavour's names (its own routing table, no reasoning token count)
MUSE_GLIMMER = frozenset({"muse_glimmer"})


def is_muse(tool_parser: str | None, reasoning_parser: str | None) -> bool:
    """Do these parser names (a choice's, or a model's tito.json) mean Muse's channels?"""
    return tool_parser in MUSE_TOOL_PARSERS or reasoning_parser in MUSE_REASONING_PARSERS


def is_muse_glimmer(tool_parser: str | None, reasoning_parser: str | None) -> bool:
    """Muse Glimmer's channels (a model's names are one flavour: ``model_spec`` checks it)."""
    return tool_parser in MUSE_GLIMMER or reasoning_parser in MUSE_GLIMMER


#: vLLM's parser names for Inkling (``--tool-call-parser inkling``, ``--reasoning-parser
#: inkling``): one block router reads both (:mod:`tito.core.parsers.inkling`); the tool name is
#: also a :data:`TOOL_PARSERS` key (the JSON calls of a tool block)
INKLING_TOOL_PARSERS = frozenset({"inkling"})
INKLING_REASONING_PARSERS = frozenset({"inkling"})


def is_inkling(tool_parser: str | None, reasoning_parser: str | None) -> bool:
    """Do these parser names (a choice's, or a model's tito.json) mean Inkling's blocks?"""
    return tool_parser in INKLING_TOOL_PARSERS or reasoning_parser in INKLING_REASONING_PARSERS


from tito.core.parsers import reasoning, tools  # noqa: E402  (after the names above)
from tito.core.parsers.reasoning import (
    REASONING_PARSERS,
    ReasoningParser,
    ReasoningState,
)
from tito.core.vocab import Vocab
from tito.core.parsers.tools import (
    TOOL_PARSERS,
    ToolCallDelta,
    ToolChoiceMode,
    ToolParser,
    ToolState,
    make_tool_parser,
    parse_tool_choice,
)

__all__ = [
    "HARMONY_REASONING_PARSERS",
    "HARMONY_TOOL_PARSERS",
    "INKLING_REASONING_PARSERS",
    "INKLING_TOOL_PARSERS",
    "MUSE_GLIMMER",
    "MUSE_REASONING_PARSERS",
    "MUSE_TOOL_PARSERS",
    "REASONING_PARSERS",
    "TOOL_PARSERS",
    "ReasoningParser",
    "ReasoningState",
    "ToolCallDelta",
    "ToolChoiceMode",
    "ToolParser",
    "ToolState",
    "is_harmony",
    "is_inkling",
    "is_muse",
    "is_muse_glimmer",
    "make_tool_parser",
    "marker_special_ids",
    "parse_tool_choice",
    "reasoning",
    "tools",
]


def marker_special_ids(
    vocab: Vocab, tool_parser: str | None, reasoning_parser: str | None
) -> list[int]:
    """The ids of the configured formats' markers that are *special* tokens of ``vocab``.

    Why: a parser must see its markers in the text, yet the request's ``skip_special_tokens``
    should still hold for every other special token (vLLM turns the flag off altogether for
    such parsers, so ``</s>``, ``[INST]``... leak into content). The detokenizer keeps exactly
    these ids (:mod:`tito.core.detokenizer`, "Kept special ids"). Markers that are ordinary or
    added non-special tokens (Qwen3's ``<tool_call>``) are text anyway and need nothing.
    """
    markers: list[str] = []
    if tool_parser is not None and tool_parser in TOOL_PARSERS:
        markers += TOOL_PARSERS[tool_parser].marker_tokens
    if reasoning_parser is not None and reasoning_parser in REASONING_PARSERS:
        markers += REASONING_PARSERS[reasoning_parser].marker_tokens
    if reasoning_parser in MUSE_REASONING_PARSERS:  # the router reads the framing, tools or not
        markers += ("<|start|>", "<|message|>", "<|eom|>", "<|eot|>")
    if reasoning_parser in INKLING_REASONING_PARSERS or tool_parser in INKLING_TOOL_PARSERS:
        from tito.core.parsers.inkling import MARKERS  # the router reads every block marker

        markers += MARKERS
    ids = {vocab.added_tokens.get(m) for m in markers}
    return sorted(i for i in ids if i is not None and i in vocab.special_ids)
