"""The streamed derender call: the carried state in, the engine chunk(s) through the pipeline,
the stream chunk(s) and the next state out (:class:`_Stream`, shared with the Responses
derender, which shapes the same steps as events).

Why a module of its own: it is the per-chunk path (state load and checks, vLLM-style replay for
a client that kept only vLLM's fields, one :func:`~tito.core.pipeline.step_choice` per engine
choice, the chunk dicts of :mod:`tito.service.stream_chunks`, the state encode), apart from the
batch derender of :mod:`tito.service.derender`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tito.core.pipeline import ChoiceOutput, pending_text, start_choice, step_choice
from tito.core.sampling import MAX_N_SEQUENCES
from tito.core.stop_tokens import stop_token_check
from tito.errors import BadRequest, quote
from tito.models import ServedModel
from tito.protocol import (
    ChatCompletionRequest,
    DerenderChatStreamRequest,
    GenerateTokensStreamResponse,
    UsageInfo,
)
from tito.service import stream_chunks, stream_state
from tito.service.config import chat_config, completion_config
from tito.service.derender_checks import _check_ids, _check_logprobs, _check_wire_state
from tito.service.derender_replay import replay_vllm_state
from tito.service.derender_shaping import (
    _echo,
    _echo_requested,
    _engine_logprobs,
    _hides_metadata,
    _reasoning_tokens,
    _replayed,
    _seed,
    _stream_chunks,
    _token_ids,
    _usage,
    stream_prompt_string,
)
from tito.service.stream_body import StreamCall, ensure_checked
from tito.service.stream_state_call import decode_checked
from tito.service.stream_state_kept import take_issued

if TYPE_CHECKING:  # the completions models: imported where used (a chat derender function
    # never defines them)
    from tito.protocol import CompletionRequest, DerenderCompletionStreamRequest

__all__ = ["derender_chat_stream", "derender_completion_stream"]


class _Stream:
    """The per-call context of a streaming derender: state in, chunks out, state back."""

    #: the choice state came from the client (``stream_state.tito``), not from this server
    from_wire = False
    #: ``meta`` was decoded for this call alone (:meth:`_fresh`), so nothing else holds it
    own_meta = False

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
        if req.__class__ is StreamCall and req.stream_state is not None and (
                self._kept() if req.stream_state.issued is not None else self._fresh()):
            return
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
            if len(chunk.choices) > 1:  # (vLLM's words: its completions check counts none)
                raise BadRequest(
                    "derender_completion_stream expects at most one choice per chunk"
                    if completion else "derender_chat_stream expects at most one choice per "
                    f"chunk (got {len(chunk.choices)}).", param=f"{param}.choices")
            for choice in chunk.choices:
                if choice.token_ids:
                    _check_ids(self.model, choice.token_ids, f"{param}.choices.0.token_ids")
                if choice.logprobs is not None:
                    _check_logprobs(self.model, choice.logprobs, f"{param}.choices.0.logprobs")
            if chunk.prompt_token_ids:  # (as the batch checks its response's)
                _check_ids(self.model, chunk.prompt_token_ids, f"{param}.prompt_token_ids")
        self.chunks = chunks
        self.echo_prefix = ""
        self.text_shift = 0  #: this chunk's held-candidate text change (_step)
        #: ids replayed / to replay in vLLM's ``output_token_ids`` (None: not carried)
        self.history: list[int] | None = None
        self.history_lens: list[int] = []
        if req.prompt_token_ids:
            _check_ids(model, req.prompt_token_ids, "prompt_token_ids")
        if req.derender_context is not None:
            _check_ids(model, req.derender_context.prompt_token_ids,
                       "derender_context.prompt_token_ids")
        self._load_state(request_obj)

    def _kept(self) -> bool:
        """Set up a hand-read call (one chunk of one choice) on a state this process issued
        (:func:`tito.service.stream_state_kept.issued`) for this model, stream and endpoint, as
        the checks below would set it up, and say so; False: they run (and give any error, in
        their order). The state is the issued one, whose settings passed the wire checks for
        this model (or were made for it), by a call to an endpoint of its kind; the chunk's ids
        and logprobs are checked as below."""
        req = self.req
        model = self.model
        loaded = take_issued(req.stream_state.issued, model.vocab, model.name)
        chunk = req.generate_chunk
        if (loaded is None or chunk.request_id != loaded[0].id
                or loaded[1].completion != self.completion):
            return False  # (a kept state's id is never too long)
        self._set_up(chunk, loaded)
        return True

    def _set_up(self, chunk: Any, loaded: tuple[Any, Any, Any]) -> None:
        """:meth:`_kept` and :meth:`_fresh`'s call (one chunk, its stream the state's): the
        chunk's ids and logprobs checked as below, the loaded state taken."""
        choice = chunk.choices[0]
        if choice.token_ids:
            _check_ids(self.model, choice.token_ids, "generate_chunk.choices.0.token_ids")
        if choice.logprobs is not None:
            _check_logprobs(self.model, choice.logprobs, "generate_chunk.choices.0.logprobs")
        if chunk.prompt_token_ids:
            _check_ids(self.model, chunk.prompt_token_ids, "generate_chunk.prompt_token_ids")
        self.meta, self.cfg, self.state = loaded
        self.chunks = [chunk]
        self.echo_prefix = ""
        self.text_shift = 0  #: this chunk's held-candidate text change (_step)
        self.history = None
        self.history_lens = []
        self.from_wire = True

    def _fresh(self) -> bool:
        """Set up a hand-read call (one chunk of one choice) on a state this process did not
        issue, as the checks below would set it up, and say so; False: they run (and give any
        error, in their order). The state is decoded in one pass
        (:func:`tito.service.stream_state_call.decode_checked`, ``decode``'s result for it),
        the state against this model and endpoint in the same pass (:func:`_check_wire_state`'s
        checks: refused, it is left to the general path, for its error), then the chunk's ids
        and logprobs as below, the chunk's stream against the state's (a call of another
        stream: below, for its error)."""
        req, model = self.req, self.model
        wire = req.stream_state
        loaded = decode_checked(model.vocab, wire.raw, model.name, model, self.completion)
        chunk = req.generate_chunk
        if loaded is None or chunk.request_id != loaded[0].id:
            ensure_checked(wire)  # (the decode's checks of vLLM's fields, for the general one)
            return False  # (a decoded state's id is never too long)
        self._set_up(chunk, loaded)
        self.own_meta = True
        return True

    def _load_state(self, request_obj: Any) -> None:
        model, req = self.model, self.req
        vocab = model.vocab
        first = self.chunks[0]
        raw = None
        if req.stream_state is not None:
            try:
                raw = req.stream_state.model_dump(mode="json")
            except ValueError:  # pydantic's recursion guard: a free-form value nested too deep
                raise BadRequest("stream_state is nested too deeply",
                                 param="stream_state") from None
            issued = getattr(req.stream_state, "issued", None)
            loaded = stream_state.decode(vocab, raw, model=model.name,
                                         sent=req.stream_state.model_fields_set, issued=issued)
            if loaded is not None:
                self.meta, self.cfg, self.state = loaded
                _check_wire_state(model, self.cfg, self.state, completion=self.completion,
                                  issued=issued is not None and self.state is issued[4])
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
                self.echo_prefix = _echo(model, self.cfg, seed, None,
                                         stream_prompt_string(model, request_obj, seed))[0]
                self.state.text_offset = len(self.echo_prefix)
            # vLLM compatibility: a client that will keep only vLLM's fields can continue a
            # parser stream by replay (below) if the first chunk's ids travel in vLLM's
            # replay fields; later tito states leave them empty.
            self.history = [] if _replayed(self.cfg) else None
        elif _replayed(self.cfg):
            self._replay_vllm_state(raw, seed)
        else:
            _check_ids(model, raw.get("output_token_ids"), "stream_state.output_token_ids")
            self.state = stream_state.plain_state(vocab, self.cfg, raw)

    def _replay_vllm_state(self, raw: dict[str, Any], seed: Sequence[int] | None) -> None:
        """A vLLM-shaped state on the parser (or stop-string) path: rebuilt by replay
        (:func:`tito.service.derender_replay.replay_vllm_state`)."""
        self.state, self.history, self.history_lens = replay_vllm_state(
            self.model, self.cfg, self.meta, self.chunks, raw, seed)

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
        # (completions logprobs: the text a held stop candidate shows in vLLM's chunks, below;
        # with stop strings, tito's alone as vLLM 0.33 refuses them in a stream, the offset
        # counts only the text shown: a held EOS a stop string cuts was never shown, and
        # taking it back made the offset negative)
        counted = self.completion and choice.logprobs is not None and not self.cfg.stop.stop
        held = self.state.pending
        shift = -len(pending_text(self.model.vocab, self.cfg, self.state)) if counted else 0
        try:
            self.state, out = step_choice(
                self.model.vocab,
                self.cfg,
                self.state,
                ids,
                finish_reason=choice.finish_reason,
                stop_reason=choice.stop_reason,
                engine_logprobs=None if choice.logprobs is None else _engine_logprobs(choice),
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
        if counted:
            if held is not None and not ids and stop_token_check(
                    self.model.vocab, self.cfg.stop, held, choice.finish_reason,
                    choice.stop_reason).drop:
                # the held candidate was the stop token: dropped, never shown here, so there is
                # nothing of it to take back (vLLM showed it in the chunk it came in and moves
                # nothing now; fuzz seed 1587, gpt2:1587:21: after a chunk with fewer entries
                # than ids, which moves no offset by the text, the take-back made it negative)
                shift = 0
            self.text_shift = shift + len(pending_text(self.model.vocab, self.cfg, self.state))
        # (an empty finishing chunk: the stop id the pipeline held back came in an earlier one;
        # a reported id is not checked there, a reported string is: no stop token then)
        reason = choice.stop_reason
        last, reason = (ids[-1], reason) if ids else (
            self.history[-1] if self.history else None, reason if type(reason) is str else None)
        if self.history and choice.finish_reason == "stop" and stop_token_check(
                self.model.vocab, self.cfg.stop, last, "stop", reason).drop:
            # the stop token that ended the choice was never output: a replay of the history
            # (a client keeping only vLLM's fields) must not read it as text (an unlisted id
            # the engine reported would be; usage's reasoning_tokens counted it)
            self.history.pop()
            self.history_lens[-1] -= 1
            if not self.history_lens[-1]:
                self.history_lens.pop()
        return out

    def _one(self, chunk: GenerateTokensStreamResponse) -> dict[str, Any]:
        """One engine chunk -> the stream chunk, as the dict its wire model dumps."""
        choices = []
        for choice in chunk.choices:
            choices.append(self._choice(choice, self._step(choice)))
        shape = stream_chunks.completion_chunk if self.completion else stream_chunks.chat_chunk
        out = shape(self.meta.id, self.meta.created, self.req.model or self.model.name, choices,
                    None if chunk.usage is None else self._usage(chunk), chunk.metrics)
        if chunk.prompt_token_ids is not None and self.cfg.return_token_ids:
            # the engine chunk's prompt ids, as vLLM: on the chunk (chat), on each choice
            for where in choices if self.completion else (out,):
                where["prompt_token_ids"] = list(chunk.prompt_token_ids)
        return out

    def _choice(self, choice: Any, out: ChoiceOutput) -> dict[str, Any]:
        token_ids = (_token_ids(self.model, self.cfg, choice.token_ids)
                     if self.cfg.return_token_ids else None)  # (the call only when it may say)
        if self.completion:
            logprobs = None
            if choice.logprobs is not None:
                from tito.core import logprobs as lp
                from tito.protocol import CompletionLogProbs

                logprobs_dict, offset = lp.to_completion(out.logprobs or [],
                                                         self.state.text_offset)
                if not out.logprobs:  # (no entry: the offset moves by the text, as vLLM's:
                    # a held stop candidate's in the chunk it came in, not the one showing it)
                    offset += len(out.text) + self.text_shift
                # a copy: a finished choice's state is the one it came in as, which may be
                # kept as issued (tito.service.stream_state_kept._remember)
                self.state = self.state.model_copy(update={"text_offset": offset})
                logprobs = CompletionLogProbs(**logprobs_dict)
            prefix, self.echo_prefix = self.echo_prefix, ""
            return stream_chunks.completion_choice(choice.index, prefix + out.text, out,
                                                   logprobs=logprobs, token_ids=token_ids)
        shown = choice.logprobs is not None and not _hides_metadata(self.model, self.cfg)
        return stream_chunks.chat_choice(choice.index, out, logprobs=shown,
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


def derender_completion_stream(
    model: ServedModel, req: DerenderCompletionStreamRequest
) -> dict[str, Any]:
    """One streaming completions call (same state machine as chat, text-shaped output)."""
    stream = _Stream(model, req, req.completion_request or req.derender_context, completion=True)
    return stream.response(stream.run())
