"""Per-call API Gateway events of whole derender streams, from the captured engine streams.

For each capture (``captures/chat_qwen3.jsonl``, ``captures/completions_gpt2.jsonl``) this writes
``streams/<capture>/call_NN.json``: the HTTP API v2 event of the NN-th streaming derender call,
body = one engine chunk + the ``stream_state`` the previous call returned (the first call also
carries the request and the prompt ids). ``streams/responses_qwen3_tools/`` is the Responses
stream of ``captures/chat_qwen3_tools.jsonl``'s engine chunks: the Responses request that renders
the capture's prompt ids (checked here), its compact events' state carried from call to call. Because every event holds its whole state, each one can be
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
PATHS = {"chat": "/v1/chat/completions/derender", "completions": "/v1/completions/derender",
         "responses": "/v1/responses/derender"}
#: Responses streams: name -> (the capture whose engine chunks they carry, the Responses request)
RESPONSES = {"responses_qwen3_tools": ("chat_qwen3_tools", {
    "model": "qwen3", "input": "What's the weather in Paris?", "max_output_tokens": 256,
    "stream": True, "tools": [{"type": "function", "name": "get_weather",
                               "description": "Current weather in a city",
                               "parameters": {"type": "object",
                                              "properties": {"city": {"type": "string"}},
                                              "required": ["city"]}}]})}


def stream_bodies(capture: Path, responses_request: dict[str, Any] | None = None
                  ) -> tuple[str, list[dict[str, Any]]]:
    """The endpoint path and the body of every call of the capture's stream, states included
    (``responses_request``: the capture's chunks as a Responses stream of that request)."""
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app

    lines = capture.read_text(encoding="utf-8").splitlines()
    header, chunks = json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line]
    kind = "responses" if responses_request is not None else header["endpoint"]
    path = PATHS[kind]
    request_key = {"chat": "chat_request", "completions": "completion_request",
                   "responses": "responses_request"}[kind]
    request = responses_request if responses_request is not None else header[request_key]
    client = TestClient(create_app(endpoints=["chat_derender", "completions_derender",
                                              "responses_render", "responses_derender"]))
    if responses_request is not None:  # (the capture's prompt is this request's)
        rendered = client.post("/v1/responses/render", json=responses_request).json()
        if rendered["token_ids"] != header["prompt_token_ids"]:
            raise SystemExit(f"{capture.name}: the Responses request renders another prompt")
    bodies, state = [], None
    with mock.patch("tito.service.derender.time.time", return_value=header["created"]):
        for k, chunk in enumerate(chunks):
            body: dict[str, Any] = {"stream": True, "model": header["model"],
                                    "generate_chunk": chunk, "stream_state": state}
            if k == 0:
                body.update(prompt_token_ids=header["prompt_token_ids"],
                            prompt_tokens=header["prompt_tokens"], **{request_key: request})
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
    for name, (capture, request) in RESPONSES.items():
        path, bodies = stream_bodies(HERE / "captures" / f"{capture}.jsonl", request)
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
