"""How ``tito replay`` sends a derender call: the Lambda handlers in-process, or a URL.

Why apart from the replay loop: a :data:`Sender` is all :func:`~tito.adapters.replay_run.replay_capture`
needs, so the same replay runs against the functions on a laptop or a deployed API.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

from tito.adapters.capture import CaptureError
from tito.adapters.invoke import LocalLambdaContext
from tito.adapters.transports import api_gateway_event
from tito.client.wire import DERENDER_PATHS, TitoClientError
from tito.errors import ErrorType, error_body

__all__ = ["HANDLERS", "Sender", "handler_sender", "invoke_handler", "url_sender"]

#: ``send(path, body) -> response JSON``; raises :class:`TitoClientError` for an error status.
Sender = Callable[[str, dict[str, Any]], dict[str, Any]]

#: Endpoint paths -> the Lambda handler serving them.
HANDLERS = {
    DERENDER_PATHS["chat"]: "tito.handlers.chat_derender",
    DERENDER_PATHS["completions"]: "tito.handlers.completions_derender",
}


_HANDLER_LOCK = threading.Lock()


def _handler(path: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    import importlib

    module_name = HANDLERS.get(path)
    if module_name is None:
        raise CaptureError(f"no Lambda handler serves {path}")
    with _HANDLER_LOCK:
        if module_name not in sys.modules:
            # Powertools binds its log stream at import: keep the function's JSON logs off stdout,
            # where the replayed SSE goes.
            with contextlib.redirect_stdout(sys.stderr):
                importlib.import_module(module_name)
    return sys.modules[module_name].handler  # type: ignore[no-any-return]


def invoke_handler(path: str, body: Mapping[str, Any], *, seq: int = 0) -> tuple[int, Any]:
    """Run the Lambda handler serving ``path`` in-process on an API Gateway v2 event.

    Returns ``(status, decoded JSON body)``. What the function prints (EMF metric blobs) is
    swallowed: replay's stdout is the SSE stream.
    """
    handler = _handler(path)
    with contextlib.redirect_stdout(io.StringIO()):
        response = handler(api_gateway_event(path, body, seq=seq, source="replay"),
                           LocalLambdaContext("tito-replay"))
    raw = response.get("body") or ""
    if response.get("isBase64Encoded"):
        raw = base64.b64decode(raw).decode("utf-8")
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        data = error_body(f"handler returned a body that is not JSON: {raw[:200]!r}",
                          type_=ErrorType.INTERNAL, code=502)
    return int(response.get("statusCode", 500)), data


def handler_sender() -> Sender:
    """Derender through the Lambda handlers in-process (replay's default)."""
    seq = iter(range(1 << 62))

    def send(path: str, body: dict[str, Any]) -> dict[str, Any]:
        status, data = invoke_handler(path, body, seq=next(seq))
        return _ok(status, data)

    return send


def url_sender(url: str, *, timeout: float = 60.0) -> Sender:
    """Derender through a deployed API or ``tito serve`` at ``url``."""
    import httpx

    client = httpx.Client(base_url=url.rstrip("/"), timeout=timeout)

    def send(path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            resp = client.post(path, content=json.dumps(body),
                               headers={"content-type": "application/json"})
        except httpx.HTTPError as exc:
            raise TitoClientError("derender", 502, error_body(
                f"cannot reach {url}: {exc}", type_=ErrorType.BAD_GATEWAY, code=502)) from None
        try:
            data = resp.json()
        except ValueError:
            data = None
        return _ok(resp.status_code, data)

    return send


def _ok(status: int, data: Any) -> dict[str, Any]:
    if status != 200 or not isinstance(data, dict):
        body = data if isinstance(data, dict) and "error" in data else error_body(
            f"derender answered {status}", type_=ErrorType.INTERNAL, code=status)
        raise TitoClientError("derender", status, body)
    return data
