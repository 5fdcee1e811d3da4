"""JSON pieces for the tool parsers: an O(1)-state incremental scanner and a call-header parser.

Scanner
=======

:func:`scan` walks JSON text and tracks only ``depth`` (open ``{``/``[``), ``in_str`` and
``esc`` (after a backslash in a string), stored in :class:`ToolState`. It finds where a value
that starts at depth 0 closes again, in time linear in the new text (``re`` jumps over string
bodies and plain characters), and stops early at "interrupt" characters outside strings so a
parser can look for its end marker (``</tool_call>`` inside unbalanced JSON). It does not
validate: mismatched brackets count alike, garbage outside strings passes through. That is the
price of streaming the arguments as raw text without buffering them.

Call headers
============

:func:`parse_object_header` decides, from the text of a call object's beginning, whether it is a
call and where its arguments start::

    [lead tokens] {"name": "NAME", ["other": value, ...] "arguments": {   <- COMMIT here

Rules: keys may come in any order; when ``"name"`` (a non-empty JSON string) precedes
``"arguments"``/``"parameters"`` the arguments stream; when they come first (``{"arguments":
{...}, "name": "f"}``, in vLLM's mistral and granite test cases) the whole object must fit in
the header window (:data:`._base.HEADER_LIMIT`) and the call is CLOSED with their text (a longer
one is not a call: streaming arguments before the name is known would mean buffering them
unboundedly). The arguments value must be an object (streamed from its
``{``), a JSON string holding the arguments' text (where the format allows it, see
:func:`parse_object_header`) or ``null``/absent (then the arguments are ``{}``, unless the
format requires them); other
members are parsed and ignored. The answer is NEED (valid so far, more text needed), INVALID at a
position (the first character that cannot belong to a call header), COMMIT (name known, arguments
object starts at a position) or CLOSED (the object ended without arguments). The parse is
left-to-right and stops at its first decision, so the same text gives the same decision however
it was chunked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from tito.core.parsers._text import ASCII_WS, is_proper_prefix
from tito.core.parsers.tools._base import Work

ARGS_KEYS = ("arguments", "parameters")

_IN_STRING = re.compile(r'["\\]')


@lru_cache(maxsize=16)
def _outside(interrupts: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape('"{}[]' + interrupts) + "]")


@lru_cache(maxsize=16)
def _inside(interrupts: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape('"\\' + interrupts) + "]")


ScanResult = Literal["done", "more", "interrupt"]


def scan(
    st: Work, s: str, pos: int, interrupts: str = "", in_string: str = ""
) -> tuple[ScanResult, int]:
    """Advance the scanner in ``st`` over ``s[pos:]``.

    Returns ``("done", i)`` when depth returns to 0 with ``s[i - 1]`` (the value closed),
    ``("interrupt", j)`` at an ``interrupts`` character ``s[j]`` outside strings, or an
    ``in_string`` character inside one, even right after a backslash (not consumed; ``st.esc``
    left for the caller: a marker ends the string, a character taken as text ends the escape),
    or ``("more", len(s))`` when the text ran out first.
    """
    n = len(s)
    outside = _outside(interrupts)
    inside = _inside(in_string) if in_string else _IN_STRING
    i = pos
    while i < n:
        if st.in_str:
            if st.esc:
                if in_string and s[i] in in_string:  # a stop marker right after a backslash
                    return "interrupt", i  # still ends the string (the caller clears ``esc``)
                st.esc = False
                i += 1
                continue
            m = inside.search(s, i)
            if m is None:
                return "more", n
            j = m.start()
            if s[j] not in '"\\':
                return "interrupt", j
            if s[j] == "\\":
                st.esc = True
            else:
                st.in_str = False
            i = j + 1
            continue
        m = outside.search(s, i)
        if m is None:
            return "more", n
        j = m.start()
        c = s[j]
        if c == '"':
            st.in_str = True
        elif c in interrupts:  # before brackets: Mistral's "[TOOL_CALLS]" starts with "["
            return "interrupt", j
        elif c in "{[":
            st.depth += 1
        elif c in "}]":
            st.depth -= 1
            if st.depth <= 0:
                st.depth = 0
                return "done", j + 1
        i = j + 1
    return "more", n


def skip_ws(s: str, i: int) -> int:
    """Index of the first non-ASCII-whitespace character at or after ``i``."""
    n = len(s)
    while i < n and s[i] in ASCII_WS:
        i += 1
    return i


def string_end(s: str, i: int) -> int:
    """``s[i]`` opens a JSON string: index after its closing quote, or -1 if not there yet."""
    j = i + 1
    while True:
        m = _IN_STRING.search(s, j)
        if m is None:
            return -1
        k = m.start()
        if s[k] == "\\":
            if k + 1 >= len(s):
                return -1
            j = k + 2
        else:
            return k + 1


_SCALAR = re.compile(r"[-+0-9A-Za-z.]*")
_NEED = -1
_BAD = -2


def value_end(s: str, i: int) -> int:
    """A JSON value starts at ``s[i]``: its end index, ``-1`` (incomplete) or ``-2`` (invalid)."""
    c = s[i]
    if c == '"':
        e = string_end(s, i)
    elif c in "{[":
        probe = Work()
        kind, e = scan(probe, s, i)
        if kind != "done":
            return _NEED
    else:
        m = _SCALAR.match(s, i)
        assert m is not None
        e = m.end()
        if e == len(s):
            return _NEED
        if e == i:
            return _BAD
    if e == -1:
        return _NEED
    try:
        json.loads(s[i:e])
    except ValueError:
        return _BAD
    return e


@dataclass(frozen=True)
class Header:
    """The decision about a call header (positions relative to the parsed text)."""

    kind: Literal["need", "invalid", "commit", "closed", "skip"]
    #: invalid: offending char; commit: the arguments ``{`` (or ``"``); closed: after ``}``;
    #: skip (a well-formed header naming no call, Kimi-K2's without an id): where the call's
    #: text starts, which the format's ``skip`` phase passes on as content
    pos: int = 0
    name: str = ""
    string: bool = False  #: commit: the arguments are a JSON string (``"arguments": "{...}"``)
    args: str | None = None  #: closed: arguments written before the name (else ``{}``)
    call_id: str = ""  #: the model's own id for the call (Kimi-K2), else empty


NEED = Header("need")


def match_lead(s: str, i: int, token: str) -> int:
    """``token`` expected at ``s[i]``: index after it, -1 (need more) or -2 (not there)."""
    if s.startswith(token, i):
        return i + len(token)
    if i >= len(s) or is_proper_prefix(s[i:], [token]):
        return _NEED
    return _BAD


def match_leads(s: str, tokens: Sequence[str], i: int = 0) -> int | Header:
    """``tokens`` in order from ``s[i]``, each after optional whitespace: the index after the last
    one, or the decision when they are not all there (NEED, or INVALID at the offending token).
    The lead markers of every call header (``<｜tool▁calls▁begin｜>``, ``<tool_call>``, ``,``...)."""
    for token in tokens:
        i = skip_ws(s, i)
        j = match_lead(s, i, token)
        if j == _NEED:
            return NEED
        if j == _BAD:
            return Header("invalid", i)
        i = j
    return i


def find_on_line(s: str, i: int, marker: str) -> int | Header:
    """Where ``marker`` starts in ``s`` at or after ``i``, on the same line: its index, NEED when
    it is not there yet, INVALID at a newline that comes first (DeepSeek's one-line headers)."""
    k = s.find(marker, i)
    newline = s.find("\n", i)
    if newline != -1 and (k == -1 or newline < k):
        return Header("invalid", newline)
    return NEED if k == -1 else k


def open_args(s: str, i: int, name: str) -> Header:
    """Whitespace from ``s[i]``, then the arguments' ``{``: COMMIT there with ``name`` (NEED when
    the text ends first, INVALID at anything else)."""
    i = skip_ws(s, i)
    if i == len(s):
        return NEED
    return Header("commit", i, name) if s[i] == "{" else Header("invalid", i)


def parse_object_header(
    s: str,
    lead: Sequence[str] = (),
    *,
    optional_lead: str = "",
    args_required: bool = False,
    string_args: bool = False,
    args_keys: Sequence[str] = ARGS_KEYS,
) -> Header:
    """Parse a call object's header from ``s`` (see the module header for the grammar).

    ``lead``: tokens that must come first (each may be preceded by whitespace), e.g. ``","``
    between list elements; ``optional_lead``: a token that may come first, repeated or not
    (``<|python_tag|>``);
    leading whitespace is always allowed. ``args_required``: an object without arguments is
    not a call (llama3_json: plain JSON with a ``"name"`` key must stay content).
    ``args_keys``: the members that hold the arguments (any other member is skipped).
    ``string_args``: the arguments may be a JSON string holding their text (Granite 4 writes
    ``"arguments": "{\\"x\\": 1}"``); COMMIT then points at the opening quote.
    """
    n = len(s)
    i = skip_ws(s, 0)
    while optional_lead and s.startswith(optional_lead, i):  # (repeated: vLLM's batch skips
        i = skip_ws(s, i + len(optional_lead))               # any text before the object)
    if optional_lead and is_proper_prefix(s[i:], [optional_lead]):
        return NEED
    led = match_leads(s, lead, i)
    if isinstance(led, Header):
        return led
    i = skip_ws(s, led)
    if i == n:
        return NEED
    if s[i] != "{":
        return Header("invalid", i)
    i += 1
    name: str | None = None
    early_args: str | None = None  #: arguments that came before the name (their text)
    expect = "key_or_close"
    while True:
        i = skip_ws(s, i)
        if i == n:
            return NEED
        c = s[i]
        if c == "}" and expect != "key":
            if name is None or (args_required and early_args is None):
                return Header("invalid", i)
            return Header("closed", i + 1, name, args=early_args)
        if expect == "sep":
            if c != ",":
                return Header("invalid", i)
            i += 1
            expect = "key"
            continue
        if c != '"':
            return Header("invalid", i)
        e = string_end(s, i)
        if e == -1:
            return NEED
        try:
            key = json.loads(s[i:e])
        except ValueError:
            return Header("invalid", i)
        i = skip_ws(s, e)
        if i == n:
            return NEED
        if s[i] != ":":
            return Header("invalid", i)
        i = skip_ws(s, i + 1)
        if i == n:
            return NEED
        if key in args_keys and name is None:
            # arguments before the name: the whole object must fit in the header window (the
            # name decides that it is a call); the arguments' text is then sent at once
            e = value_end(s, i)
            if e == _NEED:
                return NEED
            if e == _BAD or early_args is not None or s[i] not in ('{"' if string_args else "{"):
                return Header("invalid", i)
            early_args = s[i:e] if s[i] == "{" else json.loads(s[i:e])
        elif key in args_keys:
            if early_args is not None:
                return Header("invalid", i)
            if s[i] == "{":
                return Header("commit", i, name)
            if s[i] == '"' and string_args:
                return Header("commit", i, name, string=True)
            e = value_end(s, i)
            if e == _NEED:
                return NEED
            if e == _BAD or s[i:e] != "null":
                return Header("invalid", i)
            if args_required:
                return Header("invalid", i)
        else:
            e = value_end(s, i)
            if e == _NEED:
                return NEED
            if e == _BAD:
                return Header("invalid", i)
            if key == "name":
                value = json.loads(s[i:e])
                if name is not None or not isinstance(value, str) or not value:
                    return Header("invalid", i)
                name = value
        i = e
        expect = "sep"
