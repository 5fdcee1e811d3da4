"""``tito replay``: captured engine streams re-derendered, byte for byte, by any handler process.

Why these tests: a capture is only useful if replaying it gives exactly what the user got. The
strongest form of that claim is also tito's statelessness claim: each derender call may land on
any fresh Lambda sandbox. So the captures in ``events/captures/`` are replayed with every call
dispatched to one of several handler *processes* in a shuffled order, and must reproduce the
recorded ``.sse`` byte for byte; then the batch derender of the same tokens must agree
(``--check``). The rest covers the capture sources (JSONL, SSE, S3 via moto), the CLI's errors
(a corrupt line: its number, exit 2, no traceback) and a live gateway capture with an abort.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import EVENTS_DIR, ROOT
from tito.adapters import replay
from tito.adapters.app import create_app
from tito.adapters.fake_engine import (
    FakeEngine,
    LoopbackServer,
    ReplyScript,
    create_fake_engine_app,
)
from tito.adapters.gateway import create_gateway_app
from tito.client import TitoClientError

CAPTURES = sorted((EVENTS_DIR / "captures").glob("*.jsonl"))

#: A derender "Lambda sandbox": reads {"path", "body"} lines, answers {"status", "body"} lines.
WORKER = r"""
import json, os, sys
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # whatever the function prints (logs, metrics) goes to stderr
from tito.adapters.replay import invoke_handler
for line in sys.stdin:
    req = json.loads(line)
    status, body = invoke_handler(req["path"], req["body"])
    out.write(json.dumps({"status": status, "body": body}) + "\n")
    out.flush()
"""


class Workers:
    """A few handler processes; each call goes to the next one of a shuffled schedule."""

    def __init__(self, count: int, seed: int) -> None:
        self.procs = [subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       text=True, cwd=ROOT) for _ in range(count)]
        self.rng = random.Random(seed)
        self.schedule: list[int] = []
        self.used: list[int] = []

    def _next(self) -> subprocess.Popen[str]:
        if not self.schedule:
            self.schedule = list(range(len(self.procs)))
            self.rng.shuffle(self.schedule)
        k = self.schedule.pop()
        self.used.append(k)
        return self.procs[k]

    def send(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        proc = self._next()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"path": path, "body": body}) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        if answer["status"] != 200:
            raise TitoClientError("derender", answer["status"], answer["body"])
        return dict(answer["body"])

    def close(self) -> None:
        for proc in self.procs:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def workers() -> Iterator[Workers]:
    pool = Workers(3, seed=20261130)
    yield pool
    pool.close()


def test_events_hold_captures() -> None:
    names = {p.stem for p in CAPTURES}
    assert {"chat_qwen3", "completions_gpt2"} <= names
    for capture in CAPTURES:
        assert capture.with_suffix(".sse").is_file(), f"{capture.name} has no recorded stream"


def test_every_capture_replays_byte_for_byte_on_shuffled_processes(workers: Workers) -> None:
    """One test for all captures, so one pool of handler processes serves them (cold starts
    are the expensive part)."""
    assert CAPTURES
    for capture in CAPTURES:
        expected = capture.with_suffix(".sse").read_bytes()
        parsed = replay.load_capture(str(capture))
        for per_call in (1, 3):
            out = bytearray()
            start = len(workers.used)
            result = replay.replay_capture(parsed, workers.send, chunks_per_call=per_call,
                                           write=out.extend)
            assert bytes(out) == expected, f"{capture.name} with {per_call} event(s) per call"
            assert len(set(workers.used[start:])) > 1, "calls were spread over processes"
        assert replay.check_capture(parsed, result, workers.send) == [], capture.name


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = replay.main(args)
    return code, capsys.readouterr().err


def test_cli_output_file_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = EVENTS_DIR / "captures" / "chat_qwen3.jsonl"
    out = tmp_path / "out.sse"
    code, err = _cli([str(capture), "-o", str(out), "--check", "--chunks-per-call", "5"], capsys)
    assert code == 0, err
    assert "--check passed" in err
    assert out.read_bytes() == capture.with_suffix(".sse").read_bytes()


def test_check_reports_a_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    real = replay.handler_sender()

    def lying(path: str, body: dict[str, Any]) -> dict[str, Any]:
        resp = real(path, body)
        if not body.get("stream"):  # the batch call: make it disagree
            resp["choices"][0]["text"] += " (batch)"
        return resp

    monkeypatch.setattr(replay, "handler_sender", lambda: lying)
    capture = EVENTS_DIR / "captures" / "completions_gpt2.jsonl"
    code, err = _cli([str(capture), "-o", str(tmp_path / "o.sse"), "--check"], capsys)
    assert code == 1
    assert "stream and batch differ" in err and "choice 0 content" in err


def test_url_transport(tmp_path: Path) -> None:
    capture = EVENTS_DIR / "captures" / "completions_gpt2.jsonl"
    with LoopbackServer(create_app(endpoints=["completions_derender"])) as url:
        assert replay.main([str(capture), "--url", url, "-o", str(tmp_path / "o.sse")]) == 0
    assert (tmp_path / "o.sse").read_bytes() == capture.with_suffix(".sse").read_bytes()


def test_sse_capture_format(tmp_path: Path) -> None:
    """The engine's raw SSE (a header as a data line, comments, [DONE]) replays the same."""
    capture = EVENTS_DIR / "captures" / "chat_qwen3_tools.jsonl"
    lines = capture.read_text(encoding="utf-8").splitlines()
    sse = ": captured by hand\n" + "".join(f"data: {line}\n\n" for line in lines) + \
        "data: [DONE]\n\n"
    raw = tmp_path / "raw.txt"
    raw.write_text(sse, encoding="utf-8")
    out = tmp_path / "o.sse"
    assert replay.main([str(raw), "-o", str(out)]) == 0
    assert out.read_bytes() == capture.with_suffix(".sse").read_bytes()


def test_headerless_capture_needs_only_endpoint_and_model(tmp_path: Path) -> None:
    capture = EVENTS_DIR / "captures" / "completions_gpt2.jsonl"
    events = capture.read_text(encoding="utf-8").splitlines()[1:]
    bare = tmp_path / "bare.jsonl"
    bare.write_text("\n".join(events) + "\n", encoding="utf-8")
    parsed = replay.load_capture(str(bare))
    assert parsed.context is None
    result = replay.replay_capture(parsed, replay.handler_sender(), endpoint="completions",
                                   model="gpt2")
    text = "".join(c["choices"][0]["text"] for c in result.chunks if c["choices"])
    assert text.startswith(" there was a tiny robot")


def test_replay_from_s3_with_moto(tmp_path: Path) -> None:
    import boto3
    from moto import mock_aws

    capture = EVENTS_DIR / "captures" / "completions_gpt2.jsonl"
    out = tmp_path / "o.sse"
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="tito-captures")
        s3.put_object(Bucket="tito-captures", Key="prod/2026/completions.jsonl",
                      Body=capture.read_bytes())
        assert replay.main(["s3://tito-captures/prod/2026/completions.jsonl", "-o",
                            str(out)]) == 0
        assert out.read_bytes() == capture.with_suffix(".sse").read_bytes()
        with pytest.raises(replay.CaptureError, match="cannot read from S3"):
            replay.load_capture("s3://tito-captures/missing.jsonl")
    with pytest.raises(replay.CaptureError, match="expected s3://bucket/key"):
        replay.load_capture("s3://only-bucket")


def test_boto3_is_imported_lazily() -> None:
    code = "import sys, tito.adapters.replay; print('boto3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize(("line", "message"), [
    ('{"request_id": "x", "choices": [', "corrupt.jsonl:3: not valid JSON"),
    ('{"request_id": "x", "choices": "nope"}', "corrupt.jsonl:3: not an engine event"),
    ("[1, 2]", "corrupt.jsonl:3: expected a JSON object"),
])
def test_corrupt_line_is_reported_with_its_number(tmp_path: Path, line: str,
                                                  message: str) -> None:
    capture = EVENTS_DIR / "captures" / "completions_gpt2.jsonl"
    lines = capture.read_text(encoding="utf-8").splitlines()
    lines[2] = line
    bad = tmp_path / "corrupt.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(replay.CaptureError, match=message.replace(".", r"\.")):
        replay.load_capture(str(bad))
    if line.startswith('{"request_id": "x", "choices": ['):
        out = subprocess.run([sys.executable, "-m", "tito.cli", "replay", str(bad)],
                             capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert out.returncode == 2
        assert message in out.stderr and "Traceback" not in out.stderr
        assert out.stdout == ""


def test_missing_file_and_bad_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _cli([str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "cannot read" in err
    bad = tmp_path / "h.jsonl"
    bad.write_text('{"tito_capture": 1, "endpoint": "embeddings"}\n{"request_id": "x", '
                   '"choices": []}\n', encoding="utf-8")
    code, err = _cli([str(bad)], capsys)
    assert code == 2 and "h.jsonl:1: bad capture header" in err


def test_engine_error_in_capture_is_replayed(tmp_path: Path) -> None:
    capture = EVENTS_DIR / "captures" / "completions_gpt2.jsonl"
    lines = capture.read_text(encoding="utf-8").splitlines()[:4]
    lines.append(json.dumps({"error": {"message": "GPU on fire", "type": "InternalServerError",
                                       "param": None, "code": 500}}))
    path = tmp_path / "err.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "o.sse"
    assert replay.main([str(path), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.endswith('data: {"error":{"message":"GPU on fire","type":"InternalServerError",'
                         '"param":null,"code":500}}\n\ndata: [DONE]\n\n')


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar() -> None:
    stream = _Terminal()
    bar = replay._Progress(400, stream)
    bar(1)
    bar(400)
    text = stream.getvalue()
    assert "1/400 events" in text and text.endswith("400/400 events\n")
    assert "[" + "#" * 30 + "]" in text


def test_live_gateway_capture_with_abort_replays_what_the_client_got(tmp_path: Path) -> None:
    """A stop string aborts the engine mid-stream; the capture still replays to the same bytes."""
    engine = FakeEngine(ReplyScript.from_text("alpha beta gamma delta " * 60), tokens_per_event=2,
                        delay=0.002)
    with LoopbackServer(create_fake_engine_app(engine)) as engine_url:
        gateway = create_gateway_app(generate_url=engine_url, capture_dir=tmp_path)
        with LoopbackServer(gateway) as url:
            resp = httpx.post(url + "/v1/chat/completions", timeout=60, json={
                "model": "qwen3", "messages": [{"role": "user", "content": "Go"}],
                "stream": True, "stop": ["delta alpha"], "max_tokens": 400,
                "stream_options": {"include_usage": True},
                # thinking off: the plain reply is content (vLLM's qwen3 rule: else reasoning)
                "chat_template_kwargs": {"enable_thinking": False}})
    assert resp.status_code == 200
    (capture,) = tmp_path.glob("*.jsonl")
    assert capture.with_suffix(".sse").read_bytes() == resp.content
    parsed = replay.load_capture(str(capture))
    finishes = [c["finish_reason"] for e in parsed.events for c in e["choices"]]
    assert finishes[-1] == "abort", "the engine request was aborted"
    for per_call in (1, 7):
        out = bytearray()
        replay.replay_capture(parsed, replay.handler_sender(), chunks_per_call=per_call,
                              write=out.extend)
        assert bytes(out) == resp.content
    content = "".join(json.loads(line[6:])["choices"][0]["delta"]["content"] or ""
                      for line in resp.text.split("\n\n")
                      if line.startswith('data: {"id"') and '"choices":[{' in line)
    assert content == "alpha beta gamma "
