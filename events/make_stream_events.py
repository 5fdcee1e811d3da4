"""Per-call API Gateway events of whole derender streams, from the captured engine streams.

For each capture (``captures/chat_qwen3.jsonl``, ``captures/completions_gpt2.jsonl``) this writes
``streams/<capture>/call_NN.json``: the HTTP API v2 event of the NN-th streaming derender call,
body = one engine chunk + the ``stream_state`` the previous call returned (the first call also
carries the request and the prompt ids). Because every event holds its whole state, each one can be
sent on its own, to any function instance, in any order::

    tito invoke ChatDerenderFunction events/streams/chat_qwen3/call_03.json

The states are computed by running the calls in order through the derender service with the
clock fixed at the capture's ``created``, so the files are deterministic. Regenerate after a change
of the state format: ``python events/make_stream_events.py`` (``--check``: exit 1 if stale).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from make_events import http_api_event, render_file  # noqa: E402

CAPTURES = ("chat_qwen3", "completions_gpt2")
PATHS = {"chat": "/v1/chat/completions/derender", "completions": "/v1/completions/derender"}


def stream_bodies(capture: Path) -> tuple[str, list[dict[str, Any]]]:
    """The endpoint path and the body of every call of the capture's stream, states included."""
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app

    lines = capture.read_text(encoding="utf-8").splitlines()
    header, chunks = json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line]
    kind = header["endpoint"]
    path = PATHS[kind]
    request_key = "chat_request" if kind == "chat" else "completion_request"
    client = TestClient(create_app(endpoints=["chat_derender", "completions_derender"]))
    bodies, state = [], None
    with mock.patch("tito.service.derender.time.time", return_value=header["created"]):
        for k, chunk in enumerate(chunks):
            body: dict[str, Any] = {"stream": True, "model": header["model"],
                                    "generate_chunk": chunk, "stream_state": state}
            if k == 0:
                body.update(prompt_token_ids=header["prompt_token_ids"],
                            prompt_tokens=header["prompt_tokens"],
                            **{request_key: header[request_key]})
            bodies.append(body)
            resp = client.post(path, json=body)
            resp.raise_for_status()
            state = resp.json()["stream_state"]
    return path, bodies


def build() -> dict[Path, str]:
    files = {}
    for name in CAPTURES:
        path, bodies = stream_bodies(HERE / "captures" / f"{name}.jsonl")
        for k, body in enumerate(bodies):
            event = http_api_event(f"stream-{name}-{k:02d}", "POST", path, body)
            files[HERE / "streams" / name / f"call_{k:02d}.json"] = render_file(event)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is stale")
    args = parser.parse_args(argv)
    stale = []
    for path, text in build().items():
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(HERE)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run python events/make_stream_events.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
