"""A request's structural-tag ``format`` as vLLM 0.33 re-sends it: xgrammar 0.2.8's pydantic
models' ``model_dump()`` (``StructuralTag.model_validate(tag).format``, vLLM's
``structured_outputs_to_format``), where it becomes part of another tag (the or-format's
second branch, gpt-oss's final channel).

Why: the engine gets that dump, not the request's JSON: every field a model has is written
(defaults filled: ``style``, ``any_order``, ``excludes``, ...) and the fields it does not have
are dropped.

Rules: a format with a known ``type`` keeps its model's fields in the model's order, the
request's value where it gave one, else the default; nested formats (``content``,
``elements``, ``tags``, dispatch ``rules``, token ``begin`` / ``end``) the same, recursively.
A format without a known ``type`` is left as sent (pydantic would pick a model for it; tito
checks it as xgrammar's compiler does, :mod:`tito.core.tag_check`).

Bounds: one walk over the format (its nesting is bounded by the nesting check before).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_REQUIRED = object()
_EXCLUDES: tuple[str, Any] = ("excludes", [])
_TOKENS: tuple[str, Any] = ("exclude_tokens", [])
_FLAGS = (("at_least_one", False), ("stop_after_first", False))

#: each model's fields in order, with their defaults (xgrammar 0.2.8's structural_tag.py)
FIELDS: dict[str, tuple[tuple[str, Any], ...]] = {
    "const_string": (("value", _REQUIRED),),
    "json_schema": (("json_schema", _REQUIRED), ("style", "json"), ("any_order", False),
                    ("max_whitespace_cnt", None), _EXCLUDES),
    "any_text": (_EXCLUDES, ("max_tokens", None), ("max_chars", None)),
    "token": (("token", _REQUIRED),),
    "exclude_token": (_TOKENS,),
    "any_tokens": (_TOKENS, ("max_tokens", None)),
    "grammar": (("grammar", _REQUIRED),),
    "regex": (("pattern", _REQUIRED),),
    "sequence": (("elements", _REQUIRED),),
    "or": (("elements", _REQUIRED),),
    "tag": (("begin", _REQUIRED), ("content", _REQUIRED), ("end", _REQUIRED)),
    "triggered_tags": (("triggers", _REQUIRED), ("tags", _REQUIRED), *_FLAGS, _EXCLUDES),
    "token_triggered_tags": (("trigger_tokens", _REQUIRED), ("tags", _REQUIRED), _TOKENS,
                             *_FLAGS),
    "tags_with_separator": (("tags", _REQUIRED), ("separator", _REQUIRED), *_FLAGS),
    "optional": (("content", _REQUIRED),),
    "plus": (("content", _REQUIRED),),
    "star": (("content", _REQUIRED),),
    "repeat": (("min", _REQUIRED), ("max", _REQUIRED), ("content", _REQUIRED)),
    "dispatch": (("rules", _REQUIRED), ("loop", True), _EXCLUDES),
    "token_dispatch": (("rules", _REQUIRED), ("loop", True), _TOKENS),
    "qwen_xml_parameter": (("json_schema", _REQUIRED),),
}


def dump_format(fmt: Any) -> Any:
    """``fmt`` as xgrammar's model of its type dumps it (see the module header)."""
    if not isinstance(fmt, Mapping) or fmt.get("type") not in FIELDS:
        return fmt
    kind = fmt["type"]
    out: dict[str, Any] = {"type": kind}
    for name, default in FIELDS[kind]:
        if name in fmt:
            out[name] = _nested(name, fmt[name])
        elif default is not _REQUIRED:
            out[name] = list(default) if isinstance(default, list) else default
    return out


def _nested(name: str, value: Any) -> Any:
    if name == "content":
        return dump_format(value)
    if name in ("elements", "tags") and isinstance(value, list):
        return [dump_format(v) for v in value]
    if name == "rules" and isinstance(value, list):
        return [[r[0], dump_format(r[1])] if isinstance(r, (list, tuple)) and len(r) == 2 else r
                for r in value]
    if name in ("begin", "end") and isinstance(value, Mapping):
        return dump_format(value)
    return value


__all__ = ["FIELDS", "dump_format"]
