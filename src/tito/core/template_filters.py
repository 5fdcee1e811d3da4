"""Chat templates' filters and globals, each charging the render's budget
(:mod:`tito.core.template_budget`): what :mod:`tito.core.template_sandbox` installs in its
environment.

Why a module of their own: they are the template-facing surface (what a Hugging Face template
may call: ``tojson``, ``fromjson``, ``sum``, ``lipsum``, ``raise_exception``, ``strftime_now``,
``namespace``, and every Jinja filter through :func:`guard_filter`), while the sandbox module
owns the environment, its attribute and call hooks, and the source checks.

Rules: a filter's input is charged before it runs (one step per item, per character for the
per-item filters, per 64 characters of text for the others); an iterator input is wrapped so
each item costs a step; serialising filters pre-check the size of what they will write; every
result's size is checked. No filter can do unbounded work in one call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import wraps
from itertools import chain
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.filters import make_attrgetter
from jinja2.utils import Namespace, generate_lorem_ipsum, pass_context, pass_environment

from tito.core.template_budget import (
    BUDGET,
    PCT_BIG,
    Budget,
    TemplateRenderError,
    charge,
    check_big_ints,
    check_estimate,
    check_int_result,
    check_size,
    check_str_method,
    current_budget,
    tick,
    too_big,
)

__all__ = [
    "TemplateNamespace",
    "bounded_iter",
    "concat_filter",
    "finalize",
    "fromjson",
    "guard_filter",
    "lipsum",
    "loop_filter",
    "precheck_filter",
    "raise_exception",
    "strftime_now",
    "sum_filter",
    "tojson",
]


def bounded_iter(iterable: Any, budget: Budget | None = None) -> Iterator[Any]:
    """Iterate while charging one step per item (wraps every ``for`` of a compiled template)."""
    b = budget or current_budget()
    for item in iterable:
        tick(b)
        yield item


@pass_context
def loop_filter(context: Any, iterable: Any) -> Iterator[Any]:
    # pass_context keeps Jinja from constant-folding the call at compile time
    return bounded_iter(iterable)


@pass_context
def precheck_filter(context: Any, value: Any) -> Any:
    """Operand of ``~``: refuse containers whose string form would be over the limit."""
    b = tick()
    if not isinstance(value, str):
        check_estimate(b, value)
    return value


@pass_context
def concat_filter(context: Any, value: Any) -> Any:
    return check_size(current_budget(), value)


def finalize(value: Any) -> Any:
    """Every ``{{ expression }}`` passes here before it is turned into text.

    A constant string (``{{- '<|im_start|>' }}``) is let through at compile time, when no
    render runs: Jinja then writes it into the compiled template as text, merged with its
    neighbours, as it does without a finalize; the render still counts it in its output size."""
    b = BUDGET.get()
    if b is None and type(value) is str:  # compile time (a render always has its budget)
        return value
    b = current_budget()
    if isinstance(value, str):
        return check_size(b, value)
    check_estimate(b, value)
    return value


def tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """JSON without HTML escaping: what Hugging Face templates expect from ``tojson``."""
    if isinstance(indent, int) and indent > 64:
        raise TemplateRenderError("tojson indent is too large")
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


@pass_environment
def sum_filter(environment: Any, iterable: Any, attribute: Any = None, start: Any = 0) -> Any:
    """Jinja's ``sum`` in linear time: Python's ``sum`` of lists copies the running total at
    every item (quadratic), and adds integers without the size check of the ``+`` operator."""
    b = current_budget()
    if attribute is not None:
        getter = make_attrgetter(environment, attribute)
        iterable = (getter(item) for item in iterable)
    items = list(bounded_iter(iterable, b))
    limit = b.limits.max_output_chars
    if isinstance(start, (list, tuple)) and all(isinstance(i, type(start)) for i in items):
        if len(start) + sum(len(i) for i in items) > limit:
            raise too_big(b, "a sum")
        return type(start)(chain(start, *items))
    if any(isinstance(v, (str, bytes, list, tuple)) for v in (start, *items)):
        raise TemplateRenderError("sum adds numbers, or lists (or tuples) to a list start")
    total = start
    for item in items:
        check_int_result(b, "*", total, 2)  # an integer sum grows by at most one bit per item
        total = total + item
    return total


def lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002
    """Jinja's ``lipsum`` with its cost (``n`` paragraphs of up to ``max`` words) charged first."""
    b = current_budget()
    for value in (n, min, max):
        if not isinstance(value, int) or value < 0:
            raise TemplateRenderError("lipsum takes non-negative integer sizes")
    charge(b, n * max)
    return check_size(b, generate_lorem_ipsum(n=n, html=html, min=min, max=max))


_RAISE = object()


def fromjson(value: Any, fallback: Any = _RAISE) -> Any:
    """Parse JSON text; on failure return ``fallback`` (or raise when none is given)."""
    try:
        return json.loads(value)
    except (TypeError, ValueError) as exc:
        if fallback is _RAISE:
            raise TemplateRenderError(f"fromjson: not valid JSON: {exc}") from None
        return fallback


def raise_exception(message: Any) -> None:
    raise TemplateRenderError(str(message))


def strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


class TemplateNamespace(Namespace):
    """``namespace()`` that refuses underscore-prefixed attributes (no reaching into internals)."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - same trick as jinja2's
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            TemplateNamespace._check(name)
        Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        TemplateNamespace._check(name)
        Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"chat templates cannot store underscore-prefixed namespace attributes ({name!r})"
            )


# Filters that serialise their input or take a size-like argument get a pre-check.
_PASSED_ARGS = (jinja2.runtime.Context, jinja2.Environment, nodes.EvalContext)
_SERIALISING_FILTERS = frozenset({"tojson", "string", "pprint", "join", "format", "indent"})


#: Filters that do Python-level work per item, per character of a string, or per word (the
#: regex- and textwrap-based text filters): charged one step per item or character.
_ITEM_FILTERS = frozenset({
    "batch", "slice", "sort", "unique", "list", "map", "select", "reject", "selectattr",
    "rejectattr", "groupby", "sum", "min", "max", "dictsort", "join", "items", "reverse",
    "urlize", "wordwrap", "title", "striptags", "wordcount", "truncate", "urlencode", "xmlattr",
})


#: Filters that do O(1) work and answer an integer (``len``): one step, nothing to check.
_CONSTANT_FILTERS = frozenset({"length", "count"})


def guard_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a filter with the step charge, the size pre-checks and the result size check.

    Its input is charged before the filter runs (one step per item, per character for the
    per-item filters, per 64 characters of text for the others), and an iterator input (a lazy
    ``map``, ``batch``...) is wrapped so that each item it yields costs a step: no filter can
    do unbounded work in one call. ``length`` (``len``, constant time, an integer) costs its
    step only.
    """
    if name in _CONSTANT_FILTERS:
        @wraps(func)
        def constant(*args: Any, **kwargs: Any) -> Any:
            tick()
            return func(*args, **kwargs)

        return constant

    @wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        b = tick()
        first = 0
        while first < len(args) and isinstance(args[first], _PASSED_ARGS):
            first += 1
        if first < len(args):
            value = args[first]
            if isinstance(value, Iterator):
                args = (*args[:first], bounded_iter(value, b), *args[first + 1 :])
            elif isinstance(value, str):
                charge(b, len(value) if name in _ITEM_FILTERS else len(value) // 64)
            elif name in _ITEM_FILTERS and isinstance(value, (list, tuple, dict, set, range)):
                charge(b, len(value))
        if name in _SERIALISING_FILTERS and first < len(args):
            value = args[first]
            if not isinstance(value, (str, list, tuple, dict, Namespace, int, float, type(None))):
                # a generator (e.g. from `map`): materialise it so its size can be checked
                args = (*args[:first], list(bounded_iter(value, b)), *args[first + 1 :])
        values = list(args[first:])
        check_big_ints(b, (*values[1:], *kwargs.values()))
        if name in _SERIALISING_FILTERS and values:
            if name == "format" and isinstance(values[0], str) and PCT_BIG.search(values[0]):
                raise too_big(b, "a formatted string")
            for value in (values if name != "indent" else values[:1]):
                check_estimate(b, value)
            if name == "join" and isinstance(values[0], (list, tuple)):
                sep = values[1] if len(values) > 1 else kwargs.get("d", "")
                if isinstance(sep, str) and len(sep) * len(values[0]) > b.limits.max_output_chars:
                    raise too_big(b, "a string")
            if name == "indent" and isinstance(values[0], str):
                width = values[1] if len(values) > 1 else kwargs.get("width", 4)
                if isinstance(width, int) and len(values[0]) + values[0].count("\n") * width > b.limits.max_output_chars:
                    raise too_big(b, "a string")
        if name == "replace" and len(values) >= 3 and isinstance(values[0], str):
            check_str_method(b, values[0].replace, tuple(values[1:3]), {})
        return check_size(b, func(*args, **kwargs))

    return guarded
