"""The HTTP rules both plain ASGI apps share: the JSON body guard, JSON answers, error answers.

Why a module of its own: the derender app (:mod:`tito.adapters.asgi`), the render app
(:mod:`tito.adapters.asgi_render`) and the FastAPI app (:mod:`tito.adapters.app`) apply one set
of rules to a request body (size as Lambda counts it, content type, a JSON object, no lone
surrogate) and answer errors in vLLM's shape; written once, here. Nothing here imports FastAPI
or Starlette. :mod:`tito.adapters.asgi` re-exports every name.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tito.adapters.payload import MAX_EVENT_BODY_BYTES, over_limit
from tito.adapters.splice import dump_json
from tito.errors import ErrorType, error_body, quote
from tito.settings import env_reader

__all__ = ["DEFAULT_MAX_BODY_BYTES", "STREAM_HINT", "JsonAnswer", "Receive", "Scope", "Send",
           "as_utf8", "error_answer", "internal_error", "lone_surrogate_path", "max_body_bytes",
           "read_json_body", "report_unhandled", "response_too_large", "surrogate_answer",
           "too_large"]

logger = logging.getLogger("tito")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: Largest accepted request or answer body, counted as Lambda counts a payload (JSON-escaped in
#: the event, :func:`tito.adapters.payload.event_bytes`): what fits Lambda's 6 MB with the rest of
#: the event; ``tito serve`` is bounded the same way (override with ``TITO_MAX_BODY_BYTES``).
DEFAULT_MAX_BODY_BYTES = MAX_EVENT_BODY_BYTES

_MAX_BODY = env_reader("TITO_MAX_BODY_BYTES")


def max_body_bytes() -> int:
    """``TITO_MAX_BODY_BYTES`` or the default (a bad value falls back to the default)."""
    value = _MAX_BODY()
    if value is None:
        return DEFAULT_MAX_BODY_BYTES
    try:
        return int(value)
    except ValueError:
        return DEFAULT_MAX_BODY_BYTES


# -- responses --------------------------------------------------------------------------------


class JsonAnswer:
    """A JSON response as bytes and a status; an ASGI app of its own (sends itself)."""

    __slots__ = ("body", "status")

    def __init__(self, content: Any, status: int = 200, *, float_free: bool = False) -> None:
        self.status = status
        self.body = dump_json(content, float_free=float_free)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({
            "type": "http.response.start",
            "status": self.status,
            "headers": [(b"content-length", str(len(self.body)).encode()),
                        (b"content-type", b"application/json")],
        })
        await send({"type": "http.response.body", "body": self.body})


def error_answer(message: str, *, type_: str, code: int, param: str | None = None) -> JsonAnswer:
    """An error body as a response with ``code`` as its status."""
    return JsonAnswer(error_body(message, type_=type_, code=code, param=param), code)


def too_large(limit: int) -> JsonAnswer:
    return error_answer(
        f"Request body too large: at most {limit} bytes are accepted, counted as the Lambda "
        "event carries the body (JSON-escaped; TITO_MAX_BODY_BYTES). "
        "A batch derender this large must be sent as streamed calls (\"stream\": true, the "
        "engine output split over several generate_chunks calls); tito.client and the gateway "
        "do that split themselves.",
        type_=ErrorType.TOO_LARGE,
        code=413,
    )


#: what a client can do about a derender answer over the limit
STREAM_HINT = ("Send this derender as streamed calls (\"stream\": true, a few thousand tokens "
               "per call); tito.client and the gateway do that split themselves.")


def response_too_large(size: int, limit: int, hint: str = STREAM_HINT) -> JsonAnswer:
    """413 for an answer over Lambda's synchronous payload limit (Lambda itself would fail the
    invocation and API Gateway answer a bare 502): say why and what to do instead (``hint``)."""
    return error_answer(
        f"Response too large: {size} bytes as Lambda counts it (JSON-escaped in the proxy "
        f"answer), over the {limit}-byte payload limit of this deployment (Lambda's 6 MB). "
        + hint,
        type_=ErrorType.TOO_LARGE,
        code=413,
    )


#: A ``\\uD800``-``\\uDFFF`` escape, or a surrogate's raw bytes (``ED A0-BF ..``: invalid UTF-8,
#: yet ``json.loads`` of bytes decodes them with ``surrogatepass``, as starlette's
#: ``request.json()`` does): the ways a JSON text can smuggle a lone surrogate into a Python
#: string. A match may still be a valid pair or an escaped backslash; :func:`lone_surrogate_path`
#: decides.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_path(body: bytes) -> str | None:
    """The dotted path of the first JSON string (value or key) holding a lone UTF-16 surrogate.

    Why at the edge: such a string cannot be encoded as UTF-8, so it breaks the tokenizer, the
    response's serialisation and even a log line quoting it. One C regex scan per body; the JSON
    is decoded again (and walked) only when a surrogate escape is present.
    """
    if not _SURROGATE_ESCAPE.search(body):
        return None
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the route's own parser reports it
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if _LONE_SURROGATE.search(value):
                return path or "body"
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                here = f"{path}.{key}" if path else str(key)
                if _LONE_SURROGATE.search(key):
                    return path or "body"
                stack.append((here, item))
        elif isinstance(value, list):
            stack.extend((f"{path}.{i}" if path else str(i), v)
                         for i, v in reversed(list(enumerate(value))))
    return None


async def read_json_body(scope: Scope, receive: Receive, *,
                         check_surrogates: bool = True) -> bytes | JsonAnswer | None:
    """The body of a POST, or the error answer the JSON body guard gives (None: disconnected).

    Rules (vLLM's, plus bounds): at most :func:`max_body_bytes` as the Lambda event carries it
    (413, :func:`tito.adapters.payload.over_limit`), content type
    ``application/json`` (400), a body that starts as a JSON object (400), no lone UTF-16
    surrogate escape in any string (400, :func:`surrogate_answer`). ``check_surrogates=False``:
    the caller applies that last rule itself (:class:`tito.adapters.asgi.DerenderApp`, only
    for a body orjson refuses: one it reads holds no lone surrogate). The headers are checked
    before the body is received (:func:`header_answer`), the body once all of it is here
    (:func:`body_answer`).
    """
    limit = max_body_bytes()
    answer = header_answer(scope, limit)
    if answer is not None:
        return answer
    message = await receive()
    if message["type"] == "http.disconnect":
        return None
    body = message.get("body", b"")
    if len(body) > limit:
        return too_large(limit)
    if message.get("more_body", False):
        parts, size, more = [body], len(body), True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return too_large(limit)
            parts.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(parts)
    body = as_utf8(body)
    answer = body_answer(body, limit, check_surrogates=check_surrogates)
    return body if answer is None else answer


def header_answer(scope: Scope, limit: int) -> JsonAnswer | None:
    """:func:`read_json_body`'s answer from the headers alone (a declared size over ``limit``,
    a content type other than JSON), or None."""
    headers = scope["headers"]
    table = dict(headers)
    names = b"".join(table)
    if names.lower() == names:  # lowercase names, as ASGI says: two lookups, the last one wins
        declared = table.get(b"content-length", b"")
        content_type = table.get(b"content-type", b"")
    else:
        declared = content_type = b""
        for key, value in headers:
            name = key.lower()
            if name == b"content-length":
                declared = value
            elif name == b"content-type":
                content_type = value
    return declared_answer(declared, content_type, limit)


def plain_header_answer(headers: dict[str, str], limit: int) -> JsonAnswer | None:
    """:func:`header_answer` of the scope Mangum builds from an HTTP API v2 event's ``headers``
    whose names are lowercase (each name and value UTF-8 encoded, in a list): read from the
    event's own dict (:meth:`tito.adapters.asgi.DerenderApp.respond_plain`)."""
    return declared_answer(headers.get("content-length", "").encode(),
                           headers.get("content-type", "").encode(), limit)


def declared_answer(declared: bytes, content_type: bytes, limit: int) -> JsonAnswer | None:
    """:func:`header_answer` from the two headers it reads (each ``b""`` when absent)."""
    if declared.isdigit() and int(declared) > limit:  # (bytes: ASCII digits only)
        return too_large(limit)
    if content_type != b"application/json" and content_type.decode("latin-1").split(
            ";", 1)[0].strip().lower() != "application/json":
        return error_answer(
            "1 validation error:\n  Unsupported Media Type: Only 'application/json' is allowed",
            type_=ErrorType.VALIDATION, code=400)
    return None


def as_utf8(body: bytes) -> bytes:
    """The body in UTF-8 when it is JSON in another encoding ``json.loads`` reads (as vLLM's
    FastAPI does): a UTF-8 byte-order mark, UTF-16 or UTF-32 (``json.detect_encoding``).

    Why: every later rule reads UTF-8 bytes. A UTF-16 body slipped past the lone-surrogate
    search (its escapes are not those bytes) and its lone surrogate failed deep in the render
    (a 500); a BOM failed the JSON-object test (a 400 where vLLM answers). The usual body
    starts with ``{`` and a byte that is not NUL: returned as it is, with no copy. A body its
    encoding cannot decode is returned as it is too (the guard or the parse refuses it)."""
    if body[:1] == b"{" and body[1:2] != b"\x00" or not body:
        return body
    encoding = json.detect_encoding(body)
    if encoding == "utf-8":
        return body
    try:
        return body.decode(encoding).encode("utf-8")
    except UnicodeError:
        return body


def body_answer(body: bytes, limit: int, *, check_surrogates: bool = True) -> JsonAnswer | None:
    """:func:`read_json_body`'s answer to the whole body (its size as the Lambda event carries
    it, a JSON object, no lone surrogate unless ``check_surrogates`` is False), or None."""
    if len(body) > limit or (2 * len(body) > limit and over_limit(body, limit)):
        return too_large(limit)  # (the first test: a body received in one part)
    if body[:1] != b"{" and not body.lstrip().startswith(b"{"):  # (no copy for the usual body)
        return error_answer("The request body must be a JSON object.",
                            type_=ErrorType.VALIDATION, code=400)
    if check_surrogates:
        return surrogate_answer(body)
    return None


def surrogate_answer(body: bytes) -> JsonAnswer | None:
    """The 400 for a body with a lone UTF-16 surrogate in a string (:func:`lone_surrogate_path`),
    or None."""
    bad = lone_surrogate_path(body)
    if bad is None:
        return None
    return error_answer(
        f"{quote(bad)} contains a lone UTF-16 surrogate escape (\\ud800-\\udfff), "
        "which is not valid Unicode text.",
        type_=ErrorType.BAD_REQUEST, code=400, param=bad,
    )


def report_unhandled(exc: BaseException, hooks: Sequence[Callable[[BaseException], None]]) -> None:
    """Log an unexpected error with its traceback and tell every hook (a broken hook is logged)."""
    logger.exception("unhandled error: %s", type(exc).__name__, exc_info=exc, stacklevel=2)
    for hook in hooks:
        try:
            hook(exc)
        except Exception:  # a broken hook must not turn a 500 into a crash
            logger.exception("on_unhandled hook failed")


def internal_error() -> JsonAnswer:
    return error_answer("Internal server error.", type_=ErrorType.INTERNAL, code=500)
