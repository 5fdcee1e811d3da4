"""Powertools' logger context and EMF metrics per invocation, the cheap way.

Why a module of its own: :mod:`tito.handlers._lambda` assembles a function's handler; these are
its two Powertools parts (the logger's per-invocation keys with the correlation id, the
invocation's EMF record), each costing a streamed derender chunk more than its core step when
done through Powertools' decorators, so done here in one pass with the decorators' exact output
(``tests/test_lambda_log_context.py``, ``tests/test_handlers.py``).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import formatter as powertools_formatter
from aws_lambda_powertools.logging import logger as powertools_logger
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.functions import is_metrics_disabled
from aws_lambda_powertools.metrics.provider import cold_start as cold_start_flag
from aws_lambda_powertools.shared import constants as powertools_constants
from aws_lambda_powertools.shared.functions import (
    is_durable_context,
    resolve_truthy_env_var_choice,
)

from tito.settings import env_reader

__all__ = ["NAMESPACE", "SERVICE", "correlation_id", "logger", "metrics"]

SERVICE = os.getenv("POWERTOOLS_SERVICE_NAME") or "tito"
NAMESPACE = os.getenv("POWERTOOLS_METRICS_NAMESPACE") or "Tito"

#: Module-level so every handler in a process (tests, ``tito serve``) shares one configuration;
#: Powertools keeps the metric set process-wide anyway.
logger = Logger(service=SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)
def correlation_id(event: Any) -> str | None:
    """The API Gateway request id (Powertools' ``correlation_paths.API_GATEWAY_HTTP``,
    ``requestContext.requestId``), read directly: Powertools' JMESPath lookup costs ~80 us per
    invocation, more than the rest of a streamed derender call's logging and metrics together."""
    if not isinstance(event, dict):
        return None
    ctx = event.get("requestContext")
    value = ctx.get("requestId") if isinstance(ctx, dict) else None
    return value if isinstance(value, str) else None


#: (endpoint, client error) -> the invocation's EMF record as Powertools serializes it, split
#: around its timestamp (see :func:`_emit_metrics`)
_EMF_TEMPLATES: dict[tuple[str, bool], tuple[str, str]] = {}
_TIMESTAMP_MARK = 1234567890123


def _emit_metrics(endpoint: str, client_error: bool, context: Any) -> None:
    """The invocation's metrics: ``ColdStart`` on the first one, then one EMF record with
    ``Requests`` (and ``ClientErrors`` for a 4xx) under the ``endpoint`` dimension.

    Why not ``Metrics.log_metrics`` per call: adding two metrics and serializing the record
    through Powertools costs ~30 us, as much as a streamed chunk's derender work. Powertools
    still writes every record: the first one of each shape is serialized by it and kept as a
    template, later ones only get a new timestamp. An invocation that added metrics of its own
    (``UnhandledError``) is flushed by Powertools itself.
    """
    if cold_start_flag.is_cold_start:
        metrics.provider.add_cold_start_metric(context=context)  # its own record (log_metrics)
        cold_start_flag.is_cold_start = False
    key = (endpoint, client_error)
    template = _EMF_TEMPLATES.get(key)
    if template is None or metrics.metric_set or metrics.dimension_set:
        metrics.add_dimension(name="endpoint", value=endpoint)
        metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
        if client_error:
            metrics.add_metric(name="ClientErrors", unit=MetricUnit.Count, value=1)
        if template is None and len(metrics.metric_set) == 1 + client_error:
            record = metrics.serialize_metric_set()
            record["_aws"]["Timestamp"] = _TIMESTAMP_MARK
            head, _, tail = json.dumps(record, separators=(",", ":")).partition(
                str(_TIMESTAMP_MARK))
            _EMF_TEMPLATES[key] = (head, tail)
        metrics.flush_metrics()
        return
    if not _metrics_disabled():  # (print's line, in one write)
        sys.stdout.write(f"{template[0]}{int(time.time() * 1000)}{template[1]}\n")


_METRICS_DISABLED = env_reader(powertools_constants.METRICS_DISABLED_ENV)
_POWERTOOLS_DEV = env_reader(powertools_constants.POWERTOOLS_DEV_ENV)


def _metrics_disabled() -> bool:
    """Powertools' ``is_metrics_disabled`` (``POWERTOOLS_METRICS_DISABLED``, ``POWERTOOLS_DEV``),
    asked only when one of its two variables is set: when neither is, it says False, and its
    three environment reads (:func:`tito.settings.env_reader`) cost more than the rest of the
    invocation's metrics."""
    if _METRICS_DISABLED() is None and _POWERTOOLS_DEV() is None:
        return False
    return is_metrics_disabled()


def _with_log_context(handler: Callable[[Any, Any], dict[str, Any]]) -> Any:
    """``handler`` with Powertools' logger context: ``Logger.inject_lambda_context(
    clear_state=True)`` plus the correlation id (:func:`correlation_id`).

    Why not always the decorator: per invocation it builds a context model, resolves the
    formatter four times and rebuilds the key set twice, ~20 us of a streamed chunk (more than
    its core step). When none of the decorator's optional features is configured (event
    logging, a sampling rate, a log buffer), the keys it would leave are set here in one pass
    (for Powertools' own formatter, its key dict built at once as ``clear_state`` and
    ``append_keys`` would leave it): the defaults, ``cold_start`` (Powertools' own flag), the
    four Lambda context keys, ``correlation_id``, in the decorator's order
    (``tests/test_lambda_log_context.py`` compares the records of both). Otherwise the decorator
    runs, as before; also when Powertools lacks the private members the lean path reads
    (a release other than the pinned ``src/requirements.txt`` one may rename them).
    """
    log_event = resolve_truthy_env_var_choice(
        env=os.getenv(powertools_constants.LOGGER_LOG_EVENT_ENV, "false"), choice=None)
    formatter = logger.registered_formatter
    private = (hasattr(logger, "_default_log_keys")  # the lean path reads these:
               and callable(getattr(powertools_logger, "_is_cold_start", None))
               and isinstance(getattr(powertools_logger, "is_cold_start", None), bool)
               and hasattr(formatter, "log_record_order") and hasattr(formatter, "keys_combined"))
    if (log_event or logger.sampling_rate or getattr(logger, "_buffer_config", None)
            or not private):  # another Powertools than the tested one: its own decorator
        def with_decorator(event: Any, context: Any) -> dict[str, Any]:
            logger.set_correlation_id(correlation_id(event))
            return handler(event, context)

        return functools.wraps(handler)(logger.inject_lambda_context(clear_state=True)(
            with_decorator))
    default_keys = logger._default_log_keys
    #: the context variable the formatter's ``thread_safe_clear_keys`` empties
    thread_keys = getattr(powertools_formatter, "THREAD_LOCAL_KEYS", None)
    get_keys = getattr(powertools_formatter, "_get_context", None)
    if (thread_keys.__class__ is not ContextVar or not callable(get_keys)
            or get_keys() is not thread_keys):
        thread_keys = None
    #: the last log format built, without its two per-invocation values, and what it was built
    #: from (see :func:`_base_format`)
    last: list[Any] = [None, None]

    @functools.wraps(handler)
    def lean(event: Any, context: Any) -> dict[str, Any]:
        lambda_context = context.lambda_context if is_durable_context(context) else context
        own = getattr(logger, "logger_handler", None)  # (registered_formatter's first case)
        formatter = own.formatter if own else logger.registered_formatter
        # (_is_cold_start reads the environment: asked only while it may say True)
        cold = powertools_logger.is_cold_start and powertools_logger._is_cold_start()
        if formatter.__class__ is LambdaPowertoolsFormatter:
            # clear_state() then append_keys(**keys), as one dict built in the same order: a
            # copy of the same dict built for the previous invocation, when it was built from
            # the same keys (the usual case: only the request ids differ)
            source = (formatter, formatter.log_record_order, formatter.keys_combined,
                      default_keys, cold, lambda_context.function_name,
                      lambda_context.memory_limit_in_mb, lambda_context.invoked_function_arn)
            if last[0] != source:  # (compared with copies: a key changed in place is seen)
                last[:] = ((formatter, list(source[1]), dict(source[2]), dict(default_keys),
                            *source[4:]),
                           _base_format(formatter, default_keys, cold, lambda_context))
            log_format = last[1].copy()
            log_format["function_request_id"] = lambda_context.aws_request_id
            log_format["correlation_id"] = correlation_id(event)
            formatter.log_format = log_format
            if thread_keys is not None:  # (its thread_safe_clear_keys(), inline)
                thread_keys.set({})
                return handler(event, context)
        else:
            keys = {
                **default_keys,
                "cold_start": cold,
                "function_name": lambda_context.function_name,
                "function_memory_size": lambda_context.memory_limit_in_mb,
                "function_arn": lambda_context.invoked_function_arn,
                "function_request_id": lambda_context.aws_request_id,
                "correlation_id": correlation_id(event),
            }
            formatter.clear_state()
            formatter.append_keys(**keys)
        formatter.thread_safe_clear_keys()
        return handler(event, context)

    return lean


def _base_format(formatter: Any, default_keys: dict[str, Any], cold: bool,
                 lambda_context: Any) -> dict[str, Any]:
    """The formatter's ``log_format`` after ``clear_state()`` and ``append_keys`` of the
    invocation's keys (the decorator's), the two request ids left None (their places kept)."""
    log_format = dict.fromkeys(formatter.log_record_order)
    log_format.update(formatter.keys_combined)
    log_format.update({
        **default_keys,
        "cold_start": cold,
        "function_name": lambda_context.function_name,
        "function_memory_size": lambda_context.memory_limit_in_mb,
        "function_arn": lambda_context.invoked_function_arn,
        "function_request_id": None,
        "correlation_id": None,
    })
    return log_format
