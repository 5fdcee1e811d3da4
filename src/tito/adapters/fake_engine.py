"""``tito fake-engine``: a test double for the GPU engine, speaking vLLM's generate wire exactly.

Why it exists: render and derender are only half of disaggregated serving; to run the whole path
(an OpenAI SDK -> gateway -> render -> engine -> derender) on a laptop or in CI, something has to
play the engine. This one serves ``POST /inference/v1/generate`` (JSON and SSE) and
``POST /inference/v1/abort_requests`` with vLLM's shapes (spec 2.1-2.2), serialized through
tito's own ``Generate*`` wire models, but "generates" from a reply script instead of a GPU.

Theory of operation
-------------------
- **Replies.** Each choice of each request takes the next reply of a :class:`ReplyScript` (one
  fixed text, or the lines of a JSONL file used in order and cycled). A reply is a text, encoded
  with the requested model's tokenizer and followed by the model's EOS id, or explicit token ids
  (the exact output, cut at ``max_tokens``: a way to script byte-level edge cases).
  ``sampling_params.extra_args.fake_reply`` (OpenAI ``vllm_xargs``: a reply, or a list of them
  for the choices in turn) overrides the script for one request, so a test can pin what a given
  request gets whatever the request order.
- **Stopping**, as vLLM's ``check_stop``: nothing stops before ``min_tokens``; then EOS (unless
  ``ignore_eos``), a ``stop_token_ids`` member or a generation-config EOS ends the choice with
  ``finish_reason "stop"`` (the id is part of the output); ``max_tokens`` ends it with
  ``"length"``. When the reply runs out before that (``ignore_eos``, ``min_tokens``), it repeats.
  ``max_tokens`` absent from the JSON means ``max_model_len - len(prompt)`` (spec 2.3). Stop
  *strings* are not checked: like a ``--tokens-only`` engine with no tokenizer, the fake engine
  leaves them to derender (the client aborts the request when one fires).
- **Streaming.** Engine steps produce ``k`` tokens per unfinished choice (``k`` cycles through
  ``tokens_per_event``); each (step, choice) is one SSE event carrying one choice, so with ``n > 1``
  the indices interleave. The first event carries ``prompt_token_ids`` iff ``return_token_ids``;
  with ``stream_options.continuous_usage_stats`` every event carries usage (that choice's
  cumulative completion tokens); with ``include_usage`` a final ``choices: []`` usage event
  (serialized without nulls) follows; the stream ends with ``data: [DONE]``.
- **Aborts.** ``abort_requests`` marks ids (as returned, ``generate-tokens-...``, or bare); a
  running stream checks the mark before every step and ends each unfinished choice with an event
  ``{"token_ids": [], "finish_reason": "abort"}``. Non-streaming requests are not abortable (they
  answer at once) and aborting an unknown or finished id is a no-op, as in vLLM. A client that
  disconnects mid-stream aborts its request too (recorded as "abort").
- **Logprobs** (``sampling_params.logprobs = k``): vLLM main's integer-id shape, the sampled token
  first then ``max(k, 1) - 1`` other candidates, with deterministic values.

Everything it did is observable on the :class:`FakeEngine` object (``records``, ``aborted``), so
in-process tests can assert e.g. that a stop string aborted the request.

Example::

    engine = FakeEngine(ReplyScript.from_text("Hello there!"), tokens_per_event=2)
    app = create_fake_engine_app(engine)        # any ASGI server, or httpx.ASGITransport(app)
    with LoopbackServer(app) as url: ...         # or run it on a free loopback port in a thread

Modules: :mod:`~tito.adapters.fake_replies` (the reply script), :mod:`~tito.adapters.fake_generate`
(:class:`FakeEngine`: plans, responses, events), :mod:`~tito.adapters.loopback`
(:class:`LoopbackServer`); this module is the app and the CLI, and re-exports their names.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError

from tito.adapters.cli_args import add_server_options, new_parser
from tito.adapters.fake_generate import (
    RESPONSE_ID_PREFIX,
    FakeEngine,
    RequestRecord,
    _EngineFailure,
)
from tito.adapters.fake_replies import Reply, ReplyScript
from tito.adapters.loopback import LoopbackServer, free_port  # free_port: a public name here too
from tito.adapters.streaming import ClosingStreamingResponse
from tito.errors import BadRequest, ErrorType
from tito.protocol import GenerateRequest

__all__ = [
    "FakeEngine",
    "LoopbackServer",
    "Reply",
    "ReplyScript",
    "RequestRecord",
    "create_fake_engine_app",
    "main",
]


# -- the app -------------------------------------------------------------------------------------


def create_fake_engine_app(engine: FakeEngine | None = None, **kwargs: Any) -> FastAPI:
    """The fake engine as a FastAPI app (``kwargs`` build a :class:`FakeEngine` when none given).

    It reuses tito's app shell for vLLM's error shape, the JSON-only guard, ``/health`` and
    ``/v1/models``; ``app.state.engine`` is the engine, for tests.
    """
    from tito.adapters.app import create_app, error_response

    engine = engine or FakeEngine(**kwargs)
    app = create_app(endpoints=[])
    app.title = "tito fake engine"
    app.state.engine = engine

    @app.post("/inference/v1/generate", response_model=None)
    async def generate(request: Request) -> Response:
        try:
            req = GenerateRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err.get("loc", ()))
            return error_response(f"{len(exc.errors())} validation error(s): {loc}: {err['msg']}",
                                  type_=ErrorType.VALIDATION, code=400, param=loc or None)
        if req.output_mode != "tokens":
            raise BadRequest("this fake engine serves output_mode 'tokens' only",
                             param="output_mode")
        rid = RESPONSE_ID_PREFIX + (request.headers.get("x-request-id") or req.request_id)
        if req.stream:
            events = await engine.stream(req, rid)
            return ClosingStreamingResponse(events, media_type="text/event-stream")
        try:
            return JSONResponse(engine.respond(req, rid))
        except _EngineFailure as exc:
            return error_response(str(exc), type_=ErrorType.INTERNAL, code=500)

    @app.post("/inference/v1/abort_requests")
    async def abort_requests(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            raise BadRequest("the body is not valid JSON") from None
        ids = body.get("request_ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise BadRequest("`request_ids` (a list of strings) is required", param="request_ids")
        engine.abort(ids)
        return Response(status_code=200)

    @app.get("/fake/records")
    def records() -> list[dict[str, Any]]:
        """What the engine did (newest last): lets a test in another process check aborts."""
        return [r.__dict__ for r in list(engine.records)]

    return app


# -- CLI -----------------------------------------------------------------------------------------


def _parse_k(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("expected an int or a comma-separated list") from None
    if not ks or any(k < 1 for k in ks):
        raise argparse.ArgumentTypeError("token counts must be positive")
    return ks


def main(argv: list[str]) -> int:
    """Parse the options and serve the fake engine with uvicorn until interrupted."""
    parser = new_parser(
        "tito fake-engine",
        "A test double for the GPU engine: serves vLLM's /inference/v1/generate "
        "(JSON and SSE) and /inference/v1/abort_requests with the exact wire shapes, "
        "generating scripted replies with the served models' tokenizers. For tests, demos and "
        "load tests of render/derender; it runs no model.",
    )
    add_server_options(parser, port=8100, log_level="warning")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--reply", help="the reply text of every choice (EOS is appended)")
    src.add_argument("--replies", type=Path, metavar="FILE.jsonl",
                     help='replies, one per line, used in order and cycled: a JSON string or '
                     '{"text": ...} / {"token_ids": [...]} / {"error": ...}')
    parser.add_argument("--tokens-per-event", "-k", type=_parse_k, default=[1], metavar="K[,K...]",
                        help="tokens per SSE event (a list is cycled per engine step)")
    parser.add_argument("--delay-ms", type=float, default=0.0,
                        help="pause between engine steps, in milliseconds")
    parser.add_argument("--max-num-seqs", type=int, default=256,
                        help="largest n accepted (vLLM's max_num_seqs)")
    args = parser.parse_args(argv)
    script: ReplyScript | None
    try:
        if args.replies is not None:
            script = ReplyScript.from_jsonl(args.replies)
        else:
            script = ReplyScript.from_text(args.reply) if args.reply is not None else None
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    import uvicorn

    engine = FakeEngine(script, tokens_per_event=args.tokens_per_event,
                        delay=args.delay_ms / 1000.0, max_num_seqs=args.max_num_seqs)
    _ = engine.registry  # load the tokenizers before accepting traffic
    uvicorn.run(create_fake_engine_app(engine), host=args.host, port=args.port,
                log_level=args.log_level)
    return 0
