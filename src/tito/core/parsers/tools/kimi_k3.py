"""``kimi_k3``: Kimi K3's XTML channels: the ``response`` channel is content, ``tools`` the calls.

Format (vLLM 0.33's ``KimiK3ToolParser``; ``<|open|>``, ``<|close|>``, ``<|sep|>`` are special
tokens, the channel names ordinary text)::

    <|open|>response<|sep|>TEXT<|close|>response<|sep|>
    <|open|>tools<|sep|>
      <|open|>call tool="NAME" index="1"<|sep|>
        <|open|>argument key="KEY" type="TYPE"<|sep|>VALUE<|close|>argument<|sep|> ...
      <|close|>call<|sep|> ...
    <|close|>tools<|sep|><|close|>message<|sep|>

Grammar (phases and shared rules in :mod:`._xml`): the ``response`` channel's markers and the
message's closer are dropped wherever they stand in the text (the template may have written the
opener as the generation prefix); ``<|open|>tools<|sep|>`` opens a section of calls (a call
outside a section is text). A call header is ``<|open|>call``, whitespace, attributes up to the
first ``<|sep|>``; NAME is its ``tool="..."`` attribute (``&quot;`` and ``&amp;`` unescaped, as
vLLM's encoder escaped them); a header without one is not a call. Text in a section that is no
call (a misspelt ``<|open>call``, a header without ``tool``) is content and the section goes on
(``section_goes_on``): a later ``<|open|>call`` is still a call, up to ``<|close|>tools<|sep|>``
(dropped), as vLLM's regex finds every call of the section (fuzz seed 24, ``kimi_k3/fz36_*``).
An argument header is ``<|open|>argument``, whitespace, attributes (``key``, ``type``:
``string`` when absent) up to ``<|sep|>``; VALUE runs verbatim to ``<|close|>argument<|sep|>``.
A ``string`` value is the raw text; any other type is its JSON re-serialized (``json.dumps``),
or the raw text as a string when it is not JSON (vLLM's fallback). Arguments are ``json.dumps``
of the dict, as vLLM's.

Where vLLM differs (``docs/conformance.md``; tito keeps stream == batch and never loses text):
- vLLM emits a call only once ``<|close|>call<|sep|>`` came (both paths): a call cut by the end
  of the output is dropped there; tito keeps it with the arguments so far (``truncated_call``);
- vLLM keeps only the ``response`` channel's body as content (text before its opener or after
  its closer is dropped); tito keeps that text;
- a typed value longer than :data:`._base.VALUE_LIMIT` characters commits before its end: raw
  JSON text when it starts like an object or array, else a string (vLLM re-serializes it);
- vLLM tolerates whitespace inside the markers (``<|open|> tools <|sep|>``, a serving path that
  spaces special tokens); tito reads the markers as the model writes them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import scan_to
from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult

OPEN, CLOSE, SEP = "<|open|>", "<|close|>", "<|sep|>"
#: content markers dropped from the text (the response channel's wrapper, the message closer)
DROPPED = (f"{OPEN}response{SEP}", f"{CLOSE}response{SEP}", f"{CLOSE}message{SEP}")
_ATTR = re.compile(r'(\w+)="([^"]*)"')


def attributes(text: str) -> dict[str, str]:
    """An XTML header's ``key="value"`` attributes, unescaped (the last of a repeated key)."""
    return {k: v.replace("&quot;", '"').replace("&amp;", "&") for k, v in _ATTR.findall(text)}


def _header(h: str) -> tuple[int, dict[str, str]] | None:
    """``h`` (right after ``<|open|>call`` / ``<|open|>argument``): whitespace, attributes, then
    ``<|sep|>``: (end index, attributes); None while undecided; ``(-1, {})`` when not one."""
    if not h:
        return None
    if not h[0].isspace():
        return -1, {}
    j = h.find(SEP)
    if j == -1:
        return None
    return j + len(SEP), attributes(h[:j])


@dataclass(frozen=True)
class KimiK3Parser(XmlCallParser):
    name: ClassVar[str] = "kimi_k3"
    structural_tag_model: ClassVar[str | None] = "kimi_k3"
    #: vLLM's ``supports_required_and_named = False``: required output is the model's own calls
    forced_calls: ClassVar[str] = "native"
    #: vLLM's adjust_request turns skip_special_tokens off with and without tools
    engine_reads_special_without_tools: ClassVar[bool] = True
    #: ... and turns spaces_between_special_tokens off with it
    engine_joins_special: ClassVar[bool] = True
    section_start: ClassVar[str] = f"{OPEN}tools{SEP}"
    section_end: ClassVar[str] = f"{CLOSE}tools{SEP}"
    call_open: ClassVar[str] = f"{OPEN}call"
    call_close: ClassVar[str] = f"{CLOSE}call{SEP}"
    param_open: ClassVar[str] = f"{OPEN}argument"
    param_close: ClassVar[str] = f"{CLOSE}argument{SEP}"
    bare_calls: ClassVar[bool] = False
    open_ends_value: ClassVar[bool] = False
    section_goes_on: ClassVar[bool] = True  # vLLM reads every call of the section

    @property
    def marker_tokens(self) -> tuple[str, ...]:  # type: ignore[override]
        """The special tokens the markers are written with."""
        return (OPEN, CLOSE, SEP)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        markers = (*self._starts(st), *DROPPED)
        hit, marker, stop = scan_to(s, markers, pos, final)
        if hit == -1:
            self._content(st, out, s[pos:stop])
            return stop, stop < len(s)
        if marker in DROPPED:
            self._content(st, out, s[pos:hit])
            return hit + len(marker or ""), False  # a channel marker: dropped
        return super()._on_text(st, s, pos, out, final)  # a section, a call in one, its end

    def _name(self, h: str) -> HeadResult:
        head = _header(h)
        if head is None:
            return NEED
        end, attrs = head
        name = attrs.get("tool", "")
        return ("ok", end, name, "") if end > 0 and name else BAD

    def _cut_name(self, h: str) -> str:
        return ""  # vLLM emits no call before its closer: a cut header is dropped markup

    def _key(self, h: str) -> HeadResult:
        head = _header(h)
        if head is None:
            return NEED
        end, attrs = head
        if end < 0:
            return BAD
        return "ok", end, attrs.get("key", ""), attrs.get("type", "string")

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        return "s" if attr == "string" else "b"

    def _typed(self, st: Work, text: str) -> str:
        try:
            return json.dumps(json.loads(text), ensure_ascii=False)
        except ValueError:
            return json.dumps(text, ensure_ascii=False)
