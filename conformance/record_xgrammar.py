"""Record xgrammar 0.2.8's verdicts (vLLM 0.33.0's structured-output backend) on a seeded corpus
of regexes, EBNF grammars, JSON schemas and structural tags, and its EBNF for a corpus of Lark
grammars (:mod:`conformance.lark_corpus`), as goldens.

Why: vLLM 0.33's render server refuses a structural tag that xgrammar cannot compile, and drops
the or-format when the request's own constraint fails xgrammar's validation. tito checks these
without xgrammar (``tito.core.structured_check``, ``tito.core.grammar_check``);
``tests/test_structured_check.py`` compares its answers with these verdicts, which come from
the calls vLLM makes (``validate_structural_tag_response_format`` for the tags, the
``xgr.Grammar.from_*`` that ``validate_xgrammar_grammar`` calls for the rest). The render
server's own answers to a sample are in ``goldens/structural/*.json`` (``validation_*``).
``_lark.json`` holds ``str(xgr.Grammar.from_lark(g))`` (what vLLM's
``structured_outputs_to_format`` sends) or null (refused) per grammar, for
``tests/test_structural_lark.py``.

Re-record (a Python with vllm==0.33.0)::

    /work/vllm-venv/bin/python conformance/record_xgrammar.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conformance.lark_corpus import lark_corpus, regex_lark_corpus  # noqa: E402
from conformance.tag_fields_corpus import tag_text_corpus  # noqa: E402

OUT = Path(__file__).resolve().parent / "goldens" / "structural" / "_xgrammar.json"
LARK_OUT = OUT.with_name("_lark.json")

_RE = [*"ab.|()[]{}*+?^$\\-,0129dDwWsSbBpkux:=!<>n ", "(?:", "(?<", "[^", "\\u00", "{2,3}",
       "{3,1}", "\\c", "[z-a]", "[]", "\\u{1F600}", "(?=", "(?i)", "{,2}", "*?"]
_EBNF = ["root", " ::= ", '"a"', '"b\\n"', "[a-z]", '[^"]', "[z-a]", "(", ")", "|", "*", "+",
         "?", "{2}", "{2,}", "{1,3}", "{3,1}", "x", "\n", "\nx ::= ", "# c\n", '"', "[",
         'TagDispatch(("a", x))', ",", "::", "\\"]
_PATTERNS = ["(a", "[z-a]", "a{3,1}", "(?=a)", "(?!a)b", "(?<=a)b", "\\1", "a**", "a{2}{3}",
             "(?i)a", "(?s)a", "(?P<x>a)", "\\bx", "\t(?=a)", "[a-z]+", "\\d{2}", "a|b", ""]
_DEFS = [{"a": {"type": "string"}}, {"a": {"type": "foo"}},
         {"a": {"allOf": [{"type": "foo"}, {}]}}, {"a": {"type": "string", "pattern": "(a"}},
         {"a": {"$ref": "#/$defs/a"}},
         {"a": {"$ref": "#/$defs/b"}, "b": {"type": "integer", "minimum": 3, "maximum": 1}},
         {"arr": [{}]}]
_LEAVES = [{"type": "string"}, {"type": "foo"}, {"type": "integer", "minimum": 0}, {"enum": []},
           {"const": "x"}, True, False, {}, {"type": ["string", "null"]}, {"type": 5}]


class Corpus:
    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def regex(self) -> str:
        return "".join(self.rnd.choice(_RE) for _ in range(self.rnd.randint(0, 8)))

    def ebnf(self) -> str:
        return "root ::= " + "".join(self.rnd.choice(_EBNF)
                                     for _ in range(self.rnd.randint(1, 7)))

    def schema(self, d: int = 0) -> Any:
        r = self.rnd
        if d > 2:
            return r.choice(_LEAVES)
        k = r.choice(["obj", "arr", "num", "str", "any", "ref", "leaf", "bad"])
        if k == "obj":
            return {"type": "object", "properties": {"a": self.schema(d + 1)}, **r.choice([
                {}, {"required": ["a"]}, {"required": "a"},
                {"additionalProperties": self.schema(d + 1)},
                {"minProperties": 2, "maxProperties": 1}])}
        if k == "arr":
            return {"type": "array", "items": self.schema(d + 1), **r.choice([
                {}, {"minItems": 1, "maxItems": 3}, {"minItems": 3, "maxItems": 1},
                {"prefixItems": [self.schema(d + 1)], "items": False, "minItems": 2}])}
        if k == "num":
            return {"type": r.choice(["integer", "number"]), **r.choice([
                {}, {"minimum": 1, "maximum": 0}, {"exclusiveMinimum": 1, "exclusiveMaximum": 1},
                {"minimum": 0, "exclusiveMaximum": 0}, {"minimum": "x"}, {"multipleOf": 2}])}
        if k == "str":
            return {"type": "string", **r.choice([
                {}, {"pattern": self.regex()}, {"minLength": 2, "maxLength": 1},
                {"format": "date"}, {"format": "bogus"}])}
        if k == "any":
            return {r.choice(["anyOf", "oneOf", "allOf"]): [self.schema(d + 1)
                                                            for _ in range(r.randint(0, 2))]}
        if k == "ref":
            return {"$ref": r.choice(["#/$defs/a", "#/$defs/b", "#"]),
                    "$defs": {"a": {"type": "string"}}}
        if k == "bad":
            return r.choice([5, [], {"type": [5]}, {"properties": []}, {"items": "x"}, None])
        return r.choice(_LEAVES)

    def leaf(self) -> Any:
        """A schema with one rule of xgrammar's to break or keep (ranges, counts, strict-mode
        arrays and objects, patterns for the automaton and the converter, references)."""
        r = self.rnd
        return r.choice([
            *_LEAVES, {"type": []}, {"type": ["integer", "foo"]}, {"enum": [1]}, {"enum": 5},
            5, None, {"type": "string", "pattern": r.choice(_PATTERNS)},
            {"pattern": r.choice(_PATTERNS)}, {"minimum": 5, "maximum": 1},
            {"type": "string", "format": r.choice(["date", "bogus", 5])},
            {"type": "string", "format": "date", "pattern": "(a"},
            {"type": "string", "minLength": r.choice([1, 3, 2.0, -1, "x", 2**31]),
             "maxLength": r.choice([1, 2, -1, 0, 2**31])},
            {"type": "integer", "minimum": r.choice([0, 1.5, 2.0, "x", 5, 10**20]),
             "maximum": r.choice([1, 4, 2**63 - 1])},
            {"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": r.choice([1, 2, 3])},
            {"type": "integer", "multipleOf": r.choice([0, 2, 2.5, 3, 5000, "x"]),
             "minimum": 1, "maximum": r.choice([1, 2, 100000])},
            {"type": "number", "minimum": 1, "exclusiveMaximum": r.choice([1, 2])},
            {"type": "number", "multipleOf": r.choice([0, -1, 0.5, "x"])},
            {"type": "array", "minItems": r.choice([0, 1, 1.0, "x"])},
            {"type": "array", "items": r.choice([False, True, 5, {"type": "foo"}]),
             "prefixItems": r.choice([[], [{}], [True], [False], 5]),
             "minItems": r.choice([0, 1, 2]), "maxItems": r.choice([-1, 0, 1, 3])},
            {"type": "array", "unevaluatedItems": r.choice([False, {}, {"type": "foo"}]),
             "minItems": 1},
            {"type": "object", "required": r.choice([["a"], "a", [5], ["a", "b"]]),
             "maxProperties": r.choice([0, 1, 5, 2**32])},
            {"type": "object", "minProperties": r.choice([0, 1, 2, -1, 1.0]),
             "properties": {"a": {}}, "additionalProperties": r.choice(
                 [True, False, {}, 5, {"type": "foo"}])},
            {"type": "object", "patternProperties": r.choice(
                [{"(a": {}}, {"a+": {"type": "foo"}}, {"b": {}}, 5]),
             "maxProperties": r.choice([0, 3])},
            {"type": "object", "propertyNames": r.choice(
                [{"pattern": "(a"}, {"type": "integer"}, {"minLength": 1}, 5, {"type": "foo"}]),
             "properties": r.choice([{}, {"a": {}}]),
             "additionalProperties": r.choice([True, False])},
            {"type": "object", "unevaluatedProperties": r.choice(
                [False, {"type": "foo"}, {}]), "minProperties": 1},
            {"properties": {"a": r.choice([False, {"type": "foo"}, {}])}},
            {"items": {"type": "foo"}}, {"not": {"type": "foo"}},
            {"$ref": r.choice(["#/$defs/a", "#/$defs/b", "#/$defs/bad", "#", 5, "http://x",
                               "#/definitions/a", "#/$defs/arr/0"])}])

    def composed(self, d: int = 0) -> Any:
        """allOf (0-3 branches, nested, beside other keywords), anyOf, oneOf, type lists,
        objects and arrays of them: what xgrammar parses but does not generate."""
        r = self.rnd
        if d > 3 or r.random() < 0.3:
            return self.leaf()
        k = r.choice(["allOf", "allOf", "allOf", "anyOf", "oneOf", "obj", "arr", "typed", "mix"])
        if k in ("allOf", "anyOf", "oneOf"):
            s: dict[str, Any] = {k: [self.composed(d + 1) for _ in range(r.choice([0, 1, 2, 2, 3]))]}
            if r.random() < 0.3:
                s.update(r.choice([{"type": "foo"}, {"type": "string"}, {"enum": []},
                                   {"properties": {"a": {"type": "foo"}}}]))
            if r.random() < 0.1:
                s[k] = r.choice(["x", 5, {}])
            return s
        if k == "obj":
            return {"type": "object", "properties": {"a": self.composed(d + 1),
                                                     "b": self.composed(d + 1)},
                    **r.choice([{}, {"required": ["a"]}, {"maxProperties": 0},
                                {"additionalProperties": self.composed(d + 1)}])}
        if k == "arr":
            return {"type": "array", "items": self.composed(d + 1), **r.choice(
                [{}, {"prefixItems": [self.composed(d + 1)]}, {"maxItems": 0}])}
        if k == "typed":
            return {"type": r.choice(["string", "integer", ["string", "integer"], "object"]),
                    "allOf": [self.composed(d + 1), self.composed(d + 1)]}
        base = self.leaf()
        if isinstance(base, dict):
            base = {**base, r.choice(["allOf", "anyOf"]): [self.composed(d + 1),
                                                           self.composed(d + 1)]}
        return base

    def with_defs(self) -> Any:
        s = self.composed()
        if isinstance(s, dict) and self.rnd.random() < 0.5:
            s = {**s, "$defs": self.rnd.choice(_DEFS)}
        return s

    def fmt(self, d: int = 0) -> Any:
        r = self.rnd
        kinds = ["const_string", "json_schema", "regex", "grammar", "any_text", "sequence", "or",
                 "tag", "triggered_tags", "tags_with_separator", "optional", "repeat", "token",
                 "bad", "notype"]
        k = r.choice(kinds if d < 3 else kinds[:3])
        if k == "const_string":
            return r.choice([{"type": k, "value": "x"}, {"type": k}, {"type": k, "value": 5}])
        if k == "json_schema":
            return {"type": k, "json_schema": self.schema(1),
                    **r.choice([{}, {"style": "qwen_xml"}, {"style": "bogus"}])}
        if k == "regex":
            return {"type": k, "pattern": self.regex()}
        if k == "grammar":
            return {"type": k, "grammar": r.choice([self.ebnf(), 'x ::= "a"', ""])}
        if k == "any_text":
            return r.choice([{"type": k}, {"type": k, "excludes": ["x"]},
                             {"type": k, "excludes": "x"}, {"type": k, "max_tokens": -1}])
        if k in ("sequence", "or"):
            return {"type": k, "elements": [self.fmt(d + 1) for _ in range(r.randint(0, 2))]}
        if k == "tag":
            return self.tag(d)
        if k == "triggered_tags":
            return {"type": k, "triggers": r.choice([["<a"], [], ["<b"], [""]]),
                    "tags": [self.tag(d) for _ in range(r.randint(0, 2))]}
        if k == "tags_with_separator":
            return {"type": k, "separator": r.choice([",", None]),
                    "tags": [self.tag(d) for _ in range(r.randint(0, 2))]}
        if k == "optional":
            return {"type": k, "content": self.fmt(d + 1)}
        if k == "repeat":
            return {"type": k, "min": r.choice([0, 1, 3, -1]), "max": r.choice([-1, 0, 2, 5]),
                    "content": self.fmt(d + 1)}
        if k == "token":
            return {"type": k, "token": r.choice([1, -1, "x"])}
        if k == "bad":
            return {"type": "nope"}
        return r.choice([{"begin": "<a>", "content": self.fmt(d + 1), "end": "</a>"},
                         {"value": "x"}])

    def tag(self, d: int) -> Any:
        r = self.rnd
        return {"type": "tag", "begin": r.choice(["<a>", "<ab>", "<b>"]),
                "content": self.fmt(d + 1), "end": r.choice(["</a>", "", [], ["x", ""]])}


def corpus(seed: int = 20261201, n: int = 400) -> list[tuple[str, Any]]:
    c = Corpus(seed)
    return ([("regex", c.regex()) for _ in range(n)] + [("ebnf", c.ebnf()) for _ in range(n)]
            + [("schema", c.schema()) for _ in range(n)]
            + [("tag", {"type": "structural_tag", "format": c.fmt()}) for _ in range(n)])


_S, _BAD_RE = {"type": "string"}, {"type": "string", "pattern": "(a"}
_DEF = {"$defs": {"x": {"type": "string"}, "bad": {"type": "foo"}}}
#: allOf by hand: 2 and 3 branches, nested, with $ref, conflicting types, beside other keywords
COMPOSED = [
    {"allOf": [False]}, {"allOf": [True, False]}, {"allOf": [_S, False]}, {"allOf": [5]},
    {"allOf": [_S, 5]}, {"allOf": "x"}, {"allOf": []}, {"allOf": [], "type": "foo"},
    {"allOf": [{"type": "foo"}, _S]}, {"allOf": [_S, {"type": "integer"}]},
    {"allOf": [_S, {"type": "integer"}, {"type": "object"}]},
    {"allOf": [_S, _S, {"type": "foo"}]}, {"allOf": [_S], "type": "foo"},
    {"allOf": [_S, _S], "type": "foo"}, {"allOf": [_BAD_RE]}, {"allOf": [_BAD_RE, {}]},
    {"allOf": [_BAD_RE, {}, {}]}, {"allOf": [{"allOf": [_BAD_RE]}, {}]},
    {"allOf": [{"anyOf": [_BAD_RE]}, _S]}, {"anyOf": [_BAD_RE]},
    {"allOf": [{"allOf": [{"type": "foo"}, {}]}, {}]},
    {"allOf": [{"allOf": [_S, {"allOf": [{}, {"enum": []}]}]}, {}]},
    {"allOf": [{"$ref": "#/$defs/missing"}, {}]}, {"allOf": [{"$ref": "#/$defs/missing"}]},
    {"allOf": [{"$ref": "#/$defs/x"}, {}], **_DEF},
    {"allOf": [{"$ref": "#/$defs/bad"}, {}], **_DEF},
    {"allOf": [{"$ref": "#/$defs/bad"}], **_DEF}, {"allOf": [{"$ref": 5}, {}]},
    {"$ref": "#/$defs/bad", "$defs": {"bad": {"allOf": [{"type": "foo"}, {}]}}},
    {"$ref": "#/$defs/re", "$defs": {"re": {"allOf": [_BAD_RE, {}]}}},
    {"allOf": [{"type": "integer", "minimum": 5, "maximum": 1}, {}]},
    {"allOf": [{"type": "string", "minLength": 3, "maxLength": 1}, {}]},
    {"allOf": [{"type": "string", "format": 5}, {}]},
    {"allOf": [{"type": "object", "required": [5]}, {}]},
    {"allOf": [{"type": "object", "patternProperties": {"(a": {}}}, {}]},
    {"allOf": [{"type": "object", "propertyNames": {"pattern": "(a"}}, {}]},
    {"allOf": [{"type": "object", "propertyNames": {"type": "integer"}}, {}]},
    {"allOf": [{"type": "array", "minItems": 1}, {}]},
    {"allOf": [{"type": "array", "items": {}, "minItems": 1.0}, {}]},
    {"allOf": [{"oneOf": []}, {}]}, {"allOf": [{"anyOf": []}, {}]},
    {"type": "object", "properties": {"a": {"allOf": [_S, {"maxLength": 2}]}},
     "required": ["a"]},
    {"type": "object", "properties": {"a": {"allOf": [_S, {"type": "foo"}]}}},
    {"type": "string", "properties": {"a": {"type": "foo"}}},
    {"$ref": "#/$defs/x", "type": "foo", "$defs": {"x": {}}}, {"const": 1, "type": "foo"},
    {"anyOf": [_S], "type": "foo"}, {"not": {"type": "foo"}}, {"minimum": 5, "maximum": 1},
    {"pattern": "(a"}, {"type": "string", "format": "date", "pattern": "(a"},
    {"type": "string", "pattern": "(?=a)b"}, {"type": "string", "pattern": "a**"},
    {"type": "string", "pattern": "\t(?=a)"},
    {"type": "object", "minProperties": 2, "properties": {"a": {}}},
    {"type": "array", "items": {}, "minItems": 1.0}, {"type": "string", "minLength": 2**31},
]


def composed_corpus(seed: int = 20261202, n: int = 600) -> list[tuple[str, Any]]:
    """Schemas around ``allOf`` (and the rules it hides), alone and as a structural tag's
    ``json_schema`` (which xgrammar re-serializes first: whole floats become integers)."""
    c = Corpus(seed)
    schemas = COMPOSED + [c.with_defs() for _ in range(n)]
    return [("schema", s) for s in schemas] + [
        ("tag", {"type": "structural_tag", "format": {"type": "json_schema", "json_schema": s}})
        for s in schemas]


def lark_case(grammar: str) -> dict[str, Any]:
    """xgrammar's EBNF for ``grammar`` (what vLLM's structured_outputs_to_format sends), or
    null when it refuses it."""
    import xgrammar as xgr

    try:
        return {"grammar": grammar, "ebnf": str(xgr.Grammar.from_lark(grammar))}
    except Exception:  # noqa: BLE001 (any refusal is a refusal)
        return {"grammar": grammar, "ebnf": None}


def verdict(kind: str, value: Any) -> bool:
    import xgrammar as xgr
    from vllm.entrypoints.generate.base.protocol import validate_structural_tag_response_format

    try:
        if kind == "tag_text":  # a chat body's tag text, handed to xgrammar's parser as it is
            from vllm.entrypoints.generate.base.protocol import validate_structural_tag_payload

            validate_structural_tag_payload(json.dumps(value), parameter="structured_outputs")
        elif kind == "regex":
            xgr.Grammar.from_regex(value)
        elif kind == "ebnf":
            xgr.Grammar.from_ebnf(value)
        elif kind == "schema":
            xgr.Grammar.from_json_schema(json.dumps(value))
        else:
            validate_structural_tag_response_format(value)
    except Exception:  # noqa: BLE001 (any refusal is a refusal)
        return False
    return True


def main() -> None:
    from importlib.metadata import version

    cases = [{"kind": k, "value": v, "accepted": verdict(k, v)}
             for k, v in corpus() + composed_corpus() + tag_text_corpus()]
    OUT.write_text(json.dumps({"vllm": version("vllm"), "xgrammar": version("xgrammar"),
                               "cases": cases}, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(cases)} cases, {sum(c['accepted'] for c in cases)} accepted")
    lark = [lark_case(g) for g in lark_corpus() + regex_lark_corpus()]
    LARK_OUT.write_text(json.dumps({"vllm": version("vllm"), "xgrammar": version("xgrammar"),
                                    "cases": lark}, ensure_ascii=False) + "\n")
    print(f"{LARK_OUT}: {len(lark)} grammars, {sum(c['ebnf'] is not None for c in lark)} "
          "converted")


if __name__ == "__main__":
    main()
