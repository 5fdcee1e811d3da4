"""Chat templates' Jinja2 environment: Hugging Face's sandbox, bounded by :mod:`tito.core.template_budget`.

Compatibility (what model templates expect, as ``transformers.apply_chat_template`` provides):
``ImmutableSandboxedEnvironment`` with ``trim_blocks``, ``lstrip_blocks`` and loop controls; the
lenient ``Undefined``; a ``tojson`` that does not HTML-escape and takes ``ensure_ascii``,
``indent``, ``separators``, ``sort_keys``; ``raise_exception``, ``strftime_now``, a ``namespace``
refusing underscore-prefixed attributes; ``{% generation %}`` blocks; tito's ``fromjson``.

Containment: every call, binary operator, filter, ``for`` loop and ``~`` concatenation reports to
the render's budget (the sandbox hooks below, and :class:`Instrument`, which rewrites a parsed
template's loops and concatenations before it is compiled). :func:`check_source` bounds what
the compiler sees.
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
from jinja2.ext import Extension
from jinja2.filters import make_attrgetter
from jinja2.runtime import LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Namespace, generate_lorem_ipsum, pass_context, pass_environment
from jinja2.visitor import NodeTransformer

from tito.core.template_budget import (
    BUDGET,
    FMT_BIG,
    PCT_BIG,
    Budget,
    TemplateLimits,
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

__all__ = ["SANDBOX", "Instrument", "check_source"]


#: Types whose :meth:`_BoundedSandbox.is_safe_attribute` answer depends only on the type and the
#: attribute name (exact types: no subclass; the sandbox's rules read no instance state).
_CACHED_TYPES = frozenset({str, int, float, bool, type(None), dict, list, tuple, LoopContext})
_MAX_CACHED_ATTRIBUTES = 4096
#: Attribute names an exact ``dict`` has (its methods and ``object``'s): any other name written
#: ``d.name`` in a template is an item lookup.
_DICT_ATTRIBUTES = frozenset(dir(dict))
_BUILTIN_METHOD = type("".startswith)
#: ``str`` methods the sandbox calls as they are: all public ones but ``format`` and
#: ``format_map`` (which it wraps) and ``join`` (whose generator argument is materialised first)
_PLAIN_STR_METHODS = frozenset(
    name for name in dir(str) if not name.startswith("_") and name not in ("format", "format_map", "join"))


class _BoundedSandbox(ImmutableSandboxedEnvironment):
    """Hugging Face's sandbox plus the step and size accounting of this module.

    Two lookups are answered from shortcuts that give what the sandbox would (a template reads
    ``message.content`` and calls ``content.startswith`` many times per render): ``d.name`` on
    a plain dict is its item when ``dict`` has no such attribute (the sandbox first tries the
    attribute, catching the AttributeError), and the safety of an attribute of a plain builtin
    value, a loop or a namespace is decided once per (type, name) (the sandbox runs ABC
    instance checks every time); the cache holds names the type really has, at most
    :data:`_MAX_CACHED_ATTRIBUTES` of them.
    """

    intercepted_binops = frozenset(["*", "**", "+", "%"])
    _safe_attributes: dict[tuple[type, str], bool] = {}

    def getattr(self, obj: Any, attribute: str) -> Any:
        kind = type(obj)
        if kind is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except LookupError:
                return self.undefined(obj=obj, name=attribute)
        if self._safe_attributes.get((kind, attribute)):  # the sandbox's answer, cached: safe
            try:
                return getattr(obj, attribute)
            except AttributeError:
                pass  # (an item of that name, or undefined: the sandbox decides)
        return super().getattr(obj, attribute)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        kind = type(obj)
        if (kind not in _CACHED_TYPES and kind is not _TemplateNamespace) or type(attr) is not str:
            return super().is_safe_attribute(obj, attr, value)
        key = (kind, attr)
        safe = self._safe_attributes.get(key)
        if safe is None:
            safe = super().is_safe_attribute(obj, attr, value)
            if len(self._safe_attributes) < _MAX_CACHED_ATTRIBUTES:  # names from the sources
                self._safe_attributes[key] = safe
        return safe

    def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        b = tick()
        if type(obj) is _BUILTIN_METHOD and type(obj.__self__) is str and obj.__name__ in _PLAIN_STR_METHODS:
            # `content.startswith(...)`: what the sandbox's call does for a str method (safe, no
            # context to pass, the loop's and block's variables dropped), with the checks below
            check_str_method(b, obj, args, kwargs)
            kwargs.pop("_loop_vars", None)
            kwargs.pop("_block_vars", None)
            return check_size(b, obj(*args, **kwargs))
        if isinstance(obj, LoopContext) and args:  # `loop(children)` in a recursive for loop
            args = (bounded_iter(args[0], b), *args[1:])
        elif (
            args and getattr(obj, "__name__", "") == "join"
            and isinstance(getattr(obj, "__self__", None), str)
            and not isinstance(args[0], (str, list, tuple, dict))
        ):  # `sep.join(generator)`: materialise it so its size can be checked first
            args = (list(bounded_iter(args[0], b)), *args[1:])
        check_str_method(b, obj, args, kwargs)
        return check_size(b, super().call(context, obj, *args, **kwargs))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format``/``format_map`` as the sandbox wraps them, plus the size pre-checks."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        fmt: str = value.__self__

        @wraps(wrapped)
        def checked(*args: Any, **kwargs: Any) -> str:
            b = tick()
            if FMT_BIG.search(fmt):
                raise too_big(b, "a formatted string")
            check_big_ints(b, (*args, *kwargs.values()))
            for arg in (*args, *kwargs.values()):
                check_estimate(b, arg)
            return check_size(b, wrapped(*args, **kwargs))

        return checked

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        b = tick()
        limit = b.limits.max_output_chars
        if operator == "+" and type(left) is str and type(right) is str:
            # the common case (a template's string concatenations), checked as below, inline:
            # the size pre-check, then the result's size charged as check_size does
            if len(left) + len(right) > limit:
                raise too_big(b, "a value")
            return check_size(b, left + right)
        if operator == "*":
            seq, n = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and len(seq) * n > limit:
                raise too_big(b, "a repeated sequence")
        if operator in ("*", "**"):
            check_int_result(b, operator, left, right)
        elif operator == "%" and isinstance(left, str):
            if PCT_BIG.search(left):
                raise too_big(b, "a formatted string")
            check_estimate(b, right)
        elif operator == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                if len(left) + len(right) > limit:
                    raise too_big(b, "a value")
        return check_size(b, super().call_binop(context, operator, left, right))


def bounded_iter(iterable: Any, budget: Budget | None = None) -> Iterator[Any]:
    """Iterate while charging one step per item (wraps every ``for`` of a compiled template)."""
    b = budget or current_budget()
    for item in iterable:
        tick(b)
        yield item


@pass_context
def _loop_filter(context: Any, iterable: Any) -> Iterator[Any]:
    # pass_context keeps Jinja from constant-folding the call at compile time
    return bounded_iter(iterable)


@pass_context
def _precheck_filter(context: Any, value: Any) -> Any:
    """Operand of ``~``: refuse containers whose string form would be over the limit."""
    b = tick()
    if not isinstance(value, str):
        check_estimate(b, value)
    return value


@pass_context
def _concat_filter(context: Any, value: Any) -> Any:
    return check_size(current_budget(), value)


def _finalize(value: Any) -> Any:
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


def _tojson(
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
def _sum(environment: Any, iterable: Any, attribute: Any = None, start: Any = 0) -> Any:
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


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002
    """Jinja's ``lipsum`` with its cost (``n`` paragraphs of up to ``max`` words) charged first."""
    b = current_budget()
    for value in (n, min, max):
        if not isinstance(value, int) or value < 0:
            raise TemplateRenderError("lipsum takes non-negative integer sizes")
    charge(b, n * max)
    return check_size(b, generate_lorem_ipsum(n=n, html=html, min=min, max=max))


_RAISE = object()


def _fromjson(value: Any, fallback: Any = _RAISE) -> Any:
    """Parse JSON text; on failure return ``fallback`` (or raise when none is given)."""
    try:
        return json.loads(value)
    except (TypeError, ValueError) as exc:
        if fallback is _RAISE:
            raise TemplateRenderError(f"fromjson: not valid JSON: {exc}") from None
        return fallback


def _raise_exception(message: Any) -> None:
    raise TemplateRenderError(str(message))


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


class _TemplateNamespace(Namespace):
    """``namespace()`` that refuses underscore-prefixed attributes (no reaching into internals)."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - same trick as jinja2's
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _TemplateNamespace._check(name)
        Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _TemplateNamespace._check(name)
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


def _guard_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
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


class _GenerationExtension(Extension):
    """``{% generation %}...{% endgeneration %}``: record where assistant text lands."""

    tags = {"generation"}

    def parse(self, parser: Any) -> nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_mark", []), [], [], body).set_lineno(lineno)

    def _mark(self, caller: Callable[[], str]) -> str:
        text = caller()
        b = current_budget()
        # Everything rendered before this block has already been yielded and counted, so the
        # running output length is where the block's text starts (same rule as transformers:
        # blocks inside macros or {% set %} captures are not tracked reliably).
        b.spans.append((b.out_len, b.out_len + len(text)))
        return text


_LOOP_FILTER = "tito_bounded_loop"
_PRECHECK_FILTER = "tito_precheck"
_CONCAT_FILTER = "tito_concat_size"


class Instrument(NodeTransformer):
    """Rewrite the parsed template so loops and ``~`` concatenations report to the budget."""

    def visit_For(self, node: nodes.For) -> nodes.Node:  # noqa: N802 - jinja visitor naming
        node = self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, _LOOP_FILTER, [], [], None, None, lineno=node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:  # noqa: N802
        node = self.generic_visit(node)
        node.nodes = [
            nodes.Filter(n, _PRECHECK_FILTER, [], [], None, None, lineno=node.lineno)
            for n in node.nodes
        ]
        return nodes.Filter(node, _CONCAT_FILTER, [], [], None, None, lineno=node.lineno)


def _make_environment() -> _BoundedSandbox:
    env = _BoundedSandbox(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[_GenerationExtension, "jinja2.ext.loopcontrols"],
        finalize=_finalize,
        autoescape=False,
    )
    env.filters["tojson"] = _tojson
    env.filters["fromjson"] = _fromjson
    env.filters["sum"] = _sum
    for name, func in list(env.filters.items()):
        env.filters[name] = _guard_filter(name, func)
    env.filters[_LOOP_FILTER] = _loop_filter
    env.filters[_PRECHECK_FILTER] = _precheck_filter
    env.filters[_CONCAT_FILTER] = _concat_filter
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["namespace"] = _TemplateNamespace
    env.globals["lipsum"] = _lipsum
    return env


SANDBOX = _make_environment()


#: Block tags that open a nesting level (closed by their ``end...`` tag).
_OPENING_TAGS = frozenset({
    "for", "if", "macro", "call", "filter", "block", "with", "generation", "autoescape",
})


def check_source(source: str, limits: TemplateLimits) -> None:
    """Refuse a source too large, or nested too deeply (blocks plus brackets), before Jinja's
    recursive parser and Python's compiler see it: both cost time and memory that grow with the
    source and fail with a RecursionError on deep nesting. One pass of Jinja's own lexer."""
    if len(source) > limits.max_source_chars:
        raise TemplateRenderError(
            f"chat template source is {len(source)} characters long; at most "
            f"{limits.max_source_chars} are accepted"
        )
    depth = 0
    after_block_begin = False
    try:
        for _, kind, value in SANDBOX.lex(source):
            if kind == "operator" and value in "([{":
                depth += 1
            elif kind == "operator" and value in ")]}":
                depth = max(depth - 1, 0)
            elif kind == "name" and after_block_begin:
                if value in _OPENING_TAGS:
                    depth += 1
                elif value.startswith("end"):
                    depth = max(depth - 1, 0)
            if kind != "whitespace":
                after_block_begin = kind == "block_begin"
            if depth > limits.max_nesting:
                raise TemplateRenderError(
                    f"chat template source is nested more than {limits.max_nesting} levels deep"
                )
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateRenderError(f"invalid chat template: {exc}") from None
