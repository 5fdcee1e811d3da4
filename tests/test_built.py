"""The built artifact run without Docker: ``tito invoke --build-dir`` (``tito.adapters.built``).

The end-to-end test makes a fresh build exactly as ``sam build`` lays it out (the template's
makefile targets run with ``ARTIFACTS_DIR`` set, one folder per resource, and a built template
whose ``CodeUri``/``ContentUri`` name those folders), or with the real ``sam build`` when
``SAM_CLI`` names the SAM CLI, and runs it under the real runtime interface client
(``awslambdaric``) on the local Runtime API. It needs a Python 3.13 and PyPI (the wheels for the
target platform), and is skipped without them.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from conftest import EVENTS_DIR, ROOT
from tito.adapters import built

ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}.get(
    platform.machine().lower(), platform.machine()
)


def _sam_layout(build: Path, functions: list[str]) -> None:
    """The built template ``sam build`` writes: each resource's code is a folder of its own."""
    from tito.adapters.invoke import load_template

    data = load_template(ROOT / "template.yaml")
    for name in functions:
        data["Resources"][name]["Properties"]["CodeUri"] = name
    data["Resources"]["TokenizerLayer"]["Properties"]["ContentUri"] = "TokenizerLayer"
    (build / "template.yaml").write_text(json.dumps(data, indent=1), encoding="utf-8")


# -- the template, resolved ---------------------------------------------------------------------


def test_built_function_resolves_the_template(tmp_path: Path) -> None:
    for folder in ("ChatRenderFunction", "TokenizerLayer"):
        (tmp_path / folder).mkdir()
    _sam_layout(tmp_path, ["ChatRenderFunction"])
    fn = built.BuiltFunction.from_build(tmp_path, "ChatRenderFunction")
    assert fn.handler == "tito.handlers.chat_render.handler"
    assert fn.runtime == "python3.13" and fn.architecture == "arm64"
    assert fn.task_root == (tmp_path / "ChatRenderFunction").resolve()
    assert fn.layers == ((tmp_path / "TokenizerLayer").resolve(),)
    assert fn.environment["TITO_MODELS_DIR"] == "/opt/models"
    assert fn.environment["POWERTOOLS_LOG_LEVEL"] == "INFO"
    assert fn.environment["TITO_DEFAULT_MODEL"] == "qwen3"  # the parameter's default
    assert "TITO_STATE_SECRET" not in fn.environment  # condition false: AWS::NoValue
    assert fn.timeout_s == 29 and fn.memory_mb == 1024

    secret = "s" * 40
    fn = built.BuiltFunction.from_build(
        tmp_path, "ChatRenderFunction",
        {"StateSecret": secret, "Architecture": "x86_64", "DefaultModel": ""},
    )
    assert fn.environment["TITO_STATE_SECRET"] == secret
    assert fn.architecture == "x86_64"
    assert "TITO_DEFAULT_MODEL" not in fn.environment


def test_built_function_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(built.BuildError, match="run `sam build` first"):
        built.BuiltFunction.from_build(tmp_path, "ChatRenderFunction")
    (tmp_path / "TokenizerLayer").mkdir()
    _sam_layout(tmp_path, ["ChatRenderFunction"])
    with pytest.raises(built.BuildError, match="is missing from the build"):
        built.BuiltFunction.from_build(tmp_path, "ChatRenderFunction")
    with pytest.raises(built.BuildError, match="not a function"):
        built.BuiltFunction.from_build(tmp_path, "NoSuchFunction")


def test_invoke_build_dir_usage_errors_exit_2(tmp_path: Path, capsys: Any) -> None:
    from tito.adapters import invoke

    code = invoke.main(["--build-dir", str(tmp_path), "ChatRenderFunction", "health"])
    assert code == 2
    assert "sam build" in capsys.readouterr().err


# -- the Runtime API, driven as a runtime client does ---------------------------------------------


def _http(method: str, url: str, body: Any = None) -> tuple[int, dict[str, str], bytes]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, dict(resp.headers), resp.read()


def test_runtime_api_round_trip() -> None:
    import threading

    arn = "arn:aws:lambda:us-east-1:123456789012:function:f"
    with built.RuntimeApi(function_arn=arn, timeout_s=5) as api:
        base = f"http://{api.address}/2018-06-01/runtime"

        def client() -> None:  # what awslambdaric does: next, then response / error
            for answer in ("response", "error"):
                status, headers, body = _http("GET", f"{base}/invocation/next")
                assert status == 200 and headers["Lambda-Runtime-Invoked-Function-Arn"] == arn
                assert int(headers["Lambda-Runtime-Deadline-Ms"]) > 0
                rid = headers["Lambda-Runtime-Aws-Request-Id"]
                _http("POST", f"{base}/invocation/{rid}/{answer}", {"echo": json.loads(body)})

        thread = threading.Thread(target=client, daemon=True)
        thread.start()
        first = api.invoke({"n": 1}, wait_s=10)
        second = api.invoke({"n": 2}, wait_s=10)
        thread.join(10)
    assert first.response == {"echo": {"n": 1}} and first.error is None
    assert second.error == {"echo": {"n": 2}} and second.response is None


def test_runtime_api_init_error_ends_the_wait() -> None:
    with built.RuntimeApi(function_arn="arn:x", timeout_s=5) as api:
        base = f"http://{api.address}/2018-06-01/runtime"
        _http("POST", f"{base}/init/error", {"errorType": "Runtime.ImportModuleError"})
        result = api.invoke({}, wait_s=5)
    assert result.error == {"errorType": "Runtime.ImportModuleError"}


def test_runtime_api_unknown_request_is_404() -> None:
    with built.RuntimeApi(function_arn="arn:x", timeout_s=5) as api:
        base = f"http://{api.address}/2018-06-01/runtime"
        with pytest.raises(urllib.error.HTTPError) as err:
            _http("POST", f"{base}/invocation/nope/response", {})
        assert err.value.code == 404


# -- a fresh build under the real runtime client -------------------------------------------------


def _python313() -> str:
    try:
        return built.find_runtime_python("python3.13")
    except built.BuildError:
        pytest.skip("no Python 3.13 here (the Lambda runtime's version)")


def _fresh_build(out: Path, functions: list[str]) -> None:
    sam = os.environ.get("SAM_CLI")
    env = {**os.environ, "TITO_ARCH": ARCH}
    if sam:
        proc = subprocess.run(
            [sam, "build", "--build-dir", str(out), "--parameter-overrides",
             f"Architecture={ARCH}", *functions],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return
    out.mkdir(parents=True)
    targets = [(ROOT / "src", name) for name in functions]
    targets.append((ROOT / "layers" / "tokenizer", "TokenizerLayer"))
    for source, name in targets:
        scratch = out.parent / f"scratch-{name}"
        shutil.copytree(source, scratch, ignore=shutil.ignore_patterns("__pycache__"))
        proc = subprocess.run(
            ["make", f"build-{name}", f"ARTIFACTS_DIR={out / name}", f"PYTHON={sys.executable}"],
            cwd=scratch, env=env, capture_output=True, text=True, timeout=900,
        )
        if proc.returncode != 0 and "No matching distribution" in proc.stderr:
            pytest.skip("PyPI is not reachable for the target-platform wheels")
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    _sam_layout(out, functions)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_fresh_build_runs_under_awslambdaric(tmp_path: Path) -> None:
    python = _python313()
    build = tmp_path / "build"
    _fresh_build(build, ["ChatRenderFunction"])
    fn_dir = build / "ChatRenderFunction"
    assert (fn_dir / "tito" / "handlers" / "chat_render.py").is_file()
    assert list((fn_dir / "tito" / "__pycache__").glob("*.cpython-313.pyc")), "no bytecode shipped"
    assert (build / "TokenizerLayer" / "models" / "qwen3" / "tokenizer.json").is_file()

    proc = subprocess.run(
        [sys.executable, "-m", "tito", "invoke", "--build-dir", str(build), "--python", python,
         "-p", f"Architecture={ARCH}", "ChatRenderFunction",
         str(EVENTS_DIR / "chat_render.json"), str(EVENTS_DIR / "health.json")],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    decoder = json.JSONDecoder()
    text, responses = proc.stdout.strip(), []
    while text:
        value, end = decoder.raw_decode(text)
        responses.append(value)
        text = text[end:].strip()
    render, health = responses
    assert render["statusCode"] == 200 and health["statusCode"] == 200
    derender = json.loads(json.loads((EVENTS_DIR / "chat_derender.json").read_text())["body"])
    assert json.loads(render["body"])["token_ids"] == derender["prompt_token_ids"]
    assert json.loads(health["body"])["status"] == "ok"
    # the runtime client ran it (its own module), and the layer's models were found under "/opt"
    assert "ColdStart" in proc.stderr and "loaded models" in proc.stderr
    assert "/models" in proc.stderr
