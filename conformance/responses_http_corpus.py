"""Single-call HTTP groups of the Responses render: input items one by one on gpt-oss,
``tool_choice`` objects, ``custom`` and ``namespace`` tools (``render_responses_items``,
``render_responses_tools``, ``render_responses_custom``, ``render_responses_custom_gptoss``)."""

from __future__ import annotations

from typing import Any

from conformance.chat_http_corpus import CHAT_R, HI, RESPONSES_R

_FC = {"type": "function_call", "call_id": "call_1", "name": "get_weather",
       "arguments": "{\"city\": \"Paris\"}"}
_FO = {"type": "function_call_output", "call_id": "call_1", "output": "18C"}
_RT = {"type": "reasoning_text", "text": "think"}
_SAID = {"role": "assistant", "content": "hello"}


def _reasoning(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "reasoning", "id": "rs_1", "summary": [], "content": list(content)}


def _items(*items: dict[str, Any], server: str = "gpt-oss") -> tuple[str, str, dict[str, Any]]:
    return (server, RESPONSES_R, {"model": server, "input": [HI, *items]})


def _said(*parts: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(parts), **kw}


_OUT = {"type": "output_text", "text": "a"}
#: Responses input items: gpt-oss converts them one by one (vLLM's response_input_to_harmony),
#: and which message items take output parts (either model)
RENDER_RESPONSES_ITEMS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "gptoss_said_then_call": _items(_SAID, _FC, _FO),
    "gptoss_special_said_then_call": _items({"role": "assistant", "content": "<|im_end|>"}, _FC),
    "gptoss_reasoning_call_output": _items(_reasoning(_RT), _FC, _FO),
    "gptoss_call_then_reasoning": _items(_FC, _reasoning(_RT), _FO),
    "gptoss_two_reasoning_texts": _items(_reasoning(_RT, {"type": "reasoning_text",
                                                         "text": "more"}), _SAID),
    "gptoss_empty_reasoning": _items(_reasoning(), _SAID, HI),
    "gptoss_summary_only": _items({"type": "reasoning", "id": "r", "summary": [
        {"type": "summary_text", "text": "sum"}]}, _SAID, HI),
    "gptoss_said_reasoning_call": _items(_SAID, _reasoning(_RT), _FC, _FO),
    "gptoss_two_parts": _items(_said(_OUT, {"type": "output_text", "text": "b"},
                                     type="message"), HI),
    "gptoss_output_message_call": _items(_said(
        {"type": "output_text", "text": "x", "annotations": []}, type="message", id="m",
        status="completed"), _FC, _FO),
    "gptoss_two_said": _items(_SAID, _SAID, HI),
    "gptoss_turns": _items(_reasoning(_RT), _SAID, HI, _reasoning(_RT), _FC, _FO),
    "output_parts_no_type": _items(_said(_OUT)),
    "output_parts_annotations_no_type": _items(_said({**_OUT, "annotations": []})),
    "output_parts_typed": _items(_said(_OUT, type="message")),
    "output_parts_user": _items({"type": "message", "role": "user", "content": [_OUT]}),
    "output_parts_refusal": _items(_said({"type": "refusal", "refusal": "no"}, type="message"),
                                   server="qwen3"),
    "output_parts_mixed": _items(_said({"type": "input_text", "text": "a"}, _OUT,
                                       type="message")),
    "output_parts_no_text": _items(_said({"type": "output_text"}, type="message")),
    "gptoss_later_developer_empty": _items(_FC, {"role": "developer", "content": ""}),
    "gptoss_later_system_empty_parts": _items({"role": "system", "content": [
        {"type": "input_text", "text": ""}]}, HI),
    "gptoss_first_system_empty": ("gpt-oss", RESPONSES_R, {"model": "gpt-oss", "input": [
        {"role": "system", "content": ""}, HI]}),
    "gptoss_instructions_and_system": ("gpt-oss", RESPONSES_R, {
        "model": "gpt-oss", "instructions": "be", "input": [{"role": "system", "content": "s"},
                                                           HI]}),
    "mistral_template_kwargs": ("mistral-v3", RESPONSES_R, {
        "model": "mistral-v3", "input": "Hi", "chat_template_kwargs": {}}),
    "mistral_template_kwargs_set": ("mistral-v3", RESPONSES_R, {
        "model": "mistral-v3", "input": "Hi", "chat_template_kwargs": {"x": 1}}),
    "mistral_chat_template_kwargs_empty": ("mistral-v3", CHAT_R, {
        "model": "mistral-v3", "messages": [HI], "chat_template_kwargs": {}}),
    "gptoss_said_empty": _items({"role": "assistant", "content": ""}, HI),
    "gptoss_said_no_parts": _items({"role": "assistant", "content": []}, HI),
    "gptoss_refusal_part": _items(_said({"type": "refusal", "refusal": "no"}, type="message"),
                                  HI),
    "gptoss_reasoning_said_empty": _items(_reasoning(_RT), {"role": "assistant", "content": ""},
                                          HI),
    "gptoss_call_image_said_empty": ("gpt-oss", RESPONSES_R, {"model": "gpt-oss", "input": [
        {**_FC, "arguments": "bad"}, {"role": "user", "content": [
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}]},
        {"role": "assistant", "content": ""}]}),
    "mistral_builtin_tool": ("mistral-v3", RESPONSES_R, {
        "model": "mistral-v3", "input": "hi", "tools": [{"type": "web_search"}]}),
    "mistral_builtin_tool_none": ("mistral-v3", RESPONSES_R, {
        "model": "mistral-v3", "input": "hi", "tools": [{"type": "web_search"}],
        "tool_choice": "none"}),
    "output_parts_qwen3": _items(_said(_OUT), server="qwen3"),
    "output_parts_typed_qwen3": _items(_said(_OUT, type="message"), server="qwen3"),
}

def _tool_choice(choice: Any, tools: int = 2, model: str = "qwen3"
                 ) -> tuple[str, str, dict[str, Any]]:
    """A Responses render with ``tools`` function tools (f, g) and this ``tool_choice``."""
    body: dict[str, Any] = {"model": model, "input": "hi", "tool_choice": choice}
    if tools:
        body["tools"] = [{"type": "function", "name": n, "parameters": {"type": "object"}}
                         for n in "fg"[:tools]]
    return model, RESPONSES_R, body


#: Responses ``tool_choice`` objects of the openai SDK's union (vLLM 0.33 renders all but a
#: function or custom one as "auto": no constraint, every tool shown), objects outside it, and
#: ``text.verbosity``'s values (qwen3; a few on gpt-oss's harmony render)
RENDER_RESPONSES_TOOLS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "allowed_auto": _tool_choice({"type": "allowed_tools", "mode": "auto",
                                  "tools": [{"type": "function", "name": "f"}]}),
    "allowed_required": _tool_choice({"type": "allowed_tools", "mode": "required",
                                      "tools": [{"type": "function", "name": "f"}]}),
    "allowed_no_tools": _tool_choice({"type": "allowed_tools", "mode": "auto", "tools": []}, 0),
    "allowed_bad_mode": _tool_choice({"type": "allowed_tools", "mode": "x", "tools": []}),
    "allowed_tools_not_list": _tool_choice({"type": "allowed_tools", "mode": "auto",
                                            "tools": "f"}),
    "hosted_web_search": _tool_choice({"type": "web_search_preview"}),
    "hosted_file_search": _tool_choice({"type": "file_search"}),
    "hosted_no_tools": _tool_choice({"type": "web_search_preview"}, 0),
    "hosted_unknown": _tool_choice({"type": "bogus"}),
    "mcp": _tool_choice({"type": "mcp", "server_label": "s"}),
    "mcp_named": _tool_choice({"type": "mcp", "server_label": "s", "name": "t"}),
    "mcp_no_label": _tool_choice({"type": "mcp"}),
    "apply_patch": _tool_choice({"type": "apply_patch"}),
    "shell": _tool_choice({"type": "shell"}),
    "programmatic": _tool_choice({"type": "programmatic_tool_calling"}),
    "custom_names_function": _tool_choice({"type": "custom", "name": "f"}),
    "custom_unknown": _tool_choice({"type": "custom", "name": "zz"}),
    "function_no_name": _tool_choice({"type": "function"}),
    "verbosity_low": ("qwen3", RESPONSES_R, {"model": "qwen3", "input": "hi",
                                             "text": {"verbosity": "low"}}),
    "verbosity_null": ("qwen3", RESPONSES_R, {"model": "qwen3", "input": "hi",
                                              "text": {"verbosity": None}}),
    "verbosity_unknown": ("qwen3", RESPONSES_R, {"model": "qwen3", "input": "hi",
                                                 "text": {"verbosity": "x"}}),
    "gptoss_allowed_required": _tool_choice({"type": "allowed_tools", "mode": "required",
                                             "tools": [{"type": "function", "name": "f"}]},
                                            model="gpt-oss"),
    "gptoss_hosted_web_search": _tool_choice({"type": "web_search_preview"}, model="gpt-oss"),
    "gptoss_mcp": _tool_choice({"type": "mcp", "server_label": "s"}, model="gpt-oss"),
    "gptoss_custom_names_function": _tool_choice({"type": "custom", "name": "f"},
                                                 model="gpt-oss"),
    "gptoss_hosted_unknown": _tool_choice({"type": "bogus"}, model="gpt-oss"),
    # two function tools of the named one's name: xgrammar's normalize_tool_choice refuses the
    # forced choice (found by fuzz_render seed 334 on gpt-oss's chat render)
    "function_duplicate_names": ("qwen3", RESPONSES_R, {
        "model": "qwen3", "input": "hi", "tool_choice": {"type": "function", "name": "f"},
        "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}] * 2}),
    "gptoss_function_duplicate_names": ("gpt-oss", RESPONSES_R, {
        "model": "gpt-oss", "input": "hi", "tool_choice": {"type": "function", "name": "f"},
        "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}] * 2}),
    "chat_named_duplicate_names": ("qwen3", CHAT_R, {
        "model": "qwen3", "messages": [{"role": "user", "content": "hi"}],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object"}}}] * 2}),
}

_RUN = {"type": "custom", "name": "run", "description": "Run code"}
_CRM = {"type": "namespace", "name": "crm", "description": "CRM tools", "tools": [
    {"type": "function", "name": "lookup", "description": "Find a customer",
     "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
    {"type": "function", "name": "save"},
    {"type": "custom", "name": "note", "description": "Free text"}]}
_ERP = {"type": "namespace", "name": "erp", "description": "ERP tools", "tools": [
    {"type": "function", "name": "lookup", "parameters": {"type": "object"}}]}


def _custom(tools: list[Any], choice: Any = None, model: str = "qwen3", items: Any = "hi"
            ) -> tuple[str, str, dict[str, Any]]:
    """A Responses render with these tools (custom / namespace ones), ``tool_choice`` when
    given, and ``input`` ``items``."""
    body: dict[str, Any] = {"model": model, "input": items, "tools": tools}
    if choice is not None:
        body["tool_choice"] = choice
    return model, RESPONSES_R, body


_USER = {"role": "user", "content": "hi"}
_F = {"type": "function", "name": "f", "parameters": {"type": "object"}}
_NS_CALL = {"type": "function_call", "call_id": "c1", "namespace": "crm", "name": "lookup",
            "arguments": '{"q": "ann"}'}
_NS_OUT = {"type": "function_call_output", "call_id": "c1", "output": "found"}
_CUSTOM_CALL = {"type": "custom_tool_call", "call_id": "c2", "name": "run",
                "input": 'print("h\u00e9")\n'}
_CUSTOM_OUT = {"type": "custom_tool_call_output", "call_id": "c2", "output": "h\u00e9"}

#: Responses ``custom`` tools (a function of one string ``input`` for the model) and
#: ``namespace`` tools (their functions as ``<namespace>__<name>``), named choices of them, and
#: input items calling them (qwen3; gpt-oss's harmony render refuses both tool types)
RENDER_RESPONSES_CUSTOM: dict[str, tuple[str, str, dict[str, Any]]] = {
    "custom": _custom([_RUN]),
    "custom_no_description": _custom([{"type": "custom", "name": "run"}]),
    "custom_text_format": _custom([{**_RUN, "format": {"type": "text"}}]),
    "custom_grammar_format": _custom([{**_RUN, "format": {
        "type": "grammar", "syntax": "lark", "definition": 'start: "a"'}}]),
    "custom_bad_format": _custom([{**_RUN, "format": {"type": "bogus"}}]),
    "custom_no_name": _custom([{"type": "custom"}]),
    "custom_and_function": _custom([{"type": "function", "name": "f",
                                     "parameters": {"type": "object"}}, _RUN]),
    "custom_required": _custom([_RUN], "required"),
    "custom_named": _custom([_RUN], {"type": "custom", "name": "run"}),
    "custom_named_as_function": _custom([_RUN], {"type": "function", "name": "run"}),
    "custom_none": _custom([_RUN], "none"),
    "namespace": _custom([_CRM]),
    "namespace_two": _custom([_CRM, _ERP, _RUN]),
    "namespace_named_bare": _custom([_CRM], {"type": "function", "name": "lookup"}),
    "namespace_named_flat": _custom([_CRM], {"type": "function", "name": "crm__lookup"}),
    "namespace_named_custom_type": _custom([_CRM], {"type": "custom", "name": "save"}),
    "namespace_named_sub_custom": _custom([_CRM], {"type": "function", "name": "note"}),
    "namespace_named_ambiguous": _custom([_CRM, _ERP], {"type": "function", "name": "lookup"}),
    "namespace_named_exact_wins": _custom([_CRM, _ERP, {"type": "function", "name": "lookup"}],
                                          {"type": "function", "name": "lookup"}),
    "namespace_named_unknown": _custom([_CRM], {"type": "function", "name": "zz"}),
    "namespace_only_custom_required": _custom([{**_CRM, "tools": [_CRM["tools"][2]]}],
                                              "required"),
    "namespace_empty": _custom([{**_CRM, "tools": []}]),
    "namespace_no_description": _custom([{k: v for k, v in _CRM.items()
                                          if k != "description"}]),
    "namespace_tools_not_list": _custom([{**_CRM, "tools": "x"}]),
    "namespace_sub_no_name": _custom([{**_CRM, "tools": [{"type": "function"}]}]),
    "namespace_sub_bad_type": _custom([{**_CRM, "tools": [{"type": "web_search"}]}]),
    "namespace_sub_not_object": _custom([{**_CRM, "tools": [3]}]),
    "items_namespace_call": _custom([_CRM], items=[_USER, _NS_CALL, _NS_OUT]),
    "items_namespace_call_said": _custom([_CRM], items=[
        _USER, {"role": "assistant", "content": "looking"}, _NS_CALL, _NS_OUT]),
    "items_custom_call": _custom([_RUN], items=[_USER, _CUSTOM_CALL, _CUSTOM_OUT]),
    "items_custom_call_empty_input": _custom([_RUN], items=[
        _USER, {**_CUSTOM_CALL, "input": ""}, _CUSTOM_OUT]),
    "items_custom_call_no_input": _custom([_RUN], items=[
        _USER, {k: v for k, v in _CUSTOM_CALL.items() if k != "input"}, _CUSTOM_OUT]),
    "items_custom_call_no_tools": _custom([], items=[_USER, _CUSTOM_CALL, _CUSTOM_OUT]),
    "items_both_calls": _custom([_CRM, _RUN], items=[_USER, _NS_CALL, _CUSTOM_CALL, _NS_OUT,
                                                     _CUSTOM_OUT]),
    # (found by fuzz_render seeds 700-713: the input union's call and output fields, a
    # namespace's grammar, a name that is not a string)
    "items_custom_out_no_call_id": _custom([_RUN], items=[
        _USER, _CUSTOM_CALL, {k: v for k, v in _CUSTOM_OUT.items() if k != "call_id"}]),
    "items_custom_out_bad_output": _custom([_RUN], items=[
        _USER, _CUSTOM_CALL, {**_CUSTOM_OUT, "output": 3}]),
    "items_custom_out_null_id": _custom([_RUN], items=[
        _USER, _CUSTOM_CALL, {**_CUSTOM_OUT, "id": None}]),
    "items_custom_call_null_id": _custom([_RUN], items=[
        _USER, {**_CUSTOM_CALL, "id": None}, _CUSTOM_OUT]),
    "items_call_int_id": _custom([_CRM], items=[_USER, {**_NS_CALL, "id": 3}, _NS_OUT]),
    "items_call_no_name": _custom([_CRM], items=[
        _USER, {k: v for k, v in _NS_CALL.items() if k != "name"}, _NS_OUT]),
    "items_output_no_call_id": _custom([_CRM], items=[
        _USER, _NS_CALL, {k: v for k, v in _NS_OUT.items() if k != "call_id"}]),
    "items_output_int_call_id": _custom([_CRM], items=[
        _USER, _NS_CALL, {**_NS_OUT, "call_id": 3}]),
    "namespace_sub_grammar": _custom([{**_CRM, "tools": [{**_RUN, "format": {
        "type": "grammar", "syntax": "regex", "definition": "[a-z]+"}}]}]),
    "namespace_sub_grammar_no_syntax": _custom([{**_CRM, "tools": [{**_RUN, "format": {
        "type": "grammar", "definition": "[a-z]+"}}]}]),
    "namespace_sub_grammar_bad_syntax": _custom([{**_CRM, "tools": [{**_RUN, "format": {
        "type": "grammar", "syntax": "ebnf", "definition": "x"}}]}]),
    "custom_named_not_string": _custom([{"type": "custom", "name": 3}],
                                       {"type": "custom", "name": 3}),
    "function_named_not_string": _custom([{"type": "function", "name": 3}],
                                         {"type": "function", "name": 3}),
}

#: the same on gpt-oss, whose harmony render takes neither tool type nor their calls' items
#: (a group of its own: one render server at a time)
RENDER_RESPONSES_CUSTOM_GPTOSS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "gptoss_custom": _custom([_RUN], model="gpt-oss"),
    "gptoss_custom_grammar": _custom([{**_RUN, "format": {
        "type": "grammar", "syntax": "lark", "definition": 'start: "a"'}}], model="gpt-oss"),
    "gptoss_namespace": _custom([_CRM], model="gpt-oss"),
    "gptoss_items_custom_call": _custom([], model="gpt-oss",
                                        items=[_USER, _CUSTOM_CALL, _CUSTOM_OUT]),
    "gptoss_items_namespace_call": _custom([], model="gpt-oss",
                                           items=[_USER, _NS_CALL, _NS_OUT]),
    "gptoss_custom_text_format": _custom([{**_RUN, "format": {"type": "text"}}],
                                         model="gpt-oss"),
    "gptoss_custom_named": _custom([_RUN], {"type": "custom", "name": "run"}, model="gpt-oss"),
    "gptoss_custom_none": _custom([_RUN], "none", model="gpt-oss"),
    "gptoss_namespace_ambiguous": _custom([_CRM, _ERP], {"type": "function", "name": "lookup"},
                                          model="gpt-oss"),
    "gptoss_items_custom_output": _custom([], model="gpt-oss", items=[_USER, _CUSTOM_OUT]),
    "gptoss_items_namespace_call_tool": _custom(
        [{"type": "function", "name": "lookup", "parameters": {"type": "object"}}],
        model="gpt-oss", items=[_USER, _NS_CALL, _NS_OUT]),
    # (hosted tools: its built-in ones and mcp alone are left out, a function tool's companions
    # built-in ones only; fuzz_render's hosted draws)
    "gptoss_builtin_only": _custom([{"type": "web_search_preview"}], model="gpt-oss"),
    "gptoss_code_interpreter_only": _custom([{"type": "code_interpreter", "container": "c"}],
                                            model="gpt-oss"),
    "gptoss_mcp_only": _custom([{"type": "mcp", "server_label": "x"}], model="gpt-oss"),
    "gptoss_function_and_builtin": _custom([_F, {"type": "web_search_preview"}],
                                           model="gpt-oss"),
    "gptoss_function_and_mcp": _custom([_F, {"type": "mcp", "server_label": "x"}],
                                       model="gpt-oss"),
    "gptoss_web_search": _custom([{"type": "web_search"}], model="gpt-oss"),
    "gptoss_builtin_and_custom_item": _custom([{"type": "web_search_preview"}], model="gpt-oss",
                                              items=[_USER, _CUSTOM_CALL]),
}
