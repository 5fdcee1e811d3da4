"""Derender operations: one request in, one OpenAI response (or one stream chunk) out.

Why this layer: it is where a request meets the core. It resolves the model, checks the bounds of
spec 3.1 (each a 400 naming the limit, checked before any decoding), turns the request's fields into
the pipeline's :class:`~tito.core.pipeline.ChoiceConfig`, runs the per-choice state machine and
shapes the result with the protocol models. A batch derender is the stream of one chunk plus
finish, through the very same :func:`~tito.core.pipeline.step_choice`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tito.core.parsers.reasoning import get_reasoning_parser
from tito.core.pipeline import (
    ChoiceConfig,
    ChoiceOutput,
    ChoiceState,
    start_choice,
    step_choice,
    tool_parser_for,
)
from tito.core.sampling import MAX_N_SEQUENCES  # choices per response, responses per request
from tito.errors import BadRequest, quote
from tito.models import ServedModel
from tito.protocol import (
    ChatCompletionLogProbs,
    ChatCompletionRequest,
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatMessage,
    DerenderChatRequest,
    DerenderChatStreamRequest,
    FunctionCall,
    GenerateTokensStreamResponse,
    ToolCall,
    UsageInfo,
)
from tito.protocol.common import CompletionTokenUsageInfo
from tito.service import stream_body, stream_chunks, stream_state
from tito.service.config import chat_config, completion_config

if TYPE_CHECKING:  # the completions models: imported where used (a chat derender function
    # never defines them)
    from tito.protocol import (
        CompletionRequest,
        CompletionResponse,
        DerenderCompletionRequest,
        DerenderCompletionStreamRequest,
    )


# -- bounds ------------------------------------------------------------------------------------


def _check_ids(model: ServedModel, ids: Sequence[int] | None, param: str) -> None:
    if not ids:
        return
    limit = model.config.max_model_len
    if len(ids) > limit:
        raise BadRequest(
            f"{param} has {len(ids)} token ids, more than max_model_len ({limit})", param=param
        )
    size = model.vocab_size or model.vocab.size  # padded rows decode to "" (vLLM)
    if max(ids) < size:  # (at C speed: the usual case)
        return
    bad = next((i for i in ids if i >= size), None)
    if bad is not None:
        raise BadRequest(
            f"{param} contains token id {bad}, outside the vocabulary of model "
            f"{model.name!r} (size {size})",
            param=param,
        )


def _check_logprobs(model: ServedModel, logprobs: Any, param: str) -> None:
    if logprobs is None or logprobs.content is None:
        return
    limit = model.config.max_model_len
    if len(logprobs.content) > limit:
        raise BadRequest(
            f"{param}.content length {len(logprobs.content)} exceeds max_model_len ({limit})",
            param=f"{param}.content",
        )
    max_lp = model.config.max_logprobs
    if max_lp < 0:
        return
    for entry in logprobs.content:  # dicts (integer-id shape) or models (legacy shape)
        top = entry.get("top_logprobs") if type(entry) is dict else entry.top_logprobs
        n = len(top or ())
        if n > max_lp:
            raise BadRequest(
                f"{param}.content top_logprobs count {n} exceeds max_logprobs ({max_lp})",
                param=f"{param}.content",
            )


def _check_choice_count(n: int, what: str, param: str) -> None:
    if n > MAX_N_SEQUENCES:
        raise BadRequest(
            f"{what} count {n} exceeds the limit of {MAX_N_SEQUENCES}", param=param
        )


def _check_response(model: ServedModel, resp: Any, param: str) -> None:
    if getattr(resp, "output_mode", "tokens") != "tokens":
        raise BadRequest(
            "derender accepts only output_mode 'tokens' generate responses", param=param
        )
    _check_choice_count(len(resp.choices), "choices", f"{param}.choices")
    for i, choice in enumerate(resp.choices):
        _check_ids(model, choice.token_ids, f"{param}.choices.{i}.token_ids")
        _check_logprobs(model, choice.logprobs, f"{param}.choices.{i}.logprobs")
    limit = model.config.max_model_len
    if resp.prompt_logprobs is not None and len(resp.prompt_logprobs) > limit:
        raise BadRequest(
            f"prompt_logprobs length {len(resp.prompt_logprobs)} exceeds max_model_len ({limit})",
            param=f"{param}.prompt_logprobs",
        )
    _check_ids(model, getattr(resp, "prompt_token_ids", None), f"{param}.prompt_token_ids")


# -- shaping -----------------------------------------------------------------------------------


def _engine_logprobs(choice: Any) -> list[dict[str, Any]] | None:
    """The choice's logprob entries as plain dicts (integer-id or legacy shape), or None."""
    if choice.logprobs is None or choice.logprobs.content is None:
        return None
    content = choice.logprobs.content
    if not content or type(content[0]) is dict:
        return content  # the integer-id shape: held as dicts (``GenerateLogProbs``)
    return choice.logprobs.model_dump()["content"]  # legacy: one serializer call for all


def _token_ids(cfg: ChoiceConfig, ids: Sequence[int] | None) -> list[int] | None:
    """``return_token_ids``: the choice's (or chunk's) engine ids, as vLLM returns them; hidden
    with the reasoning when ``include_reasoning`` is false on the parser path (they would leak
    it)."""
    if not cfg.return_token_ids or (not cfg.include_reasoning and _parsing(cfg)):
        return None
    return list(ids or [])


def _has_logprobs(choice: Any) -> bool:
    return choice.logprobs is not None


def _chat_logprobs(out: ChoiceOutput) -> ChatCompletionLogProbs:
    """The choice's resolved logprob entries as the wire model, not validated again: they are
    :func:`tito.core.logprobs.resolve`'s own dicts, of exactly the wire shape (a batch has tens
    of thousands); :func:`_dump_chat` puts them into the dumped response as they are."""
    return ChatCompletionLogProbs.model_construct(content=out.logprobs)


def _usage(prompt_tokens: int, completion_tokens: int, reasoning: int | None) -> UsageInfo:
    return UsageInfo(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
        completion_tokens_details=(
            CompletionTokenUsageInfo(reasoning_tokens=reasoning) if reasoning is not None else None
        ),
    )


def _reasoning_tokens(cfg: ChoiceConfig, state: ChoiceState) -> int | None:
    if cfg.reasoning_parser is None:
        return None
    if state.harmony is not None:
        return state.harmony.reasoning_tokens
    if state.reasoning is None:
        return None
    return state.reasoning.reasoning_tokens


def _merge_calls(outputs: list[ChoiceOutput]) -> list[ToolCall]:
    """Collapse streamed tool-call deltas into complete calls (batch shape)."""
    calls: dict[int, dict[str, str]] = {}
    for out in outputs:
        for d in out.tool_calls:
            c = calls.setdefault(d.index, {"id": "", "name": "", "arguments": ""})
            c["id"] = d.id or c["id"]
            c["name"] = d.name or c["name"]
            c["arguments"] += d.arguments
    return [
        ToolCall(id=c["id"], function=FunctionCall(name=c["name"], arguments=c["arguments"]))
        for _, c in sorted(calls.items())
    ]


# -- request settings --------------------------------------------------------------------------


def _seed(
    request_ids: Sequence[int] | None, engine_ids: Sequence[int] | None, context: Any
) -> Sequence[int] | None:
    """Prompt ids seeding the detokenizer: request, then engine payload, then render's context."""
    if request_ids is not None:
        return request_ids
    if engine_ids is not None:
        return engine_ids
    if context is not None and getattr(context, "prompt_token_ids", None):
        return context.prompt_token_ids  # echo: the whole prompt
    if context is not None and context.prompt_tail:
        return context.prompt_tail
    return None


def _prompt_tokens(req: Any) -> int:
    if req.prompt_tokens is not None:
        return int(req.prompt_tokens)
    context = getattr(req, "derender_context", None)
    return int(context.prompt_tokens or 0) if context is not None else 0


def _batch_choice(
    model: ServedModel,
    cfg: ChoiceConfig,
    seed: Sequence[int] | None,
    choice: Any,
    response_id: str,
    index: int,
) -> tuple[ChoiceState, ChoiceOutput]:
    """A whole choice through the streaming state machine: one chunk with every id, then finish.

    This is what makes batch == stream by construction: there is no separate batch decoder.
    """
    state = start_choice(model.vocab, cfg, seed)
    return step_choice(
        model.vocab,
        cfg,
        state,
        list(choice.token_ids or []),
        finish_reason=choice.finish_reason or "stop",
        engine_logprobs=_engine_logprobs(choice),
        response_id=response_id,
        choice_index=index,
    )


# -- chat --------------------------------------------------------------------------------------


def derender_chat(model: ServedModel, req: DerenderChatRequest) -> ChatCompletionResponse:
    """Batch chat derender: every choice through the pipeline as one chunk plus finish."""
    resp = req.generate_response
    _check_response(model, resp, "generate_response")
    _check_ids(model, req.prompt_token_ids, "prompt_token_ids")
    cfg = chat_config(model, req.chat_request or req.derender_context)
    seed = _seed(req.prompt_token_ids, resp.prompt_token_ids, req.derender_context)
    choices = []
    completion_tokens = 0
    reasoning_total: int | None = None
    for choice in resp.choices:
        completion_tokens += len(choice.token_ids or [])
        state, out = _batch_choice(model, cfg, seed, choice, resp.request_id, choice.index)
        r = _reasoning_tokens(cfg, state)
        if r is not None:
            reasoning_total = (reasoning_total or 0) + r
        tool_calls = _merge_calls([out])
        content: str | None = out.text
        parsing = cfg.reasoning_parser is not None or cfg.tool_choice != "none"
        if parsing and not content:  # vLLM's parser path: no content is null, not ""
            content = "" if cfg.tool_choice in ("required", "named") else None
        choices.append(
            ChatCompletionResponseChoice(
                index=choice.index,
                message=ChatMessage(
                    role="assistant",
                    content=content,
                    reasoning=out.reasoning or None,
                    tool_calls=tool_calls,
                ),
                logprobs=(
                    _chat_logprobs(out) if _has_logprobs(choice) else None
                ),
                finish_reason=out.finish_reason,
                stop_reason=out.stop_reason,
                token_ids=_token_ids(cfg, choice.token_ids),
            )
        )
    return ChatCompletionResponse(
        id=resp.request_id,
        created=int(time.time()),
        model=req.model or model.name,
        choices=choices,
        usage=_usage(_prompt_tokens(req), completion_tokens, reasoning_total),
        prompt_logprobs=resp.prompt_logprobs,
        kv_transfer_params=resp.kv_transfer_params,
        metrics=resp.metrics,
    )


def _replayed(cfg: ChoiceConfig) -> bool:
    """Is the state of these settings more than vLLM's window fields can carry (parsers, or stop
    strings with their hold-back and fired flag)? A client keeping only vLLM's fields then
    continues by replaying ``output_token_ids``, vLLM's own method."""
    return _parsing(cfg) or bool(cfg.stop.stop)


def _parsing(cfg: ChoiceConfig) -> bool:
    """Does a reasoning or tool parser run for these settings?"""
    return cfg.reasoning_parser is not None or cfg.tool_choice != "none"


def _stream_chunks(req: Any) -> list[GenerateTokensStreamResponse]:
    chunks = req.generate_chunks if req.generate_chunks is not None else [req.generate_chunk]
    return [c for c in chunks if c is not None]


def _check_wire_state(
    model: ServedModel, cfg: ChoiceConfig, state: ChoiceState, *, completion: bool
) -> None:
    """A client-carried state must hold settings this model and endpoint can issue.

    Why: an unsigned state can say anything. Its settings are checked against what
    :mod:`tito.service.config` can derive for this model and endpoint (the parsers are the
    model's, never the client's choice), and its parser phases against the format's phases, so
    a tampered state is a 400 or decodes as some honest request would have.
    """
    def bad(message: str, param: str) -> BadRequest:
        return BadRequest(f"stream_state was not issued for this stream: {message}",
                          param=f"stream_state.tito.{param}")

    if cfg.completion != completion:
        kind = "completions" if cfg.completion else "chat"
        raise bad(f"it is a {kind} stream state", "cfg.completion")
    reasoning = None if completion else model.config.reasoning_parser
    if cfg.reasoning_parser not in (None, reasoning):
        raise bad("reasoning_parser is not this model's", "cfg.reasoning_parser")
    tool_parser = model.config.tool_parser if cfg.tool_choice != "none" else None
    if cfg.tool_parser != tool_parser or (completion and cfg.tool_choice != "none"):
        raise bad("tool settings are not this model's", "cfg.tool_parser")
    if (cfg.tool_choice == "named") != bool(cfg.named_tool):
        raise bad("named_tool goes with tool_choice 'named'", "cfg.named_tool")
    size = model.vocab_size  # the model's rows: padded ids are valid output
    if state.pending is not None and state.pending >= size:
        raise bad("pending is not a token id of this model", "st.pending")
    if any(not 0 <= i < size for i in state.lp_context):
        raise bad("logprob context ids are outside the vocabulary", "st.lp_context")
    if state.tools is not None:
        if cfg.tool_choice == "none":
            raise bad("a tool parser state without tools", "st.tools")
        if state.tools.phase not in tool_parser_for(cfg).phases:
            raise bad(f"unknown tool parser phase '{quote(state.tools.phase)}'", "st.tools.phase")
    if state.reasoning is not None:
        if cfg.reasoning_parser is None:
            raise bad("a reasoning state without a reasoning parser", "st.reasoning")
        if (state.reasoning.start_id, state.reasoning.end_id) != _marker_ids(
                model.vocab, cfg.reasoning_parser):
            raise bad("reasoning marker ids are not this model's", "st.reasoning")


@lru_cache(maxsize=64)
def _marker_ids(vocab: Any, reasoning_parser: str) -> tuple[int | None, int | None]:
    """The ids of a reasoning format's start and end markers in ``vocab`` (once per pair)."""
    parser = get_reasoning_parser(reasoning_parser)
    return vocab.token_id(parser.start), vocab.token_id(parser.end)


class _Stream:
    """The per-call context of a streaming derender: state in, chunks out, state back."""

    #: the choice state came from the client (``stream_state.tito``), not from this server
    from_wire = False

    def __init__(
        self,
        model: ServedModel,
        req: Any,
        request_obj: ChatCompletionRequest | CompletionRequest | None,
        *,
        completion: bool,
    ) -> None:
        self.model = model
        self.req = req
        self.completion = completion
        chunks = _stream_chunks(req)
        if not chunks:
            raise BadRequest("a streaming derender needs generate_chunk or generate_chunks",
                             param="generate_chunk")
        for k, chunk in enumerate(chunks):
            param = "generate_chunk" if req.generate_chunks is None else f"generate_chunks.{k}"
            if getattr(chunk, "output_mode", "tokens") != "tokens":
                raise BadRequest("derender accepts only output_mode 'tokens' chunks", param=param)
            if len(chunk.request_id) > stream_state.MAX_ID_CHARS:
                raise BadRequest(
                    f"{param}.request_id is {len(chunk.request_id)} characters long; at most "
                    f"{stream_state.MAX_ID_CHARS} are accepted.", param=f"{param}.request_id")
            if len(chunk.choices) > 1:
                kind = "completion" if completion else "chat"
                raise BadRequest(
                    f"derender_{kind}_stream expects at most one choice per chunk "
                    f"(got {len(chunk.choices)}).",
                    param=f"{param}.choices",
                )
            for choice in chunk.choices:
                _check_ids(self.model, choice.token_ids, f"{param}.choices.0.token_ids")
                _check_logprobs(self.model, choice.logprobs, f"{param}.choices.0.logprobs")
        self.chunks = chunks
        self.echo_prefix = ""
        #: ids replayed / to replay in vLLM's ``output_token_ids`` (None: not carried)
        self.history: list[int] | None = None
        self.history_lens: list[int] = []
        _check_ids(model, req.prompt_token_ids, "prompt_token_ids")
        if getattr(req, "derender_context", None) is not None:
            _check_ids(model, req.derender_context.prompt_token_ids,
                       "derender_context.prompt_token_ids")
        self._load_state(request_obj)

    def _load_state(self, request_obj: Any) -> None:
        model, req = self.model, self.req
        vocab = model.vocab
        first = self.chunks[0]
        raw = None
        if req.stream_state is not None:
            raw = req.stream_state.model_dump(mode="json")
            loaded = stream_state.decode(vocab, raw, model=model.name,
                                         sent=req.stream_state.model_fields_set)
            if loaded is not None:
                self.meta, self.cfg, self.state = loaded
                _check_wire_state(model, self.cfg, self.state, completion=self.completion)
                for k, chunk in enumerate(self.chunks):
                    if chunk.request_id != self.meta.id:  # a state is bound to its stream
                        param = ("generate_chunk" if req.generate_chunks is None
                                 else f"generate_chunks.{k}")
                        raise BadRequest(
                            f"stream_state belongs to stream '{quote(self.meta.id)}', not "
                            f"'{quote(chunk.request_id)}': keep one state per stream",
                            param=f"{param}.request_id",
                        )
                self.from_wire = True
                return
        # First call, or a client that kept only vLLM's fields: settings from the request.
        self.cfg = (completion_config if self.completion else chat_config)(model, request_obj)
        index = next((c.choices[0].index for c in self.chunks if c.choices), 0)
        n = max(1, int(getattr(request_obj, "n", None) or 1))
        if n > MAX_N_SEQUENCES:  # as render refuses it (vLLM's _verify_num_sequences)
            where = ("derender_context" if request_obj is getattr(req, "derender_context", None)
                     else "completion_request" if self.completion else "chat_request")
            raise BadRequest(f"n must be at most {MAX_N_SEQUENCES}, got {n}", param=f"{where}.n")
        self.meta = stream_state.StreamMeta.model_validate(dict(
            model=model.name, id=first.request_id, created=int(time.time()), index=index,
            prompt_tokens=req.prompt_tokens if req.prompt_tokens is not None else (
                req.derender_context.prompt_tokens if req.derender_context is not None else None),
            n=n,
        ))
        engine_seed = next((c.prompt_token_ids for c in self.chunks if c.prompt_token_ids), None)
        seed = _seed(req.prompt_token_ids, engine_seed, req.derender_context)
        if raw is None:
            self.state = start_choice(vocab, self.cfg, seed)
            if self.completion and _echo_requested(request_obj):
                self.echo_prefix = _echo(model, self.cfg, seed, None)[0]
                self.state.text_offset = len(self.echo_prefix)
            # vLLM compatibility: a client that will keep only vLLM's fields can continue a
            # parser stream by replay (below) if the first chunk's ids travel in vLLM's
            # replay fields; later tito states leave them empty.
            self.history = [] if _replayed(self.cfg) else None
        elif _replayed(self.cfg):
            self._replay_vllm_state(raw, seed)
        else:
            self.state = stream_state.plain_state(vocab, self.cfg, raw)

    def _replay_vllm_state(self, raw: dict[str, Any], seed: Sequence[int] | None) -> None:
        """A vLLM-shaped state on the parser (or stop-string) path: rebuild the parsers and the
        stop hold-back by replaying vLLM's ``output_token_ids`` in their original chunks, as vLLM
        does (O(history): the price of a client that drops ``stream_state.tito``)."""
        history = list(raw.get("output_token_ids") or [])
        lens = list(raw.get("output_chunk_lens") or [])
        if seed is None and _parsing(self.cfg):
            raise BadRequest(
                "prompt_token_ids is required on every call when the stream_state has no tito "
                "object and a reasoning or tool parser is configured",
                param="prompt_token_ids",
            )
        _check_ids(self.model, history, "stream_state.output_token_ids")
        state = start_choice(self.model.vocab, self.cfg, seed)
        pos = 0
        for n in lens:
            state, _ = step_choice(
                self.model.vocab, self.cfg, state, history[pos : pos + n], finish_reason=None,
                response_id=self.meta.id, choice_index=self.meta.index,
            )
            pos += n
        state.finished = state.finished or bool(raw.get("stop_fired"))
        # what replay without the engine's logprobs cannot rebuild rides in vLLM's own fields
        state.role_sent = state.role_sent or bool(raw.get("role_sent"))
        state.lp_context = list(raw.get("logprob_context_token_ids") or state.lp_context)
        state.text_offset = int(raw.get("logprob_text_offset") or state.text_offset)
        self.state = state
        self.history = history
        self.history_lens = lens

    def run(self) -> list[Any]:
        out = []
        for chunk in self.chunks:
            out.append(self._one(chunk))
        return out

    def _usage(self, chunk: GenerateTokensStreamResponse) -> UsageInfo | None:
        if chunk.usage is None:
            return None
        prompt = self.req.prompt_tokens
        if prompt is None:
            prompt = self.meta.prompt_tokens
        if prompt is None:
            prompt = chunk.usage.prompt_tokens or 0
        completion = chunk.usage.completion_tokens or 0
        # reasoning tokens are counted per choice: only meaningful for the usage of one choice
        reasoning = _reasoning_tokens(self.cfg, self.state) if self.meta.n == 1 else None
        return _usage(prompt, completion, reasoning)

    def _step(self, choice: Any) -> ChoiceOutput:
        """One engine choice of one chunk through the pipeline (state checked and advanced)."""
        if choice.index != self.meta.index:
            if self.state.tokens or self.state.role_sent or self.state.finished:
                raise BadRequest(
                    f"stream_state belongs to choice {self.meta.index}, not {choice.index}: "
                    "keep one state per choice index",
                    param="generate_chunk.choices.0.index",
                )
            self.meta = self.meta.model_copy(update={"index": choice.index})
        ids = list(choice.token_ids or [])
        limit = self.model.config.max_model_len
        if self.state.tokens + len(ids) > limit:
            raise BadRequest(
                f"the stream's output would exceed max_model_len ({limit}) tokens",
                param="generate_chunk.choices.0.token_ids",
            )
        if self.history is not None and ids:
            self.history.extend(ids)
            self.history_lens.append(len(ids))
        try:
            self.state, out = step_choice(
                self.model.vocab,
                self.cfg,
                self.state,
                ids,
                finish_reason=choice.finish_reason,
                engine_logprobs=_engine_logprobs(choice),
                response_id=self.meta.id,
                choice_index=choice.index,
            )
        except (ValueError, LookupError, TypeError, AttributeError, RuntimeError) as exc:
            if not self.from_wire or isinstance(exc, BadRequest):
                raise
            # A state that passed every field check yet is inconsistent (only a tampered
            # unsigned state can be): the client's fault, not a server error.
            raise BadRequest(
                "stream_state is inconsistent and cannot be continued; send back the state "
                "exactly as returned", param="stream_state.tito.st",
            ) from None
        return out

    def _one(self, chunk: GenerateTokensStreamResponse) -> dict[str, Any]:
        """One engine chunk -> the stream chunk, as the dict its wire model dumps."""
        choices = [self._choice(choice, self._step(choice)) for choice in chunk.choices]
        shape = stream_chunks.completion_chunk if self.completion else stream_chunks.chat_chunk
        return shape(self.meta.id, self.meta.created, self.req.model or self.model.name, choices,
                     self._usage(chunk), chunk.metrics)

    def _choice(self, choice: Any, out: ChoiceOutput) -> dict[str, Any]:
        token_ids = _token_ids(self.cfg, choice.token_ids)
        if self.completion:
            logprobs = None
            if _has_logprobs(choice):
                from tito.core import logprobs as lp
                from tito.protocol import CompletionLogProbs

                logprobs_dict, self.state.text_offset = lp.to_completion(
                    out.logprobs or [], self.state.text_offset
                )
                logprobs = CompletionLogProbs(**logprobs_dict)
            prefix, self.echo_prefix = self.echo_prefix, ""
            return stream_chunks.completion_choice(choice.index, prefix + out.text, out,
                                                   logprobs=logprobs, token_ids=token_ids)
        return stream_chunks.chat_choice(choice.index, out, logprobs=_has_logprobs(choice),
                                         token_ids=token_ids)

    def response(self, results: list[Any]) -> dict[str, Any]:
        replay = (self.history, self.history_lens) if self.history else None
        state = stream_state.encode(self.model.vocab, self.meta, self.cfg, self.state, replay=replay)
        if self.req.generate_chunks is not None:
            return {"chunk": None, "chunks": results, "stream_state": state}
        return {"chunk": results[0], "stream_state": state}


def derender_chat_stream(model: ServedModel, req: DerenderChatStreamRequest) -> dict[str, Any]:
    """One streaming call: the engine chunk(s) and the carried state in, chunk(s) and state out."""
    stream = _Stream(model, req, req.chat_request or req.derender_context, completion=False)
    return stream.response(stream.run())


# -- completions -------------------------------------------------------------------------------


def _echo_requested(req: CompletionRequest | None) -> bool:
    """``echo`` prepends the prompt; ``suffix`` is refused (as vLLM's render does)."""
    if req is None:
        return False
    if req.suffix is not None:
        raise BadRequest("suffix is not currently supported", param="suffix")
    return bool(req.echo)


def _echo(
    model: ServedModel,
    cfg: ChoiceConfig,
    prompt_ids: Sequence[int] | None,
    prompt_logprobs: list[Any] | None,
) -> tuple[str, dict[str, Any] | None, int]:
    """The echoed prompt: its text, its completion-shaped logprobs (when the engine sent
    ``prompt_logprobs``) and the text offset where the output's logprobs continue."""
    from tito.core import logprobs as lp

    if prompt_ids is None:
        raise BadRequest("echo needs the prompt: send prompt_token_ids", param="prompt_token_ids")
    text = model.vocab.decode(prompt_ids, skip_special_tokens=cfg.skip_special_tokens)
    if prompt_logprobs is None:
        return text, None, len(text)
    entries: list[dict[str, Any]] = []
    for pos, token_id in enumerate(prompt_ids):
        at = prompt_logprobs[pos] if pos < len(prompt_logprobs) else None
        if not at:
            entries.append({"token_id": token_id, "logprob": 0.0, "top_logprobs": []})
            continue
        mine = at.get(token_id)
        entries.append({
            "token_id": token_id,
            "logprob": mine.logprob if mine is not None else -9999.0,
            "top_logprobs": [{"token_id": t, "logprob": v.logprob} for t, v in at.items()],
        })
    resolved, _ = lp.resolve(model.vocab, entries, [])
    shaped, offset = lp.to_completion(resolved, 0)
    for pos in range(len(prompt_ids)):  # positions the engine could not score (the first)
        if pos >= len(prompt_logprobs) or not prompt_logprobs[pos]:
            shaped["token_logprobs"][pos] = None
            shaped["top_logprobs"][pos] = None
    return text, shaped, offset


def _join_lp(first: dict[str, Any] | None, second: dict[str, Any]) -> dict[str, Any]:
    if first is None:
        return second
    return {key: first[key] + second[key] for key in second}


def derender_completion(model: ServedModel, req: DerenderCompletionRequest) -> CompletionResponse:
    """Batch completions derender: every choice of every response, indices counted across them."""
    from tito.core import logprobs as lp
    from tito.protocol import CompletionLogProbs, CompletionResponse, CompletionResponseChoice

    responses = req.generate_responses
    if not responses:
        raise BadRequest("generate_responses must not be empty", param="generate_responses")
    _check_choice_count(len(responses), "generate_responses", "generate_responses")
    n = len(responses)
    if req.prompt_tokens is not None and len(req.prompt_tokens) != n:
        raise BadRequest(
            f"prompt_tokens has {len(req.prompt_tokens)} entries for {n} generate_responses",
            param="prompt_tokens",
        )
    if req.prompt_token_ids is not None and len(req.prompt_token_ids) != n:
        raise BadRequest(
            f"prompt_token_ids has {len(req.prompt_token_ids)} entries for {n} generate_responses",
            param="prompt_token_ids",
        )
    for r, resp in enumerate(responses):
        _check_response(model, resp, f"generate_responses.{r}")
        if req.prompt_token_ids is not None:
            _check_ids(model, req.prompt_token_ids[r], f"prompt_token_ids.{r}")
    settings = req.completion_request or req.derender_context
    if req.derender_context is not None:
        _check_ids(model, req.derender_context.prompt_token_ids, "derender_context.prompt_token_ids")
    cfg = completion_config(model, settings)
    echo = _echo_requested(settings)
    choices = []
    k = 0
    prompt_tokens = completion_tokens = 0
    for r, resp in enumerate(responses):
        seed = req.prompt_token_ids[r] if req.prompt_token_ids is not None else None
        if seed is None:
            seed = resp.prompt_token_ids
        if seed is None and len(responses) == 1:
            seed = _seed(None, None, req.derender_context)  # render's context (gateway path)
        for choice in resp.choices:
            completion_tokens += len(choice.token_ids or [])
            _, out = _batch_choice(model, cfg, seed, choice, resp.request_id, k)
            prefix, prefix_lp, offset = (
                _echo(model, cfg, seed, resp.prompt_logprobs) if echo else ("", None, 0)
            )
            logprobs = None
            if _has_logprobs(choice) or prefix_lp is not None:
                logprobs_dict, _ = lp.to_completion(out.logprobs or [], offset)
                logprobs = CompletionLogProbs(**_join_lp(prefix_lp, logprobs_dict))
            choices.append(
                CompletionResponseChoice(
                    index=k,
                    text=prefix + out.text,
                    logprobs=logprobs,
                    finish_reason=out.finish_reason,
                    stop_reason=out.stop_reason,
                    token_ids=_token_ids(cfg, choice.token_ids),
                )
            )
            k += 1
        prompt_tokens += req.prompt_tokens[r] if req.prompt_tokens is not None else 0
    kv = [resp.kv_transfer_params for resp in responses]
    return CompletionResponse(
        id=responses[0].request_id,
        created=int(time.time()),
        model=req.model or model.name,
        choices=choices,
        usage=_usage(prompt_tokens, completion_tokens, None),
        kv_transfer_params=kv[0] if all(x == kv[0] for x in kv) else None,
        metrics=responses[0].metrics if len(responses) == 1 else None,
    )


def derender_completion_stream(
    model: ServedModel, req: DerenderCompletionStreamRequest
) -> dict[str, Any]:
    """One streaming completions call (same state machine as chat, text-shaped output)."""
    stream = _Stream(model, req, req.completion_request or req.derender_context, completion=True)
    return stream.response(stream.run())


# -- route entry points (shared by the FastAPI routes and the derender ASGI app) ----------------


def handle_chat(body: DerenderChatRequest | DerenderChatStreamRequest) -> dict[str, Any]:
    """A validated chat derender body (batch or one streamed call) -> the response as a dict."""
    from tito.models import get_registry

    model = get_registry().get(body.model)
    if isinstance(body, DerenderChatStreamRequest):
        return derender_chat_stream(model, body)
    return _dump_chat(derender_chat(model, body))


def _dump_chat(resp: ChatCompletionResponse) -> dict[str, Any]:
    """The batch response as a dict, its resolved logprob entries put in as they are (already
    plain dicts of the wire shape: serializing tens of thousands again would only copy them)."""
    out = resp.model_dump(exclude={"choices": {"__all__": {"logprobs": {"content"}}}})
    for choice, dumped in zip(resp.choices, out["choices"], strict=True):
        if choice.logprobs is not None:
            dumped["logprobs"]["content"] = choice.logprobs.content
    return out


def handle_stream_body(data: Any, *, completion: bool) -> tuple[dict[str, Any], bool] | None:
    """(the answer, whether it is float-free) to a parsed JSON body that is the common streamed
    call (:func:`tito.service.stream_body.read`: checked by hand, no pydantic), or None:
    validate the body with its model and call :func:`handle_chat` / :func:`handle_completions`.

    Same answers and errors as those (the checks after validation are the same code)."""
    call = stream_body.read(data)
    if call is None:
        return None
    from tito.models import get_registry

    model = get_registry().get(call.model)
    if completion:
        return derender_completion_stream(model, call), call.float_free  # type: ignore[arg-type]
    return derender_chat_stream(model, call), call.float_free  # type: ignore[arg-type]


def handle_completions(
    body: DerenderCompletionRequest | DerenderCompletionStreamRequest,
) -> dict[str, Any]:
    """A validated completions derender body (batch or one streamed call) -> the response."""
    from tito.models import get_registry

    model = get_registry().get(body.model)
    if body.stream:  # DerenderCompletionStreamRequest (its stream is Literal[True])
        return derender_completion_stream(model, body)
    return derender_completion(model, body).model_dump()
