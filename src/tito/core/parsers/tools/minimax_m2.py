"""``minimax_m2``: MiniMax-M2 tool calls.

Format (MiniMax-M2's template)::

    TEXT <minimax:tool_call>
    <invoke name="NAME">
    <parameter name="KEY">VALUE</parameter>
    </invoke>
    </minimax:tool_call> TEXT

Grammar (phases and shared rules in :mod:`._xml`): ``<minimax:tool_call>`` opens a section of
``<invoke name=...>...</invoke>`` calls; an ``<invoke name=`` in plain text also starts a call
(as vLLM). NAME and KEY are double-quoted, single-quoted or bare (then up to ``>``), stripped,
non-empty (NAME's quotes may be missing or mismatched, as vLLM's engine reads them: a quote
only right after ``name=`` or right before ``>``; a KEY whose quote does not close before its
``>`` is the text up to the first ``>``, quotes kept); VALUE runs to ``</parameter>`` or the next
``<parameter name=``, verbatim (no trimming, as vLLM), typed from the tool schema
(:mod:`._schema`). The parameter tags may hold whitespace, as vLLM's ``_PARAM_RE`` reads them:
``<\s*parameter\s+name\s*=`` and ``<\s*/\s*parameter\s*>`` (:mod:`._xml_markers`; session 50,
``minimax_m2/fz50_spaced_*``). Tool names are checked against the request's tools as vLLM
does: a call of an unknown tool is content (vLLM drops it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._json import skip_ws
from tito.core.parsers.tools._xml_head import BAD, HeadResult, open_header, quoted_attr, up_to
from tito.core.parsers.tools._xml_markers import WS, WS1, Spelling, spelling


@dataclass(frozen=True)
class MinimaxM2Parser(XmlCallParser):
    name: ClassVar[str] = "minimax_m2"
    structural_tag_model: ClassVar[str | None] = "minimax"
    section_start: ClassVar[str] = "<minimax:tool_call>"
    section_end: ClassVar[str] = "</minimax:tool_call>"
    call_open: ClassVar[str] = "<invoke name="
    call_close: ClassVar[str] = "</invoke>"
    param_open: ClassVar[str] = "<parameter name="
    param_close: ClassVar[str] = "</parameter>"
    validate_names: ClassVar[bool] = True
    spellings: ClassVar[Mapping[str, Spelling]] = {
        "<parameter name=": spelling("<", WS, "parameter", WS1, "name", WS, "="),
        "</parameter>": spelling("<", WS, "/", WS, "parameter", WS, ">"),
    }

    def _name(self, h: str) -> HeadResult:
        # vLLM's engine: an optional quote of either kind, NAME up to the first ``>``, an
        # optional quote of either kind before it (``name=get_weather">``, ``name="get_weather>``,
        # ``name='get_weather">`` name get_weather, batch and stream; fuzz seed 36,
        # ``minimax_m2/fz38_*``)
        j = h.find(">")
        if j == -1:
            return open_header(h, ">")
        # (only a quote right after ``name=`` / right before ``>``: ``name= "get_weather" >``
        # keeps its quotes, no tool, as in vLLM)
        name = h[:j]
        name = name[1:] if name[:1] in "\"'" else name
        name = (name[:-1] if name[-1:] in "\"'" else name).strip()
        return ("ok", j + 1, name, "") if name and "<" not in name else BAD

    def _key(self, h: str) -> HeadResult:
        # vLLM's engine: a quoted key is any text to its closing quote, then ``>`` (``"a>b"``:
        # ``a>b``); a quote that does not close so makes the key the text up to the first
        # ``>``, quotes kept (``name="days>``: ``"days``, ``name="ci"ty">``; fuzz seed 165)
        got = quoted_attr(h, 0, ">")
        i = skip_ws(h, 0)
        if got[0] == "bad" and h[i] in "\"'":  # (bad: a quote closed, not an empty one, then
            if h[i + 1 : h.find(h[i], i + 1)].strip():  # not ``>``; an empty key stays none)
                return self._key_unclosed(h)
        return got

    def _key_unclosed(self, h: str) -> HeadResult:
        return up_to(h, ">")

    def _cut_name(self, h: str) -> str:
        # vLLM's name starts after ``name="``, ``name='`` or ``name=``
        return (h[1:] if h[:1] in "\"'" else h).strip()
