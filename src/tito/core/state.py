"""Slotted plain state classes, declared like pydantic models, validated only at the boundary.

Why: the core's per-chunk states (detokenizer, stops, parsers, the choice) are created, copied
and updated several times per token. As pydantic models each ``__init__``, ``model_copy`` and
attribute assignment cost microseconds (validation, ``__dict__`` bookkeeping): a third of the
per-token time went there. A :class:`State` is a plain ``__slots__`` class with generated
``__init__`` / ``model_copy`` / ``__eq__``; nothing is validated when the core builds or updates
one (the core keeps its own bounds). Validation (types, bounds, unknown keys, each class's
cross-field rules) runs once, where a state comes from outside: :meth:`State.model_validate`,
used by the wire decoder (``tito.service.stream_state``) and the config builders.

Declarations read as before (the same subset of pydantic's syntax)::

    class ReasoningState(State):
        phase: Phase = "pre"
        held: str = Field(default="", max_length=32)
        start_id: int | None = None

Supported annotations: ``str``, ``int``, ``bool``, ``X | None``, ``Literal[...]``,
``list[X]``, ``dict[K, V]``, ``Any``, and other :class:`State` classes (nested); a bare ``dict``
is any JSON object whose contents the reader validates itself (checked once, not twice). ``Field`` takes
``default`` / ``default_factory`` and the bounds ``ge``, ``le``, ``max_length``. ``frozen=True``
(``class S(State, frozen=True)``) refuses attribute assignment after ``__init__``. A class may
define ``_check(self)`` for rules across fields; it runs after the field checks of
:meth:`~State.model_validate` and raises :class:`StateError` (or a ``TitoError``, which passes
through). Checks are strict (JSON types: ``1`` is not a bool, ``"1"`` not an int), since every
valid state was written by :meth:`~State.model_dump`.

The method names are pydantic's (``model_validate``, ``model_dump``, ``model_dump_json``,
``model_validate_json``, ``model_copy``, ``model_fields``) so call sites read the same.

Cold start: compiling the generated methods of the ten states a derender function defines took
~14 ms of its init. :mod:`tito.core._state_code` ships them as ordinary source (written by
``python -m tito.core.state_codegen``, compiled to bytecode with the rest of the package): a
class whose generated source is there, character for character, uses it; any other class (a
state changed since, a test's own) compiles its source as before.
"""

from __future__ import annotations

import hashlib
import json
import sys
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from tito.core import _state_code

__all__ = ["Field", "State", "StateError"]

_MISSING: Any = object()
_IMMUTABLE = (str, int, float, bool, type(None), tuple, frozenset)

S = TypeVar("S", bound="State")


class StateError(ValueError):
    """A state that fails validation: ``loc`` is the path of the offending field."""

    def __init__(self, loc: tuple[Any, ...], msg: str) -> None:
        self.loc = loc
        self.msg = msg
        super().__init__(f"{'.'.join(str(p) for p in loc)}: {msg}" if loc else msg)


class FieldInfo:
    """One declared field: its default and bounds (see :func:`Field`)."""

    __slots__ = ("annotation", "default", "default_factory", "ge", "le", "max_length", "name")

    def __init__(self, default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None,
                 ge: int | None = None, le: int | None = None,
                 max_length: int | None = None) -> None:
        if default is not _MISSING and not isinstance(default, _IMMUTABLE):
            default, default_factory = _MISSING, _copier(default)  # never share a mutable default
        self.default = default
        self.default_factory = default_factory
        self.ge, self.le, self.max_length = ge, le, max_length
        self.name = ""
        self.annotation: Any = None

    @property
    def required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def make_default(self) -> Any:
        return self.default_factory() if self.default_factory is not None else self.default


def Field(default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None,  # noqa: N802
          ge: int | None = None, le: int | None = None, max_length: int | None = None) -> Any:
    """A field's default and bounds (pydantic's ``Field`` subset)."""
    return FieldInfo(default, default_factory=default_factory, ge=ge, le=le,
                     max_length=max_length)


def _copier(value: Any) -> Callable[[], Any]:
    import copy

    return lambda: copy.deepcopy(value)


class _StateMeta(type):
    """Turns the annotated class body into ``__slots__`` plus generated methods."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any],
                frozen: bool = False, **kwargs: Any) -> Any:
        fields: dict[str, FieldInfo] = {}
        for base in reversed(bases):
            fields.update(getattr(base, "model_fields", {}))
        for fname, ann in ns.get("__annotations__", {}).items():
            if "ClassVar" in str(ann) or fname.startswith("model_"):
                continue
            value = ns.pop(fname, _MISSING)
            info = value if isinstance(value, FieldInfo) else FieldInfo(value)
            info.name, info.annotation = fname, ann
            fields[fname] = info
        ns.pop("model_config", None)  # pydantic's; every State forbids extra keys
        own = tuple(f for f in fields if not any(f in getattr(b, "model_fields", {})
                                                 for b in bases))
        ns["__slots__"] = own
        cls = super().__new__(mcls, name, bases, ns, **kwargs)
        cls.model_fields = fields
        cls._frozen = frozen or any(getattr(b, "_frozen", False) for b in bases)
        cls._checkers = None
        if cls._frozen:
            cls.__setattr__ = _refuse_assignment
        if fields or name != "State":
            _generate(cls, fields)
        return cls


def _refuse_assignment(self: Any, name: str, value: Any) -> None:
    raise StateError((name,), f"{type(self).__name__} is frozen")


def _generate(cls: Any, fields: dict[str, FieldInfo]) -> None:
    """``__init__``, ``model_copy``, ``__eq__`` and ``_dump`` as straight-line code."""
    names = list(fields)
    env: dict[str, Any] = {"_MISSING": _MISSING, "_new": object.__new__, "_cls": cls,
                           "_set": object.__setattr__, "_dump_value": _dump_value}
    assign = (lambda target, attr, value: f"_set({target}, {attr!r}, {value})") if cls._frozen \
        else (lambda target, attr, value: f"{target}.{attr} = {value}")
    params, body = [], []
    for n in names:
        info = fields[n]
        if info.required:
            params.append(n)
            body.append(assign("self", n, n))
        elif info.default_factory is None:
            env[f"_d_{n}"] = info.default
            params.append(f"{n}=_d_{n}")
            body.append(assign("self", n, n))
        else:
            env[f"_f_{n}"] = info.default_factory
            params.append(f"{n}=_MISSING")
            body.append(assign("self", n, f"_f_{n}() if {n} is _MISSING else {n}"))
    lines = [f"def __init__(self{', *, ' if params else ''}{', '.join(params)}):"]
    lines += ["    " + b for b in body] or ["    pass"]
    # positional, every field given, nothing checked: for the core's per-token hot paths
    lines.append(f"def _construct({', '.join(names)}):")
    lines.append("    new = _new(_cls)")
    lines += ["    " + assign("new", n, n) for n in names]
    lines.append("    return new")
    lines.append("def model_copy(self, update=None, deep=False):")
    lines.append("    new = _new(_cls)")
    lines += ["    " + assign("new", n, f"self.{n}") for n in names]
    lines.append("    if update:")
    lines.append("        for k, v in update.items():")
    lines.append("            _set(new, k, v)")
    lines.append("    return new.model_validate(new.model_dump()) if deep else new")
    tup = lambda obj: "(" + "".join(f"{obj}.{n}, " for n in names) + ")"  # noqa: E731
    lines.append("def __eq__(self, other):")
    lines.append("    if other.__class__ is not self.__class__:")
    lines.append("        return NotImplemented")
    lines.append(f"    return {tup('self')} == {tup('other')}")
    # the dump: every field, or only those that differ from their defaults (a field declared
    # a scalar holds one: its value as it is; any other value through _dump_value)
    def dumped(n: str) -> str:
        if _scalar_annotation(fields[n].annotation):
            return "v"
        return "v if v.__class__ in (str, int, bool) or v is None else _dump_value(v, nondefault)"

    lines.append("def _dump(self, nondefault):")
    lines.append("    d = {}")
    lines.append("    if nondefault:")
    for n in names:
        info = fields[n]
        lines.append(f"        v = self.{n}")
        if not info.required:  # a factory's value is compared with one made now
            env[f"_d_{n}"] = info.make_default()
            lines.append(f"        if v != _d_{n}:")
            lines.append(f"            d[{n!r}] = {dumped(n)}")
        else:
            lines.append(f"        d[{n!r}] = {dumped(n)}")
    lines.append("        return d")
    for n in names:
        lines.append(f"    v = self.{n}")
        lines.append(f"    d[{n!r}] = {dumped(n)}")
    lines.append("    return d")
    # the validation (model_validate's work): each field read once, checked only when present
    env["_fields"] = frozenset(names)
    env["StateError"] = StateError
    lines.append("def _validate(cls, data, checkers):")
    lines.append("    if not data.keys() <= _fields:")
    lines.append("        key = next(k for k in data if k not in _fields)")
    lines.append("        raise StateError((key,), 'Extra inputs are not permitted')")
    lines.append("    new = _new(cls)")
    for n in names:
        info = fields[n]
        lines.append(f"    v = data.get({n!r}, _MISSING)")
        lines.append("    if v is _MISSING:")
        if info.required:
            lines.append(f"        raise StateError(({n!r},), 'Field required')")
        elif info.default_factory is None:
            lines.append("        " + assign("new", n, f"_d_{n}"))
        else:
            lines.append("        " + assign("new", n, f"_f_{n}()"))
        accept = _accepted(info, env, cls.__module__)
        if accept:  # certainly valid (what its checker returns as it is): no checker call
            lines.append(f"    elif {accept}:")
            lines.append("        " + assign("new", n, "v"))
        lines.append("    else:")
        lines.append("        try:")
        lines.append("            " + assign("new", n, f"checkers[{n!r}](v)"))
        lines.append("        except StateError as exc:")
        lines.append(f"            raise StateError(({n!r}, *exc.loc), exc.msg) from None")
    lines.append("    return new")
    made = _made(cls, "\n".join(lines), env)
    for attr in ("__init__", "model_copy", "__eq__", "_dump"):
        setattr(cls, attr, made[attr])
    cls._validate = staticmethod(made["_validate"])
    cls._construct = staticmethod(made["_construct"])
    cls.__init__.__qualname__ = f"{cls.__qualname__}.__init__"


#: annotations (as written, or the types) of fields that hold a scalar JSON value
_SCALAR_ANNOTATIONS = frozenset({"str", "int", "bool", "str | None", "int | None", "bool | None",
                                 str, int, bool})


def _scalar_annotation(annotation: Any) -> bool:
    return annotation in _SCALAR_ANNOTATIONS


def _accepted(info: FieldInfo, env: dict[str, Any], module: str) -> str:
    """A condition on ``v`` under which the field's checker (:mod:`tito.core.state_checks`)
    returns ``v`` unchanged, for a field declared ``str``, ``int``, ``bool``, a ``Literal`` of
    strings (its set added to ``env``) or one of them ``| None``; "" for any other field (its
    checker always runs)."""
    annotation = info.annotation if isinstance(info.annotation, str) else getattr(
        info.annotation, "__name__", "")
    optional = annotation.endswith(" | None")
    base = annotation.removesuffix(" | None")
    if base == "bool":
        test = "v.__class__ is bool"
    elif base == "str":
        test = "v.__class__ is str" + (
            f" and len(v) <= {info.max_length}" if info.max_length is not None else "")
    elif base == "int":
        test = "v.__class__ is int" + (f" and v >= {info.ge}" if info.ge is not None else "") + (
            f" and v <= {info.le}" if info.le is not None else "")
    else:
        values = _literal_strings(base, module)
        if values is None:
            return ""
        env[f"_lit_{info.name}"] = values
        test = f"v.__class__ is str and v in _lit_{info.name}"
    return f"(v is None or ({test}))" if optional else test


def _literal_strings(name: str, module: str) -> frozenset[str] | None:
    """The strings of a ``Literal`` of strings named ``name`` in ``module`` (an alias such as
    ``Phase = Literal["pre", "think"]``, defined before the class), else None."""
    scope = sys.modules.get(module)
    tp = getattr(scope, name, None) if name.isidentifier() else None
    if typing.get_origin(tp) is not typing.Literal:
        return None
    values = typing.get_args(tp)
    return frozenset(values) if values and all(v.__class__ is str for v in values) else None


#: key -> (module, source, env names) of every class generated in this process, for
#: :mod:`tito.core.state_codegen`
GENERATED: dict[str, tuple[str, str, tuple[str, ...]]] = {}


def _made(cls: Any, source: str, env: dict[str, Any]) -> dict[str, Any]:
    """The functions ``source`` defines, their globals ``env``: made by the shipped
    :mod:`tito.core._state_code` maker of this exact source (its parameters are ``env``'s
    names), else compiled now."""
    names = tuple(sorted(env))
    digest = hashlib.sha1(f"{names}\n{source}".encode(), usedforsecurity=False).hexdigest()
    key = f"{cls.__name__}_{digest[:16]}"
    GENERATED[key] = (cls.__module__, source, names)
    maker = getattr(_state_code, key, None)
    if maker is not None:
        return maker(*(env[n] for n in names))  # type: ignore[no-any-return]
    exec(source, env)  # noqa: S102 - generated from the class's own field names
    return env


_SCALARS = (str, int, bool, float, type(None))


def _dump_value(value: Any, nondefault: bool) -> Any:
    if isinstance(value, State):
        return value._dump(nondefault)
    if isinstance(value, list | tuple):  # scalars as they are: no call per token id
        return [v if v.__class__ in _SCALARS else _dump_value(v, nondefault) for v in value]
    if isinstance(value, dict):
        return {k: v if v.__class__ in _SCALARS else _dump_value(v, nondefault)
                for k, v in value.items()}
    return value


class State(metaclass=_StateMeta):
    """Base of the core's states (see the module header)."""

    __slots__ = ()
    model_fields: typing.ClassVar[dict[str, FieldInfo]]
    #: ``cls._construct(*values)``: every field positionally, in declaration order, unchecked
    #: (generated; cheaper than keyword ``__init__`` where a state is built per token)
    _construct: typing.ClassVar[Callable[..., Any]]
    __hash__ = None  # type: ignore[assignment]  # mutable values (pydantic's non-frozen too)

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.model_fields)
        return f"{type(self).__name__}({inner})"

    def __copy__(self: S) -> S:
        return self.model_copy()

    def __deepcopy__(self: S, memo: dict[int, Any]) -> S:
        return self.model_copy(deep=True)

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.model_dump()))

    def _dump(self, nondefault: bool) -> dict[str, Any]:  # generated per class
        raise NotImplementedError

    def _check(self) -> None:
        """Rules across fields (subclasses); called by :meth:`model_validate`."""

    def model_dump(self, *, mode: str = "python", exclude: set[str] | frozenset[str] | None = None,
                   exclude_defaults: bool = False) -> dict[str, Any]:
        """Plain JSON-ready data (``mode`` is accepted for pydantic's signature: the values are
        JSON types in both modes). ``exclude_defaults`` leaves out fields equal to their default,
        also inside nested states."""
        d = self._dump(exclude_defaults)
        if exclude:
            for name in exclude:
                d.pop(name, None)
        return d

    def model_dump_json(self) -> str:
        """Compact JSON, UTF-8 characters kept (as pydantic's ``model_dump_json``)."""
        return json.dumps(self._dump(False), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def model_validate_json(cls: type[S], text: str | bytes) -> S:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise StateError((), f"Invalid JSON: {exc}") from None
        return cls.model_validate(data)

    @classmethod
    def model_validate(cls: type[S], data: Any) -> S:
        """A state from untrusted data: every type and bound checked (the checkers:
        :mod:`tito.core.state_checks`), unknown keys refused, then the class's ``_check``.
        Raises :class:`StateError`."""
        if data.__class__ is cls:
            return data
        if data.__class__ is not dict and not isinstance(data, Mapping):
            raise StateError((), f"Input should be an object ({cls.__name__})")
        checkers = cls._checkers
        if checkers is None:
            from tito.core.state_checks import checkers_for  # once per class

            checkers = cls._checkers = checkers_for(cls)
        state = cls._validate(cls, data, checkers)
        state._check()
        return state


def _rebuild(cls: type[S], data: dict[str, Any]) -> S:
    return cls.model_validate(data)
