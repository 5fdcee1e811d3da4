"""JSON answers with pre-encoded parts spliced in: :func:`dump_json`.

Why: the largest part of a batch derender answer, its logprob entries, is already JSON text when
it is made (:class:`tito.core.logprobs.Resolved`, written from per-token fragments); parsing it
into dicts only to have ``json.dumps`` write it again was most of the answer's cost. Any value
with a ``json_bytes()`` method (its JSON as UTF-8; or ``json_text()``, its JSON) is such a part:
``json.dumps`` meets it as an unknown object and asks its ``default`` hook, which stands a
placeholder string in for it; the answer is then written as bytes, the placeholders replaced by
the parts' bytes (never one text of them all: with one emoji in it, a text is four bytes a
character). A placeholder holds a random nonce drawn per answer, so no string a request sends can
be taken for one.

An answer known to hold no float (``float_free``: the streamed chunk's answer of the hand-checked
path, :func:`tito.service.stream_body.read`) is written by orjson when it is installed (a declared
dependency), ~10x faster than ``json`` on such an answer and with the same bytes: orjson writes
every JSON type as ``json.dumps(ensure_ascii=False, separators=(",", ":"))`` does except floats
(``1e-05`` is ``0.00001`` there). Anything it does not write natively goes to ``json``
(``tests/test_json_codec.py`` compares the two on arbitrary float-free values).

An answer that may hold floats but rarely an odd one (``checked_floats``: a render's engine
request, whose floats are sampling parameters such as ``0.6``) is written by orjson too, and its
bytes are kept when no float in them can be one ``json`` writes otherwise. The two agree on every
finite float in [1e-4, 1e16) (both write the shortest text that reads back as the same float, in
positional notation); outside it ``json`` writes an exponent (``1e-05``, ``1e+16``) and orjson
writes ``0.00001``, ``1e-7`` or ``1e16``. So orjson's text is kept unless a number in it (what
follows a ``:``, ``[`` or ``,`` in compact JSON) has an exponent or starts ``0.0000``
(:func:`_odd_float`; a string holding such text only costs a second, ``json``, pass). Non-finite
floats are ``null`` either way (pydantic's JSON mode, below), at any depth: vLLM 0.33's render
server answers 400 (``Out of range float values are not JSON compliant``) for one nested past
orjson's 254 levels, where its fallback ``JSONResponse`` refuses it; tito writes ``null`` there
too (docs/conformance.md, deviations).
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from typing import Any

from tito.errors import BadRequest

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; ``json`` alone writes the same bytes
    orjson = None  # type: ignore[assignment]

__all__ = ["dump_json"]

#: The 400 for an answer ``json`` cannot write for its nesting (vLLM 0.33's render answers 500:
#: its ``JSONResponse`` fallback recurses past the interpreter's limit)
_TOO_DEEP = ("The answer repeats a request value (tools, response_format, structured_outputs, "
             "kv_transfer_params) nested too deeply to be written as JSON: send it less nested.")


class _Parts:
    """The pre-encoded parts met while writing one answer, and their placeholders."""

    __slots__ = ("nonce", "parts")

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.nonce = os.urandom(8).hex()

    def placeholder(self, value: Any) -> str:
        write = getattr(value, "json_bytes", None)
        self.parts.append(write() if write is not None else value.json_text().encode("utf-8"))
        return f"\x00{self.nonce}:{len(self.parts) - 1}"

    def fill(self, text: str) -> bytes:
        """``text`` as UTF-8 with every placeholder (a JSON string) replaced by its part."""
        head, *rest = text.split(f'"\\u0000{self.nonce}:')
        out = [head.encode("utf-8")]
        for piece in rest:
            index, after = piece.split('"', 1)
            out.append(self.parts[int(index)])
            out.append(after.encode("utf-8"))
        return b"".join(out)


def _is_part(value: Any) -> bool:
    return hasattr(value, "json_bytes") or hasattr(value, "json_text")


#: The parts of the answer being written on this thread (None until one is met).
_writing = threading.local()


def _default(value: Any) -> str:
    """``json.dumps``'s hook: a placeholder for a pre-encoded part, else the usual error."""
    if not _is_part(value):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    parts = _writing.parts
    if parts is None:
        parts = _writing.parts = _Parts()
    return parts.placeholder(value)


#: ``json.dumps(ensure_ascii=False, allow_nan=False, separators=(",", ":"))``'s encoder with the
#: hook, built once: ``json.dumps`` with options builds a new one per call (a third of a small
#: answer's time).
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"),
                            default=_default)


def _jsonable(value: Any) -> Any:
    """``value`` with its pre-encoded parts replaced by placeholders and its non-finite floats
    by None (``null``, as pydantic's JSON mode and vLLM's orjson write them). An explicit stack:
    a request can nest a value as deep as the body parser allows (tool parameters echoed in
    ``parse_context``), past the interpreter's recursion limit for a recursive walk."""
    root: list[Any] = [None]
    todo: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while todo:
        parent, key, item = todo.pop()
        if isinstance(item, dict):
            parent[key] = new = dict.fromkeys(item)
            todo.extend((new, k, v) for k, v in item.items())
        elif isinstance(item, list | tuple):
            parent[key] = new = [None] * len(item)
            todo.extend((new, i, v) for i, v in enumerate(item))
        elif isinstance(item, float) and not math.isfinite(item):
            parent[key] = None
        else:
            parent[key] = _default(item) if _is_part(item) else item
    return root[0]


#: Only exact JSON types are orjson's to write: dataclasses, datetimes, subclasses of str, int,
#: dict and list (and pre-encoded parts) make it fail, and ``json`` writes them.
_ORJSON_OPTIONS = (orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
                   | orjson.OPT_PASSTHROUGH_SUBCLASS) if orjson is not None else 0


#: An ``e`` after a digit and before an exponent's digits that end where a number ends (``,``,
#: ``]`` or ``}``): where a number with an exponent may be (orjson writes ``e``, never ``E``, and
#: at most three exponent digits). Written ``e`` first, so the scan runs at C speed to each
#: ``e``; the lookahead passes over the hex of ids (``chatcmpl-…83e6"``), which the
#: lookbehind alone took for candidates.
_E_AFTER_DIGIT = re.compile(rb"e(?<=[0-9]e)(?=[-+]?[0-9]{1,3}[,\]}])")
#: The text before such an ``e`` when it is a number's: ``:``, ``[`` or ``,``, then a mantissa
#: (at most 17 digits, a point and a sign in orjson's output)
_NUMBER_BEFORE_E = re.compile(rb"[:\[,]-?[0-9][0-9.]{0,20}\Z")
#: More candidates than this in one answer: not worth looking at each, ``json`` writes it
_MAX_CANDIDATES = 16


def _odd_float(out: bytes) -> bool:
    """Can a number in orjson's compact output ``out`` be written otherwise by ``json``? (One
    with an exponent, or below 1e-4, see the module header.) True may be a false alarm (a string
    holding such text); False is certain."""
    if b"0.0000" in out:
        return True
    for count, match in enumerate(_E_AFTER_DIGIT.finditer(out)):
        at = match.start()
        if count == _MAX_CANDIDATES or _NUMBER_BEFORE_E.search(out, max(0, at - 22), at):
            return True
    return False


def dump_json(content: Any, *, float_free: bool = False, checked_floats: bool = False) -> bytes:
    """The bytes FastAPI's ``JSONResponse`` writes for ``content`` (compact, UTF-8, no NaN),
    pre-encoded parts spliced in.

    Values plain JSON cannot hold are written as FastAPI's response serialization (pydantic's
    JSON mode) writes them: non-finite floats (an engine's logprobs, a request's ``NaN`` echoed)
    as ``null`` at any depth (:func:`_jsonable`), any other type by pydantic. ``float_free``: the
    caller knows ``content`` holds no float, so orjson may write it (see the module header).
    ``checked_floats``: orjson writes it, and its bytes are kept when no float in them could
    differ from ``json``'s (:func:`_odd_float`), else ``json`` writes it.
    """
    if (float_free or checked_floats) and orjson is not None:
        try:
            out = orjson.dumps(content, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError too: not for orjson, ``json`` decides
            pass
        else:
            if float_free or (out[:1] in (b"{", b"[") and not _odd_float(out)):
                return out
    _writing.parts = None
    try:
        try:
            text = _ENCODER.encode(content)
        except (TypeError, ValueError):
            _writing.parts = None
            content = _jsonable(content)
            try:
                text = _ENCODER.encode(content)
            except TypeError:  # a value JSON has no type for: pydantic's JSON mode writes it
                from pydantic import TypeAdapter

                text = _ENCODER.encode(TypeAdapter(Any).dump_python(content, mode="json"))
    except RecursionError:  # an answer repeating a value nested near the body parser's limit
        _writing.parts = None
        raise BadRequest(_TOO_DEEP) from None
    parts, _writing.parts = _writing.parts, None
    return text.encode("utf-8") if parts is None else parts.fill(text)
