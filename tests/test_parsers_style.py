"""The parser modules' form (``src/tito/core/parsers``): each opens with a header (its module
docstring states the grammar and rules it follows), and no line runs past 100 characters, the
width the headers' grammar tables are written to (they are read in a terminal beside vLLM's
sources; a 162-character line in ``minimax_m2``'s header was the case that asked for this).
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import tito.core.parsers as parsers

MODULES = sorted(pathlib.Path(parsers.__file__).parent.rglob("*.py"))


def test_the_package_is_found() -> None:
    assert len(MODULES) > 50  # (the tools subpackage included)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_a_parser_module_has_a_header_and_no_line_over_100(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert ast.get_docstring(ast.parse(text)), f"{path.name}: no module docstring"
    long = [(i, len(line)) for i, line in enumerate(text.splitlines(), 1) if len(line) > 100]
    assert not long, f"{path.name}: lines over 100 characters (line, length): {long}"
