"""Request bodies parsed and validated as FastAPI does, with FastAPI's error messages.

Why a module of its own: the plain ASGI apps (:mod:`tito.adapters.asgi`, ``asgi_render``) and the
FastAPI app (:mod:`tito.adapters.app`) must report a bad body identically (status, ``type``,
``message``, ``param``), so the rules are written once, here: a body that is not JSON or not
UTF-8, pydantic's errors as one message (a count, then one line per error, at most ten) and
their ``param`` (a request validator's named field, else the first location without pydantic's
union/tag segments).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tito.errors import ErrorType, InvalidField, TitoError

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; without it every body is ``json``'s
    orjson = None  # type: ignore[assignment]

__all__ = ["loc_to_param", "parse_body", "parse_fast", "validate_body", "validation_message",
           "validation_param", "validator_error"]

_MAX_ERRORS = 10


#: pydantic-core's wrapper / union-branch markers: not field names (vLLM's list)
_INTERNAL_LOC = frozenset({
    "function-wrap", "function-after", "function-before", "function-plain", "json-or-python",
    "lax-or-strict", "chain", "default", "nullable", "tagged-union", "union", "call",
    "arguments", "is-instance", "is-subclass", "callable", "str", "int", "float", "bool",
    "bytes", "bytearray", "list", "tuple", "dict", "set", "frozenset", "complex", "none",
    "nonetype",
})
_UNION_MEMBERS = frozenset({"DerenderChatRequest", "DerenderChatStreamRequest",
                            "DerenderCompletionRequest", "DerenderCompletionStreamRequest",
                            "DerenderResponsesRequest", "DerenderResponsesStreamRequest"})


#: union members vLLM's locations do not name (its tokenize route's: ``body.prompt``)
_UNNAMED_MEMBERS = frozenset({"TokenizeCompletionRequest", "TokenizeChatRequest"})


def loc_to_param(loc: Iterable[Any]) -> str | None:
    """Dotted location without pydantic's union/tag segments
    (``body.generate_response.choices.0``)."""
    parts: list[str] = []
    for seg in loc:
        s = str(seg)
        if isinstance(seg, str) and (
            any(c in s for c in "[](){}") or s.lower() in _INTERNAL_LOC or s in _UNION_MEMBERS
            or s in _UNNAMED_MEMBERS
        ):
            continue
        parts.append(s)
    return ".".join(parts) or None


def validator_error(errors: list[dict[str, Any]]) -> InvalidField | None:
    """The first error raised by a request validator naming its field (vLLM's
    ``VLLMValidationError``): such errors are reported as themselves, not as schema errors."""
    for err in errors:
        found = (err.get("ctx") or {}).get("error")
        if isinstance(found, InvalidField):
            return found
    return None


def validation_message(errors: list[dict[str, Any]]) -> str:
    """pydantic errors as one message, as vLLM 0.33's ``validation_exception_handler`` writes
    it: a count, then each error (at most ten, then ``...and N more errors``) as the ``str`` of
    its dict with the location joined (pydantic's wrapper segments left out) and the input summarised
    (:func:`_summarize_input`), each cut at 1,000 characters; addresses and paths scrubbed
    (vLLM's ``sanitize_message``). Why vLLM's text to the character: a client that reads the
    message (or a log diff between the two servers) sees the same answer."""
    n = len(errors)
    label = "error" if n == 1 else "errors"
    shown = errors[:_MAX_ERRORS]
    message = f"{n} validation {label}:\n" + "".join(f"  {_format_error(e)}\n" for e in shown)
    if n > len(shown):
        message += f"  ...and {n - len(shown)} more {label}\n"
    return _sanitize(message.rstrip()) if errors else "Validation error"


def _format_error(err: dict[str, Any]) -> str:
    """One error as vLLM's ``_format_error`` writes it (``str`` of the dict, bounded)."""
    err = dict(err)
    if "input" in err:
        err["input"] = _summarize_input(err["input"])
    loc = err.get("loc")
    if isinstance(loc, (tuple, list)):  # (vLLM's clean_loc_for_param: union members kept)
        kept = [str(p) for p in loc if not (isinstance(p, str) and (
            any(c in p for c in "[](){}") or p.lower() in _INTERNAL_LOC
            or p in _UNNAMED_MEMBERS))]
        err["loc"] = ".".join(kept or [str(p) for p in loc])
    text = str(err)
    return text[:1000] + "...[truncated]" if len(text) > 1000 else text


def _summarize_input(value: object) -> object:
    """vLLM's ``_summarize_error_input``: a string cut at 200 characters, a container or bytes
    described by its size (never rendered: a large body's input repeats in every error), any
    other value as its ``str``."""
    if isinstance(value, str):
        return value[:200] + "...[truncated]" if len(value) > 200 else value
    if isinstance(value, (bytes, bytearray)):
        return f"<{type(value).__name__} of {len(value)} bytes>"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return f"<{type(value).__name__} of {len(value)} items>"
    try:
        text = str(value)
    except Exception:  # (an int past the interpreter's digit limit)
        return f"<{type(value).__name__}>"
    return text[:200] + "...[truncated]" if len(text) > 200 else text


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")
_TRACE = re.compile(r'\n?\s*File "[^"]+", line \d+, in \S+(\n\s+.*)?')
_ROOTED = re.compile(r"/(?:home|usr|opt|var|tmp|root|lib|mnt|srv)(?:/[\w.\-]+)+")
_PATH = re.compile(r"(?:/[\w\-]+)+/[\w\-]+\.\w+")


def _sanitize(message: str) -> str:
    """vLLM's ``sanitize_message``: memory addresses, traceback lines and file paths out."""
    message = _ADDRESS.sub(">", message)
    message = _TRACE.sub("", message)
    message = _ROOTED.sub("<path>", message)
    return _PATH.sub("<path>", message).strip()


def validation_param(errors: list[dict[str, Any]]) -> str | None:
    """The ``param`` of a validation error: a validator's named field, else the first location."""
    if not errors:
        return None
    ctx = errors[0].get("ctx") or {}
    param = getattr(ctx.get("error"), "param", None)
    if isinstance(param, str) and param:
        return param
    return loc_to_param(errors[0].get("loc", ()))


def parse_fast(body: bytes) -> Any:
    """The body's JSON as orjson reads it (~3x faster than ``json``), or None when it refuses it
    (or is not installed): for a fast path that takes only float-free data.

    Why float-free only: orjson reads every JSON value as ``json.loads`` does except numbers it
    turns into floats that ``json`` keeps as integers (past 64 bits), and it refuses some texts
    ``json`` takes (``NaN``, a lone surrogate escape). A fast path that accepts no float where it
    reads the data (:func:`tito.service.stream_body.read`) therefore sees exactly ``json``'s values;
    anything else is parsed again by :func:`parse_body` (``tests/test_json_codec.py``).
    """
    if orjson is None:
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


#: digits -> ``0``, every other byte -> a space: a run of :data:`_LONG_RUN` in a body so mapped
#: is a run of that many digits in the body
_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
#: the shortest integer literal orjson may read as a float (past 64 bits: 19 digits and up)
_LONG_RUN = b"0" * 19


def parse_body(body: bytes) -> Any:
    """The body's JSON as ``json.loads`` reads it, with FastAPI's errors for a body that is not
    JSON or not UTF-8.

    Why orjson first: a batch derender's body is megabytes of logprob entries, and ``json.loads``
    of it took ~25 ms at 8k tokens (~170 ms at 32k), orjson ~3x less. orjson reads every JSON
    value as ``json`` does (the same strings, integers, correctly rounded floats, the last of
    duplicate keys at the first one's place) except two things, and both go to ``json``: what it
    refuses (``NaN``/``Infinity``, a float past the double range, a lone surrogate escape, bytes
    that are not UTF-8, nesting past 1,024; ``json``'s value or error then decides), and integers
    past 64 bits, which it reads as floats: a body with a run of 19 digits anywhere (any such
    integer has one; found at C speed, ~2 ms for 2 MB) is read by ``json``
    (``tests/test_json_codec.py`` compares both readers).
    """
    if orjson is not None and body.translate(_DIGITS).find(_LONG_RUN) < 0:
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass  # json's value, or its error
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        errors: list[dict[str, Any]] = [{
            "type": "json_invalid", "loc": ("body", exc.pos), "msg": "JSON decode error",
            "input": {}, "ctx": {"error": exc.msg},
        }]
        raise _Invalid(errors) from None
    except (ValueError, RecursionError):  # not UTF-8, or nested past the interpreter's
        raise _BadBody() from None          # stack: FastAPI's "error parsing the body"


def validate_body(adapter: Any, data: Any) -> Any:
    """The parsed body validated as FastAPI does (same errors, located under ``body``).
    Validation that runs out of stack (a value nested near orjson's 1,024 levels, which an
    error message then quotes: a Responses tool whose ``type`` is 990 levels deep, fuzz_hard
    seed 340 case 1993, was a 500) is FastAPI's "error parsing the body": its ``json.loads``
    runs out of stack on such a body before it validates anything."""
    from pydantic import ValidationError

    try:
        return adapter.validate_python(data, from_attributes=True)
    except ValidationError as exc:
        errors = [{**err, "loc": ("body", *err["loc"])} for err in exc.errors(include_url=False)]
        raise _Invalid(errors) from None
    except RecursionError:
        raise _BadBody() from None


class _Invalid(TitoError):
    """A body that failed validation, reported as the FastAPI app reports it: a request
    validator's own rule as ``BadRequestError`` with its message and param, a schema error as
    ``Bad Request`` with the list of errors."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        rule = validator_error(errors)
        if rule is not None:
            super().__init__(str(rule), param=rule.param)
            self.type = ErrorType.BAD_REQUEST
        else:
            super().__init__(validation_message(errors), param=validation_param(errors))
            self.type = ErrorType.VALIDATION


class _BadBody(TitoError):
    """A body that is not UTF-8: Starlette's 400 (its type is the status phrase)."""

    type = ErrorType.VALIDATION

    def __init__(self) -> None:
        super().__init__("There was an error parsing the body")
