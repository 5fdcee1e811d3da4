"""A request's structural-tag ``format`` as vLLM 0.33 re-sends it: xgrammar 0.2.8's pydantic
models' ``model_dump()`` (``StructuralTag.model_validate(tag).format``, vLLM's
``structured_outputs_to_format``), where it becomes part of another tag (the or-format's
second branch, gpt-oss's final channel).

Why: the engine gets that dump, not the request's JSON: every field a model has is written
(defaults filled: ``style``, ``any_order``, ``excludes``, ...), the fields it does not have
are dropped, and each value is the one pydantic's lax mode read (``"max_tokens": true`` is 1,
``"loop": "on"`` true, a token ``2.0`` 2: tito re-sent them as sent).

Rules: a format with a known ``type`` keeps its model's fields in the model's order, the
request's value where it gave one (coerced to the field's type: :func:`_coerce`), else the
default; nested formats (``content``, ``elements``, ``tags``, dispatch ``rules``, token
``begin`` / ``end``, a tag given without its ``type``) the same, recursively. A format without
a known ``type`` is left as sent (pydantic would pick a model for it; tito checks it as
xgrammar's compiler does, :mod:`tito.core.tag_check`), and so is a value its field's type does
not read (the check refuses the tag first). Checked against 1,372 dumps of xgrammar 0.2.8
(``tests/test_tag_model.py``).

Bounds: one walk over the format (its nesting is bounded by the nesting check before).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tito.core.tag_model import lax_bool, lax_int

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


def dump_format(fmt: Any, kind: str | None = None) -> Any:
    """``fmt`` as xgrammar's model of its type dumps it (see the module header); ``kind``: the
    model a field declares directly (a tag of ``tags``, a token ``begin``), whose ``type`` the
    request may leave out."""
    if not isinstance(fmt, Mapping):
        return fmt
    kind = fmt.get("type", kind)
    if kind not in FIELDS:
        return fmt
    out: dict[str, Any] = {"type": kind}
    for name, default in FIELDS[kind]:
        if name in fmt:
            out[name] = _nested(kind, name, fmt[name])
        elif default is not _REQUIRED:
            out[name] = list(default) if isinstance(default, list) else default
    return out


def _keep(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``read``'s value, or the value as sent when it does not read as that type."""
    def coerce(value: Any) -> Any:
        got = read(value)
        return value if got is None else got
    return coerce


def _token_id(value: Any) -> Any:  # Union[int, str]: a string stays a string
    return value if isinstance(value, str) else _keep(lax_int)(value)


def _schema(value: Any) -> Any:  # Union[bool, Dict[str, Any]]
    return value if isinstance(value, Mapping) else _keep(lax_bool)(value)


def _tokens(value: Any) -> Any:
    return [_token_id(v) for v in value] if isinstance(value, list) else value


#: the typed scalar fields of the models and how pydantic's lax mode reads them
_COERCE: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(("max_tokens", "max_chars", "max_whitespace_cnt", "min", "max"),
                    _keep(lax_int)),
    **dict.fromkeys(("any_order", "at_least_one", "stop_after_first", "loop"), _keep(lax_bool)),
    "json_schema": _schema, "token": _token_id,
    "exclude_tokens": _tokens, "trigger_tokens": _tokens,
}


def _nested(kind: str, name: str, value: Any) -> Any:
    if name == "content":
        return dump_format(value)
    if name == "elements" and isinstance(value, list):
        return [dump_format(v) for v in value]
    if name == "tags" and isinstance(value, list):
        return [dump_format(v, "tag") for v in value]
    if name == "rules" and isinstance(value, list):
        key = _token_id if kind == "token_dispatch" else (lambda k: k)
        return [[key(r[0]), dump_format(r[1])] if isinstance(r, (list, tuple)) and len(r) == 2
                else r for r in value]
    if name in ("begin", "end") and isinstance(value, Mapping):
        return dump_format(value, "token")
    coerce = _COERCE.get(name)
    return value if coerce is None else coerce(value)


__all__ = ["FIELDS", "dump_format"]
