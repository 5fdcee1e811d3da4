"""Whether xgrammar 0.2.8's automaton regex parser (``fsm_builder.cc``'s ``ParseRegexToIR``, run
by ``RegexFSMBuilder::MatchesEmpty``) refuses a pattern: the check xgrammar makes on a Lark
case-insensitive terminal ``/.../i`` before it keeps it as ``Regex("(?i)...")``.

Why a second dialect: xgrammar sends ``/.../i`` to its automaton builder, not to the regex
converter of :mod:`tito.core.lark_regex`; this parse is lighter (classes are skipped, not read)
and takes lookaheads (ignored) and ``(?P<name>``.

Rules, over the UTF-8 bytes (a leading ``(?i)`` is the flag): ``^``/``$`` anywhere are dropped;
a class runs to the first unescaped ``]`` (unclosed or empty: refused; a stray ``]`` refused);
``* + ?`` and ``{n}``, ``{n,}``, ``{n,m}`` (spaces allowed inside, at most 9 digits, n <= m; a
lazy ``?`` after) need an atom before them (not ``(`` or ``|``); ``(?:``, ``(?=...)`` /
``(?!...)`` (skipped to its ``)``), ``(?<name>`` / ``(?P<name>`` (letters, digits, ``_``) are
groups, any other ``(?`` and lookbehinds are refused, as are unbalanced parentheses; escapes:
C ones, ``\\d \\D \\w \\W \\s \\S``, ``\\xHH``, ``\\uHHHH``, ``\\u{H..}`` (1-6 digits, at most
U+10FFFF), ``\\cX``, any other character literally; ``\\b \\B \\p \\P \\k \\1-\\9`` and a
trailing backslash are refused.

Bounds: one pass over the bytes, no recursion (a stack of open groups as counts).
"""

from __future__ import annotations

_HEX = b"0123456789abcdefABCDEF"


def _at(b: bytes, i: int) -> int:
    """``std::string::operator[]`` (0 at the end)."""
    return b[i] if i < len(b) else 0


def _skip_class(b: bytes, i: int) -> int:
    """``SkipCharacterClass``: the index after the class's ``]``, or -1."""
    i += 1
    if _at(b, i) == 0x5E:
        i += 1
    while i < len(b):
        if b[i] == 0x5C:
            i += 2
        elif b[i] == 0x5D:
            return i + 1
        else:
            i += 1
    return -1


def _escape(b: bytes, i: int) -> tuple[str | None, int]:
    """``ParseRegexEscape`` outside a class at ``b[i] == '\\\\'``: (error, next index)."""
    if i + 1 >= len(b):
        return "trailing backslash", i
    e, i = chr(b[i + 1]), i + 2
    if e in "bB":
        return "word boundary assertions are not supported", i
    if e in "pP":
        return "unicode property escapes are not supported", i
    if e == "k" or e in "123456789":
        return "backreferences are not supported", i
    if e == "x":
        if i + 1 >= len(b) or b[i] not in _HEX or b[i + 1] not in _HEX:
            return "\\x must be followed by two hexadecimal digits", i
        return None, i + 2
    if e == "u" and _at(b, i) == 0x7B:
        close = b.find(b"}", i + 1)
        digits = b[i + 1:close]
        if close == -1 or close == i + 1 or close > i + 7 or any(d not in _HEX for d in digits):
            return "\\u{...} must contain one to six hexadecimal digits", i
        if int(digits, 16) > 0x10FFFF:
            return "\\u{...} escape is beyond the Unicode range", i
        return None, close + 1
    if e == "u":
        if i + 3 >= len(b) or any(d not in _HEX for d in b[i:i + 4]):
            return "\\u must be followed by four hexadecimal digits", i
        return None, i + 4
    if e == "c":
        if i >= len(b) or not chr(b[i]).isascii() or not chr(b[i]).isalpha():
            return "\\c must be followed by a letter", i
        return None, i + 1
    if b[i - 1] >= 0x80:  # a multi-byte character after the backslash, literally
        n = 2 if b[i - 1] < 0xE0 else 3 if b[i - 1] < 0xF0 else 4
        return None, i - 1 + n
    return None, i


def _count(b: bytes, i: int) -> tuple[str | None, int]:
    """``CheckRepeat`` at ``b[i] == '{'``: (error, index of the closing ``}``)."""
    def spaces(k: int) -> int:
        while k < len(b) and b[k] == 0x20:
            k += 1
        return k

    def number(k: int) -> tuple[str, int]:
        j = k
        while j < len(b) and 0x30 <= b[j] <= 0x39:
            j += 1
        return b[k:j].decode(), j

    low, i = number(spaces(i + 1))
    if not low or len(low) > 9:
        return "invalid repetition count", i
    i = spaces(i)
    if _at(b, i) == 0x7D:
        return None, i
    if _at(b, i) != 0x2C:
        return "invalid repetition count", i
    i = spaces(i + 1)
    if _at(b, i) == 0x7D:
        return None, i
    high, i = number(i)
    if not high or len(high) > 9 or int(high) < int(low):
        return "invalid repetition count", i
    i = spaces(i)
    return (None, i) if _at(b, i) == 0x7D else ("invalid repetition count", i)


def fsm_regex_error(pattern: str) -> str | None:
    """Why ``ParseRegexToIR`` refuses ``pattern`` (the ``(?i)`` flag included), or None."""
    b = pattern.encode("utf-8", "surrogatepass")
    if b.startswith(b"(?i)"):
        b = b[4:]
    # the stack as xgrammar keeps it: "(" and "|" markers and "atom"s
    stack: list[str] = []
    i, n = 0, len(b)
    while i < n:
        c = chr(b[i])
        if c in "^$":
            i += 1
        elif c == "[":
            end = _skip_class(b, i)
            if end == -1:
                return "unclosed '['"
            start = i + 1 + (_at(b, i + 1) == 0x5E)
            if start + 1 == end:
                return "empty character class"
            stack.append("atom")
            i = end
        elif c == "]":
            return "unmatched ']'"
        elif c in "+*?{":
            if not stack or stack[-1] != "atom":
                return "nothing to repeat"
            if c == "{":
                err, i = _count(b, i)
                if err:
                    return err
            if _at(b, i + 1) == 0x3F:
                i += 1
            i += 1
        elif c == "(":
            if _at(b, i + 1) == 0x3F:
                if i + 2 >= n:
                    return "group modifier is not finished"
                m = chr(b[i + 2])
                if m == ":":
                    stack.append("(")
                    i += 3
                elif m in "=!":
                    depth, j = 1, i + 3
                    while j < n and depth > 0:
                        if b[j] == 0x5C:
                            j += 2
                            continue
                        if b[j] == 0x5B:
                            j = _skip_class(b, j)
                            if j == -1:
                                return "unclosed '['"
                            continue
                        depth += (b[j] == 0x28) - (b[j] == 0x29)
                        j += 1
                    if depth:
                        return "the parenthesis is not closed"
                    stack.append("atom")
                    i = j
                elif m == "<" or m == "P" and _at(b, i + 3) == 0x3C:
                    j = name = i + 3 if m == "<" else i + 4
                    if _at(b, name) in (0x3D, 0x21):
                        return "lookbehind assertions are not supported"
                    while j < n and (chr(b[j]).isascii() and chr(b[j]).isalnum() or b[j] == 0x5F):
                        j += 1
                    if j == name or j >= n or b[j] != 0x3E:
                        return "invalid named capturing group"
                    stack.append("(")
                    i = j + 1
                else:
                    return "unsupported group modifier"
            else:
                stack.append("(")
                i += 1
        elif c == "|":
            stack.append("|")
            i += 1
        elif c == ")":
            while stack and stack[-1] != "(":
                stack.pop()
            if not stack:
                return "unmatched ')'"
            stack[-1] = "atom"
            i += 1
        elif c == "\\":
            err, i = _escape(b, i)
            if err:
                return err
            stack.append("atom")
        else:
            stack.append("atom")
            i += 1
    return "the parenthesis is not closed" if "(" in stack else None


__all__ = ["fsm_regex_error"]
