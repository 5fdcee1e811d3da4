"""Typed errors shared by every layer.

Why one module: the core (sans-I/O) raises these, the FastAPI adapter turns them into vLLM's
error shape ``{"error": {"message", "type", "param", "code"}}``. Nothing here imports HTTP code.
"""

from __future__ import annotations

import re
from typing import Any

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


class ErrorType:
    """The one vocabulary of error ``type`` names, vLLM 0.33's: errors raised by request handling
    and by request validators (vLLM's ``VLLMValidationError``) carry an exception-class name;
    errors of the HTTP layer (schema validation of the body, content type, size, routing) carry
    the HTTP status phrase, as vLLM's FastAPI handlers do."""

    BAD_REQUEST = "BadRequestError"  #: 400, a request (or validator) rule
    VALIDATION = "Bad Request"  #: 400, the body does not fit the schema (pydantic)
    NOT_FOUND = "NotFoundError"  #: 404, unknown model
    NOT_IMPLEMENTED = "NotImplementedError"  #: 501
    INTERNAL = "InternalServerError"  #: 500
    BAD_GATEWAY = "BadGatewayError"  #: 502, an upstream stage failed (gateway, client, replay)
    ROUTE_NOT_FOUND = "Not Found"  #: 404, no such route
    METHOD_NOT_ALLOWED = "Method Not Allowed"  #: 405
    TOO_LARGE = "Request Entity Too Large"  #: 413


def error_body(message: str, *, type_: str, code: int, param: str | None = None) -> dict[str, Any]:
    """vLLM's (and OpenAI's) error body ``{"error": {message, type, param, code}}``; ``code`` is
    the HTTP status, object addresses are stripped from the message as vLLM does."""
    return {
        "error": {"message": _ADDRESS.sub(">", message), "type": type_, "param": param, "code": code}
    }


#: Longest quotation of client input inside an error message (characters, before escaping).
QUOTE_LIMIT = 64


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """Client input as an error message may quote it: at most ``limit`` characters, with control,
    format (bidi overrides, zero-width), separator and surrogate characters escaped the way
    ``repr`` escapes them, and the length said when it was cut.

    Why: an error echoing a 100 KB model name, a terminal escape or an RTL override is a log and
    UI injection vector; the message must still name what was wrong.
    """
    text = value if isinstance(value, str) else repr(value)
    cut = len(text) > limit
    shown = repr(text[:limit])[1:-1]
    return f"{shown}... ({len(text)} characters)" if cut else shown


class TitoError(Exception):
    """Base error: carries the HTTP status and OpenAI error ``type`` it maps to."""

    status: int = 400
    type: str = ErrorType.BAD_REQUEST

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class BadRequest(TitoError):
    """The request (body, state or engine payload) is invalid: 400."""


class SchemaError(BadRequest):
    """A value that does not fit the request's schema, found after the body's own validation
    (tokenize checks its messages as a chat request's): vLLM's FastAPI ``Bad Request``."""

    type = ErrorType.VALIDATION


class RequestRule(BadRequest):
    """A rule vLLM 0.33 checks on the raw body before its schema (its ``VLLMValidationError``
    in a ``mode="before"`` validator): raised inside a request model's validation, it is no
    ``ValueError``, so pydantic does not collect it and it wins over any schema error of the
    body, as in vLLM (:mod:`tito.protocol.raw_rules`)."""


class InvalidRequest(BadRequest):
    """A 400 of OpenAI's own ``invalid_request_error`` type (vLLM uses it for requests the
    endpoint cannot serve by design, e.g. ``previous_response_id`` on a stateless render)."""

    type = "invalid_request_error"


class NotFound(TitoError):
    """An unknown model or resource: 404."""

    status = 404
    type = ErrorType.NOT_FOUND


class NotImplementedFeature(TitoError):
    """A valid request tito does not support: 501."""

    status = 501
    type = ErrorType.NOT_IMPLEMENTED


class InvalidField(ValueError):
    """Raised inside a pydantic validator to name the offending field (vLLM's
    ``VLLMValidationError``): the app reports ``param`` instead of the validator's location."""

    def __init__(self, message: str, *, param: str | None) -> None:
        super().__init__(message)
        self.param = param


def tool_not_in_tools(name: object, param: str | None = None) -> BadRequest:
    """vLLM 0.33's 400 for a named tool choice missing from ``tools`` where a structural tag
    looks it up (xgrammar's words)."""
    return BadRequest(f"The tool with name '{name}' is not found in the tools list.",
                      param=param)


def tool_not_passed(name: object) -> BadRequest:
    """vLLM 0.33's 400 for the same where the calls' JSON schema looks it up
    (``get_json_schema_from_tools``)."""
    return BadRequest(f"Tool '{name}' has not been passed in `tools`.")
