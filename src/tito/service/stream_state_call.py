"""A stream state this process did not issue, decoded and checked in one pass for a hand-read
call.

Why a module of its own: on a serverless deployment any sandbox serves any chunk, so most
states a warm sandbox is sent were issued by another one and are decoded and checked on every
call. :func:`tito.service.stream_state.decode` does that through layers (the ``tito`` object
checked into a ``TitoState``, the window rebuilt by ``detokenizer.state_from_tokens`` with its
placeholder rules, the vLLM fields converted again), which cost a streamed call more than its
core step. :func:`decode_checked` is that decode for the common case only, in one function
that reads each field once and checks it there: vLLM's fields as the wire model and
:func:`tito.service.stream_body.read` check them (every field present, exact JSON types,
bounds; ``read`` leaves them to this pass for a state it did not issue, and checks them
itself only for a state this pass leaves to ``decode``), no float in ``tito``'s free-form
parts, a ``tito`` object of the exact types and bounds ``TitoState`` declares, its signature,
its expiry, a window of vocabulary strings only (no ``""`` placeholder), settings and choice
state as ``stream_state_fast`` decodes them, and, given the served model, the checks of
:func:`tito.service.derender_checks._check_wire_state` (settings this model and endpoint
issue, parser phases and markers, ids in the vocabulary). Anything else (or anything it would
refuse: a bad signature, an expired or foreign state) is None, and ``decode`` then decodes
it and gives the error it always did. What it returns equals ``decode``'s
(``tests/test_stream_state_call.py`` compares both on real and tampered states).

A signed state is checked as an unsigned one is, after its signature. Its HMAC proves only that
a tito holding the same secret wrote it: the secret is the deployment's, shared by every
function (a chat state may be sent to the completions function, a state of one model to
another's) and by every release (one of another release may write other fields under the same
``tito.v``), so the checks against this model, endpoint and release still decide. They are
also not what a miss costs: the signature's canonical JSON and HMAC, twice per call (verify,
then sign), cost more than all of them; the work cut from a miss is the repeated kind (a
thinking block's parser state validated again for each count, the window's strings read
through the tokenizer, the meta dumped again: ``stream_state_fast``, ``Vocab.exact_tokens``).
"""

from __future__ import annotations

import hmac
import operator
import time
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; without it the general decode runs
    orjson = None  # type: ignore[assignment]

from tito.core.detok_state import MAX_WINDOW, DetokState
from tito.core.parsers.reasoning import ReasoningState
from tito.core.pipeline import ChoiceConfig, ChoiceState
from tito.core.pipeline_parsers import parses_tools, tool_parser_for
from tito.core.state import StateError
from tito.core.vocab import Vocab
from tito.errors import TitoError
from tito.service.derender_checks import (
    _marker_ids,
    _markers_of,
    check_routers,
    wire_config_checked,
)
from tito.service.stream_body import _FLAT, _has_float
from tito.service.stream_state import _TITO_DEFAULTS as _TITO_DEFAULTS_ALL
from tito.service.stream_state import (
    _TITO_FIELDS,
    _TITO_VALUES,
    MAX_ID_CHARS,
    STATE_VERSION,
    StreamMeta,
)
from tito.service.stream_state_sign import _mac
from tito.service.stream_state_fast import (
    _COUNTED,
    _ST_KEYS,
    _config,
    read_st,
)
from tito.service.stream_state_kept import _secret, _ttl_seconds

__all__ = ["decode_checked"]

_construct_detok = DetokState._construct
_construct_meta = StreamMeta._construct
_construct_choice = ChoiceState._construct
_compare = hmac.compare_digest
_SORT_KEYS = orjson.OPT_SORT_KEYS if orjson is not None else 0
_MAX_LP_CONTEXT = ChoiceState.model_fields["lp_context"].max_length
#: vLLM's fields :func:`decode_checked` reads, read at once, and their JSON types
_VLLM_VALUES = operator.itemgetter(
    "prev_tokens", "prefix_offset", "read_offset", "held_text", "logprob_text_offset",
    "logprob_context_token_ids", "role_sent", "stop_fired", "tools_streamed", "tito",
    "output_token_ids", "output_chunk_lens", "last_tool_call_ids")
_VLLM_TYPES = (list, int, int, str, int, list, bool, bool, bool, dict, list, list, list)
#: ``tito``'s fields as ``_TITO_VALUES`` reads them (absent: their defaults, a missing required
#: one ``_MISSING``), and every combination of their types ``TitoState`` takes: the optional
#: ``prompt_tokens``, ``ext`` and ``sig`` present or null (a missing ``st``: an empty one)
_TITO_DEFAULTS = {**_TITO_DEFAULTS_ALL, "st": {}}
_TITO_TYPES = frozenset(
    (int, str, str, int, int, prompt, int, ext, dict, sig, dict)
    for prompt in (int, type(None)) for ext in (dict, type(None)) for sig in (str, type(None)))


def decode_checked(vocab: Vocab, raw: dict[str, Any], model: str, served: Any = None,
                   completion: bool = False
                   ) -> tuple[StreamMeta, ChoiceConfig, ChoiceState] | None:
    """``stream_state.decode(vocab, raw, model=model, sent=<every field>)`` for a state
    :func:`tito.service.stream_body.read` took, or None (see the module header): each field
    read once, checked as the wire model, ``read`` and ``decode`` check it. ``served`` (the
    model, for the endpoint ``completion`` says): also
    :func:`tito.service.derender_checks._check_wire_state`'s checks (None: not passed)."""
    # vLLM's fields (``stream_body._state``'s checks, which it leaves to this pass): each of
    # the exact JSON type (their types compared at once), then their bounds
    values = _VLLM_VALUES(raw)
    if tuple(map(type, values)) != _VLLM_TYPES:
        return None
    (tokens, prefix, read, held, offset, context, role_sent, _, _, tito, replay, lens,
     last_ids) = values
    if (not 0 <= prefix <= read <= len(tokens) <= MAX_WINDOW or offset < 0
            or len(context) > _MAX_LP_CONTEXT or "" in tokens  # ("": vLLM's placeholder,
            or replay or lens or (last_ids and not _strings(last_ids))  # which decode drops;
            or not tito.keys() <= _TITO_FIELDS):  # replay ids: the general path)
        return None
    for i in context:
        if i.__class__ is not int or i < 0:
            return None
    # the ``tito`` object (``stream_state._tito_fast``'s checks, the model's with them): the
    # types at once (one of the combinations of the optional fields present or null)
    v, name, id_, created, index, prompt_tokens, n, ext, st, sig, cfg = values = _TITO_VALUES(
        {**_TITO_DEFAULTS, **tito})  # (C speed: one merge, one read of every field)
    if (tuple(map(type, values)) not in _TITO_TYPES
            or name != model or v != STATE_VERSION or len(name) > 256
            or len(id_) > MAX_ID_CHARS or created < 0 or index < 0
            or (prompt_tokens is not None and prompt_tokens < 0) or not 1 <= n <= 16384
            or (sig is not None and len(sig) > 128) or not st.keys() <= _ST_KEYS
            # no float in the free-form parts (``stream_body``'s rule: float-free answers)
            or (ext is not None and not _FLAT.issuperset(map(type, ext.values())))
            or ("tool_params" in cfg and _has_float(cfg["tool_params"]))):
        return None
    cfg = _config(cfg)
    if cfg is None:
        return None
    # the signature: over ``raw`` with ``sig`` taken out of its ``tito`` for the signing, then
    # put back (its place among the keys is not read: the signature's JSON sorts them, the
    # decode reads each by name): no copy of either object
    key = _secret()
    if key is not None:
        if sig is None or not sig.isascii() or orjson is None:
            return None
        del tito["sig"]
        try:
            signed = orjson.dumps(raw, option=_SORT_KEYS)
        except TypeError:  # (not orjson's to write: the general decode's two forms)
            return None
        finally:
            tito["sig"] = sig
        if not _compare(sig, _mac(signed, key)):
            return None
    ttl = _ttl_seconds()
    if ttl is not None and time.time() - created > ttl:
        return None
    try:  # (a string not of this vocabulary: decode's error; not a string: the model's)
        window = vocab.token_ids(tokens)
    except Exception:  # noqa: BLE001 - the tokenizer's own error for a non-string
        return None
    if None in window:
        return None
    # the choice state (``stream_state_fast.read_st``), the reasoning state with its markers
    parts = read_st(st, held)
    if parts is None:
        return None
    count, calls, pending, finished, stop, reasoning, tools, harmony, muse, inkling = parts
    try:
        markers = None
        if reasoning is not None:
            reasoning, markers = _reasoning(reasoning)
        if served is not None:
            check_routers(cfg, muse, inkling)  # (its error: the general path's to give)
    except (StateError, TitoError):
        return None
    if served is not None and not _wire_ok(served, cfg, completion, pending, context,
                                           markers, tools):
        return None
    return (_construct_meta(name, id_, created, index, prompt_tokens, n, ext), cfg,
            _construct_choice(_construct_detok(window, prefix, read), stop, reasoning, tools,
                              harmony, muse, inkling, role_sent, list(context), offset, count,
                              calls,
                              pending, finished))


def _strings(value: list[Any]) -> bool:
    """A list of strings (a JSON parser's: exact ``str``, which ``join`` checks at C speed)."""
    try:
        "".join(value)
    except TypeError:
        return False
    return value.__class__ is list


def _wire_ok(served: Any, cfg: ChoiceConfig, completion: bool, pending: int | None,
             context: list[int], markers: tuple[Any, ...] | None, tools: Any) -> bool:
    """Would :func:`tito.service.derender_checks._check_wire_state` pass these decoded values
    (its checks, on the values at hand; its cache of settings checked; ``markers``: the
    reasoning state's, None without one)? False: the general path runs it, for its error."""
    checked = wire_config_checked(served, cfg, completion)
    if checked is None:
        return False
    size = served.vocab_size
    if (pending is not None and pending >= size) or (context and max(context) >= size):
        return False
    if tools is not None and (not parses_tools(cfg)
                              or tools.phase not in tool_parser_for(cfg).phases):
        return False
    if markers is not None:
        if cfg.reasoning_parser is None:
            return False
        expected = checked[2]
        if expected is None:
            expected = checked[2] = _marker_ids(served.vocab, cfg.reasoning_parser,
                                                cfg.reasoning_variant)
        if markers != expected:
            return False
    return True


#: a reasoning state's wire value with its count 0 (orjson's bytes) -> (the state validated
#: from it, its markers: ``derender_checks._markers_of``); bounded by :data:`_MAX_REASONING`
_REASONING: dict[bytes, tuple[ReasoningState, tuple[Any, ...]]] = {}
_MAX_REASONING = 256
_store = object.__setattr__
if ReasoningState not in _COUNTED:  # pragma: no cover - a changed class: _reasoning's rule
    raise RuntimeError("ReasoningState's count is no longer a plain count: update _reasoning")


def _reasoning(raw: Any) -> tuple[ReasoningState, tuple[Any, ...]]:
    """``ReasoningState.model_validate(raw)`` and its markers, validated once per value but
    its count (``reasoning_tokens``, which a thinking block's every chunk changes): the state
    validated with the count 0 (shared, as ``stream_state_fast._parser_state``'s are), else a
    copy with the count, which is checked here as its checker checks it (``_COUNTED``: a
    plain count, no rule across fields). Raises ``StateError`` for an invalid value."""
    count = raw.get("reasoning_tokens", 0) if raw.__class__ is dict else None
    if count.__class__ is not int or count < 0 or orjson is None:
        return ReasoningState.model_validate(raw), ()  # (its error)
    value = {**raw, "reasoning_tokens": 0}
    try:
        key = orjson.dumps(value)  # types kept: true is not 1
    except TypeError:
        return ReasoningState.model_validate(raw), ()  # (its error)
    hit = _REASONING.get(key)
    if hit is None:
        state = ReasoningState.model_validate(value)
        if len(_REASONING) >= _MAX_REASONING:
            _REASONING.clear()
        hit = _REASONING[key] = (state, _markers_of(state))
    if not count:
        return hit
    state = hit[0].model_copy()  # (a plain copy and one store: the count was checked above)
    _store(state, "reasoning_tokens", count)
    return state, hit[1]
