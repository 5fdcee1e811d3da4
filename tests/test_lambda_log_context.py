"""The Lambda handlers' logger context equals Powertools' ``inject_lambda_context`` decorator's.

Why: ``tito.handlers._lambda`` sets the keys that ``Logger.inject_lambda_context(clear_state=
True)`` plus ``set_correlation_id`` would set, in one pass (the decorator costs more than a
streamed chunk's core step). The reference is the decorator itself around the same function:
the same keys in the same order, and the same log records (cold then warm invocation, keys a
previous invocation appended cleared, a durable context), time stamps aside.
"""

from __future__ import annotations

import io
import json
import logging
from types import SimpleNamespace
from typing import Any

import pytest
from lambda_support import reset_powertools_state

from tito.handlers import _lambda
from tito.handlers._lambda import correlation_id, logger


def _function(event: Any, context: Any) -> dict[str, Any]:
    logger.info("inside", extra={"n": 1})
    logging.getLogger("tito.test").warning("stdlib record")
    logger.append_keys(left_behind="x")  # the next invocation must not see it
    return {"statusCode": 200}


def _reference(event: Any, context: Any) -> dict[str, Any]:
    logger.set_correlation_id(correlation_id(event))
    return _function(event, context)


def _records(stream: io.StringIO) -> list[dict[str, Any]]:
    out = []
    for line in stream.getvalue().splitlines():
        record = json.loads(line)
        record.pop("timestamp", None)
        out.append(record)
    stream.seek(0)
    stream.truncate()
    return out


def _run(handler: Any, stream: io.StringIO, lambda_context: Any) -> list[Any]:
    reset_powertools_state()
    seen = []
    events = [{"requestContext": {"requestId": rid}} for rid in ("first-id", "second-id")]
    events.append({"requestContext": {}})  # no request id: correlation_id null
    durable = SimpleNamespace(state=object(), lambda_context=lambda_context)
    for event, context in zip(events, [lambda_context, lambda_context, durable], strict=True):
        assert handler(event, context) == {"statusCode": 200}
        seen.append((list(logger.get_current_keys().items()), _records(stream)))
    return seen


def test_lean_log_context_equals_the_decorator(log_stream: io.StringIO,
                                               lambda_context: Any) -> None:
    lean = _lambda._with_log_context(_function)
    assert lean.__wrapped__ is _function  # the lean path (no optional feature configured)
    decorated = logger.inject_lambda_context(clear_state=True)(_reference)
    expected = _run(decorated, log_stream, lambda_context)
    assert _run(lean, log_stream, lambda_context) == expected
    first, second = expected[0][1][0], expected[1][1][0]  # the "inside" records
    assert first["cold_start"] is True and first["correlation_id"] == "first-id"
    assert second["cold_start"] is False and second["correlation_id"] == "second-id"
    assert "left_behind" not in second
    assert second["function_request_id"] == lambda_context.aws_request_id


def test_optional_features_keep_the_decorator(monkeypatch: pytest.MonkeyPatch,
                                              log_stream: io.StringIO,
                                              lambda_context: Any) -> None:
    """With event logging on (POWERTOOLS_LOGGER_LOG_EVENT), the decorator runs and logs it."""
    monkeypatch.setenv("POWERTOOLS_LOGGER_LOG_EVENT", "true")
    handler = _lambda._with_log_context(_function)
    reset_powertools_state()
    handler({"requestContext": {"requestId": "r"}, "marker": 7}, lambda_context)
    records = _records(log_stream)
    assert any(isinstance(r["message"], dict) and r["message"].get("marker") == 7
               for r in records)
    inside = [r for r in records if r["message"] == "inside"]
    assert inside and all(r["correlation_id"] == "r" for r in inside)


def test_a_powertools_without_the_private_members_keeps_the_decorator(
        monkeypatch: pytest.MonkeyPatch, log_stream: io.StringIO, lambda_context: Any) -> None:
    """Another Powertools release may rename what the lean path reads: then the decorator runs,
    with the same records."""
    monkeypatch.delattr(_lambda.powertools_logger, "_is_cold_start")
    handler = _lambda._with_log_context(_function)
    assert handler.__code__.co_name != "lean"  # the decorator's wrapper, not the lean path
    decorated = logger.inject_lambda_context(clear_state=True)(_reference)
    monkeypatch.undo()  # the decorator itself needs the flag
    assert _run(handler, log_stream, lambda_context) == _run(decorated, log_stream,
                                                             lambda_context)
