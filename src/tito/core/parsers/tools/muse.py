"""``muse`` / ``musespark1x`` / ``muse_glimmer``: the ATEM calls inside a Muse tool channel.

Format (vLLM 0.33's ``MuseToolParser`` extraction rules, the HF export's response schema)::

    <atem:function_calls>
    <atem:invoke name="NAME">
    <atem:parameter name="KEY">VALUE</atem:parameter> ...
    </atem:invoke> ...
    </atem:function_calls>

This parser reads the *body of one tool channel*: the channel router
(:mod:`tito.core.parsers.muse`) decides which messages are tool channels and feeds their bodies
here, so an invoke written in a reasoning or answer message is never a call. Grammar (phases
and shared rules in :mod:`._xml`): ``<atem:function_calls>`` opens an optional section (an
invoke outside one is a call too, as vLLM's regex finds invokes anywhere in the channel). A
call header is ``<atem:invoke``, then (word boundary) attributes up to ``>``; NAME is the first
``name="..."`` (a header without one is not a call). ``NAME.NAME`` whose head is a tool of the
request is that tool (vLLM's ``_normalize_name``: the template renders a bare tool's recipient
as ``NAME.*``). A parameter header is ``<atem:parameter`` ... ``name="KEY"`` ... ``>``; VALUE
runs verbatim to ``</atem:parameter>``. A value whose schema type is ``string`` is the raw
text; any other is its JSON re-serialized when the whole value parses, else the raw text as a
string (vLLM's ``_decode_value``); ``muse_glimmer`` reads the schema for no value (vLLM's
``_preserve_string_parameters = False``: ``"42"`` of a string parameter is ``42``). Arguments
are ``json.dumps`` of the dict, as vLLM's.

Where vLLM differs (``docs/conformance.md``; tito keeps stream == batch and never loses text):
- vLLM makes a call only of a complete ``<atem:invoke>...</atem:invoke>``; an invoke cut by the
  end of its channel or of the output is a call with what came (``truncated_call``);
- a repeated key is written twice (vLLM keeps its first position and its last value);
- text of a tool channel outside the invokes is content (vLLM drops it: ``text_after_calls``);
- a typed value longer than :data:`._base.VALUE_LIMIT` characters commits before its end: raw
  JSON text when it starts like an object or array, else a string (vLLM re-serializes it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import Work
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult

#: Muse's message framing (the channel router's markers; special tokens of Muse's vocabulary)
FRAMING = ("<|start|>", "<|message|>", "<|eom|>", "<|eot|>")
_NAME = re.compile(r'\bname="([^"]+)"')


def _attr_header(h: str) -> tuple[int, str] | None:
    """``h`` (right after ``<atem:invoke`` / ``<atem:parameter``): a word boundary, then
    attributes up to ``>``: (end index, the first ``name`` attribute or ""); None while
    undecided; ``(-1, "")`` when this is no such tag (``<atem:invokes``)."""
    if not h:
        return None
    if h[0].isalnum() or h[0] == "_":
        return -1, ""
    j = h.find(">")
    if j == -1:
        return None
    m = _NAME.search(h[:j])
    return j + 1, m.group(1) if m else ""


@dataclass(frozen=True)
class MuseParser(XmlCallParser):
    name: ClassVar[str] = "muse"
    #: vLLM's ``supports_required_and_named = False``: required / named read as auto, no constraint
    forced_calls: ClassVar[str] = "native"
    #: vLLM's adjust_request turns skip_special_tokens off whatever the request
    engine_reads_special_without_tools: ClassVar[bool] = True
    section_start: ClassVar[str] = "<atem:function_calls>"
    section_end: ClassVar[str] = "</atem:function_calls>"
    call_open: ClassVar[str] = "<atem:invoke"
    call_close: ClassVar[str] = "</atem:invoke>"
    param_open: ClassVar[str] = "<atem:parameter"
    param_close: ClassVar[str] = "</atem:parameter>"
    open_ends_value: ClassVar[bool] = False

    @property
    def marker_tokens(self) -> tuple[str, ...]:  # type: ignore[override]
        """The framing markers, which must reach the channel router as text."""
        return FRAMING

    def _name(self, h: str) -> HeadResult:
        head = _attr_header(h)
        if head is None:
            return NEED
        end, name = head
        if end < 0 or not name:
            return BAD
        return "ok", end, self._registered(name), ""

    def _registered(self, name: str) -> str:
        """vLLM's ``_normalize_name``: ``T.T`` is ``T`` when ``T`` is a tool and ``T.T`` is not."""
        tools = self.tool_params
        if not tools or name in tools:
            return name
        head, sep, tail = name.partition(".")
        return head if sep and head == tail and head in tools else name

    def _cut_name(self, h: str) -> str:
        return ""  # vLLM makes no call before </atem:invoke>: a cut header is dropped markup

    def _key(self, h: str) -> HeadResult:
        head = _attr_header(h)
        if head is None:
            return NEED
        end, key = head
        return ("ok", end, key, "") if end > 0 and key else BAD

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        return "s" if _schema.letters_of(self._node(st, key)) == "s" else "b"

    def _typed(self, st: Work, text: str) -> str:
        try:
            return json.dumps(json.loads(text), ensure_ascii=False)
        except ValueError:
            return json.dumps(text, ensure_ascii=False)


@dataclass(frozen=True)
class MuseGlimmerParser(MuseParser):
    """Muse Glimmer's calls: every value JSON when it parses, whatever its schema type."""

    name: ClassVar[str] = "muse_glimmer"

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        return "b"
