"""``hunyuan_a13b``: Hunyuan-A13B tool calls, a JSON list between markers.

Format (vLLM's ``hunyuan_a13b`` parser)::

    TEXT <tool_calls>[{"name": "NAME", "arguments": {ARGS}}, ...]</tool_calls> TEXT

Phases (``head``/``sep``/``next``/``args``/``sargs``/``tail``/``after`` are in
:mod:`.json_list` and :mod:`._objects`):

``text``
    Content; ``<tool_calls>`` switches to ``head`` (held back while a proper prefix).
``head``
    The marker, whitespace, ``[`` and the first call object (an unparsable header is content,
    marker included); the list's ``]`` goes to ``after``.
``after``
    Whitespace and ``</tool_calls>`` are dropped; then ``text``.

Rules: as :mod:`.json_list`; ``"arguments"`` that are not an object are passed on as their text
(a string is decoded, as vLLM passes a non-dict value on); ``</tool_calls>`` inside broken
arguments ends the call, inside a string too (vLLM's regex ends the section at the first one).
An element without arguments (a misspelt ``"aguments"``) is no call and the list goes on, as
vLLM's batch skips it (its object's text is content: vLLM drops it; fuzz seed 25,
``hunyuan_a13b*/fz36_argless_*``); so is one whose arguments are ``"parameters"``, which vLLM's
hunyuan_a13b never reads (``hunyuan_a13b/fz37_parameters*``; the JSON-list formats read either).
Calls inside ``<think>`` are reasoning: the reasoning parser runs first (vLLM skips such regions
by regex). vLLM also removes a leading ``助手：`` ("assistant:") from content when there is no
call; tito does not rewrite content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._json import ARGS_KEYS
from tito.core.parsers.tools.json_list import JsonListParser

START = "<tool_calls>"
END = "</tool_calls>"


@dataclass(frozen=True)
class HunyuanA13BParser(JsonListParser):
    name: ClassVar[str] = "hunyuan_a13b"
    first_phase: ClassVar[str] = "text"
    marker: ClassVar[str] = START
    resume_phase: ClassVar[str] = "text"
    closed_phase: ClassVar[str] = "after"
    string_args: ClassVar[bool] = True
    argless_skipped: ClassVar[bool] = True
    # (vLLM's regexes and batch read no other)
    args_keys: ClassVar[tuple[str, ...]] = ("arguments",)
    stop_markers: ClassVar[tuple[str, ...]] = (END, START)
    # a string the model left open ends at the list's end marker too (vLLM's regex cuts the
    # section at the first one; parser fuzz seed 177: a dropped quote swallowed the rest)
    string_stop_markers: ClassVar[tuple[str, ...]] = (END,)
    end_marker: ClassVar[str] = END
    marker_tokens: ClassVar[tuple[str, ...]] = (START, END)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, START, "head")


@dataclass(frozen=True)
class JambaParser(HunyuanA13BParser):
    """``jamba``: AI21 Jamba, the same ``<tool_calls>[...]</tool_calls>`` list (vLLM's
    ``JambaToolParser``), arguments sent as ``json.dumps`` writes them (its batch path)."""

    name: ClassVar[str] = "jamba"
    normalize_args: ClassVar[bool] = True
    argless_skipped: ClassVar[bool] = False  # (vLLM's stream makes that call; its batch none)
    args_keys: ClassVar[tuple[str, ...]] = ARGS_KEYS  # (not compared with vLLM's jamba)
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
