"""Lark grammar syntax as xgrammar 0.2.8 reads it (``lark_converter.cc``'s parser, over
:mod:`tito.core.lark_lex`'s tokens), for :mod:`tito.core.lark_convert`: parsed to small tuples.

Grammar: items one a line; ``name: body`` (``?name`` / ``!name`` the same; a name whose first
letter after one ``_`` is upper case is a terminal); ``%ignore body``; ``%import a.b.C``,
``%import a.b.C -> D``, ``%import a.b (C, D)``. Bodies: alternatives ``|`` (also starting a new
line), sequences, ``(...)`` groups, ``[...]`` optional, ``"string"`` (JSON escapes; ``"..."i``
ASCII case-insensitive), ``"a".."z"`` ranges, ``/regex/flags``, names, ``-> alias`` (dropped);
repetitions ``? * +``, ``~n``, ``~n..m``, ``{n}``, ``{n,}``, ``{,m}``, ``{n,m}`` (counts at most
2**31 - 1). Refused (:class:`LarkError`, as xgrammar): a syntax error, a bad string literal,
priorities (``name.2``), templates, ``::``, ``&``, ``%if``, unknown directives. Not ported
(:class:`Unsupported`): what :mod:`tito.core.lark_lex` does not port, rule attributes
``name[...]``.

Nodes: ``("seq", [nodes])``, ``("choice", [nodes])``, ``("repeat", node, lo, hi)`` (hi -1:
unbounded), ``("name", text)``, ``("str", text, flags)``, ``("range", a, b)``,
``("regex", pattern, flags)``, ``("not", node)``.

Bounds: one pass over the tokens; group nesting at most :data:`MAX_DEPTH` (deeper is
:class:`Unsupported`).
"""

from __future__ import annotations

from typing import Any

from tito.core.lark_lex import LarkError, Unsupported, json_string, tokens

MAX_DEPTH = 64
_INT32_MAX = 2**31 - 1


# -- parser --------------------------------------------------------------------------------


class _Parser:
    def __init__(self, toks: list[tuple[str, Any]]) -> None:
        self.toks, self.pos, self.depth = toks, 0, 0

    def peek(self, k: int = 0) -> str:
        return self.toks[min(self.pos + k, len(self.toks) - 1)][0]

    def match(self, kind: str) -> bool:
        if self.peek() == kind:
            self.pos += 1
            return True
        return False

    def take(self, kind: str, message: str) -> str:
        if self.peek() != kind:
            raise LarkError(message)
        self.pos += 1
        return self.toks[self.pos - 1][1]

    def newlines(self) -> None:
        while self.match("nl"):
            pass

    def document(self) -> tuple[list[tuple[str, bool, Any]], list[Any],
                                list[tuple[str, str]]]:
        defs: list[tuple[str, bool, Any]] = []
        ignores: list[Any] = []
        imports: list[tuple[str, str]] = []
        self.newlines()
        while self.peek() != "end":
            if self.match("ignore"):
                ignores.append(self.choice())
            elif self.match("import"):
                self.imports(imports)
            elif self.peek() == "directive":
                raise LarkError(f"directive {self.toks[self.pos][1]} is not supported")
            else:
                defs.append(self.definition())
            if self.peek() not in ("nl", "end"):
                raise LarkError("expected end of grammar item")
            self.newlines()
        return defs, ignores, imports

    def imports(self, out: list[tuple[str, str]]) -> None:
        """``%import a.b.C``, ``%import a.b.C -> D``, ``%import a.b (C, D)``: (path, name)."""
        path = self.take("name", "expected import path")
        while self.match("."):
            path += "." + self.take("name", "expected name after '.'")
        if self.match("("):
            out.append((path + "." + (name := self.take("name", "expected imported name")), name))
            while self.match(","):
                name = self.take("name", "expected imported name")
                out.append((path + "." + name, name))
            self.take(")", "expected ')' after import list")
            return
        name = path.rsplit(".", 1)[-1]
        if self.match("->"):
            name = self.take("name", "expected import alias")
        out.append((path, name))

    def definition(self) -> tuple[str, bool, Any]:
        raw = self.take("name", "expected rule or terminal name")
        name, terminal = raw[1:] if raw[:1] in "!?" else raw, _is_terminal(raw)
        if self.peek() == "[":
            if terminal:
                raise LarkError("attributes are only supported on rules")
            raise Unsupported("rule attributes")
        if self.peek() == ".":
            raise LarkError("rule and terminal priorities are not supported")
        if self.peek() == "::":
            raise LarkError("parametric grammar is not supported")
        if self.peek() == "{":
            raise LarkError("Lark templates are not supported")
        self.take(":", "expected ':' after rule name")
        return name, terminal, self.choice()

    def choice(self) -> Any:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported("nesting")
        alternatives = [self.sequence()]
        while self.separator():
            alternatives.append(self.sequence())
        self.depth -= 1
        return alternatives[0] if len(alternatives) == 1 else ("choice", alternatives)

    def separator(self) -> bool:
        if self.match("|"):
            return True
        saved = self.pos
        self.newlines()
        if self.match("|"):
            return True
        if self.peek() in (")", "]", "}"):
            return False
        self.pos = saved
        return False

    def sequence(self) -> Any:
        elements = []
        while self.peek() not in ("nl", "|", ")", "]", "}", "end", "->", "&", "if"):
            elements.append(self.expr())
        if self.match("->"):
            self.take("name", "expected alias name after '->'")
        if self.peek() == "&":
            raise LarkError("terminal intersection '&' is not supported")
        if self.peek() == "if":
            raise LarkError("parametric %if conditions are not supported")
        return ("seq", elements)

    def integer(self) -> int:
        text = self.take("num", "expected integer")
        digits = text[1:] if text[:1] in "+-" else text
        if not digits.isdigit() or text[0] == "-" and int(digits) != 0 \
                or int(digits) > _INT32_MAX:
            raise LarkError("invalid repetition count")
        return int(digits)

    def expr(self) -> Any:
        negated = self.match("~")
        atom = self.atom()
        if negated:
            atom = ("not", atom)
        lo = hi = -1
        if self.match("?"):
            lo, hi = 0, 1
        elif self.match("*"):
            lo, hi = 0, -1
        elif self.match("+"):
            lo, hi = 1, -1
        elif self.match("~"):
            lo = hi = self.integer()
            if self.match(".."):
                hi = self.integer()
        elif self.match("{"):
            lo = 0 if self.peek() == "," else self.integer()
            if self.match(","):
                hi = -1 if self.peek() == "}" else self.integer()
            else:
                hi = lo
            self.take("}", "expected '}' after repetition range")
        if lo == -1:
            return atom
        if hi != -1 and hi < lo:
            raise LarkError("repetition end must be greater than or equal to start")
        return ("repeat", atom, lo, hi)

    def atom(self) -> Any:
        kind = self.peek()
        if self.match("("):
            node = self.choice()
            self.take(")", "expected ')' after group")
            return node
        if self.match("["):
            node = self.choice()
            self.take("]", "expected ']' after optional group")
            return ("repeat", node, 0, 1)
        if self.match("regex"):
            return ("regex", *self.toks[self.pos - 1][1])
        if self.match("str"):
            text, flags = _literal(self.toks[self.pos - 1][1])
            if self.match(".."):
                end, end_flags = _literal(self.take("str", "expected string after '..'"))
                if flags or end_flags:
                    raise LarkError("flags are not allowed on character ranges")
                return ("range", text, end)
            return ("str", text, flags)
        if self.match("name"):
            raw = self.toks[self.pos - 1][1]
            if self.peek() == "::":
                raise LarkError("parametric grammar is not supported")
            if self.peek() == "{" and self.peek(1) not in (",", "num"):
                raise LarkError("Lark templates are not supported")
            return ("name", raw[1:] if raw[:1] in "!?" else raw)
        if kind == "directive":
            raise LarkError(f"directive {self.toks[self.pos][1]} is not supported")
        raise LarkError("expected grammar expression")


def _is_terminal(raw: str) -> bool:
    """xgrammar's ``IsTerminalName``: upper case after an optional ``!``/``?`` and one ``_``."""
    i = 1 if raw[:1] in "!?" else 0
    i += raw[i:i + 1] == "_"
    return raw[i:i + 1].isascii() and raw[i:i + 1].isupper()


def _literal(token: str) -> tuple[str, str]:
    flags = "i" if token.endswith("i") else ""
    return json_string(token[:-1] if flags else token), flags


def parse(text: str) -> tuple[list[tuple[str, bool, Any]], list[Any], list[tuple[str, str]]]:
    """``text``'s definitions ``(name, is_terminal, body)``, ``%ignore`` bodies and
    ``%import`` (path, local name) pairs."""
    return _Parser(tokens(text)).document()


__all__ = ["LarkError", "MAX_DEPTH", "Unsupported", "parse"]
