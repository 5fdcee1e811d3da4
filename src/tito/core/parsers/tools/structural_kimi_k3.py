"""The structural tag of Kimi K3's XTML channels (vLLM 0.33's own ``kimi_k3`` builder).

Why a module of its own: the builder is the largest of the table's (typed argument tags) and
only kimi_k3 needs it; :data:`.structural_formats.BUILDERS` imports it on use.

Shape (written as vLLM's ``get_kimi_k3_structural_tag`` ``model_dump()`` writes it)::

    sequence(optional("<|open|>response<|sep|>"),
             tag("", any text without <|open|> <|close|> <|end_of_msg|>,
                 "<|close|>response<|sep|>"),
             TOOLS, optional("<|close|>message<|sep|>"))
    TOOLS   = tag("<|open|>tools<|sep|>", separated(CALL...), "<|close|>tools<|sep|>"),
              optional around it for auto, the first tool only when forced
    CALL    = tag('<|open|>call tool="N" index="', sequence(regex [0-9]+, '"<|sep|>', ARGS),
              "<|close|>call<|sep|>")
    ARGS    = star / plus (plus: the schema requires keys) of ARG, one_of them when several;
              any-argument star when the schema is not an object with properties (a loose tool)
    ARG     = tag('<|open|>argument key="K" type="T"<|sep|>', VALUE, "<|close|>argument<|sep|>")
              for a property with one known type, else the any-argument tag; VALUE: a string's
              enum / const as constants, a bounded length as a regex, else any text without
              <|close|>; other types their JSON schema (the root's $defs / definitions added)

Without tools only the response channel and the closer. Attribute values are escaped as the
template escapes them (``&`` -> ``&amp;``, ``"`` -> ``&quot;``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tito.core.parsers.tools.structural_nodes import (
    Format, any_text, const, json_schema, one_of, optional, separated, sequence, star, tag)

if TYPE_CHECKING:
    from tito.core.parsers.tools.structural import CallMode, ToolSpec

O, C, S = "<|open|>", "<|close|>", "<|sep|>"
_XTML_TYPE = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean",
              "null": "null", "object": "object", "array": "array"}
#: one raw string character: anything but the "<|" that starts a marker
_STRING_ATOM = r"(?:[^<]|<[^|])"


def _attr(value: str) -> str:
    return str(value).replace("&", "&amp;").replace('"', "&quot;")


def _plus(content: Format) -> Format:
    return {"type": "plus", "content": content}


def _regex(pattern: str) -> Format:
    return {"type": "regex", "pattern": pattern}


def _any_argument() -> Format:
    return tag(O + "argument ", sequence(_regex(r"[^<]*" + S.replace("|", r"\|")),
                                          any_text([C])), f"{C}argument{S}")


def _string_value(prop: dict[str, Any]) -> Format:
    enum = prop.get("enum")
    if enum is None and isinstance(prop.get("const"), str):
        enum = [prop["const"]]
    if (isinstance(enum, list) and 0 < len(enum) <= 256
            and all(isinstance(v, str) for v in enum) and not any("<|" in v for v in enum)):
        return const(enum[0]) if len(enum) == 1 else one_of([const(v) for v in enum])
    most, least = prop.get("maxLength"), prop.get("minLength", 0)
    if isinstance(most, int) and not isinstance(most, bool) and 0 <= most <= 4096:
        if not isinstance(least, int) or isinstance(least, bool) or not 0 <= least <= most:
            least = 0
        return _regex(_STRING_ATOM + f"{{{least},{most}}}")
    return any_text([C])


def _argument(key: str, prop: Any, defs: dict[str, Any]) -> Format:
    prop = prop if isinstance(prop, dict) else {}
    kind = prop.get("type")
    xtml = _XTML_TYPE.get(kind) if isinstance(kind, str) else None
    if xtml is None:
        return _any_argument()
    begin = f'{O}argument key="{_attr(key)}" type="{xtml}"{S}'
    if xtml == "string":
        value = _string_value(prop)
    else:
        value = json_schema({**prop, **{k: v for k, v in defs.items() if k not in prop}})
    return tag(begin, value, f"{C}argument{S}")


def _arguments(parameters: Any) -> Format:
    props = parameters.get("properties") if isinstance(parameters, dict) else None
    if not isinstance(props, dict) or not props:
        return star(_any_argument())
    defs = {k: parameters[k] for k in ("$defs", "definitions")
            if isinstance(parameters.get(k), dict)}
    tags = [_argument(k, p, defs) for k, p in props.items()]
    inner = tags[0] if len(tags) == 1 else one_of(tags)
    required = parameters.get("required")
    return _plus(inner) if isinstance(required, list) and required else star(inner)


def _call(t: ToolSpec) -> Format:
    return tag(f'{O}call tool="{_attr(t.name)}" index="',
               sequence(_regex("[0-9]+"), const(f'"{S}'), _arguments(t.schema)), f"{C}call{S}")


def kimi_k3(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    response = [optional(const(f"{O}response{S}")),
                tag("", any_text([O, C, "<|end_of_msg|>"]), f"{C}response{S}")]
    closer = optional(const(f"{C}message{S}"))
    if not tools:
        return sequence(*response, closer)
    chosen = tools[:1] if mode == "forced" else tools
    channel = tag(f"{O}tools{S}", separated([_call(t) for t in chosen]), f"{C}tools{S}")
    return sequence(*response, optional(channel) if mode == "auto" else channel, closer)
