"""What DeepSeek's native chat encodings share (V3.2: :mod:`tito.core.render_dsv32`, V4:
:mod:`tito.core.render_dsv4`, V4.1: :mod:`tito.core.render_dsv41`): the special tokens, the
error type, how a value is written and joined, and DSML tool calls.

A call block is ``<｜DSML｜BLOCK>\\n`` INVOKE (``\\n`` INVOKE)* ``\\n</｜DSML｜BLOCK>``, an INVOKE
``<｜DSML｜invoke name="N">\\n`` PARAM (``\\n`` PARAM)* ``\\n</｜DSML｜invoke>``, a PARAM
``<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>``: a string argument as it
is (``string="true"``), any other value as JSON (``json.dumps`` spacing, unescaped). Names and keys
are written unescaped, as DeepSeek's encoders write them. The block's name is the encoding's
(V3.2: ``function_calls``, V4: ``tool_calls``; V4.1 names all three tags its own way).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ASSISTANT", "BOS", "DSML", "EOS", "THINK_END", "THINK_START", "USER",
           "DsEncodingError", "calls_block", "join", "last_user", "text", "to_json"]

BOS = "<｜begin▁of▁sentence｜>"
EOS = "<｜end▁of▁sentence｜>"
USER, ASSISTANT = "<｜User｜>", "<｜Assistant｜>"
THINK_START, THINK_END = "<think>", "</think>"
DSML = "｜DSML｜"


class DsEncodingError(ValueError):
    """A conversation a DeepSeek encoding refuses (vLLM answers 400 with these words)."""


def text(value: Any) -> str:
    """A value as DeepSeek's format strings write it (``str``: None is ``None``)."""
    return value if isinstance(value, str) else str(value)


def to_json(value: Any) -> str:
    """JSON with ``json.dumps``' spacing, non-ASCII unescaped (escaped when that fails)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return json.dumps(value, ensure_ascii=True)


def join(parts: Sequence[Any], sep: str = "\n\n") -> str:
    """``sep.join(parts)``, a part that is not text a :class:`DsEncodingError` in Python's words
    (DeepSeek's encoders join what the client sent: vLLM answers 400 with them)."""
    for index, part in enumerate(parts):
        if not isinstance(part, str):
            raise DsEncodingError(
                f"sequence item {index}: expected str instance, {type(part).__name__} found")
    return sep.join(parts)


def last_user(msgs: Sequence[Mapping[str, Any]]) -> int:
    """The index of the last user or developer message (-1: none)."""
    for index in range(len(msgs) - 1, -1, -1):
        if msgs[index].get("role") in ("user", "developer"):
            return index
    return -1


def calls_block(calls: Sequence[Mapping[str, Any]], block: str, invoke: str = "invoke",
                parameter: str = "parameter") -> str:
    """The DSML block of an assistant's ``calls`` (template-ready: arguments parsed, a string
    still read as JSON); arguments that are not a JSON object are a :class:`DsEncodingError`.
    The tags are the encoding's (V4.1's: `` calls``, `` invoke``, `` parameter``)."""
    invokes = []
    for call in calls:
        function = call["function"]
        args = function.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError as exc:
                raise DsEncodingError(f"tool call arguments are not JSON: {exc}") from None
        if not isinstance(args, Mapping):
            raise DsEncodingError("tool call arguments must be a JSON object")
        params = "\n".join(
            f'<{DSML}{parameter} name="{key}" string="{str(isinstance(value, str)).lower()}">'
            f"{value if isinstance(value, str) else to_json(value)}</{DSML}{parameter}>"
            for key, value in args.items())
        name = function.get("name")
        invokes.append(f'<{DSML}{invoke} name="{name}">\n{params}\n</{DSML}{invoke}>')
    return f"<{DSML}{block}>\n" + "\n".join(invokes) + f"\n</{DSML}{block}>"
