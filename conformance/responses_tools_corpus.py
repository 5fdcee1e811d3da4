"""The ``render_responses_tool_shapes`` group: every kind of Responses tool with good and bad
values of its fields, and the ``reasoning`` object's, on qwen3 and gpt-oss (recorded per
server by ``record.py``); ``render_responses_item_shapes``: the reasoning and output message
input items a client sends back, with good and bad values of their fields.

What vLLM 0.33 does, measured: ``tools`` is the openai SDK's union of tool types, so every
field of every kind is typed (a hosted tool's options, a function tool's ``allowed_callers``,
``async``, ``output_schema``), unknown fields are extras, and a field of another kind (``name``
on a ``web_search_preview`` tool) is never checked; ``reasoning.summary`` / ``context`` are
literals. tito took any value of a hosted tool's fields, and refused a ``name`` that was not a
string on every kind (``tito.protocol.responses_tool_types`` now holds each kind's shape).
The ``drawn_*`` cases are drawn from a fixed seed: each kind's required fields, then up to
three of its fields (or unknown ones) set to values of a fixed pool, or removed.
"""

from __future__ import annotations

import random
from typing import Any

RESPONSES_R = "/v1/responses/render"
_F = {"type": "function", "name": "f", "parameters": {"type": "object", "properties": {}}}

#: name -> one tool (sent beside a function tool unless it is a function, custom or namespace)
TOOLS: dict[str, dict[str, Any]] = {
    "fn_strict_str": {**_F, "strict": "x"}, "fn_strict_coerced": {**_F, "strict": "true"},
    "fn_desc_int": {**_F, "description": 5}, "fn_params_list": {**_F, "parameters": [1]},
    "fn_allowed_callers": {**_F, "allowed_callers": ["direct"]},
    "fn_allowed_callers_bad": {**_F, "allowed_callers": ["x"]},
    "fn_async": {**_F, "async": True}, "fn_async_bad": {**_F, "async": "x"},
    "fn_async_by_name": {**_F, "async_": "x"},
    "fn_output_schema_bad": {**_F, "output_schema": 5},
    "ws_name_int": {"type": "web_search_preview", "name": 5},
    "ws_ctx_bad": {"type": "web_search_preview", "search_context_size": "huge"},
    "ws_ctx_ok": {"type": "web_search_preview", "search_context_size": "low"},
    "ws_loc_bad": {"type": "web_search_preview", "user_location": {"type": "approximate",
                                                                   "country": 5}},
    "ws_loc_no_type": {"type": "web_search_preview", "user_location": {"country": "US"}},
    "ws2_filters_bad": {"type": "web_search", "filters": {"allowed_domains": "x"}},
    "ws2_loc_no_type": {"type": "web_search", "user_location": {"country": "US"}},
    "fs_ids_bad": {"type": "file_search", "vector_store_ids": "x"},
    "fs_max_bad": {"type": "file_search", "vector_store_ids": ["v"], "max_num_results": "x"},
    "ci_container_str": {"type": "code_interpreter", "container": "cntr_1"},
    "ci_container_bad": {"type": "code_interpreter", "container": 5},
    "ci_container_badtype": {"type": "code_interpreter", "container": {"type": "x"}},
    "mcp_label_int": {"type": "mcp", "server_label": 5},
    "mcp_approval_bad": {"type": "mcp", "server_label": "s", "require_approval": "sometimes"},
    "mcp_approval_filter": {"type": "mcp", "server_label": "s",
                            "require_approval": {"never": {"tool_names": ["a"]}}},
    "mcp_connector_bad": {"type": "mcp", "server_label": "s", "connector_id": "connector_x"},
    "cu_bad_env": {"type": "computer_use_preview", "display_height": 1, "display_width": 1,
                   "environment": "dos"},
    "img_bad_quality": {"type": "image_generation", "quality": "ultra"},
    "shell_env_bad": {"type": "shell", "environment": 5},
    "shell_env_local": {"type": "shell", "environment": {"type": "local"}},
    "ts_exec_bad": {"type": "tool_search", "execution": 5},
    "ts_params_any": {"type": "tool_search", "parameters": 5},
    "custom_async": {"type": "custom", "name": "c", "async": True},
    "namespace_fn_params_any": {"type": "namespace", "name": "n", "description": "d",
                                "tools": [{"type": "function", "name": "g", "parameters": 5}]},
}
OTHER: dict[str, dict[str, Any]] = {
    "reasoning_bad_summary": {"reasoning": {"summary": "x"}},
    "reasoning_summary": {"reasoning": {"summary": "concise"}},
    "reasoning_context_bad": {"reasoning": {"context": 5}},
    "reasoning_generate_summary_bad": {"reasoning": {"generate_summary": "long"}},
}

#: the values the drawn cases set
_POOL: list[Any] = [
    None, "x", 5, 1.5, True, [], {}, ["a"], [5], ["direct"], {"type": "auto"}, "low", "never",
    {"read_only": True}, {"type": "approximate", "country": "US"}, {"allowed_domains": ["a"]},
    "true", -1, {"type": "text"}, {"type": "grammar", "definition": "a", "syntax": "lark"},
    {"type": "disabled"}, {"type": "container_auto"}, {"type": "local"},
    [{"type": "function", "name": "h"}], {"always": {"tool_names": ["a"]}},
    {"key": "k", "type": "eq", "value": 1}, {"type": "and", "filters": [5]}, "connector_gmail",
    "16g", {"hybrid_search": {"embedding_weight": 1, "text_weight": "x"}}]
#: kind -> its required fields (good values) and the fields a draw may set
_KINDS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "function": ({"name": "f"}, ("name", "parameters", "strict", "description",
                                 "allowed_callers", "async", "output_schema")),
    "custom": ({"name": "c"}, ("name", "description", "format", "allowed_callers", "async")),
    "namespace": ({"name": "n", "description": "d", "tools": [{"type": "function", "name": "g"}]},
                  ("name", "description", "tools")),
    "file_search": ({"vector_store_ids": ["v"]}, ("vector_store_ids", "filters",
                                                  "max_num_results", "ranking_options")),
    "web_search": ({}, ("external_web_access", "filters", "search_context_size",
                        "user_location")),
    "web_search_preview": ({}, ("search_content_types", "search_context_size", "user_location")),
    "mcp": ({"server_label": "s"}, ("server_label", "allowed_tools", "connector_id", "headers",
                                    "require_approval", "server_url")),
    "code_interpreter": ({"container": "c"}, ("container", "allowed_callers")),
    "image_generation": ({}, ("quality", "size", "input_image_mask", "partial_images")),
    "shell": ({}, ("environment", "allowed_callers")),
    "tool_search": ({}, ("execution", "parameters", "description")),
    "apply_patch": ({}, ("allowed_callers",)),
}


def _drawn(seed: int, n: int) -> dict[str, dict[str, Any]]:
    rnd = random.Random(seed)
    out = {}
    for i in range(n):
        kind = rnd.choice(sorted(_KINDS))
        required, fields = _KINDS[kind]
        tool = {"type": kind, **required}
        for _ in range(rnd.randint(1, 3)):
            field = rnd.choice([*fields, "bogus"])
            if field in tool and rnd.random() < 0.15:
                del tool[field]
            else:
                tool[field] = rnd.choice(_POOL)
        out[f"drawn_{i}"] = tool
    return out


def _cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for server in ("qwen3", "gpt-oss"):
        for name, tool in {**TOOLS, **_drawn(1, 60)}.items():
            tools = [tool] if tool["type"] in ("function", "custom", "namespace") else [_F, tool]
            out[f"{server}_{name}"] = (server, RESPONSES_R, {"model": server, "input": "hi",
                                                             "tools": tools})
        for name, extra in OTHER.items():
            out[f"{server}_{name}"] = (server, RESPONSES_R, {"model": server, "input": "hi",
                                                             **extra})
    return out


RENDER_RESPONSES_TOOL_SHAPES = _cases()

#: Measured for the items: a reasoning item needs a ``summary``; its ``id`` (when given) is a
#: string, its ``status`` an item status or null, its ``encrypted_content`` a string or null
#: (schema 400s); vLLM's conversion reads it only as the SDK's model (``summary`` of
#: ``summary_text`` parts, ``content`` null or of ``reasoning_text`` parts): otherwise the chat
#: path's "Unsupported input item type: reasoning" and, with content, the harmony path's 400;
#: gpt-oss never reads ``encrypted_content`` (tito refused it there). An output message's
#: ``id`` is a string and its ``status`` an item status when given (not null), an
#: ``output_text``'s ``annotations`` a list of the SDK's annotation objects and its
#: ``logprobs`` a list or null.
_R = {"type": "reasoning", "id": "r1", "summary": [],
      "content": [{"type": "reasoning_text", "text": "t"}]}
_O = {"type": "message", "role": "assistant",
      "content": [{"type": "output_text", "text": "b", "annotations": []}]}


_FC = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
_FO = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
_PHASES = {"commentary": "commentary", "final": "final_answer", "null": None, "bad": "x"}
_STATUSES = {"ok": "completed", "null": None, "bad": "x", "int": 5}


def _without(item: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != key}


def _text_part(**extra: Any) -> dict[str, Any]:
    return {**_O, "content": [{"type": "output_text", "text": "b", **extra}]}


ITEMS: dict[str, Any] = {  # (a list: several items)
    "r_no_id": _without(_R, "id"), "r_no_summary": _without(_R, "summary"),
    "r_no_content": _without(_R, "content"),
    "r_summary_item": {**_R, "summary": [{"type": "summary_text", "text": "s"}]},
    "r_summary_bad_type": {**_R, "summary": [{"type": "x", "text": "s"}]},
    "r_summary_no_text": {**_R, "summary": [{"type": "summary_text"}]},
    "r_summary_str": {**_R, "summary": "s"}, "r_summary_null": {**_R, "summary": None},
    "r_summary_dict": {**_R, "summary": {}},
    "r_content_no_text": {**_R, "content": [{"type": "reasoning_text"}]},
    "r_content_null": {**_R, "content": None}, "r_content_str": {**_R, "content": "x"},
    "r_content_part_extra": {**_R, "content": [{"type": "reasoning_text", "text": "t", "x": 1}]},
    "r_no_content_bad_summary": {**_without(_R, "content"), "summary": [{"type": "x"}]},
    "r_encrypted": {**_R, "encrypted_content": "e"}, "r_encrypted_bad": {**_R, "encrypted_content": 5},
    "r_encrypted_no_content": {**_without(_R, "content"), "encrypted_content": "e"},
    "r_status_bad": {**_R, "status": "x"}, "r_status_ok": {**_R, "status": "completed"},
    "r_status_null": {**_R, "status": None}, "r_extra": {**_R, "bogus": 1},
    "r_id_int": {**_R, "id": 5}, "r_id_null": {**_R, "id": None},
    "o_no_annotations": _text_part(), "o_annotations_null": _text_part(annotations=None),
    "o_logprobs": _text_part(annotations=[], logprobs=[]),
    "o_logprobs_null": _text_part(annotations=[], logprobs=None),
    "o_logprobs_bad": _text_part(annotations=[], logprobs=5),
    "o_id": {**_O, "id": "m1"}, "o_id_int": {**_O, "id": 5}, "o_id_null": {**_O, "id": None},
    "o_status": {**_O, "status": "completed"}, "o_status_bad": {**_O, "status": "x"},
    "o_status_null": {**_O, "status": None},
    "o_ann_url": _text_part(annotations=[{"type": "url_citation", "url": "u", "title": "t",
                                          "start_index": 0, "end_index": 1}]),
    "o_ann_file_path": _text_part(annotations=[{"type": "file_path", "file_id": "f", "index": 0}]),
    "o_ann_bool_index": _text_part(annotations=[{"type": "file_path", "file_id": "f",
                                                 "index": True}]),
    "o_ann_int": _text_part(annotations=[5]), "o_ann_empty": _text_part(annotations=[{}]),
    # an index is pydantic's lax int (session 41: tito's own reader took "+-1", "\u0663", 1e20
    # and refused "1.0", "1_0")
    **{f"o_ann_index_{k}": _text_part(annotations=[{"type": "file_path", "file_id": "f",
                                                    "index": v}])
       for k, v in (("zero_fraction", "1.0"), ("underscore", "1_0"), ("spaces", " 1 "),
                    ("two_signs", "+-1"), ("arabic_digit", "\u0663"), ("float_1e20", 1e20),
                    ("float_min_i64", -2.0**63), ("trailing_dot", "1."),
                    ("file_separator", "1\x1c"), ("nbsp", "\xa01"))},
    "o_content_str": {**_O, "content": "b"},
    # found by conformance/probe_paths.py (session 40): statuses, names and phases the SDK's
    # item types check, and a message's name, which no item type reads
    **{f"o_phase_{k}": {**_O, "phase": v} for k, v in _PHASES.items()},
    **{f"easy_phase_{k}": {"role": "user", "content": "x", "phase": v}
       for k, v in _PHASES.items()},
    "easy_assistant_phase_bad": {"role": "assistant", "content": "x", "phase": "x"},
    "input_parts_phase_bad": {"role": "user", "content": [{"type": "input_text", "text": "x"}],
                              "phase": "x"},
    **{f"msg_name_{k}": {"type": "message", "role": "user", "content": "x", "name": v}
       for k, v in (("str", "n"), ("null", None), ("int", 5), ("object", {}))},
    **{f"fc_status_{k}": [{**_FC, "status": v}, _FO] for k, v in _STATUSES.items()},
    **{f"fco_status_{k}": [_FC, {**_FO, "status": v}] for k, v in _STATUSES.items()},
    **{f"fco_name_{k}": [_FC, {**_FO, "name": v}]
       for k, v in (("str", "f"), ("null", None), ("int", 5))},
    "custom_call_status_bad": [{"type": "custom_tool_call", "call_id": "c2", "name": "f",
                                "input": "x", "status": "x"}],
}


def _item_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for server in ("qwen3", "gpt-oss"):
        for name, item in ITEMS.items():
            items = item if isinstance(item, list) else [item]
            out[f"{server}_{name}"] = (server, RESPONSES_R, {"model": server, "input": [
                {"type": "message", "role": "user", "content": "a"}, *items,
                {"type": "message", "role": "user", "content": "q"}]})
    return out


#: gpt-oss's instructions: the request's (``""`` too), else a leading system / developer item's
#: flattened text (``""`` too, its parts flattened as a list): beside tools, vLLM's developer
#: message then writes an empty ``# Instructions`` section (tito dropped an empty one)
_SYS = {"type": "message", "role": "system", "content": ""}
_USER = {"type": "message", "role": "user", "content": "hi"}
_RT = [{"type": "function", "name": "f", "parameters": {"type": "object", "properties": {}}}]
_FIRSTS: dict[str, list[dict[str, Any]]] = {
    "none": [], "sys_empty": [_SYS], "sys_text": [{**_SYS, "content": "S"}],
    "dev_empty": [{**_SYS, "role": "developer"}],
    "sys_parts_empty": [{**_SYS, "content": [{"type": "input_text", "text": ""}]}],
    "sys_parts_text": [{**_SYS, "content": [{"type": "input_text", "text": "S"}]}],
    "sys_no_parts": [{**_SYS, "content": []}], "later_sys_empty": [_USER, _SYS],
    "later_sys_parts": [_USER, {**_SYS, "content": [{"type": "input_text", "text": "L"}]}],
}


def _instruction_cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for instructions in ("absent", None, "", "X"):
        for name, first in _FIRSTS.items():
            body: dict[str, Any] = {"model": "gpt-oss", "input": [*first, _USER], "tools": _RT}
            if instructions != "absent":
                body["instructions"] = instructions
            out[f"gpt-oss_instructions_{instructions}_{name}"] = ("gpt-oss", RESPONSES_R, body)
    for tools in ((), _RT):
        out[f"gpt-oss_string_input_empty_instructions{'_tools' if tools else ''}"] = (
            "gpt-oss", RESPONSES_R, {"model": "gpt-oss", "input": "hi", "instructions": "",
                                     **({"tools": list(tools)} if tools else {})})
    for name, content in (("empty_string", ""), ("object", {}), ("empty_list", [])):
        out[f"gpt-oss_reasoning_content_{name}"] = ("gpt-oss", RESPONSES_R, {
            "model": "gpt-oss", "input": [_USER, {"type": "reasoning", "summary": [],
                                                  "content": content}, _USER]})
    return out


RENDER_RESPONSES_ITEM_SHAPES = {**_item_cases(), **_instruction_cases()}
