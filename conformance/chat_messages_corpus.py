"""The single-call HTTP group ``render_chat_messages``: the message dicts a chat template gets
(dumped by a request's own template on ``qwen3-trusted``: content parts of every kind and role,
assistant calls, ``chat_template_kwargs`` over the request's tools and documents) and gpt-oss's
harmony render of the same shapes.

Why a module of its own: the group outgrew ``chat_http_corpus.py`` (which keeps the media, token
id and request-template groups and the route names this one uses).
"""

from __future__ import annotations

from typing import Any

from conformance.chat_http_corpus import CHAT_R, HI
from conformance.corpus_base import TOOLS, USER, chat

#: the message dicts a template gets, seen through templates that dump them (``tojson``):
#: which keys vLLM keeps and in what order, lenient and strict content parts, "auto" templates
DUMP_TEMPLATE = "{% for m in messages %}{{ m|tojson }}\n{% endfor %}"
PARTS_DUMP_TEMPLATE = ("{% for m in messages %}{{ m.role }}:{% if m.content is string %}"
                       "S{{ m.content|tojson }}{% else %}{% for p in m.content %}{{ p|tojson }};"
                       "{% endfor %}{% endif %}\n{% endfor %}")
_A, _N = {"type": "text", "text": "a"}, {"type": "text"}
_THINK = {"type": "thinking", "thinking": "h"}


def _dump(*messages: dict[str, Any], template: str = DUMP_TEMPLATE, **kw: Any) -> tuple[
        str, str, dict[str, Any]]:
    return ("qwen3-trusted", CHAT_R, chat(chat_template=template, messages=list(messages), **kw))


def _parts(role: str, *parts: Any, server: str = "qwen3") -> tuple[str, str, dict[str, Any]]:
    message: dict[str, Any] = {"role": role, "content": list(parts)}
    if role == "tool":
        message["tool_call_id"] = "c1"
    return (server, CHAT_R, chat(messages=[message] if role in ("user", "tool")
                                 else [message, *USER]))


_CALL = {"id": "c1", "type": "function", "index": 0,
         "function": {"name": "get_weather", "arguments": "{\"a\": 1}", "x": 2}}
RENDER_CHAT_MESSAGES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "template_auto": ("qwen3-trusted", CHAT_R, chat(chat_template="auto")),
    "template_kwargs_auto": ("qwen3-trusted", CHAT_R, chat(
        chat_template_kwargs={"chat_template": "auto"})),
    "template_empty": ("qwen3-trusted", CHAT_R, chat(chat_template="")),
    "template_empty_kwargs": ("qwen3-trusted", CHAT_R, chat(
        chat_template="", chat_template_kwargs={"chat_template": "{{ 'k' }}"})),
    "template_auto_kwargs": ("qwen3-trusted", CHAT_R, chat(
        chat_template="auto", chat_template_kwargs={"chat_template": "{{ 'k' }}"})),
    "template_request_over_kwargs_auto": ("qwen3-trusted", CHAT_R, chat(
        chat_template="{{ 'x' }}", chat_template_kwargs={"chat_template": "auto"})),
    "template_auto_untrusted": ("qwen3", CHAT_R, chat(chat_template="auto")),
    "template_kwargs_null": ("qwen3", CHAT_R, chat(chat_template_kwargs={"chat_template": None})),
    "keys_user_extra": _dump({"role": "user", "content": "Hi", "foo": 1, "bar": None}),
    "keys_assistant_extra": _dump({"role": "assistant", "content": "a", "name": "n", "foo": [1],
                                   "refusal": "no", "audio": {"id": "x"}}, *USER),
    "keys_assistant_thinking": _dump({"role": "assistant", "content": "x", "thinking": "t"},
                                     *USER),
    "keys_reasoning_and_thinking": _dump({"role": "assistant", "content": "x", "reasoning": "r",
                                          "thinking": "t"}, *USER),
    "keys_reasoning_content": _dump({"role": "assistant", "content": "x",
                                     "reasoning_content": "rc"}, *USER),
    "keys_user_call_fields": _dump({"role": "user", "content": "x", "tool_call_id": "1",
                                    "tool_calls": [_CALL]}),
    "keys_tool_extra": _dump({"role": "tool", "content": "x", "tool_call_id": "1", "foo": 2}),
    "keys_custom_role": _dump({"role": "critic", "content": "x", "name": "bob", "task": "tt",
                               "reasoning": "r", "foo": 2}, *USER),
    "keys_system_name": _dump({"role": "system", "content": "x", "name": "sys", "foo": 2},
                              *USER),
    "keys_developer_kept": _dump(
        {"role": "developer", "content": "x"}, *USER,
        template="{% for m in messages %}{% if m.role == 'developer' %}D{% endif %}"
                 "{{ m|tojson }}\n{% endfor %}"),
    "keys_call_order": _dump({"role": "assistant", "content": None, "tool_calls": [_CALL]},
                             {"role": "tool", "content": "r", "tool_call_id": "c1"}),
    "keys_call_null_extras": _dump({"role": "assistant", "content": None, "tool_calls": [
        {"index": None, "type": "function", "id": "c1",
         "function": {"x": None, "name": "get_weather", "arguments": "{}"}}]},
        {"role": "tool", "content": "r", "tool_call_id": "c1"}),
    "parts_extra_keys": _dump({"role": "user", "content": [
        {"type": "text", "text": "a", "extra": 1},
        {"type": "refusal", "refusal": "no", "x": 2},
        {"type": "thinking", "thinking": "h", "closed": True, "sig": "s"}]},
        template=PARTS_DUMP_TEMPLATE),
    "parts_lenient_list": _dump({"role": "user", "content": [
        _A, _N, {"type": "thinking"}, {"type": "input_text"}]}, template=PARTS_DUMP_TEMPLATE),
    "parts_custom_role_list": _dump({"role": "critic", "content": [
        _N, "s", {"type": "text", "text": "t", "k": [1]}]}, template=PARTS_DUMP_TEMPLATE),
    "parts_text_uuid": _dump({"role": "user", "content": [
        {"type": "text", "text": "a", "uuid": "u"}]}, template=PARTS_DUMP_TEMPLATE),
    "parts_tool_thinking": _dump({"role": "tool", "tool_call_id": "1", "content": [
        _A, _THINK]}, template=PARTS_DUMP_TEMPLATE),
    "parts_user_missing_text": _parts("user", _N),
    "parts_user_text_then_missing": _parts("user", _A, _N),
    "parts_user_missing_then_text": _parts("user", _N, _A),
    "parts_user_two_missing": _parts("user", _N, _N),
    "parts_user_thinking": _parts("user", _THINK),
    "parts_user_text_thinking": _parts("user", _A, _THINK),
    "parts_user_thinking_missing": _parts("user", {"type": "thinking"}),
    "parts_user_text_thinking_missing": _parts("user", _A, {"type": "thinking"}),
    "parts_user_text_refusal_missing": _parts("user", _A, {"type": "refusal"}),
    "parts_user_refusal_missing": _parts("user", {"type": "refusal"}),
    "parts_user_text_null": _parts("user", _A, {"type": "text", "text": None}),
    "parts_user_text_number": _parts("user", _A, {"type": "text", "text": 5}),
    "parts_user_input_text_missing": _parts("user", _A, {"type": "input_text"}),
    "parts_custom_missing_text": _parts("critic", _N),
    "parts_assistant_thinking": _parts("assistant", _THINK, _A),
    "parts_assistant_missing_text": _parts("assistant", _N),
    "parts_system_missing_text": _parts("system", _N),
    "parts_system_thinking": _parts("system", _THINK),
    "parts_tool_thinking_default": _parts("tool", _THINK),
    "parts_tool_missing_text": _parts("tool", _N),
}

_GPTOSS_CALL = [{"id": "c1", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{}"}}]
_GPTOSS_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object", "properties": {}}}}]


def _oss(*messages: dict[str, Any], **kw: Any) -> tuple[str, str, dict[str, Any]]:
    return ("gpt-oss", CHAT_R, {"model": "gpt-oss", "messages": list(messages), **kw})


_UNTYPED = [{"text": "x"}]
_RESULT = {"role": "tool", "tool_call_id": "c1", "content": "r"}
_DOCS_TOOLS = "{{ documents|tojson }}|{{ tools|tojson }}"
_DOCS = [{"title": "t", "text": "d"}]
#: chat_template_kwargs over the request's tools (the kwargs' win) and documents (they fill in)
RENDER_CHAT_MESSAGES.update({
    "kwargs_documents": ("qwen3-trusted", CHAT_R, chat(
        chat_template=_DOCS_TOOLS, chat_template_kwargs={"documents": _DOCS})),
    "kwargs_documents_and_request": ("qwen3-trusted", CHAT_R, chat(
        chat_template=_DOCS_TOOLS, documents=[{"title": "x"}],
        chat_template_kwargs={"documents": _DOCS})),
    "kwargs_tools_over_request": ("qwen3-trusted", CHAT_R, chat(
        chat_template=_DOCS_TOOLS, tools=TOOLS, chat_template_kwargs={"tools": [{"x": 1}]})),
    "kwargs_tools_null": ("qwen3-trusted", CHAT_R, chat(
        chat_template=_DOCS_TOOLS, tools=TOOLS, chat_template_kwargs={"tools": None})),
    "kwargs_tools_auto": ("qwen3-trusted", CHAT_R, chat(
        chat_template=_DOCS_TOOLS, chat_template_kwargs={"tools": "auto"})),
    "kwargs_tools_empty": ("qwen3", CHAT_R, chat(tools=TOOLS, chat_template_kwargs={"tools": []})),
    "kwargs_tools_only": ("qwen3", CHAT_R, chat(chat_template_kwargs={"tools": TOOLS})),
    # a developer message's tools, as vLLM's custom type validates them (typed order, lax
    # ``strict``) or, when that type refuses them, as the client wrote them
    **{f"developer_tools_{k}": _dump({"role": "developer", "content": c, "tools": t}, *USER,
                                     template="{# 'developer' #}" + DUMP_TEMPLATE)
       for k, (t, c) in {
           "typed": ([{"x": 1, "type": "function", "function": {
               "q": 2, "parameters": {"b": 1, "a": 2}, "description": "d", "name": "g"}},
               {"function": {"name": "h"}, "type": "function"}], "x"),
           "strict_lax": ([{"type": "function", "function": {"strict": "yes", "name": "g"}}], "x"),
           "strict_null": ([{"type": "function", "function": {"strict": None, "name": "g"}}], "x"),
           "strict_bad": ([{"type": "function", "function": {"strict": "maybe", "name": "g"}}],
                          "x"),
           "description_null": ([{"type": "function", "function": {
               "description": None, "name": "g"}}], "x"),
           "parameters_list": ([{"type": "function", "function": {"parameters": [], "name": "g"}}],
                               "x"),
           "one_untyped": ([{"type": "function", "function": {"name": "g"}},
                            {"function": {"name": "h"}}], "x"),
           "name_int": ([{"type": "function", "function": {"name": 5}}], "x"),
           "not_list": ({"a": 1}, "x"),
           "strings": (["s"], "x"),
           "parts": ([{"function": {"parameters": {}, "name": "g"}, "type": "function"}],
                     [{"type": "text", "text": "a"}, {"type": "text"}]),
           "parts_untyped": ([{"function": {"name": "g"}}],
                             [{"type": "text", "text": "a"}, {"type": "text"}]),
       }.items()},
    # per-request multimodal kwargs: refused unless the server trusts them, read even as
    # extras (tokenize's text form, Responses), never by the harmony render (gpt-oss)
    **{f"mm_kwargs_{server}_{kind}_{key[:2]}": (server, path, {
        "model": server, **body, key: {"image": {"a": 1}}})
       for server in ("qwen3", "gpt-oss")
       for kind, path, body in (
           ("tokenize_text", "/tokenize", {"prompt": "What"}),
           ("tokenize_chat", "/tokenize", {"messages": USER}),
           ("chat", CHAT_R, {"messages": USER}),
           ("responses", "/v1/responses/render", {"input": "x"}))
       for key in ("mm_processor_kwargs", "media_io_kwargs")},
    # a custom-typed message's text part may hold any JSON value: the list format passes it
    # on, a join (string format, a tool's text parts, merged system texts) is a 400
    **{f"part_text_{k}_{role}{'_dump' if dump else ''}": (
        "qwen3-trusted" if dump else "qwen3", CHAT_R, chat(
            messages=[*USER, {"role": role, "content": parts, "name": "g"}
                      | ({"tool_call_id": "c"} if role == "tool" else {})],
            **({"chat_template": PARTS_DUMP_TEMPLATE} if dump else {})))
       for k, parts in {"int": [{"type": "text", "text": 5}, _A],
                        "zero": [{"type": "text", "text": 0}, _A],
                        "list": [{"type": "text", "text": [1]}, _A],
                        "thinking_null": [{"type": "thinking"}, _A]}.items()
       for role in ("function", "user", "tool", "developer")
       for dump in (False, True)},
    "mistral_completion_truncate": ("mistral-v3", "/v1/completions/render", {
        "model": "mistral-v3", "prompt": "hello world foo bar baz qux",
        "truncate_prompt_tokens": 3}),
    "mistral_completion_truncate_one": ("mistral-v3", "/v1/completions/render", {
        "model": "mistral-v3", "prompt": "hello world foo bar baz qux",
        "truncate_prompt_tokens": 1}),
    "mistral_completion_truncate_no_bos": ("mistral-v3", "/v1/completions/render", {
        "model": "mistral-v3", "prompt": "hello world foo bar baz qux",
        "truncate_prompt_tokens": 3, "add_special_tokens": False}),
    "mistral_completion_truncate_right": ("mistral-v3", "/v1/completions/render", {
        "model": "mistral-v3", "prompt": "hello world foo bar baz qux",
        "truncate_prompt_tokens": 3, "truncation_side": "right"}),
})

#: the fields only one message type can take, typed (a schema error otherwise)
RENDER_CHAT_MESSAGES.update({
    f"typed_{name}": ("qwen3", CHAT_R, chat(messages=[*USER, message]))
    for name, message in {
        "null_content_function_call": {"role": "assistant", "content": None, "function_call": 4},
        "content_function_call": {"role": "assistant", "content": "x", "function_call": 4},
        "no_content_function_call": {"role": "assistant", "function_call": 4},
        "null_content_audio": {"role": "assistant", "content": None, "audio": 4},
        "null_content_refusal": {"role": "assistant", "content": None, "refusal": 4},
        "null_content_function_call_object": {"role": "assistant", "content": None,
                                              "function_call": {"name": "f", "arguments": "{}"}},
        "function_reasoning": {"role": "function", "content": "x", "reasoning": 4},
        "named_function_reasoning": {"role": "function", "content": "x", "name": "f",
                                     "reasoning": 4},
        "custom_reasoning": {"role": "critic", "content": "x", "reasoning": 4},
        "custom_reasoning_object": {"role": "critic", "content": "x", "reasoning": {"a": 1}},
        "custom_task": {"role": "critic", "content": "x", "task": 4},
        "custom_tools": {"role": "critic", "content": "x", "tools": 4},
        "user_reasoning": {"role": "user", "content": "x", "reasoning": 4},
        "user_tool_call_id": {"role": "user", "content": "x", "tool_call_id": 4},
        "developer_tool_call_id": {"role": "developer", "content": "x",
                                   "tool_call_id": {"a": 1}},
        "tool_no_id_task": {"role": "tool", "content": [], "task": {"id": "a"}},
    }.items()
})

#: gpt-oss (harmony, built in code): which messages' parts vLLM reads (the custom type's list)
#: and which it holds as an OpenAI type's iterator (flattened to nothing, or checked strictly)
RENDER_CHAT_MESSAGES.update({
    # a reasoning object (vLLM's custom type takes one): harmony drops it with rule 4, or
    # cannot render it
    "gptoss_reasoning_object_dropped": _oss(
        HI, {"role": "assistant", "content": "W", "reasoning": {"id": "a"}}, HI),
    "gptoss_reasoning_object_last_final": _oss(
        HI, {"role": "assistant", "content": "W", "reasoning": {"type": "text", "text": "r"}}),
    "gptoss_reasoning_object_kept.vllm500": _oss(
        HI, {"role": "assistant", "content": None, "reasoning": {"id": "a"}}),
    "gptoss_reasoning_object_calls.vllm500": _oss(
        HI, {"role": "assistant", "content": None, "reasoning": {"id": "a"}, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
    "gptoss_reasoning_int": _oss(
        HI, {"role": "assistant", "content": "W", "reasoning": 5}, HI),
    "gptoss_system_untyped": _oss({"role": "system", "content": _UNTYPED}, HI),
    "gptoss_developer_untyped": _oss({"role": "developer", "content": _UNTYPED}, HI),
    "gptoss_later_system_untyped": _oss(HI, {"role": "system", "content": _UNTYPED}, HI),
    "gptoss_user_untyped": _oss({"role": "user", "content": _UNTYPED}),
    "gptoss_assistant_untyped": _oss(HI, {"role": "assistant", "content": _UNTYPED}, HI),
    "gptoss_tool_untyped": _oss(HI, {"role": "tool", "tool_call_id": "c1",
                                      "content": _UNTYPED}),
    "gptoss_calls_untyped": _oss(HI, {"role": "assistant", "content": _UNTYPED,
                                       "tool_calls": _GPTOSS_CALL}, _RESULT,
                                 tools=_GPTOSS_TOOLS),
    "gptoss_calls_string_part": _oss(HI, {"role": "assistant", "content": ["s"],
                                           "tool_calls": _GPTOSS_CALL}, _RESULT,
                                     tools=_GPTOSS_TOOLS),
    "gptoss_calls_text_part": _oss(HI, {"role": "assistant", "content": [_A],
                                         "tool_calls": _GPTOSS_CALL}, _RESULT,
                                   tools=_GPTOSS_TOOLS),
    "gptoss_user_text_missing": _oss({"role": "user", "content": [_A, _N]}),
    "gptoss_user_thinking": _oss({"role": "user", "content": [_THINK]}),
    "gptoss_system_missing_text": _oss({"role": "system", "content": [_N]}, HI),
    "gptoss_system_name_untyped": _oss({"role": "system", "content": _UNTYPED,
                                        "tool_call_id": "x"}, HI),
})
