"""The client-carried ``stream_state``: encode, decode, validate and sign one choice's state.

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
  whole state without ``sig``; a missing or wrong signature is a 400. Without the secret the state
  is unsigned (and a ``sig`` present is ignored). With ``TITO_STATE_TTL_SECONDS`` set, a state
  whose stream started longer ago than that is refused (meaningful with a signed state).
- Every violation is a :class:`tito.errors.BadRequest` naming the field.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Collection
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; without it settings are not cached
    orjson = None  # type: ignore[assignment]

from tito.core import detokenizer
from tito.core.detokenizer import DetokState
from tito.core.parsers.harmony import HarmonyState
from tito.core.parsers.reasoning import ReasoningState
from tito.core.parsers.tools import ToolState
from tito.core.pipeline import ChoiceConfig, ChoiceState
from tito.core.state import Field, State, StateError
from tito.core.stops import StopState
from tito.core.vocab import Vocab
from tito.errors import BadRequest, TitoError, quote
from tito.settings import env_reader

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


_SECRET = env_reader("TITO_STATE_SECRET")
_TTL = env_reader("TITO_STATE_TTL_SECONDS")


def _secret() -> bytes | None:
    key = _SECRET()
    return key.encode() if key else None


def _ttl_seconds() -> int | None:
    value = _TTL()
    try:
        return int(value) if value else None
    except ValueError:
        return None


#: The signature's canonical JSON (sorted keys, compact, ASCII), one encoder built once
#: (``json.dumps`` with options builds a new one per call; a signed call signs twice)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _canonical(obj: dict[str, Any]) -> bytes:
    """The state's canonical JSON (what the signature covers): ``_CANONICAL``'s bytes.

    orjson writes them when it can, ~10x faster (a signed call signs twice): sorted keys, compact,
    then the non-ASCII characters escaped as ``json``'s ``ensure_ascii`` does (``\\u00e9``; DEL
    too). Not when that would differ: a character past U+FFFF (``json`` writes a surrogate pair),
    a ``\\x`` already in the text (the escape step's own marker), anything orjson refuses. A
    float it would write otherwise (``1e-05``), but a state tito writes holds none (its only
    free-form parts, the tool typing map and the events' state, are strings and integers), so
    only a state changed by its client could: refused either way, its signature cannot match."""
    if orjson is not None:
        try:
            raw = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            raw = None
        if raw is not None and b"\\x" not in raw and not raw.translate(None, _BELOW_4_BYTE):
            if not raw.isascii():
                raw = raw.decode().encode("ascii", "backslashreplace").replace(b"\\x", b"\\u00")
            return raw.replace(b"\x7f", b"\\u007f")
    return _CANONICAL.encode(obj).encode()


#: every byte but the lead bytes of 4-byte UTF-8 sequences (characters past U+FFFF)
_BELOW_4_BYTE = bytes(range(0xF0))


def _sign(obj: dict[str, Any], key: bytes) -> str:
    return hmac.new(key, _canonical(obj), hashlib.sha256).hexdigest()


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
    wire: dict[str, Any] = {
        "prev_tokens": detokenizer.window_tokens(vocab, state.detok),
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
            **meta.model_dump(exclude_defaults=True),
            "cfg": _config_dump(cfg),
            "st": st,
        },
    }
    key = _secret()
    if key is not None:
        wire["tito"]["sig"] = _sign(wire, key)
    return wire


#: id of a cached ChoiceConfig (:data:`_CONFIGS`, which keeps it alive) -> (it, its flat dump)
_CONFIG_DUMPS: dict[int, tuple[ChoiceConfig, dict[str, Any]]] = {}


def _config_dump(cfg: ChoiceConfig) -> dict[str, Any]:
    """``cfg.model_dump(exclude_defaults=True)``: a copy of the one made when :func:`_config`
    cached ``cfg``, when that dump is flat (a copy then shares nothing a caller could change)."""
    hit = _CONFIG_DUMPS.get(id(cfg))
    if hit is not None and hit[0] is cfg:
        return dict(hit[1])
    return cfg.model_dump(mode="json", exclude_defaults=True)


def _st_dump(state: ChoiceState) -> dict[str, Any]:
    """``tito.st``: ``state.model_dump(exclude_defaults=True)`` without what vLLM's fields carry
    (``detok``, ``role_sent``, ``lp_context``, ``text_offset``, the stop state's ``held``),
    written field by field: the generic dump of every field, the window's included, cost a
    streamed call more than its core step. Same keys in the same order
    (``tests/test_stream_state_fast.py`` compares both)."""
    st: dict[str, Any] = {}
    stop = state.stop
    if stop.held or stop.tail or stop.fired or stop.stop_reason is not None or stop.tokens:
        st["stop"] = stop.model_dump(exclude={"held"}, exclude_defaults=True)
    if state.reasoning is not None:
        st["reasoning"] = state.reasoning.model_dump(exclude_defaults=True)
    if state.tools is not None:
        st["tools"] = state.tools.model_dump(exclude_defaults=True)
    if state.harmony is not None:
        st["harmony"] = state.harmony.model_dump(exclude_defaults=True)
    if state.tokens:
        st["tokens"] = state.tokens
    if state.tool_calls:
        st["tool_calls"] = state.tool_calls
    if state.pending is not None:
        st["pending"] = state.pending
    if state.finished:
        st["finished"] = True
    return st


def decode(
    vocab: Vocab, raw: dict[str, Any], *, model: str, sent: Collection[str] | None = None
) -> tuple[StreamMeta, ChoiceConfig, ChoiceState] | None:
    """Validate a wire state produced by :func:`encode` (returns None when ``tito`` is absent).

    ``raw`` is the state as the client sent it (vLLM fields already type-checked by the
    protocol model). Raises :class:`BadRequest` for a tampered, foreign or malformed state.
    """
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
        unsigned = {**raw, "tito": {k: v for k, v in tito_raw.items() if k != "sig"}}
        if not isinstance(sig, str) or not hmac.compare_digest(sig, _sign(unsigned, key)):
            raise BadRequest(
                "stream_state signature mismatch: the state was modified or issued by another "
                "server", param="stream_state.tito.sig"
            )
    tito = _tito_fast(tito_raw)
    if tito is None:
        try:
            tito = TitoState.model_validate(tito_raw)
        except StateError as exc:
            raise BadRequest(f"invalid stream_state.tito: {exc}",
                             param="stream_state.tito") from None
    ttl = _ttl_seconds()
    if ttl is not None and time.time() - tito.created > ttl:
        raise BadRequest(
            f"stream_state expired: the stream started more than {ttl} s ago "
            "(TITO_STATE_TTL_SECONDS)",
            param="stream_state.tito.created",
        )
    if tito.model != model:
        raise BadRequest(
            f"stream_state belongs to model '{quote(tito.model)}', not '{quote(model)}'",
            param="stream_state.tito.model",
        )
    detok = window_state(vocab, raw)
    state = _choice_fast(tito.st, detok, raw)
    if state is None:
        st = dict(tito.st)
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
    meta = StreamMeta._construct(tito.model, tito.id, tito.created, tito.index,
                                 tito.prompt_tokens, tito.n, tito.ext)
    return meta, tito.cfg, state


_TITO_FIELDS = frozenset(TitoState.model_fields)
_MISSING: Any = object()


def _tito_fast(raw: dict[str, Any]) -> TitoState | None:
    """``TitoState.model_validate(raw)`` for a valid ``tito`` object, its fields checked by hand
    (the settings from :func:`_config`); None for anything else, which ``model_validate`` then
    checks (and reports). Why: a streamed call decodes one per chunk, and the generic validation
    of its eleven fields and the settings' seventeen cost more than the core step."""
    if not raw.keys() <= _TITO_FIELDS:
        return None
    get = raw.get
    v, model, id_, created = get("v"), get("model"), get("id"), get("created")
    index, prompt_tokens, n, ext = get("index", 0), get("prompt_tokens"), get("n", 1), get("ext")
    st, sig = get("st", _MISSING), get("sig")
    if st is _MISSING:
        st = {}
    if (v.__class__ is not int or model.__class__ is not str or len(model) > 256
            or id_.__class__ is not str or len(id_) > MAX_ID_CHARS
            or created.__class__ is not int or created < 0
            or index.__class__ is not int or index < 0
            or (prompt_tokens is not None
                and (prompt_tokens.__class__ is not int or prompt_tokens < 0))
            or n.__class__ is not int or not 1 <= n <= 16384
            or (ext is not None and ext.__class__ is not dict) or st.__class__ is not dict
            or (sig is not None and (sig.__class__ is not str or len(sig) > 128))):
        return None
    cfg = _config(get("cfg"))
    if cfg is None:
        return None
    return TitoState._construct(v, model, id_, created, index, prompt_tokens, n, ext, cfg, st,
                                sig)


#: ``tito.st`` keys :func:`_choice_fast` takes (the others come from vLLM's fields)
_ST_KEYS = frozenset({"stop", "reasoning", "tools", "harmony", "tokens", "tool_calls", "pending",
                      "finished"})
_MAX_LP_CONTEXT = ChoiceState.model_fields["lp_context"].max_length


def _choice_fast(st: dict[str, Any], detok: DetokState, raw: dict[str, Any]) -> ChoiceState | None:
    """The choice state :func:`decode` validates (``tito.st`` with vLLM's fields), its scalar
    fields checked by hand and its parser states by their ``model_validate``; None for anything
    else (or invalid), which the generic validation then checks and reports. Why: the generic
    pass over twelve fields and a stop state cost a third of a streamed call's decoding."""
    if not st.keys() <= _ST_KEYS:
        return None
    held = raw.get("held_text") or ""
    offset = raw.get("logprob_text_offset") or 0
    context = raw.get("logprob_context_token_ids") or []
    tokens, calls = st.get("tokens", 0), st.get("tool_calls", 0)
    pending, finished = st.get("pending"), st.get("finished", False)
    if (held.__class__ is not str or offset.__class__ is not int or offset < 0
            or context.__class__ is not list or len(context) > _MAX_LP_CONTEXT
            or tokens.__class__ is not int or tokens < 0 or calls.__class__ is not int
            or calls < 0 or finished.__class__ is not bool
            or (pending is not None and (pending.__class__ is not int or pending < 0))):
        return None
    for i in context:
        if i.__class__ is not int:
            return None
    stop = st.get("stop")
    try:
        if stop is None or stop == {}:
            stop = (StopState.model_validate({"held": held}) if held
                    else StopState._construct("", "", False, None, 0))
        elif stop.__class__ is dict:
            stop = StopState.model_validate({**stop, "held": held})
        else:
            return None
        parsers = [None if value is None else kind.model_validate(value)
                   for value, kind in ((st.get("reasoning"), ReasoningState),
                                       (st.get("tools"), ToolState),
                                       (st.get("harmony"), HarmonyState))]
    except (StateError, TitoError):
        return None
    return ChoiceState._construct(detok, stop, *parsers, bool(raw.get("role_sent")),
                                  list(context), offset, tokens, calls, pending, finished)


#: wire settings (their JSON) -> the validated ChoiceConfig: a stream's settings never change,
#: so each stream validates them once per process (bounded; never mutated: shared)
_CONFIGS: dict[bytes, ChoiceConfig] = {}
_MAX_CONFIGS = 256


def _config(raw: Any) -> ChoiceConfig | None:
    """``ChoiceConfig.model_validate(raw)``, once per distinct settings; None when invalid (the
    caller's generic validation reports it)."""
    if raw.__class__ is not dict:
        return None
    key = None
    if orjson is not None and "tool_params" not in raw:  # free-form: never a cache key
        try:
            key = orjson.dumps(raw)  # types kept: true is not 1 (both equal and hash alike)
        except TypeError:
            key = None
        cfg = _CONFIGS.get(key) if key is not None else None
        if cfg is not None:
            return cfg
    try:
        cfg = ChoiceConfig.model_validate(raw)
    except (StateError, TitoError):
        return None
    if key is not None:
        if len(_CONFIGS) >= _MAX_CONFIGS:
            _CONFIGS.clear()
            _CONFIG_DUMPS.clear()
        _CONFIGS[key] = cfg
        dump = cfg.model_dump(mode="json", exclude_defaults=True)
        if all(v is None or v.__class__ in (str, int, bool) for v in dump.values()):
            _CONFIG_DUMPS[id(cfg)] = (cfg, dump)
    return cfg


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
    try:
        state.stop = StopState.model_validate({"held": raw.get("held_text") or ""})
    except StateError as exc:
        raise BadRequest(f"invalid stream_state.held_text: {exc}",
                         param="stream_state.held_text") from None
    return state
