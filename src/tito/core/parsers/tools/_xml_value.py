"""How an XML-ish format's parameter value becomes argument JSON (:mod:`._xml`'s value phases).

A value is the text between a parameter's key header and its end marker. Whether it streams or
waits is decided by its type code (:meth:`XmlValueParser._value_code`, from the request's tool
schema through :mod:`._schema`):

``vstr``
    A value that can only be a string streams at once, JSON-escaped per character (so any
    chunking joins to the batch text), between the quotes this module writes.
``vbuf``
    A typed value is buffered in ``val`` (up to :data:`VALUE_LIMIT` characters) and written
    typed at its end (:meth:`XmlValueParser._typed`). Past the limit it commits: raw JSON
    (``vraw``) when it may be an object or array and starts like one, else a string (``vstr``).
``vraw``
    The committed raw JSON, streamed verbatim.

``trim_newlines`` (Qwen3): one leading and one trailing ``\\n`` are markup; the trailing one
waits in ``val`` until the next character shows it is not the last.

Why a module of its own: the phase machine (:mod:`._xml`) decides *where* a value starts and
ends; this class owns *what* its text becomes, the part the formats override most (DSML's
wrapper parameter, step3's and gemma4's strings, every format's typing).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from tito.core.parsers._text import ASCII_WS
from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import VALUE_LIMIT, Out, ToolParser, Work


def _esc(text: str) -> str:
    """JSON string body of ``text`` (per character, so pieces join to the whole)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


@dataclass(frozen=True)
class XmlValueParser(ToolParser):
    """The value codec of :class:`._xml.XmlCallParser` (see the module header)."""

    trim_newlines: ClassVar[bool] = False
    #: ``{tool: {param: node}}`` from the request's tools (:mod:`._schema`); None: none
    tool_params: Mapping[str, Mapping[str, Any]] | None = None

    def _value_code(self, st: Work, key: str, attr: str) -> str:
        """The value's type code: ``"s"`` streams as a string, ``"b" + letters`` is buffered
        and typed (:func:`._schema.coerce`)."""
        code = _schema.letters_of(self._node(st, key))
        return "s" if code is None or code == "s" else "b" + code

    def _node(self, st: Work, key: str) -> Any:
        """The open call's schema node of parameter ``key`` (None: no schema)."""
        return self.tool_params.get(st.fn, {}).get(key) if self.tool_params else None

    def _typed(self, st: Work, text: str) -> str:
        """JSON of a buffered value at its end."""
        return _schema.dumps(_schema.coerce(text, st.vt[1:]))

    def _begin_value(self, st: Work, out: Out, key: str, attr: str) -> None:
        """A value's phase begins: a string streams (``vstr``), a typed value is buffered."""
        st.vt = self._value_code(st, key, attr)
        st.val = ""
        st.vs = False
        if st.vt == "s":
            out.args(st, '"')
            st.phase = "vstr"
        else:
            st.phase = "vbuf"

    def _feed(self, st: Work, out: Out, text: str) -> None:
        """Value text (no end marker in it) for the open value."""
        if not text:
            return
        if self.trim_newlines and not st.vs:
            text = text.removeprefix("\n")
        st.vs = True
        if st.phase != "vbuf":
            self._stream(st, out, text)
            return
        st.val += text
        if len(st.val) <= VALUE_LIMIT:
            return
        buffered, st.val = st.val, ""
        # decided on the value's first VALUE_LIMIT + 1 characters, whatever the chunking (a
        # batch has the whole value here; a stream commits as soon as the limit is passed)
        body = buffered[: VALUE_LIMIT + 1].lstrip(ASCII_WS)
        json_like = st.vt[:1] == "j" or st.vt[1:] == "" or any(c in st.vt[1:] for c in "oa")
        if json_like and body[:1] in ("{", "["):
            st.phase = "vraw"
        else:
            st.phase = "vstr"
            out.args(st, '"')
        self._stream(st, out, buffered)

    def _stream(self, st: Work, out: Out, text: str) -> None:
        """Streamed value text: JSON-escaped (``vstr``) or raw JSON (``vraw``); with
        ``trim_newlines`` a trailing ``\n`` waits in ``val`` (it may be the markup's)."""
        if self.trim_newlines:
            text = st.val + text
            st.val = "\n" if text.endswith("\n") else ""
            text = text[: len(text) - len(st.val)]
        out.args(st, _esc(text) if st.phase == "vstr" else text)

    def _end_value(self, st: Work, out: Out) -> None:
        if st.phase == "vstr":
            out.args(st, '"')
        elif st.phase == "vbuf":
            text = st.val
            if self.trim_newlines:
                text = text.removesuffix("\n")
            out.args(st, self._typed(st, text))
        st.val = ""
        st.vt = ""
        st.vs = False
