"""Record vLLM 0.33.0's structural tags for every tool-call format tito has, as goldens.

Why: vLLM 0.33 constrains ``tool_choice`` required / named (and ``auto`` with a strict tool,
``parallel_tool_calls: false`` or a ``response_format``) with a structural tag in the tool
parser's own format. The only trustworthy reference is the real render server: this script
starts ``vllm launch render`` once per ``--tool-call-parser`` on qwen3's tokenizer with every
format's markers added (:mod:`conformance.markers`: the ids are not the models') without a
reasoning parser (the tag depends on neither; ``openai`` runs on the
gpt-oss tokenizer with its reasoning parser), sends the corpus below to the chat and Responses
render routes and what each constrained model would write to chat derender, and writes
``conformance/goldens/structural/<parser>.json``. Also per parser: the streaming derender of
what the constrained model writes (``stream_*``: required, named, strict auto; one id per call
and seeded random chunks, vLLM driven as its protocol requires, its returned states echoed but
not stored), vLLM's render-time checks of constraints (``validation_*``, answers cut to what
is compared) and, on one more server per ``--tool-strict-level``, the render corpus again
(``level_<level>.*``). ``tests/test_structural_tags.py`` replays the stored requests against
tito and compares.

Re-record (a Python with vllm==0.33.0, e.g. the venv at /work/vllm-venv; servers run in
parallel, one per port; about 45 minutes on a loaded 2-core box)::

    /work/vllm-venv/bin/python conformance/record_structural.py [PARSER ...] [--ports 8821,8822]
"""

from __future__ import annotations

import argparse
import json
import queue
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import markers, record  # noqa: E402

GOLDENS = HERE / "goldens" / "structural"

#: vLLM's --tool-call-parser names of tito's formats (the registry of tito.core.parsers.tools)
PARSERS = ["hermes", "llama3_json", "llama4_json", "kimi_k2", "deepseek_v3", "deepseek_v31",
           "deepseek_v32", "qwen3_coder", "qwen3_xml", "glm45", "glm47", "minimax_m2",
           "mistral", "pythonic", "llama4_pythonic", "granite", "granite-20b-fc",
           "hunyuan_a13b", "seed_oss", "openai"]


def _fn(name: str, params: Any = None, strict: bool | None = None) -> dict[str, Any]:
    f: dict[str, Any] = {"name": name, "description": f"the {name} tool"}
    if params is not None:
        f["parameters"] = params
    if strict is not None:
        f["strict"] = strict
    return {"type": "function", "function": f}


_CITY = {"type": "object", "properties": {"city": {"type": "string"},
                                          "unit": {"type": "string", "enum": ["c", "f"]}},
         "required": ["city"]}
_TZ = {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]}
_TYPED = {"type": "object", "properties": {
    "n": {"type": "integer"}, "ok": {"type": "boolean"}, "tags": {"type": "array",
                                                                  "items": {"type": "string"}},
    "maybe": {"type": ["string", "null"]}, "level": {"enum": [1, 2.5, "x"]},
    "any": {}}, "required": ["n"]}
_NESTED = {"type": "object", "properties": {"q": {"type": "string"}},
           "anyOf": [{"required": ["q"]}]}

W, WS = _fn("get_weather", _CITY), _fn("get_weather", _CITY, True)
T, TS = _fn("get_time", _TZ), _fn("get_time", _TZ, True)
N, NS = _fn("ping", {"type": "object", "properties": {}}), _fn("ping", None, True)
G, GS = _fn("typed", _TYPED), _fn("typed_strict", _TYPED, True)
X = _fn("nested", _NESTED)
WF = _fn("get_weather", _CITY, False)

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}},
          "required": ["answer"]}
RF_SCHEMA = {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
MSGS = [{"role": "user", "content": "What is the weather in Paris?"}]


def _named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


def _chat(tools: list[dict[str, Any]], choice: Any = "absent", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "qwen3", "messages": MSGS, "tools": tools, **extra}
    if choice != "absent":
        body["tool_choice"] = choice
    return body


CHAT: dict[str, dict[str, Any]] = {
    "required_two": _chat([W, T], "required"),
    "required_strict_mixed": _chat([WS, T], "required"),
    "required_all_strict": _chat([WS, TS], "required"),
    "required_strict_false": _chat([WF, T], "required"),
    "required_single": _chat([W, T], "required", parallel_tool_calls=False),
    "required_noparams": _chat([N, W], "required"),
    "required_typed": _chat([G, GS, X], "required"),
    "required_json_schema": _chat([W], "required", response_format=RF_SCHEMA),
    "named": _chat([W, T], _named("get_time")),
    "named_strict": _chat([WS, T], _named("get_weather")),
    "named_single": _chat([W, T], _named("get_weather"), parallel_tool_calls=False),
    "named_noparams_strict": _chat([NS, W], _named("ping")),
    "named_typed": _chat([G, W], _named("typed")),
    "auto_plain": _chat([W, T], "auto"),
    "auto_strict": _chat([WS, T], "auto"),
    "auto_all_strict": _chat([WS, TS], "auto"),
    "auto_typed_strict": _chat([G, GS], "auto"),
    "auto_single": _chat([W, T], "auto", parallel_tool_calls=False),
    "auto_strict_single": _chat([WS, T], "auto", parallel_tool_calls=False),
    "omitted_choice_strict": _chat([WS, T]),
    "none_strict": _chat([WS], "none"),
    "auto_strict_json_schema": _chat([WS, T], "auto", response_format=RF_SCHEMA),
    "auto_strict_json_object": _chat([WS], "auto", response_format={"type": "json_object"}),
    "auto_plain_json_schema": _chat([W], "auto", response_format=RF_SCHEMA),
    "auto_single_json_schema": _chat([W], "auto", parallel_tool_calls=False,
                                     response_format=RF_SCHEMA),
    "auto_strict_single_json_schema": _chat([WS, T], "auto", parallel_tool_calls=False,
                                            response_format=RF_SCHEMA),
    "auto_strict_regex": _chat([WS], "auto", structured_outputs={"regex": "[a-z]+"}),
    "auto_strict_choice": _chat([WS], "auto", structured_outputs={"choice": ["yes", "no"]}),
    "auto_strict_structural_tag": _chat([WS], "auto", response_format={
        "type": "structural_tag", "format": {"type": "const_string", "value": "ok"}}),
    "auto_strict_legacy_structural_tag": _chat([WS], "auto", response_format={
        "type": "structural_tag", "structures": [
            {"begin": "<a>", "schema": SCHEMA, "end": "</a>"}], "triggers": ["<a>"]}),
}

_R_WEATHER = {"type": "function", "name": "get_weather", "description": "the weather",
              "parameters": _CITY}
_R_TIME = {"type": "function", "name": "get_time", "description": "the time",
           "parameters": _TZ, "strict": True}
_R_INPUT = "What is the weather in Paris?"
RESPONSES: dict[str, dict[str, Any]] = {
    "responses_required": {"model": "qwen3", "input": _R_INPUT, "tools": [_R_WEATHER, _R_TIME],
                           "tool_choice": "required"},
    "responses_named": {"model": "qwen3", "input": _R_INPUT, "tools": [_R_WEATHER, _R_TIME],
                        "tool_choice": {"type": "function", "name": "get_weather"}},
    "responses_auto_strict": {"model": "qwen3", "input": _R_INPUT,
                              "tools": [_R_WEATHER, _R_TIME]},
    "responses_auto_strict_json_schema": {
        "model": "qwen3", "input": _R_INPUT, "tools": [_R_WEATHER, _R_TIME],
        "text": {"format": {"type": "json_schema", "name": "a", "schema": SCHEMA}}},
    "responses_required_single": {"model": "qwen3", "input": _R_INPUT,
                                  "tools": [_R_WEATHER, _R_TIME], "tool_choice": "required",
                                  "parallel_tool_calls": False},
}

#: what a model constrained by each format's tag writes (one call of get_weather), and for the
#: formats without a tag what vLLM's JSON-schema fallback makes it write
_JSON_LIST = '[{"name": "get_weather", "parameters": {"city": "Paris"}}]'
OUTPUTS: dict[str, str] = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "llama3_json": '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
               '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
               "<|tool_calls_section_end|>",
    "deepseek_v3": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather"
                   '\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v31": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
                    '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v32": '\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
                    '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
                    "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "qwen3_coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>"
                   "\n</function>\n</tool_call>",
    "glm45": "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
             "</tool_call>",
    "minimax_m2": '\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">'
                  "Paris</parameter>\n</invoke>\n</minimax:tool_call>",
    "openai": "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
              '{"city": "Paris"}<|call|>',
    "mistral": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
}
OUTPUTS.update({"llama4_json": OUTPUTS["llama3_json"], "qwen3_xml": OUTPUTS["qwen3_coder"],
                "glm47": OUTPUTS["glm45"]})
#: derender cases: (chat request of CHAT, output kind): "tagged" = OUTPUTS[parser] (the JSON
#: list for the formats without a tag), "args" = the named function's bare arguments
DERENDER = {"derender_required": ("required_two", "tagged"),
            "derender_named": ("named_strict", "tagged"),
            "derender_named_args": ("named_strict", "args"),
            "derender_required_json_list": ("required_two", "json_list")}

#: what the formats without a tag write for ``auto`` (their own syntax; vLLM sends no tag there)
NATIVE: dict[str, str] = {
    "pythonic": '[get_weather(city="Paris")]',
    "llama4_pythonic": '[get_weather(city="Paris")]',
    "granite": '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "granite-20b-fc": '<function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}',
    "hunyuan_a13b": '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
                    "</tool_calls>",
    "seed_oss": "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>"
                "\n</function>\n</seed:tool_call>",
    "mistral": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
}
_MISTRAL_LIST = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
#: streaming derender cases: (chat request of CHAT, call mode); each is sent one id per call
#: and in seeded random chunks (``corpus.chunkings``), vLLM driven as its protocol requires
STREAMS = {"stream_required": ("required_two", "required"),
           "stream_named": ("named_strict", "named"),
           "stream_auto_strict": ("auto_strict", "auto")}


def constrained_text(parser: str, mode: str) -> str:
    """What a model constrained as vLLM 0.33 renders ``mode`` writes (one get_weather call):
    the format's own calls where it has a tag; else what vLLM's fallback schema forces
    (required: the JSON list, named: the bare arguments; mistral: its list) and, for auto,
    the format's own syntax."""
    if parser in OUTPUTS and parser != "mistral":
        return OUTPUTS[parser]
    if mode == "auto":
        return NATIVE[parser]
    if parser == "mistral":
        return _MISTRAL_LIST
    return _JSON_LIST if mode == "required" else '{"city": "Paris"}'


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


_OBJ_STRICT = _fn("w", {"type": "object", "properties": {"c": {"type": "string"}}}, True)
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
                           "tools": [_OBJ_STRICT], "tool_choice": _named("w")},
    "so_regex_with_required": {"structured_outputs": {"regex": "a"}, "tools": [_OBJ_STRICT],
                               "tool_choice": "required"},
    "so_grammar_with_named": {"structured_outputs": {"grammar": "root ::= \"a\""},
                              "tools": [_OBJ_STRICT], "tool_choice": _named("w")},
    "tools_deep_required": {"tools": [_fn("w", _deep_schema(70))], "tool_choice": "required"},
    "tools_deep_strict": {"tools": [_fn("w", _deep_schema(70), True)]},
    "tools_bad_schema_strict": {"tools": [_fn("w", {"type": "foo"}, True)],
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

#: ``--tool-strict-level`` values recorded (a server each); ``auto`` only where the parser's
#: own default differs (GLM's is ``function``)
LEVELS = ["function", "parameter"]
LEVEL_AUTO = {"glm45", "glm47"}


def _encode(text: str, parser: str, folder: Path) -> list[int]:
    from tokenizers import Tokenizer

    path = record.corpus.MODELS / "gpt-oss" if parser == "openai" else folder
    return list(Tokenizer.from_file(str(path / "tokenizer.json")).encode(
        text, add_special_tokens=False).ids)


#: the gpt-oss model folder's config (gpt-oss-20b's sizes; no weights)
GPT_OSS_CONFIG = {
    "architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "vocab_size": 201088,
    "hidden_size": 2880, "num_hidden_layers": 24, "num_attention_heads": 64,
    "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880,
    "num_local_experts": 32, "num_experts_per_tok": 4, "max_position_embeddings": 131072,
    "sliding_window": 128, "rope_theta": 150000, "torch_dtype": "bfloat16",
    "eos_token_id": 200002, "pad_token_id": 199999,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                     "truncate": False, "original_max_position_embeddings": 4096},
}


def _folder(parser: str, tmp: Path) -> tuple[Path, list[str]]:
    """The model folder and server flags for ``parser``."""
    if parser == "openai":
        folder = tmp / "gpt-oss"
        if not folder.exists():
            folder.mkdir()
            for f in (record.corpus.MODELS / "gpt-oss").glob("tokenizer*.json"):
                shutil.copy(f, folder)
            (folder / "config.json").write_text(json.dumps(GPT_OSS_CONFIG))
            (folder / "generation_config.json").write_text(json.dumps(
                {"eos_token_id": [200002, 199999, 200012], "pad_token_id": 199999}))
        return folder, ["--served-model-name", "gpt-oss", "--reasoning-parser", "openai_gptoss",
                        "--tool-call-parser", "openai", "--enable-auto-tool-choice"]
    folder = tmp / "qwen3"
    if not folder.exists():
        markers.marker_folder(folder)
        for f in (HERE / "models" / "qwen3").glob("*.json"):
            shutil.copy(f, folder)
    # no reasoning parser: the tag never depends on it (vLLM builds it with reasoning off), and
    # derender then shows the tool parser alone
    return folder, ["--served-model-name", "qwen3", "--tool-call-parser", parser,
                    "--enable-auto-tool-choice"]


def _start(parser: str, vllm: str, tmp: Path, port: int,
           level: str | None = None) -> tuple[Any, str]:
    import os
    import subprocess

    folder, flags = _folder(parser, tmp)
    if level is not None:
        flags = [*flags, "--tool-strict-level", level]
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1",
               VLLM_SYSTEM_START_DATE=record.HARMONY_DATE)
    if parser == "openai":  # openai-harmony's vocabulary, offline (main() rebuilt it)
        env["TIKTOKEN_ENCODINGS_BASE"] = str(tmp / "tiktoken")
    log = open(tmp / f"{parser}-{level}.log", "wb")  # noqa: SIM115 (lives as long as the server)
    proc = subprocess.Popen([vllm, "launch", "render", str(folder), *flags, "--host",
                             "127.0.0.1", "--port", str(port)],
                            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    return proc, f"http://127.0.0.1:{port}"


def _render_cases(url: str, model: str, prefix: str = "",
                  level: str | None = None) -> dict[str, Any]:
    cases: dict[str, Any] = {}
    for path, corpus in (("/v1/chat/completions/render", CHAT),
                         ("/v1/responses/render", RESPONSES)):
        for name, body in corpus.items():
            body = {**body, "model": model}
            status, resp = record.post(url, path, body)
            cases[prefix + name] = {"path": path, "request": body, "status": status,
                                    "response": resp if level is None else slim(resp)}
            if level is not None:
                cases[prefix + name]["tool_strict_level"] = level
    return cases


def slim(resp: Any) -> Any:
    """A render answer cut to what its test compares (the constraint and the special-tokens
    flag; the prompt ids are compared in the default cases), for the level and validation
    cases: an error is kept whole."""
    if not isinstance(resp, dict) or "sampling_params" not in resp:
        return resp
    sp = resp["sampling_params"]
    return {"sampling_params": {k: sp[k] for k in ("structured_outputs", "skip_special_tokens")
                                if k in sp}}


def _stream(url: str, path: str, model: str, request: dict[str, Any], prompt: list[int],
            events: list[dict[str, Any]]) -> dict[str, Any]:
    """vLLM's streaming derender driven as its protocol requires: one call per engine event,
    the returned state echoed, ``chat_request`` and ``prompt_token_ids`` on every call."""
    calls, state = [], None
    for event in events:
        body = {"stream": True, "model": model, "generate_chunk": event, "stream_state": state,
                "prompt_token_ids": prompt, "prompt_tokens": len(prompt),
                "chat_request": request}
        status, resp = record.post(url, path, body)
        if status != 200:
            calls.append({"status": status, "response": resp})
            break
        state = resp["stream_state"]  # echoed, not stored: the comparison folds the chunks
        calls.append({"status": status, "response": {"chunk": resp["chunk"]}})
    return {"path": path, "server": model, "settings_key": "chat_request", "settings": request,
            "prompt_token_ids": prompt, "chunks": events, "calls": calls}


def record_parser(parser: str, url: str, folder: Path) -> dict[str, Any]:
    model = "gpt-oss" if parser == "openai" else "qwen3"
    cases = _render_cases(url, model)
    eos = [] if parser == "openai" else [record.corpus.IM_END]  # harmony's ends in <|call|>
    for name, (chat_case, kind) in DERENDER.items():
        request = {**CHAT[chat_case], "model": model}
        rendered = cases[chat_case]["response"]
        text = {"args": '{"city": "Paris"}', "json_list": _JSON_LIST}.get(
            kind, OUTPUTS.get(parser, _JSON_LIST))
        prompt = rendered["token_ids"]
        body = {"model": model, "chat_request": request, "prompt_token_ids": prompt,
                "prompt_tokens": len(prompt), "generate_response": {
                    "request_id": f"chatcmpl-{name}", "choices": [{
                        "index": 0, "token_ids": _encode(text, parser, folder) + eos,
                        "finish_reason": "stop", "stop_reason": None}]}}
        status, resp = record.post(url, "/v1/chat/completions/derender", body)
        cases[name] = {"path": "/v1/chat/completions/derender", "request": body,
                       "status": status, "response": resp}
    for name, (chat_case, mode) in STREAMS.items():
        request = {**CHAT[chat_case], "model": model}
        prompt = cases[chat_case]["response"]["token_ids"]
        ids = _encode(constrained_text(parser, mode), parser, folder) + eos
        choice = {"index": 0, "token_ids": ids, "finish_reason": "stop"}
        for label, sizes in zip(("one", "random"),
                                record.corpus.chunkings(len(ids), seed=len(name + parser))):
            events = record.split_choice(choice, sizes, f"chatcmpl-{name}", {})
            cases[f"{name}.{label}"] = _stream(url, "/v1/chat/completions/derender", model,
                                               request, prompt, events)
    cases.update(record_validation(url, model))
    with urllib.request.urlopen(url + "/version") as r:
        version = json.loads(r.read())
    return {"vllm": version, "tool_call_parser": parser, "cases": cases}


def record_validation(url: str, model: str) -> dict[str, Any]:
    """vLLM's render-time checks of constraints: ``validation_*`` (chat), ``validation_
    completion_*`` (those without tools) and ``validation_responses_*``."""
    cases: dict[str, Any] = {}
    for name, extra in VALIDATION.items():
        body = {"model": model, "messages": MSGS, **extra}
        status, resp = record.post(url, "/v1/chat/completions/render", body)
        cases[f"validation_{name}"] = {"path": "/v1/chat/completions/render", "request": body,
                                       "status": status, "response": slim(resp)}
    for name, extra in VALIDATION.items():  # the same checks on completions render
        if "tools" not in extra:
            body = {"model": model, "prompt": "hi", **extra}
            status, resp = record.post(url, "/v1/completions/render", body)
            cases[f"validation_completion_{name}"] = {
                "path": "/v1/completions/render", "request": body, "status": status,
                "response": [slim(r) for r in resp] if isinstance(resp, list) else resp}
    for name, extra in RESPONSES_VALIDATION.items():
        body = {"model": model, "input": _R_INPUT, **extra}
        status, resp = record.post(url, "/v1/responses/render", body)
        cases[f"validation_responses_{name}"] = {"path": "/v1/responses/render",
                                                 "request": body, "status": status,
                                                 "response": slim(resp)}
    return cases


def _levels(parser: str) -> list[str]:
    """The ``--tool-strict-level`` values recorded for ``parser``: they change only formats
    with a tag (the others are checked once, with ``pythonic``)."""
    if parser not in OUTPUTS or parser == "mistral":
        return LEVELS if parser == "pythonic" else []
    return ["auto", *LEVELS] if parser in LEVEL_AUTO else LEVELS


def _record_one(parser: str, vllm: str, tmp: Path, ports: Any,
                validation_only: bool = False) -> str:
    """Every recording of ``parser``: the default server, then one per strict level (with
    ``validation_only``: the default server's ``validation_*`` cases, merged into the golden)."""
    runs: list[str | None] = [None] if validation_only else [None, *_levels(parser)]
    path = GOLDENS / f"{parser}.json"
    data: dict[str, Any] = json.loads(path.read_text()) if validation_only else {}
    port = ports.get()
    for level in runs:
        proc, url = _start(parser, vllm, tmp, port, level)
        try:
            record.wait_ready(url, proc)
            if validation_only:
                data["cases"] = {k: v for k, v in data["cases"].items()
                                 if not k.startswith("validation_")}
                data["cases"].update(record_validation(
                    url, "gpt-oss" if parser == "openai" else "qwen3"))
            elif level is None:
                data = record_parser(parser, url, tmp / "qwen3")
            else:
                data["cases"].update(_render_cases(
                    url, "gpt-oss" if parser == "openai" else "qwen3", f"level_{level}.",
                    level))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    ports.put(port)
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n")
    return f"{path.relative_to(HERE.parent)}: {len(data['cases'])} cases"


def main() -> None:
    from concurrent.futures import ThreadPoolExecutor

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parsers", nargs="*", default=PARSERS)
    ap.add_argument("--vllm", default=str(Path(sys.executable).with_name("vllm")))
    ap.add_argument("--ports", default="8821,8822,8823",
                    help="ports for the servers, one parser at a time on each (in parallel)")
    ap.add_argument("--validation-only", action="store_true",
                    help="re-record only the validation_* cases, into the existing goldens")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tito-structural-"))
    GOLDENS.mkdir(parents=True, exist_ok=True)
    _folder("openai", tmp)
    _folder("hermes", tmp)  # the model folders once, before the servers share them
    if "openai" in args.parsers:  # openai-harmony's vocabulary, offline, from tokenizer.json
        sys.path.insert(0, str(HERE.parent / "tests"))
        from harmony_ref import build_o200k

        build_o200k(tmp / "tiktoken")
    ports: queue.Queue[int] = queue.Queue()
    for port in args.ports.split(","):
        ports.put(int(port))
    try:
        with ThreadPoolExecutor(ports.qsize()) as pool:
            jobs = [pool.submit(_record_one, parser, args.vllm, tmp, ports,
                                args.validation_only) for parser in args.parsers]
            for job in jobs:
                print(job.result(), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
