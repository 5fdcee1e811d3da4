"""Chat templates' containment: the limits of one render and the budget that enforces them.

Why a module of its own: the sandbox (:mod:`tito.core.template_sandbox`) calls these checks from
every hook; keeping the accounting here keeps each rule in one place. A template must not run
unbounded; every render carries a :class:`Budget` in a ContextVar (set by
:meth:`tito.core.template.ChatTemplate.render`):

* **steps**: every loop iteration (the compiled ``for`` iterables are wrapped), every call,
  filter and intercepted operator costs one step; past ``max_steps`` the render stops.
* **time**: every 1024 steps the wall clock is checked against ``max_seconds``.
* **size**: no value the sandbox can see (call, filter, operator or ``~`` result, printed value)
  may exceed ``max_output_chars``, and neither may the output. The known amplifiers are refused
  *before* they run: sequence repetition (``*``), big powers (``**``), width/precision in ``%``
  and ``str.format`` specs, width-like integer arguments larger than the limit, ``replace``,
  ``join``, ``expandtabs``, ``indent`` and serialising containers (``tojson``, ``string``,
  printing) whose estimated size is over the limit.

All failures raise :class:`TemplateRenderError`; the render layer
turns it into ``BadRequest`` with the template's own message.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


__all__ = ["DEFAULT_LIMITS", "Budget", "TemplateLimits", "TemplateRenderError"]


class TemplateRenderError(Exception):
    """A chat template failed: its own ``raise_exception``, a sandbox rule or a resource limit.

    Not a ``jinja2.TemplateError`` on purpose: this module (and so every module that only names
    the limits and this error, such as :mod:`tito.core.render`) must not import Jinja2, which a
    derender function never needs (~50 ms of its cold start)."""


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


@dataclass(slots=True)
class Budget:
    limits: TemplateLimits
    deadline: float
    steps: int = 0
    out_len: int = 0
    allocated: int = 0
    spans: list[tuple[int, int]] = field(default_factory=list)


BUDGET: ContextVar[Budget | None] = ContextVar("tito_template_budget", default=None)
_get_budget = BUDGET.get


def current_budget() -> Budget:
    budget = BUDGET.get()
    if budget is None:  # a template object used outside ChatTemplate.render
        raise TemplateRenderError("chat templates can only run through ChatTemplate.render")
    return budget


def tick(budget: Budget | None = None) -> Budget:
    """Charge one step; stop the render when the step or time budget is spent."""
    b = budget or _get_budget() or current_budget()
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


def too_big(b: Budget, what: str) -> TemplateRenderError:
    return TemplateRenderError(
        f"chat template produced {what} larger than the limit of "
        f"{b.limits.max_output_chars} characters"
    )


def check_size(b: Budget, value: Any) -> Any:
    """Refuse a value the sandbox produced when it is over the size limit, and charge its size
    to the render's allocation budget (what bounds accumulating many values under the limit)."""
    if isinstance(value, (str, list, tuple, dict, bytes)):
        size = len(value)
        if size > b.limits.max_output_chars:
            raise too_big(b, "a value")
        b.allocated += size
        if b.allocated > b.limits.max_output_chars * b.limits.max_alloc_factor:
            raise TemplateRenderError(
                "chat template built values larger than the limit of "
                f"{b.limits.max_alloc_factor} x {b.limits.max_output_chars} characters in total"
            )
    return value


def charge(b: Budget, steps: int) -> None:
    """Charge ``steps`` at once (an operation whose cost grows with its input) before it runs."""
    if steps > 1:
        b.steps += steps - 1
    tick(b)
    if steps > 1024 and time.monotonic() > b.deadline:
        raise TemplateRenderError(
            f"chat template exceeded its time limit ({b.limits.max_seconds:g} s)"
        )


def check_int_result(b: Budget, operator: str, left: Any, right: Any) -> None:
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


def estimate_size(value: Any, limit: int) -> int:
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


def check_estimate(b: Budget, value: Any) -> None:
    limit = b.limits.max_output_chars
    if not isinstance(value, (int, float, bool, type(None))) and estimate_size(value, limit) > limit:
        raise too_big(b, "a value")


# Width or precision with 7+ digits (or a `*` width) in a %-format, or 7+ digits inside a
# str.format replacement field, would allocate that much before any check could see the result.
PCT_BIG = re.compile(r"%[-#0 +]*(?:\*|\d{7,})|%[-#0 +]*\d*\.(?:\*|\d{7,})")
FMT_BIG = re.compile(r"\{[^{}]*\d{7,}[^{}]*\}")


def check_big_ints(b: Budget, args: Iterable[Any]) -> None:
    limit = b.limits.max_output_chars
    for arg in args:
        if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) > limit:
            raise too_big(b, "a width or count")


def check_str_method(b: Budget, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Pre-checks for ``str`` methods whose result can be much larger than their inputs."""
    owner = getattr(obj, "__self__", None)
    if not isinstance(owner, str):
        return
    name = getattr(obj, "__name__", "")
    limit = b.limits.max_output_chars
    check_big_ints(b, (*args, *kwargs.values()))
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        count = owner.count(args[0]) if args[0] else len(owner) + 1
        if len(owner) + count * max(0, len(args[1]) - len(args[0])) > limit:
            raise too_big(b, "a string")
    elif name == "join" and args:
        items = args[0]
        if isinstance(items, (list, tuple)):
            size = sum(len(i) if isinstance(i, str) else 8 for i in items)
            if size + len(owner) * len(items) > limit:
                raise too_big(b, "a string")
    elif name in ("split", "rsplit", "splitlines"):
        sep = args[0] if args else kwargs.get("sep")
        if name == "splitlines":
            pieces = owner.count("\n")
        elif isinstance(sep, str) and sep:
            pieces = owner.count(sep)
        else:  # whitespace runs: at most one piece per space or newline
            pieces = owner.count(" ") + owner.count("\n")
        charge(b, pieces)
    elif name == "expandtabs":
        size = args[0] if args and isinstance(args[0], int) else 8
        if len(owner) + owner.count("\t") * max(size, 0) > limit:
            raise too_big(b, "a string")
