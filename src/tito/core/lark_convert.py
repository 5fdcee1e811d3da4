"""Lark grammars to xgrammar's EBNF, as vLLM 0.33 sends them: ``str(xgrammar.Grammar.from_lark(g))``
(xgrammar 0.2.8's ``lark_converter.cc``, normalized and printed), byte for byte, for the part of
Lark tito parses (:mod:`tito.core.lark_parse`; what it does not port is :class:`Unsupported`,
sent as it is).

Why: vLLM 0.33 puts a request's Lark ``grammar`` converted to EBNF into a structural tag (the
or-format's second branch; gpt-oss's final channel), and refuses one xgrammar cannot convert
there ("Invalid grammar specification.").

Rules (each as xgrammar): ``start`` is the root, printed ``root`` (a rule already named
``root`` becomes ``root_<i>``, the first free i); terminals are compiled first, then the
ignore rules (``lark_ignore_item``, ``lark_ignore ::= lark_ignore_item{0, -1}``, appended after
every non-empty string, range and terminal reference of a rule), then the rules; a repetition
of anything but a name is a new rule ``<rule>_repeat`` (``_1``, ``_2``... when the name is
taken); a case-insensitive letter is ``[aA]``; a regular expression is xgrammar's
``Grammar.FromRegex`` of it (:mod:`tito.core.lark_regex`) added under its own rule names (each
taken as a hint: ``root``, ``root_1``... then ``root_2``, ``root_1_1``... for the next);
``%import common.X`` is a terminal (after the others) with xgrammar's regex for X. Then the grammar is normalized (a one-element
sequence or choice is its element, nested sequences and choices are flattened, the empty
alternative goes first, a choice inside a sequence is a new rule ``<rule>_<i>``) and the rules
unreachable from the root are dropped. Refused besides the syntax: an unknown or duplicate
name, no ``start``, a terminal referring to a rule or (through others) to itself, a range
whose ends are not single characters or are reversed, ``~`` complements, non-ASCII
case-insensitive strings, a regular expression xgrammar refuses, an unknown import, ``start``
a terminal. Printing: :func:`tito.core.lark_grammar.print_rules`.

Bounds: linear in the grammar (every rule and expression visited once per pass).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tito.core.lark_grammar import Rules, normalize, print_rules, reachable, rename_root
from tito.core.lark_parse import LarkError, Unsupported, parse
from tito.core.lark_regex import regex_rules


def grammar_is_likely_lark(grammar: str) -> bool:
    """vLLM's ``grammar_is_likely_lark``: no line (comments removed) defines a rule with
    ``::=`` (a blank grammar counts as Lark)."""
    for line in grammar.split("\n"):
        line = _COMMENT.sub("", line).strip()
        if line and "::=" in line:
            return False
    return bool(grammar)


_COMMENT = re.compile(r"(#|//).*$")

# -- compile (expressions as in tito.core.lark_grammar) --------------------------------------


class _Compiler:
    def __init__(self, defs: list[tuple[str, bool, Any]], ignores: list[Any],
                 imports: list[tuple[str, str]]) -> None:
        for path, name in imports:  # xgrammar's ExpandImports: terminals after the rest
            if path not in COMMON:
                raise LarkError(f"unknown common import {path!r}")
            defs = [*defs, (name, True, ("regex", COMMON[path], ""))]
        self.defs = {name: (terminal, body) for name, terminal, body in defs}
        if len(self.defs) != len(defs):
            raise LarkError("duplicate rule or terminal")
        self.order, self.ignores = defs, ignores
        self.rules = Rules()
        self.skip: int | None = None
        self.unsupported: str | None = None  # raised once nothing is refused

    def compile(self) -> Rules:
        if "start" not in self.defs:
            raise LarkError("no start rule found")
        if self.defs["start"][0]:
            raise LarkError("start must be a rule")
        self._terminal_cycles()
        for name, _, _ in self.order:
            self.rules.add(name)
        for name, terminal, body in self.order:
            if terminal:
                self.rules.bodies[self.rules.ids[name]] = self.node(body, name, True)
        if self.ignores:
            items = [self.node(n, "lark_ignore", True) for n in self.ignores]
            item = self.rules.add_hint("lark_ignore_item",
                                       items[0] if len(items) == 1 else ("choice", items))
            self.skip = self.rules.add_hint("lark_ignore", ("repeat", item, 0, -1))
        for name, terminal, body in self.order:
            if not terminal:
                self.rules.bodies[self.rules.ids[name]] = self.node(body, name, False)
        return self.rules

    def _terminal_cycles(self) -> None:
        """A terminal may not refer to itself through other terminals (an iterative search)."""
        state: dict[str, int] = {}  # 1 on the path, 2 done
        for first, terminal, _ in self.order:
            if not terminal or first in state:
                continue
            state[first] = 1
            path = [(first, iter(self._terminal_refs(first)))]
            while path:
                name, refs = path[-1]
                ref = next(refs, None)
                if ref is None:
                    state[name] = 2
                    path.pop()
                elif state.get(ref) == 1:
                    raise LarkError(f"circular reference in terminal {ref!r}")
                elif ref not in state:
                    state[ref] = 1
                    path.append((ref, iter(self._terminal_refs(ref))))

    def _terminal_refs(self, name: str) -> list[str]:
        refs, stack = [], [self.defs[name][1]]
        while stack:
            node = stack.pop()
            if node[0] == "name":
                if node[1] in self.defs and self.defs[node[1]][0]:
                    refs.append(node[1])
            elif node[0] in ("seq", "choice"):
                stack.extend(node[1])
            elif node[0] in ("repeat", "not"):
                stack.append(node[1])
        return refs

    def skipped(self, expr: Any, terminal: bool) -> Any:
        return expr if terminal or self.skip is None else ("seq", [expr, ("ref", self.skip)])

    def node(self, node: Any, hint: str, terminal: bool) -> Any:
        kind = node[0]
        if kind == "seq":
            if not node[1]:
                return ("empty",)
            items = [self.node(c, hint, terminal) for c in node[1]]
            return items[0] if len(items) == 1 else ("seq", items)
        if kind == "choice":
            items = [self.node(c, hint, terminal) for c in node[1]]
            return items[0] if len(items) == 1 else ("choice", items)
        if kind == "repeat":
            child = self.node(node[1], hint + "_repeat", terminal)
            rule = child[1] if child[0] == "ref" else self.rules.add_hint(hint + "_repeat", child)
            return ("repeat", rule, node[2], node[3])
        if kind == "name":
            ref = self.defs.get(node[1])
            if ref is None:
                raise LarkError(f"unknown name {node[1]!r}")
            if terminal and not ref[0]:
                raise LarkError(f"terminal cannot reference rule {node[1]!r}")
            expr = ("ref", self.rules.ids[node[1]])
            return self.skipped(expr, terminal) if ref[0] else expr
        if kind == "str":
            expr = _string_expr(node[1], node[2])
            return self.skipped(expr, terminal) if node[1] else expr
        if kind == "regex":
            try:
                expr = ("ref", self.rules.add_grammar(regex_rules(node[1], node[2], hint), 0))
            except Unsupported as e:
                self.unsupported, expr = self.unsupported or str(e), ("empty",)
            return self.skipped(expr, terminal)
        if kind == "range":
            if len(node[1]) != 1 or len(node[2]) != 1 or "\0" in (node[1], node[2]):
                raise LarkError("character range endpoints must be one character")
            if node[1] > node[2]:
                raise LarkError("character range start must not exceed end")
            return self.skipped(("class", False, [(ord(node[1]), ord(node[2]))]), terminal)
        raise LarkError("regular-expression complement '~' is not supported")


#: ``%import common.X``: xgrammar's ``CommonRegexes`` (Lark's common.lark as regexes)
_FLOAT = r"([0-9]+\.[0-9]*|\.[0-9]+)([eE](\+|-)?[0-9]+)?|[0-9]+[eE](\+|-)?[0-9]+"
_NUMBER = r"([0-9]+)|" + _FLOAT
COMMON = {f"common.{k}": v for k, v in {
    "DIGIT": "[0-9]", "HEXDIGIT": "[a-fA-F0-9]", "INT": "[0-9]+", "SIGNED_INT": r"(\+|-)?[0-9]+",
    "DECIMAL": r"([0-9]+\.[0-9]*)|(\.[0-9]+)", "_EXP": r"[eE](\+|-)?[0-9]+", "FLOAT": _FLOAT,
    "SIGNED_FLOAT": r"(\+|-)?(" + _FLOAT + ")", "NUMBER": _NUMBER,
    "SIGNED_NUMBER": r"(\+|-)?(" + _NUMBER + ")", "ESCAPED_STRING": r'\"([^\"\\]|\\.)*\"',
    "LCASE_LETTER": "[a-z]", "UCASE_LETTER": "[A-Z]", "LETTER": "[A-Za-z]", "WORD": "[A-Za-z]+",
    "CNAME": "[_A-Za-z][_A-Za-z0-9]*", "WS_INLINE": r"[ \t]+", "WS": r"[ \t\f\r\n]+",
    "CR": r"\r", "LF": r"\n", "NEWLINE": r"(\r?\n)+", "SH_COMMENT": r"#[^\n]*",
    "CPP_COMMENT": r"//[^\n]*", "C_COMMENT": r"\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\/",
    "SQL_COMMENT": r"--[^\n]*"}.items()}


def _string_expr(text: str, flags: str) -> Any:
    if not flags:
        return ("bytes", text) if text else ("empty",)
    items: list[Any] = []
    if text and text[0] == "\0":  # xgrammar decodes the C string: nothing
        raise LarkError("case-insensitive string is not valid UTF-8")
    for c in text.split("\0", 1)[0]:
        if not c.isascii():
            raise LarkError("case-insensitive string literals support ASCII characters only")
        items.append(("class", False, [(ord(c.lower()), ord(c.lower())),
                                       (ord(c.upper()), ord(c.upper()))])
                     if c.isalpha() else ("bytes", c))
    if not items:
        return ("empty",)
    return items[0] if len(items) == 1 else ("seq", items)


def lark_to_ebnf(text: str) -> str:
    """The EBNF vLLM 0.33 sends for the Lark grammar ``text`` (xgrammar's printed grammar).
    Raises :class:`LarkError` when xgrammar refuses it, :class:`Unsupported` for what is not
    ported.

    Why memoized: a render checks the grammar (:func:`lark_error`) and then builds the engine's
    constraint from it, so one request converts the same text twice; the last few outcomes are
    kept (a fresh exception is raised each time)."""
    ebnf, error = _converted(text)
    if error is not None:
        raise error[0](error[1])
    return ebnf


@lru_cache(maxsize=8)
def _converted(text: str) -> tuple[str, tuple[type[Exception], str] | None]:
    try:
        return _convert(text), None
    except (LarkError, Unsupported) as e:
        return "", (type(e), str(e))


def _convert(text: str) -> str:
    compiler = _Compiler(*parse(text))
    rules = compiler.compile()
    if compiler.unsupported:
        raise Unsupported(compiler.unsupported)
    root = rules.ids["start"]
    rename_root(rules, root)
    rules = normalize(rules)
    return print_rules(rules, reachable(rules, root))


def lark_error(text: str) -> str | None:
    """Why xgrammar refuses the Lark grammar ``text``, or None (accepted, or not ported)."""
    try:
        lark_to_ebnf(text)
    except LarkError as e:
        return str(e) or "invalid Lark grammar"
    except Unsupported:
        return None
    return None


__all__ = ["LarkError", "Unsupported", "grammar_is_likely_lark", "lark_error", "lark_to_ebnf"]
