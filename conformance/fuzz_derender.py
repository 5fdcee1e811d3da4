"""Differential fuzzer for DERENDER: seeded random engine outputs, vLLM 0.33.0 against tito.

Why: the recorded corpus (``corpus.py``) holds the cases someone thought of; an independent
corpus run on the real vLLM will hold others. This generates, from a seed, random but valid
chat and completions requests (tools or not, every ``tool_choice``, reasoning on/off,
``include_reasoning``, logprobs and ``top_logprobs`` 0-20, ``n`` 1-3, stop strings that straddle
tokens or overlap, ``stop_token_ids``, ``include_stop_str_in_output``, ``skip_special_tokens``,
``return_token_ids``, ``stream_options``, ``echo``, ``spaces_between_special_tokens``,
``min_tokens``, ``logprob_token_ids``), renders each on vLLM for its prompt ids, and random
engine outputs in vLLM's ``GenerateResponse`` / streamed chunk wire shapes (plain text, unicode
split across byte tokens, special and padded ids, reasoning, good / partial / malformed /
several tool calls, every finish reason with and without ``stop_reason``, engine logprob
candidates, the prompt's logprobs in a batch answer,
metrics, ``kv_transfer_params``; more from ``fuzz_derender_more``: bodies without prompt ids /
counts / model, completions of several prompts, engine logprob and stop-reason oddities).
Each case is derendered in batch and streamed in a
random chunking (one stream per choice index): vLLM driven as its protocol requires
(``record.Recorder``), tito in-process twice, as its README says and as a client keeping only
vLLM's ``DerenderStreamState`` fields (``replay.tito_stream``). Answers are compared with
``replay``'s normalisation, diff and ``DEVIATIONS``; the differences are printed grouped by kind.

    /work/vllm-venv/bin/python conformance/fuzz_derender.py --seed 1 -n 200 \\
        [--models qwen3,gpt-oss,mistral-v3,gpt2,qwen3-cmpl,mistral-v3-hf,mistral-v3-hf-cmpl]
        [--url qwen3=http://127.0.0.1:18140]
    ... --show qwen3:1:17                  # one case: request, outputs, every difference
    ... --record derender_fuzz qwen3:1:17  # store vLLM's answers to cases as goldens

Streams carry no stop strings to vLLM (it refuses them: a DEVIATION); tito's stream of a stop
case is instead checked against vLLM's BATCH answer (tito's streamed stops must equal vLLM's
batch cut). Known deviations are matched through tags: each case names the corpus case kinds
it contains (``stop_string``, ``tool_auto_malformed``, ``forced_blank``, ...), and a difference is
intended when a ``DEVIATIONS`` entry of the equivalent corpus group matches one of its tags.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import re
import shutil
import sys
import tempfile
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
#: tito's sources (TITO_FUZZ_SRC: another tree's, e.g. main's, to see what a fix changed)
sys.path.insert(0, os.environ.get("TITO_FUZZ_SRC", str(HERE.parent / "src")))

from conformance import corpus, record, replay  # noqa: E402
from conformance.corpus import ids  # noqa: E402
from conformance.fuzz_derender_more import more2  # noqa: E402

CHAT_D, CMPL_D = "/v1/chat/completions/derender", "/v1/completions/derender"
#: fuzz model -> (served model, completions?)
MODELS = {"qwen3": ("qwen3", False), "gpt-oss": ("gpt-oss", False),
          "mistral-v3": ("mistral-v3", False), "gpt2": ("gpt2", True),
          "mistral-v3-hf": ("mistral-v3-hf", False),
          "qwen3-cmpl": ("qwen3", True), "mistral-v3-hf-cmpl": ("mistral-v3-hf", True)}
#: the corpus groups whose DEVIATIONS a fuzz case of a model inherits (batch, stream)
EQUIV = {"qwen3": ("derender_chat", "stream_chat"),
         "gpt-oss": ("derender_chat_gptoss", "stream_chat_gptoss"),
         "mistral-v3": ("derender_chat_mistral", "stream_chat_mistral"),
         "mistral-v3-hf": ("derender_chat_mistral", "stream_chat_mistral"),
         "gpt2": ("derender_completion", "stream_completion"),
         "qwen3-cmpl": ("derender_completion", "stream_completion"),
         "mistral-v3-hf-cmpl": ("derender_completion", "stream_completion")}
PORTS = {"qwen3": 18140, "gpt-oss": 18141, "mistral-v3": 18142, "gpt2": 18143,
         "mistral-v3-hf": 18144}
#: mistral-v3 served through mistral-common and from its tokenizer.json (``--tokenizer-mode hf``):
#: the same ids, outputs and deviations
MISTRAL = ("mistral-v3", "mistral-v3-hf")

# -- vocabulary pieces --------------------------------------------------------------------------

WORDS = ["It", " is", " sunny", " today", ".", " The", " weather", " in", " Paris", ",", " ok",
         "\n", " ", "  ", "Grüße", " 🌍", "🌧️", " 中文", "日本語", " ✓", " —", " é", "ß", " 👍🏽",
         " a", "b", "c", " abc", "ab", "bc", "\n\n", " {", "}", '"', " 123", "x"]
Q_SPECIAL = {"im_end": corpus.IM_END, "im_start": corpus.IM_START, "eot": corpus.EOT,
             "think": corpus.THINK, "end_think": corpus.END_THINK,
             "tool_call": corpus.TOOL_CALL, "end_tool_call": corpus.END_TOOL_CALL}
VOCAB = {"qwen3": (151669, 151936), "gpt2": (50257, 50257), "gpt-oss": (200019, 201088),
         "mistral-v3": (32768, 32768), "mistral-v3-hf": (32768, 32768)}
TOOL_ARGS = {"get_weather": [{"city": "Paris"}, {"city": "Köln", "unit": "c"}, {},
                             {"city": "東京 🌸"}],
             "get_time": [{"tz": "Europe/Paris"}, {}, {"tz": "UTC", "x": [1, 2.5, None, True]}]}


def text(rnd: random.Random, lo: int = 1, hi: int = 8) -> str:
    return "".join(rnd.choice(WORDS) for _ in range(rnd.randint(lo, hi)))


@dataclass
class Case:
    """One fuzz case: the request, the engine choices, extras, and its tags."""

    cid: str
    model: str
    request: dict[str, Any]
    choices: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    tags: set[str] = field(default_factory=set)
    sizes: dict[int, list[int]] = field(default_factory=dict)
    #: the engine's response (its first stream event) carries the prompt's ids too
    engine_prompt: bool = False
    usage: dict[str, Any] | None = None  #: the engine's usage (streams)
    usage_event: bool = False  #: ... in an event without choices after the last one
    #: the engine's ``prompt_logprobs`` (batch only: vLLM's stream chunks carry none): this many
    #: candidates beside each prompt token's own entry, None for none at all
    prompt_lp: int | None = None
    #: derender body keys left out (``fuzz_derender_more.OMITTABLE``)
    omit: set[str] = field(default_factory=set)
    #: completions of several prompts: each further prompt's engine response (its
    #: ``choices``, ``kv_transfer_params`` / ``metrics``; ``engine_prompt``: it carries its
    #: prompt's ids; ``body_prompt``: the body's ``prompt_token_ids`` has them, else null;
    #: ``ids``: the prompt's ids, from render)
    more: list[dict[str, Any]] = field(default_factory=list)


# -- requests ------------------------------------------------------------------------------------


def gen_chat_request(rnd: random.Random, model: str, tags: set[str]) -> dict[str, Any]:
    req: dict[str, Any] = {"model": model, "messages": [
        {"role": "user", "content": rnd.choice(["What is the weather in Paris?", "Hi 🌍",
                                                "Zeit in Tokyo?"])}]}
    if rnd.random() < 0.5:
        req["tools"] = corpus.TOOLS
        choice = rnd.choice(["auto", "auto", "required", "named", "none", None])
        if choice == "named":
            req["tool_choice"] = {"type": "function", "function": {
                "name": rnd.choice(["get_weather", "get_time"])}}
        elif choice is not None:
            req["tool_choice"] = choice
        if rnd.random() < 0.2:
            req["parallel_tool_calls"] = False
        tags.add(f"tool_{choice or 'auto'}")
    if model == "qwen3" and rnd.random() < 0.3:
        req["chat_template_kwargs"] = {"enable_thinking": False}
        tags.add("thinking_off")
    if model == "gpt-oss" and rnd.random() < 0.2:
        req["reasoning_effort"] = rnd.choice(["low", "medium", "high"])
    if rnd.random() < 0.2:
        req["include_reasoning"] = False
        tags.add("include_reasoning_false")
    _common_sampling(rnd, req, tags, chat=True)
    return req


def _stop_strings(rnd: random.Random) -> list[str]:
    pool = ["sunny", "un", "s", " is", "is su", "é", "🌍", "中", "\n", "ab", "abc", "bc",
            "</tool_call>", "Paris", '"city"', "Grü", "x", "ok.", "<think>", "aaa"]
    return rnd.sample(pool, rnd.randint(1, 4))


def _common_sampling(rnd: random.Random, req: dict[str, Any], tags: set[str], *,
                     chat: bool) -> None:
    if rnd.random() < 0.4:
        if chat:
            req["logprobs"] = True
            if rnd.random() < 0.8:
                req["top_logprobs"] = rnd.choice([0, 1, 2, 5, 20, rnd.randint(0, 20)])
        else:
            req["logprobs"] = rnd.choice([0, 1, 2, 5, rnd.randint(0, 5)])
        tags.add("logprobs")
    if rnd.random() < 0.3:
        req["n"] = rnd.randint(1, 3)
        tags.add("n2")
    if rnd.random() < 0.3:
        req["stop"] = _stop_strings(rnd)
        tags.add("stop_string")
    if rnd.random() < 0.2:
        req["stop_token_ids"] = rnd.sample([13, 11, 220, 1447, 198], rnd.randint(1, 2))
    if rnd.random() < 0.2:
        req["include_stop_str_in_output"] = True
    if rnd.random() < 0.25:
        req["skip_special_tokens"] = False
        tags.add("skip_special_false")
    if rnd.random() < 0.25:
        req["return_token_ids"] = True
    if rnd.random() < 0.2:
        req["ignore_eos"] = True
    if rnd.random() < 0.25:
        req["stream"] = True  # vLLM takes stream_options only with it
        req["stream_options"] = {"include_usage": rnd.random() < 0.7,
                                 "continuous_usage_stats": rnd.random() < 0.5}
    req["max_tokens"] = rnd.choice([16, 64, 200])


def gen_completion_request(rnd: random.Random, model: str, tags: set[str]) -> dict[str, Any]:
    prompt: Any = rnd.choice(["Once upon a time", "Grüße 🌍", "x", " The weather"])
    req: dict[str, Any] = {"model": model, "prompt": prompt}
    if rnd.random() < 0.2:
        req["echo"] = True
        tags.add("echo")
    _common_sampling(rnd, req, tags, chat=False)
    return req


# -- engine outputs ------------------------------------------------------------------------------


def _qwen3_call(rnd: random.Random, tags: set[str]) -> str:
    name = rnd.choice(["get_weather", "get_time", "get_weather", "nope"])
    args = rnd.choice(TOOL_ARGS.get(name, [{}]))
    kind = rnd.choices(["good", "compact", "no_args", "bad_json", "not_json", "params"],
                       [6, 1, 1, 1, 1, 1])[0]
    body = json.dumps({"name": name, "arguments": args}, ensure_ascii=rnd.random() < 0.3)
    if body != json.dumps({"name": name, "arguments": args}, ensure_ascii=False):
        tags.add("tool_call_escaped_args")  # vLLM's batch re-serializes them (not its stream)
    if kind == "compact":
        return f"<tool_call>{body}</tool_call>"
    if kind == "no_args":
        tags.add("tool_auto_no_args")
        body = json.dumps({"name": name})
    elif kind == "bad_json":
        tags.add("tool_auto_malformed")
        body = body[:rnd.randint(1, len(body) - 1)]
    elif kind == "not_json":
        tags.add("tool_auto_malformed")
        body = "not json at all"
    elif kind == "params":
        tags.add("tool_auto_no_args")  # vLLM reads no arguments there (tito: the parameters)
        body = json.dumps({"name": name, "parameters": args})
    return f"<tool_call>\n{body}\n</tool_call>"


def _qwen3_text(rnd: random.Random, req: dict[str, Any], tags: set[str]) -> list[int]:
    parts: list[Any] = []
    thinking = not req.get("chat_template_kwargs", {}).get("enable_thinking", True) is False
    r = rnd.random()
    if r < 0.6:
        parts.append("<think>\n" + text(rnd) + "\n</think>\n\n")
    elif r < 0.7:  # no <think>: reasoning until </think> (vLLM 0.33's qwen3 rule, tito's too)
        parts.append(text(rnd) + "</think>" + rnd.choice(["", "\n\n"]))
    elif r < 0.75:
        parts.append("<think>" + text(rnd))  # never closed
    # else no markers: all reasoning until a <tool_call> (thinking on), or all content (off)
    if rnd.random() < 0.6:
        parts.append(text(rnd, 0, 6))
    if req.get("tools") and rnd.random() < 0.7:
        for k in range(rnd.choice([1, 1, 1, 2, 3])):
            parts.append(rnd.choice(["", "\n", "\n\n"]) if k else rnd.choice(["", "\n"]))
            parts.append(_qwen3_call(rnd, tags))
        if rnd.random() < 0.2:
            parts.append(text(rnd, 1, 3))
            tags.add("text_after_call")
    elif rnd.random() < 0.1:
        parts.append(_qwen3_call(rnd, tags))  # markup without tools
    if not parts or not any(parts):
        parts.append(text(rnd))
    full = "".join(parts)
    if "</think>" in full:  # the content: after the block, or from the call that ends it
        rest = full.rsplit("</think>", 1)[-1]
    elif thinking:
        rest = full[full.index("<tool_call>"):] if "<tool_call>" in full else ""
    else:
        rest = full
    if req.get("tool_choice") not in (None, "auto", "none") and not rest.strip():
        tags.add("forced_blank")  # required / named, no call, whitespace content
    toks = ids(full)
    return _sprinkle(rnd, toks, "qwen3", tags)


def _sprinkle(rnd: random.Random, toks: list[int], model: str, tags: set[str]) -> list[int]:
    """Special and padded ids at random places (rarely)."""
    size, vocab = VOCAB[model]
    if rnd.random() < 0.15:
        pos = rnd.randint(0, len(toks))
        if model == "qwen3":
            sp = rnd.choice(list(Q_SPECIAL.values()))
        elif model == "gpt-oss":
            sp = rnd.choice([200003, 200008, 200013, 200018, 199999])
        elif model in MISTRAL:
            sp = rnd.choice([1, 0, 3, 4, 9])
        else:
            sp = 50256
        toks = toks[:pos] + [sp] + toks[pos:]
        tags.update({"special_mid_output_keep", "special_plain_skip", "special_x"})
    if vocab > size and rnd.random() < 0.1:
        pos = rnd.randint(0, len(toks))
        toks = toks[:pos] + [rnd.randrange(size, vocab)] + toks[pos:]
        tags.add("padded_vocab_id")
    return toks


def _gptoss_text(rnd: random.Random, req: dict[str, Any], tags: set[str]) -> tuple[list[int], int | None]:
    segs: list[str] = []
    end: int | None = corpus.HARMONY_RETURN
    first = True

    def start() -> str:
        nonlocal first
        s = "" if first else "<|start|>assistant"
        first = False
        return s

    for k in range(rnd.choice([1, 1, 2])):
        if k:
            tags.add("two_analysis")
        if rnd.random() < 0.6:
            segs.append(start() + "<|channel|>analysis<|message|>" + text(rnd) + "<|end|>")
    if req.get("tools") and rnd.random() < 0.6:
        name = rnd.choice(["get_weather", "get_time", "nope"])
        args = json.dumps(rnd.choice(TOOL_ARGS.get(name, [{}])))
        if rnd.random() < 0.15:
            args = args[:rnd.randint(0, len(args))]
            tags.add("tool_call_bad_json")
        if rnd.random() < 0.15:
            tags.add("tool_call_pretty_args")
            args = json.dumps(json.loads(args), indent=2) if _isjson(args) else args
        constrain = rnd.choice([" <|constrain|>json", "", " json"])
        if rnd.random() < 0.2:
            segs.append(start().replace("assistant", f"assistant to=functions.{name}")
                        + f"<|channel|>commentary{constrain}<|message|>{args}")
        else:
            segs.append(start() + f"<|channel|>commentary to=functions.{name}{constrain}"
                        f"<|message|>{args}")
        end = 200012  # <|call|>
    else:
        if rnd.random() < 0.1:
            segs.append(start() + "<|channel|>commentary<|message|>" + text(rnd) + "<|end|>")
        if rnd.random() < 0.1:
            segs.append(text(rnd))  # no harmony at all
            end = None
        else:
            segs.append(start() + "<|channel|>final<|message|>" + text(rnd))
    if len(segs) > 1:
        tags.add("two_messages")  # joined with "\n" in the stream too
    toks = ids("".join(segs), "gpt-oss")
    return _sprinkle(rnd, toks, "gpt-oss", tags), end


def _isjson(s: str) -> bool:
    try:
        json.loads(s)
        return True
    except ValueError:
        return False


def _mistral_text(rnd: random.Random, req: dict[str, Any], tags: set[str]) -> list[int]:
    s = ""
    forced = req.get("tools") and req.get("tool_choice") not in (None, "auto", "none")
    if rnd.random() < 0.5:
        s += text(rnd)
    if rnd.random() < (0.7 if req.get("tools") else 0.1):
        calls = []
        for _ in range(rnd.choice([1, 1, 2])):
            name = rnd.choice(["get_weather", "get_time"])
            calls.append({"name": name, "arguments": rnd.choice(TOOL_ARGS[name])})
        body = json.dumps(calls, ensure_ascii=rnd.random() < 0.5)
        if body != json.dumps(calls, ensure_ascii=False):
            tags.add("tool_call_escaped_args")  # vLLM's batch re-serializes them (not its stream)
        if rnd.random() < 0.15:
            body = body[:rnd.randint(1, len(body))]
            tags.add("tool_auto_malformed")
        if forced and rnd.random() < 0.4:
            s = body  # what render's schema forces: the bare list
        else:
            if s and not s.strip():
                tags.add("tool_auto_blank_before")  # whitespace alone before the call
            s += "[TOOL_CALLS] " + body
        if not req.get("tools"):
            tags.add("no_tools_call_text")
    if not s:
        s = text(rnd)
    if forced and not s.startswith("["):
        tags.add("forced_text")  # required / named output starting with text
    return _sprinkle(rnd, ids(s, "mistral-v3"), "mistral-v3", tags)


def _decode(model: str, toks: list[int], skip: bool) -> str:
    served = MODELS[model][0]
    tok = corpus._tok("mistral-v3-hf" if served in MISTRAL else served)
    return str(tok.decode(toks, skip_special_tokens=skip))


def _first_stop(model: str, toks: list[int], stops: list[str], skip: bool) -> tuple[int, str] | None:
    """Where the engine would have stopped on a stop string: the first prefix whose text holds
    one (vLLM's engine checks after every token), and that string: the one completing first
    in the text, ties by the list's order (vLLM 0.33's ``check_stop_strings``)."""
    # (mistral: decoded after a letter, as the output is after the prompt's [/INST]: its first
    # token's leading space kept, which a sequence's start drops)
    lead = ids("a", "mistral-v3") if MODELS[model][0] in MISTRAL else []
    for k in range(1, len(toks) + 1):
        t = _decode(model, lead + toks[:k], skip)[1 if lead else 0:]
        found = [(t.find(x) + len(x), n, x) for n, x in enumerate(stops) if x in t]
        if found:
            return k, min(found)[2]
    return None


def _finish(rnd: random.Random, toks: list[int], model: str, req: dict[str, Any],
            end: int | None, tags: set[str]) -> dict[str, Any]:
    """Cut and finish one output as an engine would: stop (EOS / stop token id / a stop string
    the engine cut at), length, abort."""
    served, completion = MODELS[model]
    eos = corpus.EOS_IDS[served] if end is None and model != "gpt-oss" else end
    kind = rnd.choices(["eos", "length", "abort", "stop_id", "stop_str", "none"],
                       [6, 3, 1, 1, 2, 0.3])[0]
    stop_reason: Any = None
    finish: str | None = "stop"
    stops = [x for x in req.get("stop") or [] if x]
    # the engine's detokenizer: vLLM's render turns skip_special_tokens off for qwen3's parser
    skip = req.get("skip_special_tokens", True) and not (served == "qwen3" and not completion)
    hit = _first_stop(model, toks, stops, skip) if stops else None
    if kind == "stop_str" and hit is not None:
        toks, stop_reason = toks[:hit[0]], hit[1]
        tags.add("stop_string_engine_cut")
        if toks[-1] in (req.get("stop_token_ids") or ()):
            tags.add("stop_string_on_stop_id")  # an engine checks ids first: inconsistent
    elif kind == "none":  # a batch choice without finish_reason (the case is not streamed)
        finish = None
        tags.add("finish_null")
        if eos is not None and rnd.random() < 0.5:
            toks = toks + [eos]  # not dropped: the engine did not say it stopped there
            tags.update({"special_plain_skip", "special_x"})  # a special token: skipped?
    elif kind in ("length", "abort"):
        finish = kind
        toks = toks[:rnd.randint(0, len(toks))] if rnd.random() < 0.6 else toks
    elif kind == "stop_id":  # a request's stop id, or (rarely) one the engine had from elsewhere
        sid = rnd.choice(req.get("stop_token_ids") or [ids("\n", served)[0]])
        stop_reason = sid
        toks = toks + [sid]
        if model == "gpt-oss":
            tags.add("stop_id_harmony")
    elif eos is not None:
        toks = toks + [eos]
    cut = finish != "stop" or isinstance(stop_reason, str)  # length, abort, a stop string
    if cut and served == "qwen3" and not completion:
        t = _decode(model, toks, False)
        if t.count("<tool_call>") > t.count("</tool_call>"):
            tags.add("tool_auto_malformed")  # cut inside a call: vLLM's batch makes all content
    if cut and model in MISTRAL:
        t = _decode(model, toks, False).strip()
        body = (t.split("[TOOL_CALLS]", 1)[1].strip() if "[TOOL_CALLS]" in t
                else t if t.startswith("[") else None)  # after the marker, or a bare list
        if body is not None and not _isjson(body):
            tags.add("tool_auto_malformed")  # cut inside the list: vLLM's batch makes it content
    if (req.get("include_stop_str_in_output") or req.get("ignore_eos")) and finish == "stop":
        tags.update({"special_plain_skip", "special_x"})  # the stop token stays: skipped?
    if not toks and rnd.random() < 0.7:
        toks = ids("x", served)  # qwen3 chat: reasoning with thinking on (vLLM's rule)
    if stops and not isinstance(stop_reason, str) and _first_stop(model, toks, stops, skip):
        tags.add("stop_string_in_output")  # an output the engine would have cut earlier
    if (model == "gpt-oss" and finish == "stop" and stops and not isinstance(stop_reason, str)
            and _first_stop(model, toks, stops, False)):
        tags.add("stop_in_marker")  # vLLM's harmony batch finds it in the markers' text
    if any(_decode(model, t, skip).endswith("\ufffd") for t in (toks, toks[:-1]) if t):
        tags.add("partial_char_at_end")  # tito flushes it as U+FFFD, vLLM drops it
    if not toks:
        tags.update({"empty_output", "abort_empty"})
    if eos is not None and toks == [eos]:
        tags.add("only_eos")
    choice: dict[str, Any] = {"index": 0, "token_ids": toks, "finish_reason": finish}
    if stop_reason is not None or rnd.random() < 0.1:
        choice["stop_reason"] = stop_reason
    return choice


def gen_logprobs(rnd: random.Random, toks: list[int], k: int, model: str) -> dict[str, Any]:
    """Engine logprobs as vLLM's GenerateLogProbs: the sampled token first (its own rank),
    then the top-``k`` candidates in rank order (the sampled one not repeated)."""
    _, vocab = VOCAB[model]
    content = []
    for t in toks:
        rank = rnd.choice([1, 1, 1, 2, 3, 7])
        lp = round(-rnd.random() * 3, 4) if rnd.random() < 0.9 else rnd.choice([0.0, -30.5])
        top = [{"token_id": t, "logprob": lp, "rank": rank}]
        r = 1
        while len(top) < k + (0 if rank <= k else 1):
            if r == rank:
                r += 1
                continue
            alt = rnd.choice([rnd.randrange(200, 30000), rnd.randrange(vocab), t + 1])
            top.append({"token_id": alt, "logprob": round(lp - r - rnd.random(), 4), "rank": r})
            r += 1
        content.append({"token_id": t, "logprob": lp, "rank": rank, "top_logprobs": top})
    return {"content": content}


def gen_case(seed: int, i: int, model: str) -> Case:
    rnd = random.Random(f"{model}:{seed}:{i}")
    tags: set[str] = set()
    served, completion = MODELS[model]
    if completion:
        req = gen_completion_request(rnd, served, tags)
    else:
        req = gen_chat_request(rnd, served, tags)
    case = Case(f"{model}:{seed}:{i}", model, req, tags=tags)
    n = req.get("n", 1)
    for idx in range(n):
        end: int | None = None
        if model == "gpt-oss":
            toks, end = _gptoss_text(rnd, req, tags)
        elif model == "qwen3":
            toks = _qwen3_text(rnd, req, tags)
        elif model in MISTRAL:
            toks = _mistral_text(rnd, req, tags)
        else:
            toks = _sprinkle(rnd, ids(text(rnd, 1, 10), served), served, tags)
        ch = _finish(rnd, toks, model, req, end, tags)
        if (model in MISTRAL and req.get("tools")
                and req.get("tool_choice") not in (None, "auto", "none")):
            # what the output starts with once cut (a length cut can leave text alone)
            final = _decode(model, ch["token_ids"], True).lstrip()
            if final and not final.startswith("["):
                tags.add("forced_text")  # required / named output starting with text
        ch["index"] = idx
        if req.get("logprobs") is not None and req.get("logprobs") is not False:
            k = req.get("top_logprobs", 0) if not completion else req["logprobs"]
            k = max(0, k + rnd.choice([0, 0, 0, 1]))
            ch["logprobs"] = gen_logprobs(rnd, ch["token_ids"], k, served)
            if any(len(e["top_logprobs"]) > 20 for e in ch["logprobs"]["content"]):
                tags.add("top_logprobs_sampled_extra")
        case.choices.append(ch)
        case.sizes[idx] = _chunking(rnd, len(ch["token_ids"]), tags)
    if rnd.random() < 0.3:
        case.extra["metrics"] = {k: round(rnd.random() * 100, 2) for k in (
            "time_to_first_token_ms", "generation_time_ms", "queue_time_ms", "mean_itl_ms",
            "tokens_per_second") if rnd.random() < 0.7}
    if rnd.random() < 0.15:
        case.extra["kv_transfer_params"] = {"remote_block_ids": [1, 2], "do_remote_decode": False}
    case.engine_prompt = rnd.random() < 0.3  # the engine's own prompt_token_ids too
    _more(case, random.Random(f"more:{model}:{seed}:{i}"))
    if rnd.random() < 0.3:  # the engine's usage: on the last event, or an event of its own
        out = sum(len(ch["token_ids"]) for ch in case.choices)
        case.usage = {"prompt_tokens": rnd.randint(1, 40), "completion_tokens": out,
                      "total_tokens": out + 40}
        case.usage_event = rnd.random() < 0.5
    more2(case, random.Random(f"more2:{model}:{seed}:{i}"))
    return case


def _more(case: Case, rnd: random.Random) -> None:
    """Draws added after the others, from a generator of their own (so a seed's other draws,
    and the cases found with them, stay as they were): ``spaces_between_special_tokens`` off,
    the engine's ``prompt_logprobs``, ``min_tokens`` beside stop strings (below any stop string
    the engine cut at: an engine honours it), ``logprob_token_ids`` beside logprobs (no cut of
    the candidates)."""
    req = case.request
    if rnd.random() < 0.2:
        req["spaces_between_special_tokens"] = False
        case.tags.add("spaces_between_false")
    if rnd.random() < 0.25:
        case.prompt_lp = rnd.choice([0, 1, 2])
        case.tags.add("prompt_logprobs")
    if req.get("stop") and rnd.random() < 0.4:
        cuts = [len(ch["token_ids"]) for ch in case.choices if isinstance(ch.get("stop_reason"), str)]
        top = min(6, min(cuts) - 1) if cuts else 6
        if top >= 1:
            req["min_tokens"] = rnd.randint(1, top)
            case.tags.add("min_tokens")
    if req.get("logprobs") is not None and req["logprobs"] is not False and rnd.random() < 0.3:
        req["logprob_token_ids"] = rnd.sample([11, 13, 198, 220, 1000], rnd.randint(1, 3))
        case.tags.add("logprob_token_ids")


def engine_prompt_logprobs(case: Case, prompt: list[int]) -> list[Any]:
    """vLLM's ``GenerateResponse.prompt_logprobs`` for ``prompt``: None for the first token,
    then per token its own entry (its rank) and ``case.prompt_lp`` other candidates, keyed by
    token id (JSON object keys: strings)."""
    rnd = random.Random(f"plp:{case.cid}")
    _, vocab = VOCAB[MODELS[case.model][0]]
    out: list[Any] = [None]
    for t in prompt[1:]:
        lp = round(-rnd.random() * 8, 4)
        rank = rnd.choice([1, 1, 2, 5])
        entry = {str(t): {"logprob": lp, "rank": rank, "decoded_token": None}}
        r = 1
        while len(entry) < 1 + (case.prompt_lp or 0):
            alt = rnd.randrange(200, min(vocab, 30000))
            if str(alt) not in entry and r != rank:
                entry[str(alt)] = {"logprob": round(lp - r, 4), "rank": r, "decoded_token": None}
            r += 1
        out.append(entry)
    return out


def _chunking(rnd: random.Random, n: int, tags: set[str]) -> list[int]:
    mode = rnd.choice(["one", "random", "random", "whole"])
    if mode == "one":
        return [1] * n
    if mode == "whole":
        return [n]
    sizes, left = [], n
    while left > 0:
        k = min(left, rnd.randint(1, 7))
        sizes.append(k)
        left -= k
    if rnd.random() < 0.2:  # an empty chunk (a finish-only event) at the end
        sizes.append(0)
        tags.add("empty_final_chunk")
    return sizes


# -- running -------------------------------------------------------------------------------------


@dataclass
class Found:
    cid: str
    where: str  #: batch / stream.readme / stream.vllm_client / stream.clients / stream.stop
    path: str
    vllm: Any
    tito: Any
    intended: replay.Deviation | None


def batch_body(case: Case, prompt: list[int]) -> tuple[str, dict[str, Any]]:
    served, completion = MODELS[case.model]
    extra = dict(case.extra, prompt_token_ids=prompt) if case.engine_prompt else case.extra
    if case.prompt_lp is not None:
        extra = dict(extra, prompt_logprobs=engine_prompt_logprobs(case, prompt))
    if completion:
        responses = [{"request_id": f"cmpl-{case.cid}", "choices": case.choices, **extra}]
        body_ids: list[Any] = [prompt]
        for k, more in enumerate(case.more):
            r = {"request_id": f"cmpl-{case.cid}-{k + 1}", "choices": more["choices"],
                 **{x: more[x] for x in ("kv_transfer_params", "metrics") if x in more}}
            if more["engine_prompt"]:
                r["prompt_token_ids"] = more["ids"]
            responses.append(r)
            body_ids.append(more["ids"] if more["body_prompt"] else None)
        body = {"model": served, "completion_request": case.request,
                "prompt_token_ids": body_ids,
                "prompt_tokens": [len(x) for x in [prompt] + [m["ids"] for m in case.more]],
                "generate_responses": responses}
        return CMPL_D, {k: v for k, v in body.items() if k not in case.omit}
    body = {"model": served, "chat_request": case.request, "prompt_token_ids": prompt,
            "prompt_tokens": len(prompt),
            "generate_response": {"request_id": f"chatcmpl-{case.cid}",
                                  "choices": case.choices, **extra}}
    return CHAT_D, {k: v for k, v in body.items() if k not in case.omit}


def stream_cases(case: Case, prompt: list[int]) -> list[dict[str, Any]]:
    """One recorded-shape stream case per choice index (vLLM: one choice per chunk)."""
    served, completion = MODELS[case.model]
    settings = {k: v for k, v in case.request.items() if k != "stop"}
    out = []
    for ch in case.choices:
        events = record.split_choice(ch, case.sizes[ch["index"]],
                                     f"{'cmpl' if completion else 'chatcmpl'}-{case.cid}",
                                     case.extra)
        if case.engine_prompt:
            events[0]["prompt_token_ids"] = prompt
        if case.usage is not None and case.usage_event:
            events.append({"request_id": events[-1]["request_id"], "choices": [],
                           "usage": case.usage})
        elif case.usage is not None:
            events[-1]["usage"] = case.usage
        out.append({"server": served, "path": CMPL_D if completion else CHAT_D,
                    "settings_key": "completion_request" if completion else "chat_request",
                    "settings": settings, "prompt_token_ids": prompt, "chunks": events,
                    "index": ch["index"], "omit": sorted(
                        # (a chat stream without them: vLLM's 400 on a parser model, tito's
                        # seed from the engine's ids, an open difference: docs/conformance.md)
                        case.omit - ({"prompt_token_ids"} if not completion else set()))})
    return out


#: tags whose documented deviation (docs/conformance.md) the corpus records only for some
#: fields: a case carrying one may differ in these fields too (fnmatch on the path)
GENERAL = {
    "special_x": ("*", replay.Deviation(
        "*", "special_x", "*", "skip_special_tokens is honoured on the parser path: special "
        "tokens other than the parsers' markers are dropped wherever they fall (content, "
        "reasoning, a call's JSON), in batch and stream (docs: skip_special_tokens)")),
    "two_messages": ("[rt]e[ax]*", replay.Deviation(
        "stream_*", "two_messages", "*", "gpt-oss: two messages of one side (content or "
        "reasoning) are joined with a newline in the stream as in batch (docs: gpt-oss)")),
}


#: a stop id the request does not list, reported (as ``stop_reason``) only by a finish-only
#: chunk after the one that carried it: no stream can know to drop it (vLLM's neither)
UNLISTED_STOP = replay.Deviation(
    "stream_*", "empty_final_chunk", "*", "an unlisted stop id reported only by the "
    "finish-only chunk after it is text in a stream (vLLM's stream too); batch drops it")

#: the suffix of a model's own DEVIATIONS cases (``tool_none_mistral``: a golden's name too)
SUFFIX = {"mistral-v3": "_mistral", "mistral-v3-hf": "_mistral", "gpt-oss": "_gptoss"}


def _intended(case: Case, group: str, path: str, vllm: Any) -> replay.Deviation | None:
    for tag, (glob, dev) in GENERAL.items():
        if tag in case.tags and fnmatch.fnmatchcase(path, glob):
            return dev
    model = SUFFIX.get(case.model, "")  # model-specific entries: NAME_<model>
    for tag in [t + s for t in sorted(case.tags) for s in ("", ".one", model)] + ["*"]:
        d = replay.deviation_for(group, tag, path, vllm)
        if d is not None:
            return d
    return None


class Fuzzer:
    def __init__(self, urls: dict[str, str]) -> None:
        self.rec = record.Recorder(urls)
        self.tito = replay.Tito()
        self.rendered: dict[str, list[list[int]]] = {}  #: request -> each prompt's ids

    def prompt(self, case: Case) -> list[int] | None:
        """The request's prompt ids from vLLM's render (a further prompt's into its ``more``)."""
        served, completion = MODELS[case.model]
        path = "/v1/completions/render" if completion else "/v1/chat/completions/render"
        key = json.dumps(case.request, sort_keys=True)
        if key not in self.rendered:
            status, resp = record.post(self.rec.urls[served], path, case.request)
            if status != 200:
                return None
            self.rendered[key] = [r["token_ids"] for r in resp] if completion \
                else [resp["token_ids"]]
        first, *others = self.rendered[key]
        for more, ids_ in zip(case.more, others):
            more["ids"] = ids_
        return first

    def run(self, case: Case, *, stream: bool = True) -> tuple[list[Found], dict[str, Any]]:
        served, completion = MODELS[case.model]
        bgroup, sgroup = EQUIV[case.model]
        found: list[Found] = []
        prompt = self.prompt(case)
        if prompt is None:
            return [], {"skipped": "render refused"}
        path, body = batch_body(case, prompt)
        echo = replay.echoed(case.request) if completion else None  #: the prompt tito echoes
        golden = self.rec.http(served, path, body)
        status, resp = self.tito.post(path, body)
        if status != golden["status"]:
            found.append(Found(case.cid, "batch", "status", golden["status"], status,
                               _intended(case, bgroup, "status", golden["status"])))
        if status == 200 and golden["status"] == 200:
            for p, a, b in _echo_aware_diff(replay.normalize(golden["response"]),
                                            replay.normalize(resp), echo):
                found.append(Found(case.cid, "batch", p, a, b, _intended(case, bgroup, p, a)))
        recorded: dict[str, Any] = {"batch": golden, "streams": []}
        if not stream or "finish_null" in case.tags:  # a stream always finishes
            return found, recorded
        for sc in stream_cases(case, prompt):
            vl = self.rec.stream(served, sc["path"], sc["settings_key"], sc["settings"], prompt,
                                 sc["chunks"], omit=sc["omit"])
            vl["index"] = sc["index"]
            recorded["streams"].append(vl)
            want = replay.fold_stream(vl["calls"], completion)
            folds = {}
            for label, vc in (("readme", False), ("vllm_client", True)):
                folds[label] = replay.fold_stream(replay.tito_stream(self.tito, vl, vllm_client=vc),
                                                  completion)
                cut = _cut_echo(folds[label], echo)
                for p, a, b in (replay.diff(want, folds[label]) if echo is None
                                else replay.diff(want, cut) if cut is not None
                                else replay._echo_diffs(want, folds[label], "", echo)):
                    found.append(Found(case.cid, f"stream.{label}", p, a, b,
                                       _intended(case, sgroup, p, a)))
            for p, a, b in replay.diff(folds["readme"], folds["vllm_client"]):
                found.append(Found(case.cid, "stream.clients", p, a, b, None))
            if case.request.get("stop") and golden["status"] == 200:
                found += self._stop_stream(case, sc, golden["response"], completion)
        return found, recorded

    def _stop_stream(self, case: Case, sc: dict[str, Any], batch: dict[str, Any],
                     completion: bool) -> list[Found]:
        """tito's stream WITH the stop strings against vLLM's batch answer of that choice."""
        if "prompt_token_ids" in case.omit and not completion:
            return []  # (a chat stream keeps the prompt ids the batch left out: not comparable)
        sc = dict(sc, settings=case.request)
        got = replay.fold_stream(replay.tito_stream(self.tito, sc, vllm_client=False), completion)
        if completion and replay.echoed(case.request) is not None:  # (the echo cut off)
            got = replay.strip_echo({"text": batch_text(batch, sc["index"])}, got)[0]
        choice = next(c for c in batch["choices"] if c["index"] == sc["index"])
        if completion:
            want = {"text": choice["text"], "finish_reason": choice["finish_reason"],
                    "stop_reason": choice["stop_reason"]}
        else:
            msg = choice["message"]
            want = {"text": msg.get("content") or "", "reasoning": msg.get("reasoning") or "",
                    "finish_reason": choice["finish_reason"],
                    "stop_reason": choice["stop_reason"]}
        bgroup = EQUIV[case.model][0]
        batch_path = {"text": "choices.0.text" if completion else "choices.0.message.content",
                      "reasoning": "choices.0.message.reasoning"}
        engine = next(c for c in case.choices if c["index"] == sc["index"])
        held = None
        if "empty_final_chunk" in case.tags and isinstance(engine.get("stop_reason"), int):
            held = UNLISTED_STOP  # the stop id came in the chunk before the finish-only one
        return [Found(case.cid, "stream.stop_vs_batch", p, a, got.get(p),
                      held or _intended(case, bgroup, batch_path.get(p, f"choices.0.{p}"), a))
                for p, a in want.items() if replay.normalize(a) != got.get(p)]


def _echo_aware_diff(want: Any, got: Any, echo: str | None) -> Any:
    """``replay.diff`` of two batch answers; with ``echo`` (a completions request that asks for
    it) each choice's echoed prefix cut first, as ``replay`` compares the goldens
    (``echo_prefix`` intended, ``echo_prompt`` when the prefix is not the prompt)."""
    if echo is None or len(want.get("choices") or []) != len(got.get("choices") or []):
        yield from replay.diff(want, got)
        return
    for k, (w, g) in enumerate(zip(want["choices"], got["choices"])):
        yield from replay._echo_diffs(w, g, f"choices.{k}.", echo)
    yield from replay.diff({**want, "choices": None}, {**got, "choices": None})


def _cut_echo(fold: dict[str, Any], echo: str | None) -> dict[str, Any] | None:
    """A folded stream of tito's without the prompt it echoed (its text starts with it; a
    stream's logprobs are the output's alone, their offsets shifted back), or None: then
    ``replay``'s suffix rule decides. Why: that rule needs the rest to equal vLLM's text, which
    an intended difference in it (a held stop token shown by vLLM) breaks."""
    text = fold.get("text")
    if not echo or not isinstance(text, str) or not text.startswith(echo):
        return None
    out = {**fold, "text": text[len(echo):]}
    lp = fold.get("logprobs")
    if isinstance(lp, dict) and isinstance(lp.get("text_offset"), list):
        out["logprobs"] = {**lp, "text_offset": [o - len(echo) for o in lp["text_offset"]]}
    return out


def batch_text(batch: dict[str, Any], index: int) -> str:
    """The text of a completions batch answer's choice ``index``."""
    return next(c["text"] for c in batch["choices"] if c["index"] == index)


def kind(f: Found) -> str:
    return f.where + " " + re.sub(r"\.\d+", ".#", f.path)


def start_servers(models: list[str], urls: dict[str, str]) -> list[Any]:
    tmp = Path(tempfile.mkdtemp(prefix="tito-fuzz-derender-"))
    procs = []
    for name in dict.fromkeys(MODELS[m][0] for m in models):
        if name not in urls and name in PORTS:  # one already running on its port: reuse it
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{PORTS[name]}/health", timeout=2):
                    urls[name] = f"http://127.0.0.1:{PORTS[name]}"
            except OSError:
                pass
        if name not in urls:
            proc, urls[name] = record.start_server(name, str(Path(sys.executable).with_name(
                "vllm")), tmp, PORTS.get(name))
            procs.append((proc, urls[name]))
    for proc, url in procs:
        record.wait_ready(url, proc)
    return [p for p, _ in procs] + [tmp]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=50, help="cases per model")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--url", action="append", default=[], metavar="MODEL=URL")
    ap.add_argument("--no-stream", action="store_true")
    ap.add_argument("--show", nargs="*", default=[], metavar="MODEL:SEED:I[=NAME]",
                    help="run these cases only, printing each case and its differences "
                    "(NAME: the golden case name --record gives it)")
    ap.add_argument("--record", metavar="GROUP", help="write vLLM's answers to the --show "
                    "cases into conformance/goldens/GROUP.json (batch) and "
                    "stream_GROUP.json-style stream group (GROUP with derender->stream)")
    ap.add_argument("--all", action="store_true", help="also list intended differences")
    ap.add_argument("--examples", type=int, default=2)
    args = ap.parse_args()
    urls = dict(u.split("=", 1) for u in args.url)
    models = args.models.split(",")
    names: dict[str, str] = {}
    if args.show:
        cases = []
        for x in args.show:
            cid, _, name = x.partition("=")
            m, s, i = cid.rsplit(":", 2)
            cases.append(gen_case(int(s), int(i), m))
            names[cases[-1].cid] = name or cid.replace(":", ".")
    else:
        cases = [gen_case(args.seed, i, m) for m in models for i in range(args.n)]
    stuff = start_servers(sorted({c.model for c in cases}), urls)
    try:
        fz = Fuzzer(urls)
        by_kind: dict[str, list[Found]] = defaultdict(list)
        counts: dict[str, int] = defaultdict(int)
        recorded: dict[str, dict[str, Any]] = {}
        for case in cases:
            try:
                found, rec = fz.run(case, stream=not args.no_stream)
            except Exception as exc:  # noqa: BLE001 (a harness error is a finding too)
                found, rec = [Found(case.cid, "harness", type(exc).__name__, str(exc)[:200],
                                    None, None)], {}
            counts[case.model if "skipped" not in rec else case.model + " (render refused)"] += 1
            recorded[case.cid] = rec
            for f in found:
                if f.intended is None or args.all:
                    by_kind[f"{case.model} {kind(f)}"].append(f)
            if args.show:
                print(f"== {case.cid} tags={sorted(case.tags)}\n request={json.dumps(case.request)}")
                for ch in case.choices:
                    print(f" choice {ch['index']}: {json.dumps({k: v for k, v in ch.items() if k != 'logprobs'})}")
                print(f" extra={json.dumps(case.extra)} sizes={case.sizes}")
                for f in found:
                    tag = "intended" if f.intended else "DIFF"
                    print(f"  {tag} {f.where} {f.path}: vllm={json.dumps(f.vllm)[:300]} "
                          f"tito={json.dumps(f.tito)[:300]}")
        print(f"cases: {dict(counts)}")
        for k in sorted(by_kind, key=lambda k: -len(by_kind[k])):
            fs = by_kind[k]
            cids = sorted({f.cid for f in fs})
            print(f"[{len(cids)} cases] {k}  e.g. {' '.join(cids[:6])}")
            for f in fs[:args.examples]:
                print(f"    {f.cid}: vllm={json.dumps(f.vllm)[:200]} tito={json.dumps(f.tito)[:200]}"
                      + (f"  (intended: {f.intended.reason[:60]})" if f.intended else ""))
        if not by_kind:
            print("no unexplained differences")
        if args.record:
            write_goldens(args.record, cases, recorded, urls, names)
    finally:
        for p in stuff[:-1]:
            p.terminate()
            p.wait(timeout=30)
        shutil.rmtree(stuff[-1], ignore_errors=True)


def write_goldens(group: str, cases: list[Case], recorded: dict[str, Any],
                  urls: dict[str, str], names: dict[str, str]) -> None:
    """Merge the cases' vLLM answers into ``GROUP.json`` (batch) and the stream group
    (``derender_`` -> ``stream_``), in record.py's golden format."""
    with urllib.request.urlopen(next(iter(urls.values())) + "/version") as r:
        version = json.loads(r.read())
    sgroup = group.replace("derender_", "stream_", 1)
    for g, pick in ((group, "batch"), (sgroup, "streams")):
        path = replay.GOLDENS / f"{g}.json"
        data = json.loads(path.read_text()) if path.exists() else {
            "vllm": version, "server": "fuzz", "flags": record.SERVERS, "cases": {}}
        for c in cases:
            rec = recorded.get(c.cid) or {}
            name = names[c.cid]
            if pick == "batch" and rec.get("batch"):
                data["cases"][name] = rec["batch"]
            for s in rec.get("streams", []) if pick == "streams" else []:
                data["cases"][f"{name}.c{s['index']}"] = {k: v for k, v in s.items()
                                                          if k != "index"}
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"{path.relative_to(HERE.parent)}: {len(data['cases'])} cases")


if __name__ == "__main__":
    main()
