"""xgrammar 0.2.8's regex dialect: why its regex converter (``regex_converter.cc``) refuses a
pattern, or None (accepted).

Why: vLLM 0.33's render refuses a structural tag whose regex xgrammar cannot convert, and drops
the or-format when the request's own regex fails; tito does not ship xgrammar (a native wheel,
~1 s of cold start). What is not recognised as an error is accepted (a false refusal would turn
away a request vLLM serves; a missed one reaches the engine, which reports it).

Rules (each a reason for refusal): a NUL; unbalanced ``(`` / ``)``; ``(?`` other than ``(?:`` and
``(?<name>`` (lookaround, flags); an unclosed or empty ``[]``, a reversed range ``[z-a]``; an
unfinished escape; backreferences ``\\1``-``\\9`` / ``\\k``, ``\\p`` ``\\P``, ``\\b`` ``\\B``; a
repetition that repeats nothing (at the start, after ``(`` or ``|``) or follows another
(``a**``, ``a{2}+``; one lazy ``?`` is allowed); ``{n,m}`` not digits, or n > m. The automaton
builder a JSON schema's ``pattern`` tries first (``fsm=True``) also takes lookaheads, ``(?i)``,
``(?P<name>`` and repeated repetitions.

Bounds: one pass, no backtracking, nothing compiled or matched.
"""

from __future__ import annotations

_HEX = frozenset("0123456789abcdefABCDEF")
_QUANT = frozenset("*+?{")


def regex_error(pattern: str, *, fsm: bool = False) -> str | None:
    """Why xgrammar's regex converter refuses ``pattern``, or None; ``fsm``: its automaton
    builder instead (a JSON schema's ``pattern`` tries it first), which also takes lookaheads
    ``(?=`` ``(?!``, ``(?i)``, ``(?P<name>`` groups and a repetition of a repetition."""
    if "\x00" in pattern:
        return "a NUL character"  # vLLM refuses it before xgrammar's converter sees it
    n, i, depth = len(pattern), 0, 0
    atom = False  # a preceding element a quantifier may repeat
    while i < n:
        c = pattern[i]
        if c in "^$":
            i += 1
        elif c == "[":
            err, i = char_class(pattern, i + 1)
            if err:
                return err
            atom = True
        elif c == "(":
            i += 1
            depth += 1
            if i < n and pattern[i] == "?":
                i += 1
                if fsm and pattern.startswith("P<", i):
                    i += 1
                if i < n and (pattern[i] == ":" or fsm and pattern[i] in "=!"):
                    i += 1
                elif fsm and pattern.startswith("i)", i):
                    i, depth = i + 2, depth - 1
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
            if i < n and pattern[i] in _QUANT and not fsm:
                return "two consecutive repetition modifiers"
            atom = fsm
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


def char_class(p: str, i: int) -> tuple[str | None, int]:
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


__all__ = ["char_class", "regex_error"]
