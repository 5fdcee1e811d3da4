"""vLLM 0.33's checks of structured-output constraints at render, and xgrammar's acceptance.

Why: vLLM 0.33's render server (no engine) checks only a few constraints itself, and tito
must answer the same 4xx for them, never a 500 or a hang; everything else reaches the engine
as sent. What it refuses (``BadRequestError``, 400):

    nesting:    a structural tag (``response_format`` of type ``structural_tag``, or
                ``structured_outputs.structural_tag``) whose JSON nests objects and arrays
                deeper than 64 + 16 levels (``check_json_nesting``; param null)
    tag:        a structural tag xgrammar cannot compile: "Invalid <param> structural_tag
                specification." (param ``response_format`` / ``structured_outputs``); the
                rules are xgrammar 0.2.8's (``structural_tag.cc``): the ``structural_tag``
                wrapper with a ``format``; each format node's type and fields; ``tag`` begin /
                content / end; ``triggered_tags`` with non-empty triggers and tags, each tag's
                begin starting with a trigger; token formats by id only (the render server has
                no tokenizer info for token strings); the legacy ``structures`` + ``triggers``
                form as a ``triggered_tags``; and the regex, EBNF and JSON-schema contents
                (:mod:`tito.core.tag_check`, :mod:`tito.core.grammar_check`)

and what decides the or-format (``_xgrammar_supports``): ``auto`` with a strict tool and the
request's own constraint gets ``or(calls, constraint)`` only when the constraint alone passes
xgrammar's validation (:func:`xgrammar_supports`: a regex without NUL that converts, a non-empty
choice, a JSON schema that parses, nests at most 64 levels, uses no feature xgrammar lacks
(``has_xgrammar_unsupported_json_features``, ported exactly) and converts, an EBNF grammar
that parses or a Lark one that converts, :mod:`tito.core.lark_convert`, a valid structural
tag); otherwise the request's constraint is sent alone.

Bounds: one walk over the constraint, nesting checked before any recursion; regex and grammar
checks are linear (:mod:`tito.core.grammar_check`); nothing is compiled or matched.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tito.core.grammar_check import ebnf_error, regex_error, schema_error
from tito.core.lark_convert import grammar_is_likely_lark, lark_error
from tito.core.tag_check import string_list, structural_tag_error
from tito.errors import BadRequest

MAX_JSON_NESTING = 64  #: vLLM's ``MAX_STRUCTURED_OUTPUT_JSON_NESTING``
TAG_WRAPPER_NESTING = 16  #: vLLM's ``STRUCTURAL_TAG_WRAPPER_NESTING``
NESTING_MESSAGE = ("The JSON schema is nested too deeply: objects and arrays may nest at most "
                   f"{MAX_JSON_NESTING} levels")


def exceeds_nesting(spec: Any, limit: int) -> bool:
    """Whether ``spec`` (JSON text or a parsed value) nests objects and arrays deeper than
    ``limit`` levels (vLLM's ``_exceeds_json_nesting``: breadth first, never recursive)."""
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except RecursionError:
            return True
        except ValueError:
            return False  # malformed JSON is reported by the backend's validation
    level: list[Any] = [spec]
    for _ in range(limit):
        level = [child for node in level if isinstance(node, (dict, list))
                 for child in (node.values() if isinstance(node, dict) else node)
                 if isinstance(child, (dict, list))]
        if not level:
            return False
    return True


def too_deep(spec: Any, *, structural_tag: bool = False) -> bool:
    """vLLM's ``check_json_nesting`` as a predicate (an empty spec is never too deep)."""
    limit = MAX_JSON_NESTING + (TAG_WRAPPER_NESTING if structural_tag else 0)
    return bool(spec) and exceeds_nesting(spec, limit)


# -- the request check -------------------------------------------------------------------------


def check_request(response_format: Any, structured_outputs: Mapping[str, Any] | None) -> None:
    """vLLM 0.33's render-time checks of a request's structural tags (BadRequest, see the
    module header); ``response_format`` / ``structured_outputs`` as the request sent them."""
    rf = response_format.model_dump(by_alias=True, exclude_none=True) \
        if hasattr(response_format, "model_dump") else response_format
    if isinstance(rf, Mapping) and rf.get("type") == "structural_tag":
        _check_tag(_response_format_payload(rf), "response_format")
    tag = (structured_outputs or {}).get("structural_tag")
    if tag is not None:  # JSON text (vLLM's field is a str: an object is refused)
        _check_tag(tag if isinstance(tag, str) else None, "structured_outputs")


def _response_format_payload(rf: Mapping[str, Any]) -> Any:
    """The tag vLLM's ``AnyStructuralTagResponseFormat`` dumps (None when neither form fits)."""
    structures, triggers = rf.get("structures"), rf.get("triggers")
    if isinstance(structures, list) and string_list(triggers) and all(
            isinstance(s, Mapping) and isinstance(s.get("begin"), str)
            and isinstance(s.get("end"), str) for s in structures):
        return {"type": "structural_tag", "triggers": triggers, "structures": [
            {"begin": s["begin"], "schema": s.get("schema"), "end": s["end"]}
            for s in structures]}
    return {"type": "structural_tag", "format": rf["format"]} if "format" in rf else None


def _check_tag(tag: Any, param: str) -> None:
    invalid = BadRequest(f"Invalid {param} structural_tag specification.", param=param)
    if tag is None or tag == "" or not isinstance(tag, (str, Mapping)):
        raise invalid
    if too_deep(tag, structural_tag=True):
        raise BadRequest(NESTING_MESSAGE, param=None)
    if structural_tag_error(tag) is not None:
        raise invalid


# -- the or-format's test ----------------------------------------------------------------------


def xgrammar_supports(constraint: Mapping[str, Any]) -> bool:
    """Whether the request's own constraint (tito's ``structured_outputs`` dict) passes
    xgrammar's validation alone (vLLM's ``_xgrammar_supports``): the or-format needs it."""
    regex = constraint.get("regex")
    if regex is not None:
        return "\x00" not in regex and regex_error(regex) is None
    if constraint.get("choice"):
        return True
    schema = constraint.get("json")
    if schema is not None:
        if too_deep(schema):
            return False
        if isinstance(schema, str):
            try:
                schema = json.loads(schema)
            except (ValueError, RecursionError):
                return False
        return not has_unsupported_json_features(schema) and schema_error(schema) is None
    if constraint.get("json_object"):
        return True
    grammar = constraint.get("grammar")
    if grammar:
        return (lark_error(grammar) if grammar_is_likely_lark(grammar)
                else ebnf_error(grammar)) is None
    tag = constraint.get("structural_tag")
    if tag:
        return not too_deep(tag, structural_tag=True) and structural_tag_error(tag) is None
    return False


_STRING_FORMATS = frozenset({"email", "date", "time", "date-time", "duration", "ipv4", "ipv6",
                             "hostname", "uuid", "uri", "uri-reference", "uri-template",
                             "json-pointer", "relative-json-pointer"})


def has_unsupported_json_features(schema: Any) -> bool:
    """vLLM 0.33's ``has_xgrammar_unsupported_json_features`` (the same rules, the same walk
    over every nested object and list)."""
    stack = [schema]
    while stack:
        obj = stack.pop()
        if not isinstance(obj, dict):
            continue
        t = obj.get("type")
        types = {t} if isinstance(t, str) else {x for x in t if isinstance(x, str)} \
            if isinstance(t, list) else set()
        bounded = ("pattern" in obj or "format" in obj) and (
            "minLength" in obj or "maxLength" in obj)
        names = obj.get("propertyNames")
        if ((types & {"integer", "number"} and "multipleOf" in obj)
                or ("array" in types and any(k in obj for k in (
                    "uniqueItems", "contains", "minContains", "maxContains")))
                or ("string" in types and "format" in obj
                    and obj["format"] not in _STRING_FORMATS)
                or ("string" in types and bounded)
                or ("object" in types and "propertyNames" in obj and (
                    (isinstance(names, dict) and ("pattern" in names or "format" in names)
                     and ("minLength" in names or "maxLength" in names))
                    or "patternProperties" in obj or "properties" in obj
                    or obj.get("unevaluatedProperties", True) is not True))
                or ("object" in types and isinstance(obj.get("patternProperties"), dict)
                    and ("properties" in obj or len(obj["patternProperties"]) > 1))
                or (isinstance(obj.get("allOf"), list) and len(obj["allOf"]) >= 2)):
            return True
        for value in obj.values():
            if isinstance(value, dict):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, dict))
    return False


__all__ = ["NESTING_MESSAGE", "check_request", "exceeds_nesting", "has_unsupported_json_features",
           "structural_tag_error", "too_deep", "xgrammar_supports"]
