"""The pythonic family's tuple arguments: a JSON list, as vLLM 0.33 reads them.

Why: vLLM 0.33's ``tool_parsers.utils.get_parameter_value`` reads an ``ast.Tuple`` as a list
(``size=(800, 600)``: ``[800, 600]``), batch and stream; tito's transcoder ended the call at the
``(`` (arguments cut, ``{"tags": ``, the rest content; found by hand in session 44). The cases
recorded from vLLM are ``*/fz44_tuple*`` (``tests/goldens/parser_cases_fuzz44.py``); this checks
the transcoder at every chunking, a tuple in every position, a parenthesised scalar (``(1)`` is
``1``: held until its ``,`` or ``)``, session 45) and the one place a stream cannot follow vLLM:
a parenthesised container, ``([1])``, is ``[[1]]`` (vLLM: ``[1]``, known only at its ``)``).
"""

from __future__ import annotations

import json

import pytest
from helpers import drive_tools

from tito.core.parsers.tools import make_tool_parser

_WRAP = {
    "pythonic": ("", ""),
    "llama4_pythonic": ("<|python_start|>", "<|python_end|>"),
    "lfm2": ("<|tool_call_start|>", "<|tool_call_end|>"),
}

_CASES = [
    ("[f(a=(1, 'x'), b=2)]", {"a": [1, "x"], "b": 2}),
    ("[f(a=(1,))]", {"a": [1]}),
    ("[f(a=())]", {"a": []}),
    ("[f(a=((1, 2), [3, (4,)], {'k': (None, True)}))]",
     {"a": [[1, 2], [3, [4]], {"k": [None, True]}]}),
    ("[f(a=( 1 , 2 , ))]", {"a": [1, 2]}),
]


def _chunkings(text: str) -> list[list[str]]:
    whole = [[text]]
    singles = [list(text)]
    halves = [[text[:k], text[k:]] for k in range(1, len(text))]
    return whole + singles + halves


@pytest.mark.parametrize("name", sorted(_WRAP))
@pytest.mark.parametrize(("text", "args"), _CASES)
def test_a_tuple_argument_is_a_list(name: str, text: str, args: dict) -> None:
    before, after = _WRAP[name]
    parser = make_tool_parser(name)
    for chunks in _chunkings(before + text + after):
        content, calls = drive_tools(parser, chunks)
        assert (content, calls) == ("", [("f", json.dumps(args))]), chunks


def test_olmo3_tuple_argument() -> None:
    parser = make_tool_parser("olmo3")
    text = "<function_calls>\nf(a=(1, 2))\ng(b=('x',))\n</function_calls>"
    for chunks in _chunkings(text):
        assert drive_tools(parser, chunks) == (
            "", [("f", '{"a": [1, 2]}'), ("g", '{"b": ["x"]}')]), chunks


def test_a_parenthesised_value_is_the_value() -> None:
    """``(1)`` is no tuple for Python (vLLM: ``1``): a scalar first element is held until its
    ``,`` or ``)`` decides, so ``(1)`` is ``1`` and ``('x')`` is ``"x"`` in every chunking."""
    parser = make_tool_parser("pythonic")
    for chunks in _chunkings("[f(a=(1), b=('x'), c=( - 2 ), d=('a' 'b'))]"):
        assert drive_tools(parser, chunks) == (
            "", [("f", '{"a": 1, "b": "x", "c": -2, "d": "ab"}')]), chunks


def test_a_parenthesised_container_is_a_one_element_list() -> None:
    """A container (or a string too long to hold) decides a ``(`` at once: the stream writes
    ``[`` before the ``)`` shows that no comma came, so ``([1])`` and ``((1))`` are one-element
    lists, in every chunking (vLLM: ``[1]``, ``1``; documented in docs/conformance.md)."""
    parser = make_tool_parser("pythonic")
    for chunks in _chunkings("[f(a=([1]), b=((1)))]"):
        assert drive_tools(parser, chunks) == ("", [("f", '{"a": [[1]], "b": [1]}')]), chunks


def test_a_bracket_mismatch_still_ends_the_call() -> None:
    """``(1]`` and ``[1)`` are no literal: the call ends there, the rest is content."""
    parser = make_tool_parser("pythonic")
    for text, content in (("[f(a=(1], b=2)]", "], b=2)]"), ("[f(a=[1), b=2)]", "), b=2)]")):
        for chunks in _chunkings(text):
            assert drive_tools(parser, chunks) == (content, [("f", '{"a": [1')]), chunks
