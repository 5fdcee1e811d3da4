"""Completions ``echo`` in the comparison: vLLM 0.33's derender ignores ``echo`` (its server
echoes at generate time), tito's derender echoes the prompt (a documented deviation). These cut
tito's echoed prefix off before the diff and check the prefix is the request's prompt.

Why a module of its own: the replay and the derender fuzzers' classifiers share the rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.jsondiff import diff

_LP_LISTS = ("tokens", "token_logprobs", "top_logprobs", "text_offset")


def strip_echo(want: dict[str, Any], got: dict[str, Any],
               prompt: str | None = None) -> tuple[dict[str, Any], str, int]:
    """tito's completions choice (or folded stream) without the echoed prompt, to compare with
    vLLM's, whose derender ignores ``echo``: (that choice, the prefix text, its logprob entries).

    The prefix is cut only where it is one: tito's text ends with vLLM's, or (the output part
    differing) starts with the expected ``prompt``; its logprob lists end with as many entries
    as vLLM's (text offsets then shifted back by the echoed entries' token strings). Anything
    else is left whole, so a wrong output part stays a difference."""
    text, want_text = got.get("text"), want.get("text")
    if not (isinstance(text, str) and isinstance(want_text, str)):
        return got, "", 0
    if text.endswith(want_text):
        prefix = text[:len(text) - len(want_text)]
    elif prompt is not None and prompt != ANY_PROMPT and text.startswith(prompt):
        # (the output part differs: its own difference, after the prompt; "" with
        # return_token_ids, whose echo has the prompt's logprob entries and no text)
        prefix = prompt
    else:
        return got, "", 0
    out = {**got, "text": text[len(prefix):]}
    lp, want_lp = got.get("logprobs"), want.get("logprobs")
    cut = 0
    if isinstance(lp, dict) and isinstance(want_lp, dict):
        n = len(want_lp.get("tokens") or [])
        cut = len(lp.get("tokens") or []) - n
        if cut >= 0 and all(len(lp.get(k) or []) == n + cut for k in _LP_LISTS):
            # vLLM's completions count the offsets over every token string they report, the
            # echoed prompt's included (its BOS as "<s>", which the echoed text has not):
            # the output's offsets continue after those strings, not after the echoed text
            shift = (sum(len(t) for t in lp["tokens"][:cut] if isinstance(t, str)) if cut
                     else len(prefix))
            lp = {k: (v[cut:] if k in _LP_LISTS else v) for k, v in lp.items()}
            lp["text_offset"] = [o - shift for o in lp["text_offset"]]
            out["logprobs"] = lp
        else:
            cut = 0
    return out, prefix, cut


#: :func:`echoed` of a prompt form whose echoed text the harness does not check (ids, a list)
ANY_PROMPT = "\uffff(any prompt)"


def echoed(request: dict[str, Any]) -> str | None:
    """The text a completions derender request (or stream settings) asks to echo: the prompt
    when it is one string, ``""`` with ``return_token_ids`` (vLLM 0.33's completions then echo
    no text, ``prompt_text = ""``, the prompt's logprobs still), :data:`ANY_PROMPT` for another
    prompt form; None without ``echo``."""
    settings = request.get("completion_request") or request.get("derender_context") or request
    if not (isinstance(settings, dict) and settings.get("echo") is True):
        return None
    if settings.get("return_token_ids") is True:
        return ""
    prompt = settings.get("prompt")
    return prompt if isinstance(prompt, str) else ANY_PROMPT


def echo_diffs(want: Any, got: Any, path: str, prompt: str) -> Iterator[tuple[str, Any, Any]]:
    """The diff of an echo answer with the prefix cut (:func:`strip_echo`); the prefix itself
    is reported as ``<path>echo_prefix`` (an intended difference, see ``DEVIATIONS``), and as
    ``<path>echo_prompt`` (unexplained) when it is not the request's prompt string."""
    stripped, prefix, cut = strip_echo(want, got, prompt)
    if prefix or cut:
        yield f"{path}echo_prefix", None, {"text": prefix, "logprob_entries": cut}
    text, want_text = got.get("text"), want.get("text")
    if prompt == ANY_PROMPT or not isinstance(text, str):
        pass
    elif isinstance(want_text, str) and text.endswith(want_text):  # (the prefix was cut)
        if prefix != prompt:
            yield f"{path}echo_prompt", prompt, prefix
    elif not text.startswith(prompt):  # (the rest differs: its own difference below)
        yield f"{path}echo_prompt", prompt, text[:len(prompt)]
    yield from diff(want, stripped, path.rstrip("."))
