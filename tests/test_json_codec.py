"""orjson on the fast path gives the standard library's bytes and values, exactly.

``tito.adapters.splice.dump_json(float_free=True)`` writes answers with orjson and
``tito.adapters.validation.parse_fast`` reads bodies with it; the reference is the standard
library (``json.dumps`` with FastAPI's ``JSONResponse`` settings, ``json.loads``), which is also
what runs when orjson is not installed. Arbitrary float-free JSON values (integers past 64 bits,
control characters, non-BMP characters, keys that are not strings, pre-encoded parts), and for
reading, floats too: what orjson reads differently (integers past 64 bits become floats) is
never float-free, so the fast path never takes it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tito.adapters import splice, validation
from tito.adapters.asgi_http import lone_surrogate_path

FASTAPI = {"ensure_ascii": False, "allow_nan": False, "indent": None, "separators": (",", ":")}

free_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
                | st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
                | st.sampled_from(["", "\x00\x1f\x7f\u2028", 'a"b\\c\n\t\r\b\f', "1.5", "😀中文",
                                   "\\u0000"]))
float_free = st.recursive(free_scalars, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)
scalars = free_scalars | st.floats() | st.sampled_from([":1e5", "-0.0"])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


class Part:
    """A pre-encoded part (as ``tito.core.logprobs.Resolved``)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def json_text(self) -> str:
        return json.dumps(self.value, **FASTAPI)


def _reference(content: Any) -> bytes:
    return json.dumps(content, **FASTAPI).encode("utf-8")


@settings(max_examples=150, deadline=None)
@given(value=float_free)
def test_float_free_answers_are_the_standard_encoders_bytes(value: Any) -> None:
    content = {"answer": value, "list": [value, (1, "t")]}
    assert splice.dump_json(content, float_free=True) == _reference(content)
    with pytest.MonkeyPatch.context() as m:  # orjson not installed: json writes it
        m.setattr(splice, "orjson", None)
        assert splice.dump_json(content, float_free=True) == _reference(content)


def test_what_orjson_does_not_write_goes_to_json() -> None:
    from enum import Enum

    class Kind(str, Enum):
        A = "a"

    part = Part([1, "x"])
    for content, plain in (({1: "int key"}, {"1": "int key"}), ({"x": Kind.A}, {"x": "a"}),
                           ({"x": 2**80}, {"x": 2**80}), ({"p": part}, {"p": [1, "x"]})):
        assert splice.dump_json(content, float_free=True) == _reference(plain)
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate: as before, not orjson's error
        splice.dump_json({"x": "\ud800"}, float_free=True)


def _types_and_values(a: Any, b: Any) -> bool:
    """Equal values of the same types (``1 == 1.0`` is not enough)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_types_and_values(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_types_and_values(a[k], b[k]) for k in a)
    return bool(a == b) or (a != a and b != b)


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return isinstance(value, list) and any(_has_float(v) for v in value)


@settings(max_examples=150, deadline=None)
@given(value=values, ascii_=st.booleans(), compact=st.booleans())
def test_fast_parse_of_a_float_free_result_is_jsons(value: Any, ascii_: bool,
                                                   compact: bool) -> None:
    """Whatever orjson reads without a float is what ``json`` reads; when ``json``'s value has no
    float, orjson's has none either (so the fast path, which takes no float, sees ``json``'s)."""
    body = json.dumps({"v": value}, ensure_ascii=ascii_,
                      separators=(",", ":") if compact else None).encode()
    expected = json.loads(body)
    got = validation.parse_fast(body)
    if got is not None and not _has_float(got):
        assert _types_and_values(got, expected)
    if not _has_float(expected) and "NaN" not in body.decode() and "Infinity" not in body.decode():
        assert got is not None


@pytest.mark.parametrize("body", [
    b'{"a": 123456789012345678901234567890}', b'{"a": -9223372036854775809}',
    b'{"a": 18446744073709551616}',
])
def test_integers_past_64_bits_are_floats_to_orjson(body: bytes) -> None:
    assert isinstance(validation.parse_fast(body)["a"], float)  # never float-free: json's


@pytest.mark.parametrize("body", [
    b'{"a": NaN}', b'{"a": 1e400}', b'{"a": "\\ud800"}', b'\xef\xbb\xbf{"a": 1}',
    b'{"a": "\xff"}', b'{"a": 1,}', b'{"a": "x\x01"}', b"[" * 2000 + b"]" * 2000, b'{"a": 1',
])
def test_what_orjson_refuses_is_not_parsed_fast(body: bytes) -> None:
    assert validation.parse_fast(body) is None


@settings(max_examples=300, deadline=None)
@given(value=st.floats(allow_nan=False, allow_infinity=False),
       text=st.from_regex(r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,25})?([eE][-+]?[0-9]{1,3})?",
                          fullmatch=True))
def test_fast_parse_reads_floats_as_json(value: float, text: str) -> None:
    """The fast path takes floats in logprob entries: orjson reads every float as ``json`` does
    (both correctly rounded), whether written by Python or as any decimal text."""
    for body in (json.dumps([value]).encode(), f"[{text}]".encode()):
        got, expected = validation.parse_fast(body), json.loads(body)
        if got is not None and not (type(expected[0]) is int and type(got[0]) is float):
            assert _types_and_values(got, expected), body  # (past 64 bits: refused where an
            # integer is expected, see test_integers_past_64_bits_are_floats_to_orjson)


# -- parse_body: orjson first, json's values exactly ----------------------------------------

with_specials = (values | st.sampled_from([float("nan"), float("inf"), -float("inf"), 2**64,
                                           -(2**63) - 1, 10**30, "\ud800", "a\udfffb"])
                 | st.integers(-(2**200), 2**200))
documents = st.recursive(with_specials, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(value=documents, ascii_=st.booleans(), compact=st.booleans())
def test_parse_body_reads_what_json_reads(value: Any, ascii_: bool, compact: bool) -> None:
    """The batch bodies' reader (orjson, with ``json`` for what orjson refuses or reads
    differently) gives ``json.loads``'s values, types and key order, NaN, infinities, integers
    past 64 bits and lone surrogates included."""
    body = json.dumps({"v": value}, ensure_ascii=ascii_,
                      separators=(",", ":") if compact else None).encode("utf-8", "surrogatepass")
    assert _types_and_values(validation.parse_body(body), json.loads(body))


@settings(max_examples=200, deadline=None)
@given(text=st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?",
                          fullmatch=True))
def test_parse_body_reads_numbers_as_json(text: str) -> None:
    """Any decimal text: integers of any length, floats correctly rounded, overflow to inf."""
    body = f'{{"a": [{text}, "{text}"]}}'.encode()
    assert _types_and_values(validation.parse_body(body), json.loads(body))


@pytest.mark.parametrize("body", [
    b'{"a": 1, "b": 2, "a": 3}', b'{"a": {"x": 1}, "a": [5]}', b'{"a": NaN, "b": -Infinity}',
    b'{"a": 1e400, "b": -1e999}', b'{"a": "\\ud800", "b": "\\udc00x"}',
    b'{"a": 18446744073709551615, "b": 18446744073709551616, "c": -9223372036854775809}',
    b'{"a": 1234567890123456789012345678901234567890.5}', b'{"a": -0, "b": -0.0}',
    b'{"a": "\xed\xa0\x80"}', b" \n{\"a\": [1, 2.5, true, null]}\t ", b"[" * 300 + b"]" * 300,
])
def test_parse_body_edge_cases_are_jsons(body: bytes) -> None:
    assert _types_and_values(validation.parse_body(body), json.loads(body))


@pytest.mark.parametrize("body", [b'{"a": 1,}', b'{"a": "x\x01"}', b'{"a": 1', b"{'a': 1}",
                                  b'{"a": 01}', b'{"a": .5}'])
def test_parse_body_errors_are_jsons(body: bytes) -> None:
    """A body that is not JSON gets the same error (position and message) as before, in vLLM's
    text (``1 validation error:`` then the error's dict)."""
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(body)
    with pytest.raises(validation.TitoError) as got:
        validation.parse_body(body)
    assert got.value.message == (  # (vLLM 0.33's text, as its render server answers it)
        "1 validation error:\n  {'type': 'json_invalid', 'loc': "
        f"'body.{expected.value.pos}', 'msg': 'JSON decode error', 'input': '<dict of 0 items>', "
        f"'ctx': {{'error': {expected.value.msg!r}}}}}")


def test_parse_body_of_non_utf8_or_too_deep_fails_as_before() -> None:
    with pytest.raises(validation.TitoError, match="error parsing the body"):
        validation.parse_body(b'{"a": "\xff"}')
    # past orjson's 1,024 levels json.loads runs out of stack: FastAPI's same 400 (the
    # RecursionError was the plain apps' 500)
    with pytest.raises(validation.TitoError, match="error parsing the body"):
        validation.parse_body(b"[" * 100_000 + b"]" * 100_000)


@settings(max_examples=300, deadline=None)
@given(value=documents, ascii_=st.booleans(), raw=st.booleans())
def test_a_body_orjson_reads_holds_no_lone_surrogate(value: Any, ascii_: bool, raw: bool) -> None:
    """The derender app searches a fast path's body for lone surrogates only when orjson refuses
    it (``tito.adapters.asgi.DerenderApp``): orjson never reads one (escaped, or as raw bytes),
    so any body it reads is one the body guard finds none in."""
    body = json.dumps({"v": value}, ensure_ascii=ascii_).encode(
        "utf-8", "surrogatepass" if raw else "backslashreplace")
    if validation.parse_fast(body) is not None:
        assert lone_surrogate_path(body) is None
    if lone_surrogate_path(body) is not None:
        assert validation.parse_fast(body) is None
