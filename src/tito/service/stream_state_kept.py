"""The states this process issued, kept by their JSON bytes, and the codec's two settings.

Why a module of its own: :mod:`tito.service.stream_state` is the codec (format, checks,
signature); this is its shortcut for a state sent back to the process that issued it (a warm
Lambda sandbox serving a stream's next chunk, ``tito serve``): found by its bytes, it is taken as
the objects it was encoded from, without decoding, checking or verifying its signature again
(``tests/test_stream_state_issued.py``: every kept state decodes to what was kept; streams
answer the same without them). ``TITO_STATE_SECRET`` and ``TITO_STATE_TTL_SECONDS`` are read here
(each call sees the current value), since whether a kept state may be taken depends on both.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; without it nothing is remembered
    orjson = None  # type: ignore[assignment]

from tito.settings import env_reader

if TYPE_CHECKING:
    from tito.core.pipeline import ChoiceConfig, ChoiceState
    from tito.core.vocab import Vocab
    from tito.service.stream_state import StreamMeta

__all__ = ["issued", "take_issued"]

_SECRET = env_reader("TITO_STATE_SECRET")
_TTL = env_reader("TITO_STATE_TTL_SECONDS")


#: the secret's text last read and its UTF-8 bytes (the reader gives the same text object
#: while the variable is not set again: encoded once, not twice per signed call)
_SECRET_BYTES: tuple[str | None, bytes | None] = (None, None)


def _secret() -> bytes | None:
    global _SECRET_BYTES
    key = _SECRET()
    if not key:
        return None
    last = _SECRET_BYTES  # (one read: another thread may replace it)
    if last[0] is key:
        return last[1]
    encoded = key.encode()
    _SECRET_BYTES = (key, encoded)
    return encoded


def _ttl_seconds() -> int | None:
    value = _TTL()
    try:
        return int(value) if value else None
    except ValueError:
        return None


#: The last states this process issued -> (vocabulary, secret, meta, settings, choice state,
#: the canonical JSON a signed state's signature covers, else None): what ``decode`` makes of
#: that state. An unsigned state is kept by its JSON bytes (orjson's, compact), a signed one by
#: its signature, with the canonical JSON that signing it wrote anyway (so a signed call writes
#: its state's JSON once for both; see :func:`issued`)
_ISSUED: dict[Any, tuple[Vocab, bytes | None, StreamMeta, ChoiceConfig, ChoiceState,
                         bytes | None]] = {}
_MAX_ISSUED = 64


def _remember(wire: dict[str, Any], key: bytes | None, meta: StreamMeta, cfg: ChoiceConfig,
              state: ChoiceState, vocab: Vocab, signed: bytes | None = None) -> None:
    """Keep the state just issued, should its client send it back to this process:
    :func:`issued` then finds it, and :func:`take_issued` gives the objects ``decode`` would
    rebuild from it. ``signed``: the canonical JSON the state's signature covers (a signed
    state's, written by orjson), kept with it under its signature.

    Why it is exact: called only when decoding the wire gives back these very states, i.e. when
    every id of the window is the one its vocabulary string names (``prev_tokens`` holds no
    ``""`` placeholder for an unknown id, no string two ids share: the caller's
    :meth:`~tito.core.vocab.Vocab.exact_tokens` says so); the other fields round-trip
    as they are (``tests/test_stream_state_issued.py`` decodes every state kept and compares).
    A state changed in any value is not found: it is decoded and checked as any other.
    """
    if orjson is None:
        return
    if signed is not None:
        found: Any = wire["tito"]["sig"]
    else:
        try:
            found = orjson.dumps(wire)
        except TypeError:
            return
    if len(_ISSUED) >= _MAX_ISSUED:
        try:  # the oldest (another thread may have just removed it)
            del _ISSUED[next(iter(_ISSUED))]
        except (KeyError, RuntimeError, StopIteration):
            pass
    _ISSUED[found] = (vocab, key, meta, cfg, state, signed)


def issued(raw: dict[str, Any]) -> Any:
    """What ``decode`` makes of ``raw`` when it is a state this process issued (kept by
    :func:`_remember`) as a JSON body's parser read it, or None; ``decode`` takes it as its
    ``issued`` argument, :func:`take_issued` as its first.

    A state with a ``sig`` string is found by it, then compared by the canonical JSON its
    signature covers (written here only for a state found: a signed state this process did
    not keep costs no JSON here, its signature check writes it next). Found: a state equal
    to the one kept in every value (its keys may be reordered: it decodes to the same objects,
    and its signature covers the sorted keys). Any other state is found by its bytes."""
    if not _ISSUED:
        return None
    tito = raw.get("tito")
    try:
        if tito.__class__ is dict:
            sig = tito.get("sig")
            if sig.__class__ is str:  # (only a signed state kept has one)
                found = _ISSUED.get(sig)
                if found is None or found[5] is None:
                    return None
                del tito["sig"]  # (put back below: its place among the keys is not read)
                try:
                    signed = orjson.dumps(raw, option=orjson.OPT_SORT_KEYS)
                finally:
                    tito["sig"] = sig
                return found if signed == found[5] else None
        return _ISSUED.get(orjson.dumps(raw))
    except TypeError:
        return None


def take_issued(found: Any, vocab: Vocab, model: str
                ) -> tuple[StreamMeta, ChoiceConfig, ChoiceState] | None:
    """The (meta, settings, choice state) of ``found`` (:func:`issued`'s finding) when it was
    issued for this vocabulary and model under the secret configured now and has not expired;
    else None (``decode`` then decodes it, and refuses it as it would any state)."""
    issued_vocab, key, meta, cfg, state, _ = found
    ttl = _ttl_seconds()
    if (issued_vocab is vocab and meta.model == model and key == _secret()
            and (ttl is None or time.time() - meta.created <= ttl)):
        return meta, cfg, state  # (never changed: the pipeline steps copies of it)
    return None
