"""xgrammar 0.2.8's structural-tag format nodes as the JSON its ``model_dump()`` writes (fields
in its order, its defaults filled in): ``json_schema``, ``tag``, ``any_text``, ``const_string``,
``sequence``, ``or``, ``optional``, ``star``, ``triggered_tags``, ``tags_with_separator``.

Why a module of its own: every builder of a tool format's tag (:mod:`.structural_formats`,
:mod:`.structural_kimi_k3`), the constraint wrapper (:mod:`.structural`) and gpt-oss's
structured outputs (:mod:`tito.core.harmony.structured`) write the same nodes; the node
constructors are the vocabulary, the builders the sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Format = dict[str, Any]


def json_schema(schema: Any, style: str = "json") -> Format:
    return {"type": "json_schema", "json_schema": schema, "style": style, "any_order": False,
            "max_whitespace_cnt": None, "excludes": []}


def tag(begin: str, content: Format, end: str | list[str]) -> Format:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def any_text(excludes: Sequence[str] = ()) -> Format:
    return {"type": "any_text", "excludes": list(excludes), "max_tokens": None, "max_chars": None}


def const(value: str) -> Format:
    return {"type": "const_string", "value": value}


def sequence(*elements: Format) -> Format:
    return {"type": "sequence", "elements": list(elements)}


def one_of(elements: Sequence[Format]) -> Format:
    return {"type": "or", "elements": list(elements)}


def optional(content: Format) -> Format:
    return {"type": "optional", "content": content}


def star(content: Format) -> Format:
    return {"type": "star", "content": content}


def triggered(triggers: list[str], tags: list[Format], excludes: Sequence[str] = (), *,
              at_least_one: bool = False) -> Format:
    return {"type": "triggered_tags", "triggers": triggers, "tags": tags,
            "at_least_one": at_least_one, "stop_after_first": False, "excludes": list(excludes)}


def separated(tags: list[Format], separator: str = "", *, forced: bool = False) -> Format:
    """One or more calls (``stop_after_first`` when ``forced``)."""
    return {"type": "tags_with_separator", "tags": tags, "separator": separator,
            "at_least_one": True, "stop_after_first": forced}
