"""The client's asyncio tasks: fire-and-forget aborts, cancelling a reader, merging streams.

Why apart: these are plain asyncio plumbing with no knowledge of the stages or the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Iterable
from typing import Any

from tito.client.engine_events import _END

#: Fire-and-forget tasks (aborts after a disconnect) kept referenced until they finish.
_BACKGROUND: set[asyncio.Task[Any]] = set()


def _background(coro: Awaitable[Any]) -> None:
    async def quiet() -> None:
        with contextlib.suppress(Exception):
            await coro

    try:
        task = asyncio.get_running_loop().create_task(quiet())
    except RuntimeError:  # no loop any more: nothing to do
        if asyncio.iscoroutine(coro):
            coro.close()
        return
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


async def _cancel(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


async def _merge(streams: Iterable[AsyncIterator[dict[str, Any]]]) -> AsyncIterator[dict[str, Any]]:
    """Interleave several async iterators as their items arrive (errors propagate)."""
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=64)
    streams = list(streams)

    async def pump(stream: AsyncIterator[dict[str, Any]]) -> None:
        try:
            async for item in stream:
                await queue.put(item)
            await queue.put(_END)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the consumer
            await queue.put(exc)

    tasks = [asyncio.create_task(pump(s)) for s in streams]
    try:
        remaining = len(tasks)
        while remaining:
            item = await queue.get()
            if item is _END:
                remaining -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for task in tasks:
            await _cancel(task)
