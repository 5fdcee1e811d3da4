"""The Responses ``structured_outputs`` draw of ``fuzz_render.py``.

Why: vLLM 0.33's Responses body takes vLLM's own ``structured_outputs`` beside ``text.format``
(its ``StructuredOutputsParams``: the constraint kinds, three options, unknown keys dropped;
the structural tag JSON text that gpt-oss's harmony parser reads into xgrammar's models), and
the fuzzer drew none there, so the typing of that body field, the conflict with
``text.format`` and gpt-oss's tag check went unexercised (session 39: an unknown key reached
the engine's sampling params, a tag whose ``format`` is not one rendered).

What is drawn (:func:`add_responses_structured`, on a Responses body already built): on a
share of them, a ``structured_outputs`` of every kind, well formed or not: JSON schemas as
objects and as text, regexes, choices, grammars (EBNF and Lark), ``json_object``, structural
tags (good, legacy, a bad ``format``, an unknown or missing format type, an object instead of
text, not JSON), the options (good and of the wrong type), unknown keys, two kinds at once,
none, null and non-objects. The draws come from the case's own generator for them (seeded from
the case's name), so every other draw of a case -- and each case an earlier seed generated --
stays what it was.
"""

from __future__ import annotations

import json
import random
from typing import Any

ROUTE = "/v1/responses/render"
#: the share of Responses bodies that get a ``structured_outputs``
SHARE = 0.3
_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _tag(fmt: Any, **extra: Any) -> str:
    return json.dumps({"type": "structural_tag", "format": fmt, **extra})


_CONST = {"type": "const_string", "value": "x"}
VALUES: list[Any] = [
    {"json": _SCHEMA}, {"json": json.dumps(_SCHEMA)}, {"json": "not json"}, {"json": 5},
    {"regex": "[a-z]+"}, {"regex": "("}, {"choice": ["yes", "no"]}, {"choice": []},
    {"choice": "yes"}, {"grammar": 'root ::= "a"'}, {"grammar": 'start: "a"'},
    {"grammar": "start: %json"}, {"json_object": True}, {"json_object": False},
    {"structural_tag": _tag(_CONST)},
    {"structural_tag": _tag({"type": "sequence", "elements": [_CONST, {"type": "any_text"}]})},
    {"structural_tag": json.dumps({"format": 5})},
    {"structural_tag": _tag({"type": "bogus"})},
    {"structural_tag": _tag({"begin": "<a>", "content": _CONST, "end": "</a>"})},
    {"structural_tag": _tag({"type": "regex"})},
    {"structural_tag": _tag({"type": "any_text", "max_tokens": -1})},
    {"structural_tag": _tag({"type": "tag", "begin": "<a>", "content": _CONST, "end": 5})},
    {"structural_tag": _tag(_CONST, type="other")},
    {"structural_tag": json.dumps({"type": "structural_tag"})},
    {"structural_tag": json.dumps([1])},
    {"structural_tag": json.dumps({"structures": [{"begin": "<a>", "schema": _SCHEMA,
                                                   "end": "</a>"}], "triggers": ["<a>"]})},
    {"structural_tag": "not json"}, {"structural_tag": {"format": _CONST}},
    {"structural_tag": 5},
    {"regex": "a", "extra_x": [1]}, {"json": _SCHEMA, "disable_any_whitespace": True,
                                     "disable_additional_properties": True,
                                     "whitespace_pattern": " "},
    {"regex": "a", "disable_any_whitespace": "yes"}, {"regex": "a", "disable_any_whitespace": 5},
    {"regex": "a", "disable_any_whitespace": None}, {"regex": "a", "whitespace_pattern": 5},
    {"regex": "a", "_backend": "xgrammar"}, {"regex": "a", "choice": ["a"]},
    {"json_object": True, "structural_tag": _tag(_CONST)}, {"whitespace_pattern": " "}, {},
    {"bogus": 1}, None, "regex", [],
]


def add_responses_structured(r: random.Random, path: str, body: dict[str, Any]) -> None:
    """Put a drawn ``structured_outputs`` into a share of the Responses bodies."""
    if path != ROUTE or r.random() >= SHARE:
        return
    body["structured_outputs"] = VALUES[r.randrange(len(VALUES))]
