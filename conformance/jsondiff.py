"""JSON comparison of a vLLM golden with tito's answer: what is random in both servers
normalised away, engine defaults dropped from render requests, then a field-by-field diff.

Why a module of its own: the replay (``replay.py``), the fuzzers' classifiers and the path probes
compare with the same rules; keeping them here keeps ``replay.py`` about driving tito.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_RANDOM_KEYS = {"created"}


def normalize(obj: Any, key: str = "") -> Any:
    """Replace values that are random in both servers (timestamps, tool-call ids).

    A tool-call id becomes ``<tool-call-id-K>``, K counting the distinct ids of ``obj`` in order
    of first appearance: which calls share an id is compared, not the ids (vLLM draws each at
    random, so two calls never share one; tito derives them: two choices with one index got
    one id until session 43, goldens ``derender_choice_index`` ``*_dup*``)."""
    return _normalize(obj, key, {})


def _normalize(obj: Any, key: str, ids: dict[str, int]) -> Any:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in _RANDOM_KEYS and isinstance(v, int):
                out[k] = "<ts>"
            elif k == "id" and isinstance(v, str) and (
                    v.startswith(("chatcmpl-tool-", "call_")) or "function" in obj
                    or "arguments" in obj):
                out[k] = f"<tool-call-id-{ids.setdefault(v, len(ids))}>"
            else:
                out[k] = _normalize(v, k, ids)
        return out
    if isinstance(obj, list):
        return [_normalize(v, key, ids) for v in obj]
    return obj


#: vLLM 0.33's ``SamplingParams`` defaults (msgspec struct). tito omits a field at its default
#: (msgspec's ``omit_defaults``), vLLM's render writes every field: the same engine request.
SAMPLING_DEFAULTS: dict[str, Any] = {
    "n": 1, "presence_penalty": 0.0, "frequency_penalty": 0.0, "repetition_penalty": 1.0,
    "temperature": 1.0, "top_p": 1.0, "top_k": 0, "min_p": 0.0, "seed": None, "stop": [],
    "stop_token_ids": [], "ignore_eos": False, "max_tokens": 16, "min_tokens": 0,
    "logprobs": None, "prompt_logprobs": None, "logprob_token_ids": None, "flat_logprobs": False,
    "detokenize": True, "skip_special_tokens": True, "spaces_between_special_tokens": True,
    "include_stop_str_in_output": False, "output_kind": 0, "skip_clone": False,
    "output_text_buffer_length": 0, "structured_outputs": None, "logit_bias": None,
    "allowed_token_ids": None, "extra_args": None, "bad_words": [],
    "skip_reading_prefix_cache": False, "thinking_token_budget": None,
}
STRUCTURED_DEFAULTS: dict[str, Any] = {
    "json": None, "regex": None, "choice": None, "grammar": None, "json_object": None,
    "disable_any_whitespace": False, "disable_additional_properties": False,
    "whitespace_pattern": None, "structural_tag": None, "_backend": None,
    "_backend_was_auto": False,
}


def _drop_defaults(d: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if not (k in defaults and defaults[k] == v)}


def normalize_render(req: Any) -> Any:
    """A GenerateRequest with engine defaults dropped (same meaning, either spelling)."""
    if not isinstance(req, dict) or "sampling_params" not in req:
        return req
    req = dict(req)
    sp = _drop_defaults(dict(req["sampling_params"] or {}), SAMPLING_DEFAULTS)
    if isinstance(sp.get("structured_outputs"), dict):
        so = _drop_defaults(sp["structured_outputs"], STRUCTURED_DEFAULTS)
        if isinstance(so.get("structural_tag"), str):
            try:  # compared parsed (key order, spacing); text that is not JSON as it is
                so["structural_tag"] = json.loads(so["structural_tag"])
            except ValueError:  # (a Responses body's tag a model passes on: fuzz s350-104)
                pass
        sp["structured_outputs"] = so
    req["sampling_params"] = sp
    req["request_id"] = re.split(r"[-_]", str(req.get("request_id", "")))[0]  # the prefix
    return req


def diff(a: Any, b: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Every (path, vllm value, tito value) where ``a`` (vLLM) and ``b`` (tito) differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            sub = f"{path}.{k}" if path else str(k)
            if k not in b:
                yield sub, a[k], "<missing>"
            elif k not in a:
                yield sub, "<missing>", b[k]
            else:
                yield from diff(a[k], b[k], sub)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from diff(x, y, f"{path}.{i}" if path else str(i))
    elif isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        pass  # NaN on both sides (a request's NaN inside a structural tag's text, parsed)
    elif a != b or type(a) is not type(b) and not (isinstance(a, float) or isinstance(b, float)):
        yield path, a, b
