"""The derender fuzzer's comparison: differences found, and which of them are intended.

Why: a fuzz case differs from vLLM either where tito is wrong or where ``replay.DEVIATIONS``
documents a deliberate difference; a case names the corpus case kinds it contains (its tags),
and a difference is intended when a deviation of the model's corpus group (``EQUIV``) matches
one of them. Echo answers are compared as ``replay`` compares the goldens (the echoed prompt
cut from the front).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any

from conformance import echo_cut, replay
from conformance.fuzz_derender_case import Case, decode

#: the corpus groups whose DEVIATIONS a fuzz case of a model inherits (batch, stream)
EQUIV = {"qwen3": ("derender_chat", "stream_chat"),
         "gpt-oss": ("derender_chat_gptoss", "stream_chat_gptoss"),
         "mistral-v3": ("derender_chat_mistral", "stream_chat_mistral"),
         "mistral-v3-hf": ("derender_chat_mistral", "stream_chat_mistral"),
         "gpt2": ("derender_completion", "stream_completion"),
         "qwen3-cmpl": ("derender_completion", "stream_completion"),
         "mistral-v3-hf-cmpl": ("derender_completion", "stream_completion")}


@dataclass
class Found:
    cid: str
    where: str  #: batch / stream.readme / stream.vllm_client / stream.clients / stream.stop
    path: str
    vllm: Any
    tito: Any
    intended: replay.Deviation | None



#: tags whose documented deviation (docs/conformance.md) the corpus records only for some
#: fields: a case carrying one may differ in these fields too (fnmatch on the path)
GENERAL = {
    # (the text a special token can change, and what parsing that text decides: not usage,
    # ids, logprobs, ...)
    "special_x": (("*text", "*content", "*reasoning", "*tool_calls*", "*finish_reason",
                   "*function_call*"), replay.Deviation(
        "*", "special_x", "*", "skip_special_tokens is honoured, on the parser path too: "
        "special tokens (the tokenizer's, flagged special in tokenizer.json) other than the "
        "parsers' markers are dropped wherever they fall (content, reasoning, a call's JSON, "
        "completions text), in batch and stream; vLLM's parser engine drops them whatever the "
        "flag, and its derender's slow incremental decode keeps some as text where its engine "
        "would not (mistral-v3-hf: [INST], [/TOOL_RESULTS]) (docs: skip_special_tokens)")),
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


def _special_stop(case: Case, path: str, vllm: Any) -> bool:
    """Did vLLM's stop string (its ``stop_reason``) fire on text tito drops: a special token's
    (``special_x``: vLLM's derender keeps mistral-v3-hf's ``</s>`` as text, and stop ``"s"``
    fires inside it; ``mistral-v3-hf:520:0``)? Told by a character the stop string shares
    with a special token's text in the output, so that a ``stop_reason`` of a case with no
    such token is still compared."""
    if not (path.endswith("stop_reason") and "special_x" in case.tags and isinstance(vllm, str)
            and vllm in (case.request.get("stop") or ())):
        return False
    ids = {i for ch in case.choices for i in ch.get("token_ids") or ()}
    specials = "".join(decode(case.model, [i], False) for i in sorted(ids)
                       if not decode(case.model, [i], True))
    return bool(set(vllm) & set(specials))


def _special_chars(case: Case) -> int:
    """How many characters the output's special tokens are as text (each time one occurs):
    what vLLM's derender can keep and tito drops (``special_x``)."""
    ids = [i for ch in case.choices for i in ch.get("token_ids") or ()]
    return sum(len(decode(case.model, [i], False)) for i in ids
               if not decode(case.model, [i], True))


def special_offset(case: Case, path: str, vllm: Any, tito: Any) -> replay.Deviation | None:
    """A stream's ``text_offset`` moved by a chunk's TEXT (a chunk with fewer logprob entries
    than ids, ``lp_count_fewer``: vLLM 0.33 moves the offset by the chunk's text when it has no
    entry) that holds a special token vLLM keeps and tito drops (``special_x``): tito's offset is
    behind vLLM's by at most the output's special tokens' text (``mistral-v3-hf-cmpl:492:15``,
    a kept ``[INST]``: vLLM 11, tito 5). Any other offset difference is still compared."""
    if not ({"special_x", "lp_count_fewer"} <= case.tags
            and re.search(r"(^|\.)text_offset\.\d+$", path)
            and type(vllm) is int and type(tito) is int):
        return None
    return GENERAL["special_x"][1] if 0 < vllm - tito <= _special_chars(case) else None


def intended(case: Case, group: str, path: str, vllm: Any) -> replay.Deviation | None:
    if _special_stop(case, path, vllm):
        return GENERAL["special_x"][1]
    for tag, (globs, dev) in GENERAL.items():
        # (an echoed prefix that is not the expected text is never a tag's business)
        if tag in case.tags and not path.endswith("echo_prompt") and any(
                fnmatch.fnmatchcase(path, g) for g in (globs if isinstance(globs, tuple)
                                                        else (globs,))):
            return dev
    model = SUFFIX.get(case.model, "")  # model-specific entries: NAME_<model>
    for tag in [t + s for t in sorted(case.tags) for s in ("", ".one", model)] + ["*"]:
        d = replay.deviation_for(group, tag, path, vllm)
        if d is not None:
            return d
    return None



def lone_surrogate(case: Case, golden: dict[str, Any]) -> None:
    """Tag ``case`` ``tool_call_escaped_args_lone_surrogate`` when vLLM's batch answer is its
    400 for a lone surrogate its re-serialized arguments hold (the deviation of that name,
    group ``derender_lone_surrogate``). Why a tag from the answer: the draw cannot tell where
    one arises (a kept special token between a pair's escapes: ``mistral-v3-hf:443:5``), and
    only that 400 is explained, no other status."""
    err = (golden.get("response") or {}).get("error") if golden.get("status") == 400 else None
    if "tool_call_escaped_args" in case.tags and isinstance(err, dict) and \
            "surrogates not allowed" in str(err.get("message")):
        case.tags.add("tool_call_escaped_args_lone_surrogate")


def echo_aware_diff(want: Any, got: Any, echo: str | list[str] | None) -> Any:
    """``replay.diff`` of two batch answers; with ``echo`` (a completions request that asks for
    it: one text, or each choice's, :func:`fuzz_derender_drive.batch_echoes`) each choice's
    echoed prefix cut first, as ``replay`` compares the goldens (``echo_prefix`` intended,
    ``echo_prompt`` when the prefix is not the prompt)."""
    if echo is None or len(want.get("choices") or []) != len(got.get("choices") or []):
        yield from replay.diff(want, got)
        return
    for k, (w, g) in enumerate(zip(want["choices"], got["choices"])):
        one = echo if isinstance(echo, str) else (
            echo[k] if k < len(echo) else echo_cut.ANY_PROMPT)
        yield from echo_cut.echo_diffs(w, g, f"choices.{k}.", one)
    yield from replay.diff({**want, "choices": None}, {**got, "choices": None})


def cut_echo(fold: dict[str, Any], echo: str | None) -> dict[str, Any] | None:
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


def kind(f: Found) -> str:
    return f.where + " " + re.sub(r"\.\d+", ".#", f.path)

