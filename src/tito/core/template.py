"""Chat templates: a sandboxed, bounded Jinja2 environment compatible with Hugging Face's.

Why our own environment rather than ``transformers``: render runs in a Lambda without torch or
``transformers``, and a template is code from a model folder or (when trusted) from a request, so
it must be both faithful and contained.

Theory of operation (one module per concern; this one is the public face):

* :mod:`tito.core.template_sandbox`: the environment. Compatibility with what model templates
  expect from ``transformers.apply_chat_template`` (sandbox, ``trim_blocks``/``lstrip_blocks``,
  loop controls, a ``tojson`` that does not HTML-escape, ``raise_exception``, ``strftime_now``,
  ``{% generation %}`` spans, tito's ``fromjson``), every hook reporting to the budget.
* :mod:`tito.core.template_filters`: the filters and globals a template calls, each charging
  the budget (installed in the environment by the sandbox).
* :mod:`tito.core.template_budget`: containment. The :class:`TemplateLimits` of a render
  (steps, time, sizes), enforced by a per-render budget; every failure is a
  :class:`TemplateRenderError`, which the render layer turns into
  ``BadRequest`` with the template's own message.
* :mod:`tito.core.template_analysis`: what a template reads from its messages (content format,
  null content, string arguments, the developer role), decided once at compile time.
* here: :class:`ChatTemplate` (compile once, render many) and :func:`compile_template` (cached
  per source: a model's template is compiled at init, see :func:`tito.service.render.warm_up`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jinja2

from tito.core.template_analysis import (
    ContentFormat,
    detect_content_format,
    supports_developer_role,
    tests_content_none,
    wants_string_arguments,
)
from tito.core.template_budget import (
    BUDGET,
    DEFAULT_LIMITS,
    Budget,
    TemplateLimits,
    TemplateRenderError,
    too_big,
)
from tito.core.template_sandbox import SANDBOX, Instrument, check_source

__all__ = [
    "DEFAULT_LIMITS",
    "ChatTemplate",
    "ContentFormat",
    "RenderedTemplate",
    "TemplateLimits",
    "TemplateRenderError",
    "compile_template",
]


@dataclass(frozen=True)
class RenderedTemplate:
    """The rendered prompt text and the ``{% generation %}`` spans, as [start, end) offsets."""

    text: str
    generation_spans: tuple[tuple[int, int], ...] = ()


_GENERATION_TAG = re.compile(r"\{%-?\s*generation\s*-?%\}")


class ChatTemplate:
    """One compiled chat template; immutable and shared across requests (see :func:`compile_template`)."""

    def __init__(self, source: str, limits: TemplateLimits = DEFAULT_LIMITS) -> None:
        self.source = source
        check_source(source, limits)
        self.has_generation_blocks: bool = bool(_GENERATION_TAG.search(source))
        self.mentions_developer_role: bool = supports_developer_role(source)
        try:
            ast = SANDBOX.parse(source)
            self.content_format: ContentFormat = detect_content_format(ast)
            self.tests_content_none: bool = tests_content_none(ast)
            self.wants_string_arguments: bool = wants_string_arguments(ast)
            self._template = SANDBOX.from_string(Instrument().visit(ast))
            # what Template.generate rebuilds per render, once: its globals (a ChainMap Jinja
            # copies key by key into every render's variables) as one dict, its entry point
            self._globals = dict(self._template.globals)
            self._root = self._template.root_render_func
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
        budget = Budget(limits=limits, deadline=time.monotonic() + limits.max_seconds)
        token = BUDGET.set(budget)
        pieces: list[str] = []
        try:
            for piece in self._root(self._new_context(context)):
                budget.out_len += len(piece)
                if budget.out_len > limits.max_output_chars:
                    raise too_big(budget, "a prompt")
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
            BUDGET.reset(token)
        return RenderedTemplate("".join(pieces), tuple(budget.spans))

    def _new_context(self, variables: Mapping[str, Any]) -> jinja2.runtime.Context:
        """The context ``Template.generate(**variables)`` renders with (``new_context``: the
        globals, then the variables), from the globals copied at compile time. Calling the root
        function directly also skips ``generate``'s traceback rewriting of a failed render: the
        same exception, with Python's traceback."""
        parent = self._globals.copy()
        parent.update(variables)
        return SANDBOX.context_class(SANDBOX, parent, self._template.name, self._template.blocks)


@lru_cache(maxsize=32)
def _compiled(source: str, limits: TemplateLimits) -> ChatTemplate:
    return ChatTemplate(source, limits)


#: (source, limits, template) of the last call: a model's own template, asked for by every
#: request with the same two objects, found by identity (the cache's key hashes and compares
#: the limits' seven fields per call)
_last: tuple[Any, Any, Any] = (None, None, None)


def compile_template(source: str, limits: TemplateLimits = DEFAULT_LIMITS) -> ChatTemplate:
    """Compile (once per distinct source) a chat template; :class:`TemplateRenderError` if invalid."""
    global _last
    last_source, last_limits, template = _last
    if source is last_source and limits is last_limits:
        return template  # type: ignore[no-any-return]
    template = _compiled(source, limits)
    _last = (source, limits, template)
    return template


def _cache_clear() -> None:
    global _last
    _last = (None, None, None)
    _compiled.cache_clear()


compile_template.cache_info = _compiled.cache_info  # type: ignore[attr-defined]
compile_template.cache_clear = _cache_clear  # type: ignore[attr-defined]
