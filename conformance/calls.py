"""The one HTTP call the recorders make to a reference server (standard library only)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def request(url: str, path: str, body: Any = None, *, method: str = "POST",
            timeout: float = 120) -> tuple[int, Any]:
    """``(status, JSON body)`` of one call; an error status is returned, not raised, and a body
    that is not JSON comes back as its text (the reference's answer is what we record)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method,
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")
