"""``template.yaml``, checked offline: SAM transform, cfn-lint, and agreement with the code.

Why transform first (``aws_serverless.md`` 4.1, 11.2): cfn-lint >= 1.54 no longer runs the SAM
translator, so on the SAM source it misses a bad Runtime, Timeout or ``!Ref``. Translating with
``samtranslator`` (local ``CodeUri``/``ContentUri`` rewritten to S3 placeholders, as ``sam package``
would) gives the real CloudFormation: routes in the HTTP API's OpenAPI body, the stage, roles,
layer references. Those are asserted here and linted. ``sam validate --lint`` runs too when the
SAM CLI is installed (``SAM_CLI`` or ``sam`` on PATH); it is not a project dependency.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lambda_support import ROUTE_MODULES

from conftest import ROOT

TEMPLATE = ROOT / "template.yaml"
SRC = ROOT / "src"
LAYER_DIR = ROOT / "layers" / "tokenizer"

#: The API surface: (method, path) -> (function logical id, endpoint handler module).
ROUTES = {
    ("POST", "/v1/chat/completions/derender"): ("ChatDerenderFunction", "chat_derender"),
    ("POST", "/v1/completions/derender"): ("CompletionsDerenderFunction", "completions_derender"),
    ("POST", "/v1/chat/completions/render"): ("ChatRenderFunction", "chat_render"),
    ("POST", "/v1/completions/render"): ("CompletionsRenderFunction", "completions_render"),
    ("POST", "/v1/responses/render"): ("ResponsesRenderFunction", "responses_render"),
    ("POST", "/v1/responses/derender"): ("ResponsesDerenderFunction", "responses_derender"),
    ("POST", "/v1/messages/render"): ("MessagesRenderFunction", "messages_render"),
    ("GET", "/health"): ("ChatDerenderFunction", "chat_derender"),
    ("GET", "/v1/models"): ("ChatDerenderFunction", "chat_derender"),
    ("POST", "/tokenize"): ("TokenizeFunction", "tokenize"),
    ("POST", "/detokenize"): ("TokenizeFunction", "tokenize"),
    ("GET", "/version"): ("TokenizeFunction", "tokenize"),
}
FUNCTIONS = sorted({fn for fn, _ in ROUTES.values()})
REQUIRED_ENV = {
    "POWERTOOLS_SERVICE_NAME": "tito",
    "POWERTOOLS_METRICS_NAMESPACE": "Tito",
    "POWERTOOLS_LOG_LEVEL": {"Ref": "LogLevel"},
    "TITO_MODELS_DIR": "/opt/models",
}
CONDITIONAL_ENV = {
    "TITO_DEFAULT_MODEL": ("HasDefaultModel", "DefaultModel"),
    "TITO_MODELS_S3_URI": ("HasModelsS3Uri", "ModelsS3Uri"),
    "TITO_STATE_SECRET": ("HasStateSecret", "StateSecret"),
    "TITO_STATE_TTL_SECONDS": ("HasStateTtl", "StateTtlSeconds"),
}


def _sam_source() -> dict[str, Any]:
    from samtranslator.yaml_helper import yaml_parse

    return yaml_parse(TEMPLATE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def translate(parameters: dict[str, str] | None = None) -> dict[str, Any]:
    """The CloudFormation that SAM would deploy, computed offline."""
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator

    sam = _sam_source()
    sections = [r.get("Properties", {}) for r in sam["Resources"].values()]
    sections.append(sam.get("Globals", {}).get("Function", {}))
    for props in sections:
        for key in ("CodeUri", "ContentUri"):
            if isinstance(props.get(key), str) and not props[key].startswith("s3://"):
                props[key] = "s3://placeholder-bucket/" + props[key].strip("/")
    translator = Translator(managed_policy_map={}, sam_parser=Parser())
    return translator.translate(sam_template=sam, parameter_values=parameters or {})  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def cfn() -> dict[str, Any]:
    return translate()


def _of_type(cfn: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in cfn["Resources"].items() if v["Type"] == kind}


def _integrations(cfn: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    (api,) = _of_type(cfn, "AWS::ApiGatewayV2::Api").values()
    paths = api["Properties"]["Body"]["paths"]
    return {
        (method.upper(), path): op["x-amazon-apigateway-integration"]
        for path, ops in paths.items()
        for method, op in ops.items()
    }


# -- routes, stage, functions, layer --------------------------------------------------------------


def test_routes_and_their_functions(cfn: dict[str, Any]) -> None:
    integrations = _integrations(cfn)
    assert set(integrations) == set(ROUTES)
    for route, integration in integrations.items():
        function = ROUTES[route][0]
        assert integration["type"] == "aws_proxy"
        assert integration["payloadFormatVersion"] == "2.0"
        assert 29_000 <= integration["timeoutInMillis"] <= 30_000  # HTTP API hard limit 30 s
        assert f"${{{function}.Arn}}" in integration["uri"]["Fn::Sub"], route


def test_default_stage_only(cfn: dict[str, Any]) -> None:
    """``$default``: no ``/<stage>`` prefix in ``rawPath`` (a named stage 404s in Mangum)."""
    stages = list(_of_type(cfn, "AWS::ApiGatewayV2::Stage").values())
    assert [s["Properties"]["StageName"] for s in stages] == ["$default"]
    assert stages[0]["Properties"]["AutoDeploy"] is True


def test_functions(cfn: dict[str, Any]) -> None:
    functions = _of_type(cfn, "AWS::Lambda::Function")
    assert sorted(functions) == FUNCTIONS
    (layer_id,) = _of_type(cfn, "AWS::Lambda::LayerVersion")
    for name, resource in functions.items():
        props = resource["Properties"]
        module = next(m for fn, m in ROUTES.values() if fn == name)
        assert props["Handler"] == f"tito.handlers.{module}.handler"
        assert props["Runtime"] == "python3.13"
        assert props["Architectures"] == [{"Ref": "Architecture"}]
        assert props["Timeout"] <= 29
        assert props["MemorySize"] >= 512
        assert props["Layers"] == [{"Ref": layer_id}]
        assert props["Code"] == {"S3Bucket": "placeholder-bucket", "S3Key": "src"}
        env = props["Environment"]["Variables"]
        for key, value in REQUIRED_ENV.items():
            assert env[key] == value, key
        for key, (condition, parameter) in CONDITIONAL_ENV.items():
            assert env[key] == {
                "Fn::If": [condition, {"Ref": parameter}, {"Ref": "AWS::NoValue"}]
            }, key


def test_handlers_exist_under_the_code_root(cfn: dict[str, Any]) -> None:
    """``CodeUri: src/`` puts ``tito/`` at ``/var/task/tito``: each Handler must be a module file
    there defining ``handler`` for its own endpoint."""
    for resource in _of_type(cfn, "AWS::Lambda::Function").values():
        module, _, attr = resource["Properties"]["Handler"].rpartition(".")
        path = SRC / (module.replace(".", "/") + ".py")
        assert path.is_file(), path
        endpoint = module.rpartition(".")[2]
        assert f'{attr} = make_handler(["{endpoint}"])' in path.read_text(encoding="utf-8")


def test_layer(cfn: dict[str, Any]) -> None:
    (layer,) = _of_type(cfn, "AWS::Lambda::LayerVersion").values()
    props = layer["Properties"]
    assert props["CompatibleRuntimes"] == ["python3.13"]
    assert props["CompatibleArchitectures"] == [{"Ref": "Architecture"}]
    assert layer["DeletionPolicy"] == "Delete"
    source = _sam_source()["Resources"]["TokenizerLayer"]
    assert source["Properties"]["ContentUri"] == "layers/tokenizer/"
    assert source["Metadata"] == {"BuildMethod": "makefile"}
    params = _sam_source()["Parameters"]
    assert params["Architecture"]["Default"] == "arm64"
    assert params["Architecture"]["AllowedValues"] == ["arm64", "x86_64"]
    # The layer's models/ becomes /opt/models: TITO_MODELS_DIR points there.
    assert (LAYER_DIR / "models" / "qwen3" / "tokenizer.json").is_file()


def test_secret_parameter_is_noecho() -> None:
    params = _sam_source()["Parameters"]
    assert params["StateSecret"]["NoEcho"] is True
    assert params["StateSecret"]["Default"] == ""
    assert params["ModelsS3Uri"]["Default"] == ""
    assert re.fullmatch(params["ModelsS3Uri"]["AllowedPattern"], "s3://my-bucket/tito/models")
    assert not re.fullmatch(params["ModelsS3Uri"]["AllowedPattern"], "s3://my-bucket/models/")
    assert not re.fullmatch(params["StateSecret"]["AllowedPattern"], "too-short")


def test_outputs(cfn: dict[str, Any]) -> None:
    outputs = cfn["Outputs"]
    assert "${HttpApi}" in outputs["ApiUrl"]["Value"]["Fn::Sub"]
    for function in FUNCTIONS:
        assert outputs[f"{function}Name"]["Value"] == {"Ref": function}
    (layer_id,) = _of_type(cfn, "AWS::Lambda::LayerVersion")
    assert outputs["TokenizerLayerArn"]["Value"] == {"Ref": layer_id}


# -- the conditional S3 read policy ---------------------------------------------------------------


def _evaluate(node: Any, params: dict[str, str]) -> Any:
    """Just enough of CloudFormation's intrinsics (Ref, Select, Split, Sub) for the policy."""
    if isinstance(node, list):
        return [_evaluate(n, params) for n in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"Ref"}:
        return {"AWS::Partition": "aws", **params}[node["Ref"]]
    if set(node) == {"Fn::Split"}:
        sep, value = node["Fn::Split"]
        return _evaluate(value, params).split(sep)
    if set(node) == {"Fn::Select"}:
        index, values = node["Fn::Select"]
        return _evaluate(values, params)[int(index)]
    if set(node) == {"Fn::Sub"}:
        text, variables = node["Fn::Sub"]
        values = {k: _evaluate(v, params) for k, v in variables.items()}
        values["AWS::Partition"] = "aws"
        return re.sub(r"\$\{([^}]+)\}", lambda m: values[m.group(1)], text)
    return {k: _evaluate(v, params) for k, v in node.items()}


@pytest.mark.parametrize(
    ("uri", "bucket_arn", "objects_arn"),
    [
        ("s3://models-bucket/tito/models", "arn:aws:s3:::models-bucket",
         "arn:aws:s3:::models-bucket/tito/models/*"),
        ("s3://models-bucket", "arn:aws:s3:::models-bucket", "arn:aws:s3:::models-bucket/*"),
    ],
)
def test_s3_read_policy_is_conditional_and_scoped(cfn: dict[str, Any], uri: str,
                                                  bucket_arn: str, objects_arn: str) -> None:
    policy = cfn["Resources"]["ModelsS3ReadPolicy"]
    assert policy["Type"] == "AWS::IAM::ManagedPolicy"
    assert policy["Condition"] == "HasModelsS3Uri"
    statements = _evaluate(policy["Properties"]["PolicyDocument"]["Statement"],
                           {"ModelsS3Uri": uri})
    assert [(s["Action"], s["Resource"]) for s in statements] == [
        ("s3:ListBucket", bucket_arn), ("s3:GetObject", objects_arn),
    ]
    for role in _of_type(cfn, "AWS::IAM::Role").values():
        arns = role["Properties"]["ManagedPolicyArns"]
        assert {"Fn::If": ["HasModelsS3Uri", {"Ref": "ModelsS3ReadPolicy"},
                           {"Ref": "AWS::NoValue"}]} in arns
        assert "Policies" not in role["Properties"]  # nothing else granted


# -- lint ------------------------------------------------------------------------------------------


def _cfn_lint(path: Path) -> list[str]:
    """cfn-lint findings (errors and warnings) for one template file."""
    from cfnlint.api import ManualArgs, lint_file

    matches = lint_file(path, config=ManualArgs(regions=["us-east-1"]))
    return [str(m) for m in matches]


def test_translated_template_passes_cfn_lint(cfn: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "translated.json"
    path.write_text(json.dumps(cfn), encoding="utf-8")
    assert _cfn_lint(path) == []


def test_translated_template_with_all_parameters_passes_cfn_lint(tmp_path: Path) -> None:
    params = {"ModelsS3Uri": "s3://models-bucket/tito", "StateSecret": "x" * 40,
              "DefaultModel": "qwen3", "LogLevel": "DEBUG"}
    path = tmp_path / "translated.json"
    path.write_text(json.dumps(translate(params)), encoding="utf-8")
    assert _cfn_lint(path) == []


def test_sam_template_passes_cfn_lint() -> None:
    assert _cfn_lint(TEMPLATE) == []


def test_cfn_lint_catches_a_bad_runtime(tmp_path: Path) -> None:
    """Guard the guard: the lint above does look at resource properties."""
    cfn = translate()
    cfn = copy.deepcopy(cfn)
    cfn["Resources"]["ChatRenderFunction"]["Properties"]["Runtime"] = "python3.99"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(cfn), encoding="utf-8")
    assert any("python3.99" in m for m in _cfn_lint(path))


def _sam_cli() -> str | None:
    return os.environ.get("SAM_CLI") or shutil.which("sam")


@pytest.mark.skipif(_sam_cli() is None, reason="SAM CLI not installed (optional)")
def test_sam_validate_lint() -> None:
    env = {**os.environ, "AWS_DEFAULT_REGION": "us-east-1", "SAM_CLI_TELEMETRY": "0"}
    proc = subprocess.run([_sam_cli(), "validate", "--lint", "-t", str(TEMPLATE)],  # type: ignore[list-item]
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- the template agrees with the code -----------------------------------------------------------


def _app_routes(app: Any) -> set[tuple[str, str]]:
    """(method, path) of an app's API routes, read from its OpenAPI schema.

    Why the schema and not ``app.routes``: FastAPI >= 0.16x keeps included routers as lazy
    ``_IncludedRouter`` entries, and the schema is the public view of every route (FastAPI's own
    ``/docs`` and ``/openapi.json`` routes are not in it).
    """
    paths = app.openapi()["paths"]
    return {(method.upper(), path) for path, ops in paths.items() for method in ops}


def _create_app_or_skip(endpoints: list[str] | None = None) -> Any:
    from tito.adapters.app import create_app

    try:
        return create_app(endpoints=endpoints)
    except ModuleNotFoundError as exc:
        if exc.name in ROUTE_MODULES:
            pytest.skip(f"{exc.name} is not written yet")
        raise


def test_template_routes_equal_the_app_routes(cfn: dict[str, Any]) -> None:
    assert set(_integrations(cfn)) == _app_routes(_create_app_or_skip())


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_serves_its_routes(cfn: dict[str, Any], function: str) -> None:
    """A route sent to a function whose app lacks it would be a 404 in production."""
    module = next(m for fn, m in ROUTES.values() if fn == function)
    routed = {route for route, (fn, _) in ROUTES.items() if fn == function}
    assert routed <= set(_integrations(cfn))
    assert routed <= _app_routes(_create_app_or_skip([module]))


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_serves_only_its_routes(function: str) -> None:
    """Each function's app holds its own endpoint (plus the shared GET routes): no dead routes
    that API Gateway never sends it, nothing imported for them at cold start."""
    module = next(m for fn, m in ROUTES.values() if fn == function)
    own = {route for route, (_, m) in ROUTES.items() if m == module and route[0] == "POST"}
    shared = {("GET", "/health"), ("GET", "/v1/models"), ("GET", "/version")}
    assert _app_routes(_create_app_or_skip([module])) == own | shared


def test_endpoint_names_match_the_app() -> None:
    from tito.adapters.app import ENDPOINTS
    from tito.handlers._lambda import ROUTE_ENDPOINTS

    assert {m for _, m in ROUTES.values()} == set(ENDPOINTS)
    for (_, path), (_, module) in ROUTES.items():
        if path.endswith(("render", "derender")):
            assert ROUTE_ENDPOINTS[path] == module


# -- packaging: requirements and the layer Makefile ----------------------------------------------


def _pyproject_deps() -> dict[str, Any]:
    import tomllib

    from packaging.requirements import Requirement

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {Requirement(d).name.lower(): Requirement(d) for d in data["project"]["dependencies"]}


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{path}: {line!r} is not pinned"
            pins[name.strip().lower()] = version.strip()
    return pins


def test_function_requirements_are_pinned_runtime_deps() -> None:
    deps = _pyproject_deps()
    pins = _pins(SRC / "requirements.txt")
    assert set(pins) == {"fastapi", "mangum", "aws-lambda-powertools", "pydantic", "jinja2",
                         "orjson"}
    assert "tokenizers" not in pins  # the layer provides it; a copy in /var/task would shadow it
    for name, version in pins.items():
        assert deps[name].specifier.contains(version), f"{name}=={version} vs {deps[name]}"


def test_layer_requirements_are_the_tokenizers_wheel_only() -> None:
    pins = _pins(LAYER_DIR / "requirements.txt")
    assert list(pins) == ["tokenizers"]
    assert _pyproject_deps()["tokenizers"].specifier.contains(pins["tokenizers"])


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_layer_makefile_recipe(tmp_path: Path) -> None:
    """Dry run of what ``sam build`` runs: target platform wheel, no deps, models to /opt/models."""
    proc = subprocess.run(
        ["make", "-n", "-C", str(LAYER_DIR), "build-TokenizerLayer", f"ARTIFACTS_DIR={tmp_path}"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    recipe = proc.stdout
    for needle in ("--no-deps", "--only-binary=:all:", "--platform manylinux2014_aarch64",
                   "--implementation cp", "--python-version 3.13", f'--target "{tmp_path}/python"',
                   f'cp -R models/. "{tmp_path}/models/"', "--invalidation-mode unchecked-hash"):
        assert needle in recipe, needle


@pytest.fixture
def built_layer(tmp_path: Path) -> Iterator[Path]:
    """Really run the Makefile (downloads the wheel): only with TITO_TEST_LAYER_BUILD=1."""
    if os.environ.get("TITO_TEST_LAYER_BUILD") != "1":
        pytest.skip("set TITO_TEST_LAYER_BUILD=1 to build the layer (needs PyPI)")
    out = tmp_path / "layer"
    proc = subprocess.run(
        ["make", "-C", str(LAYER_DIR), "build-TokenizerLayer", f"ARTIFACTS_DIR={out}",
         f"PYTHON={sys.executable}"],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    yield out


@pytest.mark.slow
def test_layer_build_output(built_layer: Path) -> None:
    (extension,) = (built_layer / "python" / "tokenizers").glob("*.so")
    header = extension.read_bytes()[:20]
    assert header[:4] == b"\x7fELF"
    assert int.from_bytes(header[18:20], "little") == 183  # EM_AARCH64
    assert not (built_layer / "python" / "huggingface_hub").exists()
    for name in ("qwen3", "mistral-v3", "gpt2"):
        assert (built_layer / "models" / name / "tokenizer.json").is_file()
    size = sum(f.stat().st_size for f in built_layer.rglob("*") if f.is_file())
    assert size < 100 * 1024 * 1024  # of the 250 MB function + layers budget
