"""Engine logprob entries held as plain dicts (``GenerateLogProbs.content``): the one-pass check
of the wire shape accepts, converts and refuses exactly what the pydantic models do.

The reference is ``list[GenerateLogProbsContent]`` validated by pydantic (what ``content`` was
before it held dicts): same errors (types, messages, locations), same values.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from tito.protocol.generate_response import GenerateLogProbs, GenerateLogProbsContent

MODELS = TypeAdapter(list[GenerateLogProbsContent] | None)


def _filled(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry with the models' defaults (what ``model_dump`` would add)."""
    out = {"token_id": entry["token_id"], "logprob": float(entry["logprob"]),
           "rank": entry.get("rank"), "top_logprobs": []}
    for cand in entry.get("top_logprobs", []):
        out["top_logprobs"].append({"token_id": cand["token_id"],
                                    "logprob": float(cand["logprob"]), "rank": cand.get("rank")})
    return out


def _errors(exc: ValidationError) -> list[tuple[Any, ...]]:
    return [(e["type"], tuple(e["loc"]), e["msg"]) for e in exc.errors(include_url=False)]


def _check_same(content: Any) -> None:
    try:
        models = MODELS.validate_python(content)
    except ValidationError as exc:
        with pytest.raises(ValidationError) as caught:
            GenerateLogProbs.model_validate({"content": content})
        assert _errors(caught.value) == [(t, ("content", *loc), m) for t, loc, m in _errors(exc)]
        return
    got = GenerateLogProbs.model_validate({"content": content}).content
    if models is None:
        assert got is None
        return
    assert got is not None and all(type(e) is dict for e in got)
    assert [_filled(e) for e in got] == [m.model_dump() for m in models]


_value = st.one_of(st.integers(-3, 10**6), st.floats(allow_nan=False), st.booleans(),
                   st.none(), st.text(max_size=3), st.just(1.0), st.just("1"))
_candidate = st.one_of(
    st.fixed_dictionaries({"token_id": st.integers(0, 10**6), "logprob": st.floats(-50, 0)},
                          optional={"rank": st.one_of(st.none(), st.integers(1, 20))}),
    st.dictionaries(st.sampled_from(["token_id", "logprob", "rank", "extra", "top_logprobs"]),
                    _value, max_size=4),
    _value,
)
_entry = st.one_of(
    st.fixed_dictionaries(
        {"token_id": st.integers(0, 10**6), "logprob": st.floats(-50, 0)},
        optional={"rank": st.one_of(st.none(), st.integers(1, 20)),
                  "top_logprobs": st.lists(_candidate, max_size=3)}),
    st.dictionaries(st.sampled_from(["token_id", "logprob", "rank", "top_logprobs", "bytes"]),
                    st.one_of(_value, st.lists(_candidate, max_size=2)), max_size=5),
    _value,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(_entry, max_size=4), _value, st.dictionaries(st.text(max_size=2),
                                                                         _value, max_size=2)))
def test_plain_entries_accept_and_refuse_as_the_models(content: Any) -> None:
    _check_same(content)


@pytest.mark.parametrize("content", [
    [{"token_id": -1, "logprob": -0.5}],
    [{"token_id": True, "logprob": -0.5}],
    [{"token_id": 5, "logprob": "x"}],
    [{"token_id": 5}],
    [{"token_id": 5, "logprob": -1.0, "top_logprobs": {"token_id": 5, "logprob": -1.0}}],
    [{"token_id": 5, "logprob": -1.0, "top_logprobs": [{"token_id": 5.5, "logprob": -1.0}]}],
    [{"token_id": 5, "logprob": -1.0, "top_logprobs": None}],
    [{"token_id": 5, "logprob": -1.0, "rank": "first"}],
    [{"token_id": 5, "logprob": 0, "top_logprobs": [{"token_id": 7, "logprob": -2}]}],
    [{"token_id": 5, "logprob": -1.0, "junk": 1, "top_logprobs": [{"token_id": 7,
                                                                   "logprob": -2.0, "x": 1}]}],
    json.loads('[{"token_id": 5, "logprob": -Infinity, "top_logprobs": [{"token_id": 7, '
               '"logprob": NaN}]}]'),
])
def test_edge_entries_as_the_models(content: Any) -> None:
    _check_same(content)


def test_wire_entries_are_kept_as_sent() -> None:
    content = [{"token_id": 5, "logprob": -1.0, "top_logprobs": [{"token_id": 7, "logprob": -2.0}]}]
    assert GenerateLogProbs.model_validate({"content": content}).content is content
