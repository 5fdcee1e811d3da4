"""Record xgrammar 0.2.8's verdicts (vLLM 0.33.0's structured-output backend) on a seeded corpus
of regexes, EBNF grammars, JSON schemas and structural tags, as a golden.

Why: vLLM 0.33's render server refuses a structural tag that xgrammar cannot compile, and drops
the or-format when the request's own constraint fails xgrammar's validation. tito checks these
without xgrammar (``tito.core.structured_check``, ``tito.core.grammar_check``);
``tests/test_structured_check.py`` compares its answers with these verdicts, which come from
the calls vLLM makes (``validate_structural_tag_response_format`` for the tags, the
``xgr.Grammar.from_*`` that ``validate_xgrammar_grammar`` calls for the rest). The render
server's own answers to a sample are in ``goldens/structural/*.json`` (``validation_*``).

Re-record (a Python with vllm==0.33.0)::

    /work/vllm-venv/bin/python conformance/record_xgrammar.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "goldens" / "structural" / "_xgrammar.json"

_RE = [*"ab.|()[]{}*+?^$\\-,0129dDwWsSbBpkux:=!<>n ", "(?:", "(?<", "[^", "\\u00", "{2,3}",
       "{3,1}", "\\c", "[z-a]", "[]", "\\u{1F600}", "(?=", "(?i)", "{,2}", "*?"]
_EBNF = ["root", " ::= ", '"a"', '"b\\n"', "[a-z]", '[^"]', "[z-a]", "(", ")", "|", "*", "+",
         "?", "{2}", "{2,}", "{1,3}", "{3,1}", "x", "\n", "\nx ::= ", "# c\n", '"', "[",
         'TagDispatch(("a", x))', ",", "::", "\\"]
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


def verdict(kind: str, value: Any) -> bool:
    import xgrammar as xgr
    from vllm.entrypoints.generate.base.protocol import validate_structural_tag_response_format

    try:
        if kind == "regex":
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

    cases = [{"kind": k, "value": v, "accepted": verdict(k, v)} for k, v in corpus()]
    OUT.write_text(json.dumps({"vllm": version("vllm"), "xgrammar": version("xgrammar"),
                               "cases": cases}, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(cases)} cases, {sum(c['accepted'] for c in cases)} accepted")


if __name__ == "__main__":
    main()
