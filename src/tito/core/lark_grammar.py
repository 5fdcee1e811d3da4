"""xgrammar 0.2.8's grammar model as its Lark and regex front ends build it, for
:mod:`tito.core.lark_convert` and :mod:`tito.core.lark_regex`: rule naming (``GrammarBuilder``),
the normalizer (``SingleElementExprEliminator`` + ``StructureNormalizer``), the reachable rules
(``DeadCodeEliminator``) and the printer (``GrammarPrinter``).

Expressions are tuples: ``("empty",)``, ``("bytes", str)``, ``("class", negated, ranges)``,
``("classstar", negated, ranges)`` (an EBNF ``[...]*``), ``("ref", rule)``,
``("repeat", rule, lo, hi)`` (hi -1: unbounded), ``("regex", pattern)`` (a rule body only),
``("seq", items)``, ``("choice", items)``.

Normal form (each as xgrammar): every rule a choice of sequences of atoms (``""`` only as the
first alternative), a one-element sequence or choice is its element, nested sequences and
choices flattened, a choice inside a sequence a new rule ``<rule>_<i>``; a ``Regex`` body
stays as it is. Printing: ``name ::= (alternatives)``, each ``(elements)``, strings in double
quotes with C escapes (``\\?`` too) and ``\\xHH`` / ``\\uHHHH`` / ``\\UHHHHHHHH`` outside
printable ASCII (up to a NUL: xgrammar prints a C string), classes ``[...]`` (``-`` and ``]`` escaped), ``name{lo, hi}``,
``Regex("...")``.

Bounds: every pass visits each expression once; nesting is bounded by the front ends.
"""

from __future__ import annotations

from typing import Any


class Rules:
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

    def new_name(self, hint: str) -> str:
        """``GetNewRuleName``."""
        if hint not in self.ids:
            return hint
        k = self.counts.get(hint, 1)
        while f"{hint}_{k}" in self.ids:
            k += 1
        self.counts[hint] = k
        return f"{hint}_{k}"

    def add_hint(self, hint: str, body: Any = None) -> int:
        return self.add(self.new_name(hint), body)

    def add_grammar(self, sub: Rules, root: int) -> int:
        """xgrammar's ``SubGrammarAdder``: ``sub``'s rules added under new names (each its own
        name as the hint), references renumbered; the new id of ``sub``'s root."""
        ids = [self.add_hint(name) for name in sub.names]
        for i, body in enumerate(sub.bodies):
            self.bodies[ids[i]] = _renumber(body, ids)
        return ids[root]


def _renumber(expr: Any, ids: list[int]) -> Any:
    kind = expr[0]
    if kind == "ref":
        return ("ref", ids[expr[1]])
    if kind == "repeat":
        return ("repeat", ids[expr[1]], expr[2], expr[3])
    if kind in ("seq", "choice"):
        return (kind, [_renumber(e, ids) for e in expr[1]])
    return expr


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

    def __init__(self, rules: Rules) -> None:
        self.base = rules
        self.out = Rules()
        for name in rules.names:
            self.out.add(name)
        self.current = ""

    def apply(self) -> Rules:
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
        if expr[0] == "regex":
            return expr
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


def normalize(rules: Rules) -> Rules:
    """xgrammar's ``StructureNormalizer`` (after ``SingleElementExprEliminator``)."""
    return _Normalizer(rules).apply()


def rename_root(rules: Rules, root: int) -> None:
    """xgrammar's ``RootRuleRenamer``: the root is ``root``; a rule already named ``root``
    becomes ``root_<i>``, the first free i."""
    if rules.names[root] == "root":
        return
    if "root" in rules.ids:
        taken = set(rules.names)
        rules.names[rules.ids["root"]] = next(
            f"root_{i}" for i in range(len(taken) + 1) if f"root_{i}" not in taken)
    rules.names[root] = "root"
    rules.ids = {name: i for i, name in enumerate(rules.names)}


def reachable(rules: Rules, root: int) -> list[int]:
    """The rules reachable from ``root``, in id order (``DeadCodeEliminator``)."""
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


def escape(cp: int, extra: dict[str, str] | None = None) -> str:
    """xgrammar's ``EscapeString`` of one codepoint."""
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
    if kind in ("bytes", "regex"):  # printed as a C string: up to a NUL
        text = "".join(escape(ord(c)) for c in expr[1].split("\0", 1)[0])
        return f'"{text}"' if kind == "bytes" else f'Regex("{text}")'
    if kind in ("class", "classstar"):
        parts = "".join(escape(lo, _CLASS_ESCAPES) + (
            "" if lo == hi else "-" + escape(hi, _CLASS_ESCAPES)) for lo, hi in expr[2])
        return "[" + ("^" if expr[1] else "") + parts + "]" + ("*" if kind == "classstar" else "")
    if kind == "ref":
        return names[expr[1]]
    return f"{names[expr[1]]}{{{expr[2]}, {expr[3]}}}"


def print_rules(rules: Rules, keep: list[int]) -> str:
    """``str(grammar)`` of the rules ``keep``."""
    names = {i: rules.names[i] for i in keep}
    return "".join(f"{names[i]} ::= {_print(rules.bodies[i], names)}\n" for i in keep)


__all__ = ["Rules", "escape", "normalize", "print_rules", "reachable", "rename_root"]
