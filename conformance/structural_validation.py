"""The ``validation_*`` corpus of ``record_structural.py``: vLLM 0.33's render-time checks of
structured-output constraints (what its render server refuses, what it passes on unchecked),
the or-format's fallback when the request's own constraint fails xgrammar's validation, JSON
schemas around ``allOf``, Lark grammars, and the same checks through ``/v1/responses/render``
(``RESPONSES_VALIDATION``).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.structural_corpus import SCHEMA, fn, named

def _deep_schema(n: int) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "string"}
    for _ in range(n):
        s = {"type": "object", "properties": {"a": s}}
    return s


def _deep_tag(n: int) -> dict[str, Any]:
    f: dict[str, Any] = {"type": "const_string", "value": "x"}
    for _ in range(n):
        f = {"type": "sequence", "elements": [f]}
    return {"type": "structural_tag", "format": f}


_OBJ_STRICT = fn("w", {"type": "object", "properties": {"c": {"type": "string"}}}, True)
_BAD_TAG = '{"type": "structural_tag", "format": {"type": "nope"}}'
#: vLLM 0.33's checks of structured-output constraints at render (what its render server
#: refuses, and what it passes on to the engine unchecked), and the or-format's fallback when
#: the request's own constraint fails xgrammar's validation (``_xgrammar_supports``)
VALIDATION: dict[str, dict[str, Any]] = {
    "rf_schema_bad_type": {"response_format": {"type": "json_schema", "json_schema": {
        "name": "a", "schema": {"type": "foo"}}}},
    "rf_schema_missing": {"response_format": {"type": "json_schema"}},
    "rf_schema_deep": {"response_format": {"type": "json_schema", "json_schema": {
        "name": "a", "schema": _deep_schema(40)}}},
    "rf_schema_unsupported_format": {"response_format": {"type": "json_schema", "json_schema": {
        "name": "a", "schema": {"type": "string", "format": "bogus"}}}},
    "so_json_not_json": {"structured_outputs": {"json": "{not json"}},
    "so_json_empty": {"structured_outputs": {"json": ""}},
    "so_json_deep": {"structured_outputs": {"json": _deep_schema(70)}},
    "so_regex_bad": {"structured_outputs": {"regex": "(ab"}},
    "so_regex_nul": {"structured_outputs": {"regex": "a\x00b"}},
    "so_regex_pathological": {"structured_outputs": {"regex": "(a*)*b"}},
    "so_grammar_bad": {"structured_outputs": {"grammar": "root ::= ("}},
    "so_grammar_blank": {"structured_outputs": {"grammar": "  "}},
    "so_choice_empty": {"structured_outputs": {"choice": []}},
    "so_json_and_regex": {"structured_outputs": {"json": {"type": "object"}, "regex": "a"}},
    "so_regex_and_choice": {"structured_outputs": {"regex": "a", "choice": ["a"]}},
    "so_json_and_grammar": {"structured_outputs": {"json": {"type": "object"},
                                                   "grammar": "root ::= \"a\""}},
    "so_json_object_false": {"structured_outputs": {"json_object": False}},
    "so_json_with_rf": {"structured_outputs": {"regex": "a"},
                        "response_format": {"type": "json_object"}},
    "so_tag_bad_type": {"structured_outputs": {"structural_tag": _BAD_TAG}},
    "so_tag_empty": {"structured_outputs": {"structural_tag": ""}},
    "so_tag_not_json": {"structured_outputs": {"structural_tag": "{x"}},
    "so_tag_deep": {"structured_outputs": {"structural_tag": json.dumps(_deep_tag(90))}},
    "so_tag_ok": {"structured_outputs": {"structural_tag": json.dumps(
        {"type": "structural_tag", "format": {"type": "const_string", "value": "ok"}})}},
    "rf_tag_bad_type": {"response_format": {"type": "structural_tag",
                                            "format": {"type": "nope"}}},
    "rf_tag_missing_field": {"response_format": {"type": "structural_tag",
                                                 "format": {"type": "const_string"}}},
    "rf_tag_deep": {"response_format": _deep_tag(90)},
    "rf_tag_deep_ok": {"response_format": _deep_tag(39)},
    "rf_tag_deep_edge": {"response_format": _deep_tag(40)},
    "rf_tag_bad_regex": {"response_format": {"type": "structural_tag", "format": {
        "type": "regex", "pattern": "(a"}}},
    "rf_tag_bad_schema": {"response_format": {"type": "structural_tag", "format": {
        "type": "json_schema", "json_schema": {"type": "foo"}}}},
    "rf_tag_bad_grammar": {"response_format": {"type": "structural_tag", "format": {
        "type": "grammar", "grammar": "root ::= ("}}},
    "rf_tag_legacy_bad": {"response_format": {"type": "structural_tag", "structures": [
        {"begin": "<a>", "schema": {"type": "foo"}, "end": "</a>"}], "triggers": ["<a>"]}},
    "rf_tag_legacy_no_trigger": {"response_format": {"type": "structural_tag", "structures": [
        {"begin": "<a>", "schema": SCHEMA, "end": "</a>"}], "triggers": []}},
    "so_json_with_named": {"structured_outputs": {"json": {"type": "object"}},
                           "tools": [_OBJ_STRICT], "tool_choice": named("w")},
    "so_regex_with_required": {"structured_outputs": {"regex": "a"}, "tools": [_OBJ_STRICT],
                               "tool_choice": "required"},
    "so_grammar_with_named": {"structured_outputs": {"grammar": "root ::= \"a\""},
                              "tools": [_OBJ_STRICT], "tool_choice": named("w")},
    "tools_deep_required": {"tools": [fn("w", _deep_schema(70))], "tool_choice": "required"},
    "tools_deep_strict": {"tools": [fn("w", _deep_schema(70), True)]},
    "tools_bad_schema_strict": {"tools": [fn("w", {"type": "foo"}, True)],
                                "tool_choice": "required"},
    "or_bad_regex": {"tools": [_OBJ_STRICT], "structured_outputs": {"regex": "(a"}},
    "or_nul_regex": {"tools": [_OBJ_STRICT], "structured_outputs": {"regex": "a\x00"}},
    "or_deep_json": {"tools": [_OBJ_STRICT], "structured_outputs": {
        "json": json.dumps(_deep_schema(70))}},
    "or_bad_json": {"tools": [_OBJ_STRICT], "structured_outputs": {"json": "{x"}},
    "or_bad_schema": {"tools": [_OBJ_STRICT], "response_format": {
        "type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "foo"}}}},
    "or_unsupported_schema": {"tools": [_OBJ_STRICT], "response_format": {
        "type": "json_schema", "json_schema": {"name": "a", "schema": {
            "type": "array", "uniqueItems": True}}}},
    "or_allof_schema": {"tools": [_OBJ_STRICT], "response_format": {
        "type": "json_schema", "json_schema": {"name": "a", "schema": {
            "allOf": [{"type": "string"}, {"enum": ["a"]}]}}}},
    "or_empty_choice": {"tools": [_OBJ_STRICT], "structured_outputs": {"choice": []}},
    "or_ebnf_grammar": {"tools": [_OBJ_STRICT], "structured_outputs": {
        "grammar": 'root ::= "yes" | "no"'}},
    "or_bad_ebnf": {"tools": [_OBJ_STRICT], "structured_outputs": {"grammar": "root ::= ("}},
    "or_bad_lark": {"tools": [_OBJ_STRICT], "structured_outputs": {"grammar": "start: ("}},
}
VALIDATION.update({
    "so_tag_dict": {"structured_outputs": {"structural_tag": {
        "type": "structural_tag", "format": {"type": "const_string", "value": "ok"}}}},
    "rf_tag_no_format": {"response_format": {"type": "structural_tag"}},
    "rf_tag_legacy_and_format": {"response_format": {
        "type": "structural_tag", "structures": [{"begin": "<a>", "schema": {"type": "foo"},
                                                  "end": "</a>"}],
        "triggers": ["<a>"], "format": {"type": "const_string", "value": "ok"}}},
    "rf_tag_token_string": {"response_format": {"type": "structural_tag", "format": {
        "type": "token", "token": "<|im_end|>"}}},
    "rf_tag_token_id": {"response_format": {"type": "structural_tag", "format": {
        "type": "token", "token": 151645}}},
    "rf_tag_ebnf_ok": {"response_format": {"type": "structural_tag", "format": {
        "type": "grammar", "grammar": 'root ::= "a" | "b"'}}},
    "rf_tag_unclosed_any_text": {"response_format": {"type": "structural_tag", "format": {
        "type": "tag", "begin": "<a>", "content": {"type": "any_text"}, "end": ""}}},
    "rf_tag_trigger_mismatch": {"response_format": {"type": "structural_tag", "format": {
        "type": "triggered_tags", "triggers": ["<b"], "tags": [{
            "type": "tag", "begin": "<a>", "content": {"type": "const_string", "value": "x"},
            "end": "</a>"}]}}},
    "rf_tag_repeat_bad": {"response_format": {"type": "structural_tag", "format": {
        "type": "repeat", "min": 3, "max": 1, "content": {"type": "const_string", "value": "x"}}}},
    "rf_tag_schema_ref_missing": {"response_format": {"type": "structural_tag", "format": {
        "type": "json_schema", "json_schema": {"$ref": "#/$defs/x"}}}},
    "rf_tag_schema_range": {"response_format": {"type": "structural_tag", "format": {
        "type": "json_schema", "json_schema": {"type": "integer", "minimum": 5, "maximum": 1}}}},
    "rf_tag_regex_lookahead": {"response_format": {"type": "structural_tag", "format": {
        "type": "regex", "pattern": "(?=a)b"}}},
    "rf_tag_regex_ok": {"response_format": {"type": "structural_tag", "format": {
        "type": "regex", "pattern": "\\d{3}-[a-z]+(?:x|y)?"}}},
})

def _tag_schema(schema: Any) -> dict[str, Any]:
    return {"response_format": {"type": "structural_tag", "format": {
        "type": "json_schema", "json_schema": schema}}}


_STR = {"type": "string"}
#: a structural tag's JSON schema around ``allOf`` (xgrammar parses every branch of a
#: multi-branch allOf but generates none), and the converter's other rules it hides
VALIDATION.update({
    "rf_tag_allof_bad_branch": _tag_schema({"allOf": [{"type": "foo"}, _STR]}),
    "rf_tag_allof_bad_pattern": _tag_schema({"allOf": [{"type": "string", "pattern": "(a"},
                                                       {}]}),
    "rf_tag_allof_one_bad_pattern": _tag_schema({"allOf": [{"type": "string",
                                                            "pattern": "(a"}]}),
    "rf_tag_allof_three": _tag_schema({"allOf": [_STR, {"type": "integer"}, {
        "type": "object", "minProperties": 2, "properties": {"a": {}}}]}),
    "rf_tag_allof_conflicting_types": _tag_schema({"allOf": [_STR, {"type": "integer"}]}),
    "rf_tag_allof_nested": _tag_schema({"allOf": [{"allOf": [_STR, {"enum": []}]}, {}]}),
    "rf_tag_allof_missing_ref": _tag_schema({"allOf": [{"$ref": "#/$defs/x"}, _STR]}),
    "rf_tag_allof_ref_target_bad": _tag_schema({
        "$ref": "#/$defs/a", "$defs": {"a": {"allOf": [{"type": "foo"}, {}]}}}),
    "rf_tag_allof_float_count": _tag_schema({"allOf": [
        {"type": "array", "items": {}, "minItems": 1.0}, {}]}),
    "rf_tag_allof_in_property": _tag_schema({"type": "object", "properties": {"a": {
        "allOf": [_STR, {"maxLength": 2}]}}, "required": ["a"]}),
    "rf_tag_strict_array": _tag_schema({"type": "array", "minItems": 1}),
    "rf_tag_ref_beside_type": _tag_schema({"$ref": "#/$defs/x", "type": "foo",
                                           "$defs": {"x": {}}}),
    "rf_tag_range_untyped": _tag_schema({"minimum": 5, "maximum": 1}),
    "rf_tag_pattern_lookahead": _tag_schema({"type": "string", "pattern": "(?=a)b"}),
    "so_tag_allof_bad_branch": {"structured_outputs": {"structural_tag": json.dumps(
        {"type": "structural_tag", "format": {"type": "json_schema", "json_schema": {
            "allOf": [{"type": "foo"}, _STR]}}})}},
    "or_allof_tag": {"tools": [_OBJ_STRICT], **_tag_schema({"allOf": [_STR, {}]})},
})
#: Lark grammars: vLLM converts them to EBNF (xgrammar's from_lark) for the or-format and
#: gpt-oss's final channel, and refuses one that does not convert there
_LARK_RULES = 'start: greeting " " name+\ngreeting: "hi" | "Hello"i\nname: "a".."z"'
_LARK_IGNORE = 'start: WORD ("," WORD)*\nWORD: "x" | "y"\n%ignore " "'
VALIDATION.update({
    "or_lark_grammar": {"tools": [_OBJ_STRICT], "structured_outputs": {
        "grammar": 'start: "yes" | "no"'}},
    "or_lark_rules": {"tools": [_OBJ_STRICT], "structured_outputs": {"grammar": _LARK_RULES}},
    "or_lark_ignore": {"tools": [_OBJ_STRICT], "structured_outputs": {"grammar": _LARK_IGNORE}},
    "or_lark_unknown_name": {"tools": [_OBJ_STRICT], "structured_outputs": {
        "grammar": "start: a"}},
    "or_lark_regex": {"tools": [_OBJ_STRICT], "structured_outputs": {
        "grammar": "start: /[0-9]+/"}},
    "so_lark_grammar": {"structured_outputs": {"grammar": 'start: "yes" | "no"'}},
    "so_lark_rules": {"structured_outputs": {"grammar": _LARK_RULES}},
    "so_lark_unknown_name": {"structured_outputs": {"grammar": "start: a"}},
    "rf_tag_lark_grammar": {"response_format": {"type": "structural_tag", "format": {
        "type": "grammar", "grammar": 'start: "a"'}}},
})

_R_STRICT = {"type": "function", "name": "w", "description": "the w tool", "strict": True,
             "parameters": {"type": "object", "properties": {"c": {"type": "string"}}}}


def _text(schema: Any) -> dict[str, Any]:
    return {"text": {"format": {"type": "json_schema", "name": "a", "schema": schema}}}


#: the same checks through ``/v1/responses/render``: ``text.format``, tools with tool_choice
#: required / named, structured_outputs (vLLM's extension there)
RESPONSES_VALIDATION: dict[str, dict[str, Any]] = {
    "text_schema_bad_type": _text({"type": "foo"}),
    "text_schema_deep": _text(_deep_schema(70)),
    "text_schema_allof": _text({"allOf": [_STR, {"type": "foo"}]}),
    "text_schema_unsupported": _text({"type": "array", "uniqueItems": True}),
    "text_json_object": {"text": {"format": {"type": "json_object"}}},
    "text_and_structured": {**_text(SCHEMA), "structured_outputs": {"regex": "a"}},
    "or_text_schema": {"tools": [_R_STRICT], **_text(SCHEMA)},
    "or_text_schema_bad_type": {"tools": [_R_STRICT], **_text({"type": "foo"})},
    "or_text_schema_deep": {"tools": [_R_STRICT], **_text(_deep_schema(70))},
    "or_text_schema_allof": {"tools": [_R_STRICT], **_text({"allOf": [_STR, {}]})},
    "or_text_schema_unsupported": {"tools": [_R_STRICT], **_text({
        "type": "string", "format": "bogus"})},
    "or_text_json_object": {"tools": [_R_STRICT], "text": {"format": {"type": "json_object"}}},
    "or_so_bad_regex": {"tools": [_R_STRICT], "structured_outputs": {"regex": "(a"}},
    "or_so_lark": {"tools": [_R_STRICT], "structured_outputs": {"grammar": 'start: "a" | "b"'}},
    "or_so_tag": {"tools": [_R_STRICT], "structured_outputs": {"structural_tag": json.dumps(
        {"type": "structural_tag", "format": {"type": "const_string", "value": "ok"}})}},
    "so_tag_bad": {"structured_outputs": {"structural_tag": json.dumps(
        {"type": "structural_tag", "format": {"type": "json_schema", "json_schema": {
            "allOf": [{"type": "foo"}, _STR]}}})}},
    "so_tag_deep": {"structured_outputs": {"structural_tag": json.dumps(_deep_tag(90))}},
    "required_text_schema": {"tools": [_R_STRICT], "tool_choice": "required",
                             **_text(SCHEMA)},
    "required_deep_tool": {"tools": [{**_R_STRICT, "strict": False,
                                      "parameters": _deep_schema(70)}],
                           "tool_choice": "required"},
    "required_deep_strict_tool": {"tools": [{**_R_STRICT, "parameters": _deep_schema(70)}],
                                  "tool_choice": "required"},
    "required_bad_strict_tool": {"tools": [{**_R_STRICT, "parameters": {"type": "foo"}}],
                                 "tool_choice": "required"},
    "required_allof_strict_tool": {"tools": [{**_R_STRICT, "parameters": {
        "allOf": [{"type": "foo"}, {"type": "object"}]}}], "tool_choice": "required"},
    "named": {"tools": [_R_STRICT], "tool_choice": {"type": "function", "name": "w"}},
    "named_missing": {"tools": [_R_STRICT], "tool_choice": {"type": "function", "name": "x"}},
    "named_text_schema": {"tools": [_R_STRICT], "tool_choice": {"type": "function", "name": "w"},
                          **_text(SCHEMA)},
    "named_so_regex": {"tools": [_R_STRICT], "tool_choice": {"type": "function", "name": "w"},
                       "structured_outputs": {"regex": "a"}},
    "named_single": {"tools": [_R_STRICT], "tool_choice": {"type": "function", "name": "w"},
                     "parallel_tool_calls": False},
    "required_none_tools": {"tool_choice": "required"},
}
