"""Structural tags: the engine constraint that makes a model write tool calls in its own format.

Why: vLLM 0.33 constrains ``tool_choice`` ``"required"`` and named (and ``"auto"`` when a tool is
``strict`` or ``parallel_tool_calls`` is false) with ``structured_outputs.structural_tag`` (an
xgrammar structural tag, JSON text) in the tool parser's own format, instead of the older JSON
schema of a list of ``{name, parameters}``. The model then writes calls that the same format
parser reads back, so derender parses required and named output like ``auto``.

The tag is ``{"type": "structural_tag", "format": FORMAT}``; each format's FORMAT is built by
:mod:`.structural_formats` (keyed by vLLM's ``structural_tag_model`` names; a tool parser names
its model in :attr:`ToolParser.structural_tag_model
<tito.core.parsers.tools._base.ToolParser.structural_tag_model>`, harmony is ``"harmony"``).

Rules (vLLM's ``DelegatingParser._apply_structural_tag``)::

    level:     the server's ``--tool-strict-level`` (tito: the model's ``tool_strict_level``),
               unset: the format's default (``auto``; GLM's ``function``); ``auto`` < ``function``
               (the call envelope for every request with tools) < ``parameter`` (also every
               tool's arguments pinned, as if each were ``strict: true``)
    no tag:    tool_choice "none"; no function tools; the format has no model;
               auto when the level is ``auto``, no tool is strict and parallel_tool_calls is
               not false (parallel_tool_calls false with auto *and* a constraint does not
               count); auto without a constraint for the :data:`NO_AUTO_TAG` models (hy_v4)
    mode:      auto -> "auto"; "required" -> "required"; named -> "forced" (only that tool;
               several function tools of that name are a 400, as xgrammar's
               ``normalize_tool_choice`` refuses them)
    or-format: auto with response_format / structured_outputs and a tag ->
               or(FORMAT built as "required", the constraint as an xgrammar format)
    ARGS:      a tool's parameters when it is strict: true or the level is ``parameter``,
               else true (any JSON)
    single:    parallel_tool_calls false -> every list of calls stops after its first
    replaces:  the tag replaces response_format / structured_outputs (for required / named vLLM
               ignores them with a warning)

A constraint that fails xgrammar's validation alone (``xgrammar_supports``: a bad regex, an
empty choice, a schema too deep or with features xgrammar lacks, a grammar that does not parse)
gives no or-format: the request's own constraint applies alone, as in vLLM. An EBNF
``grammar`` is the format ``grammar`` as sent; a Lark one is converted to the EBNF xgrammar
prints for it (:mod:`tito.core.lark_convert`; one it refuses is vLLM's 400 "Invalid grammar
specification." where it is converted); a Lark grammar using what tito does not port (``%json``,
``/.../i``, ...: docs/conformance.md) gives no or-format (the documented deviation).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tito.core.lark_convert import LarkError, Unsupported, grammar_is_likely_lark, lark_to_ebnf
from tito.core.parsers.tools.structural_dump import dump_format
from tito.core.parsers.tools.structural_formats import BUILDERS
from tito.core.parsers.tools.structural_nodes import const, json_schema, one_of
from tito.core.structured_check import NESTING_MESSAGE, too_deep, xgrammar_supports
from tito.core.tag_model import legacy_tag_format
from tito.errors import BadRequest

#: ``--tool-strict-level`` values, weakest first (vLLM's ``ToolStrictLevel``)
STRICT_LEVELS = ("auto", "function", "parameter")

#: how the calls are constrained: ``auto`` (calls optional), ``required`` (one or more calls),
#: ``forced`` (exactly the named tool, once)
CallMode = Literal["auto", "required", "forced"]


@dataclass(frozen=True)
class ToolSpec:
    """One function tool as a structural tag sees it: its name, its ``parameters`` as sent
    (None when absent) and whether it is strict (resolved: ``strict: true`` on the tool)."""

    name: str
    parameters: Any
    strict: bool

    @property
    def schema(self) -> Any:
        """The arguments' JSON schema: the parameters of a strict tool, else ``True`` (any)."""
        return self.parameters if self.strict and self.parameters is not None else True


def _function(tool: Any) -> Mapping[str, Any]:
    if isinstance(tool, Mapping):
        return tool.get("function") or {}
    fn = getattr(tool, "function", None)
    return fn.model_dump() if hasattr(fn, "model_dump") else {}


def constraint_format(constraint: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A request's own constraint (tito's ``structured_outputs`` dict) as an xgrammar format
    (vLLM's ``structured_outputs_to_format``), or None when it cannot be one; JSON text that
    nests too deeply or does not parse, and a Lark grammar xgrammar does not convert, are 400s,
    as there."""
    if not constraint:
        return None
    if constraint.get("json_object"):
        return json_schema({"type": "object"})
    if constraint.get("json") is not None:
        schema = constraint["json"]
        if isinstance(schema, str):  # vLLM's structured_outputs_to_format: checked, parsed
            if too_deep(schema):
                raise BadRequest(NESTING_MESSAGE, param=None)
            try:
                schema = json.loads(schema)
            except ValueError as exc:
                raise BadRequest(str(exc), param=None) from None
        return json_schema(schema)
    if constraint.get("regex") is not None:
        return {"type": "regex", "pattern": constraint["regex"]}
    if constraint.get("choice") is not None:
        return one_of([const(str(c)) for c in constraint["choice"]])
    if constraint.get("grammar") is not None:  # EBNF as it is, Lark converted
        grammar = constraint["grammar"]
        if grammar_is_likely_lark(grammar):
            try:
                grammar = lark_to_ebnf(grammar)
            except LarkError:
                raise BadRequest("Invalid grammar specification.", param=None) from None
            except Unsupported:  # not ported: see the module header
                return None
        return {"type": "grammar", "grammar": grammar}
    if constraint.get("structural_tag") is not None:
        raw = constraint["structural_tag"]
        if isinstance(raw, str) and too_deep(raw, structural_tag=True):
            raise BadRequest(NESTING_MESSAGE, param=None)
        # (a chat body's tag was checked with the body; a Responses one on gpt-oss is read here
        # first: JSON text that does not parse is vLLM's 400, a legacy tag without its keys
        # its 500 -- KeyError -- and tito's 400)
        try:
            tag_ = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError as exc:
            raise BadRequest(str(exc), param=None) from None
        if not isinstance(tag_, Mapping):
            return None
        if "structures" in tag_:  # the legacy form, as xgrammar's models dump it (tag_model)
            try:
                return dump_format(legacy_tag_format(tag_))
            except (KeyError, TypeError) as exc:
                raise BadRequest(f"a legacy structural tag needs its key {exc}", param=None) \
                    from None
        fmt = tag_.get("format")
        return dump_format(fmt) if isinstance(fmt, Mapping) else None
    return None


def structural_tag(
    model: str | None,
    tools: Sequence[Any] | None,
    tool_choice: Any,
    *,
    parallel_tool_calls: bool | None,
    constraint: Mapping[str, Any] | None = None,
    strict_level: str = "auto",
) -> str | None:
    """The ``structured_outputs.structural_tag`` (JSON text) vLLM 0.33 sends for this request,
    or None (no tag: the format has none, or the rules above give none).

    ``model``: the format's structural-tag model (vLLM's name, a :data:`BUILDERS` key, or None);
    ``constraint``: the request's ``response_format`` / ``structured_outputs`` as tito's
    ``structured_outputs`` dict (None: none); ``strict_level``: one of
    :data:`STRICT_LEVELS` (the server's, else the format's ``default_tool_strict_level``).
    """
    builder = BUILDERS.get(model) if model else None
    if builder is None or not tools or tool_choice == "none":
        return None
    functions = [f for f in map(_function, tools) if f.get("name")]
    if not functions:
        return None
    auto = tool_choice is None or tool_choice == "auto"
    single = parallel_tool_calls is False
    constrained = constraint is not None and any(
        constraint.get(k) not in (None, False) for k in _CONSTRAINT_KINDS)
    level = STRICT_LEVELS.index(strict_level)
    envelope = level >= 1 or (single and not (auto and constrained))
    if auto and not envelope and not any(f.get("strict") is True for f in functions):
        return None
    output = None
    if auto and constrained:
        output = constraint_format(constraint) if xgrammar_supports(constraint) else None
        if output is None:
            return None
    mode: CallMode = "auto" if auto and output is None else "required"
    if not auto and tool_choice != "required":
        wanted = _function(tool_choice).get("name") or (
            tool_choice.get("name") if isinstance(tool_choice, Mapping) else None)
        functions = [f for f in functions if f.get("name") == wanted]
        if not functions:
            return None
        if len(functions) > 1:  # xgrammar's normalize_tool_choice, for every format
            raise BadRequest("Forced tool choice must resolve to exactly one tool.")
        mode = "forced"
    if mode == "auto" and model in NO_AUTO_TAG:
        return None
    specs = [ToolSpec(str(f["name"]), f.get("parameters"), level == 2 or f.get("strict") is True)
             for f in functions]
    fmt = builder(specs, mode)
    if single:
        fmt = _single_call(fmt)
    if output is not None:
        fmt = one_of([fmt, output])
    return json.dumps({"type": "structural_tag", "format": fmt})


#: models whose vLLM parser builds no tag for plain ``auto`` whatever the tools' strictness or the
#: level (vLLM 0.33's HYV4ToolParser.get_structural_tag: only required / named, and auto with
#: the request's own constraint, which asks for the tag as required)
NO_AUTO_TAG = frozenset({"hy_v4"})
_CONSTRAINT_KINDS = ("json", "regex", "choice", "grammar", "json_object", "structural_tag")
_CALL_LISTS = frozenset({"triggered_tags", "token_triggered_tags", "tags_with_separator"})


def _single_call(node: Any) -> Any:
    """``parallel_tool_calls: false``: every list of calls stops after its first call (vLLM's
    ``limit_to_single_tool_call``; in every format such lists repeat calls, never arguments).
    Only format nodes are visited: a ``json_schema`` is the request's data, never a format."""
    if isinstance(node, list):
        return [_single_call(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: v if k == "json_schema" else _single_call(v) for k, v in node.items()}
    if isinstance(out.get("type"), str) and out["type"] in _CALL_LISTS:
        out["stop_after_first"] = True
    return out


__all__ = ["STRICT_LEVELS", "CallMode", "ToolSpec", "constraint_format", "structural_tag"]
