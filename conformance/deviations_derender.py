"""The intended deviations of tito's derender (batch and streaming) from vLLM 0.33.0.

Why a module of its own: the second half of the replay's list (:data:`DERENDER`, after the render
entries of :mod:`conformance.deviations`, which asks of both in that order: the first entry that
matches explains a difference). What each means is in ``docs/conformance.md``.
"""

from __future__ import annotations

from conformance.deviation_base import (
    ECHO_CACHE,
    HARMONY_OTHER_AUTHOR,
    HELD_STOP,
    MISTRAL_SKIP,
    PARAM_NOTATION,
    REASONING_TOKENS,
    STOP16,
    STOP_ANY_FINISH,
    TOOL_PARTS,
    Deviation,
)

DERENDER: list[Deviation] = [
    # -- batch derender
    Deviation("derender_*", "*", "usage.completion_tokens_details", REASONING_TOKENS),
    Deviation("stream_*", "*", "usage.completion_tokens_details", REASONING_TOKENS),
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
              STOP16,),
    Deviation("render_completion", "echo*", "*.sampling_params.skip_reading_prefix_cache",
              ECHO_CACHE),
    Deviation("render_chat_edge", "*stop_*", "*",
              STOP16,),
    Deviation("render_chat_edge*", "echo*", "sampling_params.skip_reading_prefix_cache",
              ECHO_CACHE),
    Deviation("render_chat_edge_errors", "logit_bias_out_of_vocab", "*",
              "a logit_bias id outside the vocabulary is a 400 at render, as for every other id "
              "a request sends; vLLM's render server passes it to the engine"),
    Deviation("render_chat_edge*", "*", "error.param", PARAM_NOTATION),
    Deviation("render_chat_messages", "*", "error.param", PARAM_NOTATION),
    Deviation("render_responses_items", "*", "error.param", PARAM_NOTATION),
    Deviation("render_responses_custom*", "*", "error.param", PARAM_NOTATION),
    Deviation("render_responses_outputs", "*", "error.param", PARAM_NOTATION),
    Deviation("render_responses_order", "mistral-v3_*", "error.param",
              "mistral-common's refusal of a conversation names the field it read ('messages'); "
              "vLLM's names none"),
    Deviation("render_request_fields", "*", "error.param", PARAM_NOTATION),
    Deviation("render_request_fields", "derender_chat_*", "usage.completion_tokens_details",
              REASONING_TOKENS),
    Deviation("render_request_fields", "derender_*stream_null", "*",
              "a derender body's stream: null is a batch body (OpenAI clients write null for "
              "not streaming); vLLM's union refuses it (neither Literal[False] nor True)"),
    Deviation("render_request_fields", "*ec_transfer_params*", "*sampling_params.extra_args*",
              "ec_transfer_params also ride in sampling_params.extra_args, as kv_transfer_params "
              "(vLLM's own chat and completions to_sampling_params put both there; its render "
              "leaves them out)"),
    Deviation("render_responses_tool_shapes", "*", "error.param", PARAM_NOTATION),
    Deviation("render_responses_item_shapes", "*", "error.param", PARAM_NOTATION),
    Deviation("render_top_logprobs_null", "*echo*", "*sampling_params.skip_reading_prefix_cache",
              ECHO_CACHE),
    Deviation("tokenize_harmony_reasoning", "*", "error.param", PARAM_NOTATION),
    Deviation("render_message_edges", "*", "error.param", PARAM_NOTATION),
    Deviation("render_tokenize_lazy_dump", "*", "error.param", PARAM_NOTATION),
    Deviation("render_inkling_lazy", "*", "error.param", PARAM_NOTATION),
    Deviation("render_assistant_union", "*", "error.param", PARAM_NOTATION),
    Deviation("render_tokenize_sent_calls", "*", "error.param", PARAM_NOTATION),
    Deviation("render_assistant_union", "gpt-oss_*_str_part_audio_noid", "*", TOOL_PARTS),
    Deviation("render_responses_items", "output_parts_refusal", "*",
              "a refusal part in an assistant's Responses message: vLLM's chat conversion fails "
              "on it with a 500; tito answers a 400 (never a 500)"),
    Deviation("render_chat_template", "tool_input_text_parts", "*", TOOL_PARTS),
    Deviation("render_chat_template", "tool_string_parts", "*", TOOL_PARTS),
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
    *(Deviation("stream_*", "padded_vocab_id*_gptoss*", path, HARMONY_OTHER_AUTHOR)
      for path in ("finish_reason", "tool_calls")),
    Deviation("stream_*", "two_analysis*", "reasoning",
              "two messages on one channel are joined with a newline in the stream as in batch "
              "(vLLM joins them with '\\n' in batch only)"),
    # -- mistral-v3 (mistral-common)
    Deviation("derender_chat_mistral", "tool_auto_length", "choices.0.message.content",
              "an output cut by length inside the header of a v0.3 call list is content "
              "verbatim, [TOOL_CALLS] included, as hermes' (vLLM's mistral batch path drops the marker, its "
              "stream drops everything)"),
    Deviation("derender_chat_mistral", "tool_none", "choices.*.message.content", MISTRAL_SKIP),
    Deviation("derender_*", "tool_none_mistral*", "choices.*.message.content", MISTRAL_SKIP),
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
    Deviation("derender_*", "stop_string_in_output*", "*", STOP_ANY_FINISH),
    Deviation("derender_stop_empty", "*_length", "*", STOP_ANY_FINISH),
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
    Deviation("derender_choice_index", "*", "error.param", PARAM_NOTATION),
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
    Deviation("derender_chunk_dup", "*", "error.param",
              "tito names the offending field (generate_chunk.choices) of a chunk of several "
              "choices, where vLLM sends null", vllm_null=True),
    Deviation("stream_after_finish", "*", "*",
              "a choice's chunks after its finish derender nothing (empty deltas, no second "
              "finish): a finish is final, as tito's stop strings need (the engine runs on past "
              "them); vLLM's state holds no finish, so it derenders them as more output and "
              "finishes the choice again. A client keeping only vLLM's fields gets vLLM's "
              "answer (tests/test_derender_after_finish.py), but for gpt-oss: the stop id that "
              "ended the choice is left out of the replayed ids, so a message started after it "
              "reads as the finished message's text"),
    Deviation("stream_request_id_change", "*", "*",
              "a chunk whose request_id is not the stream's its stream_state was issued for is "
              "a 400 (a state is bound to its stream: keep one state per stream); vLLM's state "
              "holds no id, so it derenders the chunk as the stream's next. A client keeping "
              "only vLLM's fields gets vLLM's answer (tests/test_derender_after_finish.py)"),
    Deviation("stream_chunk_dup", "*_stop*", "*",
              "stop strings are applied in streaming derender, so the stream's first chunk is "
              "derendered (vLLM refuses the stop strings on it); its chunk of two choices is "
              "the 400 on both"),
    Deviation("*", "partial_char_at_end*", "*",
              "a character cut by the output's end (its UTF-8 bytes incomplete) is flushed as "
              "U+FFFD, so text == tokenizer.decode(ids) in batch and stream; vLLM's incremental "
              "detokenizer never emits it"),
    Deviation("stream_*", "tool_auto_malformed*", "*",
              "a malformed call block streams as its batch answer (content, or a call with the "
              "arguments written) and the calls after it are still parsed (batch == stream); "
              "vLLM's hermes stream drops the block and emits no call after it"),
    Deviation("stream_*", "empty_final_chunk*", "stop_reason", HELD_STOP),
    Deviation("stream_*", "empty_final_chunk*", "text", HELD_STOP),
    # (the held token's text is reasoning's when the parser is still in the reasoning: fuzz
    # seed 637, qwen3:637:23, stop id 220 " " before the finish-only chunk)
    Deviation("stream_*", "empty_final_chunk*", "reasoning", HELD_STOP),
    Deviation("derender_*", "tool_call_escaped_args_lone*", "*",
              "hermes, mistral: arguments holding a lone surrogate escape (\\ud83c) are the "
              "model's text, a 200 in batch as in stream; vLLM's batch re-serializes them "
              "(json.dumps(ensure_ascii=False) writes the raw surrogate) and its UTF-8 response "
              "cannot encode it: 400 \"'utf-8' codec can't encode character ... surrogates "
              "not allowed\" (its stream sends the text; fuzz seed 443, mistral-v3-hf:443:5)"),
    Deviation("stream_*", "tool_call_escaped_args_lone_[lr]*_mistral*", "tool_calls.*.arguments",
              "mistral: streamed arguments holding a lone LOW surrogate escape (\\udf38, also "
              "before a high one) are sent as written, as in batch; vLLM's stream feeds them to "
              "ijson, whose lexer refuses the escape ('Error trying to handle streaming tool "
              "call'), and sends no arguments from there on (a lone high one passes)"),
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
