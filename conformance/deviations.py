"""The intended deviations of tito from vLLM 0.33.0, each with its reason: the replay's list.

Why a module of its own: the list is the authoritative record of what tito does differently on
purpose (``docs/conformance.md`` explains each at length); :mod:`conformance.replay` compares
the goldens and asks :func:`deviation_for` whether a difference is one of these. An entry is
fnmatch globs over the golden group, the case name and the differing path; a stale entry (one
no difference matches) fails ``tests/test_conformance.py``.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

__all__ = ["DEVIATIONS", "Deviation", "deviation_for"]


@dataclass(frozen=True)
class Deviation:
    """An intended difference: where it applies (fnmatch globs) and why tito differs."""

    group: str
    case: str
    path: str
    reason: str
    vllm_null: bool = False  #: only where vLLM's value is null


#: reasons shared by several entries
_STOP_ANY_FINISH = ("stop strings are applied wherever they occur in the output, whatever the "
    "finish reason (tito's render keeps them from the engine, which so never cuts there); "
    "vLLM's derender looks only on a 'stop' finish, for the string the engine reported or, "
    "when it reported none, the request's")
_MISTRAL_PIECES = ("/detokenize on a Mistral tokenizer gives the text; vLLM's (mistral-common with "
    "special tokens kept) gives the raw SentencePiece pieces, '\u2581' for spaces")
_VLLM500 = ("vLLM answers 5xx (an unhandled exception, e.g. structured_outputs that is not an "
    "object, openai-harmony's NotImplementedError for a reasoning object it must render, or "
    "mistral-common's decode of an id past its vocabulary); tito refuses the body with a 400")
_STOP16 = ("up to 16 stop strings are accepted (tito's own bound: they ride in the stream "
    "state); vLLM's OpenAI layer refuses more than 4 (VLLM_MAX_STOP_STRINGS)")
_ECHO_CACHE = ("not sent: whether prompt logprobs (echo) may read the prefix cache is the "
    "engine's decision (vLLM's render sets it)")
_TOOL_PARTS = ("tito takes bare strings and Responses-style text parts (input_text, "
    "output_text) in any message's content; vLLM's tool message type takes only text parts (400)")
_HELD_STOP = ("a stop token at the end of a chunk is held until the next chunk says whether it "
    "ended the output, so a finish-only chunk still drops it (not shown as text) and reports it, "
    "as batch does; vLLM's stream only looks at the finishing chunk's own ids")
_BOS_TWICE = ("Responses render of a template that writes the BOS itself (a Llama-style "
    "tokenizer.json: mistral-v3-hf): one BOS, as chat render gives; vLLM 0.33 tokenizes the "
    "Responses prompt with add_special_tokens (its TokenizeParams default), so its ids start "
    "with two BOS and its default max_tokens is one smaller")
_MISTRAL_SKIP = ("skip_special_tokens drops every special token from content, [TOOL_CALLS] too "
    "(vLLM's Mistral detokenizer keeps [TOOL_CALLS] as text under skip_special_tokens, so with "
    "tool_choice none the answer shows the marker)")
_REASONING_TOKENS = ("tito reports usage.completion_tokens_details.reasoning_tokens (OpenAI's "
    "field) on the reasoning path (batch, and a stream's usage of one choice); vLLM's derender "
    "leaves it null")
_HARMONY_OTHER_AUTHOR = ("gpt-oss: a message whose header openai-harmony reads as another "
    "author's (a padded-vocabulary id before the role: `<|reserved_N|>assistant`, author role "
    "tool) is not the assistant's, in the stream as in batch: no tool call (vLLM's batch drops "
    "it; its stream reads only the recipient and emits the call)")
_PARAM_NOTATION = ("tito names the request field in one notation (vLLM mixes pydantic locations "
    "with union member names, 'body.' prefixes and bare names)")

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
    Deviation("render_fuzz*", "*.stop_many*", "*", _STOP16),
    Deviation("render_fuzz*", "*.bare_parts*", "*", _TOOL_PARTS),
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
    Deviation("render_fuzz*", "*responses*.bos_template*", "token_ids", _BOS_TWICE),
    Deviation("render_fuzz*", "*responses*.bos_template*", "sampling_params.max_tokens",
              _BOS_TWICE),
    Deviation("render_fuzz*", "*detokenize.mistral*", "prompt", _MISTRAL_PIECES),
    Deviation("tokens_ids", "detokenize_mistral_*", "prompt", _MISTRAL_PIECES),
    Deviation("render_*", "*.vllm500*", "*", _VLLM500),
    Deviation("tokens_ids", "*.vllm500*", "*", _VLLM500),
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
    Deviation("render_fuzz*", "*", "*sampling_params.skip_reading_prefix_cache", _ECHO_CACHE),
    Deviation("render_fuzz*", "*", "error.param", _PARAM_NOTATION),
    # -- errors
    Deviation("*", "*", "error.message",
              "wording (pydantic's and each server's own); status, type and param are compared"),
    Deviation("*_errors", "*", "error.param", "tito names the offending field where vLLM sends "
              "null", vllm_null=True),
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
    # -- batch derender
    Deviation("derender_*", "*", "usage.completion_tokens_details", _REASONING_TOKENS),
    Deviation("stream_*", "*", "usage.completion_tokens_details", _REASONING_TOKENS),
    Deviation("derender_*", "empty_output*", "*",
              "empty token_ids accepted (an abort before the first token gives an empty "
              "choice); vLLM answers 400"),
    Deviation("derender_completion", "abort_empty", "*",
              "empty token_ids accepted (an abort before the first token); vLLM answers 400"),
    Deviation("derender_*", "tool_auto_malformed*", "choices.*",
              "a call whose arguments break stays a call with the arguments written (markup "
              "never in arguments), the same in batch and stream; vLLM's batch path turns the "
              "block into content while its streaming path emits the call (stream_chat goldens)"),
    Deviation("derender_chat", "tool_auto_no_args", "choices.*",
              "a call without arguments is a call with {} in batch and stream; vLLM's batch "
              "path makes it content, its stream a call with empty arguments"),
    Deviation("derender_chat", "plain_no_parser_request_skip_false", "choices.0.message.reasoning",
              "skip_special_tokens=false keeps the <|im_end|> of a length finish as text (here "
              "in the reasoning: qwen3's output before </think> is reasoning, as in vLLM); "
              "vLLM's parser engine drops special tokens whatever the flag"),
    Deviation("derender_chat", "special_plain_skip", "choices.0.message.content",
              "skip_special_tokens (default) drops special tokens from content also when the "
              "request turned thinking off; vLLM then keeps them as text"),
    Deviation("derender_chat*", "special_mid_output_keep", "choices.0.message.content",
              "skip_special_tokens=false is honoured on the parser path (special tokens other "
              "than the one that ended the output stay text); vLLM's parser engine drops them "
              "whatever the flag"),
    # -- qwen3: what openai SDK users send
    Deviation("render_completion_errors", "stop_five", "*",
              _STOP16,),
    Deviation("render_completion", "echo*", "*.sampling_params.skip_reading_prefix_cache",
              _ECHO_CACHE),
    Deviation("render_chat_edge", "*stop_*", "*",
              _STOP16,),
    Deviation("render_chat_edge*", "echo*", "sampling_params.skip_reading_prefix_cache",
              _ECHO_CACHE),
    Deviation("render_chat_edge_errors", "logit_bias_out_of_vocab", "*",
              "a logit_bias id outside the vocabulary is a 400 at render, as for every other id "
              "a request sends; vLLM's render server passes it to the engine"),
    Deviation("render_chat_edge*", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_chat_messages", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_responses_items", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_responses_custom*", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_responses_outputs", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_responses_order", "mistral-v3_*", "error.param",
              "mistral-common's refusal of a conversation names the field it read ('messages'); "
              "vLLM's names none"),
    Deviation("render_request_fields", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_request_fields", "derender_chat_*", "usage.completion_tokens_details",
              _REASONING_TOKENS),
    Deviation("render_request_fields", "derender_*stream_null", "*",
              "a derender body's stream: null is a batch body (OpenAI clients write null for "
              "not streaming); vLLM's union refuses it (neither Literal[False] nor True)"),
    Deviation("render_request_fields", "*ec_transfer_params*", "*sampling_params.extra_args*",
              "ec_transfer_params also ride in sampling_params.extra_args, as kv_transfer_params "
              "(vLLM's own chat and completions to_sampling_params put both there; its render "
              "leaves them out)"),
    Deviation("render_responses_tool_shapes", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_responses_item_shapes", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_top_logprobs_null", "*echo*", "*sampling_params.skip_reading_prefix_cache",
              _ECHO_CACHE),
    Deviation("tokenize_harmony_reasoning", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_message_edges", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_tokenize_lazy_dump", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_inkling_lazy", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_assistant_union", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_tokenize_sent_calls", "*", "error.param", _PARAM_NOTATION),
    Deviation("render_assistant_union", "gpt-oss_*_str_part_audio_noid", "*", _TOOL_PARTS),
    Deviation("render_responses_items", "output_parts_refusal", "*",
              "a refusal part in an assistant's Responses message: vLLM's chat conversion fails "
              "on it with a 500; tito answers a 400 (never a 500)"),
    Deviation("render_chat_template", "tool_input_text_parts", "*", _TOOL_PARTS),
    Deviation("render_chat_template", "tool_string_parts", "*", _TOOL_PARTS),
    Deviation("derender_chat_edge", "echo_chat", "choices.0.message.*",
              "the prompt's own turn closed the think block (continue_final_message after the "
              "template's empty <think></think>), so the output is content, as vLLM's chat "
              "server decides from the prompt ids (set_prompt_token_ids); vLLM 0.33's batch "
              "derender hands its parser generate_response.prompt_token_ids (absent) instead of "
              "the request's prompt_token_ids, so its qwen3 parser starts in reasoning"),
    # -- gpt-oss (harmony)
    Deviation("render_chat_gptoss_errors", "max_tokens_too_big", "*",
              "max_tokens above max_model_len is a 400 for every model, as vLLM answers for "
              "template models; vLLM's harmony render skips that check and clamps silently"),
    Deviation("*_gptoss", "only_eos*", "*",
              "an output that is only <|return|> is an empty answer: the EOS id that ended the "
              "output is never text (vLLM's harmony path returns '<|return|>' as content)"),
    Deviation("derender_chat_gptoss", "tool_call_pretty_args",
              "choices.*.message.tool_calls.*.function.arguments",
              "harmony tool-call arguments are the model's text in batch as in stream (vLLM's "
              "batch re-serializes them with json.dumps, its stream sends the raw text)"),
    Deviation("derender_chat_gptoss", "stop_string", "choices.0.message.content",
              "stop strings are applied by derender for every model (vLLM's harmony batch path "
              "ignores them, its template-model path applies them)"),
    Deviation("derender_*", "stop_in_marker*", "*stop_reason",
              "gpt-oss: a stop string the engine did not stop on is no stop_reason; vLLM's "
              "harmony batch searches the text with the markers written and reports one found "
              "inside them ('s' in <|message|>) though the engine's text (special tokens "
              "skipped) never held it and the content is not cut"),
    *(Deviation("stream_*", "padded_vocab_id*_gptoss*", path, _HARMONY_OTHER_AUTHOR)
      for path in ("finish_reason", "tool_calls")),
    Deviation("stream_*", "two_analysis*", "reasoning",
              "two messages on one channel are joined with a newline in the stream as in batch "
              "(vLLM joins them with '\\n' in batch only)"),
    # -- mistral-v3 (mistral-common)
    Deviation("derender_chat_mistral", "tool_auto_length", "choices.0.message.content",
              "an output cut by length inside the header of a v0.3 call list is content "
              "verbatim, [TOOL_CALLS] included, as hermes' (vLLM's mistral batch path drops the marker, its "
              "stream drops everything)"),
    Deviation("derender_chat_mistral", "tool_none", "choices.*.message.content", _MISTRAL_SKIP),
    Deviation("derender_*", "tool_none_mistral*", "choices.*.message.content", _MISTRAL_SKIP),
    Deviation("derender_*", "forced_text_mistral*", "choices.*.message.content",
              "mistral, tool_choice required / named, an output starting with text: the text "
              "is content as written, leading space included, in batch as in stream (vLLM's "
              "batch strips it when no [TOOL_CALLS] follows; it keeps it when one does, which "
              "a stream cannot know in advance)"),
    Deviation("stream_*", "forced_text_mistral*", "*",
              "mistral, tool_choice required / named, an output starting with text: content "
              "and the calls after it stream as the batch answer reads them (vLLM's stream "
              "takes the text for the start of a JSON list and drops the text and every call)"),
    Deviation("derender_*", "forced_bare_marker_mistral*", "choices.*.message.*",
              "mistral, tool_choice required / named: a bare call the output starts with is a "
              "call even when [TOOL_CALLS] comes after it (vLLM: any [TOOL_CALLS] makes all "
              "before it content, the bare calls too, which a stream cannot take back once "
              "sent); before the bare call's header is complete the marker wins, as vLLM"),
    Deviation("stream_*", "forced_bare_marker_mistral*", "*",
              "mistral, tool_choice required / named: a bare call the output starts with, then "
              "[TOOL_CALLS]: the stream reads it as tito's batch, both calls (vLLM's stream makes "
              "the bare call and drops the calls after the marker)"),
    Deviation("stream_*", "forced_blank*", "text",
              "tool_choice required / named, an output without calls whose content is only "
              "whitespace: no content in the stream as in the batch answer (vLLM's batch "
              "returns none, its stream sends the whitespace)"),
    Deviation("stream_chat_mistral", "tool_auto_blank_before*", "text",
              "mistral: whitespace alone before [TOOL_CALLS] is not content, in the stream as "
              "in the batch answer (vLLM's batch returns none, its stream sends the "
              "whitespace; the qwen3 gap rule's twin)"),
    Deviation("stream_*", "tool_none_mistral*", "text",
              "tool_choice none: the output after [TOOL_CALLS] is content in the stream as in "
              "the batch answer (vLLM's batch keeps it, its stream drops it: text lost)"),
    Deviation("*_chat_mistral", "no_tools_call_text*", "*",
              "a request without tools gets the output as content (vLLM runs its mistral tool "
              "parser anyway and returns no content and no calls: the answer is lost)"),
    # -- completions
    # -- found by conformance/fuzz_derender.py (goldens derender_fuzz / stream_fuzz)
    Deviation("derender_*", "stop_string_in_output*", "*", _STOP_ANY_FINISH),
    Deviation("derender_stop_empty", "*_length", "*", _STOP_ANY_FINISH),
    Deviation("derender_*", "stop_string_int_reason*", "*",
              "a stop string in the text before the stop token an engine reported (an int "
              "stop_reason, not the last id): tito applies the request's stop strings whatever "
              "the engine reports (its render keeps them from the engine), so it cuts there and "
              "reports the string; vLLM's derender, given an int stop_reason, looks for none "
              "(fuzz seed 411 case 59, mistral-v3-hf)"),
    Deviation("*", "stop_reason_unlisted*", "*",
              "an engine stop_reason string the request did not ask for: tito cuts at the "
              "request's own stop strings in batch and stream alike and passes the reported "
              "reason on; vLLM's batch derender cuts at the reported string (its stream at "
              "nothing): a stream cannot take back text it sent, and tito's batch is its stream "
              "(docs/conformance.md, 'An engine stop_reason string the request did not ask for')"),
    Deviation("*", "echo_no_prompt*", "*",
              "completions echo without the prompt's ids (no prompt_token_ids in the body or "
              "its entry null, none from the engine either) is a 400: tito cannot echo a prompt "
              "it was not sent; vLLM's derender ignores echo"),
    Deviation("derender_*", "top_logprobs_sampled_extra*", "*",
              "an engine entry of max_logprobs candidates plus the sampled token (sampled "
              "outside the top-k: max_logprobs + 1 entries, what vLLM's engine sends at the "
              "limit) is accepted; vLLM's batch derender refuses it with 400, its stream takes it"),
    Deviation("stream_*", "*_repair_*", "logprobs*",
              "an engine chunk with more or fewer logprob entries than ids, before a character "
              "split over byte tokens: a U+FFFD piece is repaired with the sampled ids of the "
              "entries before it, as vLLM's batch reads them (so tito's stream is its batch of "
              "the same chunks); vLLM's stream carries the chunks' token ids as that context"),
    Deviation("*_stop_reason_eos", "qwen3_chat*_keep_special", "*[.]content",
              "skip_special_tokens=false is honoured on the parser path: the EOS an engine "
              "reporting a stop string did not stop on is output, as vLLM's, and stays text; "
              "vLLM's parser engine drops special tokens whatever the flag"),
    Deviation("*_stop_reason_eos", "qwen3_chat*_keep_special", "*text",
              "skip_special_tokens=false is honoured on the parser path (folded stream text)"),
    Deviation("derender_stop_reason_eos", "*present_listed", "*logprobs*",
              "a request's stop string that fires cuts the logprob entries of the ids after it "
              "(here the EOS the engine ended on; one entry an id), as an engine stopping there "
              "sends none, so a stream is its batch; vLLM's batch derender reports every entry "
              "the engine sent"),
    Deviation("derender_choice_index", "*neg*", "*",
              "a negative choice index from the engine is a 400 (an index is a position: "
              "NonNegativeInt, batch and stream); vLLM's derender passes any integer on"),
    Deviation("derender_choice_index", "*", "error.param", _PARAM_NOTATION),
    Deviation("derender_choice_index", "qwen3_chat_stream_*", "chunk.choices.0.delta.tool_calls",
              "a chunk that carries a whole hermes call sends it as one delta (id, name and "
              "arguments); vLLM's stream sends two deltas of the same call index (the name, then "
              "the arguments). A client assembles the same call (the stream groups compare that)"),
    Deviation("stream_choice_index", "*_from*_to*", "*",
              "a chunk whose choice index is not the one its stream_state was issued for (after "
              "the stream's first output) is a 400, as the README asks for one state per "
              "choice; vLLM's stream takes each chunk's index (a client keeping only vLLM's "
              "fields, which hold no index, gets vLLM's answer from tito too)"),
    Deviation("stream_choice_index", "*_counting", "*",
              "a chunk whose choice index is not its stream's is a 400 (see *_from*_to*)"),
    Deviation("*", "partial_char_at_end*", "*",
              "a character cut by the output's end (its UTF-8 bytes incomplete) is flushed as "
              "U+FFFD, so text == tokenizer.decode(ids) in batch and stream; vLLM's incremental "
              "detokenizer never emits it"),
    Deviation("stream_*", "tool_auto_malformed*", "*",
              "a malformed call block streams as its batch answer (content, or a call with the "
              "arguments written) and the calls after it are still parsed (batch == stream); "
              "vLLM's hermes stream drops the block and emits no call after it"),
    Deviation("stream_*", "empty_final_chunk*", "stop_reason", _HELD_STOP),
    Deviation("stream_*", "empty_final_chunk*", "text", _HELD_STOP),
    Deviation("derender_*", "tool_call_escaped_args*",
              "choices.*.message.tool_calls.*.function.arguments",
              "hermes, mistral: a call's arguments are the model's text in batch as in stream "
              "(vLLM's batch re-serializes them with json.dumps(ensure_ascii=False), so \\u "
              "escapes the model wrote come out as characters; its stream sends the text)"),
    Deviation("derender_*", "text_after_call*", "choices.*.message.content",
              "text after the last hermes call is content, in batch as in stream (vLLM's batch "
              "answer keeps only the text before the first call, its stream sends it all)"),
    Deviation("*", "stop_id_harmony*", "*",
              "gpt-oss: the stop token that ended the output (a stop_token_ids word, or an EOS "
              "harmony ends no message on: <|endoftext|>) is left out of the text as for every "
              "model (unless include_stop_str_in_output); vLLM's harmony path parses the "
              "engine's ids whole, so the stop token shows as content (\"Hi<|endoftext|>\", "
              "even with skip_special_tokens)"),
    # -- streaming
    Deviation("stream_*", "stop_string*", "*",
              "stop strings are applied in streaming derender (held back, cut at the match, "
              "one finish): vLLM refuses them with 400 because text already sent cannot be cut"),
    Deviation("*", "echo*", "*echo_prefix",
              "completions echo prepends the prompt (OpenAI's meaning), batch and stream: its "
              "text, and with the request's logprobs and the engine's prompt_logprobs (batch) its "
              "tokens' logprobs, as vLLM's completions server writes them (the first position "
              "null, each cut to logprobs + 1), text offsets counting every token string from "
              "the prompt's start (its BOS's too); no text with return_token_ids, as vLLM; "
              "vLLM's derender ignores echo. The replay cuts that prefix and compares the rest "
              "with vLLM's answer (echo_cut.strip_echo)"),
    Deviation("stream_chat", "tool_*", "text",
              "the whitespace between </think> and a tool call is not content (gap rule, batch "
              "== stream); vLLM streams it as content though its batch answer has none"),
    Deviation("stream_chat*", "tool_auto_no_args.*", "tool_calls.*.arguments",
              "a call without arguments has arguments {} (batch and stream); vLLM streams ''"),
    Deviation("stream_chat*", "*_length.*", "*",
              "output cut by length inside a call header: content, as in batch (vLLM's batch "
              "answer); vLLM's stream announces a call with empty arguments"),
    Deviation("stream_chat", "special_*", "text",
              "special tokens are skipped (skip_special_tokens) in the stream exactly as in the "
              "batch answer (batch == stream); vLLM's stream keeps them as text although its "
              "batch answer drops them"),
]


def deviation_for(group: str, case: str, path: str, vllm: Any = None) -> Deviation | None:
    for d in DEVIATIONS:
        if (fnmatch.fnmatchcase(group, d.group) and fnmatch.fnmatchcase(case, d.case)
                and fnmatch.fnmatchcase(path, d.path) and (not d.vllm_null or vllm is None)):
            return d
    return None
