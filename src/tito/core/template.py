"""Chat templates: a sandboxed, bounded Jinja2 environment compatible with Hugging Face's.

Why our own environment rather than ``transformers``: render runs in a Lambda without torch or
``transformers``, and a template is code from a model folder or (when trusted) from a request, so
it must be both faithful and contained.

Theory of operation
-------------------
Compatibility (what model templates expect, as ``transformers.apply_chat_template`` provides):

* ``ImmutableSandboxedEnvironment`` with ``trim_blocks``, ``lstrip_blocks`` and loop controls
  (``{% break %}``, ``{% continue %}``); the default (lenient) ``Undefined``.
* ``tojson`` that does NOT HTML-escape (Jinja's own turns ``<`` into ``\\u003c``, which corrupts
  tool schemas and arguments) and takes ``ensure_ascii``, ``indent``, ``separators``, ``sort_keys``.
* globals ``raise_exception(message)`` (a template error, hence a 400 with the template's message)
  and ``strftime_now(format)``; ``namespace`` refuses underscore-prefixed attributes.
* ``{% generation %}...{% endgeneration %}``: marks assistant text; :meth:`ChatTemplate.render`
  reports the character spans of every such block (used for ``assistant_tokens_mask``).
* one tito extension, ``fromjson(value, fallback)``: parse JSON text, or return ``fallback`` when
  it is not JSON (our Mistral template needs it to normalise tool results as mistral-common does).

Containment (a template must not run unbounded). Every render carries a budget in a ContextVar:

* **steps**: every loop iteration (the compiled ``for`` iterables are wrapped), every call,
  filter and intercepted operator costs one step; past ``max_steps`` the render stops.
* **time**: every 1024 steps the wall clock is checked against ``max_seconds``.
* **size**: no value the sandbox can see (call, filter, operator or ``~`` result, printed value)
  may exceed ``max_output_chars``, and neither may the output. The known amplifiers are refused
  *before* they run: sequence repetition (``*``), big powers (``**``), width/precision in ``%``
  and ``str.format`` specs, width-like integer arguments larger than the limit, ``replace``,
  ``join``, ``expandtabs``, ``indent`` and serialising containers (``tojson``, ``string``,
  printing) whose estimated size is over the limit.

All failures raise :class:`TemplateRenderError` (a ``jinja2.TemplateError``); the render layer
turns it into ``BadRequest`` with the template's own message.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache, wraps
from itertools import chain
from typing import Any, Literal

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.runtime import LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.filters import make_attrgetter
from jinja2.utils import Namespace, generate_lorem_ipsum, pass_context, pass_environment
from jinja2.visitor import NodeTransformer

__all__ = [
    "DEFAULT_LIMITS",
    "ChatTemplate",
    "ContentFormat",
    "RenderedTemplate",
    "TemplateLimits",
    "TemplateRenderError",
    "compile_template",
]

ContentFormat = Literal["string", "openai"]
"""How a template reads ``message.content``: one string, or the OpenAI list of typed parts."""


class TemplateRenderError(jinja2.TemplateError):
    """A chat template failed: its own ``raise_exception``, a sandbox rule or a resource limit."""


@dataclass(frozen=True)
class TemplateLimits:
    """Resource bounds of one render (see the module docstring for what each one counts)."""

    max_output_chars: int = 8_000_000
    max_steps: int = 2_000_000
    max_seconds: float = 5.0
    #: template source: characters and nesting (blocks plus brackets) the compiler may see
    max_source_chars: int = 64 * 1024
    max_nesting: int = 64
    #: largest integer an operator may produce (``**`` and ``*`` are checked before they run)
    max_int_bits: int = 16_384
    #: total characters/items of every value the sandbox produces, as multiples of the output
    #: limit: bounds accumulation (e.g. many distinct strings just under the size limit)
    max_alloc_factor: int = 8


DEFAULT_LIMITS = TemplateLimits()


@dataclass(frozen=True)
class RenderedTemplate:
    """The rendered prompt text and the ``{% generation %}`` spans, as [start, end) offsets."""

    text: str
    generation_spans: tuple[tuple[int, int], ...] = ()


# ------------------------------------------------------------------------------------------
# The per-render budget
# ------------------------------------------------------------------------------------------


@dataclass
class _Budget:
    limits: TemplateLimits
    deadline: float
    steps: int = 0
    out_len: int = 0
    allocated: int = 0
    spans: list[tuple[int, int]] = field(default_factory=list)


_BUDGET: ContextVar[_Budget | None] = ContextVar("tito_template_budget", default=None)


def _budget() -> _Budget:
    budget = _BUDGET.get()
    if budget is None:  # a template object used outside ChatTemplate.render
        raise TemplateRenderError("chat templates can only run through ChatTemplate.render")
    return budget


def _tick(budget: _Budget | None = None) -> _Budget:
    """Charge one step; stop the render when the step or time budget is spent."""
    b = budget or _budget()
    b.steps += 1
    if b.steps > b.limits.max_steps:
        raise TemplateRenderError(
            f"chat template exceeded its work limit ({b.limits.max_steps} steps)"
        )
    if not b.steps & 0x3FF and time.monotonic() > b.deadline:
        raise TemplateRenderError(
            f"chat template exceeded its time limit ({b.limits.max_seconds:g} s)"
        )
    return b


def _too_big(b: _Budget, what: str) -> TemplateRenderError:
    return TemplateRenderError(
        f"chat template produced {what} larger than the limit of "
        f"{b.limits.max_output_chars} characters"
    )


def _check_size(b: _Budget, value: Any) -> Any:
    """Refuse a value the sandbox produced when it is over the size limit, and charge its size
    to the render's allocation budget (what bounds accumulating many values under the limit)."""
    if isinstance(value, (str, list, tuple, dict, bytes)):
        size = len(value)
        if size > b.limits.max_output_chars:
            raise _too_big(b, "a value")
        b.allocated += size
        if b.allocated > b.limits.max_output_chars * b.limits.max_alloc_factor:
            raise TemplateRenderError(
                "chat template built values larger than the limit of "
                f"{b.limits.max_alloc_factor} x {b.limits.max_output_chars} characters in total"
            )
    return value


def _charge(b: _Budget, steps: int) -> None:
    """Charge ``steps`` at once (an operation whose cost grows with its input) before it runs."""
    if steps > 1:
        b.steps += steps - 1
    _tick(b)
    if steps > 1024 and time.monotonic() > b.deadline:
        raise TemplateRenderError(
            f"chat template exceeded its time limit ({b.limits.max_seconds:g} s)"
        )


def _input_cost(value: Any) -> int:
    """Steps an operation over ``value`` costs: one per item; one per 64 characters of text."""
    if isinstance(value, str):
        return len(value) // 64
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return len(value)
    return 0


def _check_int_result(b: _Budget, operator: str, left: Any, right: Any) -> None:
    """Refuse ``**`` and ``*`` on integers whose result would exceed ``max_int_bits``: both are
    computed in one C call, so no step or time check could interrupt them."""
    if not (isinstance(left, int) and isinstance(right, int)):
        return
    bits = b.limits.max_int_bits
    if operator == "*":
        too_big = left.bit_length() + right.bit_length() > bits + 1
    else:
        too_big = abs(left) > 1 and right > 0 and (abs(left).bit_length() - 1) * right > bits
    if too_big:
        raise TemplateRenderError(
            f"chat template computed an integer (power or product) larger than {bits} bits"
        )


def _estimate(value: Any, limit: int) -> int:
    """Rough serialised size of ``value`` (strings count their length), stopping past ``limit``.

    Why: ``str()`` or ``json.dumps`` of a list holding the same big string many times is cheap to
    build and enormous to print; the walk is bounded by ``limit`` so it is cheap too.
    """
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2 + 2 * len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += 2 + len(item)
            stack.extend(item)
        else:  # numbers, booleans, None, namespaces: short when printed
            total += 8
    return total


def _check_estimate(b: _Budget, value: Any) -> None:
    limit = b.limits.max_output_chars
    if not isinstance(value, (int, float, bool, type(None))) and _estimate(value, limit) > limit:
        raise _too_big(b, "a value")


# Width or precision with 7+ digits (or a `*` width) in a %-format, or 7+ digits inside a
# str.format replacement field, would allocate that much before any check could see the result.
_PCT_BIG = re.compile(r"%[-#0 +]*(?:\*|\d{7,})|%[-#0 +]*\d*\.(?:\*|\d{7,})")
_FMT_BIG = re.compile(r"\{[^{}]*\d{7,}[^{}]*\}")


def _check_big_ints(b: _Budget, args: Iterable[Any]) -> None:
    limit = b.limits.max_output_chars
    for arg in args:
        if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) > limit:
            raise _too_big(b, "a width or count")


def _check_str_method(b: _Budget, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Pre-checks for ``str`` methods whose result can be much larger than their inputs."""
    owner = getattr(obj, "__self__", None)
    if not isinstance(owner, str):
        return
    name = getattr(obj, "__name__", "")
    limit = b.limits.max_output_chars
    _check_big_ints(b, (*args, *kwargs.values()))
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        count = owner.count(args[0]) if args[0] else len(owner) + 1
        if len(owner) + count * max(0, len(args[1]) - len(args[0])) > limit:
            raise _too_big(b, "a string")
    elif name == "join" and args:
        items = args[0]
        if isinstance(items, (list, tuple)):
            size = sum(len(i) if isinstance(i, str) else 8 for i in items)
            if size + len(owner) * len(items) > limit:
                raise _too_big(b, "a string")
    elif name in ("split", "rsplit", "splitlines"):
        sep = args[0] if args else kwargs.get("sep")
        if name == "splitlines":
            pieces = owner.count("\n")
        elif isinstance(sep, str) and sep:
            pieces = owner.count(sep)
        else:  # whitespace runs: at most one piece per space or newline
            pieces = owner.count(" ") + owner.count("\n")
        _charge(b, pieces)
    elif name == "expandtabs":
        size = args[0] if args and isinstance(args[0], int) else 8
        if len(owner) + owner.count("\t") * max(size, 0) > limit:
            raise _too_big(b, "a string")


# ------------------------------------------------------------------------------------------
# Environment: sandbox hooks, filters, globals, the generation extension
# ------------------------------------------------------------------------------------------


class _BoundedSandbox(ImmutableSandboxedEnvironment):
    """Hugging Face's sandbox plus the step and size accounting of this module."""

    intercepted_binops = frozenset(["*", "**", "+", "%"])

    def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        b = _tick()
        if isinstance(obj, LoopContext) and args:  # `loop(children)` in a recursive for loop
            args = (_bounded_iter(args[0], b), *args[1:])
        elif (
            args and getattr(obj, "__name__", "") == "join"
            and isinstance(getattr(obj, "__self__", None), str)
            and not isinstance(args[0], (str, list, tuple, dict))
        ):  # `sep.join(generator)`: materialise it so its size can be checked first
            args = (list(_bounded_iter(args[0], b)), *args[1:])
        _check_str_method(b, obj, args, kwargs)
        return _check_size(b, super().call(context, obj, *args, **kwargs))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format``/``format_map`` as the sandbox wraps them, plus the size pre-checks."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        fmt: str = value.__self__

        @wraps(wrapped)
        def checked(*args: Any, **kwargs: Any) -> str:
            b = _tick()
            if _FMT_BIG.search(fmt):
                raise _too_big(b, "a formatted string")
            _check_big_ints(b, (*args, *kwargs.values()))
            for arg in (*args, *kwargs.values()):
                _check_estimate(b, arg)
            return _check_size(b, wrapped(*args, **kwargs))

        return checked

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        b = _tick()
        limit = b.limits.max_output_chars
        if operator == "*":
            seq, n = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and len(seq) * n > limit:
                raise _too_big(b, "a repeated sequence")
        if operator in ("*", "**"):
            _check_int_result(b, operator, left, right)
        elif operator == "%" and isinstance(left, str):
            if _PCT_BIG.search(left):
                raise _too_big(b, "a formatted string")
            _check_estimate(b, right)
        elif operator == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                if len(left) + len(right) > limit:
                    raise _too_big(b, "a value")
        return _check_size(b, super().call_binop(context, operator, left, right))


def _bounded_iter(iterable: Any, budget: _Budget | None = None) -> Iterator[Any]:
    """Iterate while charging one step per item (wraps every ``for`` of a compiled template)."""
    b = budget or _budget()
    for item in iterable:
        _tick(b)
        yield item


@pass_context
def _loop_filter(context: Any, iterable: Any) -> Iterator[Any]:
    # pass_context keeps Jinja from constant-folding the call at compile time
    return _bounded_iter(iterable)


@pass_context
def _precheck_filter(context: Any, value: Any) -> Any:
    """Operand of ``~``: refuse containers whose string form would be over the limit."""
    b = _tick()
    if not isinstance(value, str):
        _check_estimate(b, value)
    return value


@pass_context
def _concat_filter(context: Any, value: Any) -> Any:
    return _check_size(_budget(), value)


def _finalize(value: Any) -> Any:
    """Every ``{{ expression }}`` passes here before it is turned into text."""
    b = _budget()
    if isinstance(value, str):
        return _check_size(b, value)
    _check_estimate(b, value)
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
    b = _budget()
    if attribute is not None:
        getter = make_attrgetter(environment, attribute)
        iterable = (getter(item) for item in iterable)
    items = list(_bounded_iter(iterable, b))
    limit = b.limits.max_output_chars
    if isinstance(start, (list, tuple)) and all(isinstance(i, type(start)) for i in items):
        if len(start) + sum(len(i) for i in items) > limit:
            raise _too_big(b, "a sum")
        return type(start)(chain(start, *items))
    if any(isinstance(v, (str, bytes, list, tuple)) for v in (start, *items)):
        raise TemplateRenderError("sum adds numbers, or lists (or tuples) to a list start")
    total = start
    for item in items:
        _check_int_result(b, "*", total, 2)  # an integer sum grows by at most one bit per item
        total = total + item
    return total


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002
    """Jinja's ``lipsum`` with its cost (``n`` paragraphs of up to ``max`` words) charged first."""
    b = _budget()
    for value in (n, min, max):
        if not isinstance(value, int) or value < 0:
            raise TemplateRenderError("lipsum takes non-negative integer sizes")
    _charge(b, n * max)
    return _check_size(b, generate_lorem_ipsum(n=n, html=html, min=min, max=max))


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


def _guard_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a filter with the step charge, the size pre-checks and the result size check.

    Its input is charged before the filter runs (one step per item, per character for the
    per-item filters, per 64 characters of text for the others), and an iterator input (a lazy
    ``map``, ``batch``...) is wrapped so that each item it yields costs a step: no filter can
    do unbounded work in one call.
    """

    @wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        b = _tick()
        first = 0
        while first < len(args) and isinstance(args[first], _PASSED_ARGS):
            first += 1
        if first < len(args):
            value = args[first]
            if isinstance(value, Iterator):
                args = (*args[:first], _bounded_iter(value, b), *args[first + 1 :])
            elif isinstance(value, str):
                _charge(b, len(value) if name in _ITEM_FILTERS else len(value) // 64)
            elif name in _ITEM_FILTERS and isinstance(value, (list, tuple, dict, set, range)):
                _charge(b, len(value))
        if name in _SERIALISING_FILTERS and first < len(args):
            value = args[first]
            if not isinstance(value, (str, list, tuple, dict, Namespace, int, float, type(None))):
                # a generator (e.g. from `map`): materialise it so its size can be checked
                args = (*args[:first], list(_bounded_iter(value, b)), *args[first + 1 :])
        values = list(args[first:])
        _check_big_ints(b, (*values[1:], *kwargs.values()))
        if name in _SERIALISING_FILTERS and values:
            if name == "format" and isinstance(values[0], str) and _PCT_BIG.search(values[0]):
                raise _too_big(b, "a formatted string")
            for value in (values if name != "indent" else values[:1]):
                _check_estimate(b, value)
            if name == "join" and isinstance(values[0], (list, tuple)):
                sep = values[1] if len(values) > 1 else kwargs.get("d", "")
                if isinstance(sep, str) and len(sep) * len(values[0]) > b.limits.max_output_chars:
                    raise _too_big(b, "a string")
            if name == "indent" and isinstance(values[0], str):
                width = values[1] if len(values) > 1 else kwargs.get("width", 4)
                if isinstance(width, int) and len(values[0]) + values[0].count("\n") * width > b.limits.max_output_chars:
                    raise _too_big(b, "a string")
        if name == "replace" and len(values) >= 3 and isinstance(values[0], str):
            _check_str_method(b, values[0].replace, tuple(values[1:3]), {})
        return _check_size(b, func(*args, **kwargs))

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
        b = _budget()
        # Everything rendered before this block has already been yielded and counted, so the
        # running output length is where the block's text starts (same rule as transformers:
        # blocks inside macros or {% set %} captures are not tracked reliably).
        b.spans.append((b.out_len, b.out_len + len(text)))
        return text


_LOOP_FILTER = "tito_bounded_loop"
_PRECHECK_FILTER = "tito_precheck"
_CONCAT_FILTER = "tito_concat_size"


class _Instrument(NodeTransformer):
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


_ENV = _make_environment()


# ------------------------------------------------------------------------------------------
# Compiled templates
# ------------------------------------------------------------------------------------------


def _is_content_access(node: nodes.Node) -> bool:
    """``x.content`` or ``x['content']`` (possibly through filters such as ``| list``)."""
    while isinstance(node, nodes.Filter) and node.node is not None:
        node = node.node
    if isinstance(node, nodes.Getattr):
        return node.attr == "content"
    if isinstance(node, nodes.Getitem):
        return isinstance(node.arg, nodes.Const) and node.arg.value == "content"
    return False


def _detect_content_format(ast: nodes.Template) -> ContentFormat:
    """``openai`` when the template loops over a message's content (directly or via a variable
    assigned from it), else ``string``: the same question vLLM asks to decide how to pass parts."""
    def loop_names(root: nodes.Node) -> set[str]:
        names: set[str] = set()
        for loop in root.find_all(nodes.For):
            it = loop.iter
            while isinstance(it, nodes.Filter) and it.node is not None:
                it = it.node
            if _is_content_access(it):
                names.add("\0content")
            elif isinstance(it, nodes.Name):
                names.add(it.name)
        return names

    content_vars: set[str] = set()
    for assign in ast.find_all(nodes.Assign):
        if isinstance(assign.target, nodes.Name) and _is_content_access(assign.node):
            content_vars.add(assign.target.name)
    looped = loop_names(ast)
    if "\0content" in looped or looped & content_vars:
        return "openai"
    # A macro that loops over one of its parameters, called with a message's content.
    for macro in ast.find_all(nodes.Macro):
        iterated = loop_names(macro)
        positions = [i for i, arg in enumerate(macro.args) if arg.name in iterated]
        if not positions:
            continue
        for call in ast.find_all(nodes.Call):
            if isinstance(call.node, nodes.Name) and call.node.name == macro.name:
                args = [call.args[i] for i in positions if i < len(call.args)]
                args += [kw.value for kw in call.kwargs if kw.key in iterated]
                if any(_is_content_access(a) or (isinstance(a, nodes.Name) and a.name in content_vars)
                       for a in args):
                    return "openai"
    return "string"


#: Block tags that open a nesting level (closed by their ``end...`` tag).
_OPENING_TAGS = frozenset({
    "for", "if", "macro", "call", "filter", "block", "with", "generation", "autoescape",
})


def _check_source(source: str, limits: TemplateLimits) -> None:
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
        for _, kind, value in _ENV.lex(source):
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


def _is_key_access(node: nodes.Node, key: str) -> bool:
    """``x.key`` or ``x['key']``."""
    if isinstance(node, nodes.Getattr):
        return node.attr == key
    if isinstance(node, nodes.Getitem):
        return isinstance(node.arg, nodes.Const) and node.arg.value == key
    return False


def _aliases(ast: nodes.Template, key: str) -> set[str]:
    """Names a template assigns from ``x.key`` (``{% set args = call.arguments %}``)."""
    return {
        assign.target.name
        for assign in ast.find_all(nodes.Assign)
        if isinstance(assign.target, nodes.Name) and _is_key_access(assign.node, key)
    }


def _refers_to(node: nodes.Node, key: str, aliases: set[str]) -> bool:
    return _is_key_access(node, key) or (isinstance(node, nodes.Name) and node.name in aliases)


def _tests_content_none(ast: nodes.Template) -> bool:
    """Whether the template tells ``content: null`` apart (``message['content'] is none``), as
    DeepSeek-V3's does to write tool calls only for contentless turns: such a template must get
    the null that ``transformers`` would hand it, not vLLM's ``""``."""
    aliases = _aliases(ast, "content")
    return any(
        test.name == "none" and _refers_to(test.node, "content", aliases)
        for test in ast.find_all(nodes.Test)
    )


def _wants_string_arguments(ast: nodes.Template) -> bool:
    """Whether tool-call ``arguments`` must stay the JSON string OpenAI clients send: the
    template concatenates them (``'```json\n' + tool['function']['arguments']``, DeepSeek-V3)
    and never asks which form it got (``is string`` / ``is mapping``, Qwen3). Other templates
    get an object, as vLLM passes it (most write ``arguments | tojson``)."""
    aliases = _aliases(ast, "arguments")
    for test in ast.find_all(nodes.Test):
        if test.name in ("string", "mapping") and _refers_to(test.node, "arguments", aliases):
            return False
    for op in (*ast.find_all(nodes.Add), *ast.find_all(nodes.Concat)):
        operands = op.nodes if isinstance(op, nodes.Concat) else (op.left, op.right)
        if any(_refers_to(o, "arguments", aliases) for o in operands):
            return True
    return False


def _supports_developer_role(source: str) -> bool:
    """vLLM's test: the template names the role in quotes. Otherwise ``developer`` messages
    become ``system`` (see :func:`tito.core.render.normalize_messages`)."""
    return '"developer"' in source or "'developer'" in source


_GENERATION_TAG = re.compile(r"\{%-?\s*generation\s*-?%\}")


class ChatTemplate:
    """One compiled chat template; immutable and shared across requests (see :func:`compile_template`)."""

    def __init__(self, source: str, limits: TemplateLimits = DEFAULT_LIMITS) -> None:
        self.source = source
        _check_source(source, limits)
        self.has_generation_blocks: bool = bool(_GENERATION_TAG.search(source))
        self.mentions_developer_role: bool = _supports_developer_role(source)
        try:
            ast = _ENV.parse(source)
            self.content_format: ContentFormat = _detect_content_format(ast)
            self.tests_content_none: bool = _tests_content_none(ast)
            self.wants_string_arguments: bool = _wants_string_arguments(ast)
            self._template = _ENV.from_string(_Instrument().visit(ast))
        except jinja2.TemplateError as exc:
            raise TemplateRenderError(f"invalid chat template: {exc}") from None
        except (RecursionError, MemoryError, SyntaxError) as exc:
            # an expression chain deeper than Jinja's recursive passes or Python's compiler take
            raise TemplateRenderError(
                f"invalid chat template: too complex to compile ({type(exc).__name__})"
            ) from None

    def render(
        self, context: Mapping[str, Any], *, limits: TemplateLimits = DEFAULT_LIMITS
    ) -> RenderedTemplate:
        """Render with ``context`` as the template variables, within ``limits``.

        Raises :class:`TemplateRenderError` for the template's own errors, sandbox violations,
        undefined-value misuse, Python errors inside the template and exhausted limits.
        """
        budget = _Budget(limits=limits, deadline=time.monotonic() + limits.max_seconds)
        token = _BUDGET.set(budget)
        pieces: list[str] = []
        try:
            for piece in self._template.generate(**context):
                budget.out_len += len(piece)
                if budget.out_len > limits.max_output_chars:
                    raise _too_big(budget, "a prompt")
                pieces.append(piece)
        except TemplateRenderError:
            raise
        except jinja2.TemplateError as exc:
            raise TemplateRenderError(exc.message or type(exc).__name__) from None
        except RecursionError:
            raise TemplateRenderError("chat template recursed too deeply") from None
        except MemoryError:
            raise TemplateRenderError("chat template ran out of memory") from None
        except (TypeError, ValueError, LookupError, AttributeError, ArithmeticError,
                RuntimeError) as exc:
            raise TemplateRenderError(f"chat template error: {type(exc).__name__}: {exc}") from None
        finally:
            _BUDGET.reset(token)
        return RenderedTemplate("".join(pieces), tuple(budget.spans))


@lru_cache(maxsize=32)
def compile_template(source: str, limits: TemplateLimits = DEFAULT_LIMITS) -> ChatTemplate:
    """Compile (once per distinct source) a chat template; :class:`TemplateRenderError` if invalid."""
    return ChatTemplate(source, limits)
