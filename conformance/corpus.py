"""The conformance corpus: request bodies sent to the real vLLM 0.33.0 and to tito.

Why a Python module rather than JSON files: derender cases need engine token ids, which are
written here as text and encoded with the model's own ``tokenizer.json`` (the ``tokenizers``
package is in both the vLLM venv and tito's environment). ``record.py`` turns every case into a
golden file (request as sent + vLLM's answer); the test replays the *stored* requests, so the
corpus is only read at recording time.

A case is a dict:

- ``kind: "http"``: one POST (``server``, ``path``, ``body``); render and batch derender cases
  whose prompt must come from render name a ``chat_request`` instead of ``body`` and the
  recorder renders it first (``prompt_token_ids`` = vLLM's render).
- ``kind: "stream"``: a streaming derender; ``chunks`` is a list of engine events, sent one call
  each, vLLM driven as its protocol requires (``stream_state`` echoed, ``chat_request`` /
  ``completion_request`` and ``prompt_token_ids`` on every call).
"""

from __future__ import annotations

from typing import Any

from conformance import (
    assistant_union_corpus, derender_dup_chunk_corpus, derender_entries_corpus,
    derender_ids_corpus, derender_index_corpus, derender_stop_reason_corpus,
    derender_surrogate_corpus, inkling_lazy_corpus, lazy_dump_corpus,
    message_edges_corpus, nonfinite_corpus, request_fields_corpus, responses_outputs_corpus,
    responses_tools_corpus, stream_after_finish_corpus, structural_model_corpus,
    structured_options_corpus, tokenize_calls_corpus, union_parts_corpus,
)
from conformance.chat_http_corpus import (
    CHAT_R, MESSAGES_R, PARTS_TEMPLATE, RENDER_CHAT_TEMPLATE, RENDER_MEDIA, RESPONSES_R,
    TOKENS_GPTOSS,
)
from conformance.chat_messages_corpus import (
    DUMP_TEMPLATE, PARTS_DUMP_TEMPLATE, RENDER_CHAT_MESSAGES,
)
from conformance.corpus_edge import (
    DERENDER_CHAT_EDGE, RENDER_CHAT_EDGE, RENDER_CHAT_EDGE_ERRORS, STREAM_CHAT_EDGE,
)
from conformance.edge_values_corpus import (
    DERENDER_STOP_EMPTY, RENDER_TEMPLATE_VARS, TOKENS_IDS,
)
from conformance.corpus_gptoss import (
    DERENDER_CHAT_GPTOSS, RENDER_CHAT_GPTOSS, RENDER_CHAT_GPTOSS_ERRORS, STREAM_CHAT_GPTOSS,
)
from conformance.corpus_mistral import (
    DERENDER_CHAT_MISTRAL, RENDER_CHAT_MISTRAL, RENDER_CHAT_MISTRAL_ERRORS, STREAM_CHAT_MISTRAL,
)
from conformance.corpus_base import (
    END_THINK, END_TOOL_CALL, EOS_IDS, EOT, HARMONY_RETURN, IM_END, IM_START, MODELS, NATIVE,
    THINK, TOOL_CALL, TOOLS, _tok, chunkings, ids, mistral_folder, mistral_hf_folder,
    native_folder,
)
from conformance.corpus_qwen3 import (
    DERENDER_CHAT, DERENDER_COMPLETION, DERENDER_ERRORS, RENDER_CHAT, RENDER_CHAT_ERRORS,
    RENDER_COMPLETION, RENDER_COMPLETION_ERRORS, STREAM_CHAT, STREAM_COMPLETION,
)
from conformance.responses_http_corpus import (
    RENDER_RESPONSES_CUSTOM, RENDER_RESPONSES_CUSTOM_GPTOSS, RENDER_RESPONSES_ITEMS,
    RENDER_RESPONSES_TOOLS,
)

#: what record.py, replay.py, the fuzzers and the tests read here (the per-model corpora and
#: the shared pieces live in their own modules: corpus_base, corpus_qwen3, corpus_gptoss,
#: corpus_mistral, corpus_edge, chat_http_corpus, chat_messages_corpus, responses_http_corpus)
__all__ = [
    "CHAT_MODELS", "DERENDER_COMPLETION", "DERENDER_ERRORS", "DUMP_TEMPLATE", "END_THINK",
    "END_TOOL_CALL", "EOS_IDS", "EOT", "HARMONY_RETURN", "HTTP_GROUPS", "IM_END", "IM_START",
    "STREAM_GROUPS",
    "MODELS", "NATIVE", "PARTS_DUMP_TEMPLATE", "PARTS_TEMPLATE", "RENDER_COMPLETION",
    "RENDER_COMPLETION_ERRORS", "STREAM_COMPLETION", "THINK", "TOOLS", "TOOL_CALL", "_tok",
    "chunkings", "ids", "mistral_folder", "mistral_hf_folder", "native_folder",
]

#: chat corpora per served model: group-name suffix -> (server, render, render errors, batch
#: derender, names of the batch cases replayed as streams). Groups: ``render_chat{suffix}``,
#: ``render_chat{suffix}_errors``, ``derender_chat{suffix}``, ``stream_chat{suffix}``.
CHAT_MODELS: dict[str, tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], list[str]]] = {
    "": ("qwen3", RENDER_CHAT, RENDER_CHAT_ERRORS, DERENDER_CHAT, STREAM_CHAT),
    "_gptoss": ("gpt-oss", RENDER_CHAT_GPTOSS, RENDER_CHAT_GPTOSS_ERRORS, DERENDER_CHAT_GPTOSS,
                STREAM_CHAT_GPTOSS),
    "_mistral": ("mistral-v3", RENDER_CHAT_MISTRAL, RENDER_CHAT_MISTRAL_ERRORS,
                 DERENDER_CHAT_MISTRAL, STREAM_CHAT_MISTRAL),
    "_edge": ("qwen3", RENDER_CHAT_EDGE, RENDER_CHAT_EDGE_ERRORS, DERENDER_CHAT_EDGE,
              STREAM_CHAT_EDGE),
}



#: groups of single HTTP cases (name -> (server, path, body)), each recorded and replayed as is
HTTP_GROUPS: dict[str, dict[str, tuple[str, str, dict[str, Any]]]] = {
    "render_media_errors": RENDER_MEDIA, "tokens_gptoss": TOKENS_GPTOSS, "tokens_ids": TOKENS_IDS,
    "derender_stop_empty": DERENDER_STOP_EMPTY, "render_template_vars": RENDER_TEMPLATE_VARS,
    "render_chat_template": RENDER_CHAT_TEMPLATE, "render_chat_messages": RENDER_CHAT_MESSAGES,
    "render_responses_items": RENDER_RESPONSES_ITEMS,
    "render_responses_tools": RENDER_RESPONSES_TOOLS,
    "render_responses_custom": RENDER_RESPONSES_CUSTOM,
    "render_responses_custom_gptoss": RENDER_RESPONSES_CUSTOM_GPTOSS,
}

#: the Messages render's thinking settings on every model: vLLM probes which reasoning_effort
#: turns thinking off per model ("none", or "low" when the template refuses or ignores it)
_THINKING = {"disabled": {"type": "disabled"}, "enabled": {"type": "enabled", "budget_tokens": 1024},
             "adaptive": {"type": "adaptive"}, "unset": None}
RENDER_MESSAGES_MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"{server}_thinking_{name}": (server, MESSAGES_R, {
        "model": server, "max_tokens": 2000, "messages": [{"role": "user", "content": "Hi"}],
        **({"thinking": thinking} if thinking else {})})
    for server in ("qwen3", "mistral-v3", "gpt-oss") for name, thinking in _THINKING.items()
}
HTTP_GROUPS["render_messages_models"] = RENDER_MESSAGES_MODELS
HTTP_GROUPS["render_json_values"] = nonfinite_corpus.RENDER_JSON_VALUES
HTTP_GROUPS["render_responses_outputs"] = responses_outputs_corpus.RENDER_RESPONSES_OUTPUTS
HTTP_GROUPS["render_responses_order"] = responses_outputs_corpus.RENDER_RESPONSES_ORDER
HTTP_GROUPS["render_responses_constraints"] = \
    responses_outputs_corpus.RENDER_RESPONSES_CONSTRAINTS
HTTP_GROUPS["render_responses_messages"] = responses_outputs_corpus.RENDER_RESPONSES_MESSAGES
HTTP_GROUPS["render_top_logprobs_null"] = responses_outputs_corpus.RENDER_TOP_LOGPROBS_NULL
#: a chat body's explicit ``tool_choice: null`` beside tools stays null in vLLM's parse_context
#: (only an absent one defaults to "auto"; tito wrote "auto": fuzz_render seed 350 case 254,
#: on inkling with a null template in its kwargs)
_PING = [{"type": "function", "function": {"name": "ping"}}]
HTTP_GROUPS["render_tool_choice_null"] = {
    f"{server}_{name}": (server, CHAT_R, {"model": server, "messages": [{"role": "user",
                                                                         "content": "hi"}],
                                          "tools": _PING, **extra})
    for server in ("qwen3", "gpt-oss", "mistral-v3")
    for name, extra in (("null", {"tool_choice": None}), ("absent", {}),
                        ("null_tools_null", {"tools": None, "tool_choice": None}),
                        ("null_kwargs_template_null", {"tool_choice": None,
                                                       "chat_template_kwargs": {
                                                           "chat_template": None}}))
}

#: gpt-oss's ``/tokenize`` reads a message's deprecated ``reasoning_content`` as its chat render
#: does (vLLM's harmony render: the analysis of a tool-calling turn, its Message validation's 400
#: for a non-text one), where the template path drops it (fuzz_render seed 706, case 107; the
#: same bodies' chat render matches vLLM too)
_HI_OK = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]
_CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
TOKENIZE_HARMONY_REASONING: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"tokenize_{name}": ("gpt-oss", "/tokenize", {"model": "gpt-oss", "messages": messages})
    for name, messages in {
        "int": [{"role": "assistant", "content": "<think>x", "reasoning_content": 3}],
        "list": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": [1]}],
        "object": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": {"a": 1}}],
        "empty_object": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": {}}],
        "null": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": None}],
        "true": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": True}],
        "empty_text": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": ""}],
        "on_user": [{**_HI_OK[0], "reasoning_content": "u"}, _HI_OK[1]],
        "text_last": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": "thought"}],
        "text_earlier": [_HI_OK[0], {**_HI_OK[1], "reasoning_content": "thought"},
                         {"role": "user", "content": "more"}],
        "text_tool_turn": [
            _HI_OK[0], {"role": "assistant", "content": None, "reasoning_content": "th",
                        "tool_calls": [_CALL]},
            {"role": "tool", "tool_call_id": "c", "content": "r"}],
        "both_names": [_HI_OK[0], {**_HI_OK[1], "reasoning": "r1", "reasoning_content": "r2"},
                       {"role": "user", "content": "more"}],
    }.items()
}
HTTP_GROUPS["tokenize_harmony_reasoning"] = TOKENIZE_HARMONY_REASONING


#: a message whose field vLLM's own message type refuses (``task`` not a string) is its role's
#: OpenAI type, whose parts pydantic checks as vLLM's render iterates them: each must be one
#: of the role's OpenAI part types (a ``thinking`` part is a 400 there; fuzz_render seed 701,
#: case 274), on the chat render and ``/tokenize`` alike; ``task_str``: vLLM's type, parts free
_PNG = "data:image/png;base64,iVBORw0KGgo="
_OPENAI_PARTS_MESSAGES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "user_thinking": (CHAT_R, [{"role": "user", "task": 1, "content": [
        {"type": "thinking", "thinking": "hm"}]}]),
    "user_text_thinking_tokenize": ("/tokenize", [{"role": "user", "task": {"id": "a"}, "content": [
        {"type": "text", "text": "a"}, {"type": "thinking", "thinking": "hm"}]}]),
    "user_thinking_task_str": (CHAT_R, [{"role": "user", "task": "t", "content": [
        {"type": "thinking", "thinking": "hm"}]}]),
    "user_image_string": (CHAT_R, [{"role": "user", "task": 1, "content": [
        {"type": "image_url", "image_url": _PNG}]}]),
    "user_video": ("/tokenize", [{"role": "user", "task": 1, "content": [
        {"type": "video_url", "video_url": {"url": "https://example.com/a.mp4"}}]}]),
    "user_breakpoint_bad": ("/tokenize", [{"role": "user", "task": 1, "content": [
        {"type": "text", "text": "a", "prompt_cache_breakpoint": {"mode": "x"}}]}]),
    "user_breakpoint_good": ("/tokenize", [{"role": "user", "task": 1, "content": [
        {"type": "text", "text": "a", "prompt_cache_breakpoint": {"mode": "explicit"}}]}]),
    "user_audio_format": (CHAT_R, [{"role": "user", "task": 1, "content": [
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "ogg"}}]}]),
    "assistant_refusal": (CHAT_R, [{"role": "assistant", "task": 1, "content": [
        {"type": "refusal", "refusal": "no"}]}, {"role": "user", "content": "x"}]),
    "assistant_thinking": (CHAT_R, [{"role": "assistant", "task": 1, "content": [
        {"type": "thinking", "thinking": "hm"}]}, {"role": "user", "content": "x"}]),
    "system_refusal": (CHAT_R, [{"role": "system", "task": 1, "content": [
        {"type": "refusal", "refusal": "no"}]}, {"role": "user", "content": "x"}]),
    "developer_tool_reference": (CHAT_R, [{"role": "developer", "task": 1, "content": [
        {"type": "tool_reference", "name": "f"}]}, {"role": "user", "content": "x"}]),
    "tool_text": ("/tokenize", [{"role": "tool", "task": 1, "tool_call_id": "c", "content": [
        {"type": "text", "text": "r"}]}]),
    "tool_thinking": ("/tokenize", [{"role": "tool", "task": 1, "tool_call_id": "c", "content": [
        {"type": "thinking", "thinking": "hm"}]}]),
}
#: the same on gpt-oss, whose harmony render reads such parts' texts (a complete text part in
#: such a message renders: tito refused it before); its /tokenize never reads them
_OPENAI_PARTS_GPTOSS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "gptoss_user_text": (CHAT_R, [{"role": "user", "task": 1, "content": [
        {"type": "text", "text": "hi"}]}]),
    "gptoss_user_thinking": (CHAT_R, [{"role": "user", "task": 1, "content": [
        {"type": "thinking", "thinking": "hm"}]}]),
    "gptoss_user_image_string": (CHAT_R, [{"role": "user", "task": 1, "content": [
        {"type": "image_url", "image_url": "x"}]}]),
    "gptoss_assistant_text": (CHAT_R, [{"role": "user", "content": "q"}, {
        "role": "assistant", "task": 1, "content": [{"type": "text", "text": "ans"}]},
        {"role": "user", "content": "x"}]),
    "gptoss_assistant_refusal": (CHAT_R, [{"role": "user", "content": "q"}, {
        "role": "assistant", "task": 1, "content": [{"type": "refusal", "refusal": "no"}]},
        {"role": "user", "content": "x"}]),
    "gptoss_system_text": (CHAT_R, [{"role": "system", "task": 1, "content": [
        {"type": "text", "text": "sys"}]}, {"role": "user", "content": "x"}]),
    "gptoss_user_thinking_tokenize": ("/tokenize", [{"role": "user", "task": 1, "content": [
        {"type": "thinking", "thinking": "hm"}]}]),
}
OPENAI_PARTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    name: (server, path, {"model": server, "messages": messages})
    for server, group in (("qwen3", _OPENAI_PARTS_MESSAGES), ("gpt-oss", _OPENAI_PARTS_GPTOSS))
    for name, (path, messages) in group.items()
}
HTTP_GROUPS["render_openai_parts_errors"] = OPENAI_PARTS

#: DeepSeek-V3.2's encoding renders an empty conversation when tools make it a system message
#: (vLLM 0.33 on chat, /tokenize, Responses and Messages, whose user message of an empty text
#: block is dropped: fuzz_render seed 337, case 357); without tools it fails (vLLM's 500)
_T32 = [{"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {}}}}]
_T32B = [*_T32, {"type": "function", "function": {"name": "ping", "description": "Ping"}}]
_RT32 = [{"type": "function", "name": "get_time", "parameters": {"type": "object",
                                                                  "properties": {}}}]
_MT32 = [{"name": "get_time", "input_schema": {"type": "object", "properties": {}}}]
DSV32_EMPTY: dict[str, tuple[str, str, dict[str, Any]]] = {
    name: ("dsv32", path, {"model": "dsv32", **body}) for name, (path, body) in {
        "chat_tools": (CHAT_R, {"messages": [], "tools": _T32}),
        "chat_two_tools": (CHAT_R, {"messages": [], "tools": _T32B}),
        "chat_tools_choice_none": (CHAT_R, {"messages": [], "tools": _T32,
                                            "tool_choice": "none"}),
        "chat_tools_thinking": (CHAT_R, {"messages": [], "tools": _T32,
                                         "chat_template_kwargs": {"thinking": True}}),
        "tokenize_tools": ("/tokenize", {"messages": [], "tools": _T32}),
        "tokenize_tools_thinking": ("/tokenize", {"messages": [], "tools": _T32,
                                                  "chat_template_kwargs": {"thinking": True}}),
        "tokenize_two_tools": ("/tokenize", {"messages": [], "tools": _T32B}),
        "responses_tools": (RESPONSES_R, {"input": [], "tools": _RT32}),
        "responses_tools_choice_none": (RESPONSES_R, {"input": [], "tools": _RT32,
                                                      "tool_choice": "none"}),
        "messages_empty_text_tools": (MESSAGES_R, {"max_tokens": 1024, "tools": _MT32,
                                                   "messages": [{"role": "user", "content": [
                                                       {"type": "text"}]}]}),
        "messages_none_tools": (MESSAGES_R, {"max_tokens": 1024, "tools": _MT32,
                                             "messages": []}),
    }.items()
}
HTTP_GROUPS["render_dsv32_empty"] = DSV32_EMPTY

#: vLLM 0.33 request fields no other group sends (request_fields_corpus)
HTTP_GROUPS["render_request_fields"] = request_fields_corpus.RENDER_REQUEST_FIELDS
#: every Responses tool kind's fields, good and bad (responses_tools_corpus)
HTTP_GROUPS["render_responses_tool_shapes"] = responses_tools_corpus.RENDER_RESPONSES_TOOL_SHAPES
HTTP_GROUPS["render_union_parts"] = union_parts_corpus.RENDER_UNION_PARTS
HTTP_GROUPS["render_untyped_parts_errors"] = union_parts_corpus.RENDER_UNTYPED_PARTS_ERRORS
HTTP_GROUPS["render_structured_options"] = structured_options_corpus.RENDER_STRUCTURED_OPTIONS
HTTP_GROUPS["render_responses_item_shapes"] = responses_tools_corpus.RENDER_RESPONSES_ITEM_SHAPES
HTTP_GROUPS["render_structural_model"] = structural_model_corpus.RENDER_STRUCTURAL_MODEL
HTTP_GROUPS["render_tokenize_kwargs"] = request_fields_corpus.RENDER_TOKENIZE_KWARGS
#: chat messages at the edges of vLLM's message union (message_edges_corpus)
HTTP_GROUPS["render_message_edges"] = message_edges_corpus.RENDER_MESSAGE_EDGES
#: gpt-oss /tokenize: which lazily validated contents survive its body dump (lazy_dump_corpus)
HTTP_GROUPS["render_tokenize_lazy_dump"] = lazy_dump_corpus.RENDER_TOKENIZE_LAZY_DUMP
#: DeepSeek-V4.1: every written message's tools / tool_calls in OpenAI's shape (message_edges)
HTTP_GROUPS["render_dsv41_shapes"] = message_edges_corpus.RENDER_DSV41_SHAPES
#: logprob ids past the tokenizers' 32-bit ids: vLLM's 400 where it decodes them
HTTP_GROUPS["derender_logprob_ids"] = derender_ids_corpus.DERENDER_LOGPROB_IDS
#: an engine's logprob list longer / shorter than its ids; odd choice indexes (a stream's first
#: call compared without its state)
HTTP_GROUPS["derender_logprob_entries"] = derender_entries_corpus.DERENDER_LOGPROB_ENTRIES
HTTP_GROUPS["derender_choice_index"] = derender_index_corpus.DERENDER_CHOICE_INDEX
#: an engine stop_reason string while the last id is an EOS (derender_stop_reason_corpus)
HTTP_GROUPS["derender_stop_reason_eos"] = derender_stop_reason_corpus.DERENDER_STOP_REASON_EOS
#: two choices of one index in one stream chunk (derender_dup_chunk_corpus)
HTTP_GROUPS["derender_chunk_dup"] = derender_dup_chunk_corpus.DERENDER_CHUNK_DUP
#: a call's arguments with a lone surrogate escape (derender_surrogate_corpus)
HTTP_GROUPS["derender_lone_surrogate"] = derender_surrogate_corpus.DERENDER_LONE_SURROGATE

#: groups of streams (name -> (server, path, settings key, settings, prompt ids, engine
#: chunks)), each driven on vLLM as its protocol asks (``record.Recorder.stream``) and replayed
#: as the chat groups' streams are (``replay.compare_case``)
STREAM_GROUPS: dict[str, dict[str, tuple[str, str, str, dict[str, Any], list[int],
                                         list[dict[str, Any]]]]] = {
    "stream_logprob_entries": derender_entries_corpus.STREAM_LOGPROB_ENTRIES,
    "stream_choice_index": derender_index_corpus.STREAM_CHOICE_INDEX,
    "stream_stop_reason_eos": derender_stop_reason_corpus.STREAM_STOP_REASON_EOS,
    "stream_chunk_dup": derender_dup_chunk_corpus.STREAM_CHUNK_DUP,
    "stream_lone_surrogate": derender_surrogate_corpus.STREAM_LONE_SURROGATE,
    "stream_after_finish": stream_after_finish_corpus.STREAM_AFTER_FINISH,
    "stream_request_id_change": stream_after_finish_corpus.STREAM_REQUEST_ID_CHANGE,
}
#: Inkling: OpenAI-typed messages' parts and calls (inkling_lazy_corpus)
HTTP_GROUPS["render_inkling_lazy"] = inkling_lazy_corpus.RENDER_INKLING_LAZY
HTTP_GROUPS["render_assistant_union"] = assistant_union_corpus.RENDER_ASSISTANT_UNION
HTTP_GROUPS["render_tokenize_sent_calls"] = tokenize_calls_corpus.RENDER_TOKENIZE_SENT_CALLS
