"""Call-level rules of the parser fuzzer's classifier (:mod:`fuzz_parsers_classify`), a module
of their own so that one stays small: each reads the calls (arguments, ids) of vLLM 0.33 and
tito and says whether they differ only as a documented deviation does (docs/conformance.md).
"""

from __future__ import annotations

import json


def inkling_args_not_object(wc: list, gc: list, sc: list | None) -> bool:
    """Inkling calls that differ only where the ``args`` value is no object: tito's arguments
    are ``{}``, vLLM's one-token stream's ``""`` and its batch's no JSON object (``json.dumps``
    of the value, ``[1, 2]``, or the whole body when it is not JSON, ``{"name": "get_time",
    "args": }}``: parser fuzz seed 150, ``fuzz/inkling+inkling/1``)."""
    def obj(a: str) -> bool:
        try:
            return isinstance(json.loads(a), dict)
        except ValueError:
            return False

    if sc is None or not len(wc) == len(gc) == len(sc):
        return False
    diff = [(w, g, s) for w, g, s in zip(wc, gc, sc) if w != g]
    return bool(diff) and all(w[0] == g[0] == s[0] and g[1] == "{}" and s[1] == ""
                              and not obj(w[1]) for w, g, s in diff)


def drop_markup_keys(args: str) -> str:
    """``args`` without the keys that hold a newline or markup (``markup_key``: a
    ``<parameter=NAME`` header that lost its ``>``, which vLLM's regex reads on to the next
    ``>``, its closer's, so the key is ``NAME\\nVALUE\\n</parameter`` and its value ``""``;
    tito drops the bad header: parser fuzz seed 156, ``fuzz/qwen3_xml/4``); ``args`` itself
    when there is none (or it is no JSON object)."""
    try:
        obj = json.loads(args)
    except ValueError:
        return args
    if not isinstance(obj, dict) or not any("\n" in k or "<" in k for k in obj):
        return args
    return json.dumps({k: v for k, v in obj.items() if not ("\n" in k or "<" in k)},
                      ensure_ascii=False)


def ids_deviation(case: dict, vllm_ids: list, tito_ids: list) -> str | None:
    """The deviation a kimi_k2 call-id difference is (same calls, other ids), or None.

    ``args_marker_broken``: a call's ``<|tool_call_argument_begin|>`` is misspelt and vLLM's
    header reads on into the next call (fuzz seed 40: ``functions.get_weather:0
    <|tool_cal_argument_begin|>...<|tool_call_begin|>functions.get_weather:1``): its id is that
    whole text, and when both calls are of one tool the calls agree and only the ids show it;
    tito makes the next call with its own id."""
    text = case["text"]
    if case["tool"] == "kimi_k2" and len(vllm_ids) == len(tito_ids) \
            and text.count("<|tool_call_argument_begin|>") < text.count("<|tool_call_begin|>") \
            and all(v == t or (v and t and "<|tool_call_begin|>" in v and v.endswith(t))
                    for v, t in zip(vllm_ids, tito_ids, strict=True)):
        return "args_marker_broken"
    return None
