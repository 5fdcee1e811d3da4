"""Parameter typing from the request's tool schemas, for the formats whose values are text.

The XML-ish formats (qwen3_coder, seed_oss, glm45, minimax_m2, deepseek_v32) write every
argument value as text; vLLM types it from the tool's JSON schema (``coerce_to_schema_type``):
the candidate types are tried in the order null, integer, number, boolean, object, array, string
and the first that parses wins; with no known type the text is parsed as JSON when it can be,
else it stays a string; with no schema for the parameter it stays a string.

What the pipeline carries (in its config, never in the per-chunk state) is a compact map
``{tool name: {parameter: node}}`` built once from the request's tools by :func:`tool_params`.
A node is the parameter's type letters, its known types (``z`` null, ``i`` integer,
``n`` number, ``b`` boolean, ``o`` object, ``a`` array, ``s`` string; ``""`` = types given but
none known), or, when the schema has nested ``properties`` or ``items`` (objects), a dict
``{"t": letters, "p": {key: node}, "i": node}`` with the nested nodes. A parameter missing from
the map has no schema.

Nested schemas, as vLLM 0.33's ``_fix_arg_types``: a value that is already JSON (DSML's
``string="false"``) is typed recursively: strings by their schema's letters, an object's
members by its ``properties``, an array's elements by its ``items``, other scalars re-typed
from their JSON text. A value that is text (every other format) is typed once by its letters;
the object or array that makes is not followed (vLLM's engine does not either). Only direct
``properties`` / ``items`` are followed (not those inside ``anyOf``/``oneOf``, no ``$ref``).
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from tito.errors import BadRequest

#: Most parameters carried for one request, nested ones included (the map rides in every
#: derender context).
MAX_TYPED_PARAMS = 1024
#: Deepest nested schema followed (deeper levels keep only their letters).
MAX_DEPTH = 16

#: A parameter's typing: its letters, or ``{"t": letters, "p": {key: node}, "i": node}``.
Node = str | dict[str, Any]

_LETTERS = {
    "null": "z",
    "integer": "i",
    "number": "n",
    "boolean": "b",
    "object": "o",
    "array": "a",
    "string": "s",
}
_ORDER = "zinboas"  # vLLM's priority: null > integer > number > boolean > object > array > string
_ALIASES = {
    "str": "string", "text": "string", "varchar": "string", "char": "string", "enum": "string",
    "int": "integer", "int32": "integer", "int64": "integer", "uint": "integer",
    "uint32": "integer", "uint64": "integer", "long": "integer", "short": "integer",
    "unsigned": "integer", "float": "number", "float32": "number", "float64": "number",
    "double": "number", "bool": "boolean", "dict": "object", "arr": "array", "list": "array",
    "sequence": "array",
}  # fmt: skip


def _schema_types(schema: Any) -> set[str]:
    """vLLM's ``extract_types_from_schema``: ``type``, ``enum`` values, ``anyOf``/``oneOf``/
    ``allOf`` (recursively); ``{"string"}`` when nothing is said."""
    if not isinstance(schema, dict):
        return {"string"}
    types: set[str] = set()
    t = schema.get("type")
    if isinstance(t, str):
        types.add(t)
    elif isinstance(t, list):
        types.update(x for x in t if isinstance(x, str))
    enum = schema.get("enum")
    if isinstance(enum, list):
        for v in enum:
            if v is None:
                types.add("null")
            elif isinstance(v, bool):
                types.add("boolean")
            elif isinstance(v, int):
                types.add("integer")
            elif isinstance(v, float):
                types.add("number")
            elif isinstance(v, str):
                types.add("string")
            elif isinstance(v, list):
                types.add("array")
            elif isinstance(v, dict):
                types.add("object")
    for key in ("anyOf", "oneOf", "allOf"):
        choices = schema.get(key)
        if isinstance(choices, list):
            for choice in choices:
                types.update(_schema_types(choice))
    return types or {"string"}


def letters(schema: Any) -> str:
    """A parameter schema -> its type letters, in vLLM's priority order."""
    known = {_ALIASES.get(k, k) for k in (t.strip().lower() for t in _schema_types(schema))}
    return "".join(c for c in _ORDER if any(_LETTERS.get(k) == c for k in known))


def node(schema: Any, depth: int = 0) -> tuple[Node, int]:
    """A parameter schema -> its node (see the module header) and how many nodes it holds."""
    t = letters(schema)
    if not isinstance(schema, Mapping) or depth >= MAX_DEPTH:
        return t, 1
    out: dict[str, Any] = {}
    count = 1
    props = schema.get("properties")
    if isinstance(props, Mapping):
        out["p"] = {}
        for key, sub in props.items():
            if isinstance(sub, Mapping):  # vLLM skips a non-object member schema
                out["p"][str(key)], n = node(sub, depth + 1)
                count += n
    items = schema.get("items")
    if isinstance(items, Mapping):
        out["i"], n = node(items, depth + 1)
        count += n
    return ({"t": t, **out} if out else t), count


def letters_of(n: Node | None) -> str | None:
    """The letters of a node (None: no schema)."""
    return n.get("t", "") if isinstance(n, dict) else n


def tool_params(tools: Iterable[Any] | None) -> dict[str, dict[str, Node | None]] | None:
    """The request's tools (OpenAI ``tools`` entries, models or dicts) -> the typing map.

    Every tool name is a key (its map may be empty), the first tool of a name wins (as vLLM's
    ``find_tool_properties``). Raises a 400 past :data:`MAX_TYPED_PARAMS` nodes.
    """
    if not tools:
        return None
    out: dict[str, dict[str, Node | None]] = {}
    count = 0
    for tool in tools:
        fn = tool.get("function") if isinstance(tool, Mapping) else getattr(tool, "function", None)
        if fn is None:
            continue
        name = fn.get("name") if isinstance(fn, Mapping) else getattr(fn, "name", None)
        params = (fn.get("parameters") if isinstance(fn, Mapping)
                  else getattr(fn, "parameters", None))
        if not isinstance(name, str) or name in out:
            continue
        props = params.get("properties") if isinstance(params, Mapping) else None
        typed: dict[str, Node | None] = {}
        if isinstance(props, Mapping):
            for key, schema in props.items():
                # a non-object schema: the key is the tool's, its value untyped (as vLLM)
                typed[str(key)], n = node(schema) if isinstance(schema, Mapping) else (None, 1)
                count += n
        if count > MAX_TYPED_PARAMS:
            raise BadRequest(
                f"tools declare more than {MAX_TYPED_PARAMS} parameters in all",
                param="tools",
            )
        out[name] = typed
    return out


def _finite(v: Any) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, list):
        return all(_finite(x) for x in v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    return True


def loads(text: str) -> tuple[bool, Any]:
    try:
        v = json.loads(text)
    except (ValueError, RecursionError):
        return False, None
    return (True, v) if _finite(v) else (False, None)


def literal(text: str) -> Any:
    """JSON, else a Python literal (``True``, ``(1, 2)``, ``'x'``), else the text: the last
    resort of vLLM's hy_v3 and poolside_v1 typing (a value JSON cannot hold, such as a set,
    ``NaN`` or bytes, stays the text; a tuple is written as a list, as ``json.dumps`` does)."""
    ok, v = loads(text)
    if ok:
        return v
    try:
        v = ast.literal_eval(text)
        json.dumps(v, allow_nan=False)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text
    return v


def coerce(value: str, code: str) -> Any:
    """vLLM's ``coerce_to_schema_type`` for a value's text and its type letters."""
    for c in code:
        if c == "z":
            if value.lower() == "null":
                return None
        elif c == "s":
            return value
        elif c == "i":
            try:
                return int(value)
            except ValueError:
                pass
        elif c == "n":
            try:
                return int(value)
            except ValueError:
                pass
            try:
                f = float(value)
            except ValueError:
                continue
            if math.isfinite(f):
                return f if f != int(f) else int(f)
        elif c == "b":
            low = value.lower().strip()
            if low in ("true", "1"):
                return True
            if low in ("false", "0"):
                return False
        else:  # o, a
            ok, v = loads(value)
            if ok:
                return v
    ok, v = loads(value)
    return v if ok else value


def coerce_parsed(value: Any, n: Node | None) -> Any:
    """A value already parsed from JSON (DSML ``string="false"``), typed as vLLM 0.33's
    ``_coerce_value``: recursively through the node's ``properties`` / ``items``."""
    if n is None:
        return value
    if isinstance(value, str):
        return coerce(value, letters_of(n) or "")
    if isinstance(value, dict):
        props = n.get("p") if isinstance(n, dict) else None
        if props is None:
            return value
        return {k: coerce_parsed(v, props.get(k)) for k, v in value.items()}
    if isinstance(value, list):
        items = n.get("i") if isinstance(n, dict) else None
        return value if items is None else [coerce_parsed(v, items) for v in value]
    coerced = coerce(json.dumps(value, ensure_ascii=False), letters_of(n) or "")
    return coerced if type(coerced) is not type(value) or coerced != value else value


def coerce_args(args: dict[str, Any], params: Mapping[str, Node | None]) -> dict[str, Any]:
    """A whole arguments object typed by its tool's map (vLLM's ``_fix_arg_types``)."""
    return {k: coerce_parsed(v, params.get(k)) for k, v in args.items()}


def dumps(value: Any) -> str:
    """JSON text of a typed value, as vLLM serializes arguments."""
    return json.dumps(value, ensure_ascii=False)


def check_params(params: Any) -> dict[str, dict[str, Node | None]]:
    """A typing map that came back from a client (render's ``derender_context.tool_params``):
    the shape :func:`tool_params` builds, within its bounds, else a 400 (a hand-made map must
    not make typing fail or recurse without end)."""
    count = 0

    def bad() -> BadRequest:
        return BadRequest("derender_context.tool_params is not a tool typing map",
                          param="derender_context.tool_params")

    def walk(n: Any, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_TYPED_PARAMS or depth > MAX_DEPTH:
            raise bad()
        if isinstance(n, str):
            return
        if (not isinstance(n, dict) or not set(n) <= {"t", "p", "i"}
                or not isinstance(n.get("t"), str)):
            raise bad()
        props = n.get("p", {})
        if not isinstance(props, dict):
            raise bad()
        for sub in props.values():
            walk(sub, depth + 1)
        if "i" in n:
            walk(n["i"], depth + 1)

    if not isinstance(params, dict):
        raise bad()
    for typed in params.values():
        if not isinstance(typed, dict):
            raise bad()
        for n in typed.values():
            if n is not None:
                walk(n, 0)
    return params
