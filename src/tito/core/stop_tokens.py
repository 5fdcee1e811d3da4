"""Stop tokens: whether the id that ended a choice is the token the engine stopped on, and the
choice's ``stop_reason`` (spec 3.7 rule 1; the theory of both checks is :mod:`tito.core.stops`'
header, whose stop strings run after this).

Why a module of its own: the token check reads the vocabulary's EOS ids and the request's stop
ids, never text; the stop strings are a state machine over text. The pipeline runs both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tito.core.stops import StopConfig, StopState
    from tito.core.vocab import Vocab

__all__ = ["NO_TOKEN_STOP", "TokenStop", "resolve_stop_reason", "stop_token_check"]


class TokenStop(NamedTuple):
    """Outcome of :func:`stop_token_check`."""

    drop: bool
    """Leave the last id out of detokenization (the coupled engine never decodes it)."""
    stop_reason: int | None
    """``stop_reason`` a token stop reports: the id, or None for the primary EOS / no match."""
    matched: bool
    """The last id is what stopped the engine (a stop token or an EOS)."""


#: What :func:`stop_token_check` returns when the last id did not stop the engine.
NO_TOKEN_STOP = TokenStop(drop=False, stop_reason=None, matched=False)


def stop_token_check(
    vocab: Vocab, cfg: StopConfig, last_id: int | None, finish_reason: str | None,
    engine_reason: int | str | None = None,
) -> TokenStop:
    """Decide whether the chunk's last id is the token the engine stopped on (spec 3.7 rule 1).

    Why only on ``finish_reason == "stop"``: any other finish (``length``, ``abort``) means the
    last id is ordinary output, and with ``"stop"`` alone a last id that is no stop token (an
    engine-side stop string, say) is ordinary output too. Precedence mirrors vLLM's engine
    ``check_stop``: primary EOS (unless ``ignore_eos``) -> ``stop_reason`` None; then
    ``stop_token_ids`` -> the id; then generation-config extra EOS (unless ``ignore_eos``,
    as vLLM only merges them into ``stop_token_ids`` without it) -> the id. An id the engine
    reported as its ``stop_reason`` (``engine_reason``) replaces that chain, as vLLM 0.33's
    derender (``_drop_stop_token``) trusts it alone: the last id stopped the engine only if it
    is that id, which is then the ``stop_reason`` (an EOS too). A reported string says the
    engine stopped on a stop string, not a token: the last id is output even when it is an EOS
    (vLLM's engine checks strings on a step's text without the id it stopped on, so a step of
    several ids can end on an EOS and report the string before it; vLLM 0.33's derender then
    drops nothing and reports the string: goldens ``derender_stop_reason_eos``).
    """
    if finish_reason != "stop" or last_id is None or type(engine_reason) is str:
        return NO_TOKEN_STOP
    if type(engine_reason) is int:  # the engine named its stop token: only that one (vLLM)
        if last_id != engine_reason:
            return NO_TOKEN_STOP
        return TokenStop(drop=not cfg.include_stop_str_in_output, stop_reason=last_id,
                         matched=True)
    if not cfg.ignore_eos and vocab.eos_token_id is not None and last_id == vocab.eos_token_id:
        reason: int | None = None
    elif last_id in cfg.stop_token_ids:
        reason = last_id
    elif not cfg.ignore_eos and last_id in vocab.extra_eos_token_ids:
        reason = last_id
    elif type(engine_reason) is int and last_id == engine_reason:
        reason = last_id
    else:
        return NO_TOKEN_STOP
    return TokenStop(drop=not cfg.include_stop_str_in_output, stop_reason=reason, matched=True)


def resolve_stop_reason(token: TokenStop, state: StopState,
                        engine_reason: int | str | None = None) -> str | int | None:
    """The choice's ``stop_reason``: a fired stop string wins over the token stop, and that
    over what the engine reported (``engine_reason``, whatever the finish).

    Why: the coupled engine scans the text left after dropping the stop token, and a string
    found there ends the output earlier, so vLLM reports the string (spec 3.7 rule 2); an
    engine-side stop tito's rules did not see (a stop string or id the engine applied) is
    still the engine's answer, which vLLM's derender passes on.
    """
    if state.fired:
        return state.stop_reason
    return token.stop_reason if token.matched else engine_reason
