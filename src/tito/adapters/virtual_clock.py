"""An asyncio event loop on a virtual clock: timers fire in order, instantly, deterministically.

Why: the client's coalescing window is about time (an engine emitting 100 tokens/s, a call that
waits up to 40 ms for more of them). Measured on a real clock, on a shared 2-core box, the tokens
per call and the wait would depend on the load; on this loop, ``loop.time()`` only moves when
every task is waiting on a timer, and then jumps to the next one. The fake engine's pauses
(``asyncio.sleep``) and the client's window (``asyncio.timeout``) use that clock, so a stream
of the fake engine through the client (in-process, :class:`~tito.adapters.transports.
ASGIStreamTransport`) gives the same calls and waits on every run, and the CPU the calls take
does not move the clock. Used by the coalescing tests and ``bench/bench_cost.py``.

Real I/O still works (a zero-timeout ``select`` runs first); a loop with no timer left blocks in
the real ``select`` (a thread's ``call_soon_threadsafe`` wakes it).

Example::

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        runner.run(main())
"""

from __future__ import annotations

import asyncio
import selectors
from typing import Any

__all__ = ["VirtualClockLoop"]


class _VirtualSelector:
    """The loop's selector, except that waiting ``timeout`` seconds advances the virtual clock."""

    def __init__(self, real: selectors.BaseSelector, loop: VirtualClockLoop) -> None:
        self._real = real
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = self._real.select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:  # no timer to jump to: wait for real I/O
            return self._real.select(None)
        self._loop.advance(timeout)
        return ready

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose ``time()`` is virtual (starts at 0, see the module header)."""

    def __init__(self) -> None:
        super().__init__()
        self._virtual_now = 0.0
        self._selector = _VirtualSelector(self._selector, self)  # type: ignore[assignment]

    def time(self) -> float:
        return self._virtual_now

    def advance(self, seconds: float) -> None:
        """Move the clock forward (the loop does this itself when every task waits on a timer)."""
        self._virtual_now += max(0.0, seconds)
