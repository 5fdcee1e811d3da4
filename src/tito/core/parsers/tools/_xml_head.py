"""Header decisions of the XML-ish formats (:mod:`._xml`): what a format's ``_name`` and
``_key`` return, and the small readers they are written with.

A module of its own so :mod:`._xml` stays the phase machine: these are pure functions over a
header's text (a name header after the call marker, a key header after the parameter marker),
shared by the formats that read their headers alike (``TEXT CLOSE``, a quoted attribute).
A header's text is at most :data:`._base.HEADER_LIMIT` characters; each reader decides
``need`` (more text may complete it), ``bad`` (it cannot: the marker is content) or ``ok``.
"""

from __future__ import annotations

from typing import Literal

from tito.core.parsers._text import is_proper_prefix
from tito.core.parsers.tools._json import skip_ws

#: a header decision: ("need" | "bad", 0, "", "") or ("ok", end index, text, attribute)
HeadResult = tuple[Literal["need", "bad", "ok"], int, str, str]
NEED: HeadResult = ("need", 0, "", "")
BAD: HeadResult = ("bad", 0, "", "")


def open_header(h: str, close: str) -> HeadResult:
    """``close`` not in ``h`` yet: NEED, unless a ``<`` that cannot start ``close`` came."""
    k = h.find("<")
    return NEED if k == -1 or close.startswith(h[k:]) else BAD


def up_to(h: str, close: str, *, strip: bool = True) -> HeadResult:
    """``TEXT close``: the text (stripped unless ``strip=False``), never empty, without ``<``."""
    j = h.find(close)
    if j == -1:
        return open_header(h, close)
    text = h[:j].strip() if strip else h[:j]
    return ("ok", j + len(close), text, "") if text.strip() and "<" not in text else BAD


def quoted_attr(s: str, i: int, close: str, *, strip_quoted: bool = True) -> HeadResult:
    """``"VALUE"`` / ``'VALUE'`` / ``VALUE`` followed by ``close``, from ``s[i]`` (whitespace
    allowed around the value): the value stripped (a quoted one only with ``strip_quoted``:
    dots keeps the spaces inside the quotes, as vLLM's ``_extract_name``), never empty."""
    n = len(s)
    i = skip_ws(s, i)
    if i == n:
        return NEED
    q = s[i]
    if q in "\"'":
        j = s.find(q, i + 1)
        if j == -1:
            return NEED
        value, k = s[i + 1 : j], skip_ws(s, j + 1)
        value = value.strip() if strip_quoted else value
        if k == n or is_proper_prefix(s[k:], (close,)):
            return NEED
        if not s.startswith(close, k):
            return BAD
        return ("ok", k + len(close), value, "") if value else BAD
    j = s.find(close, i)
    if j == -1:
        return NEED
    value = s[i:j].strip()
    return ("ok", j + len(close), value, "") if value and "<" not in value else BAD
