"""xgrammar 0.2.8's pydantic models of a structural tag (``StructuralTag.model_validate``): why
one refuses a request's tag, or None.

Why: on gpt-oss vLLM 0.33 reads a request's own structural tag into xgrammar's models
(``structured_outputs_to_format``, from its harmony parser's ``adjust_request``) before it
wraps the tag's ``format`` into the final channel; a tag the models refuse is its 400
(``BadRequestError``, no param). Its chat body checks the tag with xgrammar's compiler first
(:mod:`tito.core.tag_check`), its Responses body does not, so there the models are the only
check (a tag whose format is ``5`` or of an unknown type: tito rendered it, or crashed on a
format without a ``type``). This is a check of the models' fields only, not a compile: a
regex that does not parse or an empty sequence passes it, as it passes them.

Rules (pydantic's lax mode, as ``model_validate`` runs): the wrapper's ``type`` (default
``structural_tag``) and a ``format``; a format is an object whose ``type`` names one of the
models (the discriminator: a format without one is refused), each model's required fields
present and every declared field of its type (strings strictly; integers from whole numbers,
booleans and integer strings; booleans as pydantic reads them; ``max_tokens`` / ``max_chars``
within 0..2**31-1), nested formats the same; unknown keys are ignored.

Bounds: one walk over the tag (its nesting is checked before, by the caller).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lax_bool", "lax_int", "legacy_tag_format", "structural_tag_model_error"]

_Check = Callable[[Any], bool]
#: pydantic's integer text: ASCII digits, single underscores between them, a fraction of zeros
#: only (``"1.0"`` is 1, ``"1."`` and ``"1e3"`` are refused), around it whitespace as Rust's
#: ``trim`` reads it (Unicode White_Space: not Python's ``\s``, which adds ``\x1c``-``\x1f``)
_WS = "[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*"
_INT_TEXT = re.compile(_WS + r"([+-]?[0-9](?:_?[0-9])*)(?:\.0+)?" + _WS)
_BOOL_TEXT = {**dict.fromkeys(("1", "t", "true", "y", "yes", "on"), True),
              **dict.fromkeys(("0", "f", "false", "n", "no", "off"), False)}
_BUDGET_MAX = 2_147_483_647
_I64 = 2**63
#: the most digits pydantic (and Python's ``int``) read from a string
_INT_DIGITS = 4300


def _str(v: Any) -> bool:
    return isinstance(v, str)


def lax_int(v: Any) -> int | None:
    """``v`` as pydantic's lax int reads it (``true`` 1, ``2.0`` 2, ``" 4 "`` 4, ``"1_0.0"`` 10),
    or None: the value xgrammar's models keep, and vLLM re-sends
    (:mod:`tito.core.parsers.tools.structural_dump`); also what a Responses input's annotation
    index must be (:mod:`tito.protocol.responses_input`)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer() and -_I64 < v < _I64:  # (-2**63 refused too)
        return int(v)
    if isinstance(v, str) and (m := _INT_TEXT.fullmatch(v)):
        digits = m.group(1).lstrip("+-").replace("_", "")
        # (pydantic's int_parsing_size past 4,300 digits, Python's own int() limit: no 500)
        return int(m.group(1)) if len(digits) <= _INT_DIGITS else None
    return None


def lax_bool(v: Any) -> bool | None:
    """``v`` as pydantic's lax bool reads it (``1``, ``1.0``, ``"on"``, ``"Yes"``), or None."""
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and v in (0, 1):
        return bool(v)
    return _BOOL_TEXT.get(v.lower()) if isinstance(v, str) else None


def _int(v: Any) -> bool:
    return lax_int(v) is not None


def _budget(v: Any) -> bool:  # Optional[int], 0 <= v <= 2**31 - 1
    n = lax_int(v)
    return v is None or n is not None and 0 <= n <= _BUDGET_MAX


def _opt_int(v: Any) -> bool:
    return v is None or _int(v)


def _bool(v: Any) -> bool:
    return lax_bool(v) is not None


def _list(item: _Check) -> _Check:
    return lambda v: isinstance(v, list) and all(item(x) for x in v)


def _any_of(*checks: _Check) -> _Check:
    return lambda v: any(c(v) for c in checks)


def _token_id(v: Any) -> bool:  # Union[int, str]
    return _str(v) or _int(v)


def _schema(v: Any) -> bool:  # Union[bool, Dict[str, Any]]
    return isinstance(v, Mapping) or _bool(v)


_STYLES = ("json", "qwen_xml", "minimax_xml", "minimax_m3_xml", "deepseek_xml", "glm_xml",
           "cohere_xml", "kimi_k3_xml", "deepseek_v4_1_xml")


def _format(v: Any) -> bool:
    """One ``Format`` (the discriminated union on ``type``)."""
    if not isinstance(v, Mapping):
        return False
    fields = _MODELS.get(v.get("type")) if isinstance(v.get("type"), str) else None
    return fields is not None and _model(v, fields)


def _model(v: Any, fields: Mapping[str, tuple[bool, _Check]], kind: str | None = None) -> bool:
    """A model: an object with its required fields, each declared field valid (``kind``: the
    literal ``type`` a model given directly, not through the union, defaults to)."""
    if not isinstance(v, Mapping) or kind is not None and v.get("type", kind) != kind:
        return False
    for name, (required, check) in fields.items():
        if name in v:
            if not check(v[name]):
                return False
        elif required:
            return False
    return True


def _rule(key: _Check) -> _Check:  # Tuple[key, Format]
    return lambda v: isinstance(v, list) and len(v) == 2 and key(v[0]) and _format(v[1])


_R, _O = True, False
_TOKEN = {"token": (_R, _token_id)}
_TAG: dict[str, tuple[bool, _Check]] = {
    "begin": (_R, _any_of(_str, lambda v: _model(v, _TOKEN, "token"))),
    "content": (_R, _format),
    "end": (_R, _any_of(_str, _list(_str), lambda v: _model(v, _TOKEN, "token"))),
}
_TAGS = (_R, _list(lambda v: _model(v, _TAG, "tag")))
_FLAGS = {"at_least_one": (_O, _bool), "stop_after_first": (_O, _bool)}
_EXCLUDES = (_O, _list(_str))
_TOKENS = (_O, _list(_token_id))
#: each model's fields: name -> (required, check) (xgrammar 0.2.8's structural_tag.py)
_MODELS: dict[str, dict[str, tuple[bool, _Check]]] = {
    "const_string": {"value": (_R, _str)},
    "json_schema": {"json_schema": (_R, _schema), "style": (_O, lambda v: v in _STYLES),
                    "any_order": (_O, _bool), "max_whitespace_cnt": (_O, _opt_int),
                    "excludes": _EXCLUDES},
    "any_text": {"excludes": _EXCLUDES, "max_tokens": (_O, _budget),
                 "max_chars": (_O, _budget)},
    "token": _TOKEN,
    "exclude_token": {"exclude_tokens": _TOKENS},
    "any_tokens": {"exclude_tokens": _TOKENS, "max_tokens": (_O, _budget)},
    "grammar": {"grammar": (_R, _str)},
    "regex": {"pattern": (_R, _str)},
    "sequence": {"elements": (_R, _list(_format))},
    "or": {"elements": (_R, _list(_format))},
    "tag": _TAG,
    "triggered_tags": {"triggers": (_R, _list(_str)), "tags": _TAGS, **_FLAGS,
                       "excludes": _EXCLUDES},
    "token_triggered_tags": {"trigger_tokens": (_R, _list(_token_id)), "tags": _TAGS,
                             "exclude_tokens": _TOKENS, **_FLAGS},
    "tags_with_separator": {"tags": _TAGS, "separator": (_R, _str), **_FLAGS},
    "optional": {"content": (_R, _format)},
    "plus": {"content": (_R, _format)},
    "star": {"content": (_R, _format)},
    "repeat": {"min": (_R, _int), "max": (_R, _int), "content": (_R, _format)},
    "dispatch": {"rules": (_R, _list(_rule(_str))), "loop": (_O, _bool), "excludes": _EXCLUDES},
    "token_dispatch": {"rules": (_R, _list(_rule(_token_id))), "loop": (_O, _bool),
                       "exclude_tokens": _TOKENS},
    "qwen_xml_parameter": {"json_schema": (_R, _schema)},
}


def structural_tag_model_error(tag: Any) -> str | None:
    """Why xgrammar's ``StructuralTag`` model refuses the parsed tag ``tag``, or None."""
    if not isinstance(tag, Mapping):
        return "a structural tag must be an object"
    if tag.get("type", "structural_tag") != "structural_tag":
        return "a structural tag's type must be 'structural_tag'"
    if "format" not in tag:
        return "a structural tag needs its format"
    if not _format(tag["format"]):
        return ("its format is not one of xgrammar's structural tag formats (an object whose "
                "type names a format, with that format's fields)")
    return None


def legacy_tag_format(tag: Mapping[str, Any]) -> dict[str, Any]:
    """The ``triggered_tags`` format vLLM 0.33 builds from a legacy tag (``{"structures": [...],
    "triggers": [...]}``, ``structured_outputs_to_format``: ``TriggeredTagsFormat`` of a
    ``TagFormat`` with a ``JSONSchemaFormat`` per structure), as the raw format its models then
    read: check it with :func:`structural_tag_model_error` (``{"format": ...}``) and write it
    with ``structural_dump.dump_format``, so a value they coerce (a ``schema`` of ``"yes"`` or
    ``1`` is ``true``, a token ``begin`` gets its ``type``) is re-sent as they dump it.

    Raises ``KeyError`` for a missing key (vLLM's 500: ``triggers``, a structure's ``begin``,
    ``schema``, ``end``) and ``TypeError`` where its Python indexing fails (vLLM's 400: the
    structures not a list, a structure not an object); an empty string or object as the
    structures is no structure, as Python iterates it."""
    triggers = tag["triggers"]
    structures = tag["structures"]
    if isinstance(structures, (str, Mapping)) and not structures:
        structures = []
    if not isinstance(structures, list):
        raise TypeError("a legacy structural tag's structures must be a list")
    tags = []
    for s in structures:
        if not isinstance(s, Mapping):
            raise TypeError("a legacy structure must be an object")
        begin, schema, end = s["begin"], s["schema"], s["end"]
        tags.append({"type": "tag", "begin": begin,
                     "content": {"type": "json_schema", "json_schema": schema}, "end": end})
    return {"type": "triggered_tags", "triggers": triggers, "tags": tags}
