"""``tito.core.parsers._text.held_suffix`` (tried only where a marker's first character is) is
the plain definition: the longest suffix of the text that is a proper prefix of a marker; and
``scan_to`` (the phases' "emit to the first marker, else hold a marker prefix") is
``find_first`` and ``held_suffix`` as the phases wrote them before it (session 42)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core.parsers._text import find_first, held_suffix, scan_to


def _reference(text: str, markers: list[str]) -> int:
    """Every suffix length, longest first, against every marker's proper prefixes."""
    for k in range(len(text), 0, -1):
        if any(k < len(m) and m.startswith(text[len(text) - k:]) for m in markers):
            return k
    return 0


CHARS = st.sampled_from(list("<>/thinkTOOL_[]{}x \n"))
MARKERS = st.lists(st.sampled_from(["<think>", "</think>", "<tool_call>", "</tool_call>",
                                    "[TOOL_CALLS]", "<", "<<", "x<x<", ""])
                   | st.text(CHARS, max_size=6), max_size=4)


@settings(max_examples=500, deadline=None)
@given(text=st.text(CHARS, max_size=20), markers=MARKERS)
def test_held_suffix_is_the_definition(text: str, markers: list[str]) -> None:
    assert held_suffix(text, markers) == _reference(text, markers)


def test_held_suffix_examples() -> None:
    assert held_suffix("abc <tool_", ["<tool_call>"]) == 6
    assert held_suffix("a<</thin", ["</think>", "<think>"]) == 6
    assert held_suffix("<think>", ["<think>"]) == 0  # a whole marker is not held
    assert held_suffix("ab<", ["<<", "<"]) == 1


@settings(max_examples=500, deadline=None)
@given(text=st.text(CHARS, max_size=20), markers=MARKERS, holds=MARKERS,
       start=st.integers(0, 21), final=st.booleans())
def test_scan_to_is_find_first_then_the_held_suffix(
    text: str, markers: list[str], holds: list[str], start: int, final: bool
) -> None:
    start = min(start, len(text))
    hit, marker = find_first(text, markers, start)
    keep = 0 if final or hit != -1 else held_suffix(text[start:], [*markers, *holds])
    stop = hit if hit != -1 else len(text) - keep
    assert scan_to(text, markers, start, final, holds) == (hit, marker, stop)
