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
call header is ``<atem:invoke``, then (word boundary) attributes; NAME is the first non-empty
``name="..."`` that starts before the header's first ``>`` (a header without one is not a
call), read to the next quote, ``>`` and newlines included, never past ``</atem:invoke>`` (vLLM's
``_NAME_RE``); the header ends at the first ``>`` or ``<`` after it, or where a
``<atem:parameter`` inside such a NAME starts (vLLM finds parameters anywhere in the invoke).
``NAME.NAME`` whose head is a tool of the request is that tool (vLLM's ``_normalize_name``: the
template renders a bare tool's recipient as ``NAME.*``). A parameter header is
``<atem:parameter`` ... ``name="KEY"`` (KEY read as NAME) ... up to the first ``>`` after KEY,
which must come before ``</atem:invoke>`` (vLLM's ``_PARAM_RE``); VALUE runs verbatim to
``</atem:parameter>``. A value whose schema type is ``string`` is the raw
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
#: where a ``name`` attribute starts (vLLM's ``\\bname="``)
_NAME_AT = re.compile(r'\bname="')
_BAD_SPAN = (-1, -1)
#: where an invoke's header ends after its name: its ``>``, or a ``<`` of what follows
_HEAD_END = re.compile(r"[<>]")


def _name_span(h: str, close: str) -> tuple[int, int] | None:
    """vLLM's ``\\b[^>]*?\\bname="([^"]+)"`` on ``h`` (the text right after ``<atem:invoke`` /
    ``<atem:parameter``): the span of the name, None while undecided, ``(-1, -1)`` when none.

    The attribute must start before the first ``>``, but its value runs to the next quote,
    ``>`` and newlines included (a value missing its closing quote swallows the text up to the
    next quote, as vLLM's regex reads it), yet never past ``close`` (the invoke's end: vLLM
    finds parameters inside one invoke). An empty value is skipped for a later attribute."""
    if not h:
        return None
    if h[0].isalnum() or h[0] == "_":  # no word boundary: another tag (``<atem:invokes``)
        return _BAD_SPAN
    gt = h.find(">")
    for m in _NAME_AT.finditer(h, 0, len(h) if gt == -1 else gt):
        a = m.end()
        q, c = h.find('"', a), h.find(close, a)
        if c != -1 and (q == -1 or c < q):
            return _BAD_SPAN  # the invoke ends inside the value: no later attribute can start
        if q == -1:
            return None
        if q > a:
            return a, q
    return None if gt == -1 else _BAD_SPAN


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
        """The invoke's name (:func:`_name_span`); the header ends at the first ``>`` or ``<``
        after it, or where a ``<atem:parameter`` inside a name missing its closing quote starts
        (vLLM finds parameters anywhere in the invoke, its header included)."""
        span = _name_span(h, self.call_close)
        if span is None:
            return NEED
        a, q = span
        if a < 0:
            return BAD
        name = h[a:q]
        k = name.find(self.param_open)
        if k != -1:
            return "ok", a + k, self._registered(name), ""
        m = _HEAD_END.search(h, q + 1)
        if m is None:
            return NEED
        return "ok", m.end() if m.group() == ">" else m.start(), self._registered(name), ""

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
        """The parameter's key (:func:`_name_span`); the header ends at the first ``>`` after
        it (vLLM's ``"[^>]*?>``), which must come before the invoke's end."""
        span = _name_span(h, self.call_close)
        if span is None:
            return NEED
        a, q = span
        if a < 0:
            return BAD
        g = h.find(">", q + 1)
        if g == -1:
            return NEED
        if h.find(self.call_close, q + 1, g + 1) != -1:
            return BAD
        return "ok", g + 1, h[a:q], ""

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
