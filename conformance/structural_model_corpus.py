"""A request's own structural tag on gpt-oss as xgrammar's models read it: the
``render_structural_model`` group.

Why: vLLM 0.33's harmony parser reads a gpt-oss request's structural tag into xgrammar's
``StructuralTag`` models (``structured_outputs_to_format``) before it wraps the ``format`` into
the final channel: a tag they refuse is its 400 (``BadRequestError``, no param). A Responses
body has no other check of the tag (its ``structural_tag`` must be JSON text: an object is the
schema's 400), so ``{"format": 5}`` or a format of an unknown type there was tito's render; a
format without a ``type`` crashed tito (chat too). A tag the models take but xgrammar could not
compile (a regex that does not parse, an empty sequence) renders there, as vLLM's. qwen3's
Responses render reads no tag at all (its 200s). The ``*_coerce_*`` cases: a field the models
coerce (``max_tokens: true``, ``min: "1"``, ``loop: "on"``, a token ``2.0``, a tag or token
format without its ``type``) is re-sent as the models dump it (1, true, 2, the ``type`` written),
where tito re-sent it as sent; on chat only what xgrammar's compiler takes too (a whole float
budget or token id, an untyped token ``begin``), also in qwen3's or-format beside tools.
"""

from __future__ import annotations

import json
from typing import Any

CHAT_R, RESP_R = "/v1/chat/completions/render", "/v1/responses/render"
_CONST = {"type": "const_string", "value": "x"}
_TYPELESS = {"begin": "a", "content": _CONST, "end": "b"}


def _fmt(fmt: Any) -> str:
    return json.dumps({"type": "structural_tag", "format": fmt})


def _resp(server: str, tag: Any) -> tuple[str, str, dict[str, Any]]:
    return server, RESP_R, {"model": server, "input": "hi",
                            "structured_outputs": {"structural_tag": tag}}


def _chat(server: str, tag: Any) -> tuple[str, str, dict[str, Any]]:
    return server, CHAT_R, {"model": server, "messages": [{"role": "user", "content": "hi"}],
                            "structured_outputs": {"structural_tag": tag}}


_ANY = {"type": "any_text"}
_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _chat_tools(server: str, tag: Any) -> tuple[str, str, dict[str, Any]]:
    _, path, body = _chat(server, tag)
    return server, path, {**body, "tools": _TOOLS}


def _chat_strict(server: str, tag: Any) -> tuple[str, str, dict[str, Any]]:
    _, path, body = _chat(server, tag)
    return server, path, {**body, "tools": [{"type": "function", "function": {
        "name": "f", "strict": True, "parameters": {"type": "object"}}}]}


def _resp_tools(server: str, tag: Any) -> tuple[str, str, dict[str, Any]]:
    _, path, body = _resp(server, tag)
    return server, path, {**body, "tools": [{"type": "function", "name": "f", "strict": True,
                                             "parameters": {"type": "object"}}]}


#: fields xgrammar's models coerce (pydantic's lax mode): vLLM re-sends the coerced value
_COERCE: dict[str, tuple[str, str, dict[str, Any]]] = {
    "gptoss_coerce_max_tokens_true": _resp("gpt-oss", _fmt({"type": "any_text",
                                                            "max_tokens": True})),
    "gptoss_coerce_budget_strings": _resp("gpt-oss", _fmt({"type": "any_text", "max_tokens": " 4 ",
                                                           "max_chars": "1.0"})),
    "gptoss_coerce_json_schema_fields": _resp("gpt-oss", _fmt({
        "type": "json_schema", "json_schema": 1, "any_order": "on", "max_whitespace_cnt": "3"})),
    "gptoss_coerce_repeat_bounds": _resp("gpt-oss", _fmt({"type": "repeat", "min": "1",
                                                          "max": True, "content": _ANY})),
    "gptoss_coerce_untyped_token_begin": _resp("gpt-oss", _fmt({
        "type": "tag", "begin": {"token": 2.0}, "content": _CONST, "end": {"token": "x"}})),
    "gptoss_coerce_triggered_flags": _resp("gpt-oss", _fmt({
        "type": "triggered_tags", "triggers": ["<a"],
        "tags": [{"begin": "<a>", "content": _ANY, "end": "</a>"}], "at_least_one": "yes",
        "stop_after_first": 0})),
    "gptoss_coerce_token_dispatch": _resp("gpt-oss", _fmt({
        "type": "token_dispatch", "rules": [[True, _ANY], ["5", _ANY], [2.0, _ANY]],
        "loop": 1.0})),
    "gptoss_coerce_exclude_tokens": _resp("gpt-oss", _fmt({"type": "exclude_token",
                                                           "exclude_tokens": [True, 1.0, "2"]})),
    "gptoss_coerce_token_triggered": _resp("gpt-oss", _fmt({
        "type": "token_triggered_tags", "trigger_tokens": [2.0],
        "tags": [{"begin": {"token": 2}, "content": _CONST, "end": "x"}],
        "exclude_tokens": [False], "at_least_one": "t"})),
    "gptoss_coerce_dispatch_loop": _resp("gpt-oss", _fmt({"type": "dispatch",
                                                          "rules": [["a", _ANY]], "loop": "off"})),
    "gptoss_coerce_nested": _resp("gpt-oss", _fmt({"type": "sequence", "elements": [
        {"type": "optional", "content": {"type": "any_text", "max_tokens": "+3"}},
        {"begin": "<b>", "content": {"type": "any_tokens", "max_tokens": False},
         "end": "</b>"}]})),
    "gptoss_coerce_chat_whole_floats": _chat("gpt-oss", _fmt({
        "type": "tag", "begin": {"token": 2.0}, "content": {"type": "any_text", "max_tokens": 2.0},
        "end": "b"})),
    "gptoss_coerce_chat_token": _chat("gpt-oss", _fmt({"type": "token", "token": 7.0})),
    "qwen3_coerce_chat_tools_or_format": _chat_tools("qwen3", _fmt({
        "type": "tag", "begin": {"token": 2}, "content": {"type": "any_text", "max_chars": 3.0},
        "end": "b"})),
    "qwen3_coerce_chat_tools_token": _chat_tools("qwen3", _fmt({"type": "exclude_token",
                                                                "exclude_tokens": [4.0]})),
    "qwen3_coerce_chat_no_tools": _chat("qwen3", _fmt({"type": "token", "token": 7.0})),
}

_S = {"begin": "<a>", "schema": {}, "end": "</a>"}


def _legacy(structure: Any = None, **tag: Any) -> str:
    """A legacy tag: one structure (``_S`` updated by ``structure``, or ``structure`` itself
    when it is not a dict), the trigger ``<a``, ``tag``'s keys over them."""
    s = {**_S, **(structure or {})} if isinstance(structure, dict | None) else structure
    return json.dumps({"structures": [s], "triggers": ["<a"], **tag})


#: legacy tags (``structures`` + ``triggers``): on gpt-oss vLLM builds xgrammar's
#: ``TriggeredTagsFormat`` of them (its models' 400s, their coerced dump in the final channel;
#: a missing key its KeyError 500); chat compiles them first without reading their ``type``
_LEGACY: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{f"gptoss_legacy_{name}": _resp("gpt-oss", tag) for name, tag in {
        "untyped": _legacy(), "typed_other": _legacy(type="other"),
        "schema_yes": _legacy({"schema": "yes"}), "schema_one": _legacy({"schema": 1}),
        "schema_zero_float": _legacy({"schema": 0.0}), "schema_five": _legacy({"schema": 5}),
        "schema_null": _legacy({"schema": None}), "schema_json_text": _legacy({"schema": "{}"}),
        "begin_number": _legacy({"begin": 5}), "begin_token": _legacy({"begin": {"token": 5}}),
        "begin_token_bad_type": _legacy({"begin": {"type": "x", "token": 5}}),
        "end_list": _legacy({"end": ["</a>", ""]}), "end_null": _legacy({"end": None}),
        "end_token": _legacy({"end": {"token": "7"}}), "end_list_number": _legacy({"end": ["a", 5]}),
        "triggers_null": _legacy(triggers=None), "triggers_string": _legacy(triggers="<a"),
        "triggers_number_item": _legacy(triggers=["<a", 5]), "triggers_object": _legacy(
            triggers={"<a": 1}), "triggers_empty": _legacy(triggers=[]),
        "structures_null": json.dumps({"structures": None, "triggers": ["<a"]}),
        "structures_empty_object": json.dumps({"structures": {}, "triggers": ["<a"]}),
        "structures_object": json.dumps({"structures": {"begin": "<a>"}, "triggers": ["<a"]}),
        "structure_number": _legacy(5), "structure_extra_key": _legacy({"x": 1}),
        "begin_not_triggered": _legacy({"begin": "zz"}), "top_list": json.dumps(["structures"]),
        "top_null": "null", "with_format": json.dumps({"format": _CONST, "structures": [_S],
                                                       "triggers": ["<a"]}),
        "no_begin.vllm500": json.dumps({"structures": [{"schema": {}, "end": "b"}],
                                        "triggers": ["<a"]}),
    }.items()},
    **{f"{server.replace('-', '')}_chat_legacy_{name}": _chat(server, tag)
       for server in ("gpt-oss", "qwen3") for name, tag in {
        "untyped": _legacy(), "typed_other": _legacy(type="other"),
        "schema_yes": _legacy({"schema": "yes"}), "schema_one_float": _legacy({"schema": 1.0}),
        "schema_five": _legacy({"schema": 5}), "end_list": _legacy({"end": ["</a>", ""]}),
        "structures_empty_object": json.dumps({"structures": {}, "triggers": ["<a"]}),
        "triggers_string": _legacy(triggers="<a"), "structure_extra_key": _legacy({"x": 1}),
    }.items()},
    # qwen3's or-format beside a strict tool: the legacy tag as the models dump it
    **{f"qwen3_{kind}_tools_legacy_{name}": (_chat_strict if kind == "chat" else _resp_tools)(
        "qwen3", tag) for kind in ("chat", "resp") for name, tag in {
        "schema_yes": _legacy({"schema": "yes"}), "schema_one": _legacy({"schema": 1}),
        "plain": _legacy(), "end_list": _legacy({"end": ["</a>", ""]}),
    }.items()},
}

RENDER_STRUCTURAL_MODEL: dict[str, tuple[str, str, dict[str, Any]]] = {
    "gptoss_format_number": _resp("gpt-oss", json.dumps({"format": 5})),
    "gptoss_format_unknown_type": _resp("gpt-oss", _fmt({"type": "bogus"})),
    "gptoss_format_without_type": _resp("gpt-oss", _fmt(_TYPELESS)),
    "gptoss_format_missing": _resp("gpt-oss", json.dumps({"type": "structural_tag"})),
    "gptoss_format_null": _resp("gpt-oss", _fmt(None)),
    "gptoss_format_list": _resp("gpt-oss", json.dumps({"format": [1]})),
    "gptoss_format_string": _resp("gpt-oss", json.dumps({"format": "x"})),
    "gptoss_tag_list": _resp("gpt-oss", json.dumps([1])),
    "gptoss_tag_type_other": _resp("gpt-oss", json.dumps({"type": "other", "format": _CONST})),
    "gptoss_tag_object": _resp("gpt-oss", {"format": 5}),
    "gptoss_tag_object_good": _resp("gpt-oss", {"type": "structural_tag", "format": _CONST}),
    "gptoss_regex_without_pattern": _resp("gpt-oss", _fmt({"type": "regex"})),
    "gptoss_any_text_negative": _resp("gpt-oss", _fmt({"type": "any_text", "max_tokens": -1})),
    "gptoss_any_text_fraction": _resp("gpt-oss", _fmt({"type": "any_text", "max_tokens": 2.5})),
    "gptoss_any_text_whole_float": _resp("gpt-oss", _fmt({"type": "any_text",
                                                          "max_tokens": 2.0})),
    "gptoss_excludes_string": _resp("gpt-oss", _fmt({"type": "any_text", "excludes": "ab"})),
    "gptoss_const_number": _resp("gpt-oss", _fmt({"type": "const_string", "value": 5})),
    "gptoss_tag_end_number": _resp("gpt-oss", _fmt({"type": "tag", "begin": "a",
                                                    "content": {"type": "any_text"}, "end": 5})),
    "gptoss_tag_begin_token": _resp("gpt-oss", _fmt({"type": "tag", "begin": {
        "type": "token", "token": 5}, "content": {"type": "any_text"}, "end": "b"})),
    "gptoss_tag_begin_const": _resp("gpt-oss", _fmt({"type": "tag", "begin": _CONST,
                                                     "content": {"type": "any_text"},
                                                     "end": "b"})),
    "gptoss_json_schema_bool": _resp("gpt-oss", _fmt({"type": "json_schema",
                                                      "json_schema": True})),
    "gptoss_json_schema_bad_style": _resp("gpt-oss", _fmt({"type": "json_schema",
                                                           "json_schema": {},
                                                           "style": "bogus"})),
    "gptoss_extra_field": _resp("gpt-oss", _fmt({**_CONST, "extra": 1})),
    "gptoss_wrapper_extra_field": _resp("gpt-oss", json.dumps({"format": _CONST, "foo": 1})),
    "gptoss_dispatch": _resp("gpt-oss", _fmt({"type": "dispatch", "rules": [["a", _CONST]]})),
    "gptoss_dispatch_short_rule": _resp("gpt-oss", _fmt({"type": "dispatch", "rules": [["a"]]})),
    "gptoss_triggered_bad_tag": _resp("gpt-oss", _fmt({
        "type": "triggered_tags", "triggers": ["a"],
        "tags": [{"type": "tag", "begin": "a", "content": {"type": "any_text"}, "end": "b"}, 5]})),
    "gptoss_qwen_xml_parameter": _resp("gpt-oss", _fmt({"type": "qwen_xml_parameter",
                                                        "json_schema": {}})),
    "gptoss_regex_not_compiling": _resp("gpt-oss", _fmt({"type": "regex", "pattern": "("})),
    "gptoss_sequence_empty": _resp("gpt-oss", _fmt({"type": "sequence", "elements": []})),
    "gptoss_legacy": _resp("gpt-oss", json.dumps({"structures": [
        {"begin": "a", "schema": {}, "end": "b"}], "triggers": ["a"]})),
    "gptoss_chat_format_without_type": _chat("gpt-oss", _fmt(_TYPELESS)),
    "gptoss_chat_format_number": _chat("gpt-oss", json.dumps({"format": 5})),
    "qwen3_format_number": _resp("qwen3", json.dumps({"format": 5})),
    "qwen3_format_unknown_type": _resp("qwen3", _fmt({"type": "bogus"})),
    "qwen3_tag_object": _resp("qwen3", {"type": "structural_tag", "format": _CONST}),
    "qwen3_chat_format_without_type": _chat("qwen3", _fmt(_TYPELESS)),
    **_COERCE,
    **_LEGACY,
}
