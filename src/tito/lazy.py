"""A read-only mapping whose values are made on first lookup: registries that import on use.

Why: a Lambda function pays every import at each cold start, but serves one model with one
tool format, and one endpoint. A registry of every format (or route) keeps its names, its
``in`` and its errors for unknown names, while importing a value's module only when that name
is looked up (once; later lookups are a dict lookup). Keys, ``in`` and ``len`` make nothing;
``values()`` and ``items()`` make every value.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["LazyMapping", "import_attr"]

K = TypeVar("K")
V = TypeVar("V")

_MISSING: Any = object()


class LazyMapping(Mapping[K, V]):
    """``key -> makers[key]()``, each made on its first lookup and kept."""

    def __init__(self, makers: Mapping[K, Callable[[], V]]) -> None:
        self._makers = dict(makers)
        self._made: dict[K, V] = {}

    def __getitem__(self, key: K) -> V:
        value = self._made.get(key, _MISSING)
        if value is _MISSING:
            value = self._made[key] = self._makers[key]()  # KeyError for an unknown key
        return value  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        return key in self._makers

    def __iter__(self) -> Iterator[K]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


def import_attr(spec: str) -> Any:
    """``"package.module:name"`` -> that attribute, importing the module."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)
