"""The Responses ``custom`` / ``namespace`` tool draws of ``fuzz_render.py``'s Responses bodies.

Why: the custom and namespace tools (4eeb701) have rules of their own -- a format that may be a
grammar, flat ``<namespace>__<name>`` names, a named ``tool_choice`` resolved by bare, flat or
ambiguous name, ``custom_tool_call`` / ``custom_tool_call_output`` input items and a
``function_call``'s ``namespace`` -- which the recorded corpus covers case by case; these draws
mix them with the rest of a random Responses body.

What is drawn (:func:`add_custom`, on a Responses body already built):

- tools: custom tools (with and without a description; no format, a ``text`` format, a
  ``grammar`` format of ``lark`` or ``regex`` syntax, a grammar missing its fields, an unknown
  format type, a wrong-typed format), namespace tools (``crm`` / ``erp`` holding function and
  custom sub-tools whose names collide across namespaces and with the top-level tools; a
  missing description, a ``tools`` that is not a list, a malformed sub-tool);
- ``tool_choice``: ``function`` or ``custom`` naming a bare name (``lookup``: in both
  namespaces, ambiguous when both are drawn), a flat one (``crm__lookup``), a namespace's custom
  tool, a top-level custom tool or a name nobody defines;
- input items: a ``function_call`` with a ``namespace``, ``custom_tool_call`` and
  ``custom_tool_call_output`` items, valid and malformed (wrong types, missing fields);
- now and then a hosted tool besides (gpt-oss's built-in ones, ``mcp``, ``web_search``).

The draws come from the case's second generator (``r.extra``, seeded from the case's name) and
touch only a share of the Responses cases, so every other draw of a case -- and so each case an
earlier seed generated without them -- stays what it was.
"""

from __future__ import annotations

import random
from typing import Any

#: names shared by the namespaces and the top-level tools (collisions are the point)
SUB_NAMES = ["lookup", "save", "note", "run"]
NAMESPACES = ["crm", "erp"]
#: the names a named tool_choice draws: bare, flat, a namespace's custom tool, unknown
CHOICE_NAMES = ["lookup", "save", "run", "note", "crm__lookup", "erp__lookup", "crm__note",
                "erp__save", "get_weather", "missing", "crm"]
PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}
#: a custom tool's format: none (key absent), text, grammars, malformed
FORMATS: list[Any] = [
    {"type": "text"},
    {"type": "grammar", "syntax": "lark", "definition": 'start: "a"'},
    {"type": "grammar", "syntax": "regex", "definition": "[a-z]+"},
    {"type": "grammar", "syntax": "bogus", "definition": "x"},
    {"type": "grammar"}, {"type": "bogus"}, {}, "text", None, 3,
]
CALL_IDS = ["c1", "c2", "call_1", ""]
#: hosted tools: gpt-oss's harmony path ignores its built-in ones (and mcp) when no other tool
#: is given, refuses the others
HOSTED: list[Any] = [{"type": "web_search_preview"}, {"type": "code_interpreter", "container": "c"},
                     {"type": "mcp", "server_label": "x"}, {"type": "web_search"}]


def pick(r: random.Random, xs: list[Any]) -> Any:
    return xs[r.randrange(len(xs))]


def custom_tool(r: random.Random, name: str | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": "custom", "name": name or pick(r, SUB_NAMES + ["get_weather"])}
    if r.random() < 0.6:
        tool["description"] = pick(r, ["Run code", "", "ünï 😀"])
    if r.random() < 0.4:
        tool["format"] = pick(r, FORMATS)
    if r.random() < 0.05:
        tool = pick(r, [{"type": "custom"}, {"type": "custom", "name": 3},
                        {"type": "custom", "name": "run", "description": 5}])
    return tool


def sub_tool(r: random.Random) -> Any:
    k = r.random()
    if k < 0.55:
        fn: dict[str, Any] = {"type": "function", "name": pick(r, SUB_NAMES)}
        if r.random() < 0.5:
            fn["description"] = "Find"
        if r.random() < 0.6:
            fn["parameters"] = pick(r, [PARAMS, {}, None])
        return fn
    if k < 0.93:
        return custom_tool(r, pick(r, SUB_NAMES))
    return pick(r, [{"type": "function"}, {"type": "web_search"}, 3, {"type": "namespace"}])


def namespace_tool(r: random.Random) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": "namespace", "name": pick(r, NAMESPACES)}
    if r.random() < 0.9:
        tool["description"] = pick(r, ["CRM tools", ""])
    tool["tools"] = [sub_tool(r) for _ in range(r.randrange(0, 4))]
    if r.random() < 0.04:
        tool["tools"] = pick(r, ["x", None, {}])
    return tool


def top_tool(r: random.Random) -> dict[str, Any]:
    k = r.random()
    if k < 0.4:
        return custom_tool(r)
    if k < 0.8:
        return namespace_tool(r)
    return {"type": "function", "name": pick(r, SUB_NAMES + ["crm__lookup"]), "parameters": PARAMS}


def named_choice(r: random.Random) -> Any:
    choice: dict[str, Any] = {"type": pick(r, ["function", "function", "custom"]),
                              "name": pick(r, CHOICE_NAMES)}
    if r.random() < 0.05:
        choice = pick(r, [{"type": "custom"}, {"type": "custom", "name": 3},
                          {"type": "custom", "custom": {"name": "run"}}])
    return choice


def call_item(r: random.Random) -> Any:
    """A call or call output item, valid or (rarely) malformed."""
    k = r.random()
    if k < 0.3:
        item: dict[str, Any] = {"type": "function_call", "call_id": pick(r, CALL_IDS),
                                "name": pick(r, SUB_NAMES), "arguments": '{"q": "ann"}'}
        item["namespace"] = pick(r, NAMESPACES + [""]) if r.random() < 0.9 else pick(r, [None, 3])
        return item
    if k < 0.6:
        item = {"type": "custom_tool_call", "call_id": pick(r, CALL_IDS),
                "name": pick(r, SUB_NAMES), "input": pick(r, ['print("hé")\n', "", "{}"])}
        if r.random() < 0.2:
            item["id"] = "ctc_1"
        if r.random() < 0.15:
            item["namespace"] = pick(r, NAMESPACES)
    elif k < 0.9:
        item = {"type": "custom_tool_call_output", "call_id": pick(r, CALL_IDS),
                "output": pick(r, ["hé", "", [{"type": "input_text", "text": "x"}]])}
    else:
        return pick(r, [{"type": "custom_tool_call"}, {"type": "custom_tool_call_output"}])
    if r.random() < 0.15:  # one field missing or of the wrong type
        key = pick(r, sorted(k for k in item if k != "type"))
        if r.random() < 0.5:
            del item[key]
        else:
            item[key] = pick(r, [None, 3, ["x"], {"a": 1}])
    return item


def add_custom(r: random.Random, body: dict[str, Any]) -> None:
    """Mix custom / namespace tools, a named choice and call items into ``body``: in about half
    the Responses cases, each part on its own."""
    if r.random() < 0.5:
        return
    if r.random() < 0.8:
        tools = body.get("tools") if isinstance(body.get("tools"), list) else []
        body["tools"] = tools + [top_tool(r) for _ in range(r.randrange(1, 4))]
    if r.random() < 0.35:
        body["tool_choice"] = named_choice(r) if r.random() < 0.8 else pick(
            r, ["required", "none", "auto"])
    if r.random() < 0.45:
        items = body.get("input") if isinstance(body.get("input"), list) else [
            {"role": "user", "content": body["input"] if isinstance(body.get("input"), str)
             else "hi"}]
        k = r.randrange(len(items) + 1)
        body["input"] = items[:k] + [call_item(r) for _ in range(r.randrange(1, 4))] + items[k:]
    if r.random() < 0.15:  # (drawn last: the draws above stay as first recorded)
        tools = body.get("tools") if isinstance(body.get("tools"), list) else []
        body["tools"] = tools + [pick(r, HOSTED)]
