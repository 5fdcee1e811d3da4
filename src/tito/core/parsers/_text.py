"""Text helpers shared by the parser state machines: marker search and minimal hold-back.

Markers (``<think>``, ``<tool_call>``, ``[TOOL_CALLS]`` ...) reach the parsers as text, split
anywhere by the chunking. A parser emits everything it can decide now and holds back only the
longest suffix that is a *proper* prefix of a marker it is looking for: any later occurrence of
the marker must start inside that suffix, so nothing before it can ever become part of one.
"""

from __future__ import annotations

from collections.abc import Sequence

#: ASCII whitespace: the only characters parsers skip between structural tokens.
ASCII_WS = " \t\r\n"


def held_suffix(text: str, markers: Sequence[str]) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of some marker.

    >>> held_suffix("abc <tool_", ["<tool_call>"])
    6
    """
    best, n = 0, len(text)
    for marker in markers:
        # a suffix of k (1 <= k < len(marker)) characters is one starting with the marker's
        # first character: only those starts are tried, longest first (a parser calls this on
        # every chunk, and a chunk's tail rarely holds a marker's first character)
        first = marker[:1]
        i = text.find(first, max(n - len(marker) + 1, 0)) if first else -1
        while i != -1 and n - i > best:
            if marker.startswith(text[i:]):
                best = n - i
                break
            i = text.find(first, i + 1)
    return best


def find_first(text: str, markers: Sequence[str], start: int = 0) -> tuple[int, str | None]:
    """The earliest occurrence of any marker at or after ``start``: ``(position, marker)``,
    or ``(-1, None)``.

    Ties (one marker a prefix of another at the same position) go to the longest marker.
    """
    best_pos, best = -1, None
    for marker in markers:
        pos = text.find(marker, start)
        if pos == -1:
            continue
        if best_pos == -1 or pos < best_pos or (pos == best_pos and len(marker) > len(best or "")):
            best_pos, best = pos, marker
    return best_pos, best


def scan_to(
    text: str, markers: Sequence[str], start: int, final: bool, holds: Sequence[str] = ()
) -> tuple[int, str | None, int]:
    """How far the text from ``start`` is decided: ``(hit, marker, stop)``. ``hit`` and
    ``marker``: the first of ``markers`` (:func:`find_first`; -1 and None when none); ``stop``:
    ``hit``, or, with no marker, the end less a trailing proper prefix of one of ``markers`` or
    ``holds`` (never matched) to hold back (nothing at ``final``). The phases that emit up to
    the first marker write ``text[start:stop]``; with no marker they hold ``text[stop:]``.

    >>> scan_to("ab<x>c<", ["<x>"], 0, False), scan_to("ab <x", ["<x>"], 0, False)
    ((2, '<x>', 2), (-1, None, 3))
    """
    hit, marker = -1, None  # (find_first's search, inlined: one call on the per-chunk path)
    for m in markers:
        pos = text.find(m, start)
        if pos != -1 and (hit == -1 or pos < hit or (pos == hit and len(m) > len(marker or ""))):
            hit, marker = pos, m
    if hit != -1 or final:
        return hit, marker, (len(text) if hit == -1 else hit)
    return -1, None, len(text) - held_suffix(text[start:], (*markers, *holds) if holds else markers)


def is_proper_prefix(text: str, markers: Sequence[str]) -> bool:
    """True when ``text`` is a non-empty proper prefix of a marker (more text may complete it)."""
    return bool(text) and any(len(text) < len(m) and m.startswith(text) for m in markers)


def drop_markers(text: str, markers: Sequence[str], *, final: bool) -> tuple[str, str]:
    """``text`` without any occurrence of ``markers``: ``(kept, held)``, ``held`` a trailing
    proper prefix of one (none at ``final``), to be put in front of the next text."""
    kept, pos = [], 0
    while True:
        hit, marker = find_first(text, markers, pos)
        if hit == -1:
            break
        kept.append(text[pos:hit])
        pos = hit + len(marker or "")
    keep = 0 if final else held_suffix(text[pos:], markers)
    kept.append(text[pos : len(text) - keep])
    return "".join(kept), text[len(text) - keep :]
