"""The generated ``State`` methods equal the generic rules they inline.

``tito.core.state`` generates each state class's ``_validate`` and ``_dump`` as straight-line
code. Two shortcuts there are checked here against their references, on every state class tito
defines and arbitrary JSON values: ``_validate`` accepts a value of a ``str`` / ``int`` /
``bool`` / ``Literal`` of strings (``| None``) field without calling its checker when the checker would return it as it
is (the reference: every field through its checker, :mod:`tito.core.state_checks`), and
``_dump`` writes a field declared a scalar as it is (the reference: every value through
``_dump_value``). Same states, same errors (location and message), same dumps.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core.detok_state import DetokState
from tito.core.parsers.harmony_state import HarmonyState
from tito.core.parsers.reasoning import ReasoningState
from tito.core.parsers.tools._base import ToolState
from tito.core.pipeline import ChoiceConfig, ChoiceState
from tito.core.state import _MISSING, State, StateError, _dump_value
from tito.core.state_checks import checkers_for
from tito.core.stops import StopConfig, StopState
from tito.service.responses_event_state import EventState, Usage
from tito.service.stream_state import StreamMeta, TitoState

CLASSES: list[type[State]] = [ReasoningState, StopState, StopConfig, ToolState, HarmonyState,
                              DetokState, ChoiceConfig, ChoiceState, EventState, Usage,
                              StreamMeta, TitoState]

#: JSON values around the bounds the fields declare (lengths 32/64/128/256/512, ge 0/1, le)
values = st.recursive(
    st.none() | st.booleans() | st.sampled_from([-1, 0, 1, 2, 16384, 16385, 2**40])
    | st.integers(-3, 300) | st.floats(allow_nan=False, width=16)
    | st.sampled_from(["", "pre", "think", "done", "auto", "none", "x" * 32, "x" * 33,
                       "x" * 128, "x" * 129, "x" * 512, "x" * 513]) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=5)


def _reference_validate(cls: type[State], data: dict[str, Any]) -> State:
    """``model_validate`` as it was before the shortcut: every present field through its
    checker, in declaration order."""
    checkers = checkers_for(cls)
    fields = cls.model_fields
    extra = next((k for k in data if k not in fields), None)
    if extra is not None:
        raise StateError((extra,), "Extra inputs are not permitted")
    new = object.__new__(cls)
    for name, info in fields.items():
        value = data.get(name, _MISSING)
        if value is _MISSING:
            if info.required:
                raise StateError((name,), "Field required")
            value = info.make_default()
        else:
            try:
                value = checkers[name](value)
            except StateError as exc:
                raise StateError((name, *exc.loc), exc.msg) from None
        object.__setattr__(new, name, value)
    new._check()
    return new


def _outcome(fn: Any) -> Any:
    try:
        state = fn()
    except StateError as exc:
        return ("error", exc.loc, exc.msg)
    except Exception as exc:  # noqa: BLE001 - a TitoError from a class's _check
        return ("error", type(exc).__name__, str(exc))
    return ("ok", json.dumps(state.model_dump(), sort_keys=True))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_validate_equals_every_field_through_its_checker(cls: type[State],
                                                         data: st.DataObject) -> None:
    base = cls.model_fields
    names = data.draw(st.lists(st.sampled_from(sorted(base)), unique=True, max_size=len(base)))
    raw = {name: data.draw(values, label=name) for name in names}
    if data.draw(st.booleans()):  # the required fields present, so later ones get checked
        for name, info in base.items():
            if info.required and name not in raw:
                raw[name] = data.draw(values, label=name)
    assert _outcome(lambda: cls.model_validate(raw)) == _outcome(
        lambda: _reference_validate(cls, raw))


def _reference_dump(state: State, nondefault: bool) -> dict[str, Any]:
    out = {}
    for name, info in type(state).model_fields.items():
        value = getattr(state, name)
        if nondefault and not info.required and value == info.make_default():
            continue
        out[name] = value if value.__class__ in (str, int, bool) or value is None else \
            _dump_value(value, nondefault)
    return out


_FALLBACKS = ["x", 0, 1, True, {}, [], None]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_dump_equals_every_field_through_dump_value(cls: type[State],
                                                    data: st.DataObject) -> None:
    checkers = checkers_for(cls)
    raw: dict[str, Any] = {}
    for name, info in cls.model_fields.items():  # each field a value its checker takes
        for value in [data.draw(values, label=name), *(_FALLBACKS if info.required else [])]:
            try:
                checkers[name](value)
            except Exception:  # noqa: BLE001, S112 - another value
                continue
            raw[name] = value
            break
    try:
        state = cls.model_validate(raw)
    except Exception:  # noqa: BLE001 - a rule across fields: only valid states are dumped
        return
    for nondefault in (False, True):
        got, expected = state._dump(nondefault), _reference_dump(state, nondefault)
        assert list(got) == list(expected)
        assert json.dumps(got) == json.dumps(expected)
