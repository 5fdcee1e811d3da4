"""``tito.client``: one OpenAI request through render -> generate -> derender, batch or streamed.

Why a client: disaggregated serving moves the OpenAI server's loop out of the server. Someone has
to call render, send the ``GenerateRequest`` to the engine, and feed every engine chunk to
derender with the state the previous call returned. This package is that loop, written once and
used by the gateway (:mod:`tito.adapters.gateway`), by replay (:mod:`tito.adapters.replay`) and by
anyone who wants OpenAI responses out of a tito deployment and an engine from Python.

Example::

    import asyncio
    from tito.client import TitoClient

    async def main() -> None:
        async with TitoClient(engine="http://127.0.0.1:8100") as client:   # render/derender
            reply = await client.chat({"model": "qwen3",                   # in-process
                                       "messages": [{"role": "user", "content": "Hi"}]})
            async for chunk in client.chat_stream({"model": "qwen3", "messages": [...]}):
                print(chunk["choices"])

    asyncio.run(main())

Theory of operation (streaming)
-------------------------------
- **Stages are swappable transports** (as httpx's): each of render, derender and the engine is a
  base URL (a deployed API Gateway, ``tito serve``, a vLLM server), an ASGI app run in-process
  (streamed, :class:`~tito.adapters.transports.ASGIStreamTransport`; ``None`` for
  render/derender means tito's own app), the derender functions invoked directly
  (``"lambda:chat=FN,completions=FN,responses=FN"``: ``lambda.invoke`` with the API Gateway event,
  no API Gateway fee), or an ``httpx.AsyncClient`` you configure. Nothing but
  :mod:`tito.client.stages` knows which.
- **What derender is told.** Each choice's first derender call carries render's compact
  ``derender_context`` (settings + prompt tail); later calls only the state. Without a context
  (a vLLM render) or with ``vllm_compatible``, vLLM's ``chat_request``/``completion_request`` and
  ``prompt_token_ids`` travel instead (on every call when ``vllm_compatible``).
- **One state per choice index.** The engine interleaves single-choice events of the ``n``
  choices; :class:`StreamDerenderer` keeps each index's ``stream_state`` and sends every event with
  its own index's state. A usage-only event (``choices: []``) rides with index 0's state.
- **Batching what is already waiting.** A reader task queues engine events as they arrive; each
  round takes everything queued (up to ``chunks_per_call`` events), groups it by choice index and
  derenders each group in one call (``generate_chunks``, tito's extension; one event alone goes as
  vLLM's ``generate_chunk``); groups of different indices run concurrently. Outputs come back in
  engine order. Derender is chunking-invariant, so batching changes cost, never output.
- **Waiting a little for more** (:class:`CoalescePolicy`, off by default). Every call costs a
  request fee whatever it carries, so a round may also wait for more events: the first round
  not at all (the first token is never delayed), then a window that starts at ``start`` and grows
  by ``growth`` per round up to ``max_wait``, counted from the round's first event. A round ends
  early when ``chunks_per_call`` events are in or the engine stream ends.
- **Oversized batch answers.** A batch derender (chat, completions, Responses) whose request or
  answer would not fit the functions' payload limit (Lambda's 6 MB, counted as the event carries
  the body: JSON-escaped; top-5 logprobs pass it near 14k tokens) is sent as streamed calls and
  assembled into the very answer the batch call would give (:mod:`tito.adapters.batch_split`).
- **What the user sees.** A derendered chunk whose only choice carries nothing (text held back by
  the detokenizer or a stop-string prefix) is not forwarded, nor is anything for a choice after it
  finished; a usage-only chunk always is. Every chunk of one response shares one ``id`` (the
  engine request's) and one ``created`` (fixed when the stream starts; derender would otherwise
  stamp each choice's first call separately).
- **Stop strings abort the engine.** When every choice has finished as far as the user is
  concerned and derender ended at least one of them (a stop string fired) while the engine is
  still generating it, the client posts the request id to ``/inference/v1/abort_requests`` once,
  then reads the engine stream to its end (the trailing usage event still counts).
  Engine-side ``stop`` strings are removed from the request by default
  (``engine_stop_strings=False``): a ``--tokens-only`` vLLM refuses them (400), and derender
  enforces them exactly anyway. A stage failing mid-stream, or the caller closing the stream
  early (a user who disconnected from the gateway), aborts the engine request too.
- The same :class:`StreamDerenderer` drives replay, so a replayed capture yields the very bytes
  the gateway sent (see :func:`sse_event`).

The package's modules: :mod:`~tito.client.openai_api` (:class:`TitoClient`),
:mod:`~tito.client.stages` (reaching render, the engine and derender),
:mod:`~tito.client.stream_driver` (the sans-I/O :class:`StreamDerenderer`),
:mod:`~tito.client.engine_events` (the engine's SSE, :class:`CoalescePolicy`),
:mod:`~tito.client.tasks` (asyncio plumbing), :mod:`~tito.client.wire` (paths, SSE, errors).
Every public name is importable from ``tito.client`` itself.
"""

from tito.client.engine_events import CoalescePolicy
from tito.client.openai_api import TitoClient
from tito.client.stream_driver import (
    DerenderCall,
    StreamContext,
    StreamDerenderer,
    StreamObserver,
    derender_batch,
    derender_batch_sync,
)
from tito.client.wire import (  # the paths too: public names of the one-module client
    ABORT_PATH,
    DEFAULT_CHUNKS_PER_CALL,
    DERENDER_PATHS,
    GENERATE_PATH,
    RENDER_PATHS,
    RESPONSES_DERENDER_PATH,
    RESPONSES_RENDER_PATH,
    SSE_DONE,
    Endpoint,
    Target,
    TitoClientError,
    engine_error_body,
    error_body,
    sse_event,
)

__all__ = [
    "SSE_DONE",
    "CoalescePolicy",
    "DerenderCall",
    "Endpoint",
    "StreamContext",
    "StreamDerenderer",
    "StreamObserver",
    "Target",
    "TitoClient",
    "TitoClientError",
    "derender_batch",
    "derender_batch_sync",
    "engine_error_body",
    "error_body",
    "sse_event",
]
