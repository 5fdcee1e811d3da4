"""Structured outputs on gpt-oss: the constraint applies to the ``final`` channel only.

Why: a JSON schema, regex or choice constraining the whole output would forbid harmony's own
structure (``<|channel|>analysis<|message|>...``). vLLM 0.33 (``vllm/parser/harmony.py``,
``_adjust_output_format``) turns the request's constraint into an xgrammar structural tag::

    sequence(
      optional(sequence(tag("<|channel|>analysis<|message|>", any_text, "<|end|>"),
                        const_string("<|start|>assistant"))),
      tag("<|channel|>final<|message|>", CONSTRAINT, ["<|end|>", ""]))

where a JSON constraint (``json``, ``json_object``) accepts both ``<|channel|>final json`` and
``<|channel|>final <|constrain|>json`` headers. This module writes that tag as the same JSON text
vLLM sends to the engine. ``grammar`` and a request's own ``structural_tag`` are passed through
unchanged (vLLM converts them with xgrammar, which tito does not ship).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["harmony_structured_outputs"]

_END = ["<|end|>", ""]
_ANALYSIS = {"type": "optional", "content": {"type": "sequence", "elements": [
    {"type": "tag", "begin": "<|channel|>analysis<|message|>",
     "content": {"type": "any_text", "excludes": [], "max_tokens": None, "max_chars": None},
     "end": "<|end|>"},
    {"type": "const_string", "value": "<|start|>assistant"},
]}}


def _json_schema(schema: Any) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": schema, "style": "json", "any_order": False,
            "max_whitespace_cnt": None, "excludes": []}


def _tag(constrain: str, content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tag", "begin": f"<|channel|>final{constrain}<|message|>", "content": content,
            "end": _END}


def harmony_structured_outputs(structured: dict[str, Any] | None) -> dict[str, Any] | None:
    """The engine's ``structured_outputs`` for a harmony model (see the module header)."""
    if not structured:
        return structured
    out = dict(structured)
    if out.get("json_object"):
        out.pop("json_object")
        schema: Any = {"type": "object"}
    elif out.get("json") is not None:
        raw = out.pop("json")
        schema = json.loads(raw) if isinstance(raw, str) else raw
    else:
        schema = None
    if schema is not None:
        final = {"type": "or", "elements": [_tag(c, _json_schema(schema))
                                            for c in (" json", " <|constrain|>json")]}
    elif out.get("regex") is not None:
        final = _tag("", {"type": "regex", "pattern": out.pop("regex")})
    elif out.get("choice") is not None:
        final = _tag("", {"type": "or", "elements": [
            {"type": "const_string", "value": c} for c in out.pop("choice")]})
    else:
        return structured
    tag = {"type": "structural_tag", "format": {"type": "sequence", "elements": [_ANALYSIS, final]}}
    out["structural_tag"] = json.dumps(tag)
    return out
