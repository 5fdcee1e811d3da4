"""Stop tokens and stop strings for one choice, as a pure state machine over text pieces.

Why this module exists: on vLLM's scale-out token path the derender decodes every id, so stop text
leaks into the output and ``include_stop_str_in_output`` is ignored (vllm#57052). tito applies the
coupled server's rules itself, chunk by chunk, with every bit of state carried by the client.

Theory of operation
===================

Two independent checks, applied by ``tito.core.pipeline`` in this order for every engine chunk:

1. **Stop token** (:func:`tito.core.stop_tokens.stop_token_check`, spec 3.7 rule 1). Only when the chunk ends the
   choice with ``finish_reason == "stop"``: the engine stopped *because of* its last id when that
   id is the primary EOS (``stop_reason`` None), a request ``stop_token_ids`` member
   (``stop_reason`` = the id) or a generation-config extra EOS (``stop_reason`` = the id). The
   coupled engine never detokenizes that id, so the pipeline drops it before the detokenizer,
   unless ``include_stop_str_in_output``. EOS ids do not count with ``ignore_eos`` (the engine
   does not stop on them then). Precedence follows vLLM's ``check_stop``: the primary EOS is
   tested first, so an id that is both EOS and a ``stop_token_ids`` member reports
   ``stop_reason`` None (unless ``ignore_eos``, where only the ``stop_token_ids`` rule applies).
   ``finish_reason`` "length" (or anything but "stop") never drops a token.

2. **Stop strings** (:func:`step`, spec 3.7 rules 2-4). Input: the detokenizer's per-token text
   pieces for the chunk's (remaining) ids, one per id (``""`` when the detokenizer held bytes
   back), plus at finish the detokenizer's ``flush_text``, which counts as text of the last token
   seen, never as a token of its own.

The text of the whole choice is ``T = piece_1 + piece_2 + ... + flush_text``. Let ``B`` be the
length of the text of the first ``min_tokens`` pieces (``B = len(T)`` when there are no more
than ``min_tokens > 0`` pieces: the flush text belongs to the last token). An occurrence of stop
string ``s`` at ``T[i:i+len(s)]`` is *eligible* when it ends after ``B`` (``i + len(s) > B``):
it contains at least one character produced once more than ``min_tokens`` tokens existed. This
is exactly what vLLM's detokenizer searches (new text plus ``len(s)-1`` characters of overlap,
only once the count exceeds ``min_tokens``; spec 5.3), made independent of how tokens are grouped
into engine steps.

The **result** is fixed by ``T`` alone: take the eligible occurrence with the smallest end,
ties broken by the order of ``cfg.stop``; the output is ``T`` cut before it (after it with
``include_stop_str_in_output``), ``fired`` is true and ``stop_reason`` is that string. With no
eligible occurrence the output is ``T`` and nothing fires. ``fired_at`` names the token whose
text completed the occurrence: the last token the coupled engine would have generated.

**Streaming** must produce the same concatenated output for any split of the pieces into calls.
The state carries only the longest suffix ``P`` of the text so far that is a proper prefix of some
stop string (any future occurrence must start inside ``P``; everything before it can never be
part of a match), split by who has seen it:

* ``held``: without ``include_stop_str_in_output``, ``P`` is withheld (it may be cut away).
  This is the minimal hold-back: vLLM withholds a blanket ``max(len(stop)) - 1`` characters,
  tito withholds only text that could still start a stop string, and releases it as soon as
  the next text disambiguates it, or at ``final``.
* ``tail``: with ``include_stop_str_in_output`` every character before a match's end is output
  anyway, so nothing is withheld; ``P`` was already emitted and is kept only as search context
  for a stop string straddling two calls.

One call searches ``tail + held + new`` for the earliest-ending eligible occurrence. Occurrences
ending inside ``tail + held`` were already searched by an earlier call (found ineligible, or it
would have fired), so the search starts at ``len(s) - 1`` characters before the new text (or
before ``B`` when ``B`` falls in this call). After a stop fires, every later call emits nothing.

Bounds: ``len(tail) + len(held) <= max(len(s) for s in stop) - 1 <= MAX_STOP_STRING_CHARS - 1``,
with at most one of the two non-empty. Per call the work is ``O((len(new) + MAX_STOP_STRING_CHARS)
* len(stop))`` character comparisons, never proportional to the history.

Example::

    cfg = StopConfig(stop=["three"])
    s0 = StopState()
    s1, out1, fired1, _ = step(cfg, s0, ["one", " two", " th"])  # "one two ", held "th"
    s2, out2, fired2, at = step(cfg, s1, ["ree", " four"], final=True)
    # out2 == "", fired2, s2.stop_reason == "three", at == 0 (the token "ree")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from tito.core.state import Field, State, StateError
from tito.errors import BadRequest
from tito.protocol.common import stop_list

#: At most this many stop strings per request. vLLM's OpenAI layer defaults to 4
#: (``VLLM_MAX_STOP_STRINGS``); tito accepts a superset but stays bounded, because the stop
#: strings travel in the client-carried stream state and every call scans for each of them.
MAX_STOP_STRINGS = 16
#: At most this many characters per stop string. Bounds the carried hold-back (``held`` /
#: ``tail`` never exceed ``MAX_STOP_STRING_CHARS - 1`` characters) and the per-call work.
MAX_STOP_STRING_CHARS = 256
#: At most this many ``stop_token_ids`` (they, too, are carried in the stream state).
MAX_STOP_TOKEN_IDS = 128
#: Upper bound of ``len(StopState.held) + len(StopState.tail)`` for any valid config.
MAX_HELD_CHARS = MAX_STOP_STRING_CHARS - 1

_STOP_FIELDS = ("stop", "stop_token_ids", "include_stop_str_in_output", "min_tokens", "ignore_eos")


# -- configuration ----------------------------------------------------------------------------


class StopConfig(State, frozen=True):
    """The request's stop settings (vLLM ``SamplingParams`` names), validated and bounded.

    Built by :meth:`from_request` (or :meth:`model_validate`, from a carried state): limit
    violations raise :class:`tito.errors.BadRequest` naming the limit and the field, wrong types
    :class:`~tito.core.state.StateError` (:meth:`from_request` turns those into ``BadRequest``).
    """

    stop: list[str] = Field(default_factory=list)
    stop_token_ids: list[int] = Field(default_factory=list)
    include_stop_str_in_output: bool = False
    min_tokens: int = 0
    ignore_eos: bool = False

    def _check(self) -> None:
        if len(self.stop) > MAX_STOP_STRINGS:
            raise BadRequest(
                f"stop: at most {MAX_STOP_STRINGS} stop strings are supported "
                f"(MAX_STOP_STRINGS), got {len(self.stop)}",
                param="stop",
            )
        for s in self.stop:
            if not s:
                raise BadRequest("stop: stop strings must not be empty", param="stop")
            if len(s) > MAX_STOP_STRING_CHARS:
                raise BadRequest(
                    f"stop: each stop string must be at most {MAX_STOP_STRING_CHARS} characters "
                    f"(MAX_STOP_STRING_CHARS), got {len(s)}",
                    param="stop",
                )
        if len(self.stop_token_ids) > MAX_STOP_TOKEN_IDS:
            raise BadRequest(
                f"stop_token_ids: at most {MAX_STOP_TOKEN_IDS} ids are supported "
                f"(MAX_STOP_TOKEN_IDS), got {len(self.stop_token_ids)}",
                param="stop_token_ids",
            )
        if self.min_tokens < 0:
            raise BadRequest(f"min_tokens must be >= 0, got {self.min_tokens}",
                             param="min_tokens")

    @property
    def max_stop_len(self) -> int:
        """Length of the longest stop string (0 without stop strings)."""
        return max((len(s) for s in self.stop), default=0)

    @classmethod
    def from_request(cls, request: Mapping[str, Any] | Any) -> StopConfig:
        """Read the stop fields of an OpenAI/vLLM request (a dict or any model with attributes).

        Missing or null fields take vLLM's defaults; empty stop strings are dropped (vLLM's
        derender ignores them: goldens ``derender_stop_empty``). Every invalid value becomes ``BadRequest``
        with ``param`` set to the offending field, so the app answers 400, never 500.
        """
        data: dict[str, Any] = {}
        for name in _STOP_FIELDS:
            if isinstance(request, Mapping):
                value = request.get(name)
            else:
                value = getattr(request, name, None)
            if value is not None:
                data[name] = value
        if "stop" in data:  # OpenAI allows one string, a list, or null; an empty string is
            # no stop string (vLLM 0.33's derender ignores it; render refuses it, as vLLM's)
            stop = stop_list(data["stop"])
            data["stop"] = [s for s in stop if s != ""] if isinstance(stop, list) else stop
        try:
            return cls.model_validate(data)
        except StateError as exc:
            param = str((exc.loc or ("stop",))[0])
            raise BadRequest(f"{param}: {exc.msg}", param=param) from None


# -- stop strings -----------------------------------------------------------------------------


class StopState(State):
    """Carried stop-string state of one choice (small: at most ``MAX_HELD_CHARS`` of text).

    ``held`` and ``tail`` together are the longest suffix of the text so far that is a proper
    prefix of some stop string; ``held`` was withheld from the output, ``tail`` was already
    emitted (only with ``include_stop_str_in_output``). See the module docstring.
    """

    held: str = Field(default="", max_length=MAX_HELD_CHARS)
    tail: str = Field(default="", max_length=MAX_HELD_CHARS)
    fired: bool = False
    stop_reason: str | None = Field(default=None, max_length=MAX_STOP_STRING_CHARS)
    #: pieces seen, for ``min_tokens`` (counted only when there are stop strings)
    tokens: int = Field(default=0, ge=0, le=2**53)

    def _check(self) -> None:
        if self.held and self.tail:
            raise StateError((), "held and tail cannot both be non-empty")
        if self.fired != (self.stop_reason is not None):
            raise StateError((), "fired and stop_reason must be set together")
        if self.fired and (self.held or self.tail):
            raise StateError((), "a fired stop state holds no text")


class StopStep(NamedTuple):
    """Outcome of :func:`step`."""

    state: StopState
    text: str
    """Text to emit now (may be empty)."""
    fired: bool
    """A stop string fired in this call (``state.fired`` stays true afterwards)."""
    fired_at: int | None = None
    """When ``fired``: index in ``pieces`` of the token whose text completed the stop string,
    i.e. the last token the coupled engine would have generated (ids and logprobs after it are
    dropped). ``len(pieces) - 1`` when the match ends in ``flush_text``, so ``-1`` when this
    call has no pieces (the token came in an earlier call). None when nothing fired."""


_new_step = StopStep._make  # a StopStep from a tuple, without the keyword handling


def _check_state(cfg: StopConfig, state: StopState) -> None:
    """Reject carried state that this config could never have produced (forged or stale)."""
    pending = state.tail or state.held
    if not pending:
        return
    wrong_side = state.tail if not cfg.include_stop_str_in_output else state.held
    if wrong_side or not any(len(pending) < len(s) and s.startswith(pending) for s in cfg.stop):
        raise BadRequest(
            "stream_state: stop hold-back is not a proper prefix of a stop string",
            param="stream_state",
        )


def _earliest_match(stops: Sequence[str], buf: str, boundary: int) -> tuple[str, int] | None:
    """The occurrence ending after ``boundary`` with the smallest end; ties by list order.

    For one string the first occurrence at or after ``boundary - len(s) + 1`` is its
    earliest-ending eligible one (all occurrences of ``s`` have the same length).
    """
    best: tuple[str, int] | None = None
    best_end = len(buf) + 1
    for s in stops:
        i = buf.find(s, max(0, boundary - len(s) + 1))
        if i != -1 and i + len(s) < best_end:
            best, best_end = (s, i), i + len(s)
    return best


def _prefix_suffix_len(stops: Sequence[str], buf: str) -> int:
    """Length of the longest suffix of ``buf`` that is a proper prefix of some stop string.

    Only the last ``max(len(s)) - 1`` characters are looked at, and only positions where a
    stop string's first character occurs, so the cost is bounded by the limits, not by ``buf``.
    """
    n = len(buf)
    best = 0
    for s in stops:
        first = s[0]
        p = buf.find(first, max(0, n - len(s) + 1), n - best)
        while p != -1:
            if s.startswith(buf[p:]):
                best = n - p
                break
            p = buf.find(first, p + 1, n - best)
    return best


def _piece_at(pieces: Sequence[str], offset: int) -> int:
    """Index of the piece holding character ``offset`` of their concatenation (last if past)."""
    pos = 0
    for j, piece in enumerate(pieces):
        pos += len(piece)
        if offset < pos:
            return j
    return len(pieces) - 1


def step(
    cfg: StopConfig,
    state: StopState,
    pieces: Sequence[str],
    *,
    final: bool = False,
    flush_text: str = "",
) -> StopStep:
    """Feed one chunk's per-token text pieces; return the new state and the text to emit now.

    ``pieces`` holds one string per token (``""`` where the detokenizer held bytes back); they
    count towards ``min_tokens``. ``flush_text`` is extra text of the last token seen (the
    detokenizer's end-of-stream flush) and counts as no token. With ``final`` everything still
    held is released unless a stop fires. The result does not depend on how pieces are split
    into calls (see the module docstring); the input state is never mutated.
    """
    if not cfg.stop and not (state.fired or state.held or state.tail):
        # nothing to hold or count (``tokens`` only serves ``min_tokens`` with stop strings)
        return _new_step((state, "".join(pieces) + flush_text, False, None))
    n = len(pieces)
    tokens = state.tokens + n
    if state.fired:
        return StopStep(state.model_copy(update={"tokens": tokens}), "", False)
    _check_state(cfg, state)
    new_text = "".join(pieces) + flush_text

    prefix = state.tail + state.held
    buf = prefix + new_text
    emit_from = len(state.tail)  # the tail was emitted by an earlier call

    # Matches must end after `boundary`: not inside already-searched text, and not inside the
    # text of the first `min_tokens` tokens. `flush_text` belongs to the last token seen.
    ineligible = cfg.min_tokens - state.tokens  # leading pieces of this call still <= min_tokens
    if cfg.min_tokens and tokens <= cfg.min_tokens:
        boundary = len(buf)  # every piece and the flush belong to tokens <= min_tokens
    elif ineligible <= 0:
        boundary = len(prefix)
    else:  # 0 < ineligible < n
        boundary = len(prefix) + sum(len(p) for p in pieces[:ineligible])

    match = _earliest_match(cfg.stop, buf, boundary)
    if match is not None:
        s, start = match
        cut = start + len(s) if cfg.include_stop_str_in_output else start
        done = StopState(fired=True, stop_reason=s, tokens=tokens)
        at = _piece_at(pieces, start + len(s) - 1 - len(prefix))
        return StopStep(done, buf[emit_from:cut], True, at)

    if final:
        return StopStep(StopState(tokens=tokens), buf[emit_from:], False)

    keep = _prefix_suffix_len(cfg.stop, buf)
    suffix = buf[len(buf) - keep :]
    if cfg.include_stop_str_in_output:
        return StopStep(StopState(tail=suffix, tokens=tokens), buf[emit_from:], False)
    return StopStep(StopState(held=suffix, tokens=tokens), buf[: len(buf) - keep], False)


__all__ = [
    "MAX_HELD_CHARS",
    "MAX_STOP_STRINGS",
    "MAX_STOP_STRING_CHARS",
    "MAX_STOP_TOKEN_IDS",
    "StopConfig",
    "StopState",
    "StopStep",
    "step",
]
