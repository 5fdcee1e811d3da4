"""``dump_json(checked_floats=True)`` (orjson, its bytes kept only when no float in them can
differ) gives exactly the bytes of the standard library's encoder, floats included.

The reference is ``json.dumps`` with FastAPI's ``JSONResponse`` settings (what ``dump_json``
writes without orjson); for non-finite floats, which it refuses, ``dump_json``'s own ``json``
path (pydantic's JSON mode: ``null``). Arbitrary JSON values with arbitrary floats (every finite
range, subnormals, the boundaries where ``json`` switches to an exponent, NaN and infinities),
strings that look like odd floats, keys that are not strings, integers past 64 bits.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tito.adapters import splice

FASTAPI = {"ensure_ascii": False, "allow_nan": False, "indent": None, "separators": (",", ":")}

BOUNDARIES = [1e-4, 1e16, 1e-5, 1e15, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308]
EDGE_FLOATS = [v for b in BOUNDARIES for v in (b, math.nextafter(b, 0), math.nextafter(b, math.inf))]
EDGE_FLOATS = [v for v in EDGE_FLOATS if math.isfinite(v)]
EDGE_FLOATS += [-v for v in EDGE_FLOATS] + [0.0, -0.0, 0.6, 0.95, 1.0, 0.1 + 0.2, 123456.789]

floats = st.floats() | st.sampled_from(EDGE_FLOATS) | st.floats(1e-6, 1e-3) | st.floats(1e14, 1e18)
scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | floats
           | st.text(st.characters(exclude_categories=("Cs",)), max_size=10)
           | st.sampled_from([":1e5", ",0.00001", "[1e-7", "3e4", "x:1.5E3", "😀", "\x00\n"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=24)


def _json_path(content: Any) -> bytes:
    """What ``dump_json`` writes without orjson."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(splice, "orjson", None)
        return splice.dump_json(content)


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return not isinstance(value, list) or all(_finite(v) for v in value)


@settings(max_examples=400, deadline=None)
@given(value=values)
def test_checked_floats_answers_are_the_standard_encoders_bytes(value: Any) -> None:
    content = {"answer": value, "list": [value, (1, "t")], "sampling_params": {"top_p": 0.95}}
    got = splice.dump_json(content, checked_floats=True)
    assert got == _json_path(content)
    if _finite(value):
        assert got == json.dumps(content, **FASTAPI).encode("utf-8")


@pytest.mark.parametrize("value", EDGE_FLOATS)
def test_every_edge_float_is_written_as_json_writes_it(value: float) -> None:
    content = {"v": value, "l": [value, -value]}
    assert splice.dump_json(content, checked_floats=True) == json.dumps(content, **FASTAPI).encode()


def test_a_render_answer_is_kept_from_orjson() -> None:
    """The common answer's floats (sampling parameters) and strings (a request id in hex) do
    not send it to the second pass: the check finds nothing odd in orjson's bytes."""
    import orjson

    content = {"request_id": "chatcmpl-d3e01364ebcd42c9", "token_ids": [151644, 8948, 198],
               "sampling_params": {"temperature": 0.6, "top_p": 0.95, "max_tokens": 1024},
               "derender_context": {"prompt_tail": [825, 3409], "kind": "chat"}}
    out = orjson.dumps(content)
    assert not splice._odd_float(out)
    assert splice.dump_json(content, checked_floats=True) == json.dumps(content, **FASTAPI).encode()
    for odd in (1e-05, 2.5e-05, 1e-07, 1e16, 1.5e16):
        assert splice._odd_float(orjson.dumps({"t": [odd]})), odd
