"""The ``tito`` command line as a new user meets it: version, help with every default, a quiet
stderr, and progress for long replays."""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from conftest import EVENTS_DIR, ROOT
from tito import __version__
from tito.cli import SUBCOMMANDS, main

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def test_version(capsys: Any) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"tito {__version__}"


def test_top_level_help_lists_every_command_and_the_ports(capsys: Any) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert f"  {name} " in out
    for port in ("8000", "8080", "8100"):
        assert port in out


def _parser_of(command: str, capsys: Any) -> str:
    module = importlib.import_module(SUBCOMMANDS[command][0])
    with pytest.raises(SystemExit) as exit_:
        module.main(["--help"])
    assert exit_.value.code == 0
    return str(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("command", "port", "level"),
    [("serve", 8000, "info"), ("gateway", 8080, "info"), ("fake-engine", 8100, "warning")],
)
def test_server_help_shows_defaults(command: str, port: int, level: str, capsys: Any) -> None:
    out = " ".join(_parser_of(command, capsys).split())
    assert f"TCP port to listen on (default: {port})" in out
    assert "address to listen on (0.0.0.0 for every interface) (default: 127.0.0.1)" in out
    assert f"(default: {level})" in out
    assert "``" not in out  # no raw reStructuredText markup in descriptions


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_option_has_help(command: str, monkeypatch: Any) -> None:
    """Every option of every subcommand says what it does (captured through argparse)."""
    seen: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.parse_args

    def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        seen.append(self)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    module = importlib.import_module(SUBCOMMANDS[command][0])
    with pytest.raises(SystemExit):
        module.main([])
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", original)
    (parser,) = seen
    for action in parser._actions:
        assert action.help, f"tito {command} {action.option_strings or action.dest} has no help"


def _long_capture(tmp_path: Any, copies: int) -> Any:
    """A real capture stretched to ``copies`` engine events (one token per event)."""
    lines = (EVENTS_DIR / "captures" / "chat_qwen3.jsonl").read_text().splitlines()
    header, events = lines[0], [json.loads(line) for line in lines[1:]]
    ids = [i for e in events for c in e["choices"] for i in c["token_ids"]][:-1]  # drop EOS
    body_ids = (ids * (copies // len(ids) + 1))[:copies]
    out = [header]
    template = events[0]
    for n, tid in enumerate(body_ids):
        last = n == len(body_ids) - 1
        event = json.loads(json.dumps(template))
        event["choices"][0]["token_ids"] = [tid]
        event["choices"][0]["finish_reason"] = "length" if last else None
        event["choices"][0].pop("logprobs", None)
        out.append(json.dumps(event))
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path


def test_replay_stderr_is_quiet_and_shows_progress_off_a_terminal(tmp_path: Any) -> None:
    capture = _long_capture(tmp_path, 400)
    proc = subprocess.run(
        [sys.executable, "-m", "tito", "replay", str(capture), "-o", str(tmp_path / "out.sse")],
        capture_output=True, text=True, timeout=300,
        env={k: v for k, v in ENV.items() if k != "POWERTOOLS_LOG_LEVEL"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert not [line for line in lines if line.lstrip().startswith("{")], proc.stderr
    assert lines[-1].startswith("tito replay: 400/400 engine events (100%)")


def test_replay_log_level_shows_the_functions_logs(tmp_path: Any) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tito", "replay", str(EVENTS_DIR / "captures" / "chat_qwen3.jsonl"),
         "-o", str(tmp_path / "out.sse"), "--log-level", "info"],
        capture_output=True, text=True, timeout=300, env=ENV,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    assert any("loaded models" in r.get("message", "") for r in records)


def test_progress_lines_are_periodic(monkeypatch: Any) -> None:
    from tito.adapters import replay

    clock = iter([0.0, 1.0, 6.0, 7.0, 13.0, 14.0])
    monkeypatch.setattr(replay.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    progress = replay._Progress(100, stream)  # StringIO is not a terminal
    for done in (10, 50, 60, 90, 100):
        progress(done)
    assert [line.split(" (")[0] for line in stream.getvalue().splitlines()] == [
        "tito replay: 50/100 engine events", "tito replay: 90/100 engine events",
        "tito replay: 100/100 engine events"]
