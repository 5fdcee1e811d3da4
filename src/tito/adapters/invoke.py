"""``tito invoke``: run a Lambda handler in-process with an event file, like ``sam local invoke``.

Why: ``sam local invoke`` needs Docker. Calling the handler directly exercises exactly what runs in
Lambda minus the runtime client: the init phase (module import, app build, model loading), Mangum's
event translation, the FastAPI app, Powertools logging and metrics. It prints the Lambda response
(``statusCode``, ``headers``, ``body``, ``isBase64Encoded``) as JSON on stdout; what the function
writes (JSON logs, EMF metric blobs) goes to stderr, as ``sam local invoke`` keeps them apart.

Usage::

    tito invoke ChatDerenderFunction events/chat_derender.json     # a logical id of template.yaml
    tito invoke tito.handlers.chat_render.handler events/chat_render.json
    tito invoke ChatRenderFunction chat_render --body     # events/chat_render.json, body only
    cat event.json | tito invoke CompletionsRenderFunction -
    tito invoke --build-dir .aws-sam/build ChatRenderFunction chat_render health   # the artifact

``--build-dir`` runs what ``sam build`` produced instead of the source tree: the real runtime
client (``awslambdaric``) on a local Runtime API, the layer merged where Lambda puts it, the
built template's environment (:mod:`tito.adapters.built`). Several events go to one process in
turn (the first is the cold start).

A logical id resolves through ``template.yaml`` (found upward from the current directory, or
``--template``) to its ``Handler`` and ``CodeUri`` (put first on ``sys.path``, as ``/var/task``
is in Lambda) and its ``Timeout`` (the context's remaining time). Anything with a dot is a handler
path ``package.module.function``. ``--env KEY=VALUE`` sets environment variables before the
import, since handlers read their settings at init.

Exit status: 0 when the handler returned (whatever the HTTP status), 1 when the init or the
handler raised (a Lambda-style ``{"errorMessage", "errorType", "stackTrace"}`` is printed), 2 on a
usage error (unknown logical id, unreadable event).

The template is read, and a target resolved, by :mod:`tito.adapters.sam_template`.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import json
import os
import sys
import time
import traceback
import uuid
from pathlib import Path
from typing import Any

from tito.adapters.cli_args import new_parser
from tito.adapters.sam_template import (  # TEMPLATE_NAME, load_template: public names here too
    DEFAULT_TIMEOUT_S,
    TEMPLATE_NAME,
    ResolvedHandler,
    UsageError,
    find_template,
    load_template,
    resolve,
)

__all__ = ["LocalLambdaContext", "ResolvedHandler", "UsageError", "main", "resolve"]


@dataclasses.dataclass
class LocalLambdaContext:
    """The Lambda context attributes that Powertools, Mangum and handlers read.

    ``get_remaining_time_in_millis`` counts down from the function's ``Timeout``, as in Lambda.
    """

    function_name: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    memory_limit_in_mb: int = 1024
    function_version: str = "$LATEST"
    aws_request_id: str = dataclasses.field(default_factory=lambda: str(uuid.uuid4()))
    invoked_function_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = "local/[$LATEST]tito-invoke"
    identity: Any = None
    client_context: Any = None
    _deadline: float = dataclasses.field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        if not self.invoked_function_arn:
            self.invoked_function_arn = (
                f"arn:aws:lambda:{region}:123456789012:function:{self.function_name}"
            )
        if not self.log_group_name:
            self.log_group_name = f"/aws/lambda/{self.function_name}"
        self._deadline = time.monotonic() + self.timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


# -- the command ----------------------------------------------------------------------------------


def _read_event(spec: str, template: Path | None) -> Any:
    """The event JSON from a file, ``-`` (stdin), or a bare name found in ``events/``."""
    if spec == "-":
        text = sys.stdin.read()
    else:
        path = Path(spec)
        if not path.is_file():
            roots = [Path.cwd()]
            with contextlib.suppress(UsageError):
                roots.append((template or find_template()).parent)
            names = [spec] if spec.endswith(".json") else [spec, spec + ".json"]
            found = [r / "events" / n for r in roots for n in names if (r / "events" / n).is_file()]
            if not found:
                raise UsageError(f"no event file {spec!r} (nor events/{names[-1]})")
            path = found[0]
        text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"event {spec!r} is not JSON: {exc}") from None


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    """``KEY=VALUE`` arguments as a dict."""
    out = {}
    for pair in items:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} expects KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def _set_env(pairs: list[str]) -> None:
    os.environ.update(_pairs(pairs, "--env"))


def _error_payload(exc: BaseException, request_id: str) -> dict[str, Any]:
    """What Lambda returns for a function error."""
    return {
        "errorMessage": str(exc),
        "errorType": type(exc).__name__,
        "requestId": request_id,
        "stackTrace": traceback.format_tb(exc.__traceback__),
    }


def _body_text(response: Any) -> str:
    """The response body, base64-decoded when flagged and pretty-printed when it is JSON."""
    if not isinstance(response, dict):
        return json.dumps(response, indent=2)
    body = response.get("body") or ""
    if response.get("isBase64Encoded"):
        body = base64.b64decode(body).decode("utf-8", errors="replace")
    try:
        return json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except ValueError:
        return str(body)


def main(argv: list[str]) -> int:
    """Run ``tito invoke``; see the module docstring. Returns the exit status."""
    parser = new_parser(
        "tito invoke",
        "Run a Lambda handler in-process with an event file (sam local invoke "
        "without Docker), or with --build-dir the sam build output under the real runtime "
        "client. The function's own logs and metrics go to stderr, as in Lambda; the response "
        "JSON to stdout.",
    )
    parser.add_argument(
        "target",
        help="a function logical id of template.yaml (ChatDerenderFunction) or a handler path "
        "(tito.handlers.chat_derender.handler)",
    )
    parser.add_argument("event", nargs="+",
                        help="event JSON file, a name in events/, or - for stdin (several: sent "
                        "in turn to one initialised function)")
    parser.add_argument("-t", "--template", type=Path,
                        help="SAM template (default: ./template.yaml or the nearest one above)")
    parser.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE",
                        help="set an environment variable before the handler is imported "
                        "(repeatable; default: none)")
    parser.add_argument("--body", action="store_true",
                        help="print only the response body (decoded, pretty JSON)")
    parser.add_argument("--build-dir", type=Path, metavar="DIR",
                        help="run the sam build output in DIR (e.g. .aws-sam/build) under the "
                        "real runtime client instead of the source tree (default: source tree)")
    parser.add_argument("--python", metavar="PATH",
                        help="with --build-dir: the runtime's Python (default: python3.13 on "
                        "PATH, else pyenv's 3.13.x)")
    parser.add_argument("-p", "--parameter", action="append", default=[], metavar="KEY=VALUE",
                        help="with --build-dir: a template parameter value (repeatable; default: "
                        "the template's defaults)")
    args = parser.parse_args(argv)

    try:
        events = [_read_event(spec, args.template) for spec in args.event]
        if args.build_dir is not None:
            return _invoke_built(args, events)
        resolved = resolve(args.target, args.template)
        _set_env(args.env)
    except UsageError as exc:
        print(f"tito invoke: {exc}", file=sys.stderr)
        return 2
    status = 0
    for event in events:
        status = max(status, _invoke_in_process(resolved, event, body_only=args.body))
    return status


def _print_result(response: Any, *, body_only: bool) -> None:
    if body_only:
        print(_body_text(response))
    else:
        print(json.dumps(response, indent=2, ensure_ascii=False))


def _invoke_built(args: argparse.Namespace, events: list[Any]) -> int:
    """``--build-dir``: every event through the built function under ``awslambdaric``."""
    from tito.adapters import built

    params, env = _pairs(args.parameter, "--parameter"), _pairs(args.env, "--env")
    try:
        fn = built.BuiltFunction.from_build(args.build_dir, args.target, params)
        results = built.run_events(fn, events, python=args.python, extra_env=env)
    except built.BuildError as exc:
        print(f"tito invoke: {exc}", file=sys.stderr)
        return 2
    status = 0
    for result in results:
        if result.error is not None:
            print(json.dumps(result.error, indent=2, ensure_ascii=False))
            status = 1
        else:
            _print_result(result.response, body_only=args.body)
    return status


def _invoke_in_process(resolved: ResolvedHandler, event: Any, *, body_only: bool) -> int:
    """One event through the handler imported into this process."""
    request_id = None
    if isinstance(event, dict):
        request_id = (event.get("requestContext") or {}).get("requestId")
    context = LocalLambdaContext(
        function_name=resolved.name,
        timeout_s=resolved.timeout_s,
        aws_request_id=str(uuid.uuid4()) if not request_id else _request_uuid(request_id),
    )
    stdout = sys.stdout
    try:
        # The function's own output (Powertools logs, EMF blobs) must not mix with the response.
        with contextlib.redirect_stdout(sys.stderr):
            handler = resolved.load()
            response = handler(event, context)
    except UsageError as exc:
        print(f"tito invoke: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # init or handler error: report it the way Lambda does
        print(json.dumps(_error_payload(exc, context.aws_request_id), indent=2), file=stdout)
        return 1
    _print_result(response, body_only=body_only)
    return 0


def _request_uuid(api_request_id: str) -> str:
    """A stable Lambda request id (UUID) derived from the event's API Gateway request id."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"tito-invoke:{api_request_id}"))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
