"""``tito replay CAPTURE``: re-derender a captured engine stream and print what the user got.

Why: a stream that went wrong in production is a sequence of engine events plus the request that
started it. Replaying it through derender, one call per event with the state carried from call to
call exactly as the gateway did, reproduces the user's OpenAI SSE stream byte for byte, on a
laptop, against the Lambda handler in-process (the default), a deployed API (``--url``) or
``tito serve``. ``--check`` also runs the batch derender on the same tokens and fails on any
difference between the two (stream == batch is tito's core promise).

The capture format, and how captures are read and written: :mod:`tito.adapters.capture`;
how a derender call is sent: :mod:`tito.adapters.replay_send`; the replay and the check:
:mod:`tito.adapters.replay_run`. This module is the CLI, and re-exports those modules' names
(its public names before the split).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import IO

from tito.adapters.capture import (
    Capture,
    CaptureDir,
    CaptureError,
    load_capture,
    parse_capture,
)
from tito.adapters.cli_args import LOG_LEVELS, new_parser
from tito.adapters.replay_run import ReplayResult, check_capture, replay_capture
from tito.adapters.replay_send import (
    HANDLERS,
    Sender,
    handler_sender,
    invoke_handler,
    url_sender,
)
from tito.client.wire import DERENDER_PATHS

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

#: Captures this long get progress on stderr (a bar on a terminal, else periodic lines).
PROGRESS_MIN_EVENTS = 200
#: Off a terminal, one progress line this often (seconds).
PROGRESS_LINE_SECONDS = 5.0


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
