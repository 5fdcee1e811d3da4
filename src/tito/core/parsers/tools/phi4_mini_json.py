"""``phi4_mini_json``: Phi-4-mini tool calls, a JSON list after ``functools``.

Format (vLLM's ``phi4_mini_json`` parser, for its llama-style template)::

    TEXT functools[{"name": "NAME", "arguments": {ARGS}}, ...] TEXT

``functools`` is plain text, directly followed by the list; ``"parameters"`` is accepted as
well as ``"arguments"``.

Phases (``head``/``sep``/``next``/``args``/``tail`` are in :mod:`.json_list` and
:mod:`._objects`):

``text``
    Content; ``functools`` switches to ``head`` (a proper prefix is held back).
``head``
    The marker, ``[`` and the first call object (an unparsable header is content, marker
    included). After the list's ``]``: ``text`` again.

Rules: as :mod:`.json_list`; arguments are sent as ``json.dumps`` writes them (vLLM's batch
re-serializes them, :mod:`._jsonnorm`). vLLM's batch reads the list only up to its first ``]``
(a nested array breaks it) and drops the text around the calls; its stream sends nothing at all
(its streaming method returns no delta). tito reads the whole list, keeps the text as content
and streams what it batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools.json_list import JsonListParser

MARKER = "functools"


@dataclass(frozen=True)
class Phi4MiniJsonParser(JsonListParser):
    name: ClassVar[str] = "phi4_mini_json"
    first_phase: ClassVar[str] = "text"
    resume_phase: ClassVar[str] = "text"
    marker: ClassVar[str] = MARKER
    normalize_args: ClassVar[bool] = True

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, MARKER, "head")
