"""Lark grammars to xgrammar's EBNF, as vLLM 0.33 sends them: ``str(xgrammar.Grammar.from_lark(g))``
(xgrammar 0.2.8's ``lark_converter.cc``, normalized and printed), byte for byte, for the part of
Lark tito parses (:mod:`tito.core.lark_parse`: no regular expressions, imports, special tokens
or named grammars: those are :class:`Unsupported`, sent as they are).

Why: vLLM 0.33 puts a request's Lark ``grammar`` converted to EBNF into a structural tag (the
or-format's second branch; gpt-oss's final channel), and refuses one xgrammar cannot convert
there ("Invalid grammar specification.").

Rules (each as xgrammar): ``start`` is the root, printed ``root`` (a rule already named
``root`` becomes ``root_<i>``, the first free i); terminals are compiled first, then the
ignore rules (``lark_ignore_item``, ``lark_ignore ::= lark_ignore_item{0, -1}``, appended after
every non-empty string, range and terminal reference of a rule), then the rules; a repetition
of anything but a name is a new rule ``<rule>_repeat`` (``_1``, ``_2``... when the name is
taken); a case-insensitive letter is ``[aA]``. Then the grammar is normalized (a one-element
sequence or choice is its element, nested sequences and choices are flattened, the empty
alternative goes first, a choice inside a sequence is a new rule ``<rule>_<i>``) and the rules
unreachable from the root are dropped. Refused besides the syntax: an unknown or duplicate
name, no ``start``, a terminal referring to a rule or (through others) to itself, a range
whose ends are not single characters or are reversed, ``~`` complements, non-ASCII
case-insensitive strings.

Printing: ``name ::= (alternatives)``, each ``(elements)``, strings in double quotes with C
escapes (``\\?`` too) and ``\\xHH`` / ``\\uHHHH`` / ``\\UHHHHHHHH`` outside printable ASCII,
classes ``[...]`` (``-`` and ``]`` escaped), repetitions ``name{lo, hi}``.

Bounds: linear in the grammar (every rule and expression visited once per pass).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tito.core.lark_parse import LarkError, Unsupported, parse


def grammar_is_likely_lark(grammar: str) -> bool:
    """vLLM's ``grammar_is_likely_lark``: no line (comments removed) defines a rule with
    ``::=`` (a blank grammar counts as Lark)."""
    for line in grammar.split("\n"):
        line = _COMMENT.sub("", line).strip()
        if line and "::=" in line:
            return False
    return bool(grammar)


_COMMENT = re.compile(r"(#|//).*$")

# -- compile: grammar expressions are tuples ("empty",), ("bytes", str), ("class", neg,
# ranges), ("ref", rule), ("repeat", rule, lo, hi), ("seq", items), ("choice", items) ----------


class _Rules:
    """xgrammar's ``GrammarBuilder`` naming: a hint is taken as is, else ``hint_1``,
    ``hint_2``... (a counter per hint)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.bodies: list[Any] = []
        self.ids: dict[str, int] = {}
        self.counts: dict[str, int] = {}

    def add(self, name: str, body: Any = None) -> int:
        self.ids[name] = len(self.names)
        self.names.append(name)
        self.bodies.append(body)
        return self.ids[name]

    def add_hint(self, hint: str, body: Any = None) -> int:
        if hint in self.ids:
            k = self.counts.get(hint, 1)
            while f"{hint}_{k}" in self.ids:
                k += 1
            self.counts[hint] = k
            hint = f"{hint}_{k}"
        return self.add(hint, body)


class _Compiler:
    def __init__(self, defs: list[tuple[str, bool, Any]], ignores: list[Any]) -> None:
        self.defs = {name: (terminal, body) for name, terminal, body in defs}
        if len(self.defs) != len(defs):
            raise LarkError("duplicate rule or terminal")
        self.order, self.ignores = defs, ignores
        self.rules = _Rules()
        self.skip: int | None = None

    def compile(self) -> _Rules:
        if "start" not in self.defs:
            raise LarkError("no start rule found")
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
        if kind == "range":
            if len(node[1]) != 1 or len(node[2]) != 1:
                raise LarkError("character range endpoints must be one character")
            if node[1] > node[2]:
                raise LarkError("character range start must not exceed end")
            return self.skipped(("class", False, [(ord(node[1]), ord(node[2]))]), terminal)
        raise LarkError("regular-expression complement '~' is not supported")


def _string_expr(text: str, flags: str) -> Any:
    if not flags:
        return ("bytes", text) if text else ("empty",)
    items: list[Any] = []
    for c in text:
        if not c.isascii():
            raise LarkError("case-insensitive string literals support ASCII characters only")
        items.append(("class", False, [(ord(c.lower()), ord(c.lower())),
                                       (ord(c.upper()), ord(c.upper()))])
                     if c.isalpha() else ("bytes", c))
    if not items:
        return ("empty",)
    return items[0] if len(items) == 1 else ("seq", items)


# -- normalize, drop the unreachable, print ----------------------------------------------------


def _single(expr: Any) -> Any:
    """xgrammar's ``SingleElementExprEliminator``."""
    kind = expr[0]
    if kind in ("seq", "choice"):
        items = [_single(e) for e in expr[1]]
        return items[0] if len(items) == 1 else (kind, items)
    if kind == "class" and not expr[1] and len(expr[2]) == 1 and expr[2][0][0] == expr[2][0][1]:
        return ("bytes", chr(expr[2][0][0]))
    return expr


class _Normalizer:
    """xgrammar's ``StructureNormalizer``: every rule a choice of sequences of atoms."""

    def __init__(self, rules: _Rules) -> None:
        self.base = rules
        self.out = _Rules()
        for name in rules.names:
            self.out.add(name)
        self.current = ""

    def apply(self) -> _Rules:
        for i, name in enumerate(self.base.names):
            self.current = name
            self.out.bodies[i] = self.body(_single(self.base.bodies[i]))
        return self.out

    def body(self, expr: Any) -> Any:
        if expr[0] == "seq":
            return ("choice", [("seq", self.sequence(expr))])
        if expr[0] == "choice":
            return ("choice", self.choices(expr))
        if expr[0] == "empty":
            return ("choice", [expr])
        return ("choice", [("seq", [expr])])

    def choices(self, expr: Any) -> list[Any]:
        out: list[Any] = []
        empty = False
        for e in expr[1]:
            if e[0] == "seq":
                items = self.sequence(e)
                if items:
                    out.append(("seq", items))
                else:
                    empty = True
            elif e[0] == "choice":
                sub = self.choices(e)
                if sub[0][0] == "empty":
                    empty, sub = True, sub[1:]
                out.extend(sub)
            elif e[0] == "empty":
                empty = True
            else:
                out.append(("seq", [e]))
        return [("empty",), *out] if empty else out

    def sequence(self, expr: Any) -> list[Any]:
        out: list[Any] = []
        for e in expr[1]:
            if e[0] == "seq":
                out.extend(self.sequence(e))
            elif e[0] == "choice":
                sub = self.choices(e)
                if len(sub) == 1:
                    if sub[0][0] != "empty":
                        out.extend(sub[0][1])
                else:
                    out.append(("ref", self.out.add_hint(self.current, ("choice", sub))))
            elif e[0] != "empty":
                out.append(e)
        return out


def _reachable(rules: _Rules, root: int) -> list[int]:
    seen, queue = {root}, [root]
    while queue:
        stack = [rules.bodies[queue.pop()]]
        while stack:
            e = stack.pop()
            if e[0] in ("ref", "repeat"):
                if e[1] not in seen:
                    seen.add(e[1])
                    queue.append(e[1])
            elif e[0] in ("seq", "choice"):
                stack.extend(e[1])
    return sorted(seen)


_ESCAPES = {"'": "\\'", '"': '\\"', "?": "\\?", "\\": "\\\\", "\a": "\\a", "\b": "\\b",
            "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\0": "\\0",
            "\x1b": "\\e"}


def _escape(cp: int, extra: dict[str, str] | None = None) -> str:
    c = chr(cp)
    if extra and c in extra:
        return extra[c]
    if c in _ESCAPES:
        return _ESCAPES[c]
    if 0x20 <= cp <= 0x7E:
        return c
    return f"\\x{cp:02x}" if cp <= 0xFF else f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


_CLASS_ESCAPES = {"-": "\\-", "]": "\\]"}


def _print(expr: Any, names: dict[int, str]) -> str:
    kind = expr[0]
    if kind == "choice":
        return "(" + " | ".join(_print(e, names) for e in expr[1]) + ")"
    if kind == "seq":
        return "(" + " ".join(_print(e, names) for e in expr[1]) + ")"
    if kind == "empty":
        return '""'
    if kind == "bytes":
        return '"' + "".join(_escape(ord(c)) for c in expr[1]) + '"'
    if kind == "class":
        parts = "".join(_escape(lo, _CLASS_ESCAPES) + (
            "" if lo == hi else "-" + _escape(hi, _CLASS_ESCAPES)) for lo, hi in expr[2])
        return "[" + ("^" if expr[1] else "") + parts + "]"
    if kind == "ref":
        return names[expr[1]]
    return f"{names[expr[1]]}{{{expr[2]}, {expr[3]}}}"


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
    defs, ignores = parse(text)
    rules = _Compiler(defs, ignores).compile()
    root = rules.ids["start"]
    if "root" in rules.ids:  # xgrammar's RootRuleRenamer
        taken = set(rules.names)
        rules.names[rules.ids["root"]] = next(
            f"root_{i}" for i in range(len(taken) + 1) if f"root_{i}" not in taken)
    rules.names[root] = "root"
    rules.ids = {name: i for i, name in enumerate(rules.names)}
    rules = _Normalizer(rules).apply()
    keep = _reachable(rules, root)
    names = {i: rules.names[i] for i in keep}
    return "".join(f"{names[i]} ::= {_print(rules.bodies[i], names)}\n" for i in keep)


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
