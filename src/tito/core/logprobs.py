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
their text, as in vLLM), ``bytes`` is their UTF-8. An unknown id gives ``""`` and null bytes (vLLM). A
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

**Output** is a :class:`Resolved`: the entries as JSON text, written from per-token fragments
(``{"token":"...","logprob":`` and ``,"bytes":[...]``) cached per vocabulary in a bounded cache, so
a batch's ~50k candidates cost one string each, not a dict each plus ``json.dumps`` of it; the
answer's writer splices the text in (``tito.adapters.splice``). It reads as the list of dicts it
holds (parsed once, when first read: the completions shape, Responses items).

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

import itertools
import json
import math
import re
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tito.core.vocab import Vocab
from tito.errors import BadRequest

__all__ = [
    "CONTEXT_IDS",
    "LOGPROB_FLOOR",
    "EngineLogprob",
    "Resolved",
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


class Resolved(Sequence[dict[str, Any]]):
    """The resolved entries of one :func:`resolve` call, held as their JSON text.

    Why text: a batch of 8k tokens with top-5 logprobs has ~50k candidates; one dict each, then
    ``json.dumps`` of them, was half of a batch derender. The answer carries these entries as
    they are, so they are written once, as JSON, from per-token fragments cached per vocabulary
    (:func:`_fragment`); the JSON writer splices :meth:`json_text` in (``tito.adapters.splice``).
    Reading entries (the completions shape, the Responses items, tests) parses the text once:
    the dicts are exactly those the text holds, ``{token, logprob, bytes, top_logprobs}``.
    """

    __slots__ = ("_items", "_pieces")

    def __init__(self, pieces: list[str]) -> None:
        self._pieces = pieces  # one JSON object per position
        self._items: list[dict[str, Any]] | None = None

    def json_text(self) -> str:
        """The entries as a JSON array (compact, UTF-8 characters kept, as ``dump_json``)."""
        return "[" + ",".join(self._pieces) + "]"

    def _entries(self) -> list[dict[str, Any]]:
        if self._items is None:
            self._items = json.loads(self.json_text())
        return self._items

    def __len__(self) -> int:
        return len(self._pieces)

    def __getitem__(self, index: Any) -> Any:
        return self._entries()[index]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._entries())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Resolved):
            return self._entries() == other._entries()
        if isinstance(other, list):
            return self._entries() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: object) -> Any:
        """Entries of consecutive calls, joined (as lists join)."""
        if isinstance(other, Resolved):
            return Resolved(self._pieces + other._pieces)
        if isinstance(other, list):
            return self._entries() + other
        return NotImplemented

    def __repr__(self) -> str:
        return f"Resolved({self._entries()!r})"


def resolve(
    vocab: Vocab,
    entries: Sequence[EngineLogprob | Mapping[str, Any]],
    context_ids: Sequence[int],
) -> tuple[Resolved, list[int]]:
    """OpenAI ``ChatCompletionLogProbsContent`` entries for ``entries``, and the new context.

    ``context_ids`` are the sampled ids before the first entry (only the last 4 are used); the
    returned context is the last 4 sampled ids after the last entry, to pass to the next call.
    """
    context = [int(i) for i in context_ids][-CONTEXT_IDS:]
    out: list[str] = []
    cache = _fragments(vocab)
    known = cache.get
    inf = _INF
    for raw in entries:
        if type(raw) is dict and "token_id" in raw:
            # the engine's integer shape, read directly (ints and finite floats checked inline:
            # this loop runs for every candidate of every position of a batch)
            sampled = raw.get("token_id")
            if sampled.__class__ is not int:
                sampled = _int(sampled, "token_id")
            logprob = raw.get("logprob")
            if logprob.__class__ is not float or not -inf < logprob < inf:
                logprob = _clamp(_float(logprob, "logprob"))
            frag = known(sampled) or _fragment(vocab, sampled, context, cache)
            top = []
            add = top.append
            for cand in raw.get("top_logprobs") or ():
                if type(cand) is not dict:
                    cand = from_wire(cand)
                    h, t = _text_fragment(_token_text(vocab, cand, context))
                    add(f"{h}{_clamp(cand.logprob)!r}{t}}}")
                    continue
                cand_id = cand.get("token_id")
                cand_logprob = cand.get("logprob")
                if cand_id.__class__ is not int:
                    cand_id = _int(cand_id, "token_id")
                if cand_logprob.__class__ is not float or not -inf < cand_logprob < inf:
                    cand_logprob = _clamp(_float(cand_logprob, "logprob"))
                h, t = known(cand_id) or _fragment(vocab, cand_id, context, cache)
                add(f"{h}{cand_logprob!r}{t}}}")
            out.append(f'{frag[0]}{logprob!r}{frag[1]},"top_logprobs":[{",".join(top)}]}}')
        else:
            entry = from_wire(raw)
            head, tail = _text_fragment(_token_text(vocab, entry, context))
            top = []
            for cand in entry.top:
                h, t = _text_fragment(_token_text(vocab, cand, context))
                top.append(f"{h}{_clamp(cand.logprob)!r}{t}}}")
            out.append(f'{head}{_clamp(entry.logprob)!r}{tail},"top_logprobs":[{",".join(top)}]}}')
            sampled = _entry_id(entry)
        if sampled is None:
            context = []
        else:
            context.append(sampled)
            if len(context) > CONTEXT_IDS:
                del context[0]
    return Resolved(out), context


#: Token ids whose JSON fragments stay cached per vocabulary; when full, the older half goes.
FRAGMENT_CACHE_IDS = 1 << 16

_FRAGMENTS: weakref.WeakKeyDictionary[Vocab, dict[int, tuple[str, str]]] = (
    weakref.WeakKeyDictionary())


def _fragments(vocab: Vocab) -> dict[int, tuple[str, str]]:
    """The fragment cache of ``vocab`` (id -> fragment; an empty tuple for a piece ending in
    U+FFFD, whose fragment depends on the context)."""
    found = _FRAGMENTS.get(vocab)
    if found is None:
        found = _FRAGMENTS[vocab] = {}
    return found


def _text_fragment(text: str) -> tuple[str, str]:
    """The JSON of an entry with token string ``text`` around its logprob: ``{"token":...,
    "logprob":`` and ``,"bytes":[...]`` (the bytes are ``text``'s UTF-8, as OpenAI's)."""
    return ('{"token":' + json.dumps(text, ensure_ascii=False) + ',"logprob":',
            ',"bytes":[' + ",".join(map(str, text.encode("utf-8"))) + "]")


#: an id the tokenizer lacks (a padded row): vLLM 0.33 reports ``""`` with null ``bytes``
_UNKNOWN_FRAGMENT = ('{"token":"","logprob":', ',"bytes":null')


def _fragment(
    vocab: Vocab, token_id: int, context: list[int], cache: dict[int, tuple[str, str]]
) -> tuple[str, str]:
    """The JSON fragment of an id's entry (a cache miss, or a context-dependent piece).

    Pieces are single-id decodes; one ending in U+FFFD is repaired with the context (the one
    context-dependent case, so never cached as a fragment). The cache is bounded: when it holds
    :data:`FRAGMENT_CACHE_IDS` ids, the older half is dropped (dicts keep insertion order).
    """
    if token_id < 0 or token_id >= vocab.size:
        return _UNKNOWN_FRAGMENT
    if token_id in cache:  # cached as () : repaired each time
        return _text_fragment(_repair(vocab, token_id, context))
    text = vocab.piece(token_id)
    if len(cache) >= FRAGMENT_CACHE_IDS:
        for old in list(itertools.islice(cache, FRAGMENT_CACHE_IDS // 2)):
            cache.pop(old, None)
    if text.endswith(_FFFD):
        cache[token_id] = ()  # type: ignore[assignment]
        return _text_fragment(_repair(vocab, token_id, context))
    found = cache[token_id] = _text_fragment(text)
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


def _token_text(vocab: Vocab, entry: EngineLogprob, context: list[int]) -> str:
    """The token string of one entry: single-id decode, repaired when it ends in U+FFFD."""
    token_id = _entry_id(entry)
    if token_id is None:
        return entry.token or ""
    if not vocab.in_vocab(token_id):
        return ""
    text = vocab.piece(token_id)
    return _repair(vocab, token_id, context) if text.endswith(_FFFD) else text


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
