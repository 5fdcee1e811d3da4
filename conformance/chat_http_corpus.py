"""Single-call HTTP groups of the chat render and ``/tokenize``: media parts on text-only
models, gpt-oss ids past its tokenizer, a request's own template, and the message dicts a
template gets (``render_media_errors``, ``tokens_gptoss``, ``render_chat_template``,
``render_chat_messages``)."""

from __future__ import annotations

from typing import Any

from conformance.corpus_base import TOOLS, USER, chat, lp_entries
from conformance.corpus_edge import IMAGE


#: name -> (server, path, body): the group ``render_media_errors``. vLLM 0.33 refuses media on a
#: text-only model (template and mistral-common paths: "<model> is not a multimodal model";
#: ``*_embeds``: "The model is not multimodal."), its harmony path (gpt-oss) drops them
AUDIO = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
INPUT_IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=",
               "detail": "auto"}
CLAUDE_IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                            "data": "iVBORw0KGgo="}}
CHAT_R, RESPONSES_R, MESSAGES_R = ("/v1/chat/completions/render", "/v1/responses/render",
                                   "/v1/messages/render")


def _user_parts(model: str, parts: list[Any], role: str = "user", **extra: Any) -> dict[str, Any]:
    first = {"role": role, "content": parts, **extra}
    tail = [] if role == "user" else [{"role": "user", "content": "Hi"}]
    return {"model": model, "messages": [first, *tail]}


RENDER_MEDIA: dict[str, tuple[str, str, dict[str, Any]]] = {
    "chat_audio_url": ("qwen3", CHAT_R, _user_parts("qwen3", [
        {"type": "audio_url", "audio_url": {"url": "data:audio/wav;base64,UklGRg=="}}])),
    "chat_video_url": ("qwen3", CHAT_R, _user_parts("qwen3", [
        {"type": "video_url", "video_url": {"url": "https://example.com/a.mp4"}}])),
    "chat_image_embeds": ("qwen3", CHAT_R, _user_parts("qwen3", [
        {"type": "image_embeds", "image_embeds": "AAAA"}])),
    "chat_audio_embeds": ("qwen3", CHAT_R, _user_parts("qwen3", [
        {"type": "audio_embeds", "audio_embeds": "AAAA"}])),
    "chat_image_in_system": ("qwen3", CHAT_R, _user_parts("qwen3", [IMAGE], role="system")),
    "chat_image_in_assistant": ("qwen3", CHAT_R, _user_parts("qwen3", [IMAGE], role="assistant")),
    "chat_image_in_tool": ("qwen3", CHAT_R, _user_parts("qwen3", [IMAGE], role="tool",
                                                        tool_call_id="c1")),
    "chat_image_second_turn": ("qwen3", CHAT_R, {"model": "qwen3", "messages": [
        *USER, {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": [{"type": "text", "text": "And this?"}, IMAGE]}]}),
    "chat_image_then_unknown": ("qwen3", CHAT_R, _user_parts("qwen3", [IMAGE, {"type": "bogus"}])),
    "chat_input_image": ("qwen3", CHAT_R, _user_parts("qwen3", [INPUT_IMAGE])),
    "chat_image_url_missing": ("qwen3", CHAT_R, _user_parts("qwen3", [{"type": "image_url"}])),
    "tokenize_image": ("qwen3", "/tokenize", _user_parts("qwen3", [IMAGE])),
    "responses_input_image": ("qwen3", RESPONSES_R, {"model": "qwen3", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "What is this?"},
                                     INPUT_IMAGE]}]}),
    "responses_input_image_no_detail": ("qwen3", RESPONSES_R, {"model": "qwen3", "input": [
        {"role": "user", "content": [{k: v for k, v in INPUT_IMAGE.items() if k != "detail"}]}]}),
    "responses_input_file": ("qwen3", RESPONSES_R, {"model": "qwen3", "input": [
        {"role": "user", "content": [{"type": "input_file", "file_data": "AAAA",
                                      "filename": "a.pdf"}]}]}),
    "messages_image": ("qwen3", MESSAGES_R, {"model": "qwen3", "max_tokens": 8, "messages": [
        {"role": "user", "content": [CLAUDE_IMAGE, {"type": "text", "text": "What is this?"}]}]}),
    "mistral_audio": ("mistral-v3", CHAT_R, _user_parts("mistral-v3", [AUDIO])),
    "mistral_image_embeds": ("mistral-v3", CHAT_R, _user_parts("mistral-v3", [
        {"type": "image_embeds", "image_embeds": "AAAA"}])),
    "mistral_responses_input_image": ("mistral-v3", RESPONSES_R, {"model": "mistral-v3", "input": [
        {"role": "user", "content": [INPUT_IMAGE]}]}),
    "mistral_messages_image": ("mistral-v3", MESSAGES_R, {"model": "mistral-v3", "max_tokens": 8,
                                                          "messages": [{"role": "user",
                                                                        "content": [CLAUDE_IMAGE]}]}),
    "gptoss_audio": ("gpt-oss", CHAT_R, _user_parts("gpt-oss", [AUDIO])),
    "gptoss_image_text": ("gpt-oss", CHAT_R, _user_parts("gpt-oss", [
        {"type": "text", "text": "What is this?"}, IMAGE])),
    "gptoss_responses_input_image": ("gpt-oss", RESPONSES_R, {"model": "gpt-oss", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "What is this?"},
                                     INPUT_IMAGE]}]}),
    "gptoss_messages_image": ("gpt-oss", MESSAGES_R, {"model": "gpt-oss", "max_tokens": 8,
                                                      "messages": [{"role": "user",
                                                                    "content": [CLAUDE_IMAGE]}]}),
}

#: gpt-oss ids past the tokenizer (vocab_size 201088) outside the chat derender: /detokenize
#: (vLLM: "" for any id the tokenizer lacks), /tokenize of their names, the completions derender
TOKENS_GPTOSS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "detokenize_reserved": ("gpt-oss", "/detokenize", {"model": "gpt-oss", "tokens": [
        13225, 200013, 200018, 200019, 201087]}),
    "detokenize_vocab_size": ("gpt-oss", "/detokenize", {"model": "gpt-oss", "tokens": [201088]}),
    "detokenize_far": ("gpt-oss", "/detokenize", {"model": "gpt-oss", "tokens": [300000]}),
    "tokenize_reserved_name": ("gpt-oss", "/tokenize", {"model": "gpt-oss", "return_token_strs": True,
                                                        "prompt": "<|reserved_200019|>"}),
    "detokenize_specials": ("gpt-oss", "/detokenize", {"model": "gpt-oss", "tokens": [
        199998, 199999, 200000, 200002, 200012]}),
    "detokenize_last_rows": ("gpt-oss", "/detokenize", {"model": "gpt-oss", "tokens": [
        201086, 201087, 13225]}),
    "tokenize_endofprompt": ("gpt-oss", "/tokenize", {"model": "gpt-oss", "return_token_strs": True,
                                                      "prompt": "<|endofprompt|>x"}),
    # a lazily validated content (no complete text part: vLLM's OpenAI message types) on the
    # harmony /tokenize: vLLM's body dump empties it (no check, no content), where its chat
    # render checks each part (400)
    **{f"tokenize_lazy_{role}_{tag}": ("gpt-oss", "/tokenize", {"model": "gpt-oss", "messages": [
        *([] if first else [{"role": "user", "content": "Hi"}]),
        {"role": role, "content": [part]}, *([{"role": "user", "content": "Go"}] if first else [])]})
       for role, tag, part, first in (
           ("system", "textless", {"type": "text"}, False),
           ("system", "first", {"type": "bogus"}, True),
           ("developer", "bogus", {"type": "bogus"}, False),
           ("user", "textless", {"type": "text"}, False),
           ("user", "string", "str", False),
           ("user", "image", {"type": "image_url"}, False),
           ("assistant", "refusal", {"type": "refusal"}, False),
           ("tool", "textless", {"type": "text"}, False))},
    "completion_derender_reserved": ("gpt-oss", "/v1/completions/derender", {
        "model": "gpt-oss", "completion_request": {"model": "gpt-oss", "prompt": "Hi"},
        "generate_responses": [{"request_id": "cmpl-reserved", "choices": [{
            "index": 0, "token_ids": [13225, 200019, 13225, 201087], "finish_reason": "length"}]}]}),
    "completion_derender_reserved_keep": ("gpt-oss", "/v1/completions/derender", {
        "model": "gpt-oss", "completion_request": {"model": "gpt-oss", "prompt": "Hi",
                                                   "skip_special_tokens": False},
        "generate_responses": [{"request_id": "cmpl-reserved", "choices": [{
            "index": 0, "token_ids": [13225, 200013, 200019, 201087], "finish_reason": "length"}]}]}),
    "completion_derender_reserved_logprobs": ("gpt-oss", "/v1/completions/derender", {
        "model": "gpt-oss", "completion_request": {"model": "gpt-oss", "prompt": "Hi", "logprobs": 1},
        "generate_responses": [{"request_id": "cmpl-reserved", "choices": [{
            "index": 0, "token_ids": [13225, 200019], "finish_reason": "length",
            "logprobs": lp_entries([13225, 200019], 2)}]}]}),
}

#: a template in vLLM's "openai" content format (it loops over a message's parts) that shows
#: what it gets: a string as S[...], parts as type=text;
PARTS_TEMPLATE = ("{% for m in messages %}{{ m.role }}:{% if m.content is string %}S[{{ m.content }}]"
                  "{% else %}{% for p in m.content %}{{ p.type }}{% if p.text is defined %}="
                  "{{ p.text }}{% endif %}{% if p.name is defined %}={{ p.name }}{% endif %};"
                  "{% endfor %}{% endif %}\n{% endfor %}")
_TOOL_TURN = [*USER, {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}]


def _parts_chat(tool_content: Any) -> dict[str, Any]:
    return chat(chat_template=PARTS_TEMPLATE, tools=TOOLS, messages=[
        *_TOOL_TURN, {"role": "tool", "tool_call_id": "call_1", "content": tool_content}])


#: qwen3 with a request's own template (server ``qwen3-trusted``)
RENDER_CHAT_TEMPLATE: dict[str, tuple[str, str, dict[str, Any]]] = {
    "tool_text_parts": ("qwen3-trusted", CHAT_R, _parts_chat(
        [{"type": "text", "text": "18C"}, {"type": "text", "text": "cloudy"}])),
    "tool_string": ("qwen3-trusted", CHAT_R, _parts_chat("18C")),
    "tool_empty_parts": ("qwen3-trusted", CHAT_R, _parts_chat([])),
    "tool_refusal_part": ("qwen3-trusted", CHAT_R, _parts_chat(
        [{"type": "text", "text": "18C"}, {"type": "refusal", "refusal": "no"}])),
    "tool_reference_part": ("qwen3-trusted", CHAT_R, _parts_chat(
        [{"type": "text", "text": "see"}, {"type": "tool_reference", "name": "get_time"}])),
    "user_text_parts": ("qwen3-trusted", CHAT_R, chat(chat_template=PARTS_TEMPLATE, messages=[
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])),
    "system_text_parts": ("qwen3-trusted", CHAT_R, chat(chat_template=PARTS_TEMPLATE, messages=[
        {"role": "system", "content": [{"type": "text", "text": "Be"},
                                       {"type": "text", "text": "brief."}]}, *USER])),
    "assistant_text_parts": ("qwen3-trusted", CHAT_R, chat(chat_template=PARTS_TEMPLATE, messages=[
        *USER, {"role": "assistant", "content": [{"type": "text", "text": "It"},
                                                 {"type": "text", "text": "rains."}]},
        {"role": "user", "content": "Sure?"}])),
    "tool_input_text_parts": ("qwen3-trusted", CHAT_R, _parts_chat(
        [{"type": "input_text", "text": "18C"}, {"type": "output_text", "text": "dry"}])),
    "tool_string_parts": ("qwen3-trusted", CHAT_R, _parts_chat(["18C", "dry"])),
    "two_tool_results": ("qwen3-trusted", CHAT_R, chat(chat_template=PARTS_TEMPLATE, tools=TOOLS,
                                                       messages=[*_TOOL_TURN, {
        "role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "a"}]}, {
        "role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "b"},
                                                              {"type": "text", "text": "c"}]}])),
}

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
HI = {"role": "user", "content": "Hi"}
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
