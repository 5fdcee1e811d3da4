"""Record xgrammar's verdicts (vLLM 0.33's venv: xgrammar 0.2.8) on a corpus of structural tags:
whether ``StructuralTag.model_validate`` takes each one, and the format it takes as its
``model_dump()`` writes it (``dump``: the JSON text, as vLLM's ``json.dumps`` re-sends it).

Why: on gpt-oss vLLM reads a request's own structural tag into these models (a refusal is its
400) and re-sends the validated format, its fields coerced (``"max_tokens": true`` is 1) and
defaults filled; ``tito.core.tag_model.structural_tag_model_error`` states the models' rules,
``tito.core.parsers.tools.structural_dump.dump_format`` their dump, and
``tests/test_tag_model.py`` checks both against this golden.

    /work/vllm-venv/bin/python conformance/record_tag_model.py   # writes the golden
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent / "goldens" / "structural_tag_model.json"

#: a wrong or boundary value for any field
WILD: list[Any] = [None, 5, -1, 2.0, 2.5, True, "x", "", "3", " 4 ", "yes", [], ["a"], [1], {},
                   {"a": 1}, 2_147_483_648]
STYLES = ["json", "qwen_xml", "bogus", "deepseek_v4_1_xml"]
TYPES = ["const_string", "json_schema", "any_text", "token", "exclude_token", "any_tokens",
         "grammar", "regex", "sequence", "or", "tag", "triggered_tags", "token_triggered_tags",
         "tags_with_separator", "optional", "plus", "star", "repeat", "dispatch",
         "token_dispatch", "qwen_xml_parameter"]


def leaf(r: random.Random) -> dict[str, Any]:
    return r.choice([{"type": "const_string", "value": "v"}, {"type": "any_text"},
                     {"type": "regex", "pattern": "a+"}])


def tag(r: random.Random, depth: int) -> dict[str, Any]:
    return {"type": "tag", "begin": r.choice(["<a>", {"type": "token", "token": 5}]),
            "content": fmt(r, depth + 1), "end": r.choice(["</a>", ["x", ""]])}


def fmt(r: random.Random, depth: int = 0) -> Any:
    """A format of a random type with its fields (each valid, or wrong a fifth of the time),
    sometimes a field left out or an extra key, sometimes not a format at all."""
    if depth > 2:
        return leaf(r)
    kind = r.choice(TYPES)
    sub = lambda: fmt(r, depth + 1)  # noqa: E731
    fields: dict[str, Any] = {
        "const_string": {"value": "v"},
        "json_schema": {"json_schema": r.choice([{}, True]), "style": r.choice(STYLES),
                        "any_order": r.choice([True, "on"]), "max_whitespace_cnt": 2,
                        "excludes": ["e"]},
        "any_text": {"excludes": ["e"], "max_tokens": r.choice([0, 10, 2_147_483_647]),
                     "max_chars": 5},
        "token": {"token": r.choice([5, "<t>"])},
        "exclude_token": {"exclude_tokens": [1, "a"]},
        "any_tokens": {"exclude_tokens": [1], "max_tokens": 3},
        "grammar": {"grammar": "root ::= \"a\""},
        "regex": {"pattern": "a"},
        "sequence": {"elements": [sub() for _ in range(r.randint(0, 2))]},
        "or": {"elements": [sub() for _ in range(r.randint(0, 2))]},
        "tag": {k: v for k, v in tag(r, depth).items() if k != "type"},
        "triggered_tags": {"triggers": ["<a"], "tags": [tag(r, depth)], "at_least_one": True,
                           "stop_after_first": False, "excludes": []},
        "token_triggered_tags": {"trigger_tokens": [5], "tags": [tag(r, depth)],
                                 "exclude_tokens": [], "at_least_one": False},
        "tags_with_separator": {"tags": [tag(r, depth)], "separator": ",",
                                "stop_after_first": True},
        "optional": {"content": sub()}, "plus": {"content": sub()}, "star": {"content": sub()},
        "repeat": {"min": 1, "max": 3, "content": sub()},
        "dispatch": {"rules": [["a", sub()]], "loop": False, "excludes": []},
        "token_dispatch": {"rules": [[5, sub()]], "loop": True, "exclude_tokens": []},
        "qwen_xml_parameter": {"json_schema": {}},
    }[kind]
    out: dict[str, Any] = {"type": kind, **{k: v for k, v in fields.items()
                                            if r.random() > 0.15 or k in ("content",)}}
    for key in list(out):
        if key != "type" and r.random() < 0.2:
            out[key] = r.choice(WILD)
    roll = r.random()
    if roll < 0.05:
        del out["type"]
    elif roll < 0.08:
        out["type"] = r.choice(["bogus", 5, None])
    elif roll < 0.12:
        out["extra"] = 1
    elif roll < 0.15:
        return r.choice(WILD)
    if kind == "tag" and r.random() < 0.3:  # a begin / end token format, good or not
        out[r.choice(["begin", "end"])] = r.choice([{"token": 1}, {"type": "token"},
                                                    {"type": "const_string", "value": "x"}])
    if kind in ("dispatch", "token_dispatch") and r.random() < 0.3:
        out["rules"] = r.choice([[["a"]], [["a", leaf(r), 1]], [[5, leaf(r)]], [("a", 5)]])
    return out


def corpus(n: int, seed: int) -> list[Any]:
    r = random.Random(seed)
    out: list[Any] = []
    for _ in range(n):
        t: Any = {"type": "structural_tag", "format": fmt(r)}
        roll = r.random()
        if roll < 0.05:
            t["type"] = "other"
        elif roll < 0.1:
            del t["type"]
        elif roll < 0.13:
            del t["format"]
        elif roll < 0.16:
            t = r.choice(WILD)
        out.append(t)
    return out


#: values pydantic's lax mode coerces, one per typed field (the random corpus draws few of them)
COERCED: list[Any] = [True, False, 1, 0, 1.0, 0.0, 2.0, "1", "0", " 4 ", "+3", "-0", "1.0",
                      "yes", "No", "ON", "t", "F", " true", 1e3]


def coerced(r: random.Random) -> Any:
    """A tag whose fields hold values xgrammar's models read as another value (an int field's
    ``true`` or ``" 4 "``, a bool field's ``"on"`` or ``1.0``, a token's ``2.0``)."""
    v = lambda: r.choice(COERCED)  # noqa: E731
    sub = {"type": "any_text", "max_tokens": v(), "max_chars": v()}
    return {"type": "structural_tag", "format": r.choice([
        sub,
        {"type": "any_tokens", "exclude_tokens": [v(), "a"], "max_tokens": v()},
        {"type": "json_schema", "json_schema": r.choice([v(), {"a": v()}]), "any_order": v(),
         "max_whitespace_cnt": v()},
        {"type": "token", "token": v()},
        {"type": "exclude_token", "exclude_tokens": [v(), v()]},
        {"type": "repeat", "min": v(), "max": v(), "content": sub},
        {"type": "tag", "begin": r.choice([{"token": v()}, {"type": "token", "token": v()}]),
         "content": sub, "end": r.choice(["b", ["b", ""], {"token": v()}])},
        {"type": "triggered_tags", "triggers": ["<a"], "tags": [
            {"begin": "<a>", "content": sub, "end": "</a>"}], "at_least_one": v(),
         "stop_after_first": v()},
        {"type": "token_triggered_tags", "trigger_tokens": [v()], "tags": [
            {"type": "tag", "begin": {"token": v()}, "content": sub, "end": "x"}],
         "exclude_tokens": [v()], "at_least_one": v()},
        {"type": "tags_with_separator", "tags": [], "separator": ",", "stop_after_first": v()},
        {"type": "dispatch", "rules": [["a", sub]], "loop": v()},
        {"type": "token_dispatch", "rules": [[v(), sub]], "loop": v()},
        {"type": "sequence", "elements": [sub, {"type": "optional", "content": sub}]},
    ])}


def main() -> None:
    from pydantic import ValidationError
    from xgrammar.structural_tag import StructuralTag

    cases = []
    r = random.Random(40)
    for t in [*corpus(3000, seed=39), *(coerced(r) for _ in range(600))]:
        try:
            dump = json.dumps(StructuralTag.model_validate(t).model_dump()["format"])
            ok = True
        except ValidationError:
            dump, ok = None, False
        cases.append({"tag": t, "valid": ok, "dump": dump})
    GOLDEN.write_text(json.dumps({"xgrammar": "0.2.8", "cases": cases}, indent=0) + "\n")
    print(f"{GOLDEN}: {len(cases)} cases, {sum(c['valid'] for c in cases)} valid")


if __name__ == "__main__":
    main()
