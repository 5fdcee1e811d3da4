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
                (:mod:`tito.core.grammar_check`)

and what decides the or-format (``_xgrammar_supports``): ``auto`` with a strict tool and the
request's own constraint gets ``or(calls, constraint)`` only when the constraint alone passes
xgrammar's validation (:func:`xgrammar_supports`: a regex without NUL that converts, a non-empty
choice, a JSON schema that parses, nests at most 64 levels, uses no feature xgrammar lacks
(``has_xgrammar_unsupported_json_features``, ported exactly) and converts, an EBNF grammar
that parses, a valid structural tag); otherwise the request's constraint is sent alone.

Bounds: one walk over the constraint, nesting checked before any recursion; regex and grammar
checks are linear (:mod:`tito.core.grammar_check`); nothing is compiled or matched.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tito.core.grammar_check import ebnf_error, regex_error, schema_error
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


# -- structural tags ---------------------------------------------------------------------------


def structural_tag_error(tag: Any) -> str | None:
    """Why xgrammar refuses the structural tag ``tag`` (JSON text or parsed), or None."""
    if isinstance(tag, str):
        try:
            tag = json.loads(tag)
        except (ValueError, RecursionError):
            return "not JSON"
    if not isinstance(tag, Mapping):
        return "a structural tag must be an object"
    if "structures" in tag:
        return _legacy_error(tag)
    if tag.get("type") != "structural_tag":
        return 'the type must be "structural_tag"'
    if "format" not in tag:
        return "a structural tag must have a format"
    return _format_error(tag["format"])


def _legacy_error(tag: Mapping[str, Any]) -> str | None:
    structures, triggers = tag.get("structures"), tag.get("triggers")
    if tag.get("type") != "structural_tag" or not isinstance(structures, list) \
            or not isinstance(triggers, list):
        return "legacy structural tag: type, structures and triggers"
    tags = []
    for s in structures:
        if not isinstance(s, Mapping) or not isinstance(s.get("begin"), str) \
                or not isinstance(s.get("end"), str) or not isinstance(s.get("schema"), Mapping):
            return "legacy structure: begin, schema and end"
        tags.append({"type": "tag", "begin": s["begin"], "end": s["end"],
                     "content": {"type": "json_schema", "json_schema": s["schema"]}})
    return _format_error({"type": "triggered_tags", "triggers": triggers, "tags": tags})


_STYLES = frozenset({"json", "qwen_xml", "minimax_xml", "minimax_m3_xml", "deepseek_xml",
                     "glm_xml", "cohere_xml", "kimi_k3_xml", "deepseek_v4_1_xml"})


def _format_error(fmt: Any) -> str | None:
    if not isinstance(fmt, Mapping):
        return "a format must be an object"
    kind = fmt.get("type")
    if kind is None:  # xgrammar tries every format; tag first
        return None if any(_format_error({**fmt, "type": t}) is None for t in _UNTYPED) \
            else "no format matches"
    if not isinstance(kind, str):
        return "a format's type must be a string"
    check = _CHECKS.get(kind)
    return f"format type not recognized: {kind}" if check is None else check(fmt)


def _strings(v: Any, *, non_empty: bool = False) -> bool:
    return isinstance(v, list) and all(isinstance(s, str) and (s or not non_empty) for s in v)


def _const(f: Mapping[str, Any]) -> str | None:
    return None if isinstance(f.get("value"), str) else "const_string needs a string value"


def _json_schema(f: Mapping[str, Any]) -> str | None:
    schema = f.get("json_schema")
    if not isinstance(schema, (Mapping, bool)):
        return "json_schema needs an object or boolean json_schema"
    style = f.get("style", "json")
    if isinstance(style, str) and style not in _STYLES and f.get("type") != "qwen_xml_parameter":
        return f"unknown style {style}"
    if "any_order" in f and not isinstance(f["any_order"], bool):
        return "any_order must be a boolean"
    return schema_error(schema, tag=True)


def _budget(f: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        v = f.get(key)
        if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool)
                                  and 0 <= v <= 2**31 - 1 and v == int(v)):
            return f"{key} must be a non-negative 32-bit integer or null"
    return None


def _any_text(f: Mapping[str, Any]) -> str | None:
    if "excludes" in f and not _strings(f["excludes"]):
        return "any_text excludes must be a list of strings"
    return _budget(f, "max_tokens", "max_chars")


def _grammar(f: Mapping[str, Any]) -> str | None:
    g = f.get("grammar")
    return ebnf_error(g) if isinstance(g, str) and g else "grammar needs a non-empty grammar"


def _regex(f: Mapping[str, Any]) -> str | None:
    p = f.get("pattern")
    return regex_error(p) if isinstance(p, str) and p else "regex needs a non-empty pattern"


def _elements(f: Mapping[str, Any]) -> str | None:
    elements = f.get("elements")
    if not isinstance(elements, list) or not elements:
        return f"{f['type']} needs a non-empty list of elements"
    for e in elements:
        if err := _format_error(e):
            return err
    return None


def _token(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        return "a token must be an integer or a string"
    if isinstance(v, str):  # resolved against the vocabulary: no tokenizer at render
        return "token strings need the tokenizer"
    return None if v >= 0 else "a token id must be non-negative"


def _tokens(v: Any) -> str | None:
    if not isinstance(v, list):
        return "tokens must be a list"
    return next((e for e in map(_token, v) if e), None)


def _tag(f: Mapping[str, Any], *, string_begin: bool = False) -> str | None:
    if not isinstance(f, Mapping):
        return "a tag must be an object"
    if "type" in f and f["type"] != "tag":
        return 'a tag\'s type must be "tag"'
    begin, end = f.get("begin"), f.get("end")
    if not isinstance(begin, str) and (string_begin or not _is_token(begin)):
        return "a tag's begin must be a string"
    if isinstance(begin, Mapping) and (err := _token(begin.get("token"))):
        return err
    if "content" not in f:
        return "a tag needs a content"
    if err := _format_error(f["content"]):
        return err
    if isinstance(end, list):
        if not end or not _strings(end):
            return "a tag's end list must hold strings"
        ends = end
    elif isinstance(end, str):
        ends = [end]
    elif _is_token(end):
        return _token(end.get("token"))
    else:
        return "a tag's end must be a string or a list of strings"
    if not any(ends) and _unlimited(f["content"]) and not _excluded(f["content"]):
        return "an unlimited content needs a non-empty end"
    return None


_ALWAYS_UNLIMITED = frozenset({"any_text", "triggered_tags", "token_triggered_tags", "dispatch",
                               "token_dispatch", "any_tokens", "tags_with_separator", "star",
                               "plus"})
_EXCLUDES = {"any_text": "excludes", "triggered_tags": "excludes", "dispatch": "excludes",
             "token_triggered_tags": "exclude_tokens", "token_dispatch": "exclude_tokens",
             "any_tokens": "exclude_tokens"}


def _unlimited(f: Mapping[str, Any]) -> bool:
    """xgrammar's ``IsUnlimited``: the format can match text of any length (a checked format)."""
    kind = f.get("type", "tag")
    if kind in _ALWAYS_UNLIMITED:
        return True
    if kind in ("sequence", "or"):
        return any(_unlimited(e) and not _excluded(e) for e in f["elements"])
    if kind == "optional":
        return _unlimited(f["content"])
    if kind == "repeat":
        return f["max"] == -1 or (f["max"] != 0 and _unlimited(f["content"]))
    return False


def _excluded(f: Mapping[str, Any]) -> bool:
    key = _EXCLUDES.get(f.get("type", "tag"))
    return bool(key and f.get(key))


def _is_token(v: Any) -> bool:
    return isinstance(v, Mapping) and v.get("type") == "token"


def _tag_list(f: Mapping[str, Any], *, string_begin: bool) -> tuple[str | None, list[Any]]:
    tags = f.get("tags")
    if not isinstance(tags, list) or not tags:
        return f"{f['type']} needs a non-empty list of tags", []
    for t in tags:
        if err := _tag(t, string_begin=string_begin):
            return err, []
    return None, tags


def _triggered(f: Mapping[str, Any]) -> str | None:
    triggers = f.get("triggers")
    if not _strings(triggers, non_empty=True) or not triggers:
        return "triggered_tags needs non-empty trigger strings"
    err, tags = _tag_list(f, string_begin=True)
    if err:
        return err
    if "excludes" in f and not _strings(f["excludes"], non_empty=True):
        return "triggered_tags excludes must be non-empty strings"
    for t in tags:
        if not any(t["begin"].startswith(trigger) for trigger in triggers):
            return "a tag does not match any trigger"
    return None


def _token_triggered(f: Mapping[str, Any]) -> str | None:
    if err := _tokens(f.get("trigger_tokens")):
        return err
    for t in f.get("tags") or []:
        if isinstance(t, Mapping) and not _is_token(t.get("begin")):
            return "token_triggered_tags tags need token begins"
    return _tag_list(f, string_begin=False)[0]


def _separated(f: Mapping[str, Any]) -> str | None:
    err, _ = _tag_list(f, string_begin=False)
    if err:
        return err
    return None if isinstance(f.get("separator"), str) else "a separator string is needed"


def _content(f: Mapping[str, Any]) -> str | None:
    return _format_error(f["content"]) if "content" in f else f"{f['type']} needs a content"


def _repeat(f: Mapping[str, Any]) -> str | None:
    lo, hi = f.get("min"), f.get("max")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lo, hi)):
        return "repeat needs numbers min and max"
    if hi != -1 and lo > hi or lo < 0 or hi < -1 or lo > 2**31 - 1:
        return "repeat bounds"
    if "content" not in f:
        return "repeat needs a content"
    return _format_error(_resolved(f["content"]))


def _resolved(node: Any) -> Any:
    """``node`` with token strings as ids: xgrammar does not resolve a repeat's content."""
    if isinstance(node, list):
        return [_resolved(v) for v in node]
    if not isinstance(node, Mapping):
        return node
    out = {k: _resolved(v) for k, v in node.items()}
    if out.get("type") == "token" and isinstance(out.get("token"), str) and out["token"]:
        out["token"] = 0
    for key in ("exclude_tokens", "trigger_tokens"):
        if isinstance(out.get(key), list):
            out[key] = [0 if isinstance(t, str) and t else t for t in out[key]]
    return out


def _dispatch(f: Mapping[str, Any], *, tokens: bool = False) -> str | None:
    rules = f.get("rules")
    if not isinstance(rules, list) or not rules:
        return "dispatch needs a non-empty list of rules"
    for rule in rules:
        if not isinstance(rule, list) or len(rule) != 2:
            return "a dispatch rule must be a pair"
        key = rule[0]
        if err := (_token(key) if tokens else None if isinstance(key, str) else "a string"):
            return err
        if err := _format_error(rule[1]):
            return err
    return None


_CHECKS: dict[str, Any] = {
    "const_string": _const, "json_schema": _json_schema, "qwen_xml_parameter": _json_schema,
    "any_text": _any_text, "grammar": _grammar, "regex": _regex, "sequence": _elements,
    "or": _elements, "tag": _tag, "triggered_tags": _triggered,
    "token_triggered_tags": _token_triggered, "tags_with_separator": _separated,
    "optional": _content, "plus": _content, "star": _content, "repeat": _repeat,
    "token": lambda f: _token(f.get("token")),
    "exclude_token": lambda f: _tokens(f.get("exclude_tokens", [])),
    "any_tokens": lambda f: _tokens(f.get("exclude_tokens", [])) or _budget(f, "max_tokens"),
    "dispatch": _dispatch, "token_dispatch": lambda f: _dispatch(f, tokens=True),
}
_UNTYPED = ("tag", "const_string", "json_schema", "grammar", "regex", "sequence", "or",
            "triggered_tags", "tags_with_separator", "optional", "plus", "star", "repeat")


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
    if isinstance(structures, list) and _strings(triggers) and all(
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
        return ebnf_error(grammar) is None
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
