"""``TitoClient``: OpenAI's chat, completions and Responses, batch and streamed, over the stages.

Why here and not in :mod:`tito.client.stages`: these are the OpenAI operations (render, then the
engine, then derender, as the package header describes); the stages module only reaches the
services and reports their failures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from typing import Any

from tito.client.engine_events import _EngineRun
from tito.client.stages import StageClient
from tito.client.stream_driver import StreamContext, StreamDerenderer, derender_batch
from tito.client.tasks import _background, _merge
from tito.client.wire import (
    DERENDER_PATHS,
    GENERATE_PATH,
    RESPONSES_DERENDER_PATH,
    RESPONSES_RENDER_PATH,
    Endpoint,
    TitoClientError,
)
from tito.errors import ErrorType, error_body
from tito.service.responses_assembler import Assembler


class TitoClient(StageClient):
    """OpenAI chat and completions, batch and streamed, over render, an engine and derender.

    ``render``/``derender``: base URLs, ASGI apps or ``httpx.AsyncClient``s; ``None`` runs tito's
    own app in-process. ``engine``: the generate server (a vLLM ``--tokens-only`` server, the fake
    engine...), same kinds. ``capture``: called with each stream's :class:`StreamContext`, returns
    a :class:`StreamObserver` (or None) that sees that stream (the gateway's ``--capture-dir``).
    ``clock`` stamps each stream's ``created`` (inject a fixed one for reproducible output).
    ``http_shards``: connection pools per URL stage (see :class:`_Stage`). ``coalesce``: the wait
    window of streamed derender rounds (:class:`CoalescePolicy`; default: never wait).
    ``max_payload_bytes``: the largest derender request or answer sent in one batch call, counted
    as the Lambda event carries it (JSON-escaped); larger ones (chat, completions, Responses) are
    split into streamed calls (default: what fits Lambda's 6 MB payload limit).
    """

    # -- batch ---------------------------------------------------------------------------------

    async def chat(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A chat completion (``ChatCompletion`` JSON) for an OpenAI chat request."""
        return await self._batch("chat", {**request, "stream": False})

    async def completions(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A completion (``Completion`` JSON) for an OpenAI completions request."""
        return await self._batch("completions", {**request, "stream": False})

    async def _batch(self, endpoint: Endpoint, request: dict[str, Any]) -> dict[str, Any]:
        gens = await self.render(endpoint, request)
        responses = await asyncio.gather(*(
            self._post("generate", self.engine_http, GENERATE_PATH,
                       self._engine_body(g, False, None)) for g in gens))
        contexts = [self._context(endpoint, request, g) for g in gens]
        first = contexts[0]
        body: dict[str, Any] = first.derender_fields(vllm_compatible=self.vllm_compatible)
        if endpoint == "chat":
            body["generate_response"] = responses[0]
            body["prompt_tokens"] = first.prompt_tokens
        else:
            body["generate_responses"] = responses
            body["prompt_tokens"] = [c.prompt_tokens for c in contexts]
            if "derender_context" not in body:
                body["prompt_token_ids"] = [c.prompt_token_ids for c in contexts]
            elif len(contexts) > 1:  # one context for all: each prompt's own tail seeds it
                body["prompt_token_ids"] = [
                    (c.derender_context or {}).get("prompt_token_ids")  # echo: the whole prompt
                    or (c.derender_context or {}).get("prompt_tail") for c in contexts]
        return await self._derender_batch(endpoint, body, contexts, responses)

    async def _derender_batch(self, endpoint: Endpoint, body: dict[str, Any],
                              contexts: Sequence[StreamContext],
                              responses: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """One batch derender call, or streamed ones when it would not fit the payload limit
        (:mod:`tito.adapters.batch_split`): the same answer either way."""
        from tito.adapters import batch_split

        path = DERENDER_PATHS[endpoint]
        content = json.dumps(body).encode()

        async def whole() -> dict[str, Any]:
            return dict(await self._post("derender", self.derender_http, path, body, content))

        async def split(request_bytes: int) -> dict[str, Any]:
            firsts = [{**c.derender_fields(vllm_compatible=self.vllm_compatible),
                       **({"prompt_tokens": c.prompt_tokens} if c.prompt_tokens is not None
                          else {})} for c in contexts]
            return await batch_split.derender_split(
                endpoint, path, body,
                "generate_response" if endpoint == "chat" else "generate_responses",
                firsts, request_bytes, self.max_payload_bytes, self._derender_post,
                every_call=self.vllm_compatible)

        return await batch_split.whole_or_split(content, responses, self.max_payload_bytes,
                                                whole, split)

    async def _derender_post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return dict(await self._post("derender", self.derender_http, path, body))

    def _context(self, endpoint: Endpoint, request: Mapping[str, Any],
                 gen: Mapping[str, Any]) -> StreamContext:
        ids = list(gen.get("token_ids") or [])
        sp = gen.get("sampling_params") or {}
        context = gen.get("derender_context")
        return StreamContext(endpoint=endpoint, model=request.get("model") or gen.get("model"),
                             prompt_token_ids=ids, prompt_tokens=len(ids), request=dict(request),
                             derender_context=dict(context) if isinstance(context, dict) else None,
                             n=int(sp.get("n") or 1))

    # -- streaming -----------------------------------------------------------------------------

    def chat_stream(self, request: Mapping[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The chunks (``ChatCompletionChunk`` JSON) of a streamed chat completion."""
        return self._stream("chat", {**request, "stream": True})

    def completions_stream(self, request: Mapping[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The chunks (``Completion`` JSON) of a streamed completion."""
        return self._stream("completions", {**request, "stream": True})

    async def _stream(self, endpoint: Endpoint,
                      request: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        gens = await self.render(endpoint, request)
        created = int(self.clock())
        contexts = [self._context(endpoint, request, g) for g in gens]
        for k, ctx in enumerate(contexts):
            ctx.created = created
            ctx.index_offset = k * ctx.n
            if len(gens) > 1:  # one response, one id: the first engine request's
                ctx.id = "generate-tokens-" + str(gens[0].get("request_id"))
        options = request.get("stream_options")
        streams = [self._one_stream(g, ctx, options) for g, ctx in zip(gens, contexts)]
        if len(streams) == 1:
            async with contextlib.aclosing(streams[0]) as only:  # closing it aborts the engine
                async for chunk in only:
                    yield chunk
            return
        usage: list[dict[str, Any]] = []
        async for chunk in _merge(streams):
            if not chunk.get("choices") and chunk.get("usage"):
                usage.append(chunk)  # one usage chunk per engine stream: sum them at the end
                continue
            yield chunk
        if usage:
            total = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
            for chunk in usage:
                for key in total:
                    total[key] += int(chunk["usage"].get(key) or 0)
            yield {**usage[0], "usage": {**usage[0]["usage"], **total}}

    async def _one_stream(self, gen: Mapping[str, Any], ctx: StreamContext,
                          stream_options: Any) -> AsyncGenerator[dict[str, Any], None]:
        driver = StreamDerenderer(ctx, vllm_compatible=self.vllm_compatible)
        observer = self.capture(ctx) if self.capture is not None else None
        error: dict[str, Any] | None = None

        async def send(path: str, body: dict[str, Any]) -> dict[str, Any]:
            return dict(await self._post("derender", self.derender_http, path, body))

        engine = _EngineRun("generate-tokens-" + str(gen.get("request_id")))
        try:
            async with contextlib.aclosing(
                    self._engine_batches(gen, stream_options, engine, observer)) as batches:
                async for batch in batches:
                    for chunk in await derender_batch(driver, batch, send):
                        if observer is not None:
                            observer.output(chunk)
                        yield chunk
                    if driver.should_abort:
                        driver.aborted = True
                        with contextlib.suppress(TitoClientError):
                            await self.abort([engine.response_id])
        except BaseException as exc:
            if isinstance(exc, TitoClientError):
                error = exc.body
            if not engine.done and not driver.aborted:
                # a stage failed or the user went away: free the engine's slot
                driver.aborted = True
                _background(self.abort([engine.response_id]))
            raise
        finally:
            if observer is not None:
                observer.close(error)

    # -- Responses -------------------------------------------------------------------------------

    async def _render_responses(self, request: Mapping[str, Any]) -> dict[str, Any]:
        gen = await self._post("render", self.render_http, RESPONSES_RENDER_PATH, request)
        if not isinstance(gen, dict) or "token_ids" not in gen:
            raise TitoClientError("render", 502, error_body(
                "render returned no GenerateRequest", type_=ErrorType.BAD_GATEWAY, code=502))
        return gen

    @staticmethod
    def _responses_fields(request: Mapping[str, Any], gen: Mapping[str, Any]) -> dict[str, Any]:
        """What the first Responses derender call needs: render's context, else the request."""
        out: dict[str, Any] = {"model": request.get("model") or gen.get("model")}
        if isinstance(gen.get("derender_context"), dict):
            out["derender_context"] = gen["derender_context"]
        else:
            out["responses_request"] = dict(request)
            out["prompt_token_ids"] = list(gen.get("token_ids") or [])
        return out

    async def responses(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """An OpenAI ``Response`` (JSON) for a Responses request."""
        gen = await self._render_responses({**request, "stream": False})
        answer = await self._post("generate", self.engine_http, GENERATE_PATH,
                                  self._engine_body(gen, False, None))
        fields = self._responses_fields(request, gen)
        body = {**fields, "generate_response": answer}
        content = json.dumps(body).encode()
        from tito.adapters import batch_split

        async def whole() -> dict[str, Any]:
            return dict(await self._post("derender", self.derender_http,
                                         RESPONSES_DERENDER_PATH, body, content))

        async def split(request_bytes: int) -> dict[str, Any]:
            return await batch_split.responses_split(
                RESPONSES_DERENDER_PATH, body, fields, request_bytes, self.max_payload_bytes,
                self._derender_post)

        return await batch_split.whole_or_split(content, [answer], self.max_payload_bytes,
                                                whole, split)

    async def responses_stream(
        self, request: Mapping[str, Any]
    ) -> AsyncGenerator[dict[str, Any], None]:
        """The Responses stream events (``ResponseStreamEvent`` JSON) of a streamed response:
        one derender call per batch of waiting engine events, the engine aborted when derender
        finished the response first (a stop string). Derender's compact events are completed
        here (:mod:`tito.service.responses_assembler`): the user gets OpenAI's whole events."""
        gen = await self._render_responses({**request, "stream": True})
        run = _EngineRun("generate-tokens-" + str(gen.get("request_id")))
        assembler = Assembler()
        engine_finished = False
        state: dict[str, Any] | None = None
        aborted = False
        try:
            async with contextlib.aclosing(self._engine_batches(gen, None, run)) as batches:
                async for batch in batches:
                    body: dict[str, Any] = {"stream": True, "stream_state": state}
                    body.update(self._responses_fields(request, gen) if state is None
                                else {"model": request.get("model") or gen.get("model")})
                    if len(batch) == 1:
                        body["generate_chunk"] = batch[0]
                    else:
                        body["generate_chunks"] = batch
                    out = await self._post("derender", self.derender_http,
                                           RESPONSES_DERENDER_PATH, body)
                    state = out["stream_state"]
                    engine_finished = engine_finished or any(
                        c.get("finish_reason") is not None
                        for e in batch for c in e.get("choices") or [])
                    for event in out["events"]:
                        yield assembler.feed(event)
                    if state.get("stop_fired") and not engine_finished and not aborted:
                        aborted = True
                        with contextlib.suppress(TitoClientError):
                            await self.abort([run.response_id])
        except BaseException:
            if not run.done and not aborted:
                _background(self.abort([run.response_id]))
            raise
