"""A Lark terminal's regular expression as xgrammar 0.2.8 compiles it: ``Grammar.FromRegex``,
its regex-to-EBNF text converter (``regex_converter.cc``) followed by its EBNF parser
(``grammar_parser.cc``) and normalizer, for :mod:`tito.core.lark_convert`.

Why a text round trip: xgrammar converts the pattern to EBNF text and parses that text again,
so what one pass writes the other reads (an escape's ``\\xHH`` followed by a hex digit in a
class is read as one longer escape, a ``^`` escaped at a class start negates it): tito does the
same two passes to answer the same.

Regex (JavaScript-like, per codepoint): literals; ``.`` (every codepoint); classes ``[...]`` /
``[^...]`` (copied as written, escapes ``\\d \\D \\w \\W \\s \\S`` as ranges, others through
the escape rule, ``]`` and ``-`` kept escaped); escapes ``\\d \\D \\w \\W \\s \\S``, C escapes,
``\\xH...`` (any number of hex digits), ``\\uHHHH``, ``\\u{H..}``, ``\\cX``, an unknown one is
the character itself; groups ``(...)``, ``(?:...)``, ``(?<name>...)``; ``|`` (an empty side is
``""``); ``* + ?`` and ``{n}``, ``{n,}``, ``{n,m}`` (a lazy ``?`` after one is dropped); ``^``
and ``$`` are dropped. Refused: lookarounds, other ``(?`` modifiers, backreferences, ``\\p``,
``\\b``, an empty or unclosed class, an unfinished escape, two repetitions in a row, unbalanced
parentheses, a bad count; then whatever the EBNF parser refuses in the text (a repetition of
nothing, a reversed class range, a newline in a class, ``n > m``, counts above 1e15, more than
1000 nested groups).

EBNF (the converter's output): ``root ::= body``; ``x*`` of a class is a class star, of
anything else a rule ``r ::= "" | (x r)``; ``x+`` a rule ``r ::= (x r) | x``; ``x?`` a rule
``r ::= "" | x``; ``x{n,m}`` a repetition of x (a new rule unless x is a reference); new rules
are named ``root_1``, ``root_2``... in the order made. Then normalized
(:func:`tito.core.lark_grammar.normalize`).

Bounds: both passes are linear and iterative; groups nested deeper than :data:`MAX_DEPTH` are
:class:`~tito.core.lark_parse.Unsupported` (the normalizer recurses per level).
"""

from __future__ import annotations

from tito.core.lark_ebnf import regex_grammar
from tito.core.lark_fsm_regex import fsm_regex_error
from tito.core.lark_grammar import Rules, escape
from tito.core.lark_parse import LarkError

MAX_DEPTH = 64
_HEX = "0123456789abcdefABCDEF"


def _hex(cp: int) -> int:
    """``HexCharToInt`` of a codepoint cast to ``char`` (xgrammar truncates it)."""
    c = chr(cp & 0xFF)
    return int(c, 16) if c in _HEX else -1


def _digit(cp: int) -> bool:
    return 0x30 <= cp <= 0x39


def _alpha(cp: int) -> bool:
    return 0x41 <= cp <= 0x5A or 0x61 <= cp <= 0x7A


_C_ESCAPES = {"'": 0x27, '"': 0x22, "?": 0x3F, "\\": 0x5C, "/": 0x2F, "a": 7, "b": 8, "f": 12,
              "n": 10, "r": 13, "t": 9, "v": 11, "0": 0, "e": 0x1B}
_REGEX_ESCAPES = {c: ord(c) for c in "^$.*+?\\()[]{}|/-"}


def _parse_escaped(cps: list[int], i: int, extra: dict[str, int]) -> tuple[int, int]:
    """``ParseNextEscaped`` at ``cps[i]`` (a backslash): (codepoint, length), or (-1, 0)."""
    c = cps[i + 1] & 0xFF
    if c > 128:
        return -1, 0
    ch = chr(c)
    if ch in extra:
        return extra[ch], 2
    if ch in _C_ESCAPES:
        return _C_ESCAPES[ch], 2
    if ch == "x":
        n, cp = 0, 0
        while _hex(cps[i + 2 + n]) != -1:
            cp, n = cp * 16 + _hex(cps[i + 2 + n]), n + 1
        return (cp, n + 2) if n else (-1, 0)
    if ch in "uU":
        width, cp = 4 if ch == "u" else 8, 0
        for k in range(width):
            d = _hex(cps[i + 2 + k])
            if d == -1:
                return -1, 0
            cp = cp * 16 + d
        return cp, width + 2
    return -1, 0


class _Converter:
    """``RegexConverter``: the pattern as EBNF text (the body of ``root ::=``)."""

    def __init__(self, pattern: str) -> None:
        if "\0" in pattern:
            raise LarkError("the regex must not contain null characters")
        # padded with NULs: xgrammar reads a few codepoints past the end's terminator
        self.cps = [ord(c) for c in pattern] + [0] * 12
        self.end = len(pattern)
        self.i = 0
        self.out: list[str] = []  # segments; "" + segment joins without a space

    def text(self) -> str:
        return "".join(self.out)

    def last(self) -> str:
        return self.out[-1][-1] if self.out and self.out[-1] else ""

    def segment(self, s: str) -> None:
        self.out.append((" " if self.out else "") + s)

    def char_escape(self) -> str:
        cps, i, left = self.cps, self.i, self.end - self.i
        nxt = chr(cps[i + 1])
        if left < 2 or nxt == "u" and left < 5 or nxt == "x" and left < 4 \
                or nxt == "c" and left < 3:
            raise LarkError("escape sequence is not finished")
        cp, n = _parse_escaped(cps, i, _REGEX_ESCAPES)
        if cp != -1:
            self.i += n
            return escape(cp)
        if nxt == "u" and cps[i + 2] == ord("{"):
            self.i += 3
            n, value = 0, 0
            while _hex(cps[self.i + n]) != -1 and n <= 6:
                value, n = value * 16 + _hex(cps[self.i + n]), n + 1
            if n == 0 or n > 6 or cps[self.i + n] != ord("}"):
                raise LarkError("invalid unicode escape sequence")
            self.i += n + 1
            return _escape_any(value)
        if nxt == "c":
            self.i += 2
            if not _alpha(cps[self.i]):
                raise LarkError("invalid control character escape sequence")
            self.i += 1
            return escape(cps[self.i - 1] % 32)
        self.i += 2
        return _escape_any(cps[self.i - 1])

    def class_escape(self) -> str:
        if self.end - self.i < 2:
            raise LarkError("escape sequence is not finished")
        c = chr(self.cps[self.i + 1])
        if c in _CLASS_SETS:
            self.i += 2
            return _CLASS_SETS[c]
        s = self.char_escape()
        return "\\" + s if s in ("]", "-") else s

    def escape(self) -> str:
        if self.end - self.i < 2:
            raise LarkError("escape sequence is not finished")
        c = chr(self.cps[self.i + 1])
        if c in _SETS:
            self.i += 2
            return _SETS[c]
        if c in "123456789k":
            raise LarkError("backreference is not supported")
        if c in "pP":
            raise LarkError("unicode character class escape is not supported")
        if c in "bB":
            raise LarkError("word boundary is not supported")
        return '"' + self.char_escape() + '"'

    def char_class(self) -> str:
        parts = ["["]
        self.i += 1
        if self.cps[self.i] == ord("]") and self.i < self.end:
            raise LarkError("empty character class")
        while self.i < self.end and self.cps[self.i] != ord("]"):
            if self.cps[self.i] == ord("\\"):
                parts.append(self.class_escape())
            else:
                parts.append(chr(self.cps[self.i]))
                self.i += 1
        if self.i >= self.end:
            raise LarkError("unclosed '['")
        self.i += 1
        return "".join(parts) + "]"

    def count(self) -> str:
        cps, out = self.cps, ["{"]
        self.i += 1
        if not _digit(cps[self.i]) or self.i >= self.end:
            raise LarkError("invalid repetition count")
        while _digit(cps[self.i]) and self.i < self.end:
            out.append(chr(cps[self.i]))
            self.i += 1
        if cps[self.i] not in (0x2C, 0x7D) or self.i >= self.end:
            raise LarkError("invalid repetition count")
        out.append(chr(cps[self.i]))
        self.i += 1
        if out[-1] == "}":
            return "".join(out)
        if not (_digit(cps[self.i]) or cps[self.i] == 0x7D) or self.i >= self.end:
            raise LarkError("invalid repetition count")
        while _digit(cps[self.i]) and self.i < self.end:
            out.append(chr(cps[self.i]))
            self.i += 1
        if cps[self.i] != 0x7D or self.i >= self.end:
            raise LarkError("invalid repetition count")
        self.i += 1
        return "".join(out) + "}"

    def no_second_repetition(self) -> None:
        if self.i < self.end and chr(self.cps[self.i]) == "?":
            self.i += 1
        if self.i < self.end and chr(self.cps[self.i]) in "{*+?":
            raise LarkError("two consecutive repetition modifiers are not allowed")

    def convert(self) -> str:
        depth, empty, cps = 0, True, self.cps
        while self.i < self.end:
            c = chr(cps[self.i])
            if c in "^$":
                self.i += 1
                continue
            empty = False
            if c == "[":
                self.segment(self.char_class())
            elif c == "(":
                self.i += 1
                depth += 1
                self.segment("(")
                if self.i < self.end and cps[self.i] == ord("?"):
                    self.i += 1
                    self.group_modifier()
            elif c == ")":
                if depth == 0:
                    raise LarkError("unmatched ')'")
                if self.last() == "|":
                    self.segment('""')
                depth -= 1
                self.segment(")")
                self.i += 1
            elif c in "*+?":
                self.out.append(c)
                self.i += 1
                self.no_second_repetition()
            elif c == "{":
                self.out.append(self.count())
                self.no_second_repetition()
            elif c == "|":
                if not self.out or self.last() in "|(":
                    self.segment('""')
                self.segment("|")
                self.i += 1
            elif c == "\\":
                self.segment(self.escape())
            elif c == ".":
                self.segment("[\\u0000-\\U0010FFFF]")
                self.i += 1
            else:
                self.segment('"' + _escape_any(cps[self.i]) + '"')
                self.i += 1
        if depth:
            raise LarkError("the parenthesis is not closed")
        if self.last() == "|":
            self.segment('""')
        if empty:
            self.segment('""')
        return self.text()

    def group_modifier(self) -> None:
        cps = self.cps
        if self.i >= self.end:
            raise LarkError("group modifier is not finished")
        c = chr(cps[self.i])
        if c == ":":
            self.i += 1
        elif c in "=!":
            raise LarkError("lookahead is not supported")
        elif c == "<" and self.i + 1 < self.end and chr(cps[self.i + 1]) in "=!":
            raise LarkError("lookbehind is not supported")
        elif c == "<":
            self.i += 1
            while self.i < self.end and _alpha(cps[self.i]):
                self.i += 1
            if self.i >= self.end or cps[self.i] != ord(">"):
                raise LarkError("invalid named capturing group")
            self.i += 1
        else:
            raise LarkError("group modifier flag is not supported")


_SETS = {"d": "[0-9]", "D": "[^0-9]", "w": "[a-zA-Z0-9_]", "W": "[^a-zA-Z0-9_]",
         "s": "[\\f\\n\\r\\t\\v\\u0020\\u00a0]", "S": "[^\\f\\n\\r\\t\\v\\u0020\\u00a0]"}
_CLASS_SETS = {"d": "0-9", "D": "\\x00-\\x2F\\x3A-\\U0010FFFF", "w": "a-zA-Z0-9_",
               "W": "\\x00-\\x2F\\x3A-\\x40\\x5B-\\x5E\\x60\\x7B-\\U0010FFFF",
               "s": "\\f\\n\\r\\t\\v\\u0020\\u00a0",
               "S": "\\x00-\\x08\\x0E-\\x1F\\x21-\\x9F\\xA1-\\U0010FFFF"}


def _escape_any(cp: int) -> str:
    """``EscapeString`` of any value (a ``\\u{...}`` escape may exceed U+10FFFF)."""
    return escape(cp) if cp < 0x110000 else f"\\U{cp:08x}"


def regex_to_ebnf(pattern: str) -> str:
    """xgrammar's ``RegexToEBNF`` without the rule name."""
    return _Converter(pattern).convert()


def rewrite_dots(pattern: str) -> str:
    """xgrammar's ``RewriteRegexDots`` without the ``s`` flag: ``.`` outside a class is
    ``[^\\n]``."""
    out, escaped, in_class = [], False, False
    for c in pattern:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "[":
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        elif c == "." and not in_class:
            out.append("[^\\n]")
            continue
        out.append(c)
    return "".join(out)


def regex_rules(pattern: str, flags: str, hint: str) -> Rules:
    """The rules of a Lark regex terminal ``/pattern/flags`` (``s``: ``.`` takes newlines;
    ``u`` changes nothing): ``Grammar.FromRegex``'s, or with ``i`` one rule ``<hint>_regex ::=
    Regex("(?i)...")`` once xgrammar's automaton parser takes the pattern
    (:mod:`tito.core.lark_fsm_regex`); rule 0 is the one to refer to."""
    for f in flags:
        if f not in "isu":
            raise LarkError(f"regular-expression flag {f!r} is not supported")
    if "s" not in flags:
        pattern = rewrite_dots(pattern)
    if "i" in flags:
        err = fsm_regex_error("(?i)" + pattern)
        if err:
            raise LarkError(err)
        rules = Rules()
        rules.add(hint + "_regex", ("regex", "(?i)" + pattern))
        return rules
    return regex_grammar(regex_to_ebnf(pattern), MAX_DEPTH)


__all__ = ["MAX_DEPTH", "regex_rules", "regex_to_ebnf"]
