"""Parameter markers spelt with whitespace inside, as vLLM 0.33's argument regexes read them.

vLLM's engine formats hand a call's raw argument text to a converter whose regexes allow
whitespace inside the parameter tags: qwen3_coder's family (``parser/qwen3.py``: qwen3_xml,
step3p5, step5, mimo, seed_oss) reads ``<\\s*parameter\\s*=`` and ``<\\s*/\\s*parameter\\s*>``,
minimax_m2 (``parser/minimax_m2.py``) ``<\\s*parameter\\s+name\\s*=`` and the same closer; so
``< parameter=city>`` opens a parameter and ``</parameter >`` closes one (found by hand in
session 50; tito read only the canonical spellings, dropped such a parameter or kept the
closer in the value).

A format names such markers in :attr:`._xml.XmlCallParser.spellings` (canonical marker ->
:class:`Spelling`); the phases of :mod:`._xml` then look for them, and for the format's
literal markers, with a :class:`Scanner` (as :func:`._text.scan_to` does for literal markers
only). Each whitespace run is bounded by :data:`._base.WS_LIMIT` characters (vLLM's is not), so
a marker held at a chunk's end stays bounded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from tito.core.parsers.tools._base import WS_LIMIT

#: a whitespace run in a spelling: any (``WS``) or at least one character (``WS1``)
WS, WS1 = r"\s*", r"\s+"
_RUNS = {WS: rf"\s{{0,{WS_LIMIT}}}", WS1: rf"\s{{1,{WS_LIMIT}}}"}


@dataclass(frozen=True)
class Spelling:
    """A marker's spellings: ``pattern`` matches one at a position, ``prefix`` fullmatches
    any text that may still grow into one, ``longest`` bounds a match's length."""

    pattern: re.Pattern[str]
    prefix: re.Pattern[str]
    longest: int


def spelling(*parts: str) -> Spelling:
    """The spelling of literal ``parts`` with whitespace runs (:data:`WS`, :data:`WS1`) between
    them; it starts with a literal character that it holds once (scans look for it)."""
    assert parts and parts[0] not in _RUNS and "".join(parts).count(parts[0][0]) == 1
    atoms: list[str] = []
    for part in parts:
        atoms.extend([_RUNS[part]] if part in _RUNS else [re.escape(c) for c in part])
    prefix = ""
    for atom in reversed(atoms):
        prefix = f"(?:{atom}{prefix})?"
    longest = sum(WS_LIMIT if p in _RUNS else len(p) for p in parts)
    return Spelling(re.compile("".join(atoms)), re.compile(prefix), longest)


@dataclass(frozen=True)
class Scanner:
    """The markers a phase looks for, some of them spelt (:class:`Spelling`): one regex finds
    the first. ``lead``: the character every marker starts with and holds once (so only the
    last one in a text can start a marker still growing, and a text without one holds none:
    the per-chunk fast path), or None when the markers have no such character."""

    markers: tuple[str, ...]
    regex: re.Pattern[str]
    prefix: re.Pattern[str]
    longest: int
    lead: str | None

    def scan(self, text: str, start: int, final: bool) -> tuple[int, str | None, int, int]:
        """:func:`._text.scan_to` with spellings: ``(hit, marker, stop, length)``: the first
        marker at or after ``start`` (-1, None), ``stop`` as ``scan_to``'s, ``length`` that of
        the marker's spelling at ``hit``."""
        if self.lead is not None and text.find(self.lead, start) == -1:
            return -1, None, len(text), 0
        got = self.regex.search(text, start)
        if got is not None:
            hit = got.start()
            return hit, self.markers[got.lastindex - 1], hit, got.end() - hit
        return -1, None, len(text) - (0 if final else self.held(text, start)), 0

    def held(self, text: str, start: int = 0) -> int:
        """The length of the longest suffix of ``text[start:]`` that may grow into a marker
        (:func:`._text.held_suffix`)."""
        n = len(text)
        first = max(start, n - self.longest)
        if self.lead is not None:
            k = text.rfind(self.lead, first)
            return n - k if k != -1 and self.prefix.fullmatch(text, k) else 0
        return next((n - k for k in range(first, n) if self.prefix.fullmatch(text, k)), 0)


_SCANNERS: dict[tuple[object, tuple[str, ...]], Scanner] = {}


def scanner(owner: object, markers: tuple[str, ...], spellings: Mapping[str, Spelling]) -> Scanner:
    """The :class:`Scanner` of ``markers`` (empty ones left out) with ``owner``'s (a format
    class's) ``spellings``, built once."""
    got = _SCANNERS.get((owner, markers))
    if got is None:
        got = _SCANNERS[(owner, markers)] = _build(markers, spellings)
    return got


def _build(markers: tuple[str, ...], spellings: Mapping[str, Spelling]) -> Scanner:
    kept = sorted({m for m in markers if m}, key=lambda m: (-len(m), m))  # (ties: the longest)
    alts, prefixes = [], []
    for m in kept:
        sp = spellings.get(m)
        alts.append(sp.pattern.pattern if sp else re.escape(m))
        nested = ""
        for c in reversed(m):
            nested = f"(?:{re.escape(c)}{nested})?"
        prefixes.append(sp.prefix.pattern if sp else nested)
    lead = kept[0][0] if kept else None
    if any(m[0] != lead or (m not in spellings and m.count(lead) != 1) for m in kept):
        lead = None
    longest = max((spellings[m].longest if m in spellings else len(m) for m in kept), default=0)
    return Scanner(tuple(kept), re.compile("|".join(f"({a})" for a in alts)),
                   re.compile("|".join(prefixes)), longest, lead)

