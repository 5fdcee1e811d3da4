"""A render's engine request as its wire dict directly, when pydantic would change nothing.

Why: the render functions answer ``GenerateRequest.to_wire()``; building the ``SamplingParams``
and ``GenerateRequest`` models first (validating values render computed itself) and dumping
them back cost a short chat as much as its tokenization. Most values need no check at all (ids,
contexts, values the chat request model already validated); the sampling fields do, and
:func:`sampling_params_wire` checks them by hand against the rules of ``SamplingParams``' own
field declarations (read from the model at import, so the two cannot drift apart).

Rule: :func:`sampling_params_wire` returns the dict ``SamplingParams(**fields).to_wire()`` would
give only when every field is one it knows, of the exact type the model keeps as it is (an
``int`` for a ``float`` field becomes the float pydantic makes of it) and within the declared
bounds, with no validator that would act on it (``seed`` -1, ``min_tokens`` over
``max_tokens``); anything else returns None, and the caller builds the models as before (so
errors are always theirs). :func:`generate_request_wire` is ``GenerateRequest.to_wire()`` of
values that need no validation (the caller's guarantee). ``tests/test_render_wire.py`` checks
both against the models on generated requests, good and bad.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from tito.protocol.common import wire_dump
from tito.protocol.generate_request import GenerateRequest, SamplingParams

__all__ = ["SAMPLING_ORDER", "field_checks", "generate_request_wire", "sampling_params_wire"]

_MAX_EXACT_FLOAT_INT = 2**53


class _Field:
    """One ``SamplingParams`` field as the hand check needs it."""

    __slots__ = ("default", "hi", "hi_strict", "kind", "lo", "lo_strict", "nullable")

    def __init__(self, kind: str, nullable: bool, metadata: list[Any], default: Any) -> None:
        self.kind, self.nullable, self.default = kind, nullable, default
        self.lo = self.hi = None
        self.lo_strict = self.hi_strict = False
        for rule in metadata:
            if isinstance(rule, Ge):
                self.lo = rule.ge
            elif isinstance(rule, Gt):
                self.lo, self.lo_strict = rule.gt, True
            elif isinstance(rule, Le):
                self.hi = rule.le
            elif isinstance(rule, Lt):
                self.hi, self.hi_strict = rule.lt, True

    def check(self, value: Any) -> tuple[bool, Any]:
        """(certainly valid, the value the model would hold)."""
        if value is None:
            return self.nullable, None
        kind = self.kind
        if kind == "bool":
            return type(value) is bool, value
        if kind == "float":
            if type(value) is int and abs(value) <= _MAX_EXACT_FLOAT_INT:
                value = float(value)
            elif type(value) is not float or not math.isfinite(value):
                return False, value
        elif kind == "int":
            if type(value) is not int:
                return False, value
        elif kind == "str":
            return type(value) is str, value
        elif kind == "dict":  # dict[str, Any]: pydantic copies it, the values as they are
            ok = type(value) is dict and all(type(k) is str for k in value)
            return ok, dict(value) if ok else value
        elif kind == "ids":  # list[TokenId]
            ok = type(value) is list and all(type(i) is int and i >= 0 for i in value)
            return ok, list(value) if ok else value
        else:  # "strs"
            ok = type(value) is list and all(type(s) is str for s in value)
            return ok, list(value) if ok else value
        lo, hi = self.lo, self.hi
        if lo is not None and (value <= lo if self.lo_strict else value < lo):
            return False, value
        if hi is not None and (value >= hi if self.hi_strict else value > hi):
            return False, value
        return True, value


def _kind(annotation: Any) -> tuple[str | None, bool]:
    """(kind, nullable) of a field annotation; kind None: not checked by hand."""
    args = typing.get_args(annotation)
    nullable = False
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        rest = [a for a in args if a is not type(None)]
        nullable = len(rest) < len(args)
        if len(rest) != 1:
            return None, nullable
        annotation = rest[0]
        args = typing.get_args(annotation)
    if annotation in _SCALARS:
        return _SCALARS[annotation], nullable
    if typing.get_origin(annotation) is dict and args and args[0] is str and args[1] is Any:
        return "dict", nullable
    if typing.get_origin(annotation) is list and args:
        item = args[0]
        if item is str:
            return "strs", nullable
        base = typing.get_args(item)[0] if typing.get_origin(item) is typing.Annotated else item
        metadata = getattr(typing.get_args(item)[1], "metadata", []) if base is not item else []
        if base is int and any(isinstance(r, Ge) and r.ge == 0 for r in metadata):
            return "ids", nullable
    return None, nullable


def _default(info: Any) -> Any:
    """A field's default (its factory called: they take no argument here), without pydantic's
    ``get_default``, which inspects a factory's signature (milliseconds at import)."""
    return info.default_factory() if info.default_factory is not None else info.default


_SCALARS: dict[Any, str] = {bool: "bool", float: "float", int: "int", str: "str"}
_BOUNDS = (Ge, Gt, Le, Lt)


def field_checks(model: type[BaseModel], exclude: frozenset[str]) -> dict[str, _Field]:
    """The fields of ``model`` a hand check can decide (name -> check): a plain JSON type
    (``bool``, ``int``, ``float``, ``str``, ``dict[str, Any]``, a list of ``str`` or of
    non-negative ints), optionally null, bounded only by ``ge``/``gt``/``le``/``lt``, with a
    default; ``exclude`` names the fields whose validators act on their values."""
    out: dict[str, _Field] = {}
    for name, info in model.model_fields.items():
        if name in exclude or info.alias is not None or info.validation_alias is not None:
            continue
        kind, nullable = _kind(info.annotation)
        if kind is None or not all(isinstance(rule, _BOUNDS) for rule in info.metadata):
            continue
        default = _default(info)
        if default is PydanticUndefined:
            continue
        out[name] = _Field(kind, nullable, info.metadata, default)
    return out


#: fields with validators of their own (``seed``: -1 means null; ``stop``: its shapes) or an
#: enum (``output_kind``) are handled below or not at all
_VALIDATED = frozenset({"seed", "stop", "output_kind"})
_FIELDS = field_checks(SamplingParams, _VALIDATED)
#: the order of ``SamplingParams``' fields, which its wire dict keeps
SAMPLING_ORDER = tuple(SamplingParams.model_fields)
_POSITION = {name: i for i, name in enumerate(SAMPLING_ORDER)}
_SEED = SamplingParams.model_fields["seed"]
_SEED_CHECK = _Field("int", True, _SEED.metadata, None)
_OUTPUT_KINDS = frozenset(int(kind) for kind in type(SamplingParams.model_fields["output_kind"].default))
_OUTPUT_KIND_DEFAULT = SamplingParams.model_fields["output_kind"].default


def sampling_params_wire(fields: dict[str, Any]) -> dict[str, Any] | None:
    """``SamplingParams(**fields).to_wire()`` when every value is certainly valid as it is,
    else None (see the module docstring)."""
    values: dict[str, Any] = {}
    for name, value in fields.items():
        field = _FIELDS.get(name)
        if field is not None:
            default = field.default
            if name != "max_tokens" and (value is default or (
                    type(value) is type(default) and value == default)):
                continue  # the default itself: valid, and left out of the wire
            ok, value = field.check(value)
            if not ok:
                return None
            if value == default and name != "max_tokens":
                continue  # the default once converted (an int for a float field)
        elif name == "seed":
            if value == -1 or not _SEED_CHECK.check(value)[0]:
                return None
            if value is None:
                continue
        elif name == "output_kind":
            if type(value) is not int or value not in _OUTPUT_KINDS:
                return None
            if value == _OUTPUT_KIND_DEFAULT:
                continue
        else:
            return None
        values[name] = value
    max_tokens = values.get("max_tokens", 16)
    if max_tokens is not None and values.get("min_tokens", 0) > max_tokens:
        return None  # the model's cross-field error
    return {name: values[name] for name in sorted(values, key=_POSITION.__getitem__)}


#: (name, default) of the fields render does not pass (plain defaults: features, output_mode)
_GENERATE_FIELDS = tuple(
    (name, info.default if info.default_factory is None else PydanticUndefined)
    for name, info in GenerateRequest.model_fields.items())
_DROPPED_WHEN_NULL = frozenset({"derender_context", "assistant_tokens_mask"})


def generate_request_wire(values: dict[str, Any]) -> dict[str, Any]:
    """``GenerateRequest(**values).to_wire()`` for values that need no validation, with
    ``sampling_params`` already a wire dict (:func:`sampling_params_wire`); every field with
    a default factory (``request_id``) is in ``values``."""
    out: dict[str, Any] = {}
    for name, default in _GENERATE_FIELDS:
        value = values.get(name, default)
        if value is None:
            if name in _DROPPED_WHEN_NULL:
                continue
        elif type(value) not in _PLAIN and isinstance(value, BaseModel):
            value = wire_dump(value)  # (pydantic's isinstance is slow: the plain types first)
        out[name] = value
    return out


_PLAIN = frozenset({bool, int, str, list, dict, float})
