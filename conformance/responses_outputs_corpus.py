"""The ``render_responses_outputs`` group: Responses tool output items' part lists, and the order
of the Responses render's checks, on the models whose paths differ (recorded one server at a
time by ``record.py``).

What vLLM 0.33 does, measured (fuzz_render seed 339 case 57, then these bodies):

- a ``function_call_output``'s ``output`` is a string or a list (openai's ``List``) of
  ``input_text`` (a string ``text``), ``input_image`` or ``input_file`` parts, checked with the
  body: anything else is the schema's 400 (``Bad Request``);
- a ``custom_tool_call_output``'s ``output`` is a string or openai's ``Iterable``, which pydantic
  reads lazily: any JSON container passes the body, an object iterating its keys, and each part
  is checked as the render reads it (an ``input_image`` needs its ``detail``), a bad one the
  render's ``BadRequestError``; an empty object renders as an empty list;
- the Responses render checks, in order: a request's template in ``chat_template_kwargs``
  (untrusted: refused, every model), on gpt-oss its parser's constraint (``structured_outputs``
  with ``text.format``) before the tools and items; then the multimodal kwargs, the output
  budget, the render (an empty conversation, the parts above, Inkling's encoding), and only then
  the sampling ranges (``temperature``, ``top_p``);
- a function tool named ``""`` renders (tito refused it);
- a template in a chat body's ``chat_template_kwargs`` is refused by ``/tokenize`` on a
  mistral-common model too (tito dropped the kwargs unread), never by gpt-oss's harmony paths.

``render_responses_order``: the render's own errors (a mistral-common conversation, a
text-only model's image) before the constraint conflict and the
sampling ranges (tito checked those first, a deviation until then); on gpt-oss, the
constraint's conversion (JSON text that does not parse, a Lark grammar that does not convert, a
structural tag that is not JSON or a legacy one without its keys: vLLM's 500, tito's 400) before
the tools and items, as its conflict already was.
"""

from __future__ import annotations

from typing import Any

RESPONSES_R = "/v1/responses/render"
_HI = {"role": "user", "content": "hi"}
_TEXT = [{"type": "input_text", "text": "x"}]
_PNG = "data:image/png;base64,iVBORw0KGgo="
#: tool outputs: valid and not, for either item type
OUTPUTS: dict[str, Any] = {
    "object": {"a": 1}, "empty_object": {}, "bare_string": ["a"], "empty_list": [],
    "text": _TEXT, "text_without_text": [{"type": "input_text"}],
    "chat_text_part": [{"type": "text", "text": "x"}], "text_then_string": [*_TEXT, "b"],
    "image_without_detail": [{"type": "input_image", "image_url": _PNG}],
    "image": [{"type": "input_image", "detail": "auto", "image_url": _PNG}],
    "file": [{"type": "input_file", "file_data": "x"}],
    "text_extra_key": [{"type": "input_text", "text": "x", "extra": 1}],
    "number": [1], "null": [None], "text_part_alone": {"type": "input_text", "text": "x"},
    "text_breakpoint_null": [{"type": "input_text", "text": "x", "prompt_cache_breakpoint": None}],
    "file_name_null": [{"type": "input_file", "file_data": "x", "filename": None}],
}
_CUSTOM = {"type": "custom_tool_call_output", "call_id": "c", "output": _TEXT}
_TOOL = {"type": "function", "name": "f", "parameters": {"type": "object"}}
#: bodies with two defects (or one), for the order of the checks
ORDER: dict[str, dict[str, Any]] = {
    "temperature": {"input": [_HI, _CUSTOM], "temperature": 5},
    "top_p": {"input": [_HI, _CUSTOM], "top_p": 5},
    "max_output": {"input": [_HI, _CUSTOM], "max_output_tokens": 10**9},
    "mm_kwargs": {"input": [_HI, _CUSTOM], "mm_processor_kwargs": {"a": 1}},
    "mm_kwargs_max_output": {"input": [_HI], "mm_processor_kwargs": {"a": 1},
                             "max_output_tokens": 10**9},
    "constraint_twice": {"input": [_HI, _CUSTOM], "structured_outputs": {"regex": "a"},
                         "text": {"format": {"type": "json_object"}}},
    "bad_part_temperature": {"input": [_HI, {**_CUSTOM, "output": ["a"]}], "temperature": 5},
    "bad_part_max_output": {"input": [_HI, {**_CUSTOM, "output": ["a"]}],
                            "max_output_tokens": 10**9},
    "kwargs_template": {"input": [_HI, _CUSTOM], "chat_template_kwargs": {"chat_template": "x"}},
    "kwargs_template_alone": {"input": "hi", "chat_template_kwargs": {"chat_template": "x"}},
    "empty_temperature": {"input": [], "temperature": 5},
    "empty_max_output": {"input": [], "max_output_tokens": 10**9},
    "tool_name_empty": {"input": "hi", "tools": [{**_TOOL, "name": ""}]},
}
RENDER_RESPONSES_OUTPUTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{f"{kind[:6]}_{name}": ("qwen3", RESPONSES_R, {"model": "qwen3", "input": [
        _HI, {"type": kind, "call_id": "c", "output": output}]})
       for kind in ("custom_tool_call_output", "function_call_output")
       for name, output in OUTPUTS.items()},
    **{f"{server}_custom_{name}": (server, RESPONSES_R, {"model": server, "input": [
        _HI, {**_CUSTOM, "output": OUTPUTS[name]}]})
       for server in ("inkling", "gpt-oss", "mistral-v3")
       for name in ("object", "empty_object", "text")},
    **{f"{server}_order_{name}": (server, RESPONSES_R, {"model": server, **body})
       for server in ("qwen3", "inkling", "gpt-oss", "mistral-v3")
       for name, body in ORDER.items()},
    # a template in the kwargs of the chat render and /tokenize: vLLM's harmony render never
    # looks (gpt-oss), its /tokenize checks it on mistral-common's models too
    **{f"{server}_{label}_{key}": (server, path, {"model": server, "messages": [_HI], key: value})
       for server in ("gpt-oss", "mistral-v3")
       for label, path in (("chat", "/v1/chat/completions/render"), ("tokenize", "/tokenize"))
       for key, value in (("chat_template_kwargs", {"chat_template": "x"}),
                          ("chat_template", "x"))},
}

_REQUIRED = {"tools": [_TOOL], "tool_choice": "required", "structured_outputs": {"regex": "a"}}
_ASSISTANT = {"role": "assistant", "content": "x"}
#: the render's errors before the constraint and the ranges; gpt-oss's constraint before items
RENDER_RESPONSES_ORDER: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{f"{server}_{name}": (server, RESPONSES_R, {"model": server, **body})
       for server, cases in {
           "mistral-v3": {
               "tool_after_user_temperature_negative": {"input": [_HI, _CUSTOM],
                                                        "temperature": -1},
               "tool_after_user_top_p_zero": {"input": [_HI, _CUSTOM], "top_p": 0},
               "assistant_only_temperature": {"input": [_ASSISTANT], "temperature": 5},
               "assistant_only_constraint_twice": {
                   "input": [_ASSISTANT], "structured_outputs": {"regex": "a"},
                   "text": {"format": {"type": "json_object"}}},
               "tool_after_user_required_constraint": {"input": [_HI, _CUSTOM], **_REQUIRED},
               "required_constraint": {"input": [_HI], **_REQUIRED},
           },
           "qwen3": {
               "image_temperature": {"input": [{"role": "user", "content": [
                   {"type": "input_image", "image_url": _PNG, "detail": "auto"}]}],
                   "temperature": 5},
               "image_constraint_twice": {"input": [{"role": "user", "content": [
                   {"type": "input_image", "image_url": _PNG, "detail": "auto"}]}],
                   "structured_outputs": {"regex": "a"},
                   "text": {"format": {"type": "json_object"}}},
           },
           "gpt-oss": {
               **{f"constraint_{name}_items": {
                   "input": [_HI, _CUSTOM], "structured_outputs": so}
                  for name, so in (("json_text", {"json": "not json"}),
                                   ("lark", {"grammar": 'start: ("a"'}),
                                   ("tag_text", {"structural_tag": "nope"}))},
               "constraint_json_text_temperature": {
                   "input": [_HI], "structured_outputs": {"json": "not json"}, "temperature": 5},
               "constraint_json_text_tools": {
                   "input": [_HI], "structured_outputs": {"json": "not json"},
                   "tools": [{"type": "custom", "name": "x"}]},
               "tag_legacy_no_triggers.vllm500": {"input": [_HI], "structured_outputs": {
                   "structural_tag": '{"structures": [{"begin": "a", "schema": {}, "end": "b"}]}'}},
               "tag_legacy_no_schema.vllm500": {"input": [_HI], "structured_outputs": {
                   "structural_tag": '{"structures": [{"begin": "a"}], "triggers": ["a"]}'}},
           },
       }.items() for name, body in cases.items()},
}

#: a Responses body's ``structured_outputs`` is vLLM's ``StructuredOutputsParams``: a kind of
#: the wrong type is the schema's 400 (tito read it at render, its 400 of another type), a
#: known switch passes, none given is the rule's 400 (``render_responses_constraints``)
_CONSTRAINTS: dict[str, Any] = {
    "json_number": {"json": 5}, "regex_number": {"regex": 5}, "choice_string": {"choice": "x"},
    "choice_numbers": {"choice": [1]}, "json_object_string": {"json_object": "x"},
    "grammar_list": {"grammar": []}, "structural_tag_number": {"structural_tag": 5},
    "json_extra": {"json": {"type": "object"}, "disable_any_whitespace": True},
    "json_null": {"json": None}, "empty": {},
}
RENDER_RESPONSES_CONSTRAINTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"{server}_{name}": (server, RESPONSES_R, {"model": server, "input": [_HI],
                                               "structured_outputs": so})
    for server in ("qwen3", "gpt-oss") for name, so in _CONSTRAINTS.items()
}

#: a message item's parts (``render_responses_messages``): openai's input part types only, each
#: checked with the body (a bare string, a chat ``text`` part, a null breakpoint: the schema's
#: 400; an image without ``detail`` gets vLLM's ``"auto"``); an assistant item without a first
#: text is the chat message it is (``[]``: no content), unless it is an output message
_MESSAGE_PARTS: dict[str, Any] = {
    "bare": ["a"], "chat_text": [{"type": "text", "text": "x"}],
    "text_without_text": [{"type": "input_text"}], "image_without_detail": [
        {"type": "input_image", "image_url": _PNG}], "file": [{"type": "input_file",
                                                           "file_data": "x"}],
    "number": [1], "text_number": [{"type": "input_text", "text": 1}], "empty": [],
    "text": _TEXT, "text_then_string": [*_TEXT, "b"],
    "breakpoint_null": [{"type": "input_text", "text": "x", "prompt_cache_breakpoint": None}],
    "image_detail_null": [{"type": "input_image", "image_url": _PNG, "detail": None}],
}
RENDER_RESPONSES_MESSAGES: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"{role}{'_typed' if typed else ''}_{name}": ("qwen3", RESPONSES_R, {
        "model": "qwen3", "input": [
            {"role": role, "content": parts, **({"type": "message"} if typed else {})},
            *([_HI] if role != "user" else [])]})
    for role in ("user", "system", "developer", "assistant") for typed in (False, True)
    for name, parts in _MESSAGE_PARTS.items()
    if not (role == "assistant" and typed and name == "empty")  # (vLLM's 500)
}
#: a chat body's ``top_logprobs: null`` is 0 (vLLM's ``TopLogprobsParam``): the logprobs of
#: ``logprobs: true``, the prompt logprobs of ``echo`` (fuzz_render seed 347 case 66)
RENDER_TOP_LOGPROBS_NULL: dict[str, tuple[str, str, dict[str, Any]]] = {
    name: ("qwen3", "/v1/chat/completions/render", {"model": "qwen3", "messages": [_HI],
                                                     "top_logprobs": None, **extra})
    for name, extra in {"logprobs": {"logprobs": True}, "echo": {"echo": True},
                        "echo_logprobs": {"echo": True, "logprobs": True},
                        "alone": {}, "logprobs_false": {"logprobs": False},
                        "echo_prompt_logprobs": {"echo": True, "prompt_logprobs": 2},
                        "echo_prompt_logprobs_null": {"echo": True, "prompt_logprobs": None},
                        "logprob_token_ids": {"logprobs": True, "logprob_token_ids": [1, 2]},
                        "stream_echo": {"echo": True, "stream": True},
                        "tokenize": {"echo": True}}.items()
}
RENDER_TOP_LOGPROBS_NULL["tokenize"] = ("qwen3", "/tokenize", {
    "model": "qwen3", "messages": [_HI], "top_logprobs": None})
