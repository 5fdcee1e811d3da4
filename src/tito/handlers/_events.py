"""The Lambda event check: what makes an event unusable as an API Gateway / Function URL event.

Why a module of its own: the handler (:mod:`tito.handlers._lambda`) runs it on every invocation
before Mangum maps the event; it is pure dict checking, apart from Mangum's plumbing
(:mod:`tito.handlers._mangum`).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

__all__ = ["event_problem", "plain_v2"]


#: keys that take an event off :func:`plain_v2`'s path: cookies and the maps besides its headers
_NOT_PLAIN = frozenset({"cookies", "multiValueHeaders", "queryStringParameters",
                        "multiValueQueryStringParameters"})


def event_problem(event: Any) -> str | None:
    """What makes ``event`` unusable as an API Gateway / Function URL event, or None.

    Why: Mangum raises (a 500 and an ``UnhandledError`` metric) on events it cannot map to a
    request; a malformed event is the caller's mistake, so it gets a 400. Checks only the fields
    Mangum reads, by type; cheap enough for every invocation. The usual event (HTTP API v2, no
    cookies, string headers, a text body) passes :func:`plain_v2` at once; any other gets
    every check.
    """
    if plain_v2(event):
        return None
    return _event_problem(event)


def plain_v2(event: Any) -> bool:
    """Is ``event`` an HTTP API v2 event :func:`_event_problem` certainly finds no problem in:
    exact dicts, string headers, no cookies, no other maps, a text body not base64? (False
    only says: check it all.)"""
    if event.__class__ is not dict:
        return False
    get = event.get
    context, headers, body = get("requestContext"), get("headers"), get("body")
    if (get("version") != "2.0" or context.__class__ is not dict or headers.__class__ is not dict
            or (body is not None and body.__class__ is not str)
            or get("isBase64Encoded", False) is not False or not _NOT_PLAIN.isdisjoint(event)):
        return False
    http = context.get("http")
    if http.__class__ is not dict:
        return False
    try:  # strings only, checked at C speed
        "".join((http["method"], http["path"], http["sourceIp"], get("rawPath", ""),
                 get("rawQueryString", "")))
        "".join(headers)
        "".join(headers.values())
    except (KeyError, TypeError):
        return False
    return True


def _event_problem(event: Any) -> str | None:
    """:func:`event_problem`'s every check."""
    if not isinstance(event, dict):
        return "the Lambda event must be a JSON object"
    if not isinstance(event.get("requestContext"), dict):
        return "the Lambda event has no requestContext object (not an API Gateway event)"
    if event.get("version") == "2.0" or "rawPath" in event:
        http = event["requestContext"].get("http")
        if not isinstance(http, dict):
            return "requestContext.http must be an object"
        for key in ("method", "path", "sourceIp"):  # what Mangum's scope reads of it
            if not isinstance(http.get(key), str):
                return f"requestContext.http.{key} must be a string"
        for key in ("rawPath", "rawQueryString"):
            if not isinstance(event.get(key, ""), str):
                return f"{key} must be a string"
        cookies = event.get("cookies", [])
        if not isinstance(cookies, list) or not all(isinstance(c, str) for c in cookies):
            return "cookies must be a list of strings"
    elif not isinstance(event.get("httpMethod"), str) or not isinstance(event.get("path"), str):
        return "the Lambda event has neither version 2.0 fields nor httpMethod and path"
    for key in ("headers", "multiValueHeaders", "queryStringParameters",
                "multiValueQueryStringParameters"):
        value = event.get(key, {})
        if key == "headers" and value is None:
            return "headers must be an object, not null"
        if value is not None and not isinstance(value, dict):
            return f"{key} must be an object"
        if not value:
            continue
        try:  # strings only (the usual case), checked at C speed
            "".join(value)
            "".join(value.values())
            continue
        except TypeError:
            pass
        for k, v in value.items():
            ok = isinstance(v, str) or (key.startswith("multi") and isinstance(v, list)
                                        and all(isinstance(x, str) for x in v))
            if not isinstance(k, str) or not ok:
                return f"{key} must map strings to strings"
    body = event.get("body")
    if body is not None and not isinstance(body, str):
        return "body must be a string or null"
    if not isinstance(event.get("isBase64Encoded", False), bool):
        return "isBase64Encoded must be a boolean"
    if body and event.get("isBase64Encoded"):
        try:
            base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return "body is not valid base64 (isBase64Encoded is true)"
    return None
