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

from collections.abc import Callable
from functools import wraps
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.runtime import LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from tito.core.template_budget import (
    FMT_BIG,
    PCT_BIG,
    TemplateLimits,
    TemplateRenderError,
    check_big_ints,
    check_estimate,
    check_int_result,
    check_size,
    check_str_method,
    current_budget,
    tick,
    too_big,
)
from tito.core.template_filters import (
    TemplateNamespace,
    bounded_iter,
    concat_filter,
    finalize,
    fromjson,
    guard_filter,
    lipsum,
    loop_filter,
    precheck_filter,
    raise_exception,
    strftime_now,
    sum_filter,
    tojson,
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
        if (kind not in _CACHED_TYPES and kind is not TemplateNamespace) or type(attr) is not str:
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
        finalize=finalize,
        autoescape=False,
    )
    env.filters["tojson"] = tojson
    env.filters["fromjson"] = fromjson
    env.filters["sum"] = sum_filter
    for name, func in list(env.filters.items()):
        env.filters[name] = guard_filter(name, func)
    env.filters[_LOOP_FILTER] = loop_filter
    env.filters[_PRECHECK_FILTER] = precheck_filter
    env.filters[_CONCAT_FILTER] = concat_filter
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["namespace"] = TemplateNamespace
    env.globals["lipsum"] = lipsum
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
