"""Engine logprobs -> OpenAI logprobs: token strings, bytes, U+FFFD repair, completions shape.

Why this module exists: vLLM's generate server has no tokenizer, so its logprobs name tokens by id
(``{"token_id": 42, "logprob": -0.1, "rank": 1, "top_logprobs": [...]}``, or in the legacy shape
``{"token": "token_id:42", ...}``). The derender fills in what OpenAI clients read: ``token``,
``bytes`` and the same for every ``top_logprobs`` entry (spec 3.0-D), and for ``/v1/completions``
reshapes that into parallel lists with ``text_offset`` (spec 3.0-E).

Theory of operation
===================

**Input**: entries of either engine shape, as dicts or as :class:`EngineLogprob`
(:mod:`tito.core.engine_logprobs` reads and checks them; its names are re-exported here).

**Token strings** are single-id decodes with ``skip_special_tokens=False`` (special tokens show as
their text, as in vLLM), ``bytes`` is their UTF-8. An unknown id gives ``""`` and null bytes (vLLM);
one past the tokenizers' 32-bit ids (:data:`MAX_TOKEN_ID`) is vLLM's 400 (its decode fails). A
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
(``{"token":"...","logprob":`` and ``,"bytes":[...]``) kept per vocabulary in two tables of its
size (bounded by it: a 32k-token batch's ~128k distinct random candidates all stay, where a cache
of fewer ids thrashed), so a batch's ~160k candidates cost one string each, not a dict each plus
``json.dumps`` of it; the answer's writer splices their UTF-8 in (``tito.adapters.splice``). It
reads as the list of dicts it holds (parsed once, when first read: the completions shape,
Responses items).

**Context across calls.** :func:`resolve` takes and returns the last ``CONTEXT_IDS`` (4) sampled
ids, so a character split across two stream chunks resolves exactly as in one call. A legacy
entry with a plain string (no id) resets the context: the ids before it are not known.

**Completions shape** (:func:`to_completion`): ``tokens[i]``, ``token_logprobs[i]``,
``top_logprobs[i] = {token: logprob}`` (``None`` without top entries) and ``text_offset[i]``, the
running sum of ``len(token)`` from the given offset. vLLM builds the top dict with a comprehension,
so when two candidates decode to the same string (two byte pieces that both repair to ``""``,
say) the *later*, less likely one overwrites the earlier (the collision class of vllm PR #44504);
tito does the same, for parity (``tests/test_logprobs.py`` pins it).
"""

from __future__ import annotations

import json
import math
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tito.core.engine_logprobs import (
    LOGPROB_FLOOR,
    EngineLogprob,
    check_float,
    check_int,
    clamp,
    entry_id,
    from_engine_dict,
    from_legacy_dict,
    from_wire,
    parse_token_placeholder,
)
from tito.core.vocab import Vocab
from tito.errors import BadRequest

__all__ = [
    "CONTEXT_IDS",
    "LOGPROB_FLOOR",
    "MAX_TOKEN_ID",
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
_FFFD = "\ufffd"
#: The largest id a tokenizer can name (the tokenizers' ids are ``u32``). A logprob entry or
#: candidate past it is a 400, as vLLM 0.33 answers (its decode of it fails: "number too large
#: to fit in target type"); ids between the vocabulary and it decode to ``""``, as vLLM.
MAX_TOKEN_ID = 2**32 - 1


def _too_large(token_id: int) -> BadRequest:
    return BadRequest(f"logprobs name token id {token_id}, past the largest token id "
                      f"({MAX_TOKEN_ID}): number too large to fit in target type")



class Resolved(Sequence[dict[str, Any]]):
    """The resolved entries of one :func:`resolve` call, held as their JSON text.

    Why text: a batch of 8k tokens with top-5 logprobs has ~50k candidates; one dict each, then
    ``json.dumps`` of them, was half of a batch derender. The answer carries these entries as
    they are, so they are written once, as JSON, from per-token fragments kept per vocabulary
    (:func:`_fragments`); the JSON writer splices :meth:`json_bytes` in (``tito.adapters.splice``).
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

    def json_bytes(self) -> bytes:
        """:meth:`json_text` as UTF-8, what the answer's writer splices in. Each entry is encoded
        on its own: one text of them all is four bytes a character as soon as one entry holds an
        emoji, and copying that was most of a long batch's writing."""
        return b"[" + b",".join([piece.encode() for piece in self._pieces]) + b"]"

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
    top: int | None = None,
) -> tuple[Resolved, list[int]]:
    """OpenAI ``ChatCompletionLogProbsContent`` entries for ``entries``, and the new context.

    ``context_ids`` are the sampled ids before the first entry (only the last 4 are used); the
    returned context is the last 4 sampled ids after the last entry, to pass to the next call.
    ``top``: candidates kept per position, the engine's first (None: all it sent).
    """
    context = [int(i) for i in context_ids][-CONTEXT_IDS:]
    out: list[str] = []
    heads, tails = _fragments(vocab)
    size = len(heads)
    inf = _INF
    for raw in entries:
        if raw.__class__ is dict and "token_id" in raw:
            # the engine's integer shape, read directly (ints and finite floats checked inline:
            # this loop runs for every candidate of every position of a batch)
            sampled = raw["token_id"]
            if sampled.__class__ is not int:
                sampled = check_int(sampled, "token_id")
            logprob = raw.get("logprob")
            if logprob.__class__ is not float or not -inf < logprob < inf:
                logprob = clamp(check_float(logprob, "logprob"))
            head = heads[sampled] if 0 <= sampled < size else None
            if head:
                tail = tails[sampled]
            else:
                head, tail = _fragment(vocab, sampled, context, heads, tails)
            cands = raw.get("top_logprobs") or ()
            if top is not None and len(cands) > top:
                cands = cands[:top]
            texts = []
            add = texts.append
            for cand in cands:
                if cand.__class__ is not dict:
                    cand = from_wire(cand)
                    h, t = _text_fragment(_token_text(vocab, cand, context))
                    add(f"{h}{clamp(cand.logprob)!r}{t}}}")
                    continue
                try:
                    cand_id, cand_logprob = cand["token_id"], cand["logprob"]
                except KeyError:  # (what .get reads: a missing logprob is the floor)
                    cand_id, cand_logprob = cand.get("token_id"), cand.get("logprob")
                if cand_id.__class__ is not int:
                    cand_id = check_int(cand_id, "token_id")
                if cand_logprob.__class__ is not float or not -inf < cand_logprob < inf:
                    cand_logprob = clamp(check_float(cand_logprob, "logprob"))
                h = heads[cand_id] if 0 <= cand_id < size else None
                if h:
                    add(f"{h}{cand_logprob!r}{tails[cand_id]}}}")
                else:
                    h, t = _fragment(vocab, cand_id, context, heads, tails)
                    add(f"{h}{cand_logprob!r}{t}}}")
            out.append(f'{head}{logprob!r}{tail},"top_logprobs":[{",".join(texts)}]}}')
        else:
            if top is not None and isinstance(raw, Mapping) and len(
                raw.get("top_logprobs") or ()
            ) > top:  # (the candidates past ``top`` are not read)
                raw = {**raw, "top_logprobs": raw["top_logprobs"][:top]}
            entry = from_wire(raw)
            head, tail = _text_fragment(_token_text(vocab, entry, context))
            texts = []
            for cand in entry.top if top is None else entry.top[:top]:
                h, t = _text_fragment(_token_text(vocab, cand, context))
                texts.append(f"{h}{clamp(cand.logprob)!r}{t}}}")
            out.append(f'{head}{clamp(entry.logprob)!r}{tail},"top_logprobs":[{",".join(texts)}]}}')
            sampled = entry_id(entry)
        if sampled is None:
            context = []
        else:
            context.append(sampled)
            if len(context) > CONTEXT_IDS:
                del context[0]
    return Resolved(out), context


_FRAGMENTS: weakref.WeakKeyDictionary[Vocab, tuple[list[str | None], list[str | None]]] = (
    weakref.WeakKeyDictionary())


def _fragments(vocab: Vocab) -> tuple[list[str | None], list[str | None]]:
    """The fragment tables of ``vocab``: for each id the head and the tail of its entry's JSON
    (:func:`_text_fragment`), None until the id is first met, a ``""`` head for a piece ending in
    U+FFFD (its fragment depends on the context). Two lists of the vocabulary's size: bounded by
    it whatever ids come in (a batch's random candidates, ~128k distinct ids, all stay), about
    150 bytes an id when full, no key objects, and one index per candidate."""
    found = _FRAGMENTS.get(vocab)
    if found is None:
        found = _FRAGMENTS[vocab] = ([None] * vocab.size, [None] * vocab.size)
    return found


#: Each byte's decimal text, for the ``bytes`` lists.
_BYTE_TEXTS = [str(b) for b in range(256)]


def _text_fragment(text: str) -> tuple[str, str]:
    """The JSON of an entry with token string ``text`` around its logprob: ``{"token":...,
    "logprob":`` and ``,"bytes":[...]`` (the bytes are ``text``'s UTF-8, as OpenAI's). A
    printable text without ``"`` or ``\\`` is its own JSON string (``json.dumps`` escapes only
    those and control characters, with ``ensure_ascii=False``)."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        quoted = '"' + text + '"'
    else:
        quoted = json.dumps(text, ensure_ascii=False)
    byte_texts = _BYTE_TEXTS
    return ('{"token":' + quoted + ',"logprob":',
            ',"bytes":[' + ",".join([byte_texts[b] for b in text.encode("utf-8")]) + "]")


#: an id the tokenizer lacks (a padded row): vLLM 0.33 reports ``""`` with null ``bytes``
_UNKNOWN_FRAGMENT = ('{"token":"","logprob":', ',"bytes":null')


def _fragment(
    vocab: Vocab,
    token_id: int,
    context: list[int],
    heads: list[str | None],
    tails: list[str | None],
) -> tuple[str, str]:
    """The JSON fragment of an id's entry, when the tables do not hold it: an id out of the
    vocabulary (``""``, null bytes), one not met yet (its fragment is built and kept) or a piece
    ending in U+FFFD (repaired with the context each time, the one context-dependent case).
    """
    if not 0 <= token_id < len(heads):
        if token_id > MAX_TOKEN_ID:
            raise _too_large(token_id)
        return _UNKNOWN_FRAGMENT
    if heads[token_id] is None:
        text = vocab.piece(token_id)  # the vocabulary's own naming (Mistral: its raw piece)
        if not text.endswith(_FFFD):
            found = heads[token_id], tails[token_id] = _text_fragment(text)
            return found
        heads[token_id] = ""
    return _text_fragment(_repair(vocab, token_id, context))


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


def _token_text(vocab: Vocab, entry: EngineLogprob, context: list[int]) -> str:
    """The token string of one entry: single-id decode, repaired when it ends in U+FFFD."""
    token_id = entry_id(entry)
    if token_id is None:
        return entry.token or ""
    if not vocab.in_vocab(token_id):
        if token_id > MAX_TOKEN_ID:
            raise _too_large(token_id)
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
