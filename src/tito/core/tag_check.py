"""xgrammar 0.2.8's refusals of a structural tag (``structural_tag.cc``), without xgrammar: why
it does not compile one, or None.

Why: vLLM 0.33's render refuses a structural tag xgrammar cannot compile ("Invalid <param>
structural_tag specification.", :mod:`tito.core.structured_check`), and drops the or-format
when the request's own tag does not compile.

Rules (each a reason for refusal): the ``structural_tag`` wrapper with a ``format``; each
format node's type and fields (``const_string`` a string value, ``json_schema`` an object or
boolean schema xgrammar converts, :mod:`tito.core.schema_check`, a known style; ``any_text``
string excludes and 32-bit budgets; ``grammar`` EBNF and ``regex`` patterns that parse,
:mod:`tito.core.grammar_check`; ``sequence`` / ``or`` non-empty elements; ``tag`` begin,
content and end, an end that is not empty when the content is unlimited; ``triggered_tags``
with non-empty triggers and tags, each tag's begin starting with a trigger;
``tags_with_separator`` a separator; ``repeat`` bounds; ``dispatch`` pairs); token formats by
id only (the render server has no tokenizer info for token strings); a format without a type
is each format in turn, tag first; the legacy ``structures`` + ``triggers`` form is a
``triggered_tags``. JSON types as xgrammar's parser reads them (picojson): a token id is any
whole number within 32 bits (``2.0`` too; a dispatch key may be negative), a tag's token
``begin`` / ``end`` any object with one (its ``type`` unread), ``repeat`` bounds and
``max_whitespace_cnt`` (1 or more) JSON integers, the flags (``at_least_one``,
``stop_after_first``, ``loop``) JSON booleans; triggers distinct, none a prefix of another, each
opening a tag (token triggers: the tags' begin tokens exactly).

Bounds: one walk over the tag (its nesting is checked before, by the caller).
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Mapping
from typing import Any

from tito.core.grammar_check import ebnf_error, regex_error, schema_error
from tito.core.tag_model import lax_bool


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
    """vLLM 0.33's legacy check (``validate_xgrammar_grammar``): each structure read into
    xgrammar's ``StructuralTagItem`` (``begin`` / ``end`` strings, the ``schema`` any JSON value
    it re-reads as a ``JSONSchemaFormat``'s: an object, or a lax boolean such as ``"yes"`` or
    ``1``), the ``triggers`` a list, compiled as a ``triggered_tags``; the tag's ``type`` is
    never read (tito required ``"structural_tag"``: a 400 where vLLM rendered)."""
    structures, triggers = tag.get("structures"), tag.get("triggers")
    if isinstance(structures, (str, Mapping)) and not structures:
        structures = []  # (Python iterates them: no structure)
    if not isinstance(structures, list) or not isinstance(triggers, list):
        return "legacy structural tag: structures and triggers lists"
    tags = []
    for s in structures:
        schema = s.get("schema") if isinstance(s, Mapping) else None
        if not isinstance(schema, Mapping):
            schema = lax_bool(schema)
        if not isinstance(s, Mapping) or not isinstance(s.get("begin"), str) \
                or not isinstance(s.get("end"), str) or schema is None:
            return "legacy structure: begin, schema and end"
        tags.append({"type": "tag", "begin": s["begin"], "end": s["end"],
                     "content": {"type": "json_schema", "json_schema": schema}})
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


def string_list(v: Any, *, non_empty: bool = False) -> bool:
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
    cnt = f.get("max_whitespace_cnt")
    if cnt is not None and not (_json_int(cnt) and 0 < cnt <= _I32_MAX):
        return "max_whitespace_cnt must be a positive 32-bit integer or null"
    return schema_error(schema, tag=True)


_I32_MAX = 2**31 - 1


def _json_int(v: Any) -> bool:
    """A JSON integer (not ``2.0``, not a boolean)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _flags(f: Mapping[str, Any], *keys: str) -> str | None:
    bad = next((k for k in keys if k in f and not isinstance(f[k], bool)), None)
    return None if bad is None else f"{bad} must be a boolean"


def _budget(f: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        v = f.get(key)
        if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool)
                                  and 0 <= v <= 2**31 - 1 and v == int(v)):
            return f"{key} must be a non-negative 32-bit integer or null"
    return None


def _any_text(f: Mapping[str, Any]) -> str | None:
    if "excludes" in f and not string_list(f["excludes"]):
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


def _token(v: Any, *, signed: bool = False) -> str | None:
    """A token id: a whole number (``2.0`` too) within 32 bits, non-negative unless
    ``signed`` (a token dispatch key)."""
    if isinstance(v, str):  # resolved against the vocabulary: no tokenizer at render
        return "token strings need the tokenizer"
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (
            isinstance(v, float) and not v.is_integer()):
        return "a token must be an integer or a string"
    low = -_I32_MAX - 1 if signed else 0
    return None if low <= v <= _I32_MAX else "a token id out of range"


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
        if not end or not string_list(end):
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
    """A token format where a tag's ``begin`` / ``end`` takes one: any object (xgrammar reads
    its ``token``, not its ``type``)."""
    return isinstance(v, Mapping)


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
    if not string_list(triggers, non_empty=True) or not triggers:
        return "triggered_tags needs non-empty trigger strings"
    ordered = sorted(triggers)  # (a string's extensions follow it: adjacent pairs suffice)
    if any(b.startswith(a) for a, b in zip(ordered, ordered[1:])):
        return "triggers must be distinct, none a prefix of another"
    err, tags = _tag_list(f, string_begin=True)
    if err or (err := _flags(f, "at_least_one", "stop_after_first")):
        return err
    if "excludes" in f and not string_list(f["excludes"], non_empty=True):
        return "triggered_tags excludes must be non-empty strings"
    opened = set()
    for t in tags:  # the one trigger a begin may start with: the greatest one not after it
        k = bisect_right(ordered, t["begin"]) - 1
        if k < 0 or not t["begin"].startswith(ordered[k]):
            return "a tag does not match any trigger"
        opened.add(k)
    if len(opened) != len(ordered):
        return "a trigger opens no tag"
    return None


def _token_triggered(f: Mapping[str, Any]) -> str | None:
    triggers = f.get("trigger_tokens")
    if err := _tokens(triggers):
        return err
    for t in f.get("tags") or []:
        if isinstance(t, Mapping) and not _is_token(t.get("begin")):
            return "token_triggered_tags tags need token begins"
    err, tags = _tag_list(f, string_begin=False)
    if err or (err := _flags(f, "at_least_one", "stop_after_first")) or (
            err := _tokens(f.get("exclude_tokens", []))):
        return err
    if len(set(triggers)) != len(triggers) or set(triggers) != {
            t["begin"]["token"] for t in tags}:
        return "the trigger tokens must be the tags' begin tokens, each once"
    return None


def _separated(f: Mapping[str, Any]) -> str | None:
    if err := _flags(f, "stop_after_first", "at_least_one"):
        return err
    err, _ = _tag_list(f, string_begin=False)
    if err:
        return err
    return None if isinstance(f.get("separator"), str) else "a separator string is needed"


def _content(f: Mapping[str, Any]) -> str | None:
    return _format_error(f["content"]) if "content" in f else f"{f['type']} needs a content"


def _repeat(f: Mapping[str, Any]) -> str | None:
    lo, hi = f.get("min"), f.get("max")
    if not (_json_int(lo) and _json_int(hi)):
        return "repeat needs integers min and max"
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
    if err := _flags(f, "loop"):
        return err
    rules = f.get("rules")
    if not isinstance(rules, list) or not rules:
        return "dispatch needs a non-empty list of rules"
    for rule in rules:
        if not isinstance(rule, list) or len(rule) != 2:
            return "a dispatch rule must be a pair"
        key = rule[0]
        if err := (_token(key, signed=True) if tokens
                   else None if isinstance(key, str) else "a string"):
            return err
        if err := _format_error(rule[1]):
            return err
    return None


def _dispatch_excludes(f: Mapping[str, Any]) -> str | None:
    ok = string_list(f.get("excludes", []), non_empty=True)
    return None if ok else "dispatch excludes must be non-empty strings"


_CHECKS: dict[str, Any] = {
    "const_string": _const, "json_schema": _json_schema, "qwen_xml_parameter": _json_schema,
    "any_text": _any_text, "grammar": _grammar, "regex": _regex, "sequence": _elements,
    "or": _elements, "tag": _tag, "triggered_tags": _triggered,
    "token_triggered_tags": _token_triggered, "tags_with_separator": _separated,
    "optional": _content, "plus": _content, "star": _content, "repeat": _repeat,
    "token": lambda f: _token(f.get("token")),
    "exclude_token": lambda f: _tokens(f.get("exclude_tokens", [])),
    "any_tokens": lambda f: _tokens(f.get("exclude_tokens", [])) or _budget(f, "max_tokens"),
    "dispatch": lambda f: _dispatch(f) or _dispatch_excludes(f),
    "token_dispatch": lambda f: _dispatch(f, tokens=True) or _tokens(f.get("exclude_tokens", [])),
}
_UNTYPED = ("tag", "const_string", "json_schema", "grammar", "regex", "sequence", "or",
            "triggered_tags", "tags_with_separator", "optional", "plus", "star", "repeat")


__all__ = ["string_list", "structural_tag_error"]
