"""Field checkers of :class:`tito.core.state.State`: the validation ``model_validate`` runs.

Why a module of its own: a state is validated only where it comes from outside (the wire
decoder, the config builders), so this is boundary code, apart from the per-token machinery of
:mod:`tito.core.state`. Each class's checkers are built once, on its first ``model_validate``,
from its resolved annotations: one small function per field, strict JSON types (``1`` is not a
bool, ``"1"`` not an int), bounds from ``Field``, nested states through their own
``model_validate``, and ``Any`` as any JSON value bounded in depth.
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

from tito.core.state import FieldInfo, State, StateError

__all__ = ["Checker", "checkers_for"]


Checker = Callable[[Any], Any]


def checkers_for(cls: type[State]) -> dict[str, Checker]:
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or not hasattr(klass, "model_fields"):
            continue
        module = sys.modules.get(klass.__module__)
        globalns = dict(vars(module)) if module is not None else {}
        for name, ann in vars(klass).get("__annotations__", {}).items():
            if name in cls.model_fields:
                hints[name] = eval(ann, globalns) if isinstance(ann, str) else ann  # noqa: S307
    return {name: _checker(hints[name], info) for name, info in cls.model_fields.items()}


def _fail(msg: str) -> typing.NoReturn:
    raise StateError((), msg)


def _checker(tp: Any, info: FieldInfo | None = None) -> Checker:
    """A function that returns the checked (and, for nested states, built) value or raises."""
    ge = info.ge if info else None
    le = info.le if info else None
    max_length = info.max_length if info else None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return _check_json
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) != 1 or len(args) != 2:
            raise TypeError(f"State fields cannot be of type {tp!r} (only X | None)")
        item = _checker(inner[0], info)
        return lambda v: None if v is None else item(v)
    if origin is Literal:
        allowed = frozenset(args)
        text = ", ".join(repr(a) for a in args)
        return lambda v: v if v.__class__ in (str, int, bool) and v in allowed else _fail(
            f"Input should be {text}")
    if tp is str:
        def check_str(v: Any) -> Any:
            if v.__class__ is not str:
                _fail("Input should be a valid string")
            if max_length is not None and len(v) > max_length:
                _fail(f"String should have at most {max_length} characters")
            return v
        return check_str
    if tp is bool:
        return lambda v: v if v.__class__ is bool else _fail("Input should be a valid boolean")
    if tp is int:
        def check_int(v: Any) -> Any:
            if v.__class__ is not int:
                _fail("Input should be a valid integer")
            if ge is not None and v < ge:
                _fail(f"Input should be greater than or equal to {ge}")
            if le is not None and v > le:
                _fail(f"Input should be less than or equal to {le}")
            return v
        return check_int
    if origin is list:
        item = _checker(args[0]) if args else _check_json

        def check_list(v: Any) -> Any:
            if v.__class__ is not list:
                _fail("Input should be a valid list")
            if max_length is not None and len(v) > max_length:
                _fail(f"List should have at most {max_length} items")
            out = []
            for k, x in enumerate(v):
                try:
                    out.append(item(x))
                except StateError as exc:
                    raise StateError((k, *exc.loc), exc.msg) from None
            return out
        return check_list
    if tp is dict:  # a bare ``dict``: any JSON object, its contents checked by whoever reads it
        return lambda v: v if v.__class__ is dict else _fail("Input should be a valid dictionary")
    if origin is dict:
        key = _checker(args[0]) if args else _check_json
        value = _checker(args[1]) if args else _check_json

        def check_dict(v: Any) -> Any:
            if v.__class__ is not dict:
                _fail("Input should be a valid dictionary")
            out = {}
            for k, x in v.items():
                try:
                    out[key(k)] = value(x)
                except StateError as exc:
                    raise StateError((k, *exc.loc), exc.msg) from None
            return out
        return check_dict
    if isinstance(tp, type) and issubclass(tp, State):
        return tp.model_validate
    raise TypeError(f"State fields cannot be of type {tp!r}")


def _check_json(v: Any, depth: int = 0) -> Any:
    """Any JSON value (``Any`` fields), bounded in depth so a hostile state cannot recurse."""
    if depth > 64:
        _fail("Input is nested too deeply")
    if v is None or v.__class__ in (str, int, float, bool):
        return v
    if v.__class__ is list:
        return [_check_json(x, depth + 1) for x in v]
    if v.__class__ is dict:
        return {k: _check_json(x, depth + 1) for k, x in v.items() if k.__class__ is str or _fail(
            "Keys should be strings")}
    _fail("Input should be a JSON value")
