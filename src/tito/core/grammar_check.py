"""Syntax checks of the constraint languages an engine compiles: xgrammar's regex, EBNF and
JSON-schema dialects, each answering "why not" (a reason) or None (accepted).

Why: vLLM 0.33's render server refuses a structural tag that xgrammar cannot compile (a 400),
and drops the or-format when the request's own constraint fails xgrammar's validation. tito does
not ship xgrammar (a native wheel, ~1 s of cold start); these checks follow xgrammar 0.2.8's
parsers (``regex_converter.cc``, ``grammar_parser.cc``, ``json_schema_converter.cc``) for the
errors they raise, and accept whatever they do not recognise as an error (a false refusal would
turn away a request vLLM serves; a missed one reaches the engine, which reports it).

Rules (each a reason for refusal):

    regex:   a NUL; unbalanced ``(`` / ``)``; ``(?`` other than ``(?:`` and ``(?<name>``
             (lookaround, flags); an unclosed or empty ``[]``, a reversed range ``[z-a]``; an
             unfinished escape; backreferences ``\\1``-``\\9`` / ``\\k``, ``\\p`` ``\\P``, ``\\b``
             ``\\B``; a repetition that repeats nothing (at the start, after ``(`` or ``|``) or
             follows another (``a**``, ``a{2}+``; one lazy ``?`` is allowed); ``{n,m}`` not
             digits, or n > m
    EBNF:    ``name ::= body`` rules, each starting a line; bodies of strings, ``[...]`` classes,
             rule references (defined somewhere), groups, ``|``, ``* + ?`` and ``{n,m}``;
             ``root`` defined once; macro calls ``Name(...)`` are accepted unchecked
    schema:  an object or ``true`` (``false`` at the top); ``type`` a known name or a list of
             them; ``enum`` a non-empty list; ``properties`` an object of schemas, ``required``
             a list, ``items`` / ``additionalProperties`` schemas; ``anyOf`` / ``oneOf`` /
             ``allOf`` lists of schemas; a local ``$ref`` that resolves; min <= max for
             lengths, items, properties and numbers (numbers, not strings); a string
             ``pattern`` a valid regex

Bounds: every check is linear in its input (one pass, no backtracking); the schema walk stops
at :data:`MAX_DEPTH` levels (deeper input is refused before, by the nesting check).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_DEPTH = 128
_HEX = frozenset("0123456789abcdefABCDEF")
_ESC_SIMPLE = frozenset("^$.*+?\\()[]{}|/-nrtvf0")
_QUANT = frozenset("*+?{")


def regex_error(pattern: str) -> str | None:
    """Why xgrammar's regex converter refuses ``pattern``, or None."""
    if "\x00" in pattern:
        return "a NUL character"  # vLLM refuses it before xgrammar's converter sees it
    n, i, depth = len(pattern), 0, 0
    atom = False  # a preceding element a quantifier may repeat
    while i < n:
        c = pattern[i]
        if c in "^$":
            i += 1
        elif c == "[":
            err, i = _char_class(pattern, i + 1)
            if err:
                return err
            atom = True
        elif c == "(":
            i += 1
            depth += 1
            if i < n and pattern[i] == "?":
                i += 1
                if i < n and pattern[i] == ":":
                    i += 1
                elif i < n and pattern[i] == "<" and pattern[i + 1:i + 2] not in ("=", "!"):
                    j = i + 1
                    while j < n and pattern[j].isascii() and pattern[j].isalpha():
                        j += 1
                    if j >= n or pattern[j] != ">":
                        return "invalid named capturing group"
                    i = j + 1
                else:
                    return "lookaround and group flags are not supported"
            atom = False
        elif c == ")":
            if depth == 0:
                return "unmatched ')'"
            depth -= 1
            i += 1
            atom = True
        elif c in "*+?" or c == "{":
            if not atom:
                return "nothing to repeat"
            if c == "{":
                err, i = _repetition(pattern, i + 1)
                if err:
                    return err
            else:
                i += 1
            if i < n and pattern[i] == "?":
                i += 1
            if i < n and pattern[i] in _QUANT:
                return "two consecutive repetition modifiers"
            atom = False
        elif c == "|":
            i += 1
            atom = False
        elif c == "\\":
            if i + 1 >= n:
                return "escape sequence is not finished"
            e = pattern[i + 1]
            if e in "123456789k":
                return "backreferences are not supported"
            if e in "pP":
                return "unicode property escapes are not supported"
            if e in "bB":
                return "word boundaries are not supported"
            err, i = _escape(pattern, i)
            if err:
                return err
            atom = True
        else:
            i += 1
            atom = True
    return "the parenthesis is not closed" if depth else None


def _escape(p: str, i: int) -> tuple[str | None, int]:
    """One escape at ``p[i] == '\\'`` (not a class escape): (error, next index)."""
    n, e = len(p), p[i + 1]
    if e == "u":
        if p[i + 2:i + 3] == "{":
            j = i + 3
            while j < n and p[j] in _HEX and j - i - 3 <= 6:
                j += 1
            if j == i + 3 or j - i - 3 > 6 or j >= n or p[j] != "}":
                return "invalid unicode escape", i
            return None, j + 1
        if n - i < 5:
            return "escape sequence is not finished", i
        return None, i + 6 if n - i >= 6 and all(ch in _HEX for ch in p[i + 2:i + 6]) else i + 2
    if e == "x":
        if n - i < 4:
            return "escape sequence is not finished", i
        return None, i + 4 if all(ch in _HEX for ch in p[i + 2:i + 4]) else i + 2
    if e == "c":
        if n - i < 3 or not p[i + 2].isascii() or not p[i + 2].isalpha():
            return "invalid control character escape", i
        return None, i + 3
    return None, i + 2  # known or unknown (matched literally) single-character escapes


def _char_class(p: str, i: int) -> tuple[str | None, int]:
    """A class body from ``p[i]`` (after ``[``): (error, index after ``]``)."""
    n = len(p)
    if i < n and p[i] == "]":
        return "empty character class", i
    if i < n and p[i] == "^":
        i += 1
    prev: int | None = None  # code point of the last single char (for ranges)
    pending_range = False
    while i < n and p[i] != "]":
        if p[i] == "\\":
            if i + 1 >= n:
                return "escape sequence is not finished", i
            if p[i + 1] in "dDwWsS":
                i, cp = i + 2, None
            else:
                start = i
                err, i = _escape(p, i)
                if err:
                    return err, i
                cp = _escaped_code(p[start:i])
        elif p[i] == "-" and prev is not None and i + 1 < n and p[i + 1] != "]":
            pending_range, i = True, i + 1
            continue
        else:
            cp, i = ord(p[i]), i + 1
        if pending_range:
            if cp is not None and prev is not None and cp < prev:
                return "reversed range in character class", i
            pending_range, prev = False, None
        else:
            prev = cp
    if i >= n:
        return "unclosed '['", i
    return None, i + 1


def _escaped_code(esc: str) -> int | None:
    simple = {"n": 10, "r": 13, "t": 9, "v": 11, "f": 12, "0": 0}
    e = esc[1]
    if e in simple:
        return simple[e]
    if e in "ux":
        digits = esc[2:].strip("{}")
        return int(digits, 16) if digits and all(c in _HEX for c in digits) else ord(e)
    if e == "c":
        return ord(esc[2]) % 32
    return ord(e)


def _repetition(p: str, i: int) -> tuple[str | None, int]:
    """``{n}``, ``{n,}``, ``{n,m}`` from ``p[i]`` (after ``{``): (error, index after ``}``)."""
    n, j = len(p), i
    while j < n and p[j].isdigit():
        j += 1
    if j == i:
        return "invalid repetition count", j
    low = int(p[i:j])
    if j < n and p[j] == "}":
        return None, j + 1
    if j >= n or p[j] != ",":
        return "invalid repetition count", j
    k = j + 1
    while k < n and p[k].isdigit():
        k += 1
    if k >= n or p[k] != "}":
        return "invalid repetition count", k
    if k > j + 1 and int(p[j + 1:k]) < low:
        return "repetition lower bound above the upper bound", k
    return None, k + 1


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
            err, _ = _char_class(text[:j + 1], i + 1) if j > i + 1 else (None, 0)
            if err and err != "empty character class":
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
            if not self.take("int"):
                return "expect integer in repetition range"
            low = int(self.toks[self.pos - 1][1])
            if self.take(","):
                if self.peek() == "int":
                    if int(self.toks[self.pos][1]) < low:
                        return "repetition lower bound above the upper bound"
                    self.pos += 1
            if not self.take("}"):
                return "expect ',' or '}' in repetition range"
        return None


# -- JSON schema ---------------------------------------------------------------------------

_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})
_SCHEMA_MAPS = ("properties", "patternProperties")
_SCHEMA_ONE = ("items", "additionalProperties", "unevaluatedProperties", "propertyNames",
               "additionalItems", "unevaluatedItems", "contains", "not")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_BOUNDS = (("minLength", "maxLength"), ("minItems", "maxItems"),
           ("minProperties", "maxProperties"))


def schema_error(schema: Any) -> str | None:
    """Why xgrammar's JSON-schema converter refuses ``schema``, or None."""
    if schema is False:
        return "schema 'false' cannot accept any value"
    return _schema(schema, schema, 0)


def _schema(node: Any, root: Any, depth: int) -> str | None:
    if isinstance(node, bool):
        return None
    if not isinstance(node, Mapping):
        return f"a schema must be an object or a boolean, not {type(node).__name__}"
    if depth > MAX_DEPTH:
        return "schema nested too deeply"
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#") and _resolve(root, ref) is None:
        return f"cannot resolve $ref {ref}"
    types = node.get("type")
    names = types if isinstance(types, list) else [types] if types is not None else []
    for t in names:
        if not isinstance(t, str):
            return "type should be a string"
        if t not in _TYPES:
            return f'unsupported type "{t}"'
    if "enum" in node and not (isinstance(node["enum"], list) and node["enum"]):
        return "enum must be a non-empty array"
    if "required" in node and not isinstance(node["required"], list):
        return "required must be an array"
    for key in _SCHEMA_MAPS:
        if key in node:
            if not isinstance(node[key], Mapping):
                return f"{key} must be an object"
            for sub in node[key].values():
                if err := _schema(sub, root, depth + 1):
                    return err
    for key in _SCHEMA_ONE:
        if key in node and (err := _schema(node[key], root, depth + 1)):
            return err
    for key in _SCHEMA_LISTS:
        if key == "allOf" and isinstance(node.get(key), list) and len(node[key]) >= 2:
            continue  # xgrammar does not convert a multi-branch allOf (it accepts anything)
        if key in node:
            if not isinstance(node[key], list):
                return f"{key} must be an array"
            for sub in node[key]:
                if err := _schema(sub, root, depth + 1):
                    return err
    return _bounds(node, set(names))


def _bounds(node: Mapping[str, Any], types: set[str]) -> str | None:
    for low, high in _BOUNDS:
        a, b = node.get(low), node.get(high)
        if _num(a) and _num(b) and a > b:
            return f"{low} is greater than {high}"
    if not types or types & {"integer", "number"}:
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if key in node and not _num(node[key]):
                return "value must be a number"
        lows = [v for v in (node.get("minimum"), node.get("exclusiveMinimum")) if v is not None]
        highs = [v for v in (node.get("maximum"), node.get("exclusiveMaximum")) if v is not None]
        if lows and highs and max(lows) > min(highs):
            return "invalid range: minimum greater than maximum"
        ex_lo, ex_hi = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
        if (ex_lo is not None and ex_lo == min(highs, default=None)) or (
                ex_hi is not None and ex_hi == max(lows, default=None)):
            return "invalid range: empty range"
    pattern = node.get("pattern")
    if isinstance(pattern, str) and (not types or "string" in types):
        return regex_error(pattern)
    prefix = node.get("prefixItems")
    if (node.get("items") is False and isinstance(prefix, list) and _num(node.get("minItems"))
            and node["minItems"] > len(prefix)):
        return "minItems is greater than the number of prefixItems"
    return None


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _resolve(root: Any, ref: str) -> Any:
    node = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


__all__ = ["ebnf_error", "regex_error", "schema_error"]
