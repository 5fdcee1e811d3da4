"""``gemma4``: Google Gemma 4 tool calls, in Gemma's own argument language.

Format (Gemma 4's template; the markers and the string quote ``<|"|>`` are special tokens)::

    TEXT <|tool_call>call:NAME{KEY:VALUE,KEY:VALUE}<tool_call|> TEXT <|tool_call>...

    VALUE  := <|"|>TEXT<|"|>            a string, verbatim (no escapes)
            | {KEY:VALUE,...}           an object
            | [VALUE,...]               an array
            | BARE                      text up to the next , } or ] (stripped): 42, true, null
    KEY    := TEXT up to ':' (stripped; <|"|>KEY<|"|> loses its quotes)

Grammar, as vLLM 0.33's ``Gemma4Parser`` reads it (``vllm/parser/gemma4.py``): the header is
``<|tool_call>``, anything up to the first ``:`` (``call:``, or a bare ``:``), the NAME (stripped,
non-empty) up to ``{`` or ``(`` (then the closer is ``)``) or ``<tool_call|>`` (a call without
arguments: ``{}``). Separators ``,`` and whitespace between members and items are skipped. Every
leaf (string or bare) is text; vLLM types the leaves from the request's tool schema
(``_fix_arg_types``, :mod:`._schema`): a member by its property's schema, nested objects by their
``properties``, array items by ``items``; a leaf without a schema stays a string (so an unknown
tool's ``count:42`` is ``"42"``). Arguments are ``json.dumps`` of that typed object.

Phases (the shared value phases ``vstr``/``vbuf``/``vraw`` are :mod:`._xml`'s; what a leaf's text
becomes, its schema node included, is :mod:`.gemma4_leaves`'s):

``text``
    Content; ``<|tool_call>`` -> ``name``; a stray ``<tool_call|>`` is dropped (vLLM absorbs it).
``name``
    The header, held in ``buf`` up to :data:`HEADER_LIMIT`; a header that does not parse (no
    ``:``, an empty NAME, too long) gives back ``<|tool_call>`` as content; one cut by the end of
    the output is a call named with what came of NAME (arguments ``{}``), or nothing when no
    NAME came (vLLM's engine, as for the other engine formats).
``args``
    A member or item position: separators skipped; in an object ``KEY:`` (held up to
    :data:`HEADER_LIMIT`) -> ``val``; a closer (``}``, ``]``, ``)``) ends the innermost
    container (the outermost: -> ``tail``); ``<tool_call|>`` ends the call (consumed). An array
    ends at its ``]`` only: vLLM finds an array's extent by its brackets alone, so a ``}`` in
    it is an item's text (``[a}b, }]``: ``["a}b", "}"]``; parser fuzz seed 131). A value's
    comma and key are written with the value (:meth:`Gemma4Parser._open_leaf`), not before it.
``val``
    A value's first character: ``<|"|>`` -> ``vstr`` (a string-typed leaf streams escaped) or
    ``vbuf`` (a typed leaf waits for its end, :data:`VALUE_LIMIT`); ``{`` / ``[`` open a
    container; anything else -> ``bare``.
A string whose closing ``<|"|>`` is missing or misspelt runs to the call's ``<tool_call|>``:
as vLLM's engine (``_drop_call_closer``: the call's body is stripped and one ``}``, the call's
closer, dropped before it is read), its trailing whitespace and one ``}`` before the marker are
not its text (held in ``ws`` while they may be: their last :data:`WS_LIMIT` characters).
``bare`` / ``bstr``
    A bare leaf, buffered up to its terminator (``,``, ``}``, ``]``, and ``)`` in a ``(`` call)
    and written typed; past :data:`VALUE_LIMIT` it streams as a string (``bstr``, trailing
    whitespace held in ``ws``). Partial leaves (session 45): vLLM's engine strips the call's
    body, drops one ``}`` (the call's closer) and reads every container left open as partial,
    which drops a bare leaf or a ``KEY:`` at its end (the outermost object's is kept): a bare
    leaf (or ``KEY:``) of a nested container that the call's end (``<tool_call|>`` or the
    output's) cuts is dropped, comma and key with it (``tags:[1}``: ``[]``).
``bend``
    A bare member of a nested object ended by ``}``: only whitespace and the call's end after
    it, and the ``}`` was the call's closer, the member partial and dropped
    (``options:{x:true}<tool_call|>``: ``{"options": {}}``); anything else, and the ``}``
    closed the object. The whitespace is consumed, not held.
``drop``
    A KEY past :data:`HEADER_LIMIT` with no ``:`` (none in the text yet, or only further on):
    the arguments end there and the text is dropped up to the call's ``<tool_call|>``, a
    ``<|tool_call>`` included, as the batch does with all the text in view (whitespace sweep
    seed 43: ended at the opener, the stream made two calls where the batch made one; vLLM's
    engine makes one call in both paths, its key unbounded). The only hold is a prefix of the
    ``<tool_call|>``.
``tail``
    After the outermost closer: text up to ``<tool_call|>`` is dropped (vLLM ignores it); a
    ``<|tool_call>`` there ends the call too and starts the next (a misspelt ``<too_call|>``:
    vLLM reads the text after the closer as more members, the next call's header and members
    merged into this call, ``gemma4_after_args``; tito loses neither call).

State: the containers open in ``stack`` (``O``/``o`` object, ``A``/``a`` array, ``P``/``p``
the outermost in ``(`` form; upper case: nothing written in it yet), the schema path of the
typed ones in ``key`` (JSON list), the member's key in ``tok``. At most 62 nested containers
(deeper nesting ends the arguments there, closed); a key longer than :data:`HEADER_LIMIT` does too.

Differences from vLLM (documented in docs/conformance.md): vLLM's stream keeps a NAME's
surrounding spaces (its batch strips them: tito strips); an empty NAME makes vLLM drop the call
with its text (tito: the text is content); a repeated key is written twice (vLLM's batch keeps the
first position with the last value; its stream breaks); a bare leaf past :data:`VALUE_LIMIT`
characters is written as it comes, so one the call's end cuts in a nested container is kept
(vLLM drops it); in a partial container vLLM also stops at a bare leaf ending in ``.``
(``[1., 2}``: ``[]``), where tito keeps every leaf before the cut one (known only at the call's
end: not O(1)); ``KEY:`` followed at once by
``,`` is ``""`` (vLLM drops the rest of that object); text after the outermost closer that holds a
``:`` is dropped (vLLM's batch reads it as more members).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first, is_proper_prefix, scan_to
from tito.core.parsers.tools._base import HEADER_LIMIT, Out, Work
from tito.core.parsers.tools._xml import XmlCallParser
from tito.core.parsers.tools.gemma4_leaves import VALUE_PHASES, Gemma4Leaves

START = "<|tool_call>"
END = "<tool_call|>"
QUOTE = '<|"|>'
_SKIP = " ,\n\t"  # vLLM's separators between members / items
_VALUE_WS = " \n\t"  # vLLM's whitespace after KEY:
_CLOSERS = "})]"
_MAX_STACK = 62


@dataclass(frozen=True)
class Gemma4Parser(Gemma4Leaves):
    name: ClassVar[str] = "gemma4"
    call_open: ClassVar[str] = START
    call_close: ClassVar[str] = END
    param_close: ClassVar[str] = QUOTE  # the string quote ends a string value (``_value``)
    open_ends_value: ClassVar[bool] = False
    engine_reads_special_without_tools: ClassVar[bool] = True
    #: vLLM 0.33's gemma4 parser reads ``required`` / named output in its own format and sends
    #: no constraint for them (``supports_required_and_named = False``, no structural tag)
    forced_calls: ClassVar[str] = "native"
    #: a closing marker in content is dropped (vLLM's gemma4 engine absorbs it)
    absorb_stray_end: ClassVar[bool] = True
    #: a header cut by the end of the output names a call (vLLM's engine; not its regexes)
    cut_calls: ClassVar[bool] = True

    @property
    def marker_tokens(self) -> tuple[str, ...]:  # type: ignore[override]
        return (self.call_open, self.call_close, self.param_close)

    # -- phases ----------------------------------------------------------------------------------

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        end = self.call_close
        markers = (self.call_open, end) if self.absorb_stray_end else (self.call_open,)
        i, hold = self._text_until(st, s, pos, out, final, markers, "name")
        if st.phase == "name" and s.startswith(end, i):  # a stray closer: absorbed
            st.phase = "text"
            return i + len(end), False
        return i, hold

    def _on_name(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        i = pos + len(self.call_open)
        h = s[i : i + HEADER_LIMIT + 1]
        colon = h.find(":")
        end = self.call_close
        end_at = h.find(end)
        hit, mark = (-1, None) if colon == -1 else find_first(h, ("{", "(", end), colon + 1)
        if colon != -1 and (end_at == -1 or colon < end_at) and hit != -1:
            name = h[colon + 1 : hit].strip()
            if name:
                self._start_call(st, out, name)
                st.fn = name
                st.key = st.tok = ""
                out.args(st, "{")
                st.stack = "O" if mark != "(" else "P"
                if mark == end:
                    self._close_all(st, out)
                    st.phase = "text"
                    return i + hit + len(end), False
                st.phase = "args"
                return i + hit + 1, False
        elif end_at == -1 and len(h) <= HEADER_LIMIT and len(s) - i <= HEADER_LIMIT:
            if not final:
                return pos, True
            if self.cut_calls:
                # a length cut inside the header: vLLM's engine names the call with what came
                # of the NAME (arguments {}), or drops the cut markup when no NAME came
                name = h[colon + 1 :].strip() if colon != -1 else ""
                if name:
                    self._start_call(st, out, name)
                    out.args(st, "{}")
                    self._end_call(st)
                st.phase = "text"
                return len(s), False
        self._content(st, out, self.call_open)  # not a call: the marker is text
        st.phase = "text"
        return i, False

    def _on_args(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        n = len(s)
        i = pos
        while i < n and s[i] in _SKIP:
            i += 1
        if s.startswith(self.call_close, i):
            self._close_all(st, out)
            st.phase = "text"
            return i + len(self.call_close), False
        if i == n or (not final and is_proper_prefix(s[i:], (self.call_close,))):
            if final:
                return n, False
            return i, i < n
        if s[i] in _CLOSERS and not (s[i] == "}" and st.stack[-1] in "Aa"):
            self._close_one(st, out)  # (an array ends at its ``]`` only: a ``}`` is an item)
            return i + 1, False
        if st.stack[-1] in "Aa":  # an array item (its comma waits for its value: _open_leaf)
            st.tok = ""
            st.phase = "val"
            return i, False
        colon, end_at = s.find(":", i), s.find(self.call_close, i)
        if colon == -1 or (end_at != -1 and end_at < colon) or colon - i > HEADER_LIMIT:
            if end_at != -1:  # a KEY without ':' before the end: dropped
                return end_at, False
            if final:
                return n, False
            if n - i <= HEADER_LIMIT:
                return i, True
            st.phase = "drop"  # a KEY past the bound: the arguments end here
            return i, False  # (drop holds a cut ``<tool_call|>`` at the end: ws sweep 67)
        st.tok = self._key(s[i:colon])  # (written with its value: _open_leaf)
        st.phase = "val"
        return colon + 1, False

    def _on_val(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        n = len(s)
        i = pos
        while i < n and s[i] in _VALUE_WS:
            i += 1
        if i == n or (not final and is_proper_prefix(s[i:], (self.param_close, self.call_close))):
            if not final:
                return i, i < n
        if s.startswith(self.param_close, i):
            self._open_leaf(st, out)
            self._begin_value(st, out, st.tok, "")
            return i + len(self.param_close), False
        if i < n and s[i] in "{[":
            self._open_leaf(st, out)
            if len(st.stack) >= _MAX_STACK:
                out.args(st, '""')
                st.phase = "tail"
                return i, False
            node = self._node(st, st.tok)
            typed = self._container_node(st) is not None and isinstance(node, Mapping)
            if typed:
                path = json.loads(st.key) if st.key else []
                seg = None if st.stack[-1] in "Aa" else st.tok
                key = json.dumps([*path, seg], ensure_ascii=False)
                st.key = key if len(key) <= HEADER_LIMIT else st.key
            out.args(st, s[i])
            st.stack += "O" if s[i] == "{" else "A"
            st.phase = "args"
            return i + 1, False
        st.vt = self._value_code(st, st.tok, "")
        st.val = ""
        st.phase = "bare"  # (opened when it ends: the call's end may drop it, _partial_leaf)
        return i, False

    def _on_bare(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        paren = st.stack in ("P", "p")  # the outermost ``(``: its ``)`` ends a bare leaf
        item = st.stack[-1] in "Aa"  # an array item runs to ``,`` or ``]`` (a ``}`` is text)
        stops = ((",", "]", self.call_close) if item
                 else (",", "}", "]", self.call_close, *((")",) if paren else ())))
        hit, marker, stop = scan_to(s, stops, pos, final)  # (only the call's end has a prefix)
        self._bare_text(st, out, s[pos:stop])
        if hit == -1 and not final:
            return stop, stop < len(s)
        if hit == -1 or marker == self.call_close:  # the call's (or the output's) end cuts it
            if item and not self.drops_call_closer and st.phase == "bare":
                body = st.val.rstrip()  # (functiongemma: the call's ``}`` is not the item's)
                st.val = body[:-1] if body.endswith("}") else st.val
            self._cut_leaf(st, out)
            st.phase = "args"
            return stop, False
        if marker == "}" and self.drops_call_closer and len(st.stack) > 1 and st.phase == "bare":
            st.phase = "bend"  # the call's closer, or the nested object's: what follows decides
            return stop + 1, False
        self._end_bare(st, out)
        st.phase = "args"
        return stop, False

    _on_bstr = _on_bare

    def _on_bend(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """A bare member of a nested object, ended by a ``}`` (its text in ``val``): vLLM's
        engine strips the call's body and drops one ``}``, the call's closer, before reading
        it, so a ``}`` that only whitespace and the call's end (or the output's) follow leaves
        the object open and the member partial, dropped; anything else there and the ``}``
        closed the object. The whitespace is consumed as it comes (no hold but a marker's
        prefix: a long run is O(1))."""
        n, i = len(s), pos
        while i < n and s[i].isspace():
            i += 1
        if i == n and not final:
            return i, False
        if not final and is_proper_prefix(s[i:], (self.call_close,)):
            return i, True
        if i == n or s.startswith(self.call_close, i):
            self._cut_leaf(st, out)  # dropped; the object stays open until the call closes
            st.phase = "args"
            return i, False
        self._end_bare(st, out)
        self._close_one(st, out)  # (nested: back to ``args``)
        return i, False

    def _on_drop(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """A KEY past :data:`HEADER_LIMIT` with no ``:``: dropped up to the call's end, as the
        batch drops it (which sees the whole text: no ``:`` within the bound, then the call's
        end); a ``<|tool_call>`` there is dropped too (vLLM's batch: one call)."""
        hit, _, stop = scan_to(s, (self.call_close,), pos, final)
        if hit == -1:
            return stop, stop < len(s)
        self._close_all(st, out)
        st.phase = "text"
        return hit + len(self.call_close), False

    def _on_tail(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        hit, marker, stop = scan_to(s, (self.call_close, self.call_open), pos, final)
        if hit == -1:
            return stop, stop < len(s)
        self._close_all(st, out)
        st.phase = "text"  # (a next call's ``<|tool_call>`` is read there)
        return hit + (len(marker) if marker == self.call_close else 0), False

    # -- pieces ----------------------------------------------------------------------------------

    def _key(self, raw: str) -> str:
        """A member's key from the text before its ``:``: stripped, quotes dropped."""
        key, q = raw.strip(), self.param_close
        if len(key) >= 2 * len(q) and key.startswith(q) and key.endswith(q):
            key = key[len(q) : -len(q)]
        return key

    def _open_leaf(self, st: Work, out: Out) -> None:
        """A value is written in the innermost container: its comma and, in an object, its key
        (held in ``tok`` until then, so that a partial leaf the call's end drops leaves none)."""
        self._sep(st, out)
        if st.stack[-1] not in "Aa":
            out.args(st, json.dumps(st.tok, ensure_ascii=False) + ": ")

    def _partial_leaf(self, st: Work) -> bool:
        """Whether the leaf open at the call's end is dropped: vLLM's engine reads a container
        the call's end leaves open as partial (``_parse_gemma4_args`` / ``_parse_gemma4_array``
        with ``partial=True``), which drops a bare leaf or a ``KEY:`` at its end (``tags:[1}``:
        ``[]``; ``a:{b:1}``: ``{"a": {}}``); the outermost object's is kept."""
        return (self.drops_call_closer and len(st.stack) > 1
                and st.phase in ("val", "bare", "bend"))

    def _cut_leaf(self, st: Work, out: Out) -> None:
        """The call's end comes inside a leaf: a partial one is dropped, any other ends (a
        ``KEY:`` and nothing is ``""``)."""
        if self._partial_leaf(st):
            st.val = st.ws = st.vt = ""
            return
        self._end_leaf(st, out)
        if st.phase == "val" and st.stack:
            self._open_leaf(st, out)
            out.args(st, '""')

    def _sep(self, st: Work, out: Out) -> None:
        """A member or item starts in the innermost container: a comma after the first."""
        top = st.stack[-1]
        if top.isupper():
            st.stack = st.stack[:-1] + top.lower()
        else:
            out.args(st, ", ")

    def _close_one(self, st: Work, out: Out) -> None:
        """The innermost container closes (the outermost: the arguments are complete)."""
        top = st.stack[-1]
        if len(st.stack) == 1:
            out.args(st, "}")
            st.stack = ""
            st.phase = "tail"
            return
        out.args(st, "}" if top in "Oo" else "]")
        st.stack = st.stack[:-1]
        path, depth = (json.loads(st.key) if st.key else []), len(st.stack) - 1
        if len(path) > depth:
            st.key = json.dumps(path[:depth], ensure_ascii=False) if depth else ""
        st.phase = "args"

    def _close_all(self, st: Work, out: Out) -> None:
        """The call ends: the open leaf and every open container are closed (valid JSON)."""
        self._cut_leaf(st, out)
        while st.stack:
            self._close_one(st, out)
        st.fn = st.key = st.tok = ""
        self._end_call(st)

    # -- end of output ---------------------------------------------------------------------------

    def _is_open(self, st: Work) -> bool:
        return st.phase in ("args", "val", "bare", "bstr", "bend", "drop", *VALUE_PHASES)

    def _finish(self, st: Work, out: Out) -> None:
        open_call = self._is_open(st)
        if open_call or st.phase == "tail":
            self._close_all(st, out)
            st.phase = "text"
        super(XmlCallParser, self)._finish(st, out)
        st.truncated = open_call

