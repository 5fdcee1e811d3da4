"""Incremental decoder of a custom tool's input: the text of the one-string shim a custom tool
is called through, decoded as its arguments stream in.

Why: vLLM 0.33 shows a Responses ``custom`` tool to the model as a function of one string,
``{"input": "<text>"}``, and turns a call of it back into a ``custom_tool_call`` whose
``input`` is that string's value. tito's streaming derender is stateless between calls and its
per-call work must be O(new text), so the value is decoded as the arguments arrive, with a state
of a few short strings, never the arguments so far.

Grammar (the shim as the model writes it and tool parsers re-serialize it)::

    shim := ws "{" ws "\\"input\\"" ws ":" ws string ws "}" ws
    ws   := (" " | "\\t" | "\\n" | "\\r")*

Rules:

- ``head``: the arguments before the string's opening quote are matched against ``shim``'s
  prefix; they are kept (at most :data:`MAX_HEAD` characters) so that arguments that turn out
  not to be the shim are given as they are. Arguments that leave the grammar before the string
  opens (bare text, another key, another value type, a head longer than :data:`MAX_HEAD`) are
  ``raw``: the input is the arguments as they are, the kept head first.
- ``string``: JSON string escapes are decoded (``\\uXXXX`` surrogate pairs joined, also when
  the escape or the pair is split across calls: at most one escape and one high surrogate
  wait); an escape JSON does not have, a lone surrogate or a raw control character is taken as
  it is written (text already given cannot be taken back).
- ``tail``: after the closing quote nothing more is given (whatever follows).

So the pieces :func:`feed` returns always concatenate to the input, however the arguments are
split; for arguments that are the shim (every tool parser's re-serialized JSON) that input is
``json.loads(arguments)["input"]``, vLLM's ``decode_custom_tool_input``. Where vLLM differs
(docs/conformance.md): arguments with other keys around ``input``, or a shim cut short, are
its raw text on vLLM, the decoded value here.
"""

from __future__ import annotations

from typing import Literal

from tito.core.state import Field, State, StateError

__all__ = ["InputDecoder", "MAX_HEAD", "feed", "finish"]

#: the longest head (the arguments before the string opens) kept while it may still be the shim
MAX_HEAD = 64
_WS = frozenset(" \t\n\r")
_KEY = '"input"'
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
           "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")

Phase = Literal["head", "string", "tail", "raw"]


class InputDecoder(State):
    """Where the decoder is: its phase, what is held (``head``: the arguments so far;
    ``string``: an escape begun, up to ``\\uXXXX``), a high surrogate waiting for its pair."""

    phase: Phase = "head"
    held: str = Field(default="", max_length=MAX_HEAD)
    high: str = Field(default="", max_length=6)  #: a high surrogate's escape, ``\\uD8xx``

    def _check(self) -> None:
        """What :func:`feed` can hold (a state from the wire is checked once, as it comes in):
        in the string, an escape's start (``\\``, ``\\u`` and up to four characters) and a
        high surrogate's complete escape; nothing held in the other phases but the head."""
        held, high = self.held, self.high
        escape = held == "" or (held[0] == "\\" and len(held) <= 6
                                and (len(held) <= 2 or held[1] == "u"))
        pair = high == "" or (len(high) == 6 and high[:2] == "\\u"
                              and all(c in _HEX for c in high[2:])
                              and 0xD800 <= int(high[2:], 16) <= 0xDBFF)
        if self.phase == "string" and not (escape and pair) \
                or self.phase != "string" and high \
                or self.phase in ("tail", "raw") and held:
            raise StateError((), "not a state the input decoder writes")


def _opening(text: str) -> int | None:
    """Where the string's characters start in ``text`` (just after its opening quote), -1 while
    ``text`` is still a prefix of ``shim`` before that quote, None when it is not the shim."""
    i, n = 0, len(text)
    for expect in ("{", _KEY, ":", '"'):
        while i < n and text[i] in _WS:
            i += 1
        if i == n:
            return -1
        piece = text[i:i + len(expect)]
        if not expect.startswith(piece):
            return None
        if len(piece) < len(expect):
            return -1
        i += len(expect)
    return i


def _string(st: InputDecoder, text: str) -> tuple[str, int]:
    """Decode ``text`` inside the string (``st`` is updated): the decoded text and how much of
    ``text`` it used (up to and with the closing quote; all of it otherwise)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if st.held:  # an escape begun
            need = 6 if st.held.startswith("\\u") or (len(st.held) == 1 and text[i] == "u") else 2
            take = min(need - len(st.held), n - i)
            st.held += text[i:i + take]
            i += take
            if len(st.held) < need:
                break
            esc, st.held = st.held, ""
            out.append(_escape(st, esc))
            continue
        j = i
        while j < n and text[j] not in '"\\':
            j += 1
        if j > i:
            out.append(_flush_high(st) + text[i:j])
            i = j
            continue
        if text[i] == '"':
            out.append(_flush_high(st))
            st.phase = "tail"
            return "".join(out), i + 1
        st.held = "\\"
        i += 1
    return "".join(out), n


def _flush_high(st: InputDecoder) -> str:
    """A waiting high surrogate that gets no pair: its escape as written."""
    high, st.high = st.high, ""
    return high


def _escape(st: InputDecoder, esc: str) -> str:
    """One complete escape (``\\x`` or ``\\uXXXX``) decoded; a high surrogate's waits for its
    pair; one JSON does not have, or a lone surrogate's, as written."""
    if esc[1] != "u":
        return _flush_high(st) + _SIMPLE.get(esc[1], esc)
    if not all(c in _HEX for c in esc[2:]):
        return _flush_high(st) + esc
    code = int(esc[2:], 16)
    if 0xDC00 <= code <= 0xDFFF and st.high:
        high, st.high = int(st.high[2:], 16), ""
        return chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
    lead = _flush_high(st)
    if 0xD800 <= code <= 0xDBFF:
        st.high = esc
        return lead
    return lead + (esc if 0xDC00 <= code <= 0xDFFF else chr(code))


def feed(st: InputDecoder, text: str) -> tuple[InputDecoder, str]:
    """The new state and the input's next piece, from the arguments' next ``text``."""
    st = st.model_copy()
    if st.phase == "raw":
        return st, text
    if st.phase == "tail" or not text:
        return st, ""
    if st.phase == "head":
        head = st.held + text
        start = _opening(head)
        if start == -1 and len(head) <= MAX_HEAD:
            st.held = head
            return st, ""
        if start is None or start == -1:
            st.phase, st.held = "raw", ""
            return st, head
        st.phase, st.held = "string", ""
        text = head[start:]
    piece, _ = _string(st, text)
    return st, piece


def finish(st: InputDecoder) -> str:
    """The input's last piece when the arguments end: a head that never opened the string is
    the input as written; an unfinished escape or a waiting high surrogate as written."""
    if st.phase == "head":
        return st.held
    if st.phase == "string":
        return st.high + st.held
    return ""
