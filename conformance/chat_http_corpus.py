"""Single-call HTTP groups of the chat render and ``/tokenize``: media parts on text-only
models, gpt-oss ids past its tokenizer, a request's own template, and the message dicts a
template gets (``render_media_errors``, ``tokens_gptoss``, ``render_chat_template``; the
message dicts' group ``render_chat_messages`` is :mod:`conformance.chat_messages_corpus`)."""

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
HI = {"role": "user", "content": "Hi"}
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
