"""Direct Lambda Invoke: ``lambda.invoke`` of the derender functions with the API Gateway event.

Two levels, both with a real boto3 Lambda client that never reaches AWS:

- botocore's :class:`~botocore.stub.Stubber` pins the exact ``Invoke`` call (function name,
  ``RequestResponse``, a payload that is the API Gateway HTTP API v2 event of the HTTP path, with
  the body intact) and plays back Lambda's answers, including its errors;
- a "Lambda service" in-process: botocore's ``before-call`` hook (the mechanism Stubber itself
  uses) runs the real Lambda handler (``tito.handlers.chat_derender.handler``: Powertools, Mangum,
  the derender app) on the payload the client sent, so a whole stream through the client over
  direct Invoke can be compared with the same stream derendered in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from typing import Any

import boto3
import httpx
import pytest
from botocore.awsrequest import AWSResponse
from botocore.response import StreamingBody
from botocore.stub import Stubber

from tito.adapters.fake_engine import FakeEngine, ReplyScript, create_fake_engine_app
from tito.adapters.transports import LambdaInvokeTransport, api_gateway_event, parse_lambda_target
from tito.client import TitoClient, TitoClientError

CHAT = "/v1/chat/completions/derender"
FUNCTIONS = {CHAT: "tito-ChatDerenderFunction-abc",
             "/v1/completions/derender": "tito-CompletionsDerenderFunction-abc"}
REPLY = "<think>\nA greeting. 😀\n</think>\n\nHello there, café 中文!"
ENGINE = create_fake_engine_app(FakeEngine(ReplyScript.from_text(REPLY), tokens_per_event=[1, 3]))
REQUEST = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}],
           "request_id": "invoke", "stream_options": {"include_usage": True}}
BATCH_BODY = {"model": "qwen3", "generate_response": {
    "request_id": "generate-tokens-chatcmpl-1",
    # "<think>\nA greeting.\n</think>\n\nHello!<|im_end|>": a thinking Qwen3's answer
    "choices": [{"index": 0, "token_ids": [151667, 198, 32, 42113, 624, 151668, 271, 9707, 0,
                                           151645], "finish_reason": "stop"}]},
    "chat_request": {"messages": [{"role": "user", "content": "Hi"}]}}


def run(coro: Any) -> Any:
    """``asyncio.run`` without touching the thread's current loop: the handler (Mangum) drives
    the app with it, and ``asyncio.run`` leaves the main thread with none for later tests."""
    with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:
        return runner.run(coro)


def lambda_client() -> Any:
    return boto3.client("lambda", region_name="us-east-1")


def _body(data: bytes) -> StreamingBody:
    return StreamingBody(io.BytesIO(data), len(data))


LOOPS: list[asyncio.AbstractEventLoop] = []


def run_handler(event: dict[str, Any], lambda_context: Any) -> dict[str, Any]:
    """The real Lambda handler on ``event``, on whatever thread the transport called boto3 from.

    Mangum drives the app with the thread's event loop, which a Lambda runtime's main thread
    has; give this thread one when it has none (a worker thread, or after ``asyncio.run``)."""
    from tito.handlers.chat_derender import handler

    try:
        asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        LOOPS.append(asyncio.new_event_loop())
        asyncio.set_event_loop(LOOPS[-1])
    with contextlib.redirect_stdout(io.StringIO()):  # the EMF record
        return handler(event, lambda_context)  # type: ignore[no-any-return]


class EventOf:
    """Equal to an ``Invoke`` payload that is the API Gateway v2 event of ``POST path body``."""

    def __init__(self, path: str, body: dict[str, Any]) -> None:
        self.path, self.body = path, body
        self.seen: list[dict[str, Any]] = []

    def __eq__(self, payload: object) -> bool:
        event = json.loads(payload)  # type: ignore[arg-type]
        self.seen.append(event)
        reference = api_gateway_event(self.path, self.body)
        return (event["version"] == "2.0" and event["rawPath"] == self.path
                and event["routeKey"] == f"POST {self.path}"
                and event["requestContext"]["http"]["method"] == "POST"
                and event["requestContext"]["stage"] == "$default"
                and event["headers"]["content-type"] == "application/json"
                and int(event["headers"]["content-length"]) == len(event["body"].encode())
                and not event["isBase64Encoded"] and json.loads(event["body"]) == self.body
                and set(event) == set(reference))


def invoke_client(boto: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=LambdaInvokeTransport(FUNCTIONS, client=boto),
                             base_url="http://lambda")


async def _post(boto: Any, path: str, body: dict[str, Any]) -> httpx.Response:
    async with invoke_client(boto) as http:
        return await http.post(path, json=body)


def test_invoke_sends_the_api_gateway_event_and_returns_the_functions_answer(
        lambda_context: Any) -> None:
    boto = lambda_client()
    answer = run_handler(api_gateway_event(CHAT, BATCH_BODY), lambda_context)
    expected = EventOf(CHAT, BATCH_BODY)
    with Stubber(boto) as stub:
        stub.add_response("invoke", {"StatusCode": 200,
                                     "Payload": _body(json.dumps(answer).encode())},
                          {"FunctionName": FUNCTIONS[CHAT], "InvocationType": "RequestResponse",
                           "Payload": expected})
        resp = run(_post(boto, CHAT, BATCH_BODY))
        stub.assert_no_pending_responses()
    assert expected.seen  # the payload was checked
    assert resp.status_code == 200
    message = resp.json()["choices"][0]["message"]
    assert (message["reasoning"], message["content"]) == ("\nA greeting.\n", "\n\nHello!")


def test_invoke_errors_keep_their_meaning() -> None:
    boto = lambda_client()
    with Stubber(boto) as stub:
        stub.add_client_error("invoke", service_error_code="RequestEntityTooLargeException",
                              service_message="Request must be smaller than 6291456 bytes",
                              http_status_code=413)
        stub.add_response("invoke", {"StatusCode": 200, "FunctionError": "Unhandled",
                                     "Payload": _body(b'{"errorMessage": "boom"}')})
        stub.add_client_error("invoke", service_error_code="TooManyRequestsException",
                              http_status_code=429)
        stub.add_response("invoke", {"StatusCode": 200, "Payload": _body(b'"not a proxy answer"')})
        too_large = run(_post(boto, CHAT, BATCH_BODY))
        failed = run(_post(boto, CHAT, BATCH_BODY))
        throttled = run(_post(boto, CHAT, BATCH_BODY))
        garbled = run(_post(boto, CHAT, BATCH_BODY))
    unrouted = run(_post(boto, "/v1/responses/derender", BATCH_BODY))
    for resp, status in ((too_large, 413), (failed, 502), (throttled, 429), (garbled, 502),
                         (unrouted, 404)):
        assert resp.status_code == status
        err = resp.json()["error"]
        assert err["code"] == status and err["message"] and err["type"]
    assert "boom" in failed.json()["error"]["message"]
    assert "RequestEntityTooLargeException" in too_large.json()["error"]["message"]


def test_a_stream_over_direct_invoke_equals_the_in_process_stream(lambda_context: Any) -> None:
    """The client streaming through ``lambda.invoke`` of the real handler: the same chunks."""
    boto = lambda_client()
    invoked: list[str] = []

    def fake_lambda(params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        invoked.append(params["url_path"])
        answer = run_handler(json.loads(params["body"]), lambda_context)
        return (AWSResponse(params["url"], 200, {}, None),
                {"StatusCode": 200, "Payload": _body(json.dumps(answer).encode())})

    boto.meta.events.register("before-call.lambda.Invoke", fake_lambda)

    async def stream(derender: Any) -> list[dict[str, Any]]:
        async with TitoClient(engine=ENGINE, derender=derender, clock=lambda: 1796040000,
                              chunks_per_call=1) as c:
            return [chunk async for chunk in c.chat_stream(REQUEST)]

    direct = run(stream(invoke_client(boto)))
    local = run(stream(None))
    assert direct == local and len(direct) > 5
    assert len(invoked) >= 5 and all(FUNCTIONS[CHAT] in p for p in invoked)


def test_lambda_target_string(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_lambda_target("lambda:chat=a,completions=arn:aws:lambda:us-east-1:1:function:b"
                               ) == {CHAT: "a", "/v1/completions/derender":
                                     "arn:aws:lambda:us-east-1:1:function:b"}
    for bad in ("lambda:", "lambda:chat", "lambda:render=x", "lambda:chat="):
        with pytest.raises(ValueError):
            parse_lambda_target(bad)
    boto = lambda_client()
    monkeypatch.setattr(boto3, "client", lambda *a, **k: boto)
    with Stubber(boto) as stub:
        stub.add_client_error("invoke", service_error_code="ResourceNotFoundException",
                              http_status_code=404)

        async def call() -> None:
            async with TitoClient(engine=ENGINE, derender="lambda:chat=missing-fn") as client:
                await client.chat({k: v for k, v in REQUEST.items() if k != "stream_options"})

        with pytest.raises(TitoClientError) as info:
            run(call())
    assert info.value.stage == "derender" and info.value.status == 502
    assert "missing-fn" in info.value.body["error"]["message"]


def test_the_default_path_does_not_import_boto3() -> None:
    import subprocess
    import sys

    code = ("import sys, tito.client, tito.adapters.gateway, tito.adapters.transports; "
            "assert 'boto3' not in sys.modules and 'botocore' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
