"""The calls of the parser fuzzer's cases (``fuzz_parser_cases.py``): the tools, their argument
values (unicode, escapes, nesting, numbers, booleans, null), the calls drawn and their JSON, XML
and Python spellings, and the marker strings several formats share.

Pure data, no vLLM, no tito; apart from the formats' writers (``fuzz_parser_markup.py``) so that
each module stays one concern.
"""

from __future__ import annotations

import json
import random

_D = "｜DSML｜"
_VB, _VE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_VC, _VS, _VCE = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
_KB, _KE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
_KC, _KCE, _KA = "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>"

FUZZ_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "temp": {"type": "number"},
                "detailed": {"type": "boolean"},
                "options": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"},
                                                         "limit": {"type": "integer"}}},
    },
}
NOARG = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
TOOLS = [FUZZ_TOOL, SEARCH, NOARG]
_TYPES = {"city": "s", "days": "i", "temp": "n", "detailed": "b", "options": "o", "tags": "a",
          "note": "s", "query": "s", "limit": "i"}

_STRINGS = [
    "Paris", "東京", "São Paulo", "emoji 🎉 ok", 'say "hi"', "back\\slash", "two\nlines", "tab\there",
    "<b>bold</b>", "", " padded ", "a, b; c", "{not json}", "[1, 2]", "null", "42", "true",
    "\\u00e9 literal", "é", "ünïcödé ∑", "it's", "50% off & more",
]
_TEXTS = [
    "Sure.", "Let me check that for you.", "I'll look it up.\n", "好的，我来查一下。", "Done!",
    "Here you go:", "\n", "  ", "Result below 🎉", "OK", "Calling the tool now.\n\n",
]


def _value(rng: random.Random, kind: str, depth: int = 0):
    if kind == "s":
        return rng.choice(_STRINGS)
    if kind == "i":
        return rng.choice([0, 3, -7, 42, 100000, 12345678901])
    if kind == "n":
        return rng.choice([3.14, -0.5, 2.0, 1e-05, 0, 98.6, 1.5e10])
    if kind == "b":
        return rng.choice([True, False])
    if kind == "o":
        if depth > 1:
            return {}
        return {rng.choice(["a", "k", "名", "x y"]): _value(rng, rng.choice("sinbao"), depth + 1)
                for _ in range(rng.randint(0, 3))}
    if kind == "a":
        return [_value(rng, rng.choice("sinbo"), depth + 1) for _ in range(rng.randint(0, 3))]
    return None


def _args(rng: random.Random, name: str) -> dict:
    if name == "get_time" or rng.random() < 0.12:
        return {}
    keys = ["query", "limit"] if name == "search" else list(_TYPES)[:7]
    out = {}
    for k in rng.sample(keys, rng.randint(1, min(4, len(keys)))):
        kind = _TYPES[k]
        if k == "note" and rng.random() < 0.4:
            out[k] = None
        elif rng.random() < 0.08:  # a value of another type than the schema's
            out[k] = _value(rng, rng.choice("sinbo"))
        else:
            out[k] = _value(rng, kind)
    return out


def _calls(rng: random.Random) -> list[tuple[str, dict]]:
    n = rng.choice([1, 1, 1, 2, 2, 3])
    names = [rng.choice(["get_weather", "get_weather", "search", "get_time", "not_a_tool"])
             for _ in range(n)]
    return [(nm, _args(rng, nm)) for nm in names]


def _dumps(rng: random.Random, obj) -> str:
    style = rng.choice(["default", "default", "compact", "indent", "ascii"])
    if style == "compact":
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    if style == "indent":
        return json.dumps(obj, ensure_ascii=False, indent=2)
    if style == "ascii":
        return json.dumps(obj)
    return json.dumps(obj, ensure_ascii=False)


def _xml_value(v) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _py(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_py(k)}: {_py(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_py(x) for x in v) + "]"
    return repr(v)


def py_spelt(v, rng: random.Random, adjacent: bool = True) -> str:
    """``v`` as Python text in one of the other ways Python (and vLLM 0.33's pythonic family,
    ``get_parameter_value``) reads it, now and then (session 45): a list as a tuple or a set, a
    string prefixed (``u``, ``f``, ``r``) or split into adjacent literals (``adjacent``: not for
    lfm2, whose requote rule reads them as nested quotes), a number with a sign run or in
    parentheses (a sign over its parentheses too, ``-(1)``: session 46), a constant by its JSON name. The caller's ``rng`` is its own, so the other
    draws of a seed stay as they were."""
    odd = rng.random() < 0.3
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_py(k)}: {py_spelt(x, rng, adjacent)}"
                               for k, x in v.items()) + "}"
    if isinstance(v, list):
        items = [py_spelt(x, rng, adjacent) for x in v]
        if odd and items and rng.random() < 0.5:
            return "{" + ", ".join(items) + "}"
        if odd:
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    if not odd:
        return repr(v)
    if isinstance(v, str):
        how = rng.choice(["u", "f", "r", "split"])
        if how == "split" and adjacent and len(v) > 1:
            k = rng.randint(1, len(v) - 1)
            return repr(v[:k]) + rng.choice(["", " "]) + repr(v[k:])
        if how == "f":
            return "f" + repr(v).replace("{", "{{").replace("}", "}}")
        if how == "r" and v.isprintable() and "'" not in v and not v.endswith("\\"):
            return "r'" + v + "'"
        return "u" + repr(v)
    if isinstance(v, bool) or v is None:
        return {True: "true", False: "false", None: "null"}[v]
    if rng.random() < 0.5:
        return "(" + repr(v) + ")"
    if rng.random() < 0.3:  # a sign over its number in parentheses (session 46)
        return ("-(" + repr(-v) + ")") if v < 0 else rng.choice(["+(", "-(-", "- ( -"]) \
            + repr(v) + ")"
    return ("- " + repr(-v)) if v < 0 else rng.choice(["+", "--", "+ "]) + repr(v)

