"""``tito invoke``: resolve a function of template.yaml, run it in-process, print the response.

Why these tests: ``invoke`` is the no-Docker stand-in for ``sam local invoke``, so it must resolve
handlers exactly as the template states them and keep the function's own stdout (logs, EMF) off
the response it prints.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from lambda_support import import_or_skip, reset_powertools_state

from conftest import EVENTS_DIR, ROOT
from tito.adapters import invoke

TEMPLATE = ROOT / "template.yaml"


@pytest.fixture(autouse=True)
def _reset_powertools() -> Any:
    reset_powertools_state()
    yield
    reset_powertools_state()


@pytest.fixture
def chat_derender_available() -> None:
    """The end-to-end invocations below use ChatDerenderFunction."""
    import_or_skip("tito.handlers.chat_derender")


# -- resolution ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("logical_id", "module"),
    [
        ("ChatDerenderFunction", "tito.handlers.chat_derender"),
        ("CompletionsDerenderFunction", "tito.handlers.completions_derender"),
        ("ChatRenderFunction", "tito.handlers.chat_render"),
        ("CompletionsRenderFunction", "tito.handlers.completions_render"),
    ],
)
def test_resolve_logical_id(logical_id: str, module: str) -> None:
    resolved = invoke.resolve(logical_id, TEMPLATE)
    assert (resolved.module, resolved.attr) == (module, "handler")
    assert resolved.code_root == ROOT / "src"  # Globals CodeUri, like /var/task
    assert resolved.timeout_s == 29
    assert resolved.name == logical_id


def test_resolve_finds_the_template_upward(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT / "events")
    assert invoke.resolve("ChatRenderFunction").module == "tito.handlers.chat_render"


def test_resolve_handler_path() -> None:
    resolved = invoke.resolve("tito.handlers.chat_render.handler")
    assert (resolved.module, resolved.attr, resolved.code_root) == (
        "tito.handlers.chat_render", "handler", None
    )
    colon = invoke.resolve("pkg.mod:fn")
    assert (colon.module, colon.attr) == ("pkg.mod", "fn")


def test_resolve_unknown_logical_id_lists_the_functions() -> None:
    with pytest.raises(invoke.UsageError, match="ChatDerenderFunction.*CompletionsRenderFunction"):
        invoke.resolve("NoSuchFunction", TEMPLATE)
    with pytest.raises(invoke.UsageError, match="HttpApi"):
        invoke.resolve("HttpApi", TEMPLATE)  # a resource, but not a function


def test_template_without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML is a dev dependency only: the fallback scanner reads the same answers."""
    monkeypatch.setitem(sys.modules, "yaml", None)  # makes ``import yaml`` raise ImportError
    data = invoke.load_template(TEMPLATE)
    assert data["Globals"]["Function"]["CodeUri"] == "src/"
    for logical_id in ("ChatDerenderFunction", "CompletionsRenderFunction"):
        resolved = invoke.resolve(logical_id, TEMPLATE)
        assert resolved.module.startswith("tito.handlers.")
        assert resolved.code_root == ROOT / "src"
        assert resolved.timeout_s == 29


def test_yaml_and_fallback_agree_on_every_function(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("yaml")
    data = invoke.load_template(TEMPLATE)
    functions = [k for k, v in data["Resources"].items()
                 if v["Type"] == "AWS::Serverless::Function"]
    with_yaml = [invoke.resolve(f, TEMPLATE) for f in functions]
    monkeypatch.setitem(sys.modules, "yaml", None)
    assert [invoke.resolve(f, TEMPLATE) for f in functions] == with_yaml


# -- the command ----------------------------------------------------------------------------------


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = invoke.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.usefixtures("chat_derender_available")
def test_invoke_prints_only_the_response_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["ChatDerenderFunction", str(EVENTS_DIR / "health.json"),
                           "--template", str(TEMPLATE)], capsys)
    assert code == 0
    response = json.loads(out)  # nothing else on stdout
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["status"] == "ok"
    assert '"ColdStart"' in err  # the EMF blobs went to stderr


@pytest.mark.usefixtures("chat_derender_available")
def test_invoke_batch_derender_event_body_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["ChatDerenderFunction", "chat_derender", "--body",
                         "--template", str(TEMPLATE)], capsys)
    assert code == 0
    body = json.loads(out)
    assert body["object"] == "chat.completion"
    assert out.startswith("{\n")  # pretty-printed


@pytest.mark.usefixtures("chat_derender_available")
def test_invoke_handler_path_and_stdin(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO((EVENTS_DIR / "models.json").read_text()))
    code, out, _ = _run(["tito.handlers.chat_derender.handler", "-"], capsys)
    assert code == 0
    assert json.loads(json.loads(out)["body"])["object"] == "list"


@pytest.mark.usefixtures("chat_derender_available")
def test_invoke_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    cli = pytest.importorskip("tito.cli")
    code = cli.main(["invoke", "ChatDerenderFunction", "health", "--template", str(TEMPLATE)])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["statusCode"] == 200


def test_invoke_handler_error_is_reported_like_lambda(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tito_invoke_probe.py").write_text(
        "import os\n"
        "def handler(event, context):\n"
        "    assert context.get_remaining_time_in_millis() > 0\n"
        "    raise ValueError(f\"bad event {event['n']} {os.environ['PROBE']}\")\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("PROBE", raising=False)
    event = tmp_path / "event.json"
    event.write_text('{"n": 7}')
    code, out, _ = _run(["tito_invoke_probe.handler", str(event), "--env", "PROBE=x"], capsys)
    assert code == 1
    error = json.loads(out)
    assert error["errorType"] == "ValueError"
    assert error["errorMessage"] == "bad event 7 x"
    assert error["stackTrace"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["NoSuchFunction", "health"], "not a function"),
        (["ChatDerenderFunction", "no-such-event"], "no event file"),
        (["ChatDerenderFunction", "health", "--env", "NOEQUALS"], "KEY=VALUE"),
        (["tito.handlers.no_such_module.handler", "health"], "No module named"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run([*argv, "--template", str(TEMPLATE)], capsys)
    if "no_such_module" in argv[0]:
        assert code == 1 and message in json.loads(out)["errorMessage"]  # an init error
    else:
        assert code == 2 and out == ""
        assert message in err


def test_not_json_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    code, _, err = _run(["ChatDerenderFunction", str(bad), "--template", str(TEMPLATE)], capsys)
    assert code == 2 and "not JSON" in err


def test_local_context_counts_down() -> None:
    context = invoke.LocalLambdaContext(function_name="f", timeout_s=2)
    assert 0 < context.get_remaining_time_in_millis() <= 2000
    assert context.invoked_function_arn.endswith(":function:f")
    assert context.log_group_name == "/aws/lambda/f"
