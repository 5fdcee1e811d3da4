"""Comments between the pythonic family's calls, and whitespace inside a later call's header,
read as Python's ``ast`` reads them.

Why: vLLM 0.33 parses the list with Python's ``ast``, which skips a comment wherever whitespace
may stand, so ``[f(a=1), # note\\n g(b=2)]`` is two calls (its stream too, while no quote or
bracket in the comment breaks its bracket counting). tito ended the list at such a comment and
made the rest content (session 45's documented deviation; goldens ``*/py48_*`` recorded from
vLLM, ``tests/goldens/parser_cases_pylit48.py``). A comment is dropped as it comes (nothing of
it is kept, whatever its length) and ends at its line's end or, in lfm2 and llama4_pythonic, at
the block's end marker: vLLM cuts the block there before it parses it, and the text after the
marker must never be swallowed. The reference here is Python's own parser.
"""

from __future__ import annotations

import ast
import json

import pytest
from helpers import drive_tools
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.core.parsers.tools import ToolState, make_tool_parser
from tito.core.parsers.tools._base import HEADER_LIMIT, STATE_BYTES_LIMIT


def _chunkings(text: str, step: int = 3) -> list[list[str]]:
    return [[text], list(text), [text[k : k + step] for k in range(0, len(text), step)],
            *([text[:k], text[k:]] for k in range(1, len(text), max(1, len(text) // 40)))]


def _python_calls(text: str) -> list[tuple[str, str]]:
    """The calls of a list as Python's ``ast`` reads it, arguments as vLLM writes them."""
    calls = ast.parse(text).body[0].value.elts  # type: ignore[attr-defined]
    return [(c.func.id, json.dumps({k.arg: ast.literal_eval(k.value) for k in c.keywords},
                                   ensure_ascii=False)) for c in calls]


def _assert_read(tool: str, text: str, want: tuple[str, list[tuple[str, str]]]) -> None:
    parser = make_tool_parser(tool)
    for chunks in _chunkings(text):
        assert drive_tools(parser, chunks) == want, chunks


@pytest.mark.parametrize("text", [
    "[f(a=1), # c\n g(b=2)]",
    "[f(a=1) # c\n, g(b=2)]",
    "[f(), # c\n g()]",
    "[f(a=1),# c\n  # d, e)]'\"\ng(b='#'), # f\nh()]",
    "[f(a=1), # it's [x) \"\n g(b=2)]",
    "[f(a=1), # c\n]",
    "[f(a=1), g(b=2) # c\n]",
    "[f(a=1, # x\n b=2) # y\n, # z\n g()]",
    "[f(a='x # not a comment'), # a comment\n g(b=\"# nor\")]",
    # whitespace inside a later call's header (Python's reading; parser fuzz seed 158)
    "[f(a=1), g( b=2), h (c = 3), k(\n), m(\n d\n=\n4\n)]",
    "[f(), g( b=2)]",
    # comments inside a later call's header (Python's reading, vLLM's too)
    "[f(a=1), g( # c\n b=2), h # it's (\n (c # d\n = 3), k( # e\n ), m(n= # f\n 4)]",
    # a lone carriage return ends a comment's line too, as Python's tokenizer reads it
    "[f(a=1, # c\r b=2), # d\r g( # e\r c=3) # f\r\n]",
])
def test_a_comment_between_calls_is_skipped(text: str) -> None:
    _assert_read("pythonic", text, ("", _python_calls(text)))


@pytest.mark.parametrize(("tool", "start", "end"), [
    ("llama4_pythonic", "<|python_start|>", "<|python_end|>"),
    ("lfm2", "<|tool_call_start|>", "<|tool_call_end|>"),
])
def test_the_block_s_end_marker_ends_a_comment(tool: str, start: str, end: str) -> None:
    """The block's end marker inside a comment ends it (and the block): the text after the
    marker is content, never swallowed by the comment; a comment that closes first is
    skipped as in the plain format."""
    listed = "[f(a=1), # c\n g(b=2)]"
    _assert_read(tool, start + listed + end + " Done.", (" Done.", _python_calls(listed)))
    # cut by the marker between calls and inside a call: the list is unclosed there, so the
    # marker and what follows are content, as for an unclosed list without a comment
    _assert_read(tool, start + "[f(a=1), # c" + end + "Done.", (end + "Done.", [("f", '{"a": 1}')]))
    _assert_read(tool, start + "[f(a=1) # c" + end + "Done.", (end + "Done.", [("f", '{"a": 1}')]))
    _assert_read(tool, start + "[f(a=1, # c" + end + "Done.", (end + "Done.", [("f", '{"a": 1')]))
    # inside a later call's header: the header ends at the marker, and does not parse
    _assert_read(tool, start + "[f(a=1), g( # c" + end + "Done.",
                 (", g( # c" + end + "Done.", [("f", '{"a": 1}')]))
    listed = "[f(a=1), g( # c\n b=2)]"
    _assert_read(tool, start + listed + end + " Done.", (" Done.", _python_calls(listed)))


def test_a_comment_cut_by_the_end_of_the_output() -> None:
    """Cut inside a comment: the calls so far; nothing of the comment is content."""
    _assert_read("pythonic", "[f(a=1), # c", ("", [("f", '{"a": 1}')]))
    _assert_read("pythonic", "[f(a=1) # c", ("", [("f", '{"a": 1}')]))


def test_text_after_a_comment_is_content() -> None:
    """Text where the next call or ``]`` should be: content from there (the comment before it
    is dropped as it came: it is the gap's), as text after a call is without a comment."""
    _assert_read("pythonic", "[f(a=1) # c\nhello", ("hello", [("f", '{"a": 1}')]))
    _assert_read("pythonic", "[f(a=1), # c\n  hello(", ("  hello(", [("f", '{"a": 1}')]))


def test_a_comment_of_any_length_costs_no_state() -> None:
    """A comment is dropped as it comes: a stream's state stays bounded however long it is."""
    long = "x'[(" * 25_000
    text = f"[f(a=1), # {long}\n g(b=2) # {long}\n]"
    sizes: list[int] = []
    parser = make_tool_parser("pythonic")
    for chunks in ([text], [text[k : k + 999] for k in range(0, len(text), 999)]):
        got = drive_tools(parser, chunks,
                          watch=lambda s: sizes.append(len(s.model_dump_json())))
        assert got == ("", [("f", '{"a": 1}'), ("g", '{"b": 2}')])
    assert max(sizes) < STATE_BYTES_LIMIT


def test_a_hash_past_the_header_s_window_is_text() -> None:
    """After a ``,`` the next header is read in a window of :data:`HEADER_LIMIT` characters: a
    ``#`` inside it opens a comment, one past it is text (the window was content by then), in
    every chunking."""
    near = "[f(a=1)," + " " * (HEADER_LIMIT - 10) + "# c\n g(b=2)]"
    _assert_read("pythonic", near, ("", [("f", '{"a": 1}'), ("g", '{"b": 2}')]))
    far = "[f(a=1)," + " " * (HEADER_LIMIT + 10) + "# c\n g(b=2)]"
    _assert_read("pythonic", far, (far[len("[f(a=1)"):], [("f", '{"a": 1}')]))


def test_a_comment_in_a_header_past_its_window_is_text() -> None:
    """A later call's header, comments included, is read in its window of
    :data:`HEADER_LIMIT` characters (the stream holds no more): a comment that ends inside it
    is skipped, one that runs past it makes the header content, in every chunking."""
    near = "[f(a=1), g( # " + "c" * (HEADER_LIMIT - 20) + "\n b=2)]"
    _assert_read("pythonic", near, ("", _python_calls(near)))
    far = "[f(a=1), g( # " + "c" * (HEADER_LIMIT + 10) + "\n b=2)]"
    _assert_read("pythonic", far, (far[len("[f(a=1)"):], [("f", '{"a": 1}')]))


# -- the property: any calls, any gaps of whitespace and comments, any chunking ----------------

_COMMENT = st.text(st.sampled_from("ab #'\"()[]{},=\\é\t"), max_size=12).map(lambda t: "#" + t)
#: a comment's line end, as Python's tokenizer reads one
_EOL = st.sampled_from(["\n", "\r", "\r\n"])
_GAP = st.lists(st.one_of(st.sampled_from([" ", "\n", "  ", "\t"]),
                          st.tuples(_COMMENT, _EOL).map("".join)), max_size=3).map("".join)
_VALUE = st.one_of(st.integers(-99, 99).map(str), st.text("ab #)'", max_size=4).map(repr),
                   st.just("[1, 'x']"))


_WS = st.sampled_from(["", "", " ", "\n", " \n  "])
#: a later call's header: whitespace and comments between its tokens
_HEADER_GAP = st.one_of(_WS, st.tuples(_COMMENT, _EOL).map(lambda t: " " + "".join(t)))


@st.composite
def _call(draw: st.DrawFn, loose: bool = False) -> str:
    """A call; ``loose`` (a later call of the list): whitespace and comments between its
    header's tokens."""
    name = draw(st.sampled_from(["f", "get_x", "g2"]))
    keys = draw(st.lists(st.sampled_from(["a", "b", "k_1"]), max_size=3, unique=True))
    ws = (lambda: draw(_HEADER_GAP)) if loose else (lambda: "")
    return (f"{name}{ws()}({ws()}" + ", ".join(f"{k}{ws()}={draw(_VALUE)}" for k in keys)
            + ws() + ")")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=st.tuples(_call(), st.lists(_call(loose=True), max_size=3)).map(
           lambda t: [t[0], *t[1]]), gaps=st.lists(_GAP, min_size=8,
       max_size=8), trailing=st.booleans(), cut=st.integers(0, 10_000), step=st.integers(1, 7))
def test_any_gaps_read_as_python_reads_them(calls: list[str], gaps: list[str], trailing: bool,
                                            cut: int, step: int) -> None:
    """A gap after a call's ``)`` and after a ``,`` may hold whitespace and comments, and a later
    call's header whitespace between its tokens (the list's first call follows ``[`` at once,
    its tokens adjacent: vLLM's batch regex and tito's header require it)."""
    text = "[" + calls[0]
    for k, c in enumerate(calls[1:]):
        text += gaps[2 * k] + "," + gaps[2 * k + 1] + c
    text += (gaps[6] + "," if trailing else "") + gaps[7] + "]"
    want = ("", _python_calls(text))
    parser = make_tool_parser("pythonic")
    cut %= len(text) + 1
    for chunks in ([text], [text[:cut], text[cut:]],
                   [text[k : k + step] for k in range(0, len(text), step)]):
        assert drive_tools(parser, chunks) == want, chunks


# -- a tampered state: the service's 400, never a 500 -------------------------------------------

#: what the streamed derender turns into a 400 for a tampered unsigned state
_REFUSED = (ValueError, LookupError, TypeError, AttributeError, RuntimeError)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phase=st.sampled_from(["psep", "next", "pcomma"]),
       pend=st.sampled_from(["", "#", "\\", "'", "q"]),
       text=st.text("ab'\"()[],=#- \n", max_size=12), final=st.booleans())
def test_a_tampered_gap_state_fails_only_as_the_service_refuses(
        phase: str, pend: str, text: str, final: bool) -> None:
    from tito.core.parsers import tools as T

    parser = make_tool_parser("pythonic")
    state = ToolState.model_validate({**T.initial(parser).model_dump(), "phase": phase,
                                      "pend": pend, "calls": 1})
    try:
        T.step(parser, state, text, final=final)
    except _REFUSED:
        pass
