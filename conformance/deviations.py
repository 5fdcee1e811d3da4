"""The intended deviations of tito from vLLM 0.33.0, each with its reason: the replay's list.

Why a module of its own: the list is the authoritative record of what tito does differently on
purpose (``docs/conformance.md`` explains each at length); :mod:`conformance.replay` compares
the goldens and asks :func:`deviation_for` whether a difference is one of these. An entry is
fnmatch globs over the golden group, the case name and the differing path; a stale entry (one
no difference matches) fails ``tests/test_conformance.py``.

The render entries are here, the derender and streaming ones in
:mod:`conformance.deviations_derender` (asked after these, in order: the first match explains).
"""

from __future__ import annotations

import fnmatch
from typing import Any

from conformance.deviation_base import (
    BOS_TWICE,
    ECHO_CACHE,
    MISTRAL_PIECES,
    PARAM_NOTATION,
    STOP16,
    TOOL_PARTS,
    VLLM500,
    Deviation,
)
from conformance.deviations_derender import DERENDER

__all__ = ["DEVIATIONS", "Deviation", "deviation_for"]


#: The short, explicit list of intended deviations. Each is a deliberate, better behaviour, except
#: the few whose reason starts "not yet matched" (known gaps, kept visible here and in the docs).
DEVIATIONS: list[Deviation] = [
    # -- render
    Deviation("render_*", "*", "*chat_template_kwargs.cohere_format",
              "vLLM's CLI adds its Cohere renderer's default (cohere_format: cmd4) to every "
              "model's template kwargs; meaningless to other templates, tito does not invent it"),
    Deviation("render_*", "*", "*derender_context",
              "tito extension: render hands derender its settings so derender needs no "
              "chat_request/completion_request (the gateway path); vLLM has no such field"),
    Deviation("render_*", "*", "*sampling_params.stop",
              "stop strings are applied by tito's derender (batch and stream) and not sent to the "
              "tokens-only engine, which would cut text derender still has to see"),
    Deviation("render_*", "*", "*sampling_params.output_text_buffer_length",
              "follows from the stop strings staying in derender (no engine-side buffer needed)"),
    Deviation("render_chat_errors", "top_logprobs_*", "*",
              "tito checks top_logprobs against max_logprobs (and -1 on a bounded model) at "
              "render with a 400; vLLM's render server passes it on and the engine refuses later"),
    Deviation("render_chat", "prompt_logprobs", "sampling_params.skip_reading_prefix_cache",
              "not sent: whether prompt logprobs may read the prefix cache is the engine's "
              "decision (vLLM's render sets it for prompt_logprobs)"),
    Deviation("render_chat", "kv_transfer", "sampling_params.extra_args",
              "kv_transfer_params also ride in sampling_params.extra_args (engines before 0.33 "
              "read them there); the GenerateRequest's own kv_transfer_params match vLLM"),
    Deviation("render_completion_errors", "logprobs_too_many", "*",
              "tito checks logprobs against max_logprobs at render (400); vLLM's engine refuses"),
    Deviation("render_completion_errors", "token_out_of_vocab", "*",
              "a prompt id outside the vocabulary is a 400 at render; vLLM's render server passes "
              "it to the engine"),
    Deviation("render_completion_errors", "prompt_too_long", "error.param",
              "param names the request field (prompt); vLLM names its internal input_tokens"),
    # -- the render fuzzer's cases (fuzz_render.py names a case after the deviations it meets)
    Deviation("render_fuzz*", "*.oov*", "*",
              "a token id outside the vocabulary, negative or too big (stop_token_ids, "
              "allowed_token_ids, logprob_token_ids, logit_bias, prompt ids) is a 400 at "
              "render; vLLM's render server passes it to the engine"),
    Deviation("render_fuzz*", "*.logprobs_bound*", "*",
              "tito checks top_logprobs/logprobs/prompt_logprobs against max_logprobs (20; -1 "
              "on a bounded model; a negative Responses top_logprobs, any integer in vLLM's "
              "body) at render with a 400; vLLM's render passes them on and the engine refuses "
              "later"),
    Deviation("render_fuzz*", "*.stop_many*", "*", STOP16),
    Deviation("render_fuzz*", "*.bare_parts*", "*", TOOL_PARTS),
    Deviation("render_fuzz*", "*.harmony_hosted*", "*",
              "gpt-oss: a required or named tool_choice with a built-in (or mcp) tool is tito's "
              "400; vLLM constrains the output to a call of any recipient (its built-in tool "
              "servers'), which tito, with no tool server, does not offer"),
    Deviation("render_fuzz*", "*.allowed_empty*", "*",
              "an empty allowed_token_ids is a 400 at render (no token could be sampled); "
              "vLLM's render server passes it on and its engine refuses it"),
    Deviation("render_fuzz*", "*.gptoss_max*", "*",
              "max_tokens above max_model_len is a 400 for every model, as vLLM answers for "
              "template models; vLLM's harmony render skips that check and clamps silently"),
    Deviation("render_json_values", "*kv*", "*sampling_params.extra_args",
              "kv_transfer_params also ride in sampling_params.extra_args (engines before 0.33 "
              "read them there)"),
    Deviation("render_fuzz*", "*.kv*", "*sampling_params.extra_args*",
              "kv_transfer_params also ride in sampling_params.extra_args (engines before 0.33 "
              "read them there)"),
    Deviation("render_fuzz*", "*.fromjson*", "*",
              "mistral-v3-hf: the shipped mistral-v3 chat template (tito's own, matching "
              "mistral-common's ids) reads a tool result through tito's fromjson filter, which "
              "vLLM's Jinja environment lacks: vLLM answers 400 where tito renders"),
    Deviation("render_fuzz*", "*responses*.bos_template*", "token_ids", BOS_TWICE),
    Deviation("render_fuzz*", "*responses*.bos_template*", "sampling_params.max_tokens",
              BOS_TWICE),
    Deviation("render_fuzz*", "*detokenize.mistral*", "prompt", MISTRAL_PIECES),
    Deviation("tokens_ids", "detokenize_mistral_*", "prompt", MISTRAL_PIECES),
    Deviation("render_*", "*.vllm500*", "*", VLLM500),
    Deviation("tokens_ids", "*.vllm500*", "*", VLLM500),
    Deviation("render_fuzz*", "*.special_turn*", "*reasoning_ended",
              "DeepSeek-V4 / V4.1: tito's scan back for the reasoning markers stops at the "
              "prompt's newest special token (a turn boundary; here Qwen3's <|im_end|> written "
              "in a message), so a </think> before it says nothing about the turn being "
              "generated (false); vLLM's deepseek_v4 / v41 parsers have no turn boundaries and "
              "scan the whole prompt (true)"),
    Deviation("render_fuzz*", "*.lazy_copy*", "*",
              "DeepSeek-V4.1: vLLM's encoder deep-copies the request's messages, which fails "
              "(a 400: cannot pickle a ValidatorIterator) when its body left a message's part "
              "list an unread iterable (render_chat_parts.lazy_content), or /tokenize's "
              "assistant calls, or a Responses custom_tool_call_output's output list; tito "
              "renders them (docs/conformance.md, DeepSeek-V4.1)"),
    Deviation("render_fuzz*", "*.image41*", "*",
              "DeepSeek-V4.1: an image part the prompt never writes (a developer message the "
              "history drop removes, a message with its own content_blocks) is loaded by vLLM "
              "anyway (a 400 for the fuzzer's undecodable PNG) and then dropped; tito loads no "
              "media and renders without it (an image the prompt writes is vLLM's 400 on both)"),
    Deviation("render_fuzz*", "*", "*sampling_params.skip_reading_prefix_cache", ECHO_CACHE),
    Deviation("render_fuzz*", "*", "error.param", PARAM_NOTATION),
    # -- errors
    Deviation("*", "*", "error.message",
              "wording (pydantic's and each server's own); status, type and param are compared"),
    Deviation("*_errors", "*", "error.param", "tito names the offending field where vLLM sends "
              "null", vllm_null=True),
    Deviation("render_mistral_spent_parts", "*", "error.param", "tito names the offending "
              "field where vLLM sends null (mistral-common's refusals)", vllm_null=True),
    Deviation("render_messages_named", "*_unknown*", "error.param", "tito names the "
              "offending field (tool_choice) where xgrammar's refusal leaves it null",
              vllm_null=True),
    Deviation("derender_errors", "*", "error.param",
              "vLLM's param for these union-typed bodies names pydantic's union member "
              "(body.DerenderChatRequest.x) or stops at the discriminator; tito names the field"),
    Deviation("derender_errors", "completion_prompt_tokens_mismatch", "error.*",
              "a per-prompt length mismatch is a request rule (BadRequestError naming "
              "prompt_tokens); vLLM reports it as a schema error of the whole body"),
    Deviation("derender_errors", "completion_token_out_of_vocab", "*",
              "ids at or above the model's vocab_size are a 400 (ids in [tokenizer size, "
              "vocab_size) decode to '' as in vLLM); vLLM decodes any id to ''"),
    Deviation("derender_errors", "chat_*no_request_parser", "*",
              "without chat_request (nor render's derender_context) the settings are the "
              "request defaults: the model's reasoning parser runs, no tools (the README's "
              "first derender example); vLLM answers 400 when a parser is configured"),
    Deviation("derender_errors", "chat_stream_parser_no_prompt", "*",
              "without prompt ids tito starts the reasoning parser in its initial phase (and "
              "render's derender_context carries the prompt tail); vLLM refuses with 400"),
    *DERENDER,
]


def deviation_for(group: str, case: str, path: str, vllm: Any = None) -> Deviation | None:
    for d in DEVIATIONS:
        if (fnmatch.fnmatchcase(group, d.group) and fnmatch.fnmatchcase(case, d.case)
                and fnmatch.fnmatchcase(path, d.path) and (not d.vllm_null or vllm is None)):
            return d
    return None
