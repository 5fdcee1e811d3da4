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

import json
import random
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

from conformance import (
    message_edges_corpus, nonfinite_corpus, request_fields_corpus, responses_outputs_corpus,
    responses_tools_corpus, structural_model_corpus, structured_options_corpus,
    union_parts_corpus,
)

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "layers" / "tokenizer" / "models"

IM_START, IM_END, EOT = 151644, 151645, 151643
THINK, END_THINK = 151667, 151668
TOOL_CALL, END_TOOL_CALL = 151657, 151658
GPT2_EOT = 50256
HARMONY_RETURN, HARMONY_CALL = 200002, 200012
MISTRAL_EOS = 2
#: the EOS id that ends a ``stop`` output of each served model (``out``)
EOS_IDS = {"qwen3": IM_END, "gpt2": GPT2_EOT, "gpt-oss": HARMONY_RETURN, "mistral-v3": MISTRAL_EOS,
           "mistral-v3-hf": MISTRAL_EOS}


@lru_cache(maxsize=None)
def _tok(model: str) -> Any:
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(MODELS / model.removesuffix("-hf") / "tokenizer.json"))


def ids(text: str, model: str = "qwen3") -> list[int]:
    """Token ids of ``text`` (special-token markup in the text becomes its special token)."""
    if model == "mistral-v3":  # the same ids as mistral-common's v3 SentencePiece model
        model = "mistral-v3-hf"
    return list(_tok(model).encode(text, add_special_tokens=False).ids)


def mistral_folder(folder: Path) -> Path:
    """mistral-v3 as vLLM's ``--tokenizer-mode mistral`` serves it: mistral-common's own
    ``tokenizer.model.v3`` (the file ``layers/tokenizer/models/mistral-v3/tokenizer.json`` was
    converted from) and tito's ``tito.json``; no ``tokenizer.json``, so tito serves it through
    mistral-common too. Built at record and at replay time (mistral-common is a dev dependency)."""
    import mistral_common

    data = Path(mistral_common.__file__).parent / "data"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(data / "mistral_instruct_tokenizer_240323.model.v3", folder / "tokenizer.model.v3")
    shutil.copy(MODELS / "mistral-v3" / "tito.json", folder / "tito.json")
    return folder


def mistral_hf_folder(folder: Path) -> Path:
    """mistral-v3 from tito's shipped ``tokenizer.json`` folder, served as ``mistral-v3-hf``
    (vLLM: ``--tokenizer-mode hf``; tito: that folder's files with its ``tito.json`` renamed):
    how a Llama-style SentencePiece ``tokenizer.json`` model is served without mistral-common."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in (MODELS / "mistral-v3").iterdir():
        if f.name != "tito.json" and f.is_file():
            shutil.copy(f, folder / f.name)
    cfg = json.loads((MODELS / "mistral-v3" / "tito.json").read_text())
    (folder / "tito.json").write_text(json.dumps({**cfg, "served_model_name": "mistral-v3-hf"}))
    return folder


#: the natively encoded render servers (vLLM picks the encoding from config.json's architecture,
#: tito its core/render_<name> module): served name -> (tool parser, reasoning parser), the flags
#: ``tests/goldens/record_dsv32_render.py`` records each model's goldens with
NATIVE = {"dsv32": ("deepseek_v32", "deepseek_v3"), "dsv4": ("deepseek_v4", "deepseek_v4"),
          "dsv41": ("deepseek_v41", "deepseek_v41"), "inkling": ("inkling", "inkling")}


def native_folder(name: str, folder: Path) -> Path:
    """A folder of a :data:`NATIVE` architecture served as ``name``: Qwen3's tokenizer files
    without their chat template (Inkling's: with its chat tokens added,
    :func:`conformance.markers.inkling_folder`) and ``conformance/models/<name>`` (the
    architecture, sizes; EOS ids), as the render goldens' tests build them; vLLM and tito both
    render it with the model's own encoding."""
    if name == "inkling":
        from conformance.markers import inkling_folder

        inkling_folder(folder)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(MODELS / "qwen3" / "tokenizer.json", folder)
        config = json.loads((MODELS / "qwen3" / "tokenizer_config.json").read_text())
        config.pop("chat_template", None)
        (folder / "tokenizer_config.json").write_text(json.dumps(config))
    for f in (ROOT / "conformance" / "models" / name).glob("*.json"):
        shutil.copy(f, folder)
    tool_parser, reasoning_parser = NATIVE[name]
    (folder / "tito.json").write_text(json.dumps(
        {"served_model_name": name, "tool_parser": tool_parser,
         "reasoning_parser": reasoning_parser}))
    return folder


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string",
                                                                "enum": ["c", "f"]}},
            "required": ["city"],
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
    },
}
STRICT = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Strict lookup",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                       "required": ["q"], "additionalProperties": False},
        "strict": True,
    },
}
NOPARAMS = {"type": "function", "function": {"name": "ping"}}
TOOLS = [WEATHER, TIME]
USER = [{"role": "user", "content": "What is the weather in Paris?"}]
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def chat(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "qwen3", "messages": USER}
    body.update(fields)
    return body


def completion(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "gpt2", "prompt": "Once upon a time", "max_tokens": 16}
    body.update(fields)
    return body


# -- render ------------------------------------------------------------------------------------

CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris and time in Tokyo?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
        {"id": "call_2", "type": "function",
         "function": {"name": "get_time", "arguments": "{\"tz\": \"Asia/Tokyo\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C, cloudy"},
    {"role": "tool", "tool_call_id": "call_2", "content": "21:04"},
    {"role": "assistant", "content": "Paris: 18C. Tokyo: 21:04."},
    {"role": "user", "content": "Thanks! 日本語で? 🌧️"},
]

RENDER_CHAT: dict[str, dict[str, Any]] = {
    "basic": chat(),
    "max_tokens": chat(max_tokens=32),
    "max_completion_tokens": chat(max_completion_tokens=7),
    "sampling": chat(temperature=0.7, top_p=0.9, top_k=40, min_p=0.05, presence_penalty=0.5,
                     frequency_penalty=0.25, repetition_penalty=1.1, seed=1234),
    "seed_zero": chat(seed=0),
    "stop_str": chat(stop="\n\n"),
    "stop_list": chat(stop=["END", "STOP"], stop_token_ids=[151643], include_stop_str_in_output=True),
    "n3": chat(n=3, temperature=1.0),
    "logprobs": chat(logprobs=True),
    "top_logprobs": chat(logprobs=True, top_logprobs=5),
    "prompt_logprobs": chat(prompt_logprobs=2),
    "ignore_eos": chat(ignore_eos=True, min_tokens=3, max_tokens=10),
    "skip_special_false": chat(skip_special_tokens=False, spaces_between_special_tokens=False),
    "thinking_off": chat(chat_template_kwargs={"enable_thinking": False}),
    "thinking_on": chat(chat_template_kwargs={"enable_thinking": True}),
    "reasoning_effort_none": chat(reasoning_effort="none"),
    "reasoning_effort_high": chat(reasoning_effort="high"),
    "include_reasoning_false": chat(include_reasoning=False),
    "system": chat(messages=[{"role": "system", "content": "Be brief."}, *USER]),
    "multi_turn_unicode": chat(messages=CONVERSATION, tools=TOOLS),
    "continue_final": chat(messages=[*USER, {"role": "assistant", "content": "It is"}],
                           continue_final_message=True, add_generation_prompt=False),
    "no_generation_prompt": chat(add_generation_prompt=False),
    "content_parts": chat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]}]),
    "tools_auto": chat(tools=TOOLS),
    "tools_auto_explicit": chat(tools=TOOLS, tool_choice="auto"),
    "tools_none": chat(tools=TOOLS, tool_choice="none"),
    "tools_required": chat(tools=TOOLS, tool_choice="required"),
    "tools_required_single": chat(tools=TOOLS, tool_choice="required", parallel_tool_calls=False),
    "tools_named": chat(tools=TOOLS, tool_choice=NAMED),
    "tools_named_single": chat(tools=TOOLS, tool_choice=NAMED, parallel_tool_calls=False),
    "tools_auto_single": chat(tools=TOOLS, parallel_tool_calls=False),
    "tools_auto_strict": chat(tools=[*TOOLS, STRICT]),
    "tools_required_strict": chat(tools=[WEATHER, STRICT], tool_choice="required"),
    "tools_named_strict": chat(tools=[WEATHER, STRICT],
                               tool_choice={"type": "function", "function": {"name": "lookup"}}),
    "tools_required_noparams": chat(tools=[NOPARAMS], tool_choice="required"),
    "tools_required_thinking_off": chat(tools=TOOLS, tool_choice="required",
                                        chat_template_kwargs={"enable_thinking": False}),
    "response_format_json": chat(response_format={"type": "json_object"}),
    "response_format_schema": chat(response_format={"type": "json_schema", "json_schema": {
        "name": "w", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}}),
    "response_format_text": chat(response_format={"type": "text"}),
    "required_with_response_format": chat(tools=TOOLS, tool_choice="required",
                                          response_format={"type": "json_object"}),
    "structured_outputs_regex": chat(structured_outputs={"regex": "[a-z]+"}),
    "structured_outputs_choice": chat(structured_outputs={"choice": ["yes", "no"]}),
    "return_token_ids": chat(return_token_ids=True),
    "stream_usage": chat(stream=True, stream_options={"include_usage": True,
                                                      "continuous_usage_stats": True}),
    "stream_plain": chat(stream=True),
    "user_field": chat(user="u-1", request_id="my-req-1"),
    "logit_bias": chat(logit_bias={"9707": 2.5}),
    "allowed_token_ids": chat(allowed_token_ids=[9707, 0, 151645]),
    "bad_words": chat(bad_words=["rain"]),
    "truncate_prompt_tokens": chat(truncate_prompt_tokens=5),
    "unicode_user": chat(messages=[{"role": "user", "content": "Grüße 🌍 — «ok» \u200b 中文"}]),
    "cache_salt": chat(cache_salt="salt-1"),
    "priority": chat(priority=3),
    "kv_transfer": chat(kv_transfer_params={"do_remote_decode": True}),
}

RENDER_CHAT_ERRORS: dict[str, dict[str, Any]] = {
    "empty_tools_required": chat(tools=[], tool_choice="required"),
    "tool_choice_without_tools": chat(tool_choice="required"),
    "named_without_tools": chat(tool_choice=NAMED),
    "named_unknown_tool": chat(tools=TOOLS, tool_choice={"type": "function",
                                                          "function": {"name": "nope"}}),
    "stream_options_without_stream": chat(stream_options={"include_usage": True}),
    "top_logprobs_without_logprobs": chat(top_logprobs=3),
    "top_logprobs_too_many": chat(logprobs=True, top_logprobs=50),
    "top_logprobs_negative": chat(logprobs=True, top_logprobs=-1),
    "n_zero": chat(n=0),
    "temperature_negative": chat(temperature=-1),
    "max_tokens_zero": chat(max_tokens=0),
    "max_tokens_too_big": chat(max_tokens=10**9),
    "messages_missing": {"model": "qwen3"},
    "messages_empty": chat(messages=[]),
    "unknown_model": chat(model="nope"),
    "bad_role": chat(messages=[{"role": "robot", "content": "x"}]),
    "continue_and_generation_prompt": chat(
        messages=[*USER, {"role": "assistant", "content": "It"}], continue_final_message=True,
        add_generation_prompt=True),
    "stop_not_list": chat(stop=5),
    "seed_too_big": chat(seed=2**70),
    "logit_bias_bad_key": chat(logit_bias={"abc": 1.0}),
    "chat_template_not_allowed": chat(chat_template="{{ 'x' }}"),
    "suffix_style_unknown_field_type": chat(max_tokens="ten"),
}

RENDER_COMPLETION: dict[str, dict[str, Any]] = {
    "basic": completion(),
    "prompt_list_str": completion(prompt=["Hello", "World, again"]),
    "prompt_ids": completion(prompt=[15496, 11, 995]),
    "prompt_ids_list": completion(prompt=[[15496, 11], [40, 716]]),
    "echo": completion(echo=True),
    "logprobs": completion(logprobs=3),
    "stop": completion(stop=["\n", "."], seed=7, temperature=0.3),
    "n2": completion(n=2, best_of=None),
    "no_max_tokens": {"model": "gpt2", "prompt": "Hi"},
    "unicode": completion(prompt="Grüße 🌍 中文"),
    "return_token_ids": completion(return_token_ids=True),
    "stream_usage": completion(stream=True, stream_options={"include_usage": True}),
    "response_format_json": completion(response_format={"type": "json_object"}),
    "add_special_tokens": completion(add_special_tokens=True),
    "truncate": completion(prompt="one two three four five six", truncate_prompt_tokens=3),
    "logit_bias_clamped": completion(logit_bias={"11": 150, "13": -150}),
    "echo_logprobs": completion(echo=True, logprobs=2),
    "min_tokens": completion(min_tokens=4),
    "seed_and_penalties": completion(seed=5, presence_penalty=1.0, frequency_penalty=0.5,
                                     repetition_penalty=1.2, top_k=3, min_p=0.1),
    "request_id_priority": completion(request_id="r-1", priority=4, cache_salt="c", user="u"),
    "prompt_unicode_ids_mix": completion(prompt=["Grüße", "🌍"]),
    "add_special_tokens_false": completion(add_special_tokens=False),
    "stop_token_ids": completion(stop_token_ids=[13, 11], include_stop_str_in_output=True),
    "allowed_token_ids": completion(allowed_token_ids=[11, 13, 50256]),
    "bad_words": completion(bad_words=["cat"]),
    "return_tokens_as_token_ids": completion(logprobs=1, return_tokens_as_token_ids=True),
    "watermarking": completion(watermarking=True),
    "watermarking_false": completion(watermarking=False),
}

RENDER_COMPLETION_ERRORS: dict[str, dict[str, Any]] = {
    "empty_prompt": completion(prompt=""),
    "empty_prompt_list": completion(prompt=[]),
    "prompt_missing": {"model": "gpt2"},
    "suffix": completion(suffix="x"),
    "stream_options_without_stream": completion(stream_options={"include_usage": True}),
    "logprobs_too_many": completion(logprobs=50),
    "n_zero": completion(n=0),
    "token_out_of_vocab": completion(prompt=[99999]),
    "prompt_too_long": completion(prompt=[15496] * 1100),
    "max_tokens_too_big": completion(max_tokens=5000),
    "unknown_model": completion(model="nope"),
    "echo_with_max_tokens_zero_bad": completion(max_tokens=-1),
    "temperature_too_big": completion(temperature=3),
    "n2_greedy": completion(n=2, temperature=0),
    "min_tokens_negative": completion(min_tokens=-2),
    "min_tokens_above_max": completion(min_tokens=20, max_tokens=10),
    "cache_salt_empty": completion(cache_salt=""),
    "logit_bias_bad_key": completion(logit_bias={"x": 1}),
    "stop_five": completion(stop=["a", "b", "c", "d", "e"]),
    "prompt_nested_empty": completion(prompt=[[]]),
    "prompt_bad_type": completion(prompt={"text": "x"}),
    "mm_processor_kwargs": completion(mm_processor_kwargs={"fps": 1}),
    "truncate_zero": completion(truncate_prompt_tokens=0),
    "best_of_bad": completion(best_of=2, n=3),
    "structured_two": completion(structured_outputs={"regex": "a", "choice": ["a"]}),
    "response_format_bad_type": completion(response_format={"type": "xml"}),
}

# -- derender ----------------------------------------------------------------------------------


def lp_entries(token_ids: list[int], k: int = 5, seed: int = 0) -> dict[str, Any]:
    """Engine logprobs (integer ids): the sampled token first, then ``k-1`` other candidates."""
    rnd = random.Random(seed)
    content = []
    for pos, t in enumerate(token_ids):
        top = [{"token_id": t, "logprob": round(-0.05 - pos * 0.01, 4), "rank": 1}]
        for r in range(2, k + 1):
            alt = (t + 17 * r + rnd.randrange(1000)) % 151000
            top.append({"token_id": alt, "logprob": round(-1.0 - r - rnd.random(), 4),
                        "rank": r})
        content.append({"token_id": t, "logprob": top[0]["logprob"], "rank": 1,
                        "top_logprobs": top})
    return {"content": content}


def out(text: str | list[int], finish: str | None = "stop", *, eos: bool | int = True,
        model: str = "qwen3", stop_reason: Any = None, logprobs: int | None = None,
        index: int = 0) -> dict[str, Any]:
    """One engine choice: ``text`` encoded (markup of special tokens becomes them), plus, when
    ``finish`` is stop, the id that stopped it: the model's EOS (``eos=True``), the id ``eos``
    (e.g. harmony's ``<|call|>``), none (``eos=False`` or a ``stop_reason``)."""
    toks = list(text) if isinstance(text, list) else ids(text, model)
    if finish == "stop" and eos is not False and stop_reason is None:
        toks.append(EOS_IDS[model] if eos is True else eos)
    choice: dict[str, Any] = {"index": index, "token_ids": toks, "finish_reason": finish}
    if stop_reason is not None:
        choice["stop_reason"] = stop_reason
    if logprobs is not None:
        choice["logprobs"] = lp_entries(toks, logprobs, seed=len(toks))
    return choice


METRICS = {"time_to_first_token_ms": 12.5, "generation_time_ms": 340.0, "queue_time_ms": 1.5,
           "mean_itl_ms": 8.25, "tokens_per_second": 121.0}

THINK_TEXT = "<think>\nThe user wants weather.\n</think>\n\n"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
CALL2 = '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}\n</tool_call>'

#: name -> (chat_request, choices, extra generate_response fields)
DERENDER_CHAT: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "plain": (chat(), [out("Hello! How can I help?")], {}),
    "thinking": (chat(), [out(THINK_TEXT + "It is sunny.")], {}),
    "thinking_off": (chat(chat_template_kwargs={"enable_thinking": False}),
                     [out("It is sunny.")], {}),
    "thinking_off_with_markup": (chat(chat_template_kwargs={"enable_thinking": False}),
                                 [out("<think>x</think>It is sunny.")], {}),
    "thinking_length": (chat(), [out("<think>\nStill thinking about", "length")], {}),
    "include_reasoning_false": (chat(include_reasoning=False), [out(THINK_TEXT + "Sunny.")], {}),
    "unicode": (chat(), [out(THINK_TEXT + "Grüße 🌍 — 中文 ✓")], {}),
    "length": (chat(), [out(THINK_TEXT + "It is su", "length")], {}),
    "abort": (chat(), [out(THINK_TEXT + "It", "abort")], {}),
    "empty_output": (chat(), [out([], "abort")], {}),
    "only_eos": (chat(), [out("")], {}),
    "eos_endoftext": (chat(), [out(THINK_TEXT + "Sunny.", eos=False) | {
        "token_ids": ids(THINK_TEXT + "Sunny.") + [EOT]}], {}),
    "logprobs_true": (chat(logprobs=True), [out(THINK_TEXT + "Sunny.", logprobs=5)], {}),
    "top_logprobs_2": (chat(logprobs=True, top_logprobs=2),
                       [out(THINK_TEXT + "Sunny.", logprobs=5)], {}),
    "top_logprobs_5": (chat(logprobs=True, top_logprobs=5),
                       [out(THINK_TEXT + "Sunny.", logprobs=5)], {}),
    "top_logprobs_plain": (chat(logprobs=True, top_logprobs=1,
                                chat_template_kwargs={"enable_thinking": False}),
                           [out("Grüße 🌍", logprobs=3)], {}),
    "logprobs_unicode_bytes": (chat(logprobs=True, top_logprobs=2),
                               [out(THINK_TEXT + "🌧️ 中文", logprobs=3)], {}),
    "tool_auto": (chat(tools=TOOLS), [out(THINK_TEXT + CALL)], {}),
    "tool_auto_two": (chat(tools=TOOLS), [out(THINK_TEXT + CALL + "\n" + CALL2)], {}),
    "tool_auto_text_before": (chat(tools=TOOLS), [out(THINK_TEXT + "Let me check.\n" + CALL)], {}),
    "tool_auto_no_call": (chat(tools=TOOLS), [out(THINK_TEXT + "No tool needed.")], {}),
    "tool_auto_single": (chat(tools=TOOLS, parallel_tool_calls=False),
                         [out(THINK_TEXT + CALL + "\n" + CALL2)], {}),
    "tool_auto_length": (chat(tools=TOOLS), [out(THINK_TEXT + CALL[:40], "length")], {}),
    "tool_auto_malformed": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par\n</tool_call>')],
        {}),
    "tool_auto_malformed_after_ok": (chat(tools=TOOLS), [out(
        THINK_TEXT + CALL + '\n<tool_call>\n{"name": "get_time", "arguments": {tz}}\n</tool_call>')],
        {}),
    "tool_auto_bad_header": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\nnot json at all\n</tool_call>')], {}),
    "tool_auto_unknown_name": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>')], {}),
    "tool_auto_no_args": (chat(tools=TOOLS), [out(
        THINK_TEXT + '<tool_call>\n{"name": "get_time"}\n</tool_call>')], {}),
    "tool_auto_thinking_off": (chat(tools=TOOLS, chat_template_kwargs={"enable_thinking": False}),
                               [out(CALL)], {}),
    "tool_none": (chat(tools=TOOLS, tool_choice="none"), [out(THINK_TEXT + CALL)], {}),
    "tool_required_hermes": (chat(tools=TOOLS, tool_choice="required"),
                             [out(THINK_TEXT + CALL)], {}),
    "tool_required_hermes_two": (chat(tools=TOOLS, tool_choice="required"),
                                 [out(THINK_TEXT + CALL + CALL2)], {}),
    "tool_required_hermes_compact": (chat(tools=TOOLS, tool_choice="required"), [out(
        THINK_TEXT + '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>')],
        {}),
    "tool_required_thinking_off": (chat(tools=TOOLS, tool_choice="required",
                                        chat_template_kwargs={"enable_thinking": False}),
                                   [out(CALL)], {}),
    "tool_required_json_list": (chat(tools=TOOLS, tool_choice="required"), [out(
        THINK_TEXT + '[{"name": "get_weather", "parameters": {"city": "Paris"}}]')], {}),
    "tool_required_length": (chat(tools=TOOLS, tool_choice="required"),
                             [out(THINK_TEXT + CALL[:45], "length")], {}),
    "tool_named_hermes": (chat(tools=TOOLS, tool_choice=NAMED), [out(THINK_TEXT + CALL)], {}),
    "tool_named_hermes_thinking_off": (chat(tools=TOOLS, tool_choice=NAMED,
                                            chat_template_kwargs={"enable_thinking": False}),
                                       [out(CALL)], {}),
    "tool_named_json": (chat(tools=TOOLS, tool_choice=NAMED),
                        [out(THINK_TEXT + '{"city": "Paris"}')], {}),
    "tool_named_length": (chat(tools=TOOLS, tool_choice=NAMED),
                          [out(THINK_TEXT + CALL[:45], "length")], {}),
    "stop_string": (chat(stop=["sunny"]), [out(THINK_TEXT + "It is sunny today.")], {}),
    "stop_string_engine_cut": (chat(stop=["sunny"]), [out(
        THINK_TEXT + "It is sunny", eos=False, stop_reason="sunny")], {}),
    "stop_string_include": (chat(stop=["sunny"], include_stop_str_in_output=True),
                            [out(THINK_TEXT + "It is sunny today.")], {}),
    "stop_token_ids": (chat(stop_token_ids=[13]), [out(
        THINK_TEXT + "Sunny.", eos=False, stop_reason=13) | {
        "token_ids": ids(THINK_TEXT + "Sunny.")}], {}),
    "n2": (chat(n=2), [out(THINK_TEXT + "Sunny.", index=0), out(THINK_TEXT + "Rainy.", index=1)],
           {}),
    "n2_tools": (chat(n=2, tools=TOOLS), [out(THINK_TEXT + CALL, index=0),
                                          out(THINK_TEXT + "No.", index=1)], {}),
    "return_token_ids": (chat(return_token_ids=True), [out(THINK_TEXT + "Sunny.")], {}),
    "return_token_ids_n2": (chat(return_token_ids=True, n=2),
                            [out("A", index=0), out("B", index=1)], {}),
    "metrics": (chat(), [out(THINK_TEXT + "Sunny.")], {"metrics": METRICS}),
    "kv_transfer": (chat(), [out("Hi")], {"kv_transfer_params": {"remote_block_ids": [1, 2]}}),
    "usage_from_engine": (chat(), [out("Hi")], {"usage": {"prompt_tokens": 11,
                                                          "completion_tokens": 2,
                                                          "total_tokens": 13}}),
    "special_mid_output_skip": (chat(ignore_eos=True), [out(
        ids(THINK_TEXT + "Sunny.") + [IM_END, IM_START] + ids("assistant\nMore"), "length")], {}),
    "special_mid_output_keep": (chat(ignore_eos=True, skip_special_tokens=False), [out(
        ids(THINK_TEXT + "Sunny.") + [IM_END, IM_START] + ids("assistant\nMore"), "length")], {}),
    "special_length_final_im_end": (chat(), [out(
        ids(THINK_TEXT + "Sunny.") + [IM_END], "length")], {}),
    "special_plain_skip": (chat(chat_template_kwargs={"enable_thinking": False}), [out(
        ids("A") + [IM_START] + ids("B") + [IM_END], "length")], {}),
    "padded_vocab_id": (chat(), [out(ids(THINK_TEXT + "Hi") + [151700, 151935], "length")], {}),
    "plain_no_parser_request_skip_false": (chat(skip_special_tokens=False), [out(
        ids("x") + [IM_END], "length")], {}),
}

#: name -> (completion_request, list of responses (each a list of choices), extras)
DERENDER_COMPLETION: dict[str, tuple[dict[str, Any], list[list[dict[str, Any]]], dict[str, Any]]] = {
    "plain": (completion(), [[out(" there was a cat.", model="gpt2")]], {}),
    "length": (completion(), [[out(" there was", "length", model="gpt2")]], {}),
    "logprobs": (completion(logprobs=2), [[out(" there was a cat.", model="gpt2", logprobs=4)]],
                 {}),
    "logprobs_unicode": (completion(logprobs=1), [[out(" Grüße 🌍", model="gpt2", logprobs=2)]],
                         {}),
    "two_prompts": (completion(prompt=["A", "B"]), [[out(" one", model="gpt2")],
                                                    [out(" two", model="gpt2")]], {}),
    "n2": (completion(n=2), [[out(" x", model="gpt2", index=0), out(" y", model="gpt2",
                                                                     index=1)]], {}),
    "stop_string": (completion(stop=["cat"]), [[out(" there was a cat. And", model="gpt2")]], {}),
    "echo": (completion(echo=True), [[out(" there was", "length", model="gpt2")]], {}),
    "return_token_ids": (completion(return_token_ids=True),
                         [[out(" there was", model="gpt2")]], {}),
    "metrics": (completion(), [[out(" x", model="gpt2")]], {"metrics": METRICS}),
    "abort_empty": (completion(), [[out([], "abort", model="gpt2")]], {}),
    "unicode_split": (completion(), [[out(" 🌍🌍 中", "length", model="gpt2")]], {}),
}

DERENDER_ERRORS: dict[str, tuple[str, dict[str, Any]]] = {
    "chat_missing_response": ("/v1/chat/completions/derender", {"model": "qwen3"}),
    "chat_token_out_of_vocab": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": [10**7], "finish_reason": "length"}]}}),
    "chat_negative_token": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": [-1], "finish_reason": "length"}]}}),
    "chat_text_mode": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "output_mode": "text",
                                                "choices": [{"index": 0, "text": "x"}]}}),
    "chat_unknown_model": ("/v1/chat/completions/derender", {
        "model": "nope", "generate_response": {"request_id": "r", "choices": []}}),
    "chat_stream_missing_chunk": ("/v1/chat/completions/derender", {"model": "qwen3",
                                                                     "stream": True}),
    "chat_stream_bad_state": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "stream_state": {"prefix_offset": -1},
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "chat_stream_bad_chunk_lens": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "stream_state": {"output_token_ids": [1, 2],
                                                           "output_chunk_lens": [1]},
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "chat_stream_parser_no_prompt": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "chat_request": chat(),
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "chat_no_request_parser": ("/v1/chat/completions/derender", {
        "model": "qwen3", "generate_response": {"request_id": "r", "choices": [
            {"index": 0, "token_ids": [151667, 87, 151668, 9707, 151645],
             "finish_reason": "stop"}]}}),
    "chat_stream_no_request_parser": ("/v1/chat/completions/derender", {
        "model": "qwen3", "stream": True, "prompt_token_ids": [9707],
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [9707]}]}}),
    "completion_empty_responses": ("/v1/completions/derender", {"model": "gpt2",
                                                                "generate_responses": []}),
    "completion_prompt_tokens_mismatch": ("/v1/completions/derender", {
        "model": "gpt2", "prompt_tokens": [1, 2], "generate_responses": [
            {"request_id": "r", "choices": [{"index": 0, "token_ids": [11]}]}]}),
    "completion_token_out_of_vocab": ("/v1/completions/derender", {
        "model": "gpt2", "generate_responses": [
            {"request_id": "r", "choices": [{"index": 0, "token_ids": [60000]}]}]}),
    "not_json_object": ("/v1/chat/completions/derender", []),  # type: ignore[dict-item]
}


def chunkings(n: int, seed: int) -> list[list[int]]:
    """Chunk sizes for a stream of ``n`` ids: one per call, and a seeded random split."""
    rnd = random.Random(seed)
    sizes, left = [], n
    while left > 0:
        k = min(left, rnd.randint(1, 6))
        sizes.append(k)
        left -= k
    return [[1] * n, sizes]


#: streaming cases: names of batch cases replayed as streams (one id per call, random chunks)
STREAM_CHAT = [
    "plain", "thinking", "thinking_off", "length", "unicode", "logprobs_true", "top_logprobs_2",
    "logprobs_unicode_bytes", "tool_auto", "tool_auto_two", "tool_auto_text_before",
    "tool_auto_single", "tool_auto_length", "tool_auto_malformed", "tool_auto_no_args",
    "tool_none", "tool_required_hermes", "tool_required_hermes_two", "tool_named_hermes",
    "tool_named_json", "stop_string", "stop_string_engine_cut", "stop_token_ids",
    "return_token_ids", "metrics", "special_mid_output_skip", "special_length_final_im_end",
    "include_reasoning_false", "padded_vocab_id", "only_eos", "empty_output",
]
STREAM_COMPLETION = ["plain", "logprobs", "logprobs_unicode", "stop_string", "return_token_ids",
                     "metrics", "unicode_split", "echo"]


# -- gpt-oss (harmony: --reasoning-parser openai_gptoss --tool-call-parser openai) -------------

LOOKUP_PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
DESCRIBED_ONLY = {"type": "function", "function": {"name": "now", "description": "Time now"}}


def gchat(**fields: Any) -> dict[str, Any]:
    return chat(model="gpt-oss", **fields)


def gout(text: str, finish: str | None = "stop", *, end: int | None = HARMONY_RETURN,
         **fields: Any) -> dict[str, Any]:
    """One gpt-oss engine choice: harmony text, then ``end`` (``<|return|>``, ``<|call|>``;
    None for none)."""
    return out(text, finish, eos=False if end is None else end, model="gpt-oss", **fields)


G_ANALYSIS = "<|channel|>analysis<|message|>User asks weather. Answer briefly.<|end|>"
G_FINAL = "<|start|>assistant<|channel|>final<|message|>"
G_CALL = ('<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
          '{"city": "Paris"}')
G_CALL_AFTER = "<|start|>assistant" + G_CALL
G_CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "reasoning": "Need the tool.", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C, cloudy"},
    {"role": "assistant", "content": "Paris: 18C, cloudy."},
    {"role": "user", "content": "And in Tokyo? 日本語で 🌧️"},
]

RENDER_CHAT_GPTOSS: dict[str, dict[str, Any]] = {
    "basic": gchat(),
    "max_tokens": gchat(max_tokens=64),
    "max_completion_tokens": gchat(max_completion_tokens=9, max_tokens=100),
    "sampling": gchat(temperature=0.6, top_p=0.95, top_k=20, seed=7, presence_penalty=0.2),
    "system": gchat(messages=[{"role": "system", "content": "Be brief."}, *USER]),
    "developer": gchat(messages=[{"role": "developer", "content": "Answer in French."}, *USER]),
    "system_and_developer": gchat(messages=[
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": "Answer in French."}, *USER]),
    "late_system": gchat(messages=[*USER, {"role": "assistant", "content": "Sunny."},
                                   {"role": "system", "content": "Now be verbose."},
                                   {"role": "user", "content": "More?"}]),
    "multi_turn_tools": gchat(messages=G_CONVERSATION, tools=TOOLS),
    "multi_turn_reasoning_content": gchat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning_content": "Easy."},
        {"role": "user", "content": "Sure?"}]),
    "assistant_reasoning_last": gchat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning": "Easy."}]),
    "content_parts": gchat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]}]),
    "name_field": gchat(messages=[{"role": "user", "name": "bob", "content": "Hi"}]),
    "empty_content": gchat(messages=[{"role": "user", "content": ""}]),
    "unicode": gchat(messages=[{"role": "user", "content": "Grüße 🌍 — «ok» 中文 <|start|>"}]),
    "reasoning_effort_low": gchat(reasoning_effort="low"),
    "reasoning_effort_medium": gchat(reasoning_effort="medium"),
    "reasoning_effort_high": gchat(reasoning_effort="high"),
    "include_reasoning_false": gchat(include_reasoning=False),
    "chat_template_kwargs": gchat(chat_template_kwargs={"reasoning_effort": "low",
                                                        "enable_thinking": False}),
    "tools_auto": gchat(tools=TOOLS),
    "tools_none": gchat(tools=TOOLS, tool_choice="none"),
    "tools_required": gchat(tools=TOOLS, tool_choice="required"),
    "tools_named": gchat(tools=TOOLS, tool_choice=NAMED),
    "tools_auto_single": gchat(tools=TOOLS, parallel_tool_calls=False),
    "tools_strict": gchat(tools=[WEATHER, STRICT]),
    "tools_noparams": gchat(tools=[NOPARAMS, WEATHER]),
    "tools_described_only": gchat(tools=[DESCRIBED_ONLY], tool_choice="required"),
    "tools_named_noparams": gchat(tools=[NOPARAMS], tool_choice={
        "type": "function", "function": {"name": "ping"}}),
    "tools_defer_loading": gchat(tools=[{**WEATHER, "defer_loading": True}, TIME]),
    "tools_with_effort": gchat(tools=TOOLS, reasoning_effort="high"),
    "response_format_json": gchat(response_format={"type": "json_object"}),
    "response_format_schema": gchat(response_format={"type": "json_schema", "json_schema": {
        "name": "w", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}}),
    "response_format_text": gchat(response_format={"type": "text"}),
    "structured_outputs_regex": gchat(structured_outputs={"regex": "[a-z]+"}),
    "structured_outputs_choice": gchat(structured_outputs={"choice": ["yes", "no"]}),
    "required_with_response_format": gchat(tools=TOOLS, tool_choice="required",
                                           response_format={"type": "json_object"}),
    "logprobs": gchat(logprobs=True, top_logprobs=3),
    "n2": gchat(n=2),
    "stop": gchat(stop=["END"], stop_token_ids=[200007]),
    "return_token_ids": gchat(return_token_ids=True),
    "stream_usage": gchat(stream=True, stream_options={"include_usage": True}),
    "skip_special_false": gchat(skip_special_tokens=False),
    "continue_final": gchat(messages=[*USER, {"role": "assistant", "content": "It is"}],
                            continue_final_message=True, add_generation_prompt=False),
    "no_generation_prompt": gchat(add_generation_prompt=False),
    "request_id": gchat(request_id="abc-1", user="u1", cache_salt="s", priority=2),
}

RENDER_CHAT_GPTOSS_ERRORS: dict[str, dict[str, Any]] = {
    "bad_effort": gchat(reasoning_effort="extreme"),
    "effort_none": gchat(reasoning_effort="none"),
    "named_unknown_tool": gchat(tools=TOOLS, tool_choice={"type": "function",
                                                          "function": {"name": "nope"}}),
    "tool_choice_without_tools": gchat(tool_choice="required"),
    "messages_empty": gchat(messages=[]),
    "max_tokens_too_big": gchat(max_tokens=10**7),
    "top_logprobs_without_logprobs": gchat(top_logprobs=2),
    "image_part": gchat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]),
    "continue_and_generation_prompt": gchat(
        messages=[*USER, {"role": "assistant", "content": "It"}], continue_final_message=True,
        add_generation_prompt=True),
    "tool_message_unknown_id": gchat(messages=[*USER, {"role": "tool", "tool_call_id": "x",
                                                        "content": "r"}], tools=TOOLS),
    "assistant_bad_arguments": gchat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                      "arguments": "{not json"}}]}], tools=TOOLS),
    "tools_not_list": gchat(tools={"type": "function"}),
    "n_zero": gchat(n=0),
    "stream_options_without_stream": gchat(stream_options={"include_usage": True}),
}

#: name -> (chat_request, choices, extra generate_response fields)
DERENDER_CHAT_GPTOSS: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "final_only": (gchat(), [gout("<|channel|>final<|message|>Sunny.")], {}),
    "analysis_final": (gchat(), [gout(G_ANALYSIS + G_FINAL + "It is sunny.")], {}),
    "analysis_length": (gchat(), [gout("<|channel|>analysis<|message|>Thinking about", "length")],
                        {}),
    "final_length": (gchat(), [gout(G_ANALYSIS + G_FINAL + "It is su", "length")], {}),
    "unicode": (gchat(), [gout(G_ANALYSIS + G_FINAL + "Grüße 🌍 — 中文 ✓")], {}),
    "plain_text": (gchat(), [gout("Just text, no harmony.", end=None)], {}),
    "abort": (gchat(), [gout(G_ANALYSIS + G_FINAL + "It", "abort")], {}),
    "only_eos": (gchat(), [gout("")], {}),
    "tool_call": (gchat(tools=TOOLS), [gout(G_ANALYSIS + G_CALL_AFTER, end=HARMONY_CALL)], {}),
    "tool_call_first": (gchat(tools=TOOLS), [gout(G_CALL, end=HARMONY_CALL)], {}),
    "tool_call_no_constrain": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.get_time<|message|>{"tz": "UTC"}',
        end=HARMONY_CALL)], {}),
    "tool_call_recipient_first": (gchat(tools=TOOLS), [gout(
        G_ANALYSIS + '<|start|>assistant to=functions.get_weather<|channel|>commentary json'
        '<|message|>{"city": "Rome"}', end=HARMONY_CALL)], {}),
    "tool_call_preamble": (gchat(tools=TOOLS), [gout(
        G_ANALYSIS + "<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>"
        + G_CALL_AFTER, end=HARMONY_CALL)], {}),
    "tool_call_pretty_args": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
        '{\n  "city":"Paris",  "unit": "c"\n}', end=HARMONY_CALL)], {}),
    "tool_call_bad_json": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
        '{"city": Par', end=HARMONY_CALL)], {}),
    "tool_call_unknown_name": (gchat(tools=TOOLS), [gout(
        '<|channel|>commentary to=functions.nope <|constrain|>json<|message|>{}',
        end=HARMONY_CALL)], {}),
    "tool_call_length": (gchat(tools=TOOLS), [gout(G_CALL[:-6], "length")], {}),
    "tool_call_no_tools": (gchat(), [gout(G_CALL, end=HARMONY_CALL)], {}),
    "tool_none": (gchat(tools=TOOLS, tool_choice="none"), [gout(
        G_ANALYSIS + G_FINAL + "No tools.")], {}),
    "tool_required": (gchat(tools=TOOLS, tool_choice="required"), [gout(
        G_CALL, end=HARMONY_CALL)], {}),
    "tool_named": (gchat(tools=TOOLS, tool_choice=NAMED), [gout(G_CALL, end=HARMONY_CALL)], {}),
    "tool_call_then_final": (gchat(tools=TOOLS), [gout(
        G_CALL + "<|call|>" + G_FINAL + "Done.")], {}),
    "logprobs": (gchat(logprobs=True, top_logprobs=2), [gout(
        G_ANALYSIS + G_FINAL + "Sunny 🌞.", logprobs=4)], {}),
    "logprobs_no_top": (gchat(logprobs=True), [gout(G_ANALYSIS + G_FINAL + "Ok.", logprobs=3)],
                        {}),
    "include_reasoning_false": (gchat(include_reasoning=False), [gout(
        G_ANALYSIS + G_FINAL + "Sunny.")], {}),
    "stop_string": (gchat(stop=["sunny"]), [gout(G_ANALYSIS + G_FINAL + "It is sunny today.")],
                    {}),
    "stop_token_end": (gchat(stop_token_ids=[200007]), [gout(
        "<|channel|>analysis<|message|>Hm.", end=200007)], {}),
    "n2": (gchat(n=2), [gout("<|channel|>final<|message|>A.", index=0),
                        gout(G_ANALYSIS + G_FINAL + "B.", index=1)], {}),
    "return_token_ids": (gchat(return_token_ids=True), [gout(G_FINAL[18:] + "Hi.")], {}),
    "metrics": (gchat(), [gout(G_ANALYSIS + G_FINAL + "Hi.")], {"metrics": METRICS}),
    "skip_special_false": (gchat(skip_special_tokens=False), [gout(
        G_ANALYSIS + G_FINAL + "Hi.")], {}),
    "two_analysis": (gchat(), [gout(
        G_ANALYSIS + "<|start|>assistant<|channel|>analysis<|message|>More.<|end|>"
        + G_FINAL + "Ok.")], {}),
}

#: gpt-oss ids past the tokenizer's 200,019 (up to vocab_size 201,088), and special tokens
#: inside a message: openai-harmony decodes them as their names (``<|reserved_N|>``)
G_RESERVED = (ids(G_ANALYSIS[:-7], "gpt-oss") + [200019] + ids(" more.<|end|>" + G_FINAL + "Hi",
                                                              "gpt-oss")
              + [201087] + ids(" there", "gpt-oss") + [200013, 200018])
DERENDER_CHAT_GPTOSS.update({
    "reserved_ids": (gchat(), [gout(G_RESERVED)], {}),
    "reserved_ids_keep_special": (gchat(skip_special_tokens=False), [gout(G_RESERVED)], {}),
    "reserved_ids_logprobs": (gchat(logprobs=True, top_logprobs=2), [gout(G_RESERVED,
                                                                          logprobs=3)], {}),
    "reserved_id_last": (gchat(), [gout(G_FINAL[18:] + "Hi", "length", end=None) | {
        "token_ids": ids(G_FINAL[18:] + "Hi", "gpt-oss") + [201087]}], {}),
    # vLLM's harmony parser reads every output id, the stop token that ended it too: an EOS
    # harmony does not end a message on (<|endoftext|>, generation_config's) is message text
    # there, and so is a stop_token_ids word (deviation stop_id_harmony: tito leaves it out)
    "stop_id_harmony_endoftext": (gchat(), [gout(G_ANALYSIS + G_FINAL + "Hi", end=199999)], {}),
    "stop_id_harmony_endoftext_keep_special": (gchat(skip_special_tokens=False), [gout(
        "<|channel|>analysis<|message|>Hm", end=199999)], {}),
    "stop_id_harmony_text": (gchat(stop_token_ids=[41612]), [gout(
        G_ANALYSIS + G_FINAL + "Hi wow", end=None) | {"stop_reason": 41612}], {}),
    "stop_id_harmony_text_stop_string": (gchat(stop_token_ids=[41612], stop=["wow"]), [gout(
        G_ANALYSIS + G_FINAL + "Hi wow", end=None) | {"stop_reason": 41612}], {}),
})

STREAM_CHAT_GPTOSS = [
    "final_only", "analysis_final", "analysis_length", "final_length", "unicode", "plain_text",
    "tool_call", "tool_call_first", "tool_call_no_constrain", "tool_call_recipient_first",
    "tool_call_preamble", "tool_call_pretty_args", "tool_call_bad_json", "tool_call_length",
    "tool_required", "tool_named", "logprobs", "include_reasoning_false", "stop_token_end",
    "return_token_ids", "metrics", "two_analysis", "only_eos", "reserved_ids",
    "reserved_ids_logprobs", "stop_id_harmony_endoftext", "stop_id_harmony_text",
]


# -- mistral-v3 (mistral-common: --tokenizer-mode mistral --tool-call-parser mistral) ---------

M_CALL = '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]'
M_CALL2 = ('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, '
           '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}]')
#: CONVERSATION with Mistral-shaped call ids (9 characters) and a long one vLLM cuts to its last 9
M_IDS = {"call_1": "call00001", "call_2": "chatcmpl-tool-abcdef123456"}
M_CONVERSATION = [
    {**m, "tool_calls": [{**c, "id": M_IDS[c["id"]]} for c in m["tool_calls"]]} if "tool_calls" in m
    else {**m, "tool_call_id": M_IDS[m["tool_call_id"]]} if "tool_call_id" in m else m
    for m in CONVERSATION
]


def mchat(**fields: Any) -> dict[str, Any]:
    return chat(model="mistral-v3", **fields)


def mout(text: str, finish: str | None = "stop", **fields: Any) -> dict[str, Any]:
    """One mistral-v3 engine choice (``[TOOL_CALLS]`` is its special token), ``</s>`` at a stop."""
    return out(text, finish, model="mistral-v3", **fields)


RENDER_CHAT_MISTRAL: dict[str, dict[str, Any]] = {
    "basic": mchat(),
    "max_tokens": mchat(max_tokens=20),
    "max_completion_tokens": mchat(max_completion_tokens=5),
    "sampling": mchat(temperature=0.3, top_p=0.8, top_k=5, seed=3, repetition_penalty=1.05),
    "system": mchat(messages=[{"role": "system", "content": "Be brief."}, *USER]),
    "two_systems": mchat(messages=[{"role": "system", "content": "Be brief."},
                                   {"role": "system", "content": "Be kind."}, *USER]),
    "multi_turn": mchat(messages=[*USER, {"role": "assistant", "content": "Sunny."},
                                  {"role": "user", "content": "And tomorrow?"}]),
    "multi_turn_tools": mchat(messages=M_CONVERSATION, tools=TOOLS),
    "content_parts": mchat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]}]),
    "name_field": mchat(messages=[{"role": "user", "name": "bob", "content": "Hi"}]),
    "unicode": mchat(messages=[{"role": "user", "content": "Grüße 🌍 — «ok» 中文 [INST]"}]),
    "tools_auto": mchat(tools=TOOLS),
    "tools_none": mchat(tools=TOOLS, tool_choice="none"),
    "tools_required": mchat(tools=TOOLS, tool_choice="required"),
    "tools_required_single": mchat(tools=TOOLS, tool_choice="required", parallel_tool_calls=False),
    "tools_named": mchat(tools=TOOLS, tool_choice=NAMED),
    "tools_strict": mchat(tools=[WEATHER, STRICT]),
    "tools_noparams": mchat(tools=[NOPARAMS], tool_choice="required"),
    "response_format_json": mchat(response_format={"type": "json_object"}),
    "response_format_schema": mchat(response_format={"type": "json_schema", "json_schema": {
        "name": "w", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}}),
    "required_with_response_format": mchat(tools=TOOLS, tool_choice="required",
                                           response_format={"type": "json_object"}),
    "structured_outputs_regex": mchat(tools=TOOLS, tool_choice="required",
                                      structured_outputs={"regex": "[a-z]+"}),
    "logprobs": mchat(logprobs=True, top_logprobs=2),
    "n2": mchat(n=2),
    "stop": mchat(stop=["END"], stop_token_ids=[4]),
    "return_token_ids": mchat(return_token_ids=True),
    "skip_special_false": mchat(skip_special_tokens=False),
    "include_reasoning_false": mchat(include_reasoning=False),
    "continue_final": mchat(messages=[*USER, {"role": "assistant", "content": "It is"}],
                            continue_final_message=True, add_generation_prompt=False),
    "request_id": mchat(request_id="m-1", cache_salt="s", priority=1),
    "tool_choice_null_no_tools": mchat(tool_choice=None),
}

RENDER_CHAT_MISTRAL_ERRORS: dict[str, dict[str, Any]] = {
    "chat_template": mchat(chat_template="{{ 'x' }}"),
    "chat_template_kwargs": mchat(chat_template_kwargs={"x": 1}),
    "two_users": mchat(messages=[*USER, {"role": "user", "content": "Again"}]),
    "assistant_last": mchat(messages=[*USER, {"role": "assistant", "content": "It"}]),
    "assistant_first": mchat(messages=[{"role": "assistant", "content": "Hi"}, *USER]),
    "tool_unknown_id": mchat(messages=[*USER, {"role": "tool", "tool_call_id": "abcdefghi",
                                               "content": "r"}], tools=TOOLS),
    "image_part": mchat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]),
    "messages_empty": mchat(messages=[]),
    "named_unknown_tool": mchat(tools=TOOLS, tool_choice={"type": "function",
                                                          "function": {"name": "nope"}}),
    "max_tokens_too_big": mchat(max_tokens=10**6),
    "top_logprobs_without_logprobs": mchat(top_logprobs=2),
    "bad_tool_arguments": mchat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "abcdefghi", "type": "function", "function": {"name": "get_weather",
                                                             "arguments": "{not json"}}]},
        {"role": "tool", "tool_call_id": "abcdefghi", "content": "r"}], tools=TOOLS),
}

DERENDER_CHAT_MISTRAL: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "plain": (mchat(), [mout("Hello! How can I help?")], {}),
    "unicode": (mchat(), [mout("Grüße 🌍 — 中文 ✓")], {}),
    "length": (mchat(), [mout("It is su", "length")], {}),
    "abort": (mchat(), [mout("It", "abort")], {}),
    "only_eos": (mchat(), [mout("")], {}),
    "tool_auto": (mchat(tools=TOOLS), [mout(M_CALL)], {}),
    "tool_auto_two": (mchat(tools=TOOLS), [mout(M_CALL2)], {}),
    "tool_auto_text_before": (mchat(tools=TOOLS), [mout("Let me check. " + M_CALL)], {}),
    # whitespace alone before the call: vLLM's batch has no content, its stream sends it
    "tool_auto_blank_before": (mchat(tools=TOOLS), [mout(" \n\n" + M_CALL)], {}),
    "tool_auto_no_call": (mchat(tools=TOOLS), [mout("No tool needed.")], {}),
    "tool_auto_single": (mchat(tools=TOOLS, parallel_tool_calls=False), [mout(M_CALL2)], {}),
    "tool_auto_length": (mchat(tools=TOOLS), [mout(M_CALL[:30], "length")], {}),
    "tool_auto_malformed": (mchat(tools=TOOLS), [mout(
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Par')], {}),
    "tool_auto_unknown_name": (mchat(tools=TOOLS), [mout(
        '[TOOL_CALLS] [{"name": "nope", "arguments": {}}]')], {}),
    "tool_auto_no_args": (mchat(tools=TOOLS), [mout('[TOOL_CALLS] [{"name": "get_time"}]')], {}),
    "tool_auto_object": (mchat(tools=TOOLS), [mout(
        '[TOOL_CALLS] {"name": "get_weather", "arguments": {"city": "Oslo"}}')], {}),
    "tool_none": (mchat(tools=TOOLS, tool_choice="none"), [mout(M_CALL)], {}),
    "tool_required": (mchat(tools=TOOLS, tool_choice="required"), [mout(
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]')], {}),
    "tool_required_tagged": (mchat(tools=TOOLS, tool_choice="required"), [mout(M_CALL)], {}),
    "tool_named": (mchat(tools=TOOLS, tool_choice=NAMED), [mout(
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]')], {}),
    "no_tools_call_text": (mchat(), [mout(M_CALL)], {}),
    # required / named, [TOOL_CALLS] before the bare call's header is complete: vLLM's auto
    # reading (the text before it is content, leading whitespace too); after a bare call was
    # made: a deviation (forced_bare_marker)
    "forced_text_mistral_brace_marker": (mchat(tools=TOOLS, tool_choice=NAMED), [mout(
        ' \n{"' + M_CALL)], {}),
    "forced_text_mistral_cut_name": (mchat(tools=TOOLS, tool_choice="required"), [mout(
        '{"name": "get_t' + M_CALL)], {}),
    "forced_bare_marker_mistral": (mchat(tools=TOOLS, tool_choice="required"), [mout(
        '[{"name": "get_time", "arguments": {}}, ' + M_CALL)], {}),
    "logprobs": (mchat(logprobs=True, top_logprobs=2), [mout("Sunny 🌞 today.", logprobs=4)], {}),
    "logprobs_no_top": (mchat(logprobs=True), [mout("Ok.", logprobs=3)], {}),
    "stop_string": (mchat(stop=["sunny"]), [mout("It is sunny today.")], {}),
    "stop_token_ids": (mchat(stop_token_ids=[29491]), [mout("Sunny.", eos=False) | {
        "finish_reason": "stop", "stop_reason": 29491}], {}),
    "n2": (mchat(n=2), [mout("A.", index=0), mout("B.", index=1)], {}),
    "return_token_ids": (mchat(return_token_ids=True), [mout("Hi.")], {}),
    "metrics": (mchat(), [mout("Hi.")], {"metrics": METRICS}),
    "special_mid_output_skip": (mchat(ignore_eos=True), [mout(
        "Sunny.[INST] more", "length")], {}),
    "special_mid_output_keep": (mchat(ignore_eos=True, skip_special_tokens=False), [mout(
        "Sunny.[INST] more", "length")], {}),
    "padded_vocab_id": (mchat(), [mout("Hi", "length") | {
        "token_ids": ids("Hi", "mistral-v3") + [32767]}], {}),
}

STREAM_CHAT_MISTRAL = [
    "plain", "unicode", "length", "only_eos", "tool_auto", "tool_auto_two",
    "tool_auto_text_before", "tool_auto_blank_before", "tool_auto_single", "tool_auto_length",
    "tool_auto_malformed", "tool_auto_no_args", "tool_required", "tool_named", "logprobs", "stop_token_ids",
    "return_token_ids", "metrics", "special_mid_output_skip", "no_tools_call_text",
    "forced_text_mistral_brace_marker", "forced_text_mistral_cut_name", "forced_bare_marker_mistral",
]


# -- qwen3: what a user of the openai SDK sends ------------------------------------------------

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
RENDER_CHAT_EDGE: dict[str, dict[str, Any]] = {
    "tool_result_parts": chat(messages=[
        *USER, {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": [{"type": "text", "text": "18C"}, {"type": "text", "text": "cloudy"}]}],
        tools=TOOLS),
    "assistant_null_content_calls": chat(messages=[
        *USER, {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "user", "content": "Thanks"}], tools=TOOLS),
    "assistant_reasoning_turn": chat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning": "Easy question."},
        {"role": "user", "content": "Sure?"}]),
    "assistant_reasoning_content_turn": chat(messages=[
        *USER, {"role": "assistant", "content": "Sunny.", "reasoning_content": "Easy."},
        {"role": "user", "content": "Sure?"}]),
    "name_fields": chat(messages=[{"role": "system", "content": "Hi", "name": "sys"},
                                  {"role": "user", "content": "Hi", "name": "bob"},
                                  {"role": "assistant", "content": "Hey", "name": "bot"},
                                  {"role": "user", "content": "Weather?", "name": "bob"}]),
    "developer_role": chat(messages=[{"role": "developer", "content": "Be brief."}, *USER]),
    "empty_user_content": chat(messages=[{"role": "user", "content": ""}]),
    "empty_parts": chat(messages=[{"role": "user", "content": []}]),
    "null_user_content": chat(messages=[{"role": "user", "content": None}]),
    "system_parts": chat(messages=[{"role": "system", "content": [
        {"type": "text", "text": "Be"}, {"type": "text", "text": "brief."}]}, *USER]),
    "image_part": chat(messages=[{"role": "user", "content": [
        {"type": "text", "text": "What is this?"}, IMAGE]}]),
    "image_only": chat(messages=[{"role": "user", "content": [IMAGE]}]),
    "input_audio_part": chat(messages=[{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]),
    "refusal_part": chat(messages=[*USER, {"role": "assistant", "content": [
        {"type": "refusal", "refusal": "No."}]}, {"role": "user", "content": "Why?"}]),
    "long_stop_list": chat(stop=[f"stop{i}" for i in range(64)]),
    "stop_empty_list": chat(stop=[]),
    "stop_four": chat(stop=["a", "b", "c", "d"]),
    "stop_five": chat(stop=["a", "b", "c", "d", "e"]),
    "stop_unicode": chat(stop=["。", "🌍", "\n\n\n"]),
    "both_max_tokens": chat(max_tokens=50, max_completion_tokens=7),
    "max_tokens_null": chat(max_tokens=None),
    "n2_greedy": chat(n=2, temperature=0.0),
    "n_big": chat(n=16, temperature=1.0),
    "logit_bias_many": chat(logit_bias={"9707": 100, "0": -100, "151645": -1.5}),
    "min_tokens": chat(min_tokens=5, max_tokens=10),
    "min_tokens_equal": chat(min_tokens=10, max_tokens=10),
    "truncate_minus_one": chat(truncate_prompt_tokens=-1),
    "truncate_big": chat(truncate_prompt_tokens=1000),
    "truncation_side_right": chat(truncate_prompt_tokens=5, truncation_side="right"),
    "priority_negative": chat(priority=-5),
    "request_id_header_style": chat(request_id="abc_DEF-123.x"),
    "cache_salt_long": chat(cache_salt="x" * 200),
    "echo_chat": chat(echo=True, messages=[*USER, {"role": "assistant", "content": "It is"}],
                      add_generation_prompt=False, continue_final_message=True),
    "echo_chat_no_continue": chat(echo=True),
    "add_special_tokens_true": chat(add_special_tokens=True),
    "documents": chat(documents=[{"title": "Paris", "text": "Sunny"}]),
    "chat_template_kwargs_extra": chat(chat_template_kwargs={"foo": "bar", "enable_thinking": True}),
    "chat_template_kwargs_thinking_str": chat(chat_template_kwargs={"enable_thinking": "no"}),
    "mm_processor_kwargs": chat(mm_processor_kwargs={"fps": 2}),
    "tool_defer_loading": chat(tools=[{**WEATHER, "defer_loading": True}, TIME]),
    "tool_strict_null": chat(tools=[{"type": "function", "function": {
        **WEATHER["function"], "strict": None}}]),
    "tool_extra_keys": chat(tools=[{"type": "function", "x-extra": 1, "function": {
        **WEATHER["function"], "x-meta": {"a": 1}}}]),
    "tool_choice_none_no_tools": chat(tool_choice="none"),
    "tool_choice_auto_no_tools": chat(tool_choice="auto"),
    "parallel_tool_calls_no_tools": chat(parallel_tool_calls=False),
    "seed_negative": chat(seed=-1),
    "temperature_zero": chat(temperature=0),
    "top_p_small": chat(top_p=0.01, top_k=-1),
    "presence_bounds": chat(presence_penalty=2.0, frequency_penalty=-2.0),
    "logprobs_false_top": chat(logprobs=False),
    "top_logprobs_zero": chat(logprobs=True, top_logprobs=0),
    "top_logprobs_max": chat(logprobs=True, top_logprobs=20),
    "return_tokens_as_token_ids": chat(logprobs=True, return_tokens_as_token_ids=True),
    "stream_include_usage_false": chat(stream=True, stream_options={"include_usage": False}),
    "user_and_metadata": chat(user="u", metadata={"k": "v"}, store=False, service_tier="auto"),
    "vllm_xargs": chat(vllm_xargs={"k": 1}),
    "repetition_detection_absent_fields": chat(spaces_between_special_tokens=False,
                                               include_stop_str_in_output=True),
}

RENDER_CHAT_EDGE_ERRORS: dict[str, dict[str, Any]] = {
    "logit_bias_out_of_vocab": chat(logit_bias={"999999": 1}),
    "logit_bias_too_big_value": chat(logit_bias={"9707": 101}),
    "logit_bias_not_dict": chat(logit_bias=[1, 2]),
    "min_tokens_above_max": chat(min_tokens=20, max_tokens=10),
    "min_tokens_negative": chat(min_tokens=-1),
    "truncate_zero": chat(truncate_prompt_tokens=0),
    "truncate_minus_two": chat(truncate_prompt_tokens=-2),
    "truncate_above_max_len": chat(truncate_prompt_tokens=50000),
    "truncation_side_bad": chat(truncate_prompt_tokens=5, truncation_side="middle"),
    "priority_not_int": chat(priority="high"),
    "cache_salt_empty": chat(cache_salt=""),
    "cache_salt_not_str": chat(cache_salt=5),
    "request_id_not_str": chat(request_id=5),
    "n_negative": chat(n=-1),
    "n_not_int": chat(n=1.5),
    "top_p_zero": chat(top_p=0),
    "top_p_above_one": chat(top_p=1.5),
    "top_k_bad": chat(top_k=-2),
    "min_p_bad": chat(min_p=2),
    "presence_too_big": chat(presence_penalty=3),
    "repetition_zero": chat(repetition_penalty=0),
    "temperature_too_big": chat(temperature=1000),
    "stop_too_many_types": chat(stop=["a", 1]),
    "stop_token_ids_bad": chat(stop_token_ids=["a"]),
    "max_completion_tokens_zero": chat(max_completion_tokens=0),
    "max_tokens_negative": chat(max_tokens=-5),
    "logprobs_not_bool": chat(logprobs="yes"),
    "messages_not_list": chat(messages={"role": "user", "content": "x"}),
    "message_no_role": chat(messages=[{"content": "x"}]),
    "message_content_int": chat(messages=[{"role": "user", "content": 5}]),
    "content_part_unknown_type": chat(messages=[{"role": "user", "content": [
        {"type": "bogus", "text": "x"}]}]),
    "content_part_text_missing": chat(messages=[{"role": "user", "content": [{"type": "text"}]}]),
    "tool_call_missing_function": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function"}]}]),
    "tool_missing_call_id": chat(messages=[*USER, {"role": "tool", "content": "r"}]),
    "tool_not_function_type": chat(tools=[{"type": "web_search"}]),
    "tool_no_name": chat(tools=[{"type": "function", "function": {"description": "x"}}]),
    "tool_choice_bad_string": chat(tools=TOOLS, tool_choice="sometimes"),
    "tool_choice_named_no_function": chat(tools=TOOLS, tool_choice={"type": "function"}),
    "response_format_bad_type": chat(response_format={"type": "xml"}),
    "response_format_no_type": chat(response_format={}),
    "response_format_not_object": chat(response_format="json"),
    "tool_choice_int": chat(tools=TOOLS, tool_choice=5),
    "tool_choice_bad_string_no_tools": chat(tool_choice="sometimes"),
    "tool_choice_named_no_name": chat(tools=TOOLS, tool_choice={"type": "function",
                                                                "function": {}}),
    "tool_choice_named_empty_name": chat(tools=TOOLS, tool_choice={"type": "function",
                                                                   "function": {"name": ""}}),
    "tool_choice_named_function_string": chat(tools=TOOLS, tool_choice={
        "type": "function", "function": "get_weather"}),
    "tool_call_function_no_name": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"arguments": "{}"}}]}]),
    "tool_call_function_not_object": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": "get_weather"}]}]),
    "tool_call_no_arguments": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "get_weather"}}]}]),
    "tool_call_no_id": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}]),
    "response_format_schema_missing": chat(response_format={"type": "json_schema"}),
    "structured_outputs_two": chat(structured_outputs={"regex": "a", "choice": ["a"]}),
    "chat_template_kwargs_not_dict": chat(chat_template_kwargs=[1]),
    "documents_not_list": chat(documents="doc"),
    "mm_processor_kwargs_not_dict": chat(mm_processor_kwargs=5),
    "add_special_tokens_not_bool": chat(add_special_tokens="yes"),
    "echo_not_bool": chat(echo="yes"),
    "stream_not_bool": chat(stream="yes"),
    "reasoning_effort_bad": chat(reasoning_effort="max"),
    "image_url_bad": chat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "not a url"}}]}]),
    "model_missing": {"messages": USER},
    "body_not_object": [USER],
    "assistant_bad_arguments": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                      "arguments": "{not json"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"}], tools=TOOLS),
    "assistant_list_arguments": chat(messages=[*USER, {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                      "arguments": "[1, 2]"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"}], tools=TOOLS),
    "assistant_empty_tool_calls": chat(messages=[*USER, {"role": "assistant", "content": "x",
                                                         "tool_calls": []},
                                                 {"role": "user", "content": "y"}]),
}

#: qwen3 derender edge cases: (chat_request, choices, extra)
DERENDER_CHAT_EDGE: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "echo_chat": (chat(echo=True, messages=[*USER, {"role": "assistant", "content": "It is"}],
                       add_generation_prompt=False, continue_final_message=True),
                  [out(" sunny.")], {}),
    "echo_chat_plain": (chat(echo=True), [out(THINK_TEXT + "Sunny.")], {}),
    "n3_mixed_finish": (chat(n=3), [out(THINK_TEXT + "A.", index=0),
                                    out(THINK_TEXT + "B", "length", index=1),
                                    out(THINK_TEXT + "C", "abort", index=2)], {}),
    "min_tokens": (chat(min_tokens=3), [out(THINK_TEXT + "Sunny.")], {}),
    "logit_bias": (chat(logit_bias={"9707": 5}), [out(THINK_TEXT + "Hello")], {}),
    "stop_string_four": (chat(stop=["stop0", "stop1", "It is", "sunny"]),
                       [out(THINK_TEXT + "It is sunny.")], {}),
    "stop_string_unicode": (chat(stop=["🌍"]), [out(THINK_TEXT + "Hi 🌍 there")], {}),
    "max_completion_tokens": (chat(max_completion_tokens=3), [out(THINK_TEXT + "Su", "length")],
                              {}),
    "return_tokens_as_token_ids": (chat(logprobs=True, top_logprobs=2,
                                        return_tokens_as_token_ids=True),
                                   [out(THINK_TEXT + "Hi 🌍", logprobs=3)], {}),
    "tool_result_turn": (chat(messages=CONVERSATION, tools=TOOLS), [out(THINK_TEXT + "Ok.")], {}),
    "developer_role": (chat(messages=[{"role": "developer", "content": "Be brief."}, *USER]),
                       [out(THINK_TEXT + "Ok.")], {}),
    "include_usage_stream_opts": (chat(stream=True, stream_options={
        "include_usage": True, "continuous_usage_stats": True}), [out(THINK_TEXT + "Ok.")], {}),
}
STREAM_CHAT_EDGE = ["echo_chat", "echo_chat_plain", "min_tokens", "stop_string_four",
                    "stop_string_unicode", "return_tokens_as_token_ids", "include_usage_stream_opts"]


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


# -- media content parts on text-only models (chat, Responses, Messages, tokenize) -------------

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
_HI = {"role": "user", "content": "Hi"}
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
        _HI, {"role": "assistant", "content": "W", "reasoning": {"id": "a"}}, _HI),
    "gptoss_reasoning_object_last_final": _oss(
        _HI, {"role": "assistant", "content": "W", "reasoning": {"type": "text", "text": "r"}}),
    "gptoss_reasoning_object_kept.vllm500": _oss(
        _HI, {"role": "assistant", "content": None, "reasoning": {"id": "a"}}),
    "gptoss_reasoning_object_calls.vllm500": _oss(
        _HI, {"role": "assistant", "content": None, "reasoning": {"id": "a"}, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
    "gptoss_reasoning_int": _oss(
        _HI, {"role": "assistant", "content": "W", "reasoning": 5}, _HI),
    "gptoss_system_untyped": _oss({"role": "system", "content": _UNTYPED}, _HI),
    "gptoss_developer_untyped": _oss({"role": "developer", "content": _UNTYPED}, _HI),
    "gptoss_later_system_untyped": _oss(_HI, {"role": "system", "content": _UNTYPED}, _HI),
    "gptoss_user_untyped": _oss({"role": "user", "content": _UNTYPED}),
    "gptoss_assistant_untyped": _oss(_HI, {"role": "assistant", "content": _UNTYPED}, _HI),
    "gptoss_tool_untyped": _oss(_HI, {"role": "tool", "tool_call_id": "c1",
                                      "content": _UNTYPED}),
    "gptoss_calls_untyped": _oss(_HI, {"role": "assistant", "content": _UNTYPED,
                                       "tool_calls": _GPTOSS_CALL}, _RESULT,
                                 tools=_GPTOSS_TOOLS),
    "gptoss_calls_string_part": _oss(_HI, {"role": "assistant", "content": ["s"],
                                           "tool_calls": _GPTOSS_CALL}, _RESULT,
                                     tools=_GPTOSS_TOOLS),
    "gptoss_calls_text_part": _oss(_HI, {"role": "assistant", "content": [_A],
                                         "tool_calls": _GPTOSS_CALL}, _RESULT,
                                   tools=_GPTOSS_TOOLS),
    "gptoss_user_text_missing": _oss({"role": "user", "content": [_A, _N]}),
    "gptoss_user_thinking": _oss({"role": "user", "content": [_THINK]}),
    "gptoss_system_missing_text": _oss({"role": "system", "content": [_N]}, _HI),
    "gptoss_system_name_untyped": _oss({"role": "system", "content": _UNTYPED,
                                        "tool_call_id": "x"}, _HI),
})

_FC = {"type": "function_call", "call_id": "call_1", "name": "get_weather",
       "arguments": "{\"city\": \"Paris\"}"}
_FO = {"type": "function_call_output", "call_id": "call_1", "output": "18C"}
_RT = {"type": "reasoning_text", "text": "think"}
_SAID = {"role": "assistant", "content": "hello"}


def _reasoning(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "reasoning", "id": "rs_1", "summary": [], "content": list(content)}


def _items(*items: dict[str, Any], server: str = "gpt-oss") -> tuple[str, str, dict[str, Any]]:
    return (server, RESPONSES_R, {"model": server, "input": [_HI, *items]})


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
    "gptoss_empty_reasoning": _items(_reasoning(), _SAID, _HI),
    "gptoss_summary_only": _items({"type": "reasoning", "id": "r", "summary": [
        {"type": "summary_text", "text": "sum"}]}, _SAID, _HI),
    "gptoss_said_reasoning_call": _items(_SAID, _reasoning(_RT), _FC, _FO),
    "gptoss_two_parts": _items(_said(_OUT, {"type": "output_text", "text": "b"},
                                     type="message"), _HI),
    "gptoss_output_message_call": _items(_said(
        {"type": "output_text", "text": "x", "annotations": []}, type="message", id="m",
        status="completed"), _FC, _FO),
    "gptoss_two_said": _items(_SAID, _SAID, _HI),
    "gptoss_turns": _items(_reasoning(_RT), _SAID, _HI, _reasoning(_RT), _FC, _FO),
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
        {"type": "input_text", "text": ""}]}, _HI),
    "gptoss_first_system_empty": ("gpt-oss", RESPONSES_R, {"model": "gpt-oss", "input": [
        {"role": "system", "content": ""}, _HI]}),
    "gptoss_instructions_and_system": ("gpt-oss", RESPONSES_R, {
        "model": "gpt-oss", "instructions": "be", "input": [{"role": "system", "content": "s"},
                                                           _HI]}),
    "mistral_template_kwargs": ("mistral-v3", RESPONSES_R, {
        "model": "mistral-v3", "input": "Hi", "chat_template_kwargs": {}}),
    "mistral_template_kwargs_set": ("mistral-v3", RESPONSES_R, {
        "model": "mistral-v3", "input": "Hi", "chat_template_kwargs": {"x": 1}}),
    "mistral_chat_template_kwargs_empty": ("mistral-v3", CHAT_R, {
        "model": "mistral-v3", "messages": [_HI], "chat_template_kwargs": {}}),
    "gptoss_said_empty": _items({"role": "assistant", "content": ""}, _HI),
    "gptoss_said_no_parts": _items({"role": "assistant", "content": []}, _HI),
    "gptoss_refusal_part": _items(_said({"type": "refusal", "refusal": "no"}, type="message"),
                                  _HI),
    "gptoss_reasoning_said_empty": _items(_reasoning(_RT), {"role": "assistant", "content": ""},
                                          _HI),
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

#: groups of single HTTP cases (name -> (server, path, body)), each recorded and replayed as is
HTTP_GROUPS: dict[str, dict[str, tuple[str, str, dict[str, Any]]]] = {
    "render_media_errors": RENDER_MEDIA, "tokens_gptoss": TOKENS_GPTOSS,
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
HTTP_GROUPS["render_structured_options"] = structured_options_corpus.RENDER_STRUCTURED_OPTIONS
HTTP_GROUPS["render_responses_item_shapes"] = responses_tools_corpus.RENDER_RESPONSES_ITEM_SHAPES
HTTP_GROUPS["render_structural_model"] = structural_model_corpus.RENDER_STRUCTURAL_MODEL
HTTP_GROUPS["render_tokenize_kwargs"] = request_fields_corpus.RENDER_TOKENIZE_KWARGS
#: chat messages at the edges of vLLM's message union (message_edges_corpus)
HTTP_GROUPS["render_message_edges"] = message_edges_corpus.RENDER_MESSAGE_EDGES
