"""``step3``: StepFun Step-3 tool calls (StepTML invokes inside DeepSeek-style call markers).

Format (vLLM 0.33's ``Step3ToolParser``; the ``｜`` markers are special tokens)::

    TEXT <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
    <steptml:parameter name="KEY">VALUE</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜> TEXT

Grammar (phases and shared rules in :mod:`._xml`): ``<｜tool_calls_begin｜>`` opens a section of
calls; a call's header is ``function<｜tool_sep｜>`` (optional, as vLLM's stream reads it; its
batch drops a call without it), anything without markup, then ``<steptml:invoke name="NAME">``;
its parameters run to ``<｜tool_call_end｜>`` (the ``</steptml:invoke>`` before it is markup
between parameters, dropped). KEY is the quoted name;
VALUE runs to ``</steptml:parameter>`` and is stripped of surrounding whitespace (a trailing run
is held until more text shows it is not trailing; only its last :data:`VALUE_LIMIT` characters).

Typing (vLLM's ``_cast_arguments``, not the shared schema typing): only a parameter whose schema
has one plain ``type`` is cast: ``integer`` -> ``int``, ``number`` -> ``float`` (``5`` is ``5.0``),
``boolean`` (``true`` / ``false``, any case), ``null``; a value that does not cast, and every
other parameter, is the stripped text. (tito reads the type from the schema's letters, so a
``anyOf`` of one type is cast too; vLLM leaves it text.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import VALUE_LIMIT, Out, Work
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_value import _esc
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult, up_to

SEP = "<｜tool_sep｜>"
INVOKE = '<steptml:invoke name="'


@dataclass(frozen=True)
class Step3Parser(XmlCallParser):
    name: ClassVar[str] = "step3"
    #: vLLM's step3 is no parser engine: skip_special_tokens off only with tools
    engine_reads_special_without_tools: ClassVar[bool] = False
    section_start: ClassVar[str] = "<｜tool_calls_begin｜>"
    section_end: ClassVar[str] = "<｜tool_calls_end｜>"
    call_open: ClassVar[str] = "<｜tool_call_begin｜>"
    call_close: ClassVar[str] = "<｜tool_call_end｜>"
    param_open: ClassVar[str] = '<steptml:parameter name="'
    param_close: ClassVar[str] = "</steptml:parameter>"
    open_ends_value: ClassVar[bool] = False
    bare_calls: ClassVar[bool] = False
    section_goes_on: ClassVar[bool] = True  # vLLM reads every call of a section
    header_markers: ClassVar[tuple[str, ...]] = (SEP,)

    def _name(self, h: str) -> HeadResult:
        # ``function<｜tool_sep｜>`` (and, in newer templates, the name again) before the invoke;
        # vLLM's stream reads the invoke wherever it stands in the call
        k = h.find(INVOKE)
        if k == -1:
            return NEED
        if "<" in h[:k].replace(SEP, ""):
            return BAD
        kind, end, name, _ = up_to(h[k + len(INVOKE) :], '">', strip=False)
        return (kind, k + len(INVOKE) + end, name, "") if kind == "ok" else (kind, 0, "", "")

    def _cut_name(self, h: str) -> str:
        return ""  # vLLM's regex parser makes no call of a header cut by the end (markup dropped)

    def _key(self, h: str) -> HeadResult:
        return up_to(h, '">', strip=False)

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        letters = _schema.letters_of(self._node(st, key))
        return "b" + letters if letters in ("i", "n", "b", "z") else "s"

    def _typed(self, st: Work, text: str) -> str:
        return _schema.dumps(_cast(text.strip(), st.vt[1:]))

    def _feed(self, st: Work, out: Out, text: str) -> None:
        if not st.vs:  # the value's leading whitespace is not part of it
            text = text.lstrip()
            if not text:
                return
        super()._feed(st, out, text)

    def _stream(self, st: Work, out: Out, text: str) -> None:
        """A streamed string's trailing whitespace waits in ``val`` (dropped at its end)."""
        text = st.val + text
        body = text.rstrip()
        st.val = text[len(body) :][-VALUE_LIMIT:]
        out.args(st, _esc(text[: len(text) - len(st.val)]))


def _cast(text: str, letter: str) -> Any:
    """vLLM's ``Step3ToolParser._cast_arguments`` for one stripped value and its plain type."""
    low = text.lower()
    if letter == "i":
        try:
            return int(text)
        except ValueError:
            return text
    if letter == "n":
        try:
            v = float(text)
        except ValueError:
            return text
        return v if math.isfinite(v) else text  # (vLLM writes NaN / Infinity: not JSON)
    if letter == "b":
        return low == "true" if low in ("true", "false") else text
    if letter == "z":
        return None if low == "null" else text
    return text
