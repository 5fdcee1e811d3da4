"""Reasoning and tool-call parsers as pure state machines over text deltas.

The pipeline runs, per chunk: ``reasoning.step`` on the emitted text (-> reasoning, content), then
``tools.step`` on that content (-> content, tool-call deltas). Every state is a small pydantic model
(JSON round trip), bounded whatever the output length; every step is linear in the new text.
"""

from __future__ import annotations

from tito.core.parsers import reasoning, tools
from tito.core.parsers.reasoning import (
    REASONING_PARSERS,
    ReasoningParser,
    ReasoningState,
)
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
    "REASONING_PARSERS",
    "TOOL_PARSERS",
    "ReasoningParser",
    "ReasoningState",
    "ToolCallDelta",
    "ToolChoiceMode",
    "ToolParser",
    "ToolState",
    "make_tool_parser",
    "parse_tool_choice",
    "reasoning",
    "tools",
]
