"""The record of an intended deviation, and the reasons several entries share.

Why a module of its own: the intended deviations are two lists (render in
:mod:`conformance.deviations`, derender and streaming in :mod:`conformance.deviations_derender`),
both written with these; neither list module imports the other's.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Deviation"]


@dataclass(frozen=True)
class Deviation:
    """An intended difference: where it applies (fnmatch globs) and why tito differs."""

    group: str
    case: str
    path: str
    reason: str
    vllm_null: bool = False  #: only where vLLM's value is null


#: reasons shared by several entries
STOP_ANY_FINISH = ("stop strings are applied wherever they occur in the output, whatever the "
    "finish reason (tito's render keeps them from the engine, which so never cuts there); "
    "vLLM's derender looks only on a 'stop' finish, for the string the engine reported or, "
    "when it reported none, the request's")
MISTRAL_PIECES = ("/detokenize on a Mistral tokenizer gives the text; vLLM's (mistral-common with "
    "special tokens kept) gives the raw SentencePiece pieces, '\u2581' for spaces")
VLLM500 = ("vLLM answers 5xx (an unhandled exception, e.g. structured_outputs that is not an "
    "object, openai-harmony's NotImplementedError for a reasoning object it must render, or "
    "mistral-common's decode of an id past its vocabulary); tito refuses the body with a 400")
STOP16 = ("up to 16 stop strings are accepted (tito's own bound: they ride in the stream "
    "state); vLLM's OpenAI layer refuses more than 4 (VLLM_MAX_STOP_STRINGS)")
ECHO_CACHE = ("not sent: whether prompt logprobs (echo) may read the prefix cache is the "
    "engine's decision (vLLM's render sets it)")
TOOL_PARTS = ("tito takes bare strings and Responses-style text parts (input_text, "
    "output_text) in any message's content; vLLM's tool message type takes only text parts (400), "
    "and on gpt-oss a bare string part of a message of vLLM's custom type (any role) crashes its "
    "harmony conversion (500: 'str' object has no attribute 'get')")
HELD_STOP = ("a stop token at the end of a chunk is held until the next chunk says whether it "
    "ended the output, so a finish-only chunk still drops it (not shown as text) and reports it, "
    "as batch does; vLLM's stream only looks at the finishing chunk's own ids")
BOS_TWICE = ("Responses render of a template that writes the BOS itself (a Llama-style "
    "tokenizer.json: mistral-v3-hf): one BOS, as chat render gives; vLLM 0.33 tokenizes the "
    "Responses prompt with add_special_tokens (its TokenizeParams default), so its ids start "
    "with two BOS and its default max_tokens is one smaller")
MISTRAL_SKIP = ("skip_special_tokens drops every special token from content, [TOOL_CALLS] too "
    "(vLLM's Mistral detokenizer keeps [TOOL_CALLS] as text under skip_special_tokens, so with "
    "tool_choice none the answer shows the marker)")
REASONING_TOKENS = ("tito reports usage.completion_tokens_details.reasoning_tokens (OpenAI's "
    "field) on the reasoning path (batch, and a stream's usage of one choice); vLLM's derender "
    "leaves it null")
HARMONY_OTHER_AUTHOR = ("gpt-oss: a message whose header openai-harmony reads as another "
    "author's (a padded-vocabulary id before the role: `<|reserved_N|>assistant`, author role "
    "tool) is not the assistant's, in the stream as in batch: no tool call (vLLM's batch drops "
    "it; its stream reads only the recipient and emits the call)")
PARAM_NOTATION = ("tito names the request field in one notation (vLLM mixes pydantic locations "
    "with union member names, 'body.' prefixes and bare names)")
#: vLLM 0.33's HYV4ToolParser reads ``tool.function`` of every request tool: a Responses tool
#: (FunctionTool, no ``function``) makes its render a 500 with this message; tito renders these
#: requests (their chat twins check the tag: ``tests/test_structural_tags.py``)
HY_V4_RESPONSES_500 = "'FunctionTool' object has no attribute 'function'"
