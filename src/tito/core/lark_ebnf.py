"""xgrammar 0.2.8's EBNF parser (``grammar_parser.cc``) for the text its regex converter writes
(:func:`tito.core.lark_regex.regex_to_ebnf`): ``Grammar.FromRegex`` = this parse of
``root ::= <text>`` + the normalizer, as a :class:`~tito.core.lark_grammar.Rules` whose rule 0
is ``root``.

Grammar: ``choices := seq ("|" seq)*``, ``seq := (element quantifier?)+``, ``element := "(" ")"
| "(" choices ")" | class | string``, ``quantifier := "*" | "+" | "?" | "{" n ("," m?)? "}"``.
Strings ``"..."`` take C escapes, ``\\xH...`` (any number of digits), ``\\uHHHH``,
``\\UHHHHHHHH``; classes ``[^...]`` take those and ``\\`` before a regex metacharacter, ``a-b``
ranges (a dash before ``]`` is itself). Refused (:class:`~tito.core.lark_parse.LarkError`): a
bad escape, a newline in a class, ``\\d``-like escapes in a class, a reversed range, an element
missing (a quantifier after ``(``, ``|`` or another quantifier), unbalanced parentheses,
``n > m``, integers above 1e15, more than 1000 nested groups. Rules made: ``x*`` of a class is a
class star, else ``r ::= "" | (x r)``; ``x+`` is ``r ::= (x r) | x``; ``x?`` is ``r ::= "" | x``;
``x{n,m}`` repeats x's rule (a new one unless x is a reference), each named from ``root``.

Counts are cast to 32 bits as xgrammar does (``{2147483648}`` repeats -2147483648 times).

Bounds: one iterative pass (an explicit stack of open groups); codepoints past U+10FFFF are
:class:`~tito.core.lark_parse.Unsupported`.
"""

from __future__ import annotations

from typing import Any

from tito.core.lark_grammar import Rules, normalize
from tito.core.lark_parse import LarkError, Unsupported

_MAX_NEST = 1000
_MAX_INT = 10**15
_HEX = "0123456789abcdefABCDEF"
_C = {"'": 0x27, '"': 0x22, "?": 0x3F, "\\": 0x5C, "/": 0x2F, "a": 7, "b": 8, "f": 12, "n": 10,
      "r": 13, "t": 9, "v": 11, "0": 0, "e": 0x1B}
_META = frozenset("^$\\.*+?()[]{}|/-")


def _escaped(s: str, i: int, meta: bool) -> tuple[int, int]:
    """``ParseNextEscaped`` at ``s[i]`` (a backslash): (codepoint, next index)."""
    c = s[i + 1:i + 2]
    if not c or ord(c) > 128:
        raise LarkError("invalid escape sequence")
    if meta and c in _META:
        return ord(c), i + 2
    if c in _C:
        return _C[c], i + 2
    if c == "x":
        j = i + 2
        while j < len(s) and s[j] in _HEX:
            j += 1
        if j == i + 2:
            raise LarkError("invalid escape sequence")
        return int(s[i + 2:j], 16), j
    if c in "uU":
        width = 4 if c == "u" else 8
        digits = s[i + 2:i + 2 + width]
        if len(digits) != width or any(d not in _HEX for d in digits):
            raise LarkError("invalid escape sequence")
        return int(digits, 16), i + 2 + width
    raise LarkError("invalid escape sequence")


def _int32(n: int) -> int:
    return (n + 2**31) % 2**32 - 2**31


def _check(cp: int) -> int:
    if cp > 0x10FFFF:
        raise Unsupported("a codepoint past U+10FFFF")
    return cp


def _string(s: str, i: int) -> tuple[Any, int]:
    out, i = [], i + 1
    while i < len(s) and s[i] not in '"\n\r':
        if s[i] == "\\":
            cp, i = _escaped(s, i, False)
            out.append(chr(_check(cp)))
        else:
            out.append(s[i])
            i += 1
    if i >= len(s) or s[i] != '"':
        raise LarkError('expect " in string literal')
    text = "".join(out)
    return (("bytes", text) if text else ("empty",)), i + 1


def _char_class(s: str, i: int) -> tuple[Any, int]:
    i += 1
    negated = s[i:i + 1] == "^"
    i += negated
    items: list[tuple[str, int]] = []  # ("dash", 45) or ("char", cp)
    while i < len(s) and s[i] != "]":
        c = s[i]
        if c in "\r\n":
            raise LarkError("character class should not contain newline")
        if c == "-":
            items.append(("dash", 0x2D))
            i += 1
        elif c == "\\" and s[i + 1:i + 2] in tuple("dDsSwW"):
            raise LarkError("character class escape is not supported in EBNF")
        elif c == "\\":
            cp, i = _escaped(s, i, True)
            items.append(("char", _check(cp)))
        else:
            items.append(("char", ord(c)))
            i += 1
    if i >= len(s):
        raise LarkError("unterminated character class")
    ranges, k = [], 0
    while k < len(items):
        lo = items[k][1]
        if k + 2 < len(items) and items[k + 1][0] == "dash":
            hi = items[k + 2][1]
            if lo > hi:
                raise LarkError("invalid character class: lower bound is larger than upper bound")
            ranges.append((lo, hi))
            k += 3
        else:
            ranges.append((lo, lo))
            k += 1
    return ("class", negated, ranges), i + 1


def class_error(text: str, i: int) -> str | None:
    """Why xgrammar's EBNF lexer and parser refuse the class at ``text[i] == "["``, or None
    (for :mod:`tito.core.grammar_check`)."""
    try:
        _char_class(text, i)
    except LarkError as e:
        return str(e)
    except Unsupported:
        return None
    return None


def _tokens(s: str) -> list[tuple[str, Any]]:
    toks: list[tuple[str, Any]] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in " \t\r\n":
            i += 1
        elif c == '"':
            expr, i = _string(s, i)
            toks.append(("atom", expr))
        elif c == "[":
            expr, i = _char_class(s, i)
            toks.append(("atom", expr))
        elif c in "()|*+?{},":
            toks.append((c, c))
            i += 1
        elif c.isascii() and c.isdigit():
            j = i
            while j < n and s[j].isascii() and s[j].isdigit():
                j += 1
                if int(s[i:j]) > _MAX_INT:
                    raise LarkError("integer is too large")
            toks.append(("int", int(s[i:j])))
            i = j
        else:
            raise LarkError(f"unexpected character {c!r}")
    toks.append(("end", None))
    return toks


class _Parser:
    def __init__(self, toks: list[tuple[str, Any]]) -> None:
        self.toks, self.pos = toks, 0
        self.rules = Rules()
        self.rules.add("root")

    def peek(self) -> str:
        return self.toks[self.pos][0]

    def take(self) -> Any:
        self.pos += 1
        return self.toks[self.pos - 1][1]

    def integer(self) -> int:
        if self.peek() != "int":
            raise LarkError("expect integer")
        return self.take()

    def quantified(self, expr: Any) -> Any:
        kind, rules = self.peek(), self.rules
        if kind == "*":
            self.take()
            if expr[0] == "class":
                return ("classstar", expr[1], expr[2])
            rule = rules.add_hint("root")
            rules.bodies[rule] = ("choice", [("empty",), ("seq", [expr, ("ref", rule)])])
            return ("ref", rule)
        if kind == "+":
            self.take()
            rule = rules.add_hint("root")
            rules.bodies[rule] = ("choice", [("seq", [expr, ("ref", rule)]), expr])
            return ("ref", rule)
        if kind == "?":
            self.take()
            return ("ref", rules.add_hint("root", ("choice", [("empty",), expr])))
        if kind == "{":
            self.take()
            lo = hi = self.integer()
            if self.peek() == ",":
                self.take()
                hi = -1
                if self.peek() != "}":
                    hi = self.integer()
                    if hi < lo:
                        raise LarkError("lower bound is larger than upper bound")
            if self.peek() != "}":
                raise LarkError("expect }")
            self.take()
            lo, hi = _int32(lo), -1 if hi == -1 else _int32(hi)  # xgrammar's casts
            rule = expr[1] if expr[0] == "ref" else rules.add_hint("root", expr)
            return ("repeat", rule, lo, hi)
        return expr

    def parse(self) -> tuple[Rules, int]:
        """The rules and the deepest group nesting."""
        stack: list[tuple[list[Any], list[Any]]] = [([], [])]  # (alternatives, sequence)
        deepest = 0
        while True:
            kind = self.peek()
            alts, seq = stack[-1]
            if kind == "(":
                self.take()
                if len(stack) > _MAX_NEST:
                    raise LarkError("nest layer exceeded the maximum limit")
                if self.peek() == ")":
                    self.take()
                    seq.append(self.quantified(("empty",)))
                else:
                    stack.append(([], []))
                    deepest = max(deepest, len(stack) - 1)
            elif kind == "atom":
                seq.append(self.quantified(self.take()))
            elif kind in ("|", ")", "end"):
                if not seq:
                    raise LarkError("expect element")
                alts.append(("seq", seq))
                stack[-1] = (alts, [])
                self.take()
                if kind == "|":
                    continue
                stack.pop()
                group = ("choice", alts)
                if kind == "end":
                    if stack:
                        raise LarkError("expect )")
                    self.rules.bodies[0] = group
                    return self.rules, deepest
                if not stack:
                    raise LarkError("unexpected )")
                stack[-1][1].append(self.quantified(group))
            else:
                raise LarkError("expect element")


def regex_grammar(ebnf: str, max_depth: int) -> Rules:
    """``Grammar.FromEBNF("root ::= " + ebnf)``: parsed and normalized. Groups nested deeper
    than ``max_depth`` are :class:`~tito.core.lark_parse.Unsupported` (the normalizer recurses
    per level); what xgrammar refuses is a :class:`~tito.core.lark_parse.LarkError` first."""
    rules, deepest = _Parser(_tokens(ebnf)).parse()
    if deepest > max_depth:
        raise Unsupported("regular expression groups nested too deeply")
    return normalize(rules)


__all__ = ["class_error", "regex_grammar"]
