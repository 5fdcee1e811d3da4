"""xgrammar 0.2.8's EBNF dialect (``grammar_parser.cc``): why it refuses a grammar, or None; and
the one import place of the constraint checks (regex: :mod:`tito.core.regex_check`, JSON
schema: :mod:`tito.core.schema_check`).

Why: vLLM 0.33's render refuses a structural tag whose grammar xgrammar cannot parse, and drops
the or-format when the request's own grammar fails; tito does not ship xgrammar. What is not
recognised as an error is accepted (a missed refusal reaches the engine, which reports it).

Rules (each a reason for refusal): ``name ::= body`` rules, each starting a line; bodies of
strings, ``[...]`` classes, rule references (defined somewhere), groups, ``|``, ``* + ?`` and
``{n,m}``; ``root`` defined once; macro calls ``Name(...)`` are accepted unchecked.

Bounds: the tokenizer is linear; the body check recurses at most :data:`MAX_DEPTH` levels.
"""

from __future__ import annotations

from tito.core.lark_ebnf import class_error
from tito.core.regex_check import regex_error
from tito.core.schema_check import schema_error

MAX_DEPTH = 128


# -- EBNF ----------------------------------------------------------------------------------


def _ebnf_tokens(text: str) -> tuple[str | None, list[tuple[str, str, int]]]:
    """Tokens ``(kind, text, line)``: name, str, class, int, or the punctuation itself."""
    toks: list[tuple[str, str, int]] = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] not in '"\n\r':
                j += 2 if text[j] == "\\" else 1
            if j >= n or text[j] != '"':
                return 'expect " in string literal', toks
            toks.append(("str", text[i + 1:j], line))
            i = j + 1
        elif c == "[":
            j = i + 1
            while j < n and text[j] != "]":
                if text[j] in "\n\r":
                    return "character class should not contain newline", toks
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return "unterminated character class", toks
            err = class_error(text, i)
            if err:
                return err, toks
            toks.append(("class", text[i:j + 1], line))
            i = j + 1
        elif text.startswith("::=", i):
            toks.append(("::=", "::=", line))
            i += 3
        elif c == "(" and text.startswith("(=", i):
            toks.append(("(=", "(=", line))
            i += 2
        elif c in "(){}|,*+?=":
            toks.append((c, c, line))
            i += 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_-."):
                j += 1
            toks.append(("name", text[i:j], line))
            i = j
        elif c.isdigit() or c in "+-":
            j = i + 1
            while j < n and text[j].isdigit():
                j += 1
            toks.append(("int", text[i:j], line))
            i = j
        else:
            return f"unexpected character: {c!r}", toks
    return None, toks


def ebnf_error(text: str, root: str = "root") -> str | None:
    """Why xgrammar's EBNF parser refuses the grammar ``text``, or None."""
    err, toks = _ebnf_tokens(text)
    if err:
        return err
    starts = [k for k in range(len(toks) - 1)
              if toks[k][0] == "name" and toks[k + 1][0] == "::="]
    for k in starts:
        if k > 0 and toks[k - 1][2] == toks[k][2]:
            return "a rule must start a new line"
    names = [toks[k][1] for k in starts]
    if len(set(names)) != len(names):
        return "a rule is defined multiple times"
    if root not in names:
        return f'the root rule "{root}" is not found'
    if not starts or starts[0] != 0:
        return "expect rule name"
    defined = set(names)
    bounds = [*starts, len(toks)]
    for a, b in zip(bounds, bounds[1:]):
        err = _Body(toks[a + 2:b], defined).check()
        if err:
            return err
    return None


class _Body:
    """A recursive-descent check of one rule body (depth bounded by :data:`MAX_DEPTH`)."""

    def __init__(self, toks: list[tuple[str, str, int]], defined: set[str]) -> None:
        self.toks, self.defined, self.pos = toks, defined, 0

    def peek(self) -> str:
        return self.toks[self.pos][0] if self.pos < len(self.toks) else "eof"

    def check(self) -> str | None:
        err = self.choices(0)
        if err is None and self.peek() == "(=":
            self.pos += 1
            err = self.choices(1) or (None if self.take(")") else "expect ')'")
        if err is None and self.peek() != "eof":
            err = f"unexpected {self.toks[self.pos][1]!r}"
        return err

    def take(self, kind: str) -> bool:
        if self.peek() == kind:
            self.pos += 1
            return True
        return False

    def choices(self, depth: int) -> str | None:
        if depth > MAX_DEPTH:
            return "nest layer exceeded the maximum limit"
        while True:
            if self.peek() in ("|", ")", "eof", "(="):
                return f"expect element, but got {self.peek()}"
            while self.peek() not in ("|", ")", "eof", "(="):
                err = self.element(depth)
                if err:
                    return err
            if not self.take("|"):
                return None

    def element(self, depth: int) -> str | None:
        kind = self.peek()
        self.pos += 1
        if kind == "name":
            name = self.toks[self.pos - 1][1]
            if self.peek() == "(" and name[:1].isupper():  # a macro call: its rule names only
                level = 0
                while self.pos < len(self.toks):
                    kind, text, _ = self.toks[self.pos]
                    level += {"(": 1, ")": -1}.get(kind, 0)
                    self.pos += 1
                    if kind == "name" and self.peek() != "=" and text not in (
                            "true", "false") and text not in self.defined:
                        return f'rule "{text}" is not defined'
                    if level == 0:
                        break
            elif name not in self.defined:
                return f'rule "{name}" is not defined'
        elif kind == "(":
            if self.take(")"):  # an empty group matches the empty string
                return self.quantifier()
            err = self.choices(depth + 1)
            if err:
                return err
            if not self.take(")"):
                return "expect ')'"
        elif kind not in ("str", "class"):
            return f"expect element, but got {kind}"
        return self.quantifier()

    def quantifier(self) -> str | None:
        if self.peek() in ("*", "+", "?"):
            self.pos += 1
        elif self.peek() == "{":
            self.pos += 1
            if not self.take("int") or int(self.toks[self.pos - 1][1]) < 0:
                return "expect integer in repetition range"
            low = int(self.toks[self.pos - 1][1])
            if self.take(","):
                if self.peek() == "int":  # -1: unbounded (as xgrammar prints it)
                    high = int(self.toks[self.pos][1])
                    if high < -1:
                        return "expect integer in repetition range"
                    if high != -1 and high < low:
                        return "repetition lower bound above the upper bound"
                    self.pos += 1
            if not self.take("}"):
                return "expect ',' or '}' in repetition range"
        return None


__all__ = ["ebnf_error", "regex_error", "schema_error"]
