"""Serving an ASGI app on a free loopback port in a thread (tests, the load benchmark).

Why: the fake engine, the gateway and tito itself are served on real sockets in tests and
``bench/bench_load.py`` without the start-up cost of a subprocess.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

__all__ = ["LoopbackServer", "free_port"]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LoopbackServer:
    """Run an ASGI app with uvicorn in a daemon thread on a free loopback port.

    Why here: the fake engine is a test double, and tests and the load benchmark need to serve it
    (and the gateway, and tito itself) on real sockets without subprocess start-up costs::

        with LoopbackServer(create_fake_engine_app()) as url:
            httpx.post(url + "/inference/v1/generate", json=...)
    """

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int | None = None) -> None:
        import uvicorn

        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning",
                                lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True,
                                       name=f"uvicorn:{self.port}")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"server on {self.url} failed to start")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
