"""``llama3_json``: Llama 3.x JSON tool calls (vLLM's ``llama3_json`` / ``llama4_json``).

Format (only at the very start of the output, like vLLM's streaming path)::

    [<|python_tag|>]* {"name": "NAME", "parameters": {ARGS}} [SEP {"name": ..., ...}]* TEXT

SEP is ``;`` (``;``, ``; ``, ``;\\n``, any whitespace around it) or whitespace holding a newline
(``\\n``), the separators vLLM's llama3_json streaming accepts.

``"arguments"`` is accepted as well as ``"parameters"``; other members (``"type": "function"``)
are skipped. Leading whitespace is allowed, and so is a repeated ``<|python_tag|>`` (vLLM's
batch reads the first object wherever it stands; its stream fails on a second tag and sends
nothing at all: tito makes the batch's call, fuzz seed 29, ``llama3_json/fz37_repeated_tag``).
Text after the tag that is not an object (``<|python_tag|>Done!{...}``) is content, the tag
included, and no object after it is a call: the tag also opens Llama 3.1's built-in tool calls
(``brave_search.call(...)``, code_interpreter's Python), not JSON, which must reach the client
(vLLM's batch reads every ``{`` anywhere, its stream sends nothing; fuzz seed 121).

Phases (``head``/``args``/``tail`` are in :mod:`._objects`):

``start``
    Leading whitespace is held (gap rule); then ``<|python_tag|>`` (or a proper prefix of it, held)
    or ``{`` goes to ``head``; anything else goes to ``rest``: the output is plain content.
``head``
    The first call object (optional ``<|python_tag|>`` lead). The arguments member is required:
    a JSON object without it (``{"name": "Bob", "age": 3}``) is content, not a call.
``sep``
    After a call: whitespace (gap rule); ``;`` goes to ``next``; ``{`` after whitespace holding a
    newline goes to ``head`` (the whitespace is part of that header: content if it fails);
    anything else to ``rest``.
``next``
    A further call object after ``;``.
``rest``
    Content until the end (calls are only recognised at the start of the output).

Rules: a malformed first object makes the whole output content (plain JSON answers stay
content); a malformed later object ends the calls there. Arguments are sent as ``json.dumps``
writes them (vLLM re-serializes them in batch and stream; :mod:`._jsonnorm` rewrites the text as
it passes). Unknown tool names pass through (as vLLM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._json import skip_ws
from tito.core.parsers.tools._objects import ObjectCallParser

PYTHON_TAG = "<|python_tag|>"


@dataclass(frozen=True)
class Llama3JsonParser(ObjectCallParser):
    name: ClassVar[str] = "llama3_json"
    structural_tag_model: ClassVar[str | None] = "llama"
    first_phase: ClassVar[str] = "start"
    resume_phase: ClassVar[str] = "rest"
    after_phase: ClassVar[str] = "sep"
    args_required: ClassVar[bool] = True
    normalize_args: ClassVar[bool] = True
    marker_tokens: ClassVar[tuple[str, ...]] = (PYTHON_TAG,)

    def _lead(self, st: Work) -> Sequence[str]:
        return (";",) if st.phase == "next" else ()

    def _optional_lead(self, st: Work) -> str:
        return PYTHON_TAG

    def _on_start(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = skip_ws(s, pos)
        self._content(st, out, s[pos:i])
        if i == len(s):
            return i, False
        if s[i] == "{" or s.startswith(PYTHON_TAG, i):
            st.phase = "head"
        elif not final and is_proper_prefix(s[i:], (PYTHON_TAG,)):
            return i, True
        else:
            st.phase = "rest"
        return i, False

    def _on_next(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._on_head(st, s, pos, out, final)

    def _on_sep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i, run, hold = self._structural_ws(st, s, pos, out, final)
        if hold:
            return pos, True
        if i < len(s) and s[i] == ";":
            st.phase = "next"
            return i, False
        if i < len(s) and s[i] == "{" and "\n" in run:
            st.phase = "head"  # the header (whitespace included) is content if it fails
            return pos, False
        self._content(st, out, run)
        if i < len(s):
            st.phase = "rest"
        return i, False

