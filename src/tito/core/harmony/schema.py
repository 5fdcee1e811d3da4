"""JSON Schema -> harmony's TypeScript-like tool signatures (the ``# Tools`` section).

Why a port: gpt-oss was trained on the exact text openai-harmony writes for a function's
parameters; a different space or comment changes the prompt ids. This module reproduces
``HarmonyEncoding::json_schema_to_typescript`` and ``template_tools_section`` of openai-harmony
0.0.8 (``src/encoding.rs``) rule for rule, tested against the library on a broad corpus.

Rules (as the Rust code does them)
----------------------------------
* ``oneOf`` (a list) first: each variant on its own line as ``\\n{indent} | TYPE`` with trailing
  ``// description default: ...`` comments; a ``nullable: true`` variant gets ``| null``.
* ``type`` as a list: the names joined with `` | `` (``integer`` -> ``number``).
* ``object``: ``{`` newline, per property (schema order) ``// title`` + ``//``, ``// description``,
  ``// Examples:`` lines, then ``name?: TYPE,`` (``?`` unless required) with ``// default: ...``;
  nested objects indent by four spaces, property-level ``oneOf`` variants by three; then
  ``{indent}}``.
* ``string`` with ``enum``: the quoted values joined with `` | ``; ``number``/``integer`` ->
  ``number``; ``boolean``; ``array`` -> ``ITEMS[]`` (``Array<any>`` without ``items``);
  anything else -> ``any``.
* Defaults: a string default is ``"raw"`` (not JSON-escaped) unless the schema is an enum (then
  raw without quotes, or JSON-quoted in a top-level ``oneOf``); other defaults print as compact
  JSON the way ``serde_json`` does (floats in Rust's shortest form, ``1e16``, ``0.00001``).
  Known difference: serde_json's default float parser is not correctly rounded, so a default
  with 17 significant digits may print one unit of its last digit apart in openai-harmony.
* Text is split into lines as Rust's ``str::lines`` does (``\\n``, ``\\r\\n``), not Python's
  ``splitlines`` (which also splits on ``\\x0b``, ``\\u2028``...).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["rust_lines", "serde_display", "to_typescript", "tools_section"]


def rust_lines(text: str) -> list[str]:
    """Rust's ``str::lines``: split on ``\\n``, drop one ``\\r`` before it, no final empty line."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    last = len(parts) - 1
    ends_with_newline = text.endswith("\n")
    return [
        p[:-1] if p.endswith("\r") and (i < last or ends_with_newline) else p
        for i, p in enumerate(parts)
    ]


def _float_text(x: float) -> str:
    """A finite float as ``serde_json`` prints it (the ``ryu`` crate's shortest form)."""
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if not math.isfinite(x):
        return "null"
    sign = "-" if x < 0 else ""
    mantissa, _, exp_text = repr(abs(x)).partition("e")  # repr: shortest round-trip digits
    int_part, _, frac = mantissa.partition(".")
    raw = int_part + frac
    digits = raw.lstrip("0")
    kk = len(int_part) + int(exp_text or 0) - (len(raw) - len(digits))  # 10^(kk-1) <= v < 10^kk
    digits = digits.rstrip("0")
    length = len(digits)
    if 0 <= kk - length and kk <= 16:
        return f"{sign}{digits}{'0' * (kk - length)}.0"
    if 0 < kk <= 16:
        return f"{sign}{digits[:kk]}.{digits[kk:]}"
    if -5 < kk <= 0:
        return f"{sign}0.{'0' * -kk}{digits}"
    if length == 1:
        return f"{sign}{digits}e{kk - 1}"
    return f"{sign}{digits[0]}.{digits[1:]}e{kk - 1}"


def serde_display(value: Any) -> str:
    """``format!("{value}")`` of a ``serde_json::Value`` parsed from Python's ``json.dumps``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if -(2**63) <= value < 2**64:
            return str(value)
        return _float_text(float(value))  # serde_json reads a wider integer as f64
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ",".join(serde_display(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(
            f"{json.dumps(str(k), ensure_ascii=False)}:{serde_display(v)}" for k, v in value.items()
        ) + "}"
    return json.dumps(value, ensure_ascii=False)


def _get(schema: Any, key: str) -> Any:
    return schema.get(key) if isinstance(schema, dict) else None


def _has(schema: Any, key: str) -> bool:
    return isinstance(schema, dict) and key in schema


def _is_enum(schema: Any) -> bool:
    values = _get(schema, "enum")
    return isinstance(values, list) and bool(values)


def _nullable(variant: Any, type_str: str) -> str:
    if _get(variant, "nullable") is True and "null" not in type_str:
        return f"{type_str} | null"
    return type_str


def _default_comment(schema: Any, *, quoted_enum: bool) -> str:
    """``default: ...`` for ``schema["default"]`` (three spellings, see the module header)."""
    default = schema["default"]
    if isinstance(default, str) and not _is_enum(schema):
        return f'default: "{default}"'
    if isinstance(default, str) and not quoted_enum:
        return f"default: {default}"
    return f"default: {serde_display(default)}"


def _one_of(arr: list[Any], indent: str) -> str:
    out = []
    for variant in arr:
        out.append(f"\n{indent} | ")
        out.append(_nullable(variant, to_typescript(variant, indent + "   ")))
        trailing = []
        desc = _get(variant, "description")
        if isinstance(desc, str):
            trailing.append(desc)
        if _has(variant, "default"):
            trailing.append(_default_comment(variant, quoted_enum=True))
        if trailing:
            out.append(" // " + " ".join(trailing))
    return "".join(out)


def _property_one_of(
    key: str, val: dict[str, Any], arr: list[Any], required: set[str], indent: str
) -> str:
    out = []
    prop_desc = val.get("description")
    prop_desc = prop_desc if isinstance(prop_desc, str) else None
    skip = prop_desc is not None and bool(arr) and _get(arr[0], "description") == prop_desc
    above = False
    if not skip and prop_desc is not None:
        out.append(f"{indent}// {prop_desc}\n")
        above = True
    if "default" in val:
        out.append(f"{indent}// {_default_comment(val, quoted_enum=False)}\n")
    out.append(f"{indent}{key}{'' if key in required else '?'}:\n")
    for i, variant in enumerate(arr):
        out.append(f"{indent} | ")
        out.append(_nullable(variant, to_typescript(variant, indent + "   ")))
        trailing = []
        desc = _get(variant, "description")
        if not (i == 0 and above) and isinstance(desc, str) and desc != prop_desc:
            trailing.append(desc)
        if _has(variant, "default"):
            trailing.append(_default_comment(variant, quoted_enum=False))
        if trailing:
            out.append(" // " + " ".join(trailing))
        out.append("\n")
    out.append(f"{indent},\n")
    return "".join(out)


def _object(schema: dict[str, Any], indent: str) -> str:
    out = []
    desc = schema.get("description")
    if isinstance(desc, str):
        out.append(f"{indent}// {desc}\n")
    out.append("{\n")
    props = schema.get("properties")
    if isinstance(props, dict):
        req = schema.get("required")
        required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
        for key, val in props.items():
            title = _get(val, "title")
            if isinstance(title, str):
                out.append(f"{indent}// {title}\n{indent}//\n")
            has_one_of = _has(val, "oneOf")
            if not has_one_of:
                pdesc = _get(val, "description")
                if isinstance(pdesc, str):
                    out.append(f"{indent}// {pdesc}\n")
            examples = _get(val, "examples")
            if isinstance(examples, list) and examples:
                out.append(f"{indent}// Examples:\n")
                out.extend(f'{indent}// - "{ex}"\n' for ex in examples if isinstance(ex, str))
            if has_one_of and isinstance(val["oneOf"], list):
                out.append(_property_one_of(key, val, val["oneOf"], required, indent))
                continue
            out.append(f"{indent}{key}{'' if key in required else '?'}: ")
            out.append(_nullable(val, to_typescript(val, indent + "    ")))
            out.append(",")
            if not has_one_of and _has(val, "default"):
                out.append(f" // {_default_comment(val, quoted_enum=False)}")
            out.append("\n")
    out.append(f"{indent}}}")
    return "".join(out)


def to_typescript(schema: Any, indent: str = "") -> str:
    """The TypeScript-like type harmony writes for a JSON schema (module header)."""
    one_of = _get(schema, "oneOf")
    if isinstance(one_of, list):
        return _one_of(one_of, indent)
    ty = _get(schema, "type")
    if isinstance(ty, list):
        names = ["number" if t == "integer" else t for t in ty if isinstance(t, str)]
        if names:
            return " | ".join(names)
    if not isinstance(ty, str):
        return "any"
    if ty == "object":
        return _object(schema, indent)
    if ty == "string":
        values = schema.get("enum")
        if isinstance(values, list):
            quoted = [f'"{v}"' for v in values if isinstance(v, str)]
            if quoted:
                return " | ".join(quoted)
        return "string"
    if ty in ("number", "integer"):
        return "number"
    if ty == "boolean":
        return "boolean"
    if ty == "array":
        if "items" in schema:
            return f"{to_typescript(schema['items'], indent)}[]"
        return "Array<any>"
    return "any"


def tools_section(namespace: str, tools: Sequence[tuple[str, str, Any]]) -> str:
    """The ``# Tools`` section of one namespace: ``(name, description, parameters)`` per tool.

    ``parameters`` None renders ``() => any``. (harmony's ``template_tools_section`` with one
    namespace without a description, the only shape the chat API produces.)
    """
    lines = [f"## {namespace}\n"]
    if tools:
        lines.append(f"namespace {namespace} {{\n")
        for name, description, parameters in tools:
            lines.extend(f"// {line}" for line in rust_lines(description))
            if parameters is not None:
                lines.append(f"type {name} = (_: {to_typescript(parameters)}) => any;\n")
            else:
                lines.append(f"type {name} = () => any;\n")
        lines.append(f"}} // namespace {namespace}")
    return "# Tools\n\n" + "\n".join(lines)
