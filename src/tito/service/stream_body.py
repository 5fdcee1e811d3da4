"""The common streamed derender body, checked by hand instead of by its pydantic model.

Why: a streaming client sends one such body per engine chunk, and pydantic's validation of
``DerenderChatStreamRequest`` / ``DerenderCompletionStreamRequest`` /
``DerenderResponsesStreamRequest`` (the state, the chunk, their defaults), then dumping the state back to a dict for the decoder, cost more than the core step.
Most calls carry only ``stream``, ``model``, the ``stream_state`` tito returned and one
``generate_chunk`` of one choice.

Rule: :func:`read` returns a :class:`StreamCall` only for a body that is certainly valid: every
key one the model knows, every value of the exact JSON type and within the model's bounds (so the
validated model would hold exactly these values), no field outside the common set. Anything else
returns None and goes through the pydantic model as before: an unknown or misspelled key, a type
pydantic would coerce (``true`` for an int, ``"1"``), a bad value, the fields of first or rarer
calls (``chat_request``, ``completion_request``, ``derender_context``, ``generate_chunks``,
``prompt_token_ids``, the chunk's ``usage``/``metrics``/``prompt_token_ids``, logprobs of the
legacy shape or not of the exact wire types), a state without all of vLLM's fields or with
replay ids. Errors are therefore
always pydantic's own (and the service's, which come after validation either way). One part is
checked later, in the same call: the vLLM fields (and ``tito``'s floats) of a state this process
did not keep, whose ``tito`` is an object, are checked by the decode that reads them
(:func:`tito.service.stream_state_call.decode_checked`, one pass); a state it leaves to the
general decode is checked here then (:func:`ensure_checked`), and one invalid for the model
raises :class:`NotCommon`: the service's fast entry answers None, and the body goes through
the model as if :func:`read` had refused it.

Floats: none is accepted anywhere but in the logprob entries' ``logprob`` (no other field of the
common call is a float; the state's free-form parts, ``tito.cfg.tool_params`` and ``tito.ext``,
are searched for one). A call without logprobs is ``float_free``: its answer holds no float
either, so orjson may write it (:func:`tito.adapters.splice.dump_json`). And a body read by
orjson, which turns integers past 64 bits into floats, is read here as ``json`` reads it: where
an integer is expected such a float is refused, and in a ``logprob`` it is the float the model
would make of ``json``'s integer.

The view has the attributes the service reads from the validated models (``_Stream`` in
:mod:`tito.service.derender`), with the same values.
"""

from __future__ import annotations

from typing import Any

from tito.protocol.generate_response import _plain_wire_entries as plain_wire_entries
from tito.service.stream_state_kept import issued

__all__ = ["EngineChoice", "EngineChunk", "EngineLogprobs", "NotCommon", "StreamCall", "WireState",
           "ensure_checked", "fields_valid", "read"]

#: vLLM's ``DerenderStreamState`` fields (tito's encoder writes all of them): name -> JSON type
_STATE_TYPES: dict[str, type] = {
    "prev_tokens": list, "prefix_offset": int, "read_offset": int, "role_sent": bool,
    "logprob_context_token_ids": list, "logprob_text_offset": int, "output_token_ids": list,
    "output_chunk_lens": list, "tools_streamed": bool, "last_tool_call_ids": list,
    "held_text": str, "stop_fired": bool, "tito": dict,
}
_STATE_KEYS = frozenset(_STATE_TYPES)
_MAX_PREV_TOKENS = 1024  # protocol.derender.MAX_PREV_TOKENS
_MAX_LP_CONTEXT = 4  # protocol.derender.MAX_LOGPROB_CONTEXT_TOKEN_IDS
#: body keys of the common call (others: the pydantic path); optional ones may also be null
_BODY_KEYS = frozenset({"stream", "model", "stream_state", "generate_chunk"})
#: engine chunk / choice keys that may be present, null (their default), on the common path
_CHUNK_NULLABLE = frozenset({"usage", "prompt_token_ids", "mm_placeholders", "metrics"})
_CHOICE_NULLABLE = frozenset({"stop_reason", "routed_experts", "sampling_mask",
                              "weight_versions"})
_LOGPROBS_KEYS = frozenset({"content", "sampled"})
#: engine choice keys of any value the checks below accept
_CHOICE_KEYS = frozenset({"index", "finish_reason", "token_ids", "logprobs"})


class WireState:
    """The client's ``stream_state`` as the service reads it from the validated model: its JSON
    dump (``model_dump``) and the fields sent (``model_fields_set``); here every field is sent.
    ``issued``: a state this process issued, as :func:`tito.service.stream_state_kept.issued` found
    it (else None). ``checked``: its vLLM fields and ``tito``'s free-form parts were checked
    here (:func:`fields_valid`); not yet (a state not issued here, its ``tito`` an object): the
    decode checks them in its one pass (:func:`tito.service.stream_state_call.decode_checked`:
    those fields, no float in ``tito``), and only a state it leaves to the general decode is
    checked here (:func:`ensure_checked`)."""

    __slots__ = ("checked", "issued", "model_fields_set", "raw")

    def __init__(self, raw: dict[str, Any], issued: Any = None, checked: bool = True) -> None:
        self.raw = raw
        self.model_fields_set = _STATE_KEYS
        self.issued = issued
        self.checked = checked

    def model_dump(self, *, mode: str = "json") -> dict[str, Any]:
        return self.raw


class EngineLogprobs:
    """The choice's logprobs (``GenerateLogProbs``'s values: the wire's entry dicts, as the
    model keeps them)."""

    __slots__ = ("content",)
    sampled = None

    def __init__(self, content: list[dict[str, Any]]) -> None:
        self.content = content


class EngineChoice:
    """One choice of the engine chunk (``GenerateTokensStreamChoice``'s values)."""

    __slots__ = ("finish_reason", "index", "logprobs", "token_ids")
    stop_reason = None

    def __init__(self, index: int, token_ids: list[int] | None, finish_reason: str | None,
                 logprobs: EngineLogprobs | None = None) -> None:
        self.index, self.token_ids, self.finish_reason = index, token_ids, finish_reason
        self.logprobs = logprobs


class EngineChunk:
    """The engine chunk (``GenerateTokensStreamResponse``'s values)."""

    __slots__ = ("choices", "request_id")
    output_mode = "tokens"
    usage = prompt_token_ids = metrics = mm_placeholders = None

    def __init__(self, request_id: str, choices: list[EngineChoice]) -> None:
        self.request_id, self.choices = request_id, choices


class StreamCall:
    """The body (``DerenderChatStreamRequest`` / ``DerenderCompletionStreamRequest`` /
    ``DerenderResponsesStreamRequest``'s values). ``float_free``: no float anywhere (the
    engine sent no logprobs), so neither has the answer."""

    __slots__ = ("float_free", "generate_chunk", "model", "stream_state")
    stream = True
    generate_chunks = prompt_tokens = prompt_token_ids = None
    chat_request = completion_request = responses_request = derender_context = None

    def __init__(self, model: str | None, stream_state: WireState | None,
                 generate_chunk: EngineChunk) -> None:
        self.model, self.stream_state, self.generate_chunk = model, stream_state, generate_chunk
        self.float_free = generate_chunk.choices[0].logprobs is None


def _ids(value: Any) -> bool:
    """A list of token ids (``list[TokenId]``: ints >= 0, not bools)."""
    if value.__class__ is not list:
        return False
    for i in value:
        if i.__class__ is not int or i < 0:
            return False
    return True


def _strings(value: Any) -> bool:
    """A list of strings (a JSON parser's: exact ``str``, which ``join`` checks at C speed)."""
    if value.__class__ is not list:
        return False
    try:
        "".join(value)
    except TypeError:
        return False
    return True


def _state(raw: Any) -> WireState | None:
    if raw.__class__ is not dict or raw.keys() != _STATE_KEYS:
        return None
    found = issued(raw)
    if found is not None:  # the very bytes this process issued: valid as they are
        return WireState(raw, found)
    if raw["tito"].__class__ is dict:  # (decoded next: its one pass checks the vLLM fields
        return WireState(raw, checked=False)  # and the floats: see WireState)
    return WireState(raw) if fields_valid(raw) else None


class NotCommon(Exception):
    """A hand-read body that is not the common call after all (a stream state whose vLLM
    fields the wire model would refuse or convert, found by :func:`ensure_checked`): the
    caller answers None, and the body goes through its pydantic model."""


def ensure_checked(state: WireState) -> None:
    """Check ``state``'s vLLM fields now, if :func:`_state` left them to the decode (which
    left the state to the general decode); raise :class:`NotCommon` if invalid."""
    if not state.checked:
        if not fields_valid(state.raw):
            raise NotCommon
        state.checked = True


def fields_valid(raw: dict[str, Any]) -> bool:
    """Are the state's vLLM fields (and ``tito``'s type) what the wire model takes as they
    are, and the state one the hand-read path serves (no replay ids)?"""
    # each of _STATE_TYPES, written out (a loop over them cost twice as much)
    tokens, context, tito = raw["prev_tokens"], raw["logprob_context_token_ids"], raw["tito"]
    prefix, read, offset = raw["prefix_offset"], raw["read_offset"], raw["logprob_text_offset"]
    if (tokens.__class__ is not list or context.__class__ is not list
            or prefix.__class__ is not int or read.__class__ is not int
            or offset.__class__ is not int or prefix < 0 or read < 0 or offset < 0
            or raw["role_sent"].__class__ is not bool or raw["tools_streamed"].__class__ is not bool
            or raw["stop_fired"].__class__ is not bool or raw["held_text"].__class__ is not str
            or raw["output_token_ids"] != [] or raw["output_chunk_lens"] != []  # replay: full path
            or (tito is not None and tito.__class__ is not dict)
            or len(tokens) > _MAX_PREV_TOKENS or len(context) > _MAX_LP_CONTEXT
            or not _strings(tokens) or (context and not _ids(context))
            or (raw["last_tool_call_ids"] != [] and not _strings(raw["last_tool_call_ids"]))):
        return False
    return tito is None or _float_free_tito(tito)


def _float_free_tito(tito: dict[str, Any]) -> bool:
    """No float in ``tito``'s free-form parts (``cfg.tool_params``, ``ext``)."""
    cfg, ext = tito.get("cfg"), tito.get("ext")
    return not ((cfg.__class__ is dict and _has_float(cfg.get("tool_params")))
                or (ext is not None and (ext.__class__ is not dict or not _FLAT.issuperset(
                    map(type, ext.values()))) and _has_float(ext)))


#: the classes of a JSON object's values that hold no float (a flat object: the usual ``ext``)
_FLAT = frozenset({str, int, bool, type(None)})


def _has_float(value: Any, depth: int = 0) -> bool:
    """Does a free-form JSON value hold a float (or nest too deep to say cheaply)?"""
    if value is None or value.__class__ in _EXACT:
        return False
    if value.__class__ is dict:
        items: Any = value.values()
    elif value.__class__ is list:
        items = value
    else:
        return True  # a float (JSON holds nothing else)
    if depth > 64:
        return True
    for item in items:
        if item is not None and item.__class__ not in _EXACT and _has_float(item, depth + 1):
            return True
    return False


_EXACT = (str, int, bool)


def _chunk(raw: Any) -> EngineChunk | None:
    if raw.__class__ is not dict:
        return None
    request_id, choices = raw.get("request_id"), raw.get("choices")
    if request_id.__class__ is not str or choices.__class__ is not list or len(choices) != 1:
        return None
    if len(raw) > 2:  # more than the two keys every chunk has: each at its default
        for key, value in raw.items():
            if key in ("request_id", "choices") or (key == "output_mode" and value == "tokens"):
                continue
            if key not in _CHUNK_NULLABLE or value is not None:
                return None
    choice = choices[0]
    if choice.__class__ is not dict:
        return None
    index, finish = choice.get("index"), choice.get("finish_reason")
    token_ids = choice.get("token_ids")
    if index.__class__ is not int or index < 0:
        return None
    if (finish is not None and finish.__class__ is not str) or (
            token_ids is not None and not _ids(token_ids)):
        return None
    if not choice.keys() <= _CHOICE_KEYS:  # others: each at its default
        for key, value in choice.items():
            if key not in _CHOICE_KEYS and (key not in _CHOICE_NULLABLE or value is not None):
                return None
    logprobs = choice.get("logprobs")
    if logprobs is not None:
        logprobs = _logprobs(logprobs)
        if logprobs is None:
            return None
    return EngineChunk(request_id, [EngineChoice(index, token_ids, finish, logprobs)])


def _logprobs(raw: Any) -> EngineLogprobs | None:
    """The engine's logprobs of the integer-id shape (``{"content": [entries]}``), each entry of
    the exact wire types (the protocol model's own one-pass check: the model keeps such entries
    as they are); anything else (the legacy shape, ``sampled``, values pydantic would convert)
    goes to the model."""
    if (raw.__class__ is not dict or not raw.keys() <= _LOGPROBS_KEYS
            or raw.get("sampled") is not None):
        return None
    content = raw.get("content")
    if content.__class__ is not list or not plain_wire_entries(content):
        return None
    return EngineLogprobs(content)


def read(data: Any) -> StreamCall | None:
    """The body as a :class:`StreamCall` when it is the common streamed call (see the module
    header), else None: validate it with the pydantic model."""
    if (data.__class__ is not dict or data.get("stream") is not True
            or not data.keys() <= _BODY_KEYS):
        return None
    model = data.get("model")
    if model is not None and model.__class__ is not str:
        return None
    raw_state = data.get("stream_state")
    state = None
    if raw_state is not None:
        state = _state(raw_state)
        if state is None:
            return None
    chunk = _chunk(data.get("generate_chunk"))
    if chunk is None:
        return None
    return StreamCall(model, state, chunk)
