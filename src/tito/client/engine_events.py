"""How engine events arrive: the SSE reader, the per-stream bookkeeping, the wait for more.

Why apart from the stages: reading the engine's stream into a queue, and deciding how long a
derender round waits for more events (:class:`CoalescePolicy`), is the same for chat,
completions and Responses streams.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import httpx

from tito.client.wire import TitoClientError
from tito.errors import ErrorType, error_body

_END = object()


@dataclass(frozen=True)
class CoalescePolicy:
    """How long a derender round may wait for more engine events (seconds; see the header).

    Round 0 never waits; round ``k >= 1`` waits ``min(max_wait, start * growth ** (k - 1))``
    after its first event (``start`` defaults to ``max_wait / 8``). ``max_wait = 0`` (the
    default) sends what is waiting and never waits. The wait bounds the latency a token gains;
    what it buys is fewer calls: ``bench/bench_cost.py`` prints the trade-off.

    ``early`` (the default): a round also ends as soon as its next event is not due before the
    window closes, at the stream's mean event rate so far (:meth:`closes_early`). The tail of a
    window shorter than the gap to the next event only adds latency and carries no event: at 50
    tokens/s a 100 ms window then carries 5 tokens with a median wait of 40 ms, not 60.
    """

    max_wait: float = 0.0
    growth: float = 2.0
    start: float | None = None
    early: bool = True

    def __post_init__(self) -> None:
        if not (self.max_wait >= 0 and self.growth >= 1 and (self.start is None
                                                             or self.start >= 0)):
            raise ValueError("CoalescePolicy needs max_wait >= 0, growth >= 1 and start >= 0")

    def window(self, round_: int) -> float:
        """The wait of round ``round_`` (0-based)."""
        if round_ == 0 or self.max_wait == 0:
            return 0.0
        start = self.max_wait / 8 if self.start is None else self.start
        try:
            return min(self.max_wait, start * self.growth ** (round_ - 1))
        except OverflowError:
            return self.max_wait

    def closes_early(self, left: float, span: float, events: int) -> bool:
        """Whether a round with ``left`` seconds of its window left sends now: the stream's
        ``events`` events so far came over ``span`` seconds (first to last), so the next is due
        a mean gap after the last; one due at or after the window's end (to a microsecond: the
        clock's sums are not exact) would not make it."""
        return self.early and events >= 2 and span / (events - 1) >= left - 1e-6


@dataclass
class _EngineRun:
    """One engine stream's bookkeeping: the request id to abort, whether it has ended."""

    response_id: str
    done: bool = False


async def _read_events(resp: httpx.Response, queue: asyncio.Queue[Any]) -> None:
    """Parse the engine's SSE into objects on ``queue``; then ``_END`` (or the exception)."""
    try:
        async for line in resp.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                queue.put_nowait(json.loads(data))
            except ValueError:
                queue.put_nowait(TitoClientError("generate", 502, error_body(
                    f"the engine sent an event that is not JSON: {data[:200]!r}",
                    type_=ErrorType.BAD_GATEWAY, code=502)))
                return
        queue.put_nowait(_END)
    except httpx.HTTPError as exc:
        queue.put_nowait(TitoClientError("generate", 502, error_body(
            f"the engine stream broke: {exc}", type_=ErrorType.BAD_GATEWAY, code=502)))
