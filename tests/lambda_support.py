"""Helpers shared by the Lambda tests (handlers, invoke, template): not fixtures, plain functions.

Why a module: ``test_handlers.py`` and ``test_invoke.py`` both need to import handler modules
that may not exist yet (routes written by others) and to read EMF blobs from captured stdout.

Importing this module disables Powertools' log deduplication *before* any Powertools ``Logger``
exists: otherwise the first ``Logger()`` attaches a filter to the root handlers present at that
moment, pytest's own capture handlers included, and ``caplog`` in unrelated tests stops seeing
``tito.*`` records depending on test order.
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any

import pytest

os.environ.setdefault("POWERTOOLS_LOG_DEDUPLICATION_DISABLED", "1")

#: Route modules written by other engineers; a handler needing a missing one is skipped.
ROUTE_MODULES = ("tito.adapters.routes_derender", "tito.adapters.routes_render",
                 "tito.adapters.routes_responses", "tito.adapters.routes_messages")

#: Each endpoint handler module (tito.handlers.<name>) and the event files it serves.
HANDLER_NAMES = ("chat_derender", "completions_derender", "chat_render", "completions_render",
                 "tokenize", "responses_render", "responses_derender", "messages_render")


def import_or_skip(module: str) -> Any:
    """Import ``module``; skip the test only when a route module it needs does not exist yet.

    Any other import error (a bug) fails the test, as it should.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name in ROUTE_MODULES:
            pytest.skip(f"{exc.name} is not written yet")
        raise


def handler_or_skip(name: str) -> Any:
    """``tito.handlers.<name>.handler``, skipping while its route module is missing."""
    return import_or_skip(f"tito.handlers.{name}").handler


def emf_blobs(stdout: str) -> list[dict[str, Any]]:
    """The CloudWatch EMF objects printed on stdout (one JSON object per line with ``_aws``)."""
    blobs = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and "_aws" in data:
            blobs.append(data)
    return blobs


def metric_names(blob: dict[str, Any]) -> set[str]:
    """Metric names declared in one EMF blob."""
    return {
        m["Name"] for directive in blob["_aws"]["CloudWatchMetrics"] for m in directive["Metrics"]
    }


def reset_powertools_state() -> None:
    """Forget metrics and cold-start flags (Powertools keeps both process-wide)."""
    from aws_lambda_powertools import Metrics
    from aws_lambda_powertools.logging import logger as logger_module
    from aws_lambda_powertools.metrics.provider import cold_start

    metrics = Metrics()
    metrics.clear_metrics()
    metrics.clear_default_dimensions()
    cold_start.is_cold_start = True
    logger_module.is_cold_start = True
