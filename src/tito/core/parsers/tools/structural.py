"""Structural tags: the engine constraint that makes a model write tool calls in its own format.

Why: vLLM 0.33 constrains ``tool_choice`` ``"required"`` and named (and ``"auto"`` when a tool is
``strict`` or ``parallel_tool_calls`` is false) with ``structured_outputs.structural_tag`` (an
xgrammar structural tag, JSON text) in the tool parser's own format, instead of the older JSON
schema of a list of ``{name, parameters}``. The model then writes ``<tool_call>`` blocks that the
same format parser reads back, so derender parses required and named output like ``auto``.

Grammar of the tag (xgrammar's structural-tag JSON, fields in vLLM's order)::

    {"type": "structural_tag", "format": FORMAT}
    FORMAT  = {"type": "tags_with_separator", "tags": [TAG...], "separator": "",
               "at_least_one": true, "stop_after_first": BOOL}           # required / named
            | {"type": "triggered_tags", "triggers": [BEGIN_MARKER], "tags": [TAG...],
               "at_least_one": false, "stop_after_first": BOOL, "excludes": []}  # auto
    TAG     = {"type": "tag", "begin": STR, "content": SCHEMA, "end": STR}
    SCHEMA  = {"type": "json_schema", "json_schema": PARAMETERS | true, "style": "json",
               "any_order": false, "max_whitespace_cnt": null, "excludes": []}

Rules (vLLM's ``DelegatingParser._apply_structural_tag`` with ``--tool-strict-level`` unset):

- no tag for ``tool_choice`` ``"none"``, or when the request has no function tools;
- ``"auto"`` gets a tag only when a tool is ``strict: true`` or ``parallel_tool_calls`` is false
  (and never together with ``response_format``/``structured_outputs``: tito then keeps the
  request's own constraint, see docs/conformance.md);
- a named ``tool_choice`` keeps only that tool and is *forced* (``stop_after_first``);
- ``parallel_tool_calls: false`` sets ``stop_after_first`` on the list of calls;
- a tool's arguments are pinned to its ``parameters`` only when the tool is ``strict: true``
  (``true``, any JSON, otherwise, and when it has no parameters);
- the tag replaces any ``response_format`` / ``structured_outputs`` of a required or named
  request (vLLM ignores them with a warning).

A format opts in by implementing :meth:`ToolParser.structural_format
<tito.core.parsers.tools._base.ToolParser.structural_format>` (one method: tools in, FORMAT out);
:func:`hermes_style` builds the common ``BEGIN{"name": "N", "arguments": ARGS}END`` shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

#: how the calls are constrained: ``auto`` (calls optional), ``required`` (one or more calls),
#: ``forced`` (exactly the named tool, once)
CallMode = Literal["auto", "required", "forced"]


@dataclass(frozen=True)
class ToolSpec:
    """One function tool as a structural tag sees it: its name and its argument schema
    (``True``: any JSON object, for a tool that is not ``strict``)."""

    name: str
    schema: Any


def json_schema(schema: Any) -> dict[str, Any]:
    """xgrammar's JSON-schema content (vLLM's ``JSONSchemaFormat`` defaults)."""
    return {"type": "json_schema", "json_schema": schema, "style": "json", "any_order": False,
            "max_whitespace_cnt": None, "excludes": []}


def tag(begin: str, content: dict[str, Any], end: str) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def calls_format(tags: list[dict[str, Any]], mode: CallMode, trigger: str) -> dict[str, Any]:
    """The list of calls: triggered by ``trigger`` for ``auto``, one or more otherwise."""
    if mode == "auto":
        return {"type": "triggered_tags", "triggers": [trigger], "tags": tags,
                "at_least_one": False, "stop_after_first": False, "excludes": []}
    return {"type": "tags_with_separator", "tags": tags, "separator": "", "at_least_one": True,
            "stop_after_first": mode == "forced"}


def hermes_style(tools: Sequence[ToolSpec], mode: CallMode, start: str, end: str) -> dict[str, Any]:
    """``START{"name": "N", "arguments": ARGS}END``, with and without newlines inside the
    markers (Hermes / Qwen's ``<tool_call>`` blocks; vLLM's ``_hermes_style_structural_tag``)."""
    shapes = ((start + '\n{"name": "', "}\n" + end), (start + '{"name": "', "}" + end))
    tags = [tag(begin + t.name + '", "arguments": ', json_schema(t.schema), close)
            for t in tools for begin, close in shapes]
    return calls_format(tags, mode, start)


def _function(tool: Any) -> Mapping[str, Any]:
    if isinstance(tool, Mapping):
        return tool.get("function") or {}
    fn = getattr(tool, "function", None)
    return fn.model_dump() if hasattr(fn, "model_dump") else {}


def structural_tag(
    parser: Any,
    tools: Sequence[Any] | None,
    tool_choice: Any,
    *,
    parallel_tool_calls: bool | None,
    has_constraint: bool,
) -> str | None:
    """The ``structured_outputs.structural_tag`` (JSON text) vLLM 0.33 sends for this request,
    or None (no tag: the format has none, or the rules above give none).

    ``parser``: the model's tool-format parser (a :class:`ToolParser` or None);
    ``has_constraint``: the request carries ``response_format`` / ``structured_outputs``.
    """
    if parser is None or not tools or tool_choice == "none":
        return None
    functions = [_function(t) for t in tools]
    functions = [f for f in functions if f.get("name")]
    if not functions:
        return None
    auto = tool_choice is None or tool_choice == "auto"
    single = parallel_tool_calls is False
    if auto:
        if has_constraint or not (single or any(f.get("strict") is True for f in functions)):
            return None
        mode: CallMode = "auto"
    elif tool_choice == "required":
        mode = "required"
    else:
        wanted = _function(tool_choice).get("name")
        functions = [f for f in functions if f.get("name") == wanted]
        if not functions:
            return None
        mode = "forced"
    specs = [ToolSpec(str(f["name"]),
                      (f.get("parameters") if f.get("parameters") is not None else True)
                      if f.get("strict") is True else True)
             for f in functions]
    fmt = parser.structural_format(specs, mode)
    if fmt is None:
        return None
    if single:
        fmt = _single_call(fmt)
    return json.dumps({"type": "structural_tag", "format": fmt})


_CALL_LISTS = frozenset({"triggered_tags", "token_triggered_tags", "tags_with_separator"})


def _single_call(node: Any) -> Any:
    """``parallel_tool_calls: false``: every list of calls stops after its first call (vLLM's
    ``limit_to_single_tool_call``; in every format such lists repeat calls, never arguments)."""
    if isinstance(node, list):
        return [_single_call(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _single_call(v) for k, v in node.items()}
    if out.get("type") in _CALL_LISTS:
        out["stop_after_first"] = True
    return out
