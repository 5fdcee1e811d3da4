"""Gemma 4's leaves: the schema node of a value, and a string or bare leaf's text -> JSON.

:mod:`.gemma4` owns the call grammar and its phases (containers, keys, the tail); this module
holds :class:`Gemma4Leaves`, its base, which decides what one leaf becomes:

* its schema node (:meth:`Gemma4Leaves._node`): the member's property, or the array's ``items``,
  following the typed containers' path in ``key`` (a leaf without a schema stays a string, as
  vLLM's ``_fix_arg_types``);
* a quoted string (``<|"|>TEXT<|"|>``, :mod:`._xml_value`'s ``vstr`` / ``vbuf``): as vLLM's
  engine, a string whose closing quote is missing runs to ``<tool_call|>`` and loses the
  call's ``}`` and its trailing whitespace there, so they are held in ``ws`` (their last
  :data:`WS_LIMIT` characters: ``ws``'s bound) until the next text shows they are the string's;
* a bare leaf (``bare``): buffered to its terminator and written typed, or, past
  :data:`VALUE_LIMIT`, streamed as a string (``bstr``, trailing whitespace held in ``ws``).

Why a module of its own: the leaf codec is the part a format variant changes
(:mod:`.functiongemma` keeps the closer, ``drops_call_closer = False``); the grammar stays in
one place.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from tito.core.parsers._text import find_first
from tito.core.parsers.tools import _schema
from tito.core.parsers.tools._base import VALUE_LIMIT, WS_LIMIT, Out, Work
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools._xml_value import _esc

VALUE_PHASES = ("vstr", "vbuf", "vraw")
_CLOSER_TAIL = re.compile(r"\}?\s*\Z")  # what an unclosed string's end may drop


@dataclass(frozen=True)
class Gemma4Leaves(XmlCallParser):
    """The leaf codec of :class:`.gemma4.Gemma4Parser` (see the module header)."""

    #: an unclosed string loses the call's ``}`` and trailing whitespace at ``<tool_call|>``
    drops_call_closer: ClassVar[bool] = True

    # -- schema --------------------------------------------------------------------------------

    def _container_node(self, st: Work) -> Any:
        """The schema node of the innermost open container (the tool's map at the outermost),
        or None when it is untyped."""
        if not self.tool_params or st.fn not in self.tool_params:
            return None
        path = json.loads(st.key) if st.key else []
        if len(path) != len(st.stack) - 1:
            return None
        node: Any = {"p": self.tool_params[st.fn]}
        for seg in path:
            node = node.get("i") if seg is None else node.get("p", {}).get(seg)
        return node

    def _node(self, st: Work, key: str) -> Any:
        """The node of the value starting now: member ``st.tok`` or an array item."""
        parent = self._container_node(st)
        if not isinstance(parent, Mapping):
            return None
        if st.stack[-1] in "Aa":
            return parent.get("i")
        props = parent.get("p")
        return props.get(st.tok) if isinstance(props, Mapping) else None

    # -- leaves --------------------------------------------------------------------------------

    def _value(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        hit, marker = find_first(s, self._value_ends(), pos)
        if hit == -1 or marker != self.param_close or not self.drops_call_closer:
            return super()._value(st, s, pos, out, final)  # (the call's end: :meth:`_end_value`)
        self._feed(st, out, s[pos:hit])  # closed by its quote: the held tail is its text
        if st.phase == "vstr" and st.ws:
            out.args(st, _esc(st.ws))
        st.ws = ""
        XmlCallParser._end_value(self, st, out)
        st.phase = "args"
        return hit + len(marker), False

    def _stream(self, st: Work, out: Out, text: str) -> None:
        if st.phase != "vstr" or not self.drops_call_closer:
            super()._stream(st, out, text)
            return
        text = st.ws + text  # a "}" and trailing whitespace wait: the call's end may drop them
        m = _CLOSER_TAIL.search(text)
        start = len(text) if m is None else m.start()
        st.ws = text[max(start, len(text) - WS_LIMIT) :]  # (``ws``'s bound: session 42, seed 50)
        out.args(st, _esc(text[: len(text) - len(st.ws)]))

    def _end_value(self, st: Work, out: Out) -> None:
        """A value the call's end (or the output's) closes, not its quote: as vLLM, the body's
        trailing whitespace and one ``}`` are the call's (held in ``ws``, or in a typed
        value's buffer)."""
        if self.drops_call_closer and st.phase in ("vstr", "vbuf"):
            if st.phase == "vbuf":
                body = st.val.rstrip()
                st.val = body[:-1] if body.endswith("}") else body
            st.ws = ""
        super()._end_value(st, out)


    def _bare_text(self, st: Work, out: Out, text: str) -> None:
        if not text:
            return
        if st.phase == "bare":
            st.val += text
            if len(st.val) <= VALUE_LIMIT:
                return
            text, st.val = st.val.lstrip(), ""
            self._open_leaf(st, out)  # (past the bound it is kept: written as it comes)
            out.args(st, '"')
            st.phase = "bstr"
        text = st.ws + text
        body = text.rstrip()
        st.ws = text[len(body) :][-WS_LIMIT:]
        out.args(st, _esc(text[: len(text) - len(st.ws)]))

    def _end_bare(self, st: Work, out: Out) -> None:
        if st.phase == "bstr":
            out.args(st, '"')
        else:
            self._open_leaf(st, out)
            text = st.val.strip()
            out.args(st, _esc_json(text) if st.vt == "s" else _schema.dumps(
                _schema.coerce(text, st.vt[1:])))
        st.val = st.ws = st.vt = ""

    def _open_leaf(self, st: Work, out: Out) -> None:
        """A leaf is written: its separator and key first (the grammar's, :mod:`.gemma4`)."""
        raise NotImplementedError

    def _end_leaf(self, st: Work, out: Out) -> None:
        if st.phase in ("bare", "bstr"):
            self._end_bare(st, out)
        elif st.phase in VALUE_PHASES:
            self._end_value(st, out)



def _esc_json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
