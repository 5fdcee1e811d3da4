"""``llama4_pythonic``: Llama 4's pythonic tool calls, optionally wrapped in its markers.

Format (vLLM's ``llama4_pythonic`` parser; only at the very start of the output)::

    [<|python_start|>] [get_weather(city="Paris"), get_time()] [<|python_end|>] TEXT

The list is :mod:`.pythonic`'s (arguments transcoded to JSON as vLLM renders them).

Phases (all of :mod:`.pythonic`'s, plus):

``start`` / ``head``
    ``<|python_start|>`` may come before the list's ``[`` (whitespace allowed); it is the
    header's optional lead, so an output whose list does not parse is content, marker included.
``pyend``
    After the list's ``]``: whitespace and ``<|python_end|>`` are dropped (also when the output
    ends inside the marker); anything else is text.

Rules: as :mod:`.pythonic`. vLLM's batch path removes every ``<|python_end|>``; tito drops only
the one closing the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools.pythonic import PythonicParser
from tito.core.parsers.tools.pythonic_args import LINE_ENDS

START = "<|python_start|>"
END = "<|python_end|>"


@dataclass(frozen=True)
class Llama4PythonicParser(PythonicParser):
    name: ClassVar[str] = "llama4_pythonic"
    optional_lead: ClassVar[str] = START
    closed_phase: ClassVar[str] = "pyend"
    marker_tokens: ClassVar[tuple[str, ...]] = (START, END)
    _comment_ends: ClassVar[tuple[str, ...]] = (*LINE_ENDS, END)

    def _on_pyend(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._closing_marker(st, s, pos, out, final, END, "rest")
