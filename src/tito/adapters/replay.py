"""``tito replay CAPTURE``: re-derender a captured engine stream and print what the user got.

Why: a stream that went wrong in production is a sequence of engine events plus the request that
started it. Replaying it through derender, one call per event with the state carried from call to
call exactly as the gateway did, reproduces the user's OpenAI SSE stream byte for byte, on a
laptop, against the Lambda handler in-process (the default), a deployed API (``--url``) or
``tito serve``. ``--check`` also runs the batch derender on the same tokens and fails on any
difference between the two (stream == batch is tito's core promise).

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

import argparse
import base64
import contextlib
import io
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tito.adapters.cli_args import LOG_LEVELS, new_parser
from tito.adapters.invoke import LocalLambdaContext
from tito.adapters.transports import api_gateway_event
from tito.client.stream_driver import StreamContext, StreamDerenderer, derender_batch_sync
from tito.client.wire import (
    DERENDER_PATHS,
    SSE_DONE,
    TitoClientError,
    engine_error_body,
    sse_event,
)
from tito.errors import ErrorType, error_body

__all__ = [
    "Capture",
    "CaptureDir",
    "CaptureError",
    "ReplayResult",
    "check_capture",
    "handler_sender",
    "invoke_handler",
    "load_capture",
    "main",
    "parse_capture",
    "replay_capture",
    "url_sender",
]

#: ``send(path, body) -> response JSON``; raises :class:`TitoClientError` for an error status.
Sender = Callable[[str, dict[str, Any]], dict[str, Any]]

#: Endpoint paths -> the Lambda handler serving them.
HANDLERS = {
    DERENDER_PATHS["chat"]: "tito.handlers.chat_derender",
    DERENDER_PATHS["completions"]: "tito.handlers.completions_derender",
}
#: Captures this long get progress on stderr (a bar on a terminal, else periodic lines).
PROGRESS_MIN_EVENTS = 200
#: Off a terminal, one progress line this often (seconds).
PROGRESS_LINE_SECONDS = 5.0


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


# -- transports ------------------------------------------------------------------------------


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


# -- replay and check ------------------------------------------------------------------------


@dataclass
class ReplayResult:
    """What a replay produced: the user's chunks (in order) and the error that ended it, if any."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None


def _context_of(capture: Capture, endpoint: str | None, model: str | None) -> StreamContext:
    if capture.context is not None:
        ctx = StreamContext(**{**capture.context.__dict__})
    else:
        indices = {c.get("index", 0) for e in capture.events for c in e.get("choices") or []}
        ctx = StreamContext(endpoint=endpoint or "chat",  # type: ignore[arg-type]
                            n=max(indices, default=0) + 1)
    if model is not None:
        ctx.model = model
    if endpoint is not None and capture.context is not None and endpoint != ctx.endpoint:
        raise CaptureError(f"{capture.source}: the header says endpoint {ctx.endpoint!r}, "
                           f"not {endpoint!r}")
    return ctx


def replay_capture(
    capture: Capture,
    send: Sender,
    *,
    chunks_per_call: int = 1,
    endpoint: str | None = None,
    model: str | None = None,
    write: Callable[[bytes], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReplayResult:
    """Derender the capture's events ``chunks_per_call`` at a time, as the gateway did.

    ``write`` receives the SSE bytes as they are produced (ending with ``data: [DONE]``);
    ``progress`` the number of engine events consumed so far.
    """
    if chunks_per_call < 1:
        raise ValueError("chunks_per_call must be at least 1")
    driver = StreamDerenderer(_context_of(capture, endpoint, model))
    result = ReplayResult()
    events = capture.events
    for start in range(0, len(events), chunks_per_call):
        batch = events[start:start + chunks_per_call]
        error_event = next((e for e in batch if _is_error_event(e)), None)
        batch = [e for e in batch if not _is_error_event(e)]
        try:
            chunks = derender_batch_sync(driver, batch, send) if batch else []
        except TitoClientError as exc:
            result.error = exc.body
            break
        for chunk in chunks:
            result.chunks.append(chunk)
            if write is not None:
                write(sse_event(chunk))
        if progress is not None:
            progress(min(start + chunks_per_call, len(events)))
        if error_event is not None:
            result.error = engine_error_body(error_event)
            break
    if write is not None:
        if result.error is not None:
            write(sse_event(result.error))
        write(SSE_DONE)
    return result


def _batch_request(capture: Capture, ctx: StreamContext) -> tuple[dict[str, Any], list[int]]:
    """The batch derender body for the capture's tokens, and the choice indices it holds."""
    per: dict[int, dict[str, Any]] = {}
    request_id = ""
    for event in capture.events:
        if _is_error_event(event):
            continue
        request_id = request_id or str(event.get("request_id") or "")
        for choice in event.get("choices") or []:
            c = per.setdefault(int(choice.get("index", 0)),
                               {"ids": [], "finish": None, "lp": None})
            c["ids"].extend(choice.get("token_ids") or [])
            if choice.get("finish_reason") is not None:
                c["finish"] = choice["finish_reason"]
            lp = choice.get("logprobs")
            if lp is not None:
                c["lp"] = (c["lp"] or []) + list(lp.get("content") or [])
    indices = sorted(i for i, c in per.items() if c["ids"])  # batch refuses empty choices
    choices = [{"index": i, "token_ids": per[i]["ids"],
                "finish_reason": per[i]["finish"] or "length",
                "logprobs": {"content": per[i]["lp"]} if per[i]["lp"] is not None else None}
               for i in indices]
    response = {"request_id": request_id, "output_mode": "tokens", "choices": choices}
    body = ctx.derender_fields()
    if ctx.endpoint == "chat":
        body.update(generate_response=response, prompt_tokens=ctx.prompt_tokens)
    else:
        body.update(generate_responses=[response], prompt_tokens=[ctx.prompt_tokens or 0])
        if "derender_context" not in body:
            body["prompt_token_ids"] = [ctx.prompt_token_ids]
    return body, indices


def _assemble(chunks: Sequence[Mapping[str, Any]], endpoint: str,
              offset: int) -> tuple[dict[int, dict[str, Any]], dict[str, Any] | None]:
    """The stream folded into one result per choice (what a batch response would hold)."""
    out: dict[int, dict[str, Any]] = {}
    usage = None
    for chunk in chunks:
        if chunk.get("usage") and not chunk.get("choices"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            c = out.setdefault(int(choice["index"]) - offset, {
                "content": "", "reasoning": "", "tool_calls": {}, "finish_reason": None,
                "stop_reason": None, "logprobs": None})
            if choice.get("finish_reason") is not None:
                c["finish_reason"] = choice["finish_reason"]
                c["stop_reason"] = choice.get("stop_reason")
            lp = choice.get("logprobs")
            if endpoint == "completions":
                c["content"] += choice.get("text") or ""
                if lp is not None:
                    acc = c["logprobs"] or {"text_offset": [], "token_logprobs": [],
                                            "tokens": [], "top_logprobs": []}
                    for key in acc:
                        acc[key] = acc[key] + list(lp.get(key) or [])
                    c["logprobs"] = acc
                continue
            delta = choice.get("delta") or {}
            c["content"] += delta.get("content") or ""
            c["reasoning"] += delta.get("reasoning") or ""
            for call in delta.get("tool_calls") or []:
                t = c["tool_calls"].setdefault(call["index"], {"id": None, "name": "",
                                                               "arguments": ""})
                t["id"] = call.get("id") or t["id"]
                fn = call.get("function") or {}
                t["name"] += fn.get("name") or ""
                t["arguments"] += fn.get("arguments") or ""
            if lp is not None:
                c["logprobs"] = (c["logprobs"] or []) + list(lp.get("content") or [])
    return out, usage


def _from_batch(resp: Mapping[str, Any], endpoint: str) -> dict[int, dict[str, Any]]:
    out = {}
    for choice in resp.get("choices") or []:
        if endpoint == "completions":
            out[int(choice["index"])] = {
                "content": choice.get("text") or "", "reasoning": "", "tool_calls": {},
                "finish_reason": choice.get("finish_reason"),
                "stop_reason": choice.get("stop_reason"), "logprobs": choice.get("logprobs")}
            continue
        msg = choice.get("message") or {}
        calls = {k: {"id": t.get("id"), "name": t["function"]["name"],
                     "arguments": t["function"]["arguments"]}
                 for k, t in enumerate(msg.get("tool_calls") or [])}
        lp = choice.get("logprobs")
        out[int(choice["index"])] = {
            "content": msg.get("content") or "", "reasoning": msg.get("reasoning") or "",
            "tool_calls": calls, "finish_reason": choice.get("finish_reason"),
            "stop_reason": choice.get("stop_reason"),
            "logprobs": lp.get("content") if lp is not None else None}
    return out


def check_capture(capture: Capture, result: ReplayResult, send: Sender, *,
                  endpoint: str | None = None, model: str | None = None) -> list[str]:
    """Differences between the replayed stream and the batch derender of the same tokens."""
    ctx = _context_of(capture, endpoint, model)
    body, indices = _batch_request(capture, ctx)
    problems: list[str] = []
    if not indices:
        return ["the capture has no tokens: nothing to compare with a batch derender"]
    try:
        batch = send(DERENDER_PATHS[ctx.endpoint], body)
    except TitoClientError as exc:
        return [f"the batch derender failed ({exc.status}): "
                f"{exc.body.get('error', {}).get('message')}"]
    streamed, usage = _assemble(result.chunks, ctx.endpoint, ctx.index_offset)
    batched = _from_batch(batch, ctx.endpoint)
    for i in indices:
        s, b = streamed.get(i), batched.get(i)
        if s is None or b is None:
            problems.append(f"choice {i}: present in {'batch' if s is None else 'stream'} only")
            continue
        for key in ("content", "reasoning", "finish_reason", "stop_reason", "tool_calls",
                    "logprobs"):
            if s[key] != b[key]:
                problems.append(f"choice {i} {key}: stream {_short(s[key])} != "
                                f"batch {_short(b[key])}")
    if usage is not None:
        b_usage = batch.get("usage") or {}
        keys = ["prompt_tokens", "completion_tokens", "total_tokens"]
        if ctx.n == 1:
            keys.append("completion_tokens_details")
        for key in keys:
            if usage.get(key) != b_usage.get(key):
                problems.append(f"usage {key}: stream {usage.get(key)!r} != "
                                f"batch {b_usage.get(key)!r}")
    return problems


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:197] + "..."


# -- CLI -------------------------------------------------------------------------------------


class _Progress:
    """Progress on stderr: a one-line bar on a terminal; elsewhere (CI logs, pipes) a plain line
    every :data:`PROGRESS_LINE_SECONDS` and at the end, so a long replay is never silent."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total, self.stream = total, stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.last = self.start if not self.tty else float("-inf")  # a bar draws at once

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if not self.tty:
            if done >= self.total or now - self.last >= PROGRESS_LINE_SECONDS:
                self.last = now
                self.stream.write(f"tito replay: {done}/{self.total} engine events "
                                  f"({100 * done // max(self.total, 1)}%), "
                                  f"{now - self.start:.1f} s\n")
                self.stream.flush()
            return
        if done < self.total and now - self.last < 0.1:
            return
        self.last = now
        width = 30
        filled = width * done // max(self.total, 1)
        self.stream.write(f"\rreplay [{'#' * filled}{'.' * (width - filled)}] "
                          f"{done}/{self.total} events")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def main(argv: list[str]) -> int:
    """``tito replay``: exit 0 on success, 1 when ``--check`` finds a difference or derender
    fails, 2 for an unusable capture or bad arguments."""
    parser = new_parser(
        "tito replay",
        "Replay a captured engine stream (JSONL or SSE, local or s3://bucket/key) "
        "through derender, carrying the stream state from call to call, and write the OpenAI "
        "SSE stream the user would have received.",
    )
    parser.add_argument("capture", help="capture file, or s3://bucket/key")
    parser.add_argument("--url", help="derender at this base URL (deployed API, tito serve) "
                        "instead of the Lambda handlers in-process")
    parser.add_argument("-o", "--output", type=Path,
                        help="write the SSE to this file instead of stdout")
    parser.add_argument("--check", action="store_true",
                        help="also derender the same tokens in one batch call; exit 1 on any "
                        "difference")
    parser.add_argument("--chunks-per-call", type=int, default=1, metavar="N",
                        help="engine events per derender call")
    parser.add_argument("--endpoint", choices=sorted(DERENDER_PATHS),
                        help="chat or completions (for a capture without a header)")
    parser.add_argument("--model", help="served model name (overrides the header)")
    parser.add_argument("--log-level", choices=LOG_LEVELS, type=str.lower,
                        help="show the in-process functions' Powertools JSON logs from this "
                        "level (default: warnings and errors only, or POWERTOOLS_LOG_LEVEL)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress on stderr (default: a bar on a terminal, else a line "
                        f"every {PROGRESS_LINE_SECONDS:.0f} s, for captures of "
                        f"{PROGRESS_MIN_EVENTS}+ events)")
    args = parser.parse_args(argv)
    # The in-process handlers log through Powertools: a CLI shows only what the user asked for.
    if args.log_level:
        os.environ["POWERTOOLS_LOG_LEVEL"] = args.log_level.upper()
    else:
        os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    if args.chunks_per_call < 1:
        parser.error("--chunks-per-call must be at least 1")
    try:
        capture = load_capture(args.capture)
        send = url_sender(args.url) if args.url else handler_sender()
        out: IO[bytes] = args.output.open("wb") if args.output else sys.stdout.buffer
    except (CaptureError, OSError) as exc:
        print(f"tito replay: error: {exc}", file=sys.stderr)
        return 2
    progress = None
    if not args.no_progress and len(capture.events) >= PROGRESS_MIN_EVENTS:
        progress = _Progress(len(capture.events), sys.stderr)

    def write(data: bytes) -> None:
        out.write(data)
        if args.output is None:
            out.flush()

    try:
        with contextlib.ExitStack() as stack:
            if args.output is not None:
                stack.callback(out.close)
            result = replay_capture(capture, send, chunks_per_call=args.chunks_per_call,
                                    endpoint=args.endpoint, model=args.model, write=write,
                                    progress=progress)
    except CaptureError as exc:
        print(f"tito replay: error: {exc}", file=sys.stderr)
        return 2
    if result.error is not None:
        err = result.error.get("error", {})
        print(f"tito replay: the stream ended with an error ({err.get('code')}): "
              f"{err.get('message')}", file=sys.stderr)
        if capture.error is None:  # derender failed, not the engine: that is a failure
            return 1
    if args.check:
        problems = check_capture(capture, result, send, endpoint=args.endpoint,
                                 model=args.model)
        if problems:
            print("tito replay: --check failed: stream and batch differ:", file=sys.stderr)
            for p in problems:
                print(f"  {p}", file=sys.stderr)
            return 1
        print(f"tito replay: --check passed: {len(capture.events)} engine events, stream == "
              "batch", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))

