"""Lambda handlers driven with the real event files, as Lambda would call them.

Why at this level: it runs Mangum's event translation, the FastAPI app with its error handlers and
Powertools' logger and metrics together, which is everything Lambda runs except its runtime client
(``aws_serverless.md`` 4.2). Two kinds of handler are used:

* the real per-endpoint handlers (``tito.handlers.<name>.handler``) with ``events/*.json``; a test
  needing a route module that is not written yet is skipped (:func:`lambda_support.import_or_skip`);
* a "bare" handler from ``make_handler([])`` (only ``/health`` and ``/v1/models``) plus test routes,
  so the plumbing (cold start metric, 500 accounting, 400s, base64, base path) is tested whatever
  the state of the routes.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import io
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from lambda_support import (
    HANDLER_NAMES,
    emf_blobs,
    handler_or_skip,
    import_or_skip,
    metric_names,
    reset_powertools_state,
)

from conftest import EVENTS_DIR, ROOT

#: Event file -> handler module serving it (the template routes GET /health and /v1/models to the
#: chat derender function).
EVENT_HANDLERS = {
    "chat_derender.json": "chat_derender",
    "chat_derender_stream_first.json": "chat_derender",
    "completions_derender.json": "completions_derender",
    "chat_render.json": "chat_render",
    "completions_render.json": "completions_render",
    "responses_render.json": "responses_render",
    "messages_render.json": "messages_render",
    "responses_derender.json": "responses_derender",
    "responses_derender_stream_first.json": "responses_derender",
    "health.json": "chat_derender",
    "models.json": "chat_derender",
    "tokenize.json": "tokenize",
    "detokenize.json": "tokenize",
    "version.json": "tokenize",
    "chat_render_gpt_oss.json": "chat_render",
    "chat_derender_gpt_oss.json": "chat_derender",
}


@pytest.fixture(autouse=True)
def _reset_powertools() -> Iterator[None]:
    """Powertools keeps metrics and the cold-start flag per process: start each test clean."""
    reset_powertools_state()
    yield
    reset_powertools_state()


@pytest.fixture(scope="module")
def bare_handler() -> Any:
    """``make_handler([])`` plus test-only routes: an echo, one that logs, one that raises."""
    from fastapi import APIRouter

    from tito.handlers._lambda import make_handler

    handler = make_handler([], load_models=False)
    router = APIRouter()

    @router.post("/test/echo")
    def echo(body: dict[str, Any]) -> dict[str, Any]:
        return {"echo": body}

    @router.post("/test/log")
    def log(body: dict[str, Any]) -> dict[str, Any]:
        logging.getLogger("tito.test").info("hello from a route")
        return {}

    @router.post("/test/boom")
    def boom(body: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom: user text that must not reach the metric log line")

    handler.app.include_router(router)
    return handler


def _post(load_event: Callable[[str], dict[str, Any]], path: str, body: str,
          content_type: str = "application/json") -> dict[str, Any]:
    """An HTTP API event for ``POST path`` with a raw body, built from a real event file."""
    event = copy.deepcopy(load_event("chat_render.json"))
    event["rawPath"] = path
    event["routeKey"] = event["requestContext"]["routeKey"] = f"POST {path}"
    event["requestContext"]["http"]["path"] = path
    event["headers"]["content-type"] = content_type
    event["headers"]["content-length"] = str(len(body.encode()))
    event["body"] = body
    return event


def _json_body(response: dict[str, Any]) -> Any:
    assert response["isBase64Encoded"] is False
    assert response["headers"]["content-type"] == "application/json"
    return json.loads(response["body"])


def _assert_error(response: dict[str, Any], status: int) -> dict[str, Any]:
    """vLLM's error shape with ``code`` equal to the status."""
    assert response["statusCode"] == status, response
    body = _json_body(response)
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == status
    return error


# -- the events, through their real handlers --------------------------------------------------


def test_every_event_file_has_a_handler() -> None:
    assert sorted(p.name for p in EVENTS_DIR.glob("*.json")) == sorted(EVENT_HANDLERS)


def test_event_files_are_generated_and_current() -> None:
    """``events/make_events.py`` reproduces the committed files byte for byte."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_events", EVENTS_DIR / "make_events.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, event in module.build_events().items():
        assert (EVENTS_DIR / name).read_text(encoding="utf-8") == module.render_file(event), name


@pytest.mark.parametrize("name", sorted(EVENT_HANDLERS))
def test_event_shape_is_http_api_v2_default_stage(name: str, load_event: Any) -> None:
    event = load_event(name)
    assert event["version"] == "2.0"
    ctx = event["requestContext"]
    assert ctx["stage"] == "$default"
    assert event["routeKey"] == ctx["routeKey"] == f"{ctx['http']['method']} {event['rawPath']}"
    assert ctx["http"]["path"] == event["rawPath"]
    assert all(key == key.lower() for key in event["headers"])
    assert event["isBase64Encoded"] is False
    if ctx["http"]["method"] == "POST":
        assert event["headers"]["content-type"] == "application/json"
        assert int(event["headers"]["content-length"]) == len(event["body"].encode())
        assert isinstance(json.loads(event["body"]), dict)
    else:
        assert "body" not in event


def test_event_bodies_parse_as_the_protocol_models(load_event: Any) -> None:
    protocol = pytest.importorskip("tito.protocol")
    from pydantic import TypeAdapter

    models = {
        "chat_derender.json": protocol.DerenderChatBody,
        "chat_derender_stream_first.json": protocol.DerenderChatBody,
        "completions_derender.json": protocol.DerenderCompletionBody,
        "chat_render.json": protocol.ChatCompletionRequest,
        "completions_render.json": protocol.CompletionRequest,
    }
    for name, model in models.items():
        TypeAdapter(model).validate_json(load_event(name)["body"])


@pytest.mark.parametrize("name", sorted(EVENT_HANDLERS))
def test_event_through_its_handler(name: str, load_event: Any, lambda_context: Any) -> None:
    handler = handler_or_skip(EVENT_HANDLERS[name])
    response = handler(load_event(name), lambda_context)
    assert response["statusCode"] == 200, response["body"]
    body = _json_body(response)
    request = json.loads(load_event(name).get("body") or "null")
    if name == "chat_derender.json":
        assert body["object"] == "chat.completion"
        assert body["id"] == request["generate_response"]["request_id"]
        assert body["choices"][0]["finish_reason"] == "stop"
        assert body["usage"]["completion_tokens"] == len(
            request["generate_response"]["choices"][0]["token_ids"]
        )
    elif name == "chat_derender_stream_first.json":
        assert set(body) >= {"chunk", "stream_state"}
        assert body["chunk"]["object"] == "chat.completion.chunk"
        assert body["chunk"]["choices"][0]["delta"]["role"] == "assistant"
    elif name == "completions_derender.json":
        assert body["object"] == "text_completion"
        assert body["choices"][0]["logprobs"] is not None
    elif name == "chat_render.json":
        derender = json.loads(load_event("chat_derender.json")["body"])
        assert body["token_ids"] == derender["prompt_token_ids"]
        assert body["sampling_params"]["max_tokens"] == request["max_completion_tokens"]
    elif name == "completions_render.json":
        derender = json.loads(load_event("completions_derender.json")["body"])
        assert isinstance(body, list) and len(body) == 1
        assert body[0]["token_ids"] == derender["prompt_token_ids"][0]
    elif name == "responses_render.json":
        assert body["request_id"].startswith("resp_") and body["token_ids"]
        assert body["derender_context"]["kind"] == "responses"
    elif name == "messages_render.json":  # the same question as chat_render.json, as Messages
        chat = json.loads(load_event("chat_render.json")["body"])
        assert body["request_id"].startswith("chatcmpl-")
        assert body["token_ids"] == json.loads(load_event("chat_derender.json")["body"])[
            "prompt_token_ids"]
        assert body["sampling_params"]["max_tokens"] == request["max_tokens"]
        assert body["sampling_params"]["temperature"] == chat["temperature"]
    elif name == "responses_derender.json":
        assert body["object"] == "response" and body["status"] == "completed"
        assert [item["type"] for item in body["output"]] == ["reasoning", "message"]
    elif name == "responses_derender_stream_first.json":
        assert body["events"][0]["type"] == "response.created"
        assert body["stream_state"]["tito"]["ext"]["seq"] == len(body["events"])
    elif name == "health.json":
        assert body["status"] == "ok"
    elif name == "models.json":
        assert body["object"] == "list" and "qwen3" in {m["id"] for m in body["data"]}
    elif name == "tokenize.json":
        derender = json.loads(load_event("chat_derender.json")["body"])
        assert body["tokens"] == derender["prompt_token_ids"]
        assert body["count"] == len(body["tokens"]) == len(body["token_strs"])
    elif name == "detokenize.json":
        assert body["prompt"].startswith("<think>") and body["prompt"].endswith("<|im_end|>")
    elif name == "version.json":
        assert set(body) == {"version", "vllm_api"}
    elif name == "chat_render_gpt_oss.json":  # harmony: ends with <|start|>assistant
        assert body["token_ids"][-2:] == [200006, 173781]
    elif name == "chat_derender_gpt_oss.json":
        msg = body["choices"][0]["message"]
        assert msg["reasoning"] == "The user wants the weather in Paris: call the tool."
        assert msg["tool_calls"][0]["function"] == {"name": "get_weather",
                                                    "arguments": '{"city": "Paris"}'}
        assert body["choices"][0]["finish_reason"] == "tool_calls"


@pytest.mark.parametrize("name", HANDLER_NAMES)
def test_every_function_serves_health(name: str, load_event: Any, lambda_context: Any) -> None:
    response = handler_or_skip(name)(load_event("health.json"), lambda_context)
    assert response["statusCode"] == 200
    assert _json_body(response)["status"] == "ok"


@pytest.mark.parametrize("name", ["chat_derender", "chat_render"])
@pytest.mark.parametrize("how", ["asyncio.run unset the loop", "the loop was closed"])
def test_handler_survives_whatever_happened_to_the_event_loop(how: str, name: str,
                                                              load_event: Any,
                                                              lambda_context: Any) -> None:
    """Mangum runs on asyncio's current loop: an ``asyncio.run()`` elsewhere in the process (it
    unsets the loop) or a closed loop made every later invocation a 400 "malformed event" (the
    shuffled-events flake of the full suite). The derender functions' calls need no loop; the
    others set their own."""
    handler = handler_or_skip(name)
    if how == "asyncio.run unset the loop":
        asyncio.run(asyncio.sleep(0))
    else:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.close()
    response = handler(load_event(f"{name}.json"), lambda_context)
    assert response["statusCode"] == 200, response["body"]
    body = json.loads(response["body"])
    if name == "chat_derender":
        assert body["choices"][0]["message"]["content"]
    else:
        assert body["token_ids"]


def test_real_handler_base64_body(load_event: Any, lambda_context: Any) -> None:
    """API Gateway may base64 a body; Mangum decodes it before the app sees it."""
    handler = handler_or_skip("chat_derender")
    event = load_event("chat_derender.json")
    event["body"] = base64.b64encode(event["body"].encode()).decode()
    event["isBase64Encoded"] = True
    response = handler(event, lambda_context)
    assert response["statusCode"] == 200, response["body"]
    assert _json_body(response)["object"] == "chat.completion"


@pytest.mark.parametrize(
    ("body", "content_type", "message_part"),
    [
        ('{"model": "qwen3", "generate_response": ', "application/json", ""),
        ("[1, 2, 3]", "application/json", "JSON object"),
        ('{"model": "qwen3"}', "text/plain", "Unsupported Media Type"),
    ],
    ids=["malformed-json", "not-an-object", "text-plain"],
)
def test_real_handler_bad_bodies_are_400(body: str, content_type: str, message_part: str,
                                         load_event: Any, lambda_context: Any) -> None:
    handler = handler_or_skip("chat_derender")
    event = _post(load_event, "/v1/chat/completions/derender", body, content_type)
    error = _assert_error(handler(event, lambda_context), 400)
    assert message_part in error["message"]


def test_real_service_error_is_a_counted_500(load_event: Any, lambda_context: Any,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    handler = handler_or_skip("chat_derender")
    derender = import_or_skip("tito.service.derender")
    if not hasattr(derender, "derender_chat"):
        pytest.skip("tito.service.derender.derender_chat is not written yet")

    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("service bug")

    monkeypatch.setattr(derender, "derender_chat", explode)
    error = _assert_error(handler(load_event("chat_derender.json"), lambda_context), 500)
    assert error["type"] == "InternalServerError"
    (blob,) = [b for b in emf_blobs(capsys.readouterr().out) if "UnhandledError" in metric_names(b)]
    assert blob["UnhandledError"] == [1.0]
    assert blob["endpoint"] == "chat_derender"


def test_handler_modules_import_only_their_own_routes(tmp_path: Any) -> None:
    """Cold start: every function serves a plain ASGI app (its own module), so none imports a
    route module, FastAPI, boto3 or uvicorn; the derender functions never import Jinja2."""
    import subprocess
    import sys

    (tmp_path / "gpt2").symlink_to(ROOT / "layers" / "tokenizer" / "models" / "gpt2")
    own = {
        "chat_derender": "tito.adapters.asgi",
        "completions_derender": "tito.adapters.asgi",
        "chat_render": "tito.adapters.asgi_render",
        "completions_render": "tito.adapters.asgi_render",
        "tokenize": "tito.adapters.asgi_render",
        "responses_render": "tito.adapters.asgi_render",
        "messages_render": "tito.adapters.asgi_render",
        "responses_derender": "tito.adapters.asgi",
    }
    checked = 0
    for name in HANDLER_NAMES:
        script = (
            f"import sys, tito.handlers.{name}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('tito', 'boto3', 'uvicorn', 'transformers', 'httpx', 'fastapi', 'starlette', 'jinja2')))\n"
        )
        env = {"TITO_MODELS_DIR": str(tmp_path), "PATH": "/usr/bin:/bin",
               "POWERTOOLS_METRICS_NAMESPACE": "Tito", "PYTHONPATH": str(ROOT / "src")}
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=120)
        if proc.returncode != 0 and "No module named 'tito.adapters.routes_" in proc.stderr:
            continue  # that route module is not written yet
        assert proc.returncode == 0, proc.stderr
        loaded = set(json.loads(proc.stdout.strip().splitlines()[-1].replace("'", '"')))
        assert own[name] in loaded
        routes = {m for m in loaded if m.startswith("tito.adapters.routes_")}
        assert not routes, f"{name} imports {routes}"
        assert not {m for m in loaded if m.split(".")[0] in ("fastapi", "starlette")}
        if name != "messages_render":  # its ~30 ms of Anthropic models are its own
            assert "tito.protocol.anthropic" not in loaded
        if name.endswith("_derender"):  # no Jinja2 (no chat template to compile)
            assert "jinja2" not in loaded
        assert not {m for m in loaded if m.split(".")[0] in ("boto3", "uvicorn", "transformers")}
        assert "tito.adapters.invoke" not in loaded
        checked += 1
    if not checked:
        pytest.skip("no route module is written yet")


def test_init_loads_the_default_model_only_and_compiles_its_template() -> None:
    """Cold start: a function's init loads the default model (not the other folders: they load
    on first use) and, for the chat renderers, compiles its chat template, so the first request
    compiles nothing."""
    import subprocess
    import sys

    script = (
        "import json, sys, tito.handlers.{name}\n"
        "from tito.models import get_registry\n"
        "template = sys.modules.get('tito.core.template')\n"
        "cache = template.compile_template.cache_info() if template else None\n"
        "print(json.dumps([get_registry().loaded(), cache and cache.currsize]))\n"
    )
    env = {"TITO_MODELS_DIR": str(ROOT / "layers" / "tokenizer" / "models"), "PATH": "/usr/bin:/bin",
           "POWERTOOLS_METRICS_NAMESPACE": "Tito", "PYTHONPATH": str(ROOT / "src")}
    for name, compiled in (("chat_render", 1), ("chat_derender", None)):
        proc = subprocess.run([sys.executable, "-c", script.format(name=name)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        loaded, templates = json.loads(proc.stdout.strip().splitlines()[-1])
        assert loaded == ["qwen3"], name
        assert templates == compiled or (compiled is None and templates == 0), name


# -- the plumbing, with the bare handler --------------------------------------------------------


def test_cold_start_metric_on_first_call_only(bare_handler: Any, load_event: Any,
                                              lambda_context: Any,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    first = bare_handler(load_event("health.json"), lambda_context)
    assert first["statusCode"] == 200
    blobs = emf_blobs(capsys.readouterr().out)
    cold = [b for b in blobs if "ColdStart" in metric_names(b)]
    assert len(cold) == 1
    assert cold[0]["ColdStart"] == [1.0]
    assert cold[0]["function_name"] == lambda_context.function_name
    assert cold[0]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Tito"
    (requests,) = [b for b in blobs if "Requests" in metric_names(b)]
    assert requests["endpoint"] == "health"
    assert requests["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["endpoint", "service"]]

    bare_handler(load_event("models.json"), lambda_context)
    blobs = emf_blobs(capsys.readouterr().out)
    assert not [b for b in blobs if "ColdStart" in metric_names(b)]
    assert [b["endpoint"] for b in blobs] == ["models"]


def test_repeated_invocations_write_powertools_records(
    bare_handler: Any, load_event: Any, lambda_context: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Later invocations reuse the record Powertools serialized for the first one of the same
    shape: each is exactly what ``Metrics.serialize_metric_set`` writes, with its own clock."""
    import time

    from tito.handlers._lambda import metrics

    for name in ("models.json", "models.json", "health.json", "health.json"):
        before = int(time.time() * 1000)
        assert bare_handler(load_event(name), lambda_context)["statusCode"] == 200
        blob = [b for b in emf_blobs(capsys.readouterr().out) if "Requests" in metric_names(b)][-1]
        assert before <= blob["_aws"]["Timestamp"] <= int(time.time() * 1000)
        metrics.add_dimension(name="endpoint", value=name.removesuffix(".json"))
        metrics.add_metric(name="Requests", unit="Count", value=1)
        expected = metrics.serialize_metric_set()
        metrics.clear_metrics()
        expected["_aws"]["Timestamp"] = blob["_aws"]["Timestamp"]
        assert blob == expected


def test_logs_carry_the_api_gateway_request_id(bare_handler: Any, load_event: Any,
                                                lambda_context: Any,
                                                log_stream: io.StringIO) -> None:
    """Records of the stdlib ``tito.*`` loggers (the app, the registry...) go through the
    Powertools formatter and carry the request id of the invocation that emitted them."""
    ids = []
    for name in ("health.json", "models.json"):
        event = _post(load_event, "/test/log", '{"x": 1}')
        event["requestContext"]["requestId"] = load_event(name)["requestContext"]["requestId"]
        ids.append(event["requestContext"]["requestId"])
        assert bare_handler(event, lambda_context)["statusCode"] == 200
    records = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    logged = [r for r in records if r["message"] == "hello from a route"]
    assert [r["correlation_id"] for r in logged] == ids
    assert all(r["service"] == "tito" and r["location"].startswith("log:") for r in logged)
    assert [r["cold_start"] for r in logged] == [True, False]
    assert all(r["function_request_id"] == lambda_context.aws_request_id for r in logged)


def test_unhandled_error_is_a_500_metric_and_one_traceback(
    bare_handler: Any, load_event: Any, lambda_context: Any,
    capsys: pytest.CaptureFixture[str], log_stream: io.StringIO,
) -> None:
    event = _post(load_event, "/test/boom", '{"x": 1}')
    error = _assert_error(bare_handler(event, lambda_context), 500)
    assert error == {"message": "Internal server error.", "type": "InternalServerError",
                     "param": None, "code": 500}
    blobs = emf_blobs(capsys.readouterr().out)
    (blob,) = [b for b in blobs if "UnhandledError" in metric_names(b)]
    assert blob["UnhandledError"] == [1.0] and blob["Requests"] == [1.0]
    assert blob["endpoint"] == "other"

    records = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    request_id = event["requestContext"]["requestId"]
    errors = [r for r in records if r["level"] == "ERROR"]
    assert errors and all(r["correlation_id"] == request_id for r in errors)
    hook = [r for r in errors if r.get("error_type") == "builtins.RuntimeError"]
    assert len(hook) == 1 and "user text" not in json.dumps(hook[0])
    tracebacks = [r for r in errors if "exception" in r]
    assert len(tracebacks) == 1, "Mangum's duplicate traceback should be dropped"
    assert tracebacks[0]["location"].startswith("_unexpected:")  # the app's own handler


def test_hook_is_inert_outside_an_invocation(bare_handler: Any) -> None:
    """``tito serve`` and TestClient apps share the hook list; they must not leave metrics."""
    from fastapi.testclient import TestClient

    from tito.handlers._lambda import metrics

    client = TestClient(bare_handler.app, raise_server_exceptions=False)
    assert client.post("/test/boom", json={}).status_code == 500
    assert metrics.metric_set == {}


def test_hook_registered_once() -> None:
    from tito.adapters import app as app_module
    from tito.handlers import _lambda

    _lambda.make_handler([], load_models=False)
    _lambda.make_handler([], load_models=False)
    assert app_module.on_unhandled.count(_lambda._report_unhandled) == 1


@pytest.mark.parametrize(
    ("body", "content_type", "message_part"),
    [
        ("{not json", "application/json", "JSON"),
        ("[1]", "application/json", "JSON object"),
        ("x=1", "application/x-www-form-urlencoded", "Unsupported Media Type"),
        ('{"a": 1}', "text/plain; charset=utf-8", "Unsupported Media Type"),
    ],
    ids=["malformed-json", "not-an-object", "form", "text-plain"],
)
def test_bad_bodies_are_400_and_counted(bare_handler: Any, load_event: Any, lambda_context: Any,
                                        capsys: pytest.CaptureFixture[str], body: str,
                                        content_type: str, message_part: str) -> None:
    event = _post(load_event, "/test/echo", body, content_type)
    error = _assert_error(bare_handler(event, lambda_context), 400)
    assert message_part in error["message"]
    (blob,) = [b for b in emf_blobs(capsys.readouterr().out) if "Requests" in metric_names(b)]
    assert blob["ClientErrors"] == [1.0]


def test_base64_body(bare_handler: Any, load_event: Any, lambda_context: Any) -> None:
    payload = {"text": "héllo 😀"}
    event = _post(load_event, "/test/echo", "")
    event["body"] = base64.b64encode(json.dumps(payload).encode()).decode()
    event["isBase64Encoded"] = True
    response = bare_handler(event, lambda_context)
    assert response["statusCode"] == 200
    assert _json_body(response) == {"echo": payload}


def test_function_url_event_shape(bare_handler: Any, load_event: Any, lambda_context: Any) -> None:
    """A Lambda Function URL sends the same payload 2.0 shape with routeKey ``$default``."""
    event = load_event("health.json")
    event["routeKey"] = event["requestContext"]["routeKey"] = "$default"
    event["requestContext"]["domainName"] = "abc.lambda-url.us-east-1.on.aws"
    assert bare_handler(event, lambda_context)["statusCode"] == 200


def _staged(event: dict[str, Any], stage: str) -> dict[str, Any]:
    """The same request through a *named* HTTP API stage: the stage prefixes the path."""
    event = copy.deepcopy(event)
    event["rawPath"] = f"/{stage}{event['rawPath']}"
    event["requestContext"]["http"]["path"] = event["rawPath"]
    event["requestContext"]["stage"] = stage
    return event


def test_named_stage_needs_a_base_path(bare_handler: Any, load_event: Any, lambda_context: Any,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the template uses the ``$default`` stage: with a named stage, ``rawPath`` starts with
    ``/<stage>`` and Mangum routes that literally, so every route 404s; ``TITO_API_BASE_PATH``
    (Mangum's ``api_gateway_base_path``) strips it."""
    from tito.handlers._lambda import make_handler

    event = _staged(load_event("health.json"), "dev")
    error = _assert_error(bare_handler(event, lambda_context), 404)
    assert error["type"] == "Not Found"  # vLLM names HTTP-layer errors by their status phrase

    monkeypatch.setenv("TITO_API_BASE_PATH", "/dev")
    staged_handler = make_handler([], load_models=False)
    response = staged_handler(event, lambda_context)
    assert response["statusCode"] == 200
    assert _json_body(response)["status"] == "ok"


def test_unknown_event_source_is_a_400(bare_handler: Any, lambda_context: Any) -> None:
    """An event that is not from API Gateway is the caller's mistake: a 400 in the error shape
    (not an exception, which Lambda would count as a function error, nor a 500)."""
    response = bare_handler({"hello": "world"}, lambda_context)
    assert response["statusCode"] == 400
    error = _json_body(response)["error"]
    assert "requestContext" in error["message"] and error["code"] == 400


@pytest.mark.parametrize(
    ("event", "base_path", "expected"),
    [
        ({"rawPath": "/v1/chat/completions/derender"}, "/", "chat_derender"),
        ({"rawPath": "/v1/completions/render/"}, "/", "completions_render"),
        ({"path": "/health"}, "/", "health"),
        ({"rawPath": "/dev/v1/models"}, "/dev", "models"),
        ({"rawPath": "/dev/v1/models"}, "/", "other"),
        ({"rawPath": "/v1/anything/else"}, "/", "other"),
        ({"rawPath": 3}, "/", "other"),
        (["not", "a", "dict"], "/", "other"),
    ],
)
def test_endpoint_dimension_is_bounded(event: Any, base_path: str, expected: str) -> None:
    from tito.handlers._lambda import endpoint_of

    assert endpoint_of(event, base_path) == expected


def test_model_load_failure_fails_the_init(monkeypatch: pytest.MonkeyPatch,
                                           log_stream: io.StringIO) -> None:
    """A broken model folder must stop the init (Lambda reports it) instead of serving 500s."""
    models = pytest.importorskip("tito.models")
    from tito.handlers._lambda import make_handler

    def broken() -> Any:
        raise models.ModelLoadError("model folder /opt/models/x: missing tokenizer.json")

    monkeypatch.setattr(models, "get_registry", broken)
    with pytest.raises(models.ModelLoadError, match="missing tokenizer.json"):
        make_handler([])
    assert "model registry failed to load" in log_stream.getvalue()
