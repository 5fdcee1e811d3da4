"""``inkling``: the JSON calls of Inkling's typed tool blocks.

Format (vLLM 0.33's ``vllm/parser/inkling.py``; every marker is a special token)::

    <|content_invoke_tool_json|>{"name": "NAME", "args": {ARGS}}<|end_message|>

This parser reads the *tool blocks*: the block router (:mod:`tito.core.parsers.inkling`)
decides which blocks are calls and feeds each one here, framed (opener, body, closer); used on
its own it reads the same framing out of any text (text outside a block is content). A block
ends at ``<|end_message|>`` or ``<|content_model_end_sampling|>`` wherever it stands, inside a
JSON string too (vLLM's lexer matches the marker before JSON is read); any other marker inside
a block is body text. The body is read as vLLM's engine reads it (``ParserEngine``
``_try_extract_name``, ``_inkling_arg_converter``), not as strict JSON:

- NAME is the first match of ``"name"\\s*:\\s*"([^"]*)"`` anywhere in the body (inside the
  arguments too: ``{"args": {"name": "x"}, "name": "f"}`` names ``x``), stripped (vLLM's
  batch); no match, or an empty or blank NAME, makes no call and the block is dropped;
- ARGS is the first top-level ``"args"`` member (a key at brace/bracket depth 1 of the body,
  followed by ``:``) when its value is an object: its text verbatim, from ``{`` to its matching
  ``}`` (braces counted outside strings), streamed as it comes; without such a member the
  arguments are ``{}``; the body after the arguments is ignored.

Phases: ``text`` (content up to an opener) -> ``head`` (the body held until NAME matches)
-> ``wrap`` (the wrapper object scanned for the ``args`` key) -> ``val`` (whitespace before
its value) -> ``args`` (the object streamed) -> ``skip`` (the rest of the body); ``drop``: a
block without a name, skipped. The scanner keeps ``depth`` (with ``insec``: the wrapper's depth
below zero, vLLM's counter is signed), ``in_str`` / ``esc``, in ``key`` the current depth-1
string's first characters and in ``expect`` whether the last depth-1 string was ``args``.

Where tito differs (``docs/conformance.md``, ``tests/goldens/parser_deviations.py``):
- NAME must match within :data:`._base.HEADER_LIMIT` characters of the body (the held header);
  a block whose name comes later is dropped (vLLM holds the whole body until it finds one);
- an ``args`` value that is not an object gives ``{}`` (vLLM's batch falls back to
  ``json.dumps`` of the whole body's ``args``, its stream sends ``""``: ``inkling_args_*``);
- arguments are the model's text; vLLM's batch re-types values from the request's schema and
  re-serializes them (``batch_reserializes``; its stream then stops short of the end).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first, scan_to
from tito.core.parsers.tools._base import HEADER_LIMIT, Out, ToolParser, Work

OPEN = "<|content_invoke_tool_json|>"
END_MESSAGE = "<|end_message|>"
END_SAMPLING = "<|content_model_end_sampling|>"
CLOSERS = (END_MESSAGE, END_SAMPLING)
#: vLLM's ``ParserEngine._NAME_RE``
_NAME = re.compile(r'"name"\s*:\s*"([^"]*)"')
_JSON_WS = " \t\n\r"
#: the characters the argument scanner reacts to (outside / inside a string)
_ARGS_OUT = re.compile(r'[{}"]')
_ARGS_IN = re.compile(r'["\\]')


@dataclass(frozen=True)
class InklingParser(ToolParser):
    name: ClassVar[str] = "inkling"
    first_phase: ClassVar[str] = "text"
    #: vLLM's ``supports_required_and_named = False`` (no structural tag): required / named
    #: read as auto, no constraint
    forced_calls: ClassVar[str] = "native"
    #: vLLM's engine ``adjust_request`` turns skip_special_tokens off whatever the request
    engine_reads_special: ClassVar[bool] = True
    engine_reads_special_without_tools: ClassVar[bool] = True
    marker_tokens: ClassVar[tuple[str, ...]] = (OPEN, END_MESSAGE, END_SAMPLING)

    # -- phases ---------------------------------------------------------------------------------

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        hit, _, stop = scan_to(s, (OPEN,), pos, final)
        self._content(st, out, s[pos:stop])
        if hit == -1:
            return stop, stop < len(s)
        st.phase = "head"
        st.depth, st.insec, st.in_str, st.esc, st.key, st.expect = 0, False, False, False, "", ""
        return hit + len(OPEN), False

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        hit, _ = find_first(s, CLOSERS, pos)
        body = s[pos: hit if hit != -1 else len(s)]
        m = _NAME.search(body[:HEADER_LIMIT])  # (the same window for every chunking)
        if m is not None:
            name = m.group(1).strip()
            if not name:
                st.phase = "drop"  # vLLM: the first match decides, an empty one names nothing
                return pos, False
            self._start_call(st, out, name)
            st.depth, st.insec, st.key, st.expect = 0, False, "", ""
            st.phase = "wrap"  # the body is scanned again from its start (held: bounded)
            return pos, False
        if hit != -1:  # closed without a name: no call, the block is dropped
            st.phase = "text"
            return hit + len(_closer(s, hit)), False
        if final:
            st.phase = "text"
            return len(s), False
        if len(body) <= HEADER_LIMIT:
            return pos, True
        st.phase = "drop"  # no name within the header limit: no call (module header)
        return pos, False

    def _on_drop(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._skip(st, s, pos, final, call=False)

    def _on_skip(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._skip(st, s, pos, final, call=True, out=out)

    def _on_wrap(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        end, hold = _limit(s, pos, final)
        i = pos
        while i < end:
            c = s[i]
            i += 1
            if st.esc:
                st.esc = False
            elif st.in_str:
                if c == "\\":
                    st.esc = True
                elif c == '"':
                    st.in_str = False
                    if st.depth == 1 and not st.insec:
                        st.expect = "args" if st.key == '"args' else ""
                if st.in_str and st.depth == 1 and not st.insec and len(st.key) < 6:
                    st.key += c  # (the string's raw first characters, its quote included)
            elif c == '"':
                st.in_str, st.key = True, '"'
            elif c == ":" and st.depth == 1 and not st.insec and st.expect == "args":
                st.phase = "val"
                return i, False
            elif c in "{[":
                if st.insec:
                    st.depth -= 1
                    st.insec = st.depth > 0
                else:
                    st.depth += 1
            elif c in "}]":
                if st.insec or st.depth == 0:
                    st.depth += 1
                    st.insec = True
                else:
                    st.depth -= 1
        return self._at_limit(st, s, end, hold, out)

    def _on_val(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        end, hold = _limit(s, pos, final)
        i = pos
        while i < end and s[i] in _JSON_WS:
            i += 1
        if i < end:
            if s[i] == "{":
                st.phase, st.depth, st.in_str, st.esc = "args", 0, False, False
            else:
                st.phase = "skip"  # not an object (vLLM: ValueError): arguments {}
            return i, False
        return self._at_limit(st, s, end, hold, out)

    def _on_args(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        end, hold = _limit(s, pos, final)
        i = pos
        while i < end:
            if st.esc:  # the escaped character, whatever it is
                st.esc = False
                i += 1
                continue
            m = (_ARGS_IN if st.in_str else _ARGS_OUT).search(s, i, end)
            if m is None:
                break
            c, i = m.group(), m.end()
            if st.in_str:
                if c == "\\":
                    st.esc = True
                else:
                    st.in_str = False
            elif c == '"':
                st.in_str = True
            elif c == "{":
                st.depth += 1
            elif st.depth > 0:
                st.depth -= 1
                if st.depth == 0:  # the object closed: the rest of the body is ignored
                    out.args(st, s[pos:i])
                    st.phase = "skip"
                    return i, False
        out.args(st, s[pos:end])
        return self._at_limit(st, s, end, hold, out)

    # -- helpers --------------------------------------------------------------------------------

    def _at_limit(self, st: Work, s: str, end: int, hold: bool, out: Out) -> tuple[int, bool]:
        """The scan reached ``end``: a closer (the call ends), a held closer prefix, or the
        text's end."""
        if end < len(s) and not hold:
            self._close(st, out)
            return end + len(_closer(s, end)), False
        return end, hold

    def _skip(self, st: Work, s: str, pos: int, final: bool, *, call: bool,
              out: Out | None = None) -> tuple[int, bool]:
        end, hold = _limit(s, pos, final)
        if end < len(s) and not hold:
            if call and out is not None:
                self._close(st, out)
            else:
                st.phase = "text"
            return end + len(_closer(s, end)), False
        return end, hold

    def _close(self, st: Work, out: Out) -> None:
        """The block ends with its call open: arguments ``{}`` when none were read."""
        if st.phase in ("wrap", "val", "skip", "args") and st.args_sent == 0:
            out.args(st, "{}")
        self._end_call(st)
        st.insec, st.key, st.expect = False, "", ""
        st.phase = "text"

    def _finish(self, st: Work, out: Out) -> None:
        cut = self._is_open(st)
        if st.phase in ("wrap", "val", "args", "skip"):
            self._close(st, out)  # the end of the output ends the block, as vLLM's engine
        elif st.phase in ("head", "drop"):
            st.phase = "text"  # no name: no call
        super()._finish(st, out)
        st.truncated = cut

    def _is_open(self, st: Work) -> bool:
        return st.phase in ("wrap", "val", "args")


def _limit(s: str, pos: int, final: bool) -> tuple[int, bool]:
    """Where the block's body ends in ``s[pos:]``: (the closer's index, False), or (the index
    of a trailing closer prefix held back, True), or (``len(s)``, False)."""
    hit, _, stop = scan_to(s, CLOSERS, pos, final)
    return stop, hit == -1 and stop < len(s)


def _closer(s: str, at: int) -> str:
    return END_MESSAGE if s.startswith(END_MESSAGE, at) else END_SAMPLING
