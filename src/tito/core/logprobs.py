"""Engine logprobs -> OpenAI logprobs: token strings, bytes, U+FFFD repair, completions shape.

Why this module exists: vLLM's generate server has no tokenizer, so its logprobs name tokens by id
(``{"token_id": 42, "logprob": -0.1, "rank": 1, "top_logprobs": [...]}``, or in the legacy shape
``{"token": "token_id:42", ...}``). The derender fills in what OpenAI clients read: ``token``,
``bytes`` and the same for every ``top_logprobs`` entry (spec 3.0-D), and for ``/v1/completions``
reshapes that into parallel lists with ``text_offset`` (spec 3.0-E).

Theory of operation
===================

**Input** is normalized to :class:`EngineLogprob` (:func:`from_engine_dict` for the integer shape,
:func:`from_legacy_dict` for the legacy shape, :func:`from_wire` for either); :func:`resolve`
accepts those or the raw dicts. A legacy ``"token_id:N"`` becomes ``token_id=N``; any other legacy
string is kept as ``token`` and passes through unchanged (its bytes are its UTF-8).

**Token strings** are single-id decodes with ``skip_special_tokens=False`` (special tokens show as
their text, as in vLLM), ``bytes`` is their UTF-8. An unknown id gives ``""`` and ``[]``. A
non-finite logprob (``-inf``, NaN) becomes ``-9999.0``, as vLLM clamps it; the ``rank`` is dropped.

**U+FFFD repair.** A piece of a multi-byte character (a ``<0xNN>`` byte-fallback token, a byte-level
piece) decodes to U+FFFD on its own. When a string ends with U+FFFD it is decoded again after 1,
2, 3, then 4 of the preceding *sampled* ids (``context``); the first decode that no longer ends
with U+FFFD wins, minus the text of the context (the longest context prefix whose last tokens do
not themselves end in U+FFFD, else the common prefix). If none works the string is ``""``. So the
bytes of a character split over several tokens are reported once, on the token that completes it,
and the earlier pieces report ``""``/``[]``: the concatenated token strings are the text. Top
entries are repaired with the same context (the sampled ids before their position). This is
vLLM's ``_correct_decoded_token``.

**Context across calls.** :func:`resolve` takes and returns the last ``CONTEXT_IDS`` (4) sampled
ids, so a character split across two stream chunks resolves exactly as in one call. A legacy
entry with a plain string (no id) resets the context: the ids before it are not known.

**Completions shape** (:func:`to_completion`): ``tokens[i]``, ``token_logprobs[i]``,
``top_logprobs[i] = {token: logprob}`` (``None`` without top entries) and ``text_offset[i]``, the
running sum of ``len(token)`` from the given offset. vLLM builds the top dict with a comprehension,
so when two candidates decode to the same string (two byte pieces that both repair to ``""``,
say) the *later*, less likely one overwrites the earlier (the collision class of vllm PR #44504);
tito keeps the higher logprob.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tito.core.vocab import Vocab
from tito.errors import BadRequest

__all__ = [
    "CONTEXT_IDS",
    "LOGPROB_FLOOR",
    "EngineLogprob",
    "from_engine_dict",
    "from_legacy_dict",
    "from_wire",
    "parse_token_placeholder",
    "resolve",
    "to_completion",
]

#: Preceding sampled ids used to repair a U+FFFD (vLLM's ``_LOGPROB_CONTEXT_WINDOW``).
CONTEXT_IDS = 4
#: What a non-finite logprob is reported as (vLLM's clamp).
LOGPROB_FLOOR = -9999.0

_FFFD = "\ufffd"
_PLACEHOLDER = re.compile(r"token_id:(\d+)")


@dataclass(frozen=True, slots=True)
class EngineLogprob:
    """One engine logprob entry in either wire shape, as plain data.

    Exactly one of ``token_id`` (integer shape, or a parsed legacy ``"token_id:N"``) and
    ``token`` (a legacy string that is not a placeholder) is normally set. ``top`` holds the
    candidates in engine order (their own ``top`` is empty).
    """

    token_id: int | None
    token: str | None
    logprob: float
    top: tuple[EngineLogprob, ...] = field(default_factory=tuple)
    rank: int | None = None


def parse_token_placeholder(token: str) -> int | None:
    """The id in a legacy ``"token_id:N"`` placeholder, or None for any other string."""
    match = _PLACEHOLDER.fullmatch(token)
    return int(match.group(1)) if match else None


def from_engine_dict(entry: Mapping[str, Any]) -> EngineLogprob:
    """An entry of the integer shape: ``{token_id, logprob, rank?, top_logprobs?}``."""
    return EngineLogprob(
        token_id=_int(entry.get("token_id"), "token_id"),
        token=None,
        logprob=_float(entry.get("logprob"), "logprob"),
        top=tuple(from_engine_dict(t) for t in entry.get("top_logprobs") or ()),
        rank=entry.get("rank"),
    )


def from_legacy_dict(entry: Mapping[str, Any]) -> EngineLogprob:
    """An entry of the legacy shape: ``{token, logprob, bytes?, top_logprobs?}``.

    ``"token_id:N"`` is parsed into an id; any other string is kept as text.
    """
    token = entry.get("token")
    if not isinstance(token, str):
        raise BadRequest("logprobs entry has no token string", param="logprobs.content.token")
    token_id = parse_token_placeholder(token)
    return EngineLogprob(
        token_id=token_id,
        token=None if token_id is not None else token,
        logprob=_float(entry.get("logprob"), "logprob"),
        top=tuple(from_legacy_dict(t) for t in entry.get("top_logprobs") or ()),
    )


def from_wire(entry: EngineLogprob | Mapping[str, Any]) -> EngineLogprob:
    """Either dict shape (told apart by ``token_id`` vs ``token``), or an entry unchanged."""
    if isinstance(entry, EngineLogprob):
        return entry
    if not isinstance(entry, Mapping):
        raise BadRequest("logprobs entry must be an object", param="logprobs.content")
    if "token_id" in entry:
        return from_engine_dict(entry)
    if "token" in entry:
        return from_legacy_dict(entry)
    raise BadRequest("logprobs entry has neither token_id nor token", param="logprobs.content")


def resolve(
    vocab: Vocab,
    entries: Sequence[EngineLogprob | Mapping[str, Any]],
    context_ids: Sequence[int],
) -> tuple[list[dict[str, Any]], list[int]]:
    """OpenAI ``ChatCompletionLogProbsContent`` dicts for ``entries``, and the new context.

    ``context_ids`` are the sampled ids before the first entry (only the last 4 are used); the
    returned context is the last 4 sampled ids after the last entry, to pass to the next call.
    """
    context = [int(i) for i in context_ids][-CONTEXT_IDS:]
    out: list[dict[str, Any]] = []
    pieces: dict[int, tuple[str, list[int]]] = {}  # context-free (token, bytes) of this call
    size = vocab.size
    known = pieces.get
    for raw in entries:
        if type(raw) is dict and "token_id" in raw:
            # the engine's integer shape, read directly (ints and finite floats checked inline:
            # this loop runs for every candidate of every position of a batch)
            sampled = raw.get("token_id")
            if sampled.__class__ is not int:
                sampled = _int(sampled, "token_id")
            logprob = raw.get("logprob")
            if logprob.__class__ is not float or not -_INF < logprob < _INF:
                logprob = _clamp(_float(logprob, "logprob"))
            found = known(sampled)
            if found is None:
                found = _piece(vocab, sampled, context, pieces)
            top = []
            add = top.append
            for cand in raw.get("top_logprobs") or ():
                if type(cand) is not dict:
                    cand = from_wire(cand)
                    cand_token, cand_bytes = _token_text(vocab, cand, context)
                    top.append({"token": cand_token, "logprob": _clamp(cand.logprob),
                                "bytes": cand_bytes})
                    continue
                cand_id = cand.get("token_id")
                if cand_id.__class__ is not int:
                    cand_id = _int(cand_id, "token_id")
                cand_logprob = cand.get("logprob")
                if cand_logprob.__class__ is not float or not -_INF < cand_logprob < _INF:
                    cand_logprob = _clamp(_float(cand_logprob, "logprob"))
                piece = known(cand_id)
                if piece is None:
                    piece = _piece(vocab, cand_id, context, pieces) if 0 <= cand_id < size \
                        else ("", [])
                add({"token": piece[0], "logprob": cand_logprob, "bytes": piece[1]})
            out.append({"token": found[0], "logprob": logprob, "bytes": found[1],
                        "top_logprobs": top})
        else:
            entry = from_wire(raw)
            token, token_bytes = _token_text(vocab, entry, context)
            top = []
            for cand in entry.top:
                cand_token, cand_bytes = _token_text(vocab, cand, context)
                top.append({"token": cand_token, "logprob": _clamp(cand.logprob),
                            "bytes": cand_bytes})
            out.append({"token": token, "logprob": _clamp(entry.logprob), "bytes": token_bytes,
                        "top_logprobs": top})
            sampled = _entry_id(entry)
        if sampled is None:
            context = []
        else:
            context.append(sampled)
            if len(context) > CONTEXT_IDS:
                del context[0]
    return out, context


def _piece(
    vocab: Vocab, token_id: int, context: list[int], pieces: dict[int, tuple[str, list[int]]]
) -> tuple[str, list[int]]:
    """:func:`_token_text` for an id: the vocabulary's cached piece, repaired only when it ends in
    U+FFFD (the one context-dependent case). ``pieces`` memoizes ``(token, bytes)`` within a call;
    the bytes list is shared between equal entries (nothing downstream mutates it)."""
    found = pieces.get(token_id)
    if found is not None:
        return found
    if token_id < 0 or token_id >= vocab.size:
        return "", []
    text = vocab.piece(token_id)
    if text.endswith(_FFFD):
        text = _repair(vocab, token_id, context)
        return text, list(text.encode("utf-8"))
    found = (text, list(text.encode("utf-8")))
    pieces[token_id] = found
    return found


def to_completion(
    entries: Sequence[Mapping[str, Any]], text_offset: int
) -> tuple[dict[str, Any], int]:
    """OpenAI ``CompletionLogProbs`` from resolved chat entries, and the offset after them.

    ``text_offset[i]`` starts at ``text_offset`` and adds ``len(token)`` per entry, so a stream
    passes the returned offset to the next call. (vLLM's streaming derender carries
    ``offset + len(chunk text)`` across chunks instead; the two differ when token strings and
    text differ, e.g. skipped special tokens, and the caller chooses which to carry.)
    """
    offsets: list[int] = []
    tokens: list[str] = []
    token_logprobs: list[float | None] = []
    top_logprobs: list[dict[str, float] | None] = []
    offset = text_offset
    for entry in entries:
        token = entry.get("token") or ""
        offsets.append(offset)
        tokens.append(token)
        token_logprobs.append(entry.get("logprob"))
        candidates = entry.get("top_logprobs") or []
        if candidates:
            merged: dict[str, float] = {}
            for cand in candidates:
                key, value = cand.get("token") or "", cand.get("logprob")
                merged[key] = value  # equal texts: the later candidate wins, as in vLLM
            top_logprobs.append(merged)
        else:
            top_logprobs.append(None)
        offset += len(token)
    return (
        {"text_offset": offsets, "token_logprobs": token_logprobs, "tokens": tokens,
         "top_logprobs": top_logprobs},
        offset,
    )


# -- helpers -----------------------------------------------------------------------------------


def _entry_id(entry: EngineLogprob) -> int | None:
    if entry.token_id is not None:
        return entry.token_id
    if entry.token is not None:
        return parse_token_placeholder(entry.token)
    return None


def _token_text(vocab: Vocab, entry: EngineLogprob, context: list[int]) -> tuple[str, list[int]]:
    """``(token, bytes)`` for one entry: single-id decode, repaired when it ends in U+FFFD."""
    token_id = _entry_id(entry)
    if token_id is None:
        text = entry.token or ""
        return text, list(text.encode("utf-8"))
    if not vocab.in_vocab(token_id):
        return "", []
    text = vocab.piece(token_id)
    if text.endswith(_FFFD):
        text = _repair(vocab, token_id, context)
    return text, list(text.encode("utf-8"))


def _repair(vocab: Vocab, token_id: int, context: list[int]) -> str:
    """The text ``token_id`` adds after up to 4 context ids, or ``""`` (vLLM's repair)."""
    for n in range(1, min(len(context), CONTEXT_IDS) + 1):
        ctx = context[-n:]
        full = vocab.decode([*ctx, token_id], skip_special_tokens=False)
        if full.endswith(_FFFD):
            continue
        clean_end = len(ctx)
        while clean_end > 0 and vocab.decode(
            [ctx[clean_end - 1]], skip_special_tokens=False
        ).endswith(_FFFD):
            clean_end -= 1
        clean = vocab.decode(ctx[:clean_end], skip_special_tokens=False) if clean_end else ""
        if full.startswith(clean):
            return full[len(clean):]
        common = 0
        for a, b in zip(clean, full):
            if a != b:
                break
            common += 1
        return full[common:]
    return ""


_INF = math.inf


def _clamp(value: float) -> float:
    return value if math.isfinite(value) else LOGPROB_FLOOR


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"logprobs entry {name} must be an integer", param=f"logprobs.{name}")
    return value


def _float(value: Any, name: str) -> float:
    if value is None:
        return LOGPROB_FLOOR  # vLLM: no engine entry for the sampled token
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRequest(f"logprobs entry {name} must be a number", param=f"logprobs.{name}")
    return float(value)
