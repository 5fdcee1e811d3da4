"""The derender fuzzer's engine outputs: ids, finishes, logprobs, chunkings as an engine sends.

Why: vLLM's derender reads what an engine wrote (``GenerateResponse``: token ids, a finish and
its ``stop_reason``, logprob candidates, the prompt's logprobs) in the shapes an engine writes
them; these draw those per model (qwen3's reasoning and hermes calls, gpt-oss's harmony
channels and calls, mistral's ``[TOOL_CALLS]`` lists), cut and finish them as an engine would
(EOS, a stop id, a stop string it cut at, length, abort, none), and tag each case with the
corpus case kinds it contains (``fuzz_derender_classify`` reads the tags).
"""

from __future__ import annotations

import json
import random
from typing import Any

from conformance import corpus
from conformance.corpus import ids
from conformance.fuzz_derender_case import (MISTRAL, MODELS, Q_SPECIAL, TOOL_ARGS, VOCAB, Case,
                                            decode, isjson, text)

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


def qwen3_text(rnd: random.Random, req: dict[str, Any], tags: set[str]) -> list[int]:
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
    return sprinkle(rnd, toks, "qwen3", tags)


def sprinkle(rnd: random.Random, toks: list[int], model: str, tags: set[str]) -> list[int]:
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


def gptoss_text(rnd: random.Random, req: dict[str, Any],
                tags: set[str]) -> tuple[list[int], int | None]:
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
            args = json.dumps(json.loads(args), indent=2) if isjson(args) else args
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
    return sprinkle(rnd, toks, "gpt-oss", tags), end



def mistral_text(rnd: random.Random, req: dict[str, Any], tags: set[str]) -> list[int]:
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
    return sprinkle(rnd, ids(s, "mistral-v3"), "mistral-v3", tags)


def first_stop(model: str, toks: list[int], stops: list[str], skip: bool) -> tuple[int, str] | None:
    """Where the engine would have stopped on a stop string: the first prefix whose text holds
    one (vLLM's engine checks after every token), and that string: the one completing first
    in the text, ties by the list's order (vLLM 0.33's ``check_stop_strings``)."""
    # (mistral: decoded after a letter, as the output is after the prompt's [/INST]: its first
    # token's leading space kept, which a sequence's start drops)
    lead = ids("a", "mistral-v3") if MODELS[model][0] in MISTRAL else []
    for k in range(1, len(toks) + 1):
        t = decode(model, lead + toks[:k], skip)[1 if lead else 0:]
        found = [(t.find(x) + len(x), n, x) for n, x in enumerate(stops) if x in t]
        if found:
            return k, min(found)[2]
    return None


def finish_output(rnd: random.Random, toks: list[int], model: str, req: dict[str, Any],
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
    hit = first_stop(model, toks, stops, skip) if stops else None
    if kind == "stop_str" and hit is not None:
        toks, stop_reason = toks[:hit[0]], hit[1]
        tags.add("stop_string_engine_cut")
        if toks[-1] in (req.get("stop_token_ids") or ()):
            tags.add("stop_string_on_stop_id")  # the id is output, the string reported
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
        t = decode(model, toks, False)
        if t.count("<tool_call>") > t.count("</tool_call>"):
            tags.add("tool_auto_malformed")  # cut inside a call: vLLM's batch makes all content
    if cut and model in MISTRAL:
        t = decode(model, toks, False).strip()
        body = (t.split("[TOOL_CALLS]", 1)[1].strip() if "[TOOL_CALLS]" in t
                else t if t.startswith("[") else None)  # after the marker, or a bare list
        if body is not None and not isjson(body):
            tags.add("tool_auto_malformed")  # cut inside the list: vLLM's batch makes it content
    if (req.get("include_stop_str_in_output") or req.get("ignore_eos")) and finish == "stop":
        tags.update({"special_plain_skip", "special_x"})  # the stop token stays: skipped?
    if not toks and rnd.random() < 0.7:
        toks = ids("x", served)  # qwen3 chat: reasoning with thinking on (vLLM's rule)
    if stops and not isinstance(stop_reason, str) and first_stop(model, toks, stops, skip):
        tags.add("stop_string_in_output")  # an output the engine would have cut earlier
    if (model == "gpt-oss" and finish == "stop" and stops and not isinstance(stop_reason, str)
            and first_stop(model, toks, stops, False)):
        tags.add("stop_in_marker")  # vLLM's harmony batch finds it in the markers' text
    if any(decode(model, t, skip).endswith("\ufffd") for t in (toks, toks[:-1]) if t):
        tags.add("partial_char_at_end")  # tito flushes it as U+FFFD, vLLM drops it
    if not toks:
        tags.update({"empty_output", "abort_empty"})
    if eos is not None and toks == [eos]:
        tags.add("only_eos")
    if (model == "gpt-oss" and finish == "stop" and not isinstance(stop_reason, str) and toks
            and toks[-1] in (req.get("stop_token_ids") or ())):
        # an output that ends in a listed stop id by chance (a plain one, no harmony end):
        # tito drops it as the stop token, vLLM's harmony path keeps it (gpt-oss:808:8)
        tags.add("stop_id_harmony")
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


def chunking(rnd: random.Random, n: int, tags: set[str]) -> list[int]:
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

