"""vLLM compatibility for the streamed derender: a state that kept only vLLM's
``DerenderStreamState`` fields, rebuilt by replaying its ``output_token_ids``.

Why a module of its own: it is the one O(history) path of a stream (tito's own state makes
every call O(new tokens)), kept apart from the per-chunk path of
:mod:`tito.service.derender_stream`, which calls it when a parser or stop strings need state
that vLLM's fields do not carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tito.core.pipeline import ChoiceState, start_choice, step_choice
from tito.errors import BadRequest
from tito.models import ServedModel
from tito.service.derender_checks import _check_ids
from tito.service.derender_shaping import _parsing

__all__ = ["replay_vllm_state"]


def replay_vllm_state(model: ServedModel, cfg: Any, meta: Any, chunks: Sequence[Any],
                      raw: dict[str, Any], seed: Sequence[int] | None
                      ) -> tuple[ChoiceState, list[int], list[int]]:
    """A vLLM-shaped state on the parser (or stop-string) path: rebuild the parsers and the
    stop hold-back by replaying vLLM's ``output_token_ids`` in their original chunks, as vLLM
    does (O(history): the price of a client that drops ``stream_state.tito``). Returns the
    choice state, the replayed ids and their chunk lengths."""
    history = list(raw.get("output_token_ids") or [])
    lens = list(raw.get("output_chunk_lens") or [])
    if seed is None and _parsing(cfg):
        raise BadRequest(
            "prompt_token_ids is required on every call when the stream_state has no tito "
            "object and a reasoning or tool parser is configured",
            param="prompt_token_ids",
        )
    _check_ids(model, history, "stream_state.output_token_ids")
    state = start_choice(model.vocab, cfg, seed)
    pos = 0
    # A call without this choice (n == 1: the engine's usage-only last chunk) comes after
    # its finish; a finished history holds no stop token (the one that ended it was left
    # out, see _Stream._step), so its last chunk is replayed as a finish that is no stop: a last
    # id that is a stop-id candidate is output, not held back (usage counts it, as the
    # client that keeps tito's state sees it)
    index = meta.index
    finished = bool(raw.get("stop_fired")) or meta.n == 1 and not any(
        c.index == index for chunk in chunks for c in chunk.choices)
    for k, n in enumerate(lens):
        state, _ = step_choice(
            model.vocab, cfg, state, history[pos : pos + n],
            finish_reason="length" if finished and k == len(lens) - 1 else None,
            response_id=meta.id, choice_index=index,
        )
        pos += n
    state.finished = state.finished or bool(raw.get("stop_fired"))
    # what replay without the engine's logprobs cannot rebuild rides in vLLM's own fields
    state.role_sent = state.role_sent or bool(raw.get("role_sent"))
    state.lp_context = list(raw.get("logprob_context_token_ids") or state.lp_context)
    state.text_offset = int(raw.get("logprob_text_offset") or state.text_offset)
    return state, history, lens
