"""Structural tags whose fields hold each JSON type at its boundaries: token ids (``2.0``,
``-1``, 32-bit limits), the flags, ``repeat`` bounds, ``max_whitespace_cnt``, token formats
without or with another ``type``, triggers against their tags; recorded by
``record_xgrammar.py`` as kind ``tag_text`` (the JSON text a chat body's
``structured_outputs.structural_tag`` holds, which vLLM 0.33 hands to xgrammar's parser as it is).

Why: xgrammar's parser (picojson) reads JSON types its own way (a whole float is a token id but
not a ``repeat`` bound, a flag must be a JSON boolean, a token ``begin`` needs no ``type``),
where xgrammar's pydantic models coerce (:mod:`tito.core.tag_model`); tito's
``tito.core.tag_check`` refused ``{"token": 2.0}`` and took ``"loop": 1`` (found with the
``render_structural_model`` coercion cases, session 40).
"""

from __future__ import annotations

from typing import Any

_C = {"type": "const_string", "value": "x"}
_A = {"type": "any_text"}
TOKENS: list[Any] = [2, 2.0, 2.5, -1, -1.0, -2, 0.0, -0.0, 1e3, 1e10, True, "a", "", None,
                     2**31 - 1, 2**31, 2**31 - 1.0, -(2**31), -(2**31) - 1, 2**40, [2]]
FLAGS: list[Any] = [True, False, 1, 0, 1.0, "yes", "true", None, [], {}]
INTS: list[Any] = [2, 2.0, 2.5, -1, -1.0, 0, 1, None, "2", True, 2**31, 2**31 - 1, 1e3]
OBJECTS: list[Any] = [{"type": "bogus", "token": 2}, {"type": "token"}, {"token": 2, "x": 1},
                      {}, {"type": None, "token": 2}, {"token": 2}]
EXCLUDES: list[Any] = [[-1], [1.0], [True], "a", ["a"], [""], [2**31]]


def _tt(triggers: list[Any], begins: list[Any], **kw: Any) -> dict[str, Any]:
    return {"type": "token_triggered_tags", "trigger_tokens": triggers,
            "tags": [{"begin": {"token": b}, "content": _C, "end": "x"} for b in begins], **kw}


def _tr(triggers: list[Any], begins: list[Any], **kw: Any) -> dict[str, Any]:
    return {"type": "triggered_tags", "triggers": triggers,
            "tags": [{"begin": b, "content": _C, "end": "x"} for b in begins], **kw}


def formats() -> list[Any]:
    out: list[Any] = []
    for v in TOKENS:
        out += [{"type": "token", "token": v}, {"type": "exclude_token", "exclude_tokens": [v]},
                {"type": "any_tokens", "exclude_tokens": [v]}, _tt([v], [5]), _tt([v], [v]),
                {"type": "token_dispatch", "rules": [[v, _C]]},
                {"type": "tag", "begin": {"token": v}, "content": _C, "end": "b"},
                {"type": "tag", "begin": {"type": "token", "token": v}, "content": _C, "end": "b"},
                {"type": "tag", "begin": "a", "content": _A, "end": {"token": v}}]
    for b in OBJECTS:
        out += [{"type": "tag", "begin": b, "content": _C, "end": "b"},
                {"type": "tag", "begin": "a", "content": _C, "end": b},
                _tt([5], [5]) | {"tags": [{"begin": b, "content": _C, "end": "x"}]}]
    for v in FLAGS:
        out += [_tr(["<a"], ["<a>"], at_least_one=v), _tr(["<a"], ["<a>"], stop_after_first=v),
                _tt([5], [5], at_least_one=v),
                {"type": "tags_with_separator", "tags": [{"begin": "<a>", "content": _C,
                                                          "end": "</a>"}],
                 "separator": ",", "stop_after_first": v},
                {"type": "dispatch", "rules": [["a", _C]], "loop": v},
                {"type": "token_dispatch", "rules": [[5, _C]], "loop": v},
                {"type": "json_schema", "json_schema": {}, "any_order": v}]
    for v in INTS:
        out += [{"type": "any_text", "max_tokens": v}, {"type": "any_text", "max_chars": v},
                {"type": "any_tokens", "max_tokens": v},
                {"type": "repeat", "min": v, "max": 5, "content": _C},
                {"type": "repeat", "min": 0, "max": v, "content": _C},
                {"type": "json_schema", "json_schema": {}, "max_whitespace_cnt": v}]
    for ex in EXCLUDES:
        out += [{"type": "token_dispatch", "rules": [[5, _C]], "exclude_tokens": ex},
                {"type": "dispatch", "rules": [["a", _C]], "excludes": ex},
                _tt([5], [5], exclude_tokens=ex), _tr(["<a"], ["<a>"], excludes=ex),
                {"type": "any_text", "excludes": ex}]
    out += [_tt(t, b) for t, b in [([5, 6], [5]), ([5, 6], [5, 6]), ([5, 6], [6, 5]),
                                   ([5], [5, 5]), ([5, 5], [5]), ([5, 6], [5, 6, 6]),
                                   ([5.0, 6], [6, 5.0]), ([5, 5.0], [5]), ([5, 6, 7], [5, 7])]]
    out += [_tr(t, b) for t, b in [
        (["<a", "<b"], ["<a>"]), (["<a", "<a"], ["<a>"]), (["<a", "<ab"], ["<a>", "<ab>"]),
        (["<a", "<b"], ["<b>", "<a>"]), (["<a"], ["<a>", "<ab>"]), (["<a"], ["<a"]),
        (["<ab", "<a"], ["<a>"])]]
    return out


def tag_text_corpus() -> list[tuple[str, Any]]:
    """(kind, tag) pairs: each format as a chat body's tag text would carry it."""
    return [("tag_text", {"type": "structural_tag", "format": f}) for f in formats()]
