"""xgrammar 0.2.8's refusals of a JSON schema (``Grammar.from_json_schema``, a structural tag's
``json_schema`` format), without xgrammar.

Why: vLLM 0.33's render refuses a structural tag whose JSON schema xgrammar cannot convert, and
drops the or-format when the request's own schema fails the conversion; a false refusal turns
away a request vLLM serves, a missed one reaches the engine (which answers 400 there).

The rules are xgrammar's two passes (``json_schema_converter.cc``), found on its verdicts
(``conformance/record_xgrammar.py``):

    parse:     a schema is ``true``, or an object (``false`` and anything else are refused).
               One keyword decides what it is, the first present of ``$ref`` (a string),
               ``const``, ``enum`` (a non-empty list), ``anyOf`` / ``oneOf`` / ``allOf`` (lists;
               every branch parsed), ``type`` (a known name, or a list of them, each parsed as
               that type), then the object keywords, the array keywords, else anything; the
               other keywords of that schema are never read. Per type: integer bounds whole
               numbers inside int64 with a non-empty range (a positive ``multipleOf`` with no
               multiple in a bounded range of at most 10,000 values is refused); number bounds
               numbers, non-empty range, ``multipleOf`` > 0; string ``format`` / ``pattern``
               strings, lengths integers, min <= max; array ``prefixItems`` objects (not a
               boolean), ``items`` / ``unevaluatedItems`` a boolean or a schema, counts
               integers (``maxItems`` >= 0), consistent with the prefix and, in strict mode (no
               ``items``: nothing more allowed), ``minItems`` <= the prefix; object
               ``properties`` / ``patternProperties`` objects of schemas, ``required`` a list of
               strings, ``propertyNames`` an object (a string type), counts non-negative
               integers, consistent with ``required`` and, when nothing else is allowed, with
               the properties
    generate:  what the grammar is built from is then converted: ``$ref`` resolved (``#``, or a
               ``#/a/b`` path through objects; any other URI is anything) and the target
               parsed and generated once per URI; a string's ``pattern`` (unless a known
               ``format`` wins) and ``patternProperties`` keys are regexes
               (:func:`tito.core.grammar_check.regex_error`); ``propertyNames`` generated where
               it is used. An ``allOf`` of two or more branches is generated as anything: its
               branches are parsed (parse refusals count) but never generated (a bad pattern
               or a missing ``$ref`` there is accepted)

Numbers: xgrammar reads JSON with int64 integers; a float is never an integer count, but in a
structural tag (re-serialized by xgrammar before conversion, ``tag=True``) a whole float below
1e17 is one.

Bounds: each (schema, pass, type) visited once (cached by identity), each ``$ref`` resolved
once; nesting past :data:`MAX_DEPTH` is refused (the nesting check refuses it first), a chain
of more than :data:`MAX_REF_HOPS` references is accepted unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tito.core.regex_check import regex_error

MAX_DEPTH = 128
MAX_REF_HOPS = 64
_INT64 = 2**63
_INT32_MAX = 2**31 - 1
_MULTIPLE_OF_MAX = 1024  #: above it an integer multipleOf is ignored
_MULTIPLE_OF_RANGE = 10_000  #: a wider bounded range ignores multipleOf
_FORMATS = frozenset({"email", "date", "time", "date-time", "duration", "ipv4", "ipv6",
                      "hostname", "uuid", "uri", "uri-reference", "uri-template",
                      "json-pointer", "relative-json-pointer"})
_OBJECT_KEYS = ("properties", "additionalProperties", "unevaluatedProperties")
_ARRAY_KEYS = ("items", "prefixItems", "unevaluatedItems")
_OWN = object()  #: the schema's own ``type`` (no override)
_NONE = object()  #: ``type`` removed (an empty type list)


def schema_error(schema: Any, *, tag: bool = False) -> str | None:
    """Why xgrammar refuses the JSON schema ``schema`` (parsed JSON), or None; ``tag``: the
    schema of a structural tag's ``json_schema`` format (whole floats are integers there)."""
    return _Checker(schema, tag).visit(schema, True, 0)


class _Checker:
    """One conversion: the root (for ``$ref``), the caches that keep it linear."""

    def __init__(self, root: Any, tag: bool) -> None:
        self.root, self.tag = root, tag
        self.seen: dict[tuple[int, bool, Any, Any], str | None] = {}
        self.refs: dict[str, str | None] = {}
        self.hops = 0

    # -- values as xgrammar's JSON reader sees them ------------------------------------------

    def is_int(self, v: Any) -> bool:
        if isinstance(v, bool):
            return False
        if isinstance(v, int):
            return -_INT64 <= v < _INT64
        return self.tag and isinstance(v, float) and v.is_integer() and abs(v) < 1e17

    @staticmethod
    def is_num(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    # -- the passes ---------------------------------------------------------------------------

    def visit(self, node: Any, gen: bool, depth: int, type_: Any = _OWN,
              default: str | None = None) -> str | None:
        """Parse ``node`` (and generate it when ``gen``): the first refusal, or None."""
        if node is True:
            return None
        if node is False:
            return "schema 'false' cannot accept any value"
        if not isinstance(node, Mapping):
            return f"a schema must be an object or a boolean, not {type(node).__name__}"
        if depth > MAX_DEPTH:  # through references: accepted unchecked
            return None if self.hops else "schema nested too deeply"
        key = (id(node), gen, type_ if isinstance(type_, str) else id(type_), default)
        if key not in self.seen:
            self.seen[key] = None  # a cycle (through an override) accepts
            self.seen[key] = self._dispatch(node, gen, depth + 1, type_, default)
        return self.seen[key]

    def _dispatch(self, node: Mapping[str, Any], gen: bool, depth: int, type_: Any,
                  default: str | None) -> str | None:
        if "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str):
                return "$ref must be a string"
            return self._ref(ref, depth) if gen else None
        if "const" in node:
            return None
        if "enum" in node:
            return None if isinstance(node["enum"], list) and node["enum"] \
                else "enum must be a non-empty array"
        for word in ("anyOf", "oneOf", "allOf"):
            if word in node:
                branches = node[word]
                if not isinstance(branches, list):
                    return f"{word} must be an array"
                # a multi-branch allOf is generated as anything: branches parsed only
                deep = gen and (word != "allOf" or len(branches) == 1)
                return next((e for b in branches if (e := self.visit(b, deep, depth))), None)
        t = node.get("type", _NONE) if type_ is _OWN else type_
        if t is _NONE and default is not None:
            t = default
        if t is not _NONE:
            if isinstance(t, list):
                if not t:
                    return self.visit(node, gen, depth, _NONE)
                for one in t:
                    if not isinstance(one, str):
                        return "type must be a string or an array of strings"
                    if err := self.visit(node, gen, depth, one):
                        return err
                return None
            if not isinstance(t, str):
                return "type should be a string"
            check = _BY_TYPE.get(t)
            return check(self, node, gen, depth) if check else f'unsupported type "{t}"'
        if any(k in node for k in _OBJECT_KEYS):
            return self._object(node, gen, depth)
        if any(k in node for k in _ARRAY_KEYS):
            return self._array(node, gen, depth)
        return None

    def _ref(self, uri: str, depth: int) -> str | None:
        if uri in self.refs:  # generated once per URI (a cycle refers to itself: fine)
            return self.refs[uri]
        if uri != "#" and not uri.startswith("#/"):
            return None  # any other URI: anything
        if self.hops >= MAX_REF_HOPS:
            return None
        target = self.root
        for part in uri[2:].split("/") if uri != "#" else []:
            if not part:
                continue
            if not isinstance(target, Mapping) or part not in target:
                return f"cannot find field {part} in {uri}"
            target = target[part]
        self.refs[uri] = None
        self.hops += 1
        self.refs[uri] = self.visit(target, True, depth)
        self.hops -= 1
        return self.refs[uri]

    # -- the types ----------------------------------------------------------------------------

    def _integer(self, node: Mapping[str, Any], gen: bool, depth: int) -> str | None:
        multiple = None
        if "multipleOf" in node:
            v = node["multipleOf"]
            if not self.is_num(v):
                return "value must be a number"
            if v <= 0:
                return "multipleOf must be greater than 0"
            if (isinstance(v, int) or v.is_integer()) and v <= _MULTIPLE_OF_MAX:
                multiple = int(v)
        bounds: dict[str, int] = {}
        for word in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if word in node:
                v = node[word]
                if not self.is_num(v):
                    return "value must be a number"
                if not self.is_int(v):
                    if isinstance(v, float) and not v.is_integer():
                        return "integer constraint must be a whole number"
                    if not -_INT64 < v < _INT64:
                        return "integer exceeds the 64-bit limit"
                bounds[word] = int(v)
        if bounds.get("exclusiveMinimum") == _INT64 - 1 or \
                bounds.get("exclusiveMaximum") == -_INT64:
            return "exclusive bound overflows"
        lows = [bounds[k] + d for k, d in (("minimum", 0), ("exclusiveMinimum", 1)) if k in bounds]
        highs = [bounds[k] - d for k, d in (("maximum", 0), ("exclusiveMaximum", 1))
                 if k in bounds]
        start, end = max(lows, default=None), min(highs, default=None)
        if start is not None and end is not None and start > end:
            return "invalid range: minimum greater than maximum"
        if multiple and start is not None and end is not None \
                and end - start + 1 <= _MULTIPLE_OF_RANGE \
                and -(-start // multiple) * multiple > end:
            return "range contains no multipleOf value"
        return None

    def _number(self, node: Mapping[str, Any], gen: bool, depth: int) -> str | None:
        if "multipleOf" in node:
            v = node["multipleOf"]
            if not self.is_num(v):
                return "value must be a number"
            if v <= 0:
                return "multipleOf must be greater than 0"
        b = {}
        for word in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if word in node:
                if not self.is_num(node[word]):
                    return "value must be a number"
                b[word] = node[word]
        lo, hi = b.get("minimum"), b.get("maximum")
        ex_lo, ex_hi = b.get("exclusiveMinimum"), b.get("exclusiveMaximum")
        if (lo is not None and hi is not None and lo > hi) \
                or (lo is not None and ex_hi is not None and lo >= ex_hi) \
                or (ex_lo is not None and hi is not None and ex_lo >= hi) \
                or (ex_lo is not None and ex_hi is not None and ex_lo >= ex_hi):
            return "invalid range: empty range"
        return None

    def _string(self, node: Mapping[str, Any], gen: bool, depth: int) -> str | None:
        for word in ("format", "pattern"):
            if word in node and not isinstance(node[word], str):
                return f"{word} must be a string"
        lengths = []
        for word in ("minLength", "maxLength"):
            if word in node:
                if not self.is_int(node[word]):
                    return f"{word} must be an integer"
                if word == "minLength" and node[word] > _INT32_MAX:
                    return "minLength must not exceed 2147483647"
                lengths.append(min(int(node[word]), _INT32_MAX))
            else:
                lengths.append(0 if word == "minLength" else -1)
        if lengths[1] != -1 and lengths[0] > lengths[1]:
            return "minLength is greater than maxLength"
        if gen and node.get("format") not in _FORMATS and "pattern" in node:
            return _pattern_error(node["pattern"])
        return None

    def _array(self, node: Mapping[str, Any], gen: bool, depth: int) -> str | None:
        prefix = node.get("prefixItems", [])
        if not isinstance(prefix, list):
            return "prefixItems must be an array"
        for item in prefix:
            if item is False:
                return "prefixItems contains false"
            if not isinstance(item, Mapping):
                return "prefixItems must be an array of objects or booleans"
            if err := self.visit(item, gen, depth):
                return err
        more = False
        for word in ("items", "unevaluatedItems"):
            if word in node:
                v = node[word]
                if not isinstance(v, (bool, Mapping)):
                    return f"{word} must be a boolean or an object"
                more = v is not False
                if more and (err := self.visit(v, gen, depth)):
                    return err
                break
        low, high = 0, -1
        for word in ("minItems", "minContains"):
            if word in node:
                if not self.is_int(node[word]) or node[word] > _INT32_MAX:
                    return f"{word} must be an integer not exceeding 2147483647"
                low = max(low, int(node[word]))
        if "maxItems" in node:
            if not self.is_int(node["maxItems"]) or node["maxItems"] < 0:
                return "maxItems must be a non-negative integer"
            high = int(node["maxItems"])
        if high != -1 and (low > high or high < len(prefix)):
            return "minItems, maxItems and prefixItems disagree"
        if not more and len(prefix) < low:
            return "minItems is greater than the number of prefixItems (no more items allowed)"
        return None

    def _object(self, node: Mapping[str, Any], gen: bool, depth: int) -> str | None:
        # parse: every keyword's schemas, with no generation yet
        props = node.get("properties", {})
        if not isinstance(props, Mapping):
            return "properties must be an object"
        if err := self._all(props.values(), False, depth):
            return err
        required = node.get("required", [])
        if not isinstance(required, list):
            return "required must be an array"
        if not all(isinstance(r, str) for r in required):
            return "required must hold strings"
        patterns = node.get("patternProperties", {})
        if not isinstance(patterns, Mapping):
            return "patternProperties must be an object"
        if err := self._all(patterns.values(), False, depth):
            return err
        names = node.get("propertyNames")
        if names is not None or "propertyNames" in node:
            if not isinstance(names, Mapping):
                return "propertyNames must be an object"
            if isinstance(names.get("type"), str) and names["type"] != "string":
                return "propertyNames must validate strings"
            if err := self.visit(names, False, depth, default="string"):
                return err
        extra, allow_extra = node.get("additionalProperties"), False
        if "additionalProperties" in node:
            allow_extra = extra is not False
            if not isinstance(extra, bool) and (err := self.visit(extra, False, depth)):
                return err
        uneval, allow_uneval = node.get("unevaluatedProperties"), False
        if "additionalProperties" in node:
            allow_uneval, uneval = allow_extra, None
        elif "unevaluatedProperties" in node:
            allow_uneval = uneval is not False
            if not isinstance(uneval, bool) and (err := self.visit(uneval, False, depth)):
                return err
        counts = []
        for word in ("minProperties", "maxProperties"):
            v = node.get(word, 0 if word == "minProperties" else -1)
            if word in node:  # read as a C int (truncated to 32 bits)
                if not self.is_int(v):
                    return f"{word} must be an integer"
                v = (int(v) + 2**31) % 2**32 - 2**31
                if v < 0:
                    return f"{word} must be a non-negative integer"
            counts.append(int(v))
        low, high = counts
        if high != -1 and (low > high or len(set(required)) > high):
            return "minProperties, maxProperties and required disagree"
        if not patterns and names is None and not allow_extra and not allow_uneval \
                and low > len(props):
            return "minProperties is greater than the number of properties"
        if not gen:
            return None
        # generate: what the object's grammar is built from
        additional = extra if allow_extra and isinstance(extra, Mapping) else \
            uneval if allow_uneval and isinstance(uneval, Mapping) else \
            True if allow_extra or allow_uneval else None
        used: list[Any] = []
        if patterns:  # each key a regex, each value generated; with properties, the rest too
            if props or high != 0:
                if err := next((e for p in patterns if (e := _pattern_error(p))), None):
                    return err
                used.extend(patterns.values())
            if props and additional is not None:
                used.append(additional)
        elif names is not None:  # the names' schema where it builds the keys
            if props and additional is not None or not props and high != 0:
                if err := self.visit(names, True, depth, default="string"):
                    return err
            if props and additional is not None:
                used.append(additional)
        elif additional is not None and (props or high != 0):
            used.append(additional)
        if props and high != 0:
            used.extend(props.values())
        return self._all(used, True, depth)

    def _all(self, nodes: Any, gen: bool, depth: int) -> str | None:
        return next((e for n in nodes if (e := self.visit(n, gen, depth))), None)


def _pattern_error(pattern: str) -> str | None:
    """A JSON string's regex: xgrammar tries its automaton builder (printable ASCII only),
    then the regex converter; refused when both refuse."""
    err = regex_error(pattern)
    if err and all(" " <= c <= "~" for c in pattern) and regex_error(pattern, fsm=True) is None:
        return None
    return err


_BY_TYPE = {"integer": _Checker._integer, "number": _Checker._number,
            "string": _Checker._string, "boolean": lambda *_: None, "null": lambda *_: None,
            "array": _Checker._array, "object": _Checker._object}

__all__ = ["MAX_DEPTH", "schema_error"]
