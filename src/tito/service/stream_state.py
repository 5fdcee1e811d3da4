"""The client-carried ``stream_state``: encode, decode, validate and sign one choice's state (the
signature itself: :mod:`tito.service.stream_state_sign`).

Format
------
The wire object is vLLM's ``DerenderStreamState`` (every vLLM field accepted and kept meaningful)
plus one object of tito's own under ``"tito"``::

    {"prev_tokens": [...], "prefix_offset": 0, "read_offset": 3,    # detokenizer window
     "role_sent": true,                                               # chat role sent
     "logprob_context_token_ids": [...], "logprob_text_offset": 12,  # logprob repair context
     "held_text": "", "stop_fired": false,                           # stop-string hold-back
     "output_token_ids": [], "output_chunk_lens": [],                # always empty: no replay
     "tools_streamed": false, "last_tool_call_ids": [],
     "tito": {"v": 1, "model": "qwen3", "id": "...", "created": 1790000000, "index": 0,
              "cfg": {...}, "st": {...}, "sig": "hex or absent"}}

Rules
-----
- Where vLLM has a field for a piece of state, that field is the only copy (so a client that keeps
  vLLM's fields only still carries the window, the role flag and the logprob context); ``tito``
  holds the rest: the settings captured from the first call's request, token count, stop and
  parser states. Nothing in it grows with the generation: the state stays O(1).
- vLLM compatibility on the parser path: parser state cannot live in vLLM's fields, so the first
  response of a parser stream also carries its chunk's ids in vLLM's ``output_token_ids`` /
  ``output_chunk_lens``. A client that echoes the state (``tito`` included) gets empty replay
  fields from then on; a client that keeps only vLLM's fields (and resends ``chat_request`` and
  ``prompt_token_ids``) is served as vLLM serves it: the ids are replayed through fresh parsers
  and the replay fields grow with the output.
- ``tito.v`` must equal :data:`STATE_VERSION`; ``tito.model`` must be the request's model.
- With ``TITO_STATE_SECRET`` set, ``tito.sig`` is an HMAC-SHA256 over the canonical JSON of the
  whole state without ``sig``: sorted keys, compact, characters in UTF-8 (``json.dumps(state,
  sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` for a float-free state); a state
  orjson cannot write (an integer past 64 bits, a lone surrogate) is signed over its escaped form
  (the same with ``ensure_ascii=True``). A signature over the escaped form verifies too (tito
  up to 1dd282a signed that form; a release that old refuses the new signatures of states
  holding non-ASCII characters, so a rollback ends signed streams in flight). Both forms are
  faithful JSON texts, the same bytes only for the same state, so a signature still covers
  exactly one state. A missing or wrong signature is a 400. Without the secret the state
  is unsigned (and a ``sig`` present is ignored). With ``TITO_STATE_TTL_SECONDS`` set, a state
  whose stream started longer ago than that is refused (meaningful with a signed state).
- Every violation is a :class:`tito.errors.BadRequest` naming the field.
"""

from __future__ import annotations

import hmac
import operator
import time
from collections.abc import Collection
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; without it nothing is remembered
    orjson = None  # type: ignore[assignment]

from tito.core import detokenizer
from tito.core.detokenizer import DetokState
from tito.core.pipeline import ChoiceConfig, ChoiceState
from tito.core.state import Field, State, StateError
from tito.core.stops import StopState
from tito.core.vocab import Vocab
from tito.errors import BadRequest, quote
from tito.service.stream_state_fast import (  # the per-call shortcuts (and their names here)
    _canonical,
    _canonical_utf8,
    _choice_fast,
    _config,
    _config_dump,
    _st_dump,
)
from tito.service.stream_state_kept import (  # the states this process issued, the settings
    _remember,
    _secret,
    _ttl_seconds,
    take_issued,
)
from tito.service.stream_state_sign import _mac, _sign

STATE_VERSION = 1
#: The top-level fields :func:`encode` writes (all of them are covered by the signature).
_WIRE_FIELDS = frozenset({
    "prev_tokens", "prefix_offset", "read_offset", "role_sent", "logprob_context_token_ids",
    "logprob_text_offset", "output_token_ids", "output_chunk_lens", "tools_streamed",
    "last_tool_call_ids", "held_text", "stop_fired", "tito",
})
#: Longest stream id (the engine's ``request_id``: render's id plus the engine's prefixes).
MAX_ID_CHARS = 512


class StreamMeta(State):
    """The envelope every chunk of one stream shares."""

    model: str
    id: str = Field(max_length=MAX_ID_CHARS)
    created: int = Field(ge=0)
    index: int = Field(default=0, ge=0)
    #: the first call's ``prompt_tokens`` (usage override for later calls that omit it)
    prompt_tokens: int | None = Field(default=None, ge=0)
    #: choices of the request (usage's reasoning_tokens is per choice, so only for n == 1)
    n: int = Field(default=1, ge=1, le=16384)
    #: an output shape's own state (the Responses events: sequence number, open item)
    ext: dict[str, Any] | None = None


class TitoState(State):
    """tito's own part of the state (``stream_state.tito``)."""

    v: int
    model: str = Field(max_length=256)
    id: str = Field(max_length=MAX_ID_CHARS)
    created: int = Field(ge=0)
    index: int = Field(default=0, ge=0)
    prompt_tokens: int | None = Field(default=None, ge=0)
    n: int = Field(default=1, ge=1, le=16384)
    ext: dict | None = None  #: validated by its reader (the Responses event state)
    cfg: ChoiceConfig
    st: dict = Field(default_factory=dict)  #: validated as the ChoiceState (by :func:`decode`)
    sig: str | None = Field(default=None, max_length=128)


def encode(
    vocab: Vocab,
    meta: StreamMeta,
    cfg: ChoiceConfig,
    state: ChoiceState,
    *,
    replay: tuple[list[int], list[int]] | None = None,
) -> dict[str, Any]:
    """The wire ``stream_state`` for one choice (signed when a secret is configured).

    ``replay``: ids and chunk lengths for vLLM's ``output_token_ids`` / ``output_chunk_lens``,
    only for clients that keep vLLM's fields alone on a parser stream (see the module header).
    """
    st = _st_dump(state)
    held = state.stop.held
    if replay is None and state.pending is not None:
        # a stop-token candidate held at the chunk's end (plain path): in vLLM's replay fields
        # too, so a client keeping only those does not lose it (:func:`plain_state`)
        replay = ([state.pending], [1])
    tokens, exact = vocab.exact_tokens(state.detok.window)  # (exact: they read back to it)
    wire: dict[str, Any] = {
        "prev_tokens": tokens,
        "prefix_offset": state.detok.prefix_offset,
        "read_offset": state.detok.read_offset,
        "role_sent": state.role_sent,
        "logprob_context_token_ids": list(state.lp_context),
        "logprob_text_offset": state.text_offset,
        "output_token_ids": list(replay[0]) if replay else [],
        "output_chunk_lens": list(replay[1]) if replay else [],
        "tools_streamed": state.tool_calls > 0,
        "last_tool_call_ids": [],
        "held_text": held,
        "stop_fired": state.finished,
        "tito": {
            "v": STATE_VERSION,
            **_meta_dump(meta),
            "cfg": _config_dump(cfg),
            "st": st,
        },
    }
    key = _secret()
    signed = None
    if key is not None:
        signed = _canonical_utf8(wire)  # (also the key the state is kept by: one dump)
        wire["tito"]["sig"] = _mac(signed, key)
    if not replay and exact:
        _remember(wire, key, meta, cfg, state, vocab, signed)
    return wire


#: the last meta dumped and its dump (a kept state's meta comes back as the same object)
_LAST_META: tuple[Any, Any] = (None, None)
#: the last meta's fields but ``ext`` and the dump of a meta of those without ``ext``
_LAST_BASE: tuple[Any, Any] = (None, None)
_SCALAR_TYPES = frozenset({str, int, bool, float, type(None)})


def _meta_dump(meta: StreamMeta) -> dict[str, Any]:
    """``meta.model_dump(exclude_defaults=True)``, remembered for the last meta when it holds
    scalars only (its ``**`` into the wire then copies all of it), and for the last fields but
    ``ext``: a state decoded from the wire (another process issued it) has a new meta of the
    same fields on every call. A meta whose ``ext`` (the last field) holds scalars only (the
    Responses events' state, a new one per call) is the remembered dump of its other fields
    plus a copy of ``ext`` (what the generic dump makes of such a dict)."""
    global _LAST_META
    last = _LAST_META  # (one read: another thread may replace it)
    if last[0] is meta:
        return last[1]  # type: ignore[no-any-return]
    ext = meta.ext
    if ext is not None and (ext.__class__ is not dict
                            or not _SCALAR_TYPES.issuperset(map(type, ext.values()))):
        return meta.model_dump(exclude_defaults=True)
    global _LAST_BASE
    base = _LAST_BASE
    key = (meta.model, meta.id, meta.created, meta.index, meta.prompt_tokens, meta.n)
    if base[0] != key:  # (a state decoded from the wire: a new meta of the same fields)
        base = _LAST_BASE = (key, meta.model_copy(update={"ext": None}).model_dump(
            exclude_defaults=True))
    if ext is None:
        _LAST_META = (meta, base[1])
        return base[1]  # type: ignore[no-any-return]
    return {**base[1], "ext": dict(ext)}


def decode(
    vocab: Vocab, raw: dict[str, Any], *, model: str, sent: Collection[str] | None = None,
    issued: Any = None,
) -> tuple[StreamMeta, ChoiceConfig, ChoiceState] | None:
    """Validate a wire state produced by :func:`encode` (returns None when ``tito`` is absent).

    ``raw`` is the state as the client sent it (vLLM fields already type-checked by the
    protocol model). Raises :class:`BadRequest` for a tampered, foreign or malformed state.
    ``issued``: :func:`issued`'s finding for ``raw``, taken as it is when issued for this
    vocabulary and model under the secret configured now and not expired (else ``raw`` is
    decoded, and refused as it would be).
    """
    if issued is not None:
        taken = take_issued(issued, vocab, model)
        if taken is not None:
            return taken
    tito_raw = raw.get("tito")
    if tito_raw is None:
        if _secret() is not None:
            raise BadRequest(
                "stream_state is not signed (stream_state.tito.sig missing) but this server "
                "requires signed states", param="stream_state.tito"
            )
        return None
    if not isinstance(tito_raw, dict):
        raise BadRequest("stream_state.tito must be an object", param="stream_state.tito")
    if tito_raw.get("v") != STATE_VERSION:
        raise BadRequest(
            f"unsupported stream_state version '{quote(tito_raw.get('v'))}' (expected {STATE_VERSION})",
            param="stream_state.tito.v",
        )
    key = _secret()
    if key is not None and sent is not None:
        # A signed state goes back exactly as returned: a field left out (which the wire model
        # would fill with its default) is a change too, so every tampered state is refused.
        missing = sorted(_WIRE_FIELDS.difference(sent))
        if missing:
            raise BadRequest(
                f"stream_state.{missing[0]} is missing: send the signed state back exactly as "
                "returned", param=f"stream_state.{missing[0]}",
            )
    if key is not None:
        sig = tito_raw.get("sig")
        unsigned_tito = dict(tito_raw)
        unsigned_tito.pop("sig", None)
        unsigned = {**raw, "tito": unsigned_tito}
        # a signature is hex: a non-ASCII one is refused before compare_digest (which raises
        # TypeError on non-ASCII strings)
        if (not isinstance(sig, str) or not sig.isascii()
                or not (hmac.compare_digest(sig, _sign(unsigned, key))
                        or hmac.compare_digest(sig, _sign(unsigned, key, ascii_form=True)))):
            raise BadRequest(
                "stream_state signature mismatch: the state was modified or issued by another "
                "server", param="stream_state.tito.sig"
            )
    fast = _tito_fast(tito_raw)
    if fast is None:
        try:
            tito = TitoState.model_validate(tito_raw)
        except StateError as exc:
            raise BadRequest(f"invalid stream_state.tito: {exc}",
                             param="stream_state.tito") from None
        fast = (StreamMeta._construct(tito.model, tito.id, tito.created, tito.index,
                                      tito.prompt_tokens, tito.n, tito.ext), tito.cfg, tito.st)
    meta, cfg, st = fast
    ttl = _ttl_seconds()
    if ttl is not None and time.time() - meta.created > ttl:
        raise BadRequest(
            f"stream_state expired: the stream started more than {ttl} s ago "
            "(TITO_STATE_TTL_SECONDS)",
            param="stream_state.tito.created",
        )
    if meta.model != model:
        raise BadRequest(
            f"stream_state belongs to model '{quote(meta.model)}', not '{quote(model)}'",
            param="stream_state.tito.model",
        )
    detok = window_state(vocab, raw)
    state = _choice_fast(st, detok, raw)
    if state is None:
        st = dict(st)
        stop = st.get("stop")
        st["stop"] = {**(stop if isinstance(stop, dict) else {}),
                      "held": raw.get("held_text") or ""}
        try:
            state = ChoiceState.model_validate({
                **st,
                "detok": detok,
                "role_sent": bool(raw.get("role_sent")),
                "lp_context": list(raw.get("logprob_context_token_ids") or []),
                "text_offset": int(raw.get("logprob_text_offset") or 0),
            })
        except StateError as exc:
            raise BadRequest(f"invalid stream_state: {exc}", param="stream_state") from None
    return meta, cfg, state


_TITO_FIELDS = frozenset(TitoState.model_fields)
_MISSING: Any = object()
#: what :func:`_tito_fast` reads of a ``tito`` object: its fields' values, absent ones as
#: their defaults (``_MISSING`` for required ones and ``st``, whose default is a new dict)
_TITO_VALUES = operator.itemgetter("v", "model", "id", "created", "index", "prompt_tokens", "n",
                                   "ext", "st", "sig", "cfg")
_TITO_DEFAULTS = {"v": _MISSING, "model": _MISSING, "id": _MISSING, "created": _MISSING,
                  "index": 0, "prompt_tokens": None, "n": 1, "ext": None, "st": _MISSING,
                  "sig": None, "cfg": _MISSING}


def _tito_fast(raw: dict[str, Any]) -> tuple[StreamMeta, ChoiceConfig, dict[str, Any]] | None:
    """What :func:`decode` takes of ``TitoState.model_validate(raw)`` (the meta, the settings,
    ``st``) for a valid ``tito`` object of this :data:`STATE_VERSION`, its fields checked by hand
    (the settings from :func:`_config`); None for anything else, which ``model_validate`` then
    checks (and reports). Why: a streamed call decodes one per chunk, and the generic validation
    of its eleven fields and the settings' seventeen cost more than the core step."""
    if not raw.keys() <= _TITO_FIELDS:
        return None
    v, model, id_, created, index, prompt_tokens, n, ext, st, sig, cfg = _TITO_VALUES(
        {**_TITO_DEFAULTS, **raw})  # (C speed: one merge, one read of every field)
    if st is _MISSING:
        st = {}
    if (v.__class__ is not int or v != STATE_VERSION
            or model.__class__ is not str or len(model) > 256
            or id_.__class__ is not str or len(id_) > MAX_ID_CHARS
            or created.__class__ is not int or created < 0
            or index.__class__ is not int or index < 0
            or (prompt_tokens is not None
                and (prompt_tokens.__class__ is not int or prompt_tokens < 0))
            or n.__class__ is not int or not 1 <= n <= 16384
            or (ext is not None and ext.__class__ is not dict) or st.__class__ is not dict
            or (sig is not None and (sig.__class__ is not str or len(sig) > 128))):
        return None
    cfg = _config(cfg)
    if cfg is None:
        return None
    return StreamMeta._construct(model, id_, created, index, prompt_tokens, n, ext), cfg, st


def window_state(vocab: Vocab, raw: dict[str, Any]) -> DetokState:
    """The detokenizer window from vLLM's ``prev_tokens``/offsets (validated, bounded)."""
    return detokenizer.state_from_tokens(
        vocab,
        list(raw.get("prev_tokens") or []),
        int(raw.get("prefix_offset") or 0),
        int(raw.get("read_offset") or 0),
    )


def plain_state(vocab: Vocab, cfg: ChoiceConfig, raw: dict[str, Any]) -> ChoiceState:
    """A state rebuilt from vLLM's fields alone (a client that dropped ``tito``).

    Only the plain path can continue this way: the window, role flag, logprob context and the
    stop hold-back live in vLLM's fields; the settings come from the request resent on every call.
    """
    from tito.core.pipeline import start_choice

    state = start_choice(vocab, cfg, None)
    state.detok = window_state(vocab, raw)
    state.role_sent = bool(raw.get("role_sent"))
    state.lp_context = list(raw.get("logprob_context_token_ids") or [])
    state.text_offset = int(raw.get("logprob_text_offset") or 0)
    state.finished = bool(raw.get("stop_fired"))
    held_ids = raw.get("output_token_ids") or []
    if len(held_ids) == 1 and list(raw.get("output_chunk_lens") or []) == [1]:
        state.pending = int(held_ids[0])  # the held stop-token candidate (:func:`encode`)
    try:
        state.stop = StopState.model_validate({"held": raw.get("held_text") or ""})
    except StateError as exc:
        raise BadRequest(f"invalid stream_state.held_text: {exc}",
                         param="stream_state.held_text") from None
    return state
