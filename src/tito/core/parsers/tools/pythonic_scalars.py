"""The ``pythonic`` transcoder's bare scalars: numbers and named constants as JSON.

Why a module of its own: what a bare token is worth (a value, a dict key) is pure and apart
from the streaming around it (:mod:`.pythonic_args`). vLLM 0.33 (``get_parameter_value`` over
Python's ``ast``) reads a number with a unary sign run (``--1`` is ``1``), ``True`` / ``False``
/ ``None`` and the JSON names ``true`` / ``false`` / ``null``; a dict key only as an
``ast.Constant``: no JSON name, no sign.
"""

from __future__ import annotations

import ast
import json
import math
import re
import unicodedata
import warnings
from typing import Any

from tito.core.parsers.tools._base import HEADER_LIMIT
from tito.core.parsers.tools.pythonic_strings import Malformed

_NAMED_CONSTANTS = {
    "True": "true",
    "False": "false",
    "None": "null",
    "true": "true",
    "false": "false",
    "null": "null",
}
_KEY_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
#: a name or keyword of the list's first call, as vLLM's batch regex reads one (``[a-zA-Z]+\w*``:
#: an ASCII letter first, then word characters of any script)
FIRST_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\w*")  # (the ASCII run first: faster)
#: a later one (a later call, a later keyword), as Python's ``ast`` reads it: a letter of any
#: script or ``_`` first (``città``, ``größe``, ``名前``, ``_x``)
PY_IDENT = re.compile(r"[^\W\d][A-Za-z0-9_]*\w*")
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]+")
#: a sign run with parentheses, a number, its closing parentheses (:func:`unparen`)
_PARENED = re.compile(r"([-+(]*)([^-+()][^()]*)(\)*)")


def key_text(tok: str, at: int) -> str:
    """A bare dict key (``True``, ``None``, a number) as its JSON key, as ``json.dumps``
    writes it. A signed number is no key: vLLM takes only an ``ast.Constant`` (``-1`` is a
    unary operation). :class:`Malformed` at ``at`` otherwise."""
    if tok[:1] in ("+", "-"):
        raise Malformed(at)
    value = _KEY_CONSTANTS[tok] if tok in _KEY_CONSTANTS else number(tok, at)
    key = json.dumps({value: 0}, ensure_ascii=False)[1:-4]
    if len(key) > HEADER_LIMIT:
        raise Malformed(at)
    return key


def value_text(tok: str, at: int) -> str:
    """A bare value token as JSON text; :class:`Malformed` at ``at`` when it is none."""
    text = _NAMED_CONSTANTS.get(tok)
    if text is None:
        value = number(tok, at)
        # 1e999 is inf: JSON has no such number; keep the token's text as a string, as vLLM
        # does for every non-finite value it types (tool_parsers.utils, "preserve the raw
        # string"), never the non-JSON ``Infinity`` of json.dumps
        text = json.dumps(value) if math.isfinite(value) else json.dumps(tok)
    return text


#: a token of signs only so far (with a sign's parentheses: ``-(`` / ``- (+(``)
_SIGNS = frozenset("+-(")


def grown_token(tok: str, c: str) -> str | None:
    """The token ``tok`` with ``c`` (no token character) taken on, or None when ``c`` ends it:
    a sign (of a sign run, or an exponent's), whitespace after a sign or inside a sign's
    parentheses (``- 1``, ``-(1 )``: a run kept as at most one space, after which only ``)``
    may come), ``(`` after a sign (``-(1)``: vLLM's ``-1``), the ``)`` of such a ``(``."""
    signs = _SIGNS.issuperset(tok)
    opened = "(" in tok and tok.count("(") > tok.count(")")
    if c in "+-" and (signs or tok[-1] in "eE" and is_decimal(tok)):
        return tok + c
    if c in " \t\n\r" and (signs or opened):
        return tok if signs or tok[-1] == " " else tok + " "
    if c == "(" and signs:
        return tok + c
    if c == ")" and opened:
        return tok.rstrip() + c
    return None


def is_decimal(tok: str) -> bool:
    """Whether ``tok`` is a decimal number so far (an ``e`` in it may take a sign next)."""
    body = tok.lstrip("+-(")
    return (
        bool(body)
        and (body[0].isdigit() or body[0] == ".")
        and body[:2].lower() not in ("0x", "0o", "0b")
    )


def unparen(tok: str, at: int) -> str:
    """A signed number's parentheses dropped (``-(1)``, ``-(-(2.5))``: vLLM reads a unary sign
    over any numeric operand, parentheses being Python's grouping): each ``(`` after a sign,
    each ``)`` after the number, as many of each; :class:`Malformed` at ``at`` otherwise."""
    if "(" not in tok and ")" not in tok:
        return tok
    m = _PARENED.fullmatch(tok)
    if m is None or m[1].count("(") != len(m[3]):
        raise Malformed(at)
    return m[1].replace("(", "") + m[2]


def number(tok: str, at: int) -> int | float:
    """A number token's value (a leading sign run folded: ``--1`` is ``1``; the run's
    parentheses dropped: ``-(1)`` is ``-1``)."""
    tok = unparen(tok, at)
    body = tok.lstrip("+-")
    if len(body) < len(tok) - 1:
        tok = ("-" if tok[: len(tok) - len(body)].count("-") % 2 else "") + body
    if not body[:1].isdigit() and body[:1] != ".":
        raise Malformed(at)
    if _INT.fullmatch(tok) and len(tok) < 20:
        return int(tok)
    if _FLOAT.fullmatch(tok) and len(tok) < 20:
        return float(tok)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = ast.literal_eval(tok)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise Malformed(at) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Malformed(at)
    return value


def py_name(tok: str) -> str | None:
    """A matched name or keyword as Python's ``ast`` names it (NFKC-normalised, as its
    tokenizer normalises identifiers: ``ｃｉｔｙ`` is ``city``), or None when Python's
    identifiers do not take it (``a²``)."""
    if tok.isascii():
        return tok
    return unicodedata.normalize("NFKC", tok) if tok.isidentifier() else None
