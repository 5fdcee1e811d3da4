"""The pythonic family's Python literals as vLLM 0.33 reads them: sets, string prefixes,
f-strings, adjacent literals, unary signs, parenthesised values, comments.

Why: vLLM 0.33's ``tool_parsers.utils.get_parameter_value`` walks Python's ``ast``: a set is a
list in source order, a placeholder-free f-string its text, ``r`` / ``u`` / ``f`` prefixes and
adjacent literals are Python's, ``- 1`` is ``-1``, ``(1)`` is ``1``; tito's transcoder ended the
call at each (found by hand in session 44; the cases recorded from vLLM are ``*/py45_*``,
``tests/goldens/parser_cases_pylit45.py``). The reference here is Python's own parser: the
expected arguments are ``json.dumps`` of :func:`_vllm_value` over ``ast.parse`` of the text,
the rules of vLLM's function; every chunking and a JSON round trip of the state between
chunks must give them.
"""

from __future__ import annotations

import ast
import json

import pytest
from helpers import drive_tools
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.core.parsers.tools import make_tool_parser
from tito.core.parsers.tools._base import HEADER_LIMIT


def _vllm_value(node: ast.expr) -> object:
    """vLLM 0.33's reading of an argument's ``ast`` node (its ``get_parameter_value`` rules)."""
    if isinstance(node, ast.Constant):
        assert node.value is None or isinstance(node.value, str | int | float)
        return node.value
    if isinstance(node, ast.Dict):
        assert all(isinstance(k, ast.Constant) for k in node.keys)
        return {k.value: _vllm_value(v) for k, v in zip(node.keys, node.values)}  # type: ignore
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_vllm_value(e) for e in node.elts]
    if isinstance(node, ast.JoinedStr):
        assert all(isinstance(p, ast.Constant) for p in node.values)
        return "".join(p.value for p in node.values)  # type: ignore
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _vllm_value(node.operand)
        assert isinstance(value, int | float) and not isinstance(value, bool)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Name):
        return {"true": True, "false": False, "null": None}[node.id]
    raise AssertionError(ast.dump(node))


def _expected(text: str) -> str:
    call = ast.parse(text).body[0].value.elts[0]  # type: ignore[attr-defined]
    return json.dumps({k.arg: _vllm_value(k.value) for k in call.keywords}, ensure_ascii=False)


def _chunkings(text: str) -> list[list[str]]:
    return [[text], list(text), *([text[:k], text[k:]] for k in range(1, len(text)))]


def _assert_read(text: str) -> None:
    want = ("", [("f", _expected(text))])
    parser = make_tool_parser("pythonic")
    for chunks in _chunkings(text):
        assert drive_tools(parser, chunks) == want, chunks


# -- the literals, one by one -------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "[f(a={'x', 'y', 'x'}, b={1, 2.5, None, True, 'z',}, c={(1, 2), 'q'})]",
    "[f(a={[1, 2], (3,), {'k': {4}}}, b={{1}}, c={'k': {'x'}, 'n': [{1}, {}]})]",
    "[f(a={None: 1, True: 2, 1.5: 3, 0x1F: 4, 'k': {5}})]",
    "[f(a=f'Paris', b=F\"\", c=f'{{c}}', d=f'''x''', e=fR'\\{{y}}', g=f'\\N{BULLET}')]",
    "[f(a=r'a\\d', b=R\"a\\\"b\", c=r'\\'', d=r'a\\\\', e=rf'\\}}', g=Rf'x')]",
    "[f(a=u'x', b=U\"\"\"y\"\"\")]",
    "[f(a='a' \"b\" '''c''', b=('d' r'\\e'), c={'k' 'l': 'm'}, d='x''y', e='p'  f'q')]",
    "[f(a={'a' 'b', 'c'}, b=('a' 'b', 'c'), c=['a' 'b'], d='''x''''y')]",
    "[f(a=- 1, b=--2.5, c=+ -3, d=-0x1F, e=+.5, g=- - - 4, h=-\n5)]",
    # a sign's operand in parentheses (session 46; vLLM reads the unary sign over it)
    "[f(a=-(1), b=- ( -2.5e-3 ) , c=-((3)), d=(-(1)), e=[+(4)], g={1: -(5)}, h=-(0x1F))]",
    "[f(a=(1), b=('x'), c=(None), d=(1, ), e=(), g=( - 2 ), h=('a' 'b'), i=[(1), ('y')])]",
    "[f(a='x' # 'q'\n 'y', b={1 # ,\n : [2, # ]\n 3]}, c=( # (\n 4), d # x\n = 5)]",
])
def test_literal_read_as_vllm_reads_it(text: str) -> None:
    _assert_read(text)


@pytest.mark.parametrize(("text", "args", "content"), [
    # not JSON literals: the call ends there, as for any non-literal (vLLM: all content)
    ("[f(a=1, b=b'x')]", '{"a": 1, "b": ', "b'x')]"),
    ("[f(a=1, b=rb'x')]", '{"a": 1, "b": ', "rb'x')]"),
    ("[f(a=1, b='x' b'y')]", '{"a": 1, "b": "x', "b'y')]"),
    ("[f(a=1, b={-1: 'x'})]", '{"a": 1, "b": {', "-1: 'x'})]"),
    ("[f(a=1, b={true: 'x'})]", '{"a": 1, "b": {', "true: 'x'})]"),
    ("[f(a=1, b=f'a{x}')]", '{"a": 1, "b": "a', "{x}')]"),
    ("[f(a=1, b=f'}')]", '{"a": 1, "b": "', "}')]"),
    ("[f(a=1, b=-True)]", '{"a": 1, "b": ', "-True)]"),
    ("[f(a=1, b=-(True))]", '{"a": 1, "b": ', "-(True))]"),
    ("[f(a=1, b=-(1,))]", '{"a": 1, "b": ', "-(1,))]"),
    ("[f(a=1, b=-())]", '{"a": 1, "b": ', "-())]"),
    ("[f(a=1, b=-(1 2))]", '{"a": 1, "b": ', "-(1 2))]"),
    ("[f(a=1, b=-(1)(2))]", '{"a": 1, "b": -1', "(2))]"),
    ("[f(a=1, b='x' 1)]", '{"a": 1, "b": "x"', "1)]"),
    ("[f(a=1, b={1 2})]", '{"a": 1, "b": {', "2})]"),
    ("[f(a=1, b={'k': 1, 2})]", '{"a": 1, "b": {"k": 1', "})]"),
    ("[f(a=1, b=(1]))]", '{"a": 1, "b": [1', "]))]"),
])
def test_a_non_literal_ends_the_call(text: str, args: str, content: str) -> None:
    parser = make_tool_parser("pythonic")
    for chunks in _chunkings(text):
        assert drive_tools(parser, chunks) == (content, [("f", args)]), chunks


def test_a_long_first_string_decides_its_container() -> None:
    """A first element is held to decide a ``{`` (dict or set) or a ``(`` (tuple or value), at
    most :data:`HEADER_LIMIT` characters: a longer string decides at once, a set / a tuple,
    and streams; the state stays bounded. A parenthesised long string is then a one-element
    list (vLLM: the string; documented in docs/conformance.md)."""
    long = "x" * (HEADER_LIMIT + 50)
    parser = make_tool_parser("pythonic")
    sizes: list[int] = []
    text = f"[f(a={{'{long}', 'b'}}, b=('{long}', 1), c=('{long}'))]"
    for chunks in ([text], [text[k : k + 7] for k in range(0, len(text), 7)]):
        got = drive_tools(parser, chunks, watch=lambda s: sizes.append(len(s.key)))
        assert got == ("", [("f", json.dumps({"a": [long, "b"], "b": [long, 1], "c": [long]}))])
    assert max(sizes) <= HEADER_LIMIT


def test_a_cut_output_keeps_what_came() -> None:
    """The output cut (``final``) inside the new holds: a closed string gets its ``"``, an
    undecided ``{`` / ``(`` is written as it stands (a ``{``; a ``[`` and its held element),
    the same in every chunking."""
    parser = make_tool_parser("pythonic")
    for text, args in (("[f(a='x'", '{"a": "x"'), ("[f(a={'k'", '{"a": {'),
                       ("[f(a=(1", '{"a": [1'), ("[f(a=('x'", '{"a": ["x"'),
                       ("[f(a=('x", '{"a": ["x'), ("[f(a=f'x{", '{"a": "x'),
                       ("[f(a=r'x\\", '{"a": "x\\\\')):
        for chunks in _chunkings(text):
            assert drive_tools(parser, chunks) == ("", [("f", args)]), chunks


# -- the property: any literal tree, spelt in any of Python's ways -------------------------------

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FF), max_size=6)


@st.composite
def _spelt_string(draw: st.DrawFn, value: str) -> str:
    """``value`` as a Python string literal: plain, prefixed (u / f / r when it can), or split
    into adjacent literals."""
    how = draw(st.sampled_from(["plain", "u", "f", "r", "split"]))
    if how == "split" and len(value) > 1:
        k = draw(st.integers(1, len(value) - 1))
        return repr(value[:k]) + draw(st.sampled_from(["", " ", "  "])) + repr(value[k:])
    if how == "u":
        return "u" + repr(value)
    if how == "f":
        return "f" + repr(value).replace("{", "{{").replace("}", "}}")
    if how == "r" and value.isprintable() and "'" not in value and not value.endswith("\\"):
        return "r'" + value + "'"
    return repr(value)


@st.composite
def _spelt(draw: st.DrawFn, depth: int = 0) -> str:
    """A random literal tree, spelt as Python text (the reference parses it back)."""
    kinds = ["str", "int", "float", "const"] + (["list", "tuple", "set", "dict", "paren"]
                                                if depth < 3 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "str":
        return draw(_spelt_string(draw(_TEXT)))
    if kind == "int":
        n = draw(st.integers(-10**6, 10**6))
        sign = draw(st.sampled_from(["", "-", "- ", "--", "+ -", "+", "-(", "- ( -(", "+(-",
                                     "-(\n"])) if n >= 0 else ""
        ws = draw(st.sampled_from(["", " ", "\n"])) if "(" in sign else ""
        return sign + str(n) + ws + ")" * sign.count("(")
    if kind == "float":
        x = draw(st.floats(allow_nan=False, allow_infinity=False, width=32))
        return repr(x)
    if kind == "const":
        return draw(st.sampled_from(["None", "True", "False", "true", "false", "null"]))
    items = draw(st.lists(_spelt(depth + 1), max_size=3))
    if kind == "list":
        return "[" + ", ".join(items) + "]"
    if kind == "tuple":
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if kind == "set":
        return "{" + ", ".join(items or ["1"]) + draw(st.sampled_from(["", ","])) + "}"
    if kind == "paren":  # a scalar: a container in parentheses is a documented deviation
        return "(" + draw(_spelt(3)) + ")"
    # no 0 / 1 keys: Python's dict merges them with False / True, vLLM's too (tito keeps both)
    keys = draw(st.lists(st.one_of(_TEXT.map(repr), st.integers(2, 9).map(str),
                                   st.sampled_from(["None", "True", "2.5"])),
                         max_size=3, unique=True))
    return "{" + ", ".join(f"{k}: {draw(_spelt(depth + 1))}" for k in keys) + "}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=st.lists(_spelt(), min_size=1, max_size=3), cut=st.integers(0, 10_000),
       step=st.integers(1, 9))
def test_any_literal_reads_as_python_reads_it(args: list[str], cut: int, step: int) -> None:
    text = "[f(" + ", ".join(f"k{i}={a}" for i, a in enumerate(args)) + ")]"
    want = _expected(text)
    parser = make_tool_parser("pythonic")
    cut %= len(text) + 1
    for chunks in ([text], [text[:cut], text[cut:]],
                   [text[k : k + step] for k in range(0, len(text), step)]):
        assert drive_tools(parser, chunks) == ("", [("f", want)]), chunks


# -- a tampered state: the service's 400, never a 500 -------------------------------------------

#: what the streamed derender turns into a 400 for a tampered unsigned state
#: (``tito.service.derender_stream``: "stream_state is inconsistent")
_REFUSED = (ValueError, LookupError, TypeError, AttributeError, RuntimeError)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stack=st.text("([{tsp?x", min_size=0, max_size=6),
       expect=st.sampled_from(["", "val", "val!", "sep", "key", "colon", "kw", "eq", "first",
                               "one", "ocat", "cat", "kcat", "bogus"]),
       quote=st.sampled_from(["", "'", '"', "'''", "r'", "f'", "rf'''", "fr'", "x", "rr"]),
       pend=st.sampled_from(["", "\\", "\\x4", "{", "}", "#", "'", "''", "q"]),
       key=st.sampled_from(["", "1", "-1", "true", '"k"', "x" * 10]),
       tok=st.sampled_from(["", "r", "-", "1e", "b", "True"]),
       text=st.text("ab'\"{}()[],:=#-1 \nrf\\", max_size=12), final=st.booleans())
def test_a_tampered_transcoder_state_fails_only_as_the_service_refuses(
        stack: str, expect: str, quote: str, pend: str, key: str, tok: str, text: str,
        final: bool) -> None:
    """A client may send any field values within their bounds (an unsigned state): the
    transcoder's new holds (``?`` / ``p`` containers, held elements, string flags, comments)
    must then step or fail with an error the streamed derender answers with a 400."""
    from tito.core.parsers import tools as T
    from tito.core.parsers.tools import ToolState

    parser = make_tool_parser("pythonic")
    state = ToolState.model_validate({**T.initial(parser).model_dump(), "phase": "pargs",
                                      "stack": stack, "expect": expect, "quote": quote,
                                      "pend": pend, "key": key, "tok": tok})
    try:
        T.step(parser, state, text, final=final)
    except _REFUSED:
        pass
