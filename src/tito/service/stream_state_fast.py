"""The stream state codec's hand-written parts: the choice state and settings decoded, the
choice state dumped, the signature's canonical JSON written, each for the common case only.

Why a module of its own: :mod:`tito.service.stream_state` is the codec's rules (format, checks,
signature, expiry); these are the per-call shortcuts it takes for a streamed chunk, each with
the generic path it equals as its fallback and its reference (the generic ``State`` validation
and dump, ``json.dumps(sort_keys=True)``; ``tests/test_stream_state_fast.py`` compares them).
"""

from __future__ import annotations

import json
import operator
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; without it the generic paths run
    orjson = None  # type: ignore[assignment]

from tito.core.detokenizer import DetokState
from tito.core.parsers.harmony_state import HarmonyState
from tito.core.parsers.inkling_state import InklingState
from tito.core.parsers.muse_state import MuseState
from tito.core.parsers.reasoning import ReasoningState
from tito.core.parsers.tools import ToolState
from tito.core.pipeline import ChoiceConfig, ChoiceState
from tito.core.state import State, StateError
from tito.core.stops import StopState
from tito.errors import TitoError


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
        if (raw is not None and (b"\\" not in raw or b"\\x" not in raw)  # (one byte: memchr)
                and not raw.translate(None, _BELOW_4_BYTE)):
            if not raw.isascii():
                latin1 = b"\xc2" in raw or b"\xc3" in raw  # (U+0080-U+00FF's UTF-8 lead bytes)
                raw = raw.decode().encode("ascii", "backslashreplace")
                if latin1:  # (backslashreplace writes those as \xNN, json as \u00NN)
                    raw = raw.replace(b"\\x", b"\\u00")
            return raw.replace(b"\x7f", b"\\u007f")
    return _CANONICAL.encode(obj).encode()


def _canonical_utf8(obj: dict[str, Any]) -> bytes:
    """The state's JSON as :func:`tito.service.stream_state.encode` signs it: sorted keys,
    compact, characters as they are in UTF-8 (for a float-free state, byte for byte
    ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``): orjson's bytes,
    ~5x cheaper than :func:`_canonical`'s escaped ones (a byte-level token's characters are
    non-ASCII, so nearly every state needs the escapes). A state orjson cannot write (an integer
    past 64 bits, a lone surrogate) is written as :func:`_canonical` writes it."""
    if orjson is not None:
        try:
            return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            pass
    return _CANONICAL.encode(obj).encode()


#: every byte but the lead bytes of 4-byte UTF-8 sequences (characters past U+FFFF)
_BELOW_4_BYTE = bytes(range(0xF0))


#: id of a cached ChoiceConfig (:data:`_CONFIGS`, which keeps it alive) -> (it, its flat dump)
_CONFIG_DUMPS: dict[int, tuple[ChoiceConfig, dict[str, Any]]] = {}


def _config_dump(cfg: ChoiceConfig) -> dict[str, Any]:
    """``cfg.model_dump(exclude_defaults=True)``: a copy of the one made when :func:`_config`
    cached ``cfg``, when that dump is flat (a copy then shares nothing a caller could change)."""
    hit = _CONFIG_DUMPS.get(id(cfg))
    if hit is not None and hit[0] is cfg:
        return dict(hit[1])
    return cfg.model_dump(mode="json", exclude_defaults=True)


#: the last reasoning state dumped by :func:`_st_dump`, and its dump
_LAST_REASONING: tuple[Any, dict[str, Any]] = (None, {})
#: a reasoning state's fields but its count (``reasoning_tokens``), read at once
_REASONING_NAMES = tuple(ReasoningState.model_fields)
#: its list fields (a multi-id marker's ids, the held ids: unhashable, empty for most formats)
_REASONING_LISTS = tuple(n for n in _REASONING_NAMES
                         if isinstance(getattr(ReasoningState(), n), list))
_REASONING_VALUES = operator.attrgetter(*(
    n for n in _REASONING_NAMES if n != "reasoning_tokens" and n not in _REASONING_LISTS))
_REASONING_LIST_VALUES = operator.attrgetter(*_REASONING_LISTS)
#: those fields' values -> the dump's keys before the count and after it (see
#: :func:`_reasoning_dump`); bounded by :data:`_MAX_REASONING_DUMPS`
_REASONING_DUMPS: dict[tuple[Any, ...], tuple[dict[str, Any], dict[str, Any]]] = {}
_MAX_REASONING_DUMPS = 256


def _reasoning_dump(reasoning: ReasoningState) -> dict[str, Any]:
    """``reasoning.model_dump(exclude_defaults=True)``, from the dump of the first state seen
    with the same fields but the count (a thinking block's state changes with every chunk in
    its count alone): that dump's keys before the count, the count when it is not 0 (its
    default), the keys after it, in the fields' order, as the generic dump writes them.

    Why: the generic dump compares each of the state's seventeen fields with its default; a
    thinking block's call dumped it whole on every chunk, kept state or not. The scalar fields
    (str, int, bool, None: hashable) are the key, with the list fields' values as tuples when
    one is not empty (a multi-id marker's ids: kimi_k3, plamo3)."""
    key = _REASONING_VALUES(reasoning)
    lists = _REASONING_LIST_VALUES(reasoning)
    if any(lists):
        key = (key, tuple(map(tuple, lists)))
    parts = _REASONING_DUMPS.get(key)
    if parts is None:
        full = reasoning._dump(True)
        at = _REASONING_NAMES.index("reasoning_tokens")
        before = {k: v for k, v in full.items() if _REASONING_NAMES.index(k) < at}
        after = {k: v for k, v in full.items() if _REASONING_NAMES.index(k) > at}
        if len(_REASONING_DUMPS) >= _MAX_REASONING_DUMPS:
            _REASONING_DUMPS.clear()
        parts = _REASONING_DUMPS[key] = (before, after)
    before, after = parts
    out = dict(before)
    count = reasoning.reasoning_tokens
    if count != 0:
        out["reasoning_tokens"] = count
    if after:
        out.update(after)
    return out


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
    reasoning = state.reasoning
    if reasoning is not None:
        global _LAST_REASONING
        last = _LAST_REASONING  # (one read: another thread may replace it)
        if last[0] is not reasoning:  # (a parser phase that changes nothing keeps its state)
            last = _LAST_REASONING = (reasoning, _reasoning_dump(reasoning))  # (flat, so a
            # copy shares nothing)
        st["reasoning"] = dict(last[1])
    if state.tools is not None:
        st["tools"] = state.tools._dump(True)
    if state.harmony is not None:
        st["harmony"] = state.harmony._dump(True)
    if state.muse is not None:
        st["muse"] = state.muse._dump(True)
    if state.inkling is not None:
        st["inkling"] = state.inkling._dump(True)
    if state.tokens:
        st["tokens"] = state.tokens
    if state.tool_calls:
        st["tool_calls"] = state.tool_calls
    if state.pending is not None:
        st["pending"] = state.pending
    if state.finished:
        st["finished"] = True
    return st


#: ``tito.st`` keys :func:`_choice_fast` takes (the others come from vLLM's fields), their
#: defaults, and their values read at once
_ST_DEFAULTS = {"tokens": 0, "tool_calls": 0, "pending": None, "finished": False, "stop": None,
                "reasoning": None, "tools": None, "harmony": None, "muse": None,
                "inkling": None}
_ST_KEYS = frozenset(_ST_DEFAULTS)
_ST_VALUES = operator.itemgetter(*_ST_DEFAULTS)


_MAX_LP_CONTEXT = ChoiceState.model_fields["lp_context"].max_length


def _choice_fast(st: dict[str, Any], detok: DetokState, raw: dict[str, Any]) -> ChoiceState | None:
    """The choice state :func:`decode` validates (``tito.st`` with vLLM's fields), its scalar
    fields checked by hand and its parser states by their ``model_validate``; None for anything
    else (or invalid), which the generic validation then checks and reports. Why: the generic
    pass over twelve fields and a stop state cost a third of a streamed call's decoding."""
    held = raw.get("held_text") or ""
    offset = raw.get("logprob_text_offset") or 0
    context = raw.get("logprob_context_token_ids") or []
    if (held.__class__ is not str or offset.__class__ is not int or offset < 0
            or context.__class__ is not list or len(context) > _MAX_LP_CONTEXT):
        return None
    for i in context:
        if i.__class__ is not int:
            return None
    return _choice_from(st, detok, held, offset, context, bool(raw.get("role_sent")))


#: the stop state of a stream without stop strings (shared: the pipeline never changes a state
#: it is given, it steps copies)
_NO_STOP = StopState._construct("", "", False, None, 0)


def _choice_from(st: dict[str, Any], detok: DetokState, held: str, offset: int,
                 context: list[int], role_sent: bool) -> ChoiceState | None:
    """:func:`_choice_fast` from vLLM's fields already checked (a ``str``, an ``int`` >= 0, a
    list of at most four ``int``, a ``bool``)."""
    parts = read_st(st, held)
    if parts is None:
        return None
    tokens, calls, pending, finished, stop, reasoning, tools, harmony, muse, inkling = parts
    if reasoning is not None:
        try:
            reasoning = _parser_state(ReasoningState, reasoning)
        except (StateError, TitoError):
            return None
    return ChoiceState._construct(detok, stop, reasoning, tools, harmony, muse, inkling,
                                  role_sent,
                                  list(context), offset, tokens, calls, pending, finished)


#: what :func:`read_st` gives: the choice state's count, calls, pending id, finished flag, stop
#: state, reasoning state as it is on the wire, tool, harmony, muse and inkling states
StParts = tuple[int, int, "int | None", bool, StopState, Any, Any, Any, Any, Any]


def read_st(st: dict[str, Any], held: str) -> StParts | None:
    """The choice state's wire object ``st`` (``stream_state.tito.st``) read and checked once,
    for both one-pass decodes (:func:`_choice_from`, ``stream_state_call.decode_checked``):
    its counters, its stop state with vLLM's ``held`` text, its parser states validated but the
    reasoning one, which each caller validates its own way (one keeps its markers beside it).
    None for anything the general decode must see (it reports the error)."""
    if not st.keys() <= _ST_KEYS:
        return None
    tokens, calls, pending, finished, stop, reasoning, tools, harmony, muse, inkling = _ST_VALUES(
        {**_ST_DEFAULTS, **st})  # (C speed: one merge, one read of every key)
    if ((tokens.__class__, calls.__class__, finished.__class__) != _ST_TYPES
            or tokens < 0 or calls < 0
            or (pending is not None and (pending.__class__ is not int or pending < 0))):
        return None
    try:
        if stop is None or stop == {}:
            stop = StopState.model_validate({"held": held}) if held else _NO_STOP
        elif stop.__class__ is dict:
            stop = StopState.model_validate({**stop, "held": held})
        else:
            return None
        if tools is not None:
            tools = _parser_state(ToolState, tools)
        if harmony is not None:
            harmony = _parser_state(HarmonyState, harmony)
        if muse is not None:
            muse = _parser_state(MuseState, muse)
        if inkling is not None:
            inkling = _parser_state(InklingState, inkling)
    except (StateError, TitoError):
        return None
    return tokens, calls, pending, finished, stop, reasoning, tools, harmony, muse, inkling


_ST_TYPES = (int, int, bool)  #: the choice state's count, calls, finished


#: (a parser state class, a wire value's JSON without its count) -> the state validated from
#: it (with the count it had when first seen)
_PARSER_STATES: dict[tuple[type, bytes], Any] = {}
_MAX_PARSER_STATES = 256
#: a parser state's counter: the field that changes with every token of a phase (the reasoning
#: tokens counted inside a thinking block), left out of :data:`_PARSER_STATES`' key
_COUNTER = "reasoning_tokens"


def _counted(cls: type[Any]) -> bool:
    """Does ``cls`` declare :data:`_COUNTER` as a plain count (``int``, ``ge=0``, no upper
    bound, no other check) and no rule across fields (``_check``), so that a state validated
    from a value equals one validated from the same value with another valid count, but for
    the count?"""
    info = cls.model_fields.get(_COUNTER)
    return (info is not None and info.annotation in ("int", int) and info.ge == 0
            and info.le is None and info.default == 0 and cls._check is State._check)


#: how a state's generated ``model_copy`` stores an updated field (frozen classes too)
_store = object.__setattr__
#: the parser state classes whose count :func:`_parser_state` checks by hand
_COUNTED = frozenset(c for c in (ReasoningState, HarmonyState, MuseState, InklingState)
                     if _counted(c))


def _parser_state(cls: type[Any], raw: Any) -> Any:
    """``cls.model_validate(raw)`` (a reasoning, tool, harmony or Muse parser state), once per
    distinct value: such a state is the same for every chunk of a phase that changes nothing
    (a reasoning parser's content, a tool parser's text), of every stream of a model. Shared,
    as a state this process issued is (the pipeline steps copies, never the state it is
    given); the same object also keeps its dump remembered (:func:`_st_dump`).

    A thinking block's state changes with every chunk, but only in its count of reasoning
    tokens: for the classes of :data:`_COUNTED` the key leaves the count out (present or
    not), and a value found with another count is copied with this one, which is checked here
    as its checker checks it (an ``int``, not a ``bool``, ``>= 0``; absent: 0): every other
    field was validated when the value was first seen, and nothing checks fields together
    (:func:`_counted`). Before, every chunk of a thinking block validated the whole state
    again. A state of another class that changes
    with every chunk is validated every time, its key made in vain."""
    counted = cls in _COUNTED and raw.__class__ is dict
    value = raw
    if counted:
        count = raw.get(_COUNTER, 0)  # (absent: its default)
        if count.__class__ is not int or count < 0:
            return cls.model_validate(raw)  # (its error)
        if _COUNTER in raw:
            value = dict(raw)
            del value[_COUNTER]
    key = None
    if orjson is not None:
        try:
            key = (cls, orjson.dumps(value))  # types kept: true is not 1
        except TypeError:
            key = None
        found = _PARSER_STATES.get(key) if key is not None else None
        if found is not None:
            if not counted or getattr(found, _COUNTER) == count:  # (a count that stays:
                return found  # after the block, or a phase between tokens that count)
            new = found.model_copy()  # (a plain copy and one store: no update dict to loop
            _store(new, _COUNTER, count)  # over; the count was checked above)
            return new
    state = cls.model_validate(raw)
    if key is not None:
        if len(_PARSER_STATES) >= _MAX_PARSER_STATES:
            _PARSER_STATES.clear()
        _PARSER_STATES[key] = state
    return state


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
