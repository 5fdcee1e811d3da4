"""Lark grammar syntax as xgrammar 0.2.8 reads it (``lark_converter.cc``'s lexer and parser),
for :mod:`tito.core.lark_convert`: the part tito ports, parsed to small tuples.

Grammar: items one a line (``# ...`` and ``// ...`` comments); ``name: body`` (``?name`` /
``!name`` the same; a name whose first letter after one ``_`` is upper case is a terminal);
``%ignore body``. Bodies: alternatives ``|`` (also starting a new line), sequences, ``(...)``
groups, ``[...]`` optional, ``"string"`` (JSON escapes; ``"..."i`` ASCII case-insensitive),
``"a".."z"`` ranges, names, ``-> alias`` (dropped); repetitions ``? * +``, ``~n``,
``~n..m``, ``{n}``, ``{n,}``, ``{,m}``, ``{n,m}`` (counts at most 2**31 - 1). Refused
(:class:`LarkError`, as xgrammar): a syntax error, a bad string literal, priorities
(``name.2``), templates, ``::``, ``&``, ``%if``, unknown directives. Not ported
(:class:`Unsupported`): regular expressions ``/.../``, ``%import``, ``%json``, ``%regex``,
``%lark``, ``%grammar_options``, special tokens ``<...>``, named grammars ``@name``, rule
attributes ``name[...]``.

Nodes: ``("seq", [nodes])``, ``("choice", [nodes])``, ``("repeat", node, lo, hi)`` (hi -1:
unbounded), ``("name", text)``, ``("str", text, flags)``, ``("range", a, b)``, ``("not", node)``.

Bounds: one pass over the text; group nesting at most :data:`MAX_DEPTH` (deeper is
:class:`Unsupported`).
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 64
_INT32_MAX = 2**31 - 1


class LarkError(ValueError):
    """xgrammar refuses the grammar (vLLM answers 400 where it converts)."""


class Unsupported(Exception):
    """The grammar uses a part of xgrammar's Lark that tito does not port."""


# -- lexer ---------------------------------------------------------------------------------

_SIMPLE = {",": ",", "=": "=", "(": "(", ")": ")", "[": "[", "]": "]", "{": "{", "}": "}",
           "|": "|", "&": "&", "~": "~", "*": "*"}
_DIRECTIVES = {"%ignore": "ignore", "%if": "if", "%import": None, "%json": None,
               "%regex": None, "%grammar_options": None, "%lark": None}


def _is_alpha(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _is_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-")


def _tokens(src: str) -> list[tuple[str, str]]:
    """``(kind, text)`` tokens; kinds are the punctuation itself, ``nl``, ``name``, ``num``,
    ``str``, ``ignore``, ``if``, ``directive`` (an unsupported one) and ``end``."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        nxt = src[i + 1] if i + 1 < n else ""
        if c in " \t\f":
            i += 1
        elif c in "\r\n":
            i += 2 if c == "\r" and nxt == "\n" else 1
            out.append(("nl", "\n"))
        elif c == "#" or c == "/" and nxt == "/":
            while i < n and src[i] not in "\r\n":
                i += 1
        elif c == ":":
            out.append(("::", "::") if nxt == ":" else (":", ":"))
            i += 2 if nxt == ":" else 1
        elif c == ".":
            out.append(("..", "..") if nxt == "." else (".", "."))
            i += 2 if nxt == "." else 1
        elif c == "-" or c == "+":
            if c == "-" and nxt == ">":
                out.append(("->", "->"))
                i += 2
            elif nxt.isascii() and nxt.isdigit():
                i = _number(src, i, out)
            elif c == "+":
                out.append(("+", "+"))
                i += 1
            else:
                raise LarkError("unexpected '-' character")
        elif c in _SIMPLE:
            out.append((c, c))
            i += 1
        elif c == "?" or c == "!":
            if _is_alpha(nxt) or nxt == "_":
                i = _name(src, i, out)
            elif c == "?":
                out.append(("?", "?"))
                i += 1
            else:
                raise LarkError("unexpected '!' character")
        elif c == '"':
            i = _string(src, i, out)
        elif c == "/":
            raise Unsupported("regular expressions")
        elif c == "<":
            raise Unsupported("special tokens")
        elif c == "@":
            raise Unsupported("named grammars")
        elif c == "%":
            j = i + 1
            while j < n and (_is_alpha(src[j]) or src[j] == "_"):
                j += 1
            word = src[i:j]
            if word in _DIRECTIVES and _DIRECTIVES[word] is None:
                raise Unsupported(word)
            out.append((_DIRECTIVES.get(word) or "directive", word))
            i = j
        elif _is_alpha(c) or c == "_":
            i = _name(src, i, out)
        elif c.isascii() and c.isdigit():
            i = _number(src, i, out)
        else:
            raise LarkError(f"unexpected character {c!r}")
    out.append(("end", ""))
    return out


def _name(src: str, i: int, out: list[tuple[str, str]]) -> int:
    j = i + 1 if src[i] in "!?" else i
    while j < len(src) and _is_word(src[j]):
        j += 1
    out.append(("name", src[i:j]))
    return j


def _number(src: str, i: int, out: list[tuple[str, str]]) -> int:
    n, j = len(src), i + 1 if src[i] in "+-" else i

    def digits(k: int) -> int:
        while k < n and src[k].isascii() and src[k].isdigit():
            k += 1
        return k

    j = digits(j)
    if j < n and src[j] == "." and src[j + 1:j + 2] != ".":
        j = digits(j + 1)
    if j < n and src[j] in "eE":
        j += 1
        if j < n and src[j] in "+-":
            j += 1
        j = digits(j)
    out.append(("num", src[i:j]))
    return j


def _string(src: str, i: int, out: list[tuple[str, str]]) -> int:
    j, escaped = i + 1, False
    while j < len(src):
        c = src[j]
        if not escaped and c == '"':
            j += 1
            if src[j:j + 1] == "i":
                j += 1
            out.append(("str", src[i:j]))
            return j
        if c in "\r\n":
            break
        escaped = not escaped and c == "\\"
        j += 1
    raise LarkError("unterminated string literal")


_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                 "t": "\t"}


def _json_string(lit: str) -> str:
    """A JSON string literal as picojson reads it (``\\uXXXX`` with surrogate pairs)."""
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c < " ":
            raise LarkError("invalid string literal")
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1:i + 2]
        if e in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[e])
            i += 2
        elif e == "u":
            cp, i = _hex4(body, i + 2), i + 6
            if 0xD800 <= cp <= 0xDBFF:
                if body[i:i + 2] != "\\u":
                    raise LarkError("invalid string literal")
                low = _hex4(body, i + 2)
                if not 0xDC00 <= low <= 0xDFFF:
                    raise LarkError("invalid string literal")
                cp, i = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00), i + 6
            elif 0xDC00 <= cp <= 0xDFFF:
                raise LarkError("invalid string literal")
            out.append(chr(cp))
        else:
            raise LarkError("invalid string literal")
    return "".join(out)


def _hex4(s: str, i: int) -> int:
    h = s[i:i + 4]
    if len(h) != 4 or not all(c in "0123456789abcdefABCDEF" for c in h):
        raise LarkError("invalid string literal")
    return int(h, 16)


# -- parser --------------------------------------------------------------------------------


class _Parser:
    def __init__(self, toks: list[tuple[str, str]]) -> None:
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

    def document(self) -> tuple[list[tuple[str, bool, Any]], list[Any]]:
        defs: list[tuple[str, bool, Any]] = []
        ignores: list[Any] = []
        self.newlines()
        while self.peek() != "end":
            if self.match("ignore"):
                ignores.append(self.choice())
            elif self.peek() == "directive":
                raise LarkError(f"directive {self.toks[self.pos][1]} is not supported")
            else:
                defs.append(self.definition())
            if self.peek() not in ("nl", "end"):
                raise LarkError("expected end of grammar item")
            self.newlines()
        return defs, ignores

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
    return _json_string(token[:-1] if flags else token), flags


def parse(text: str) -> tuple[list[tuple[str, bool, Any]], list[Any]]:
    """``text``'s definitions ``(name, is_terminal, body)`` and ``%ignore`` bodies."""
    return _Parser(_tokens(text)).document()


__all__ = ["LarkError", "MAX_DEPTH", "Unsupported", "parse"]
