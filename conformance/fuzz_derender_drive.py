"""The derender fuzzer's driving: derender bodies and streams, vLLM and tito run on each case.

Why: a case is derendered in batch and, one stream per choice index, in its chunking on both
servers: vLLM driven as its protocol requires (``record.Recorder``: the state echoed, the
request and prompt ids on every call), tito in-process twice, as its README says and as a
client keeping only vLLM's ``DerenderStreamState`` fields (``replay.tito_stream``). Streams
carry no stop strings to vLLM (it refuses them); tito's stream of a stop case is compared
with vLLM's batch answer instead.
"""

from __future__ import annotations

import json
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from conformance import echo_cut, record, replay
from conformance.fuzz_derender_case import MODELS, Case
from conformance.fuzz_derender_classify import (EQUIV, UNLISTED_STOP, Found, cut_echo,
                                                echo_aware_diff, intended, lone_surrogate,
                                                special_offset)
from conformance.fuzz_derender_more4 import split_events
from conformance.fuzz_derender_outputs import engine_prompt_logprobs

CHAT_D, CMPL_D = "/v1/chat/completions/derender", "/v1/completions/derender"
PORTS = {"qwen3": 18140, "gpt-oss": 18141, "mistral-v3": 18142, "gpt2": 18143,
         "mistral-v3-hf": 18144}


def batch_body(case: Case, prompt: list[int]) -> tuple[str, dict[str, Any]]:
    served, completion = MODELS[case.model]
    extra = dict(case.extra, prompt_token_ids=prompt) if case.engine_prompt else case.extra
    if case.prompt_lp is not None:
        extra = dict(extra, prompt_logprobs=engine_prompt_logprobs(case, prompt))
    extra = {**case.batch_extra, **extra}  # (fields derender reads nothing from: first)
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
        split_events(case, ch, events)  # (entries more or fewer than a chunk's ids)
        if case.engine_prompt:
            events[0]["prompt_token_ids"] = prompt
        if case.null_empty:  # (not the last event: a finish-only chunk keeps its [])
            for ev in events[:-1]:
                if ev["choices"][0]["token_ids"] == []:
                    ev["choices"][0]["token_ids"] = None
        for at in reversed(case.keepalive):  # (between the first event and the last)
            if 0 < at < len(events):
                events.insert(at, {"request_id": events[0]["request_id"], "choices": []})
        if case.continuous_usage is not None:  # (as vLLM's generate stream writes it)
            done, p = 0, case.continuous_usage
            for ev in events:
                done += len(ev["choices"][0]["token_ids"] or []) if ev["choices"] else 0
                ev["usage"] = {"prompt_tokens": p, "completion_tokens": done,
                               "total_tokens": p + done}
            events.append({"request_id": events[-1]["request_id"], "choices": [], "usage": {
                "prompt_tokens": p, "completion_tokens": done, "total_tokens": p + done}})
        elif case.usage is not None and case.usage_event:
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


def stream_echo(request: dict[str, Any], echo: str | None) -> str | None:
    """The text tito's stream of a completions case echoes: a stream is the first prompt's
    choices, so a list of prompt strings (``echoed``'s :data:`echo_cut.ANY_PROMPT`) echoes its
    first (found by seed 557, ``--show qwen3-cmpl:557:7``: else the echo is cut only where the
    rest of the text equals vLLM's, and a kept special token's difference left the offsets
    shifted)."""
    prompts = request.get("prompt")
    if echo == echo_cut.ANY_PROMPT and isinstance(prompts, list) and prompts and all(
            isinstance(p, str) for p in prompts):
        return prompts[0]
    return echo


def batch_echoes(case: Case, echo: str | None) -> str | list[str] | None:
    """What tito's batch echoes in each choice of a completions case: choices come in the
    order of the engine's responses, one response per prompt, so a list of prompt strings
    echoes prompt ``k`` in response ``k``'s choices. Why (seed 435, ``--show
    mistral-v3-hf-cmpl:435:58``): with :data:`echo_cut.ANY_PROMPT` the echo is cut only where
    the rest of the text equals vLLM's, and a kept special token's (intended) difference left
    the echoed prompt's logprob entries as differences; the batch twin of :func:`stream_echo`."""
    prompts = case.request.get("prompt")
    if echo != echo_cut.ANY_PROMPT or not (isinstance(prompts, list) and prompts and all(
            isinstance(p, str) for p in prompts)) or len(prompts) != 1 + len(case.more):
        return echo
    return [prompts[0]] * len(case.choices) + [
        p for k, more in enumerate(case.more) for p in [prompts[k + 1]] * len(more["choices"])]


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
        echo = echo_cut.echoed(case.request) if completion else None  #: the prompt tito echoes
        golden = self.rec.http(served, path, body)
        status, resp = self.tito.post(path, body)
        lone_surrogate(case, golden)
        if status != golden["status"]:
            found.append(Found(case.cid, "batch", "status", golden["status"], status,
                               intended(case, bgroup, "status", golden["status"])))
        if status == 200 and golden["status"] == 200:
            for p, a, b in echo_aware_diff(replay.normalize(golden["response"]),
                                            replay.normalize(resp), batch_echoes(case, echo)):
                found.append(Found(case.cid, "batch", p, a, b, intended(case, bgroup, p, a)))
        recorded: dict[str, Any] = {"batch": golden, "streams": []}
        echo = stream_echo(case.request, echo)
        if not stream or case.tags & {"finish_null", "dup_index"}:
            # (a stream always finishes; a repeated index's choices are keyed alike)
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
                cut = cut_echo(folds[label], echo)
                for p, a, b in (replay.diff(want, folds[label]) if echo is None
                                else replay.diff(want, cut) if cut is not None
                                else echo_cut.echo_diffs(want, folds[label], "", echo)):
                    found.append(Found(case.cid, f"stream.{label}", p, a, b,
                                       intended(case, sgroup, p, a)
                                       or special_offset(case, p, a, b)))
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
        # (completions number a batch's choices by position, as vLLM: the engine's order)
        pos = next(k for k, c in enumerate(case.choices) if c["index"] == sc["index"])
        choice = batch["choices"][pos] if completion else next(
            c for c in batch["choices"] if c["index"] == sc["index"])
        if completion and echo_cut.echoed(case.request) is not None:  # (the echo cut off)
            got = echo_cut.strip_echo({"text": choice["text"]}, got)[0]
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
        # (an error anywhere, the usage-only chunk after the finish too: vLLM's batch had none)
        err = [Found(case.cid, "stream.stop_vs_batch", "error", None, got["error"],
                     intended(case, EQUIV[case.model][1], "error", None))
               ] if "error" in got else []
        return err + [Found(case.cid, "stream.stop_vs_batch", p, a, got.get(p),
                            held or intended(case, bgroup, batch_path.get(p, f"choices.0.{p}"), a))
                      for p, a in want.items() if replay.normalize(a) != got.get(p)]


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

