"""What the handler-level benches share: the import path, the Lambda setting, the output table.

Why one module: ``bench_handler.py`` and ``bench_cost.py`` both drive the real Lambda handlers
with API Gateway v2 events (``events/make_events.py``), both need Powertools' environment, the
same Lambda context stub, the same CPU clock, and print fixed-width tables; written once here.
Importing this module puts ``src/`` (this tree's tito first) and ``events/`` on ``sys.path``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "events"))
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Tito")
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "tito")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "INFO")

from make_events import http_api_event  # noqa: E402

__all__ = ["ROOT", "Context", "Table", "cpu_seconds", "handler_call", "http_api_event", "quiet"]


class Context:
    """A Lambda context stub (what Powertools reads)."""

    function_name, memory_limit_in_mb, aws_request_id = "bench", 1024, "bench-request"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:bench"
    function_version = "$LATEST"
    log_group_name = log_stream_name = "bench"

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def cpu_seconds(fn: Callable[[], Any]) -> float:
    """CPU seconds (``time.process_time``) of one call of ``fn``."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Swallow what the handlers print (one EMF metric record per invocation)."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def handler_call(handler: Any, path: str, body: Any, ctx: Any = None) -> dict[str, Any]:
    """``handler`` on the API Gateway v2 event of ``POST path body``; its decoded 200 body."""
    res = handler(http_api_event("bench", "POST", path, body), ctx or Context())
    assert res["statusCode"] == 200, res["body"][:300]
    return json.loads(res["body"])  # type: ignore[no-any-return]


class Table:
    """A fixed-width table printed row by row: ``Table(("case", 8), ("ms", 9)).header()``."""

    def __init__(self, *columns: tuple[str, int]) -> None:
        self.columns = columns

    def header(self) -> None:
        print(" ".join(f"{name:>{width}s}" for name, width in self.columns))

    def row(self, cells: Sequence[str]) -> None:
        print(" ".join(f"{cell:>{width}s}" for cell, (_, width) in zip(cells, self.columns,
                                                                      strict=True)))
