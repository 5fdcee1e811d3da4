"""Engine-stream captures: their format, reading one, and writing one per stream (the gateway).

Why a module of its own: the gateway writes captures (:class:`CaptureDir`) and ``tito replay``
reads them (:func:`load_capture`); the format is the contract between the two.

Capture format
--------------
Text, UTF-8, either:

- **JSONL**: an optional header line ``{"tito_capture": 1, "endpoint": "chat"|"completions",
  "model", "n", "created", "prompt_tokens", "prompt_token_ids", "chat_request" |
  "completion_request", ["id", "index_offset", "derender_context"]}`` (see
  :class:`tito.client.StreamContext`), then one engine event object per line (vLLM's generate SSE
  ``data:`` objects; an ``{"error": ...}`` event ends the stream);
- **SSE** as the engine sent it: ``data: {...}`` lines, blank lines, ``data: [DONE]``; comment
  (``:``), ``event:``, ``id:`` and ``retry:`` lines are skipped. A header may be given as a
  ``data:`` line holding the header object.

Without a header, ``--endpoint``/``--model`` say how to derender (no prompt ids, no request:
plain decoding). A capture may live on S3 (``s3://bucket/key``; boto3, imported only then).
A line that is not JSON, or not an engine event, stops the replay with its line number (exit 2).

The gateway writes captures with :class:`CaptureDir` (``tito gateway --capture-dir``): for each
stream ``<id>.jsonl`` and, next to it, ``<id>.sse``, the exact bytes the user received; replaying
the first reproduces the second.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tito.client.stream_driver import StreamContext
from tito.client.wire import SSE_DONE, sse_event

__all__ = [
    "Capture",
    "CaptureDir",
    "CaptureError",
    "load_capture",
    "parse_capture",
]


class CaptureError(ValueError):
    """A capture that cannot be read: the message names the source and the line."""


# -- reading ---------------------------------------------------------------------------------


@dataclass
class Capture:
    """A parsed capture: the derender context (None without a header) and the engine events."""

    context: StreamContext | None
    events: list[dict[str, Any]] = field(default_factory=list)
    source: str = "<capture>"

    @property
    def error(self) -> dict[str, Any] | None:
        """The engine error event that ended the stream, if any."""
        last = self.events[-1] if self.events else None
        return last if last is not None and _is_error_event(last) else None


def _is_error_event(obj: Mapping[str, Any]) -> bool:
    return "error" in obj and "choices" not in obj


def _check_event(obj: Any, where: str) -> None:
    """An engine event must parse as vLLM's token stream response (or be an error event)."""
    if not isinstance(obj, dict):
        raise CaptureError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    if _is_error_event(obj):
        return
    from pydantic import ValidationError

    from tito.protocol import GenerateTokensStreamResponse

    try:
        GenerateTokensStreamResponse.model_validate(obj)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ()))
        raise CaptureError(f"{where}: not an engine event ({loc}: {err['msg']})") from None


def parse_capture(text: str, source: str = "<capture>") -> Capture:
    """Parse capture text (JSONL or SSE); :class:`CaptureError` names the bad line."""
    lines = text.splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    sse = first.startswith(("data:", ":", "event:", "id:", "retry:"))
    context: StreamContext | None = None
    events: list[dict[str, Any]] = []
    done = False
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"{source}:{number}"
        if not line:
            continue
        if done:
            raise CaptureError(f"{where}: data after the end of the stream ([DONE] or an error)")
        if sse:
            if line.startswith((":", "event:", "id:", "retry:")):
                continue
            if not line.startswith("data:"):
                raise CaptureError(f"{where}: not an SSE line (expected 'data: ...')")
            line = line[5:].strip()
            if line == "[DONE]":
                done = True
                continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CaptureError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") \
                from None
        if isinstance(obj, dict) and "tito_capture" in obj:
            if context is not None or events:
                raise CaptureError(f"{where}: a capture header must come first")
            if obj["tito_capture"] != 1:
                raise CaptureError(f"{where}: unsupported capture version {obj['tito_capture']!r}")
            try:
                context = StreamContext.from_header(obj)
            except ValueError as exc:
                raise CaptureError(f"{where}: bad capture header: {exc}") from None
            continue
        _check_event(obj, where)
        events.append(obj)
        if _is_error_event(obj):
            done = True
    if not events:
        raise CaptureError(f"{source}: no engine events")
    return Capture(context=context, events=events, source=source)


def load_capture(location: str) -> Capture:
    """Read and parse a capture from a path or ``s3://bucket/key``."""
    if location.startswith("s3://"):
        text = _read_s3(location)
    else:
        try:
            text = Path(location).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CaptureError(f"{location}: cannot read: {exc}") from None
    return parse_capture(text, location)


def _read_s3(location: str) -> str:
    bucket, _, key = location[len("s3://"):].partition("/")
    if not bucket or not key:
        raise CaptureError(f"{location}: expected s3://bucket/key")
    try:
        import boto3  # imported here: only S3 captures need it
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:
        raise CaptureError(f"{location}: reading from S3 needs boto3 "
                           "(pip install 'tito[s3]')") from None
    try:
        obj = boto3.client("s3").get_object(Bucket=bucket, Key=key)
        return str(obj["Body"].read().decode("utf-8"))
    except (BotoCoreError, ClientError) as exc:
        raise CaptureError(f"{location}: cannot read from S3: {exc}") from None
    except UnicodeDecodeError as exc:
        raise CaptureError(f"{location}: not UTF-8 text: {exc}") from None


# -- writing (the gateway's --capture-dir) ---------------------------------------------------


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class CaptureDir:
    """Writes one capture per engine stream into a folder (a :class:`tito.client.StreamObserver`
    factory: pass it as ``TitoClient(capture=...)``). Files appear with the first engine event."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def __call__(self, context: StreamContext) -> _CaptureFile:
        return _CaptureFile(self, context)

    def _open(self, request_id: str) -> tuple[Path, IO[str], IO[bytes]]:
        stem = _UNSAFE.sub("_", request_id)[:200] or "capture"
        with self._lock:
            k = 0
            while True:
                name = stem if k == 0 else f"{stem}-{k}"
                path = self.folder / f"{name}.jsonl"
                try:
                    jsonl = path.open("x", encoding="utf-8")
                    break
                except FileExistsError:
                    k += 1
        return path, jsonl, (self.folder / f"{name}.sse").open("wb")


class _CaptureFile:
    """One stream's capture: ``.jsonl`` (header + engine events) and ``.sse`` (what was sent)."""

    def __init__(self, owner: CaptureDir, context: StreamContext) -> None:
        self.owner = owner
        self.context = context
        self.path: Path | None = None
        self._jsonl: IO[str] | None = None
        self._sse: IO[bytes] | None = None

    def engine_event(self, event: dict[str, Any]) -> None:
        if self._jsonl is None:
            self.path, self._jsonl, self._sse = self.owner._open(
                str(event.get("request_id") or "capture"))
            self._jsonl.write(_jsonl_line(self.context.to_header()))
        self._jsonl.write(_jsonl_line(event))

    def output(self, chunk: dict[str, Any]) -> None:
        if self._sse is not None:
            self._sse.write(sse_event(chunk))

    def close(self, error: dict[str, Any] | None = None) -> None:
        if self._jsonl is None or self._sse is None:
            return
        if error is not None:
            self._sse.write(sse_event(error))
        self._sse.write(SSE_DONE)
        self._jsonl.close()
        self._sse.close()


def _jsonl_line(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
