"""Incremental detokenization over a bounded window of token ids, with vLLM's semantics.

Why this module exists: a streaming derender must turn each chunk of engine ids into exactly the
text the coupled vLLM server would have streamed, while every bit of state travels with the client
between calls. vLLM's derender carries token *strings* (``prev_tokens``); tito carries token *ids*,
which is lossless for every vocabulary (strings are not where tokens are raw bytes, as in
tiktoken vocabularies; review of vllm#53223), and maps to and from vLLM's strings only at the wire
(:func:`~tito.core.detok_state.window_tokens`, :func:`~tito.core.detok_state.state_from_tokens`).

Theory of operation
===================

**The window.** :class:`DetokState` holds ``window`` (a few recent ids) and two offsets into it::

    window:  [ c c c | h h h ]
               ^       ^      ^
               prefix  read   len(window)

``window[prefix:read]`` is *context*: ids whose text was already emitted, kept so that decoders
whose output depends on neighbours (SentencePiece/Metaspace strip a leading space at the start of a
decode; byte-fallback and byte-level pieces only form a character together) decode the next id as
they would inside the whole sequence. ``window[read:]`` is *held*: ids whose text was not emitted
yet. Nothing before ``prefix`` is ever read, so it is dropped after every id (``prefix == 0``
whenever :func:`step` or :func:`flush` return; :func:`seed` keeps vLLM's shape of 7 ids with
``prefix = read - 5``).

**The rule (spec 3.0-C, vLLM ``detokenize_incrementally`` / HF ``DecodeStream``).** For each id:

1. Ids that decode to nothing are not added: out-of-vocabulary ids (vLLM maps them to ``""``) and,
   with ``skip_special_tokens``, special ids (vLLM's ``convert_ids_to_tokens`` drops them). The
   tokenizer's own decode drops them too, so leaving them out changes no text, and it keeps a
   stream of 10,000 such ids from growing the window. Their piece is ``""``.
2. Append the id. ``prefix_text = decode(window[prefix:read])``, ``full = decode(window[prefix:])``.
3. If ``full`` is longer than ``prefix_text`` and does not end with U+FFFD, emit
   ``full[len(prefix_text):]`` and move both offsets (``prefix = read``, ``read = len(window)``).
   Otherwise emit ``""`` and hold: a trailing U+FFFD is an unfinished UTF-8 sequence (byte-fallback
   ``<0xNN>`` pieces, byte-level pieces that split a character). A U+FFFD in the middle is real
   output and is emitted.

So each id yields exactly one piece (``""`` when held), which is what stop strings and per-token
bookkeeping downstream need.

**Non-monotonic decodes.** Slicing by ``len(prefix_text)`` assumes ``full`` starts with
``prefix_text``. One decoder breaks that: ``ByteFallback`` (Mistral, Llama) turns a whole run of
``<0xNN>`` pieces into one U+FFFD per byte when the run is not valid UTF-8 as a whole, so
``decode(<0xE4><0xB8><0xAD>) == "中"`` but ``decode(<0xE4><0xB8><0xAD><0xE4>) == "����"``.
``DecodeStream`` raises "Invalid prefix encountered" there and vLLM restarts it without context
(vllm#17448), losing text. tito instead emits ``decode(window[read:])``, the held ids decoded on
their own: ``"中"`` then ``"�"`` for a stray byte, the lossy reading of the bytes. The same fallback
applies in :func:`flush`.

**What equals what.** ``"".join(pieces) + flush == vocab.decode(ids)`` for any chunking whenever
the decode is monotonic over the ids: for every valid text on every shipped tokenizer, and for
*any* ids on ``ByteLevel`` tokenizers (Qwen3, GPT-2: lossy UTF-8 over all bytes; property-tested
with random byte garbage). With a ``ByteFallback`` run that contains invalid bytes the full decode
depends on the whole run, which no streaming decoder can reproduce once part of it was emitted;
the stream then stays deterministic and bounded but may differ from the full decode. With a
prompt seed, the pieces equal ``DecodeStream(ids=prompt_ids)`` stepping the same ids, except where
``DecodeStream`` raises or leaks the prompt (below).

**The bound.** ``len(window) <= MAX_CONTEXT + MAX_HELD`` (64) after every id, whatever the input:

* context is cut to the last ``MAX_CONTEXT`` ids (32; in practice it is the 1-4 ids of the last
  emitted piece, vLLM's and ``DecodeStream``'s window);
* held ids are capped at ``MAX_HELD`` (32). A real character needs at most 3 held ids (4 UTF-8
  bytes, one id each at worst), so only pathological input (say 10,000 ``<0x80>`` ids) gets there.
  Then the held region is *cut*: everything but the last ``KEEP_ON_CUT = 3`` ids is emitted as it
  decodes (with its U+FFFDs), and the last 3 stay held because they may still be the start of a
  character (an incomplete character is at most 3 bytes). A held region that long contains a
  byte that can never become valid, so the emitted U+FFFDs are final: for ``ByteLevel`` decoders
  the output still equals the full decode exactly, and 10,000 stray ``<0x80>`` give 10,000 U+FFFD
  on every shipped tokenizer, as the full decode does.

Each id costs two decodes of at most ``MAX_CONTEXT + MAX_HELD + 1`` ids: ``O(window)``, never
``O(history)``. The wire bound is vLLM's ``prev_tokens`` limit, ``MAX_WINDOW = 1024``; a state
read from the wire with a larger context or held region is brought under the bound on its next id.

**Fast path (``ByteLevel`` vocabularies: Qwen3, GPT-2, gpt-oss).** Their decode is the lossy
UTF-8 reading of the tokens' bytes concatenated (each token is bytes on its own), and a lossy
UTF-8 reading that reached a character boundary continues independently of what came before. So
while the context's decode does not end in U+FFFD, ``full == prefix_text + decode(held ids)``:
the rule above needs only the held ids' bytes decoded (most often no held id and a token whose
bytes are complete UTF-8: its cached text, :meth:`~tito.core.vocab.Vocab.whole_text`). The
result is the rule's, by construction; any other case (a context ending inside a character, an
unknown id, a due cut) takes the rule itself. Per token (a streamed call often carries one id)
the common results cost lookups only: a context ends at a boundary when its last token is whole
(a lossy reading resumes at a whole token's first byte), a context of two to four ids (a
character split in as many) is answered from a memo bounded by :data:`INTERNED_STATES`, and the
state after one whole token with nothing held, ``window == [id]``, is interned per id (states
are values: nothing modifies one, so streams share it), as is the state after a character split
in two ids, per pair. One id at a time, :func:`tito.core.detok_one.step_one` takes these
outcomes directly (the pipeline's per-token path).

**Seeding** (the prompt's tail as context) is in :mod:`tito.core.detok_state`, with the
state itself and its mapping to vLLM's ``prev_tokens``.

**Flush (tito only).** vLLM never emits the held tail at the end of a sequence, so its streamed,
batch and ``tokenizer.decode`` texts disagree when generation stops inside a character
(``max_tokens``). :func:`flush` emits what is still held, so that
``"".join(pieces) + flush == vocab.decode(ids)`` (the tokenizer's own full decode, with its
trailing U+FFFD) for any chunking, within the limits of "What equals what" above: stream, batch
and full decode say the same thing.

**Kept special ids (a parser's markers).** Some formats' markers are *special* tokens of their
model (Mistral's ``[TOOL_CALLS]``, ``[ARGS]``, ``[THINK]``): vLLM turns ``skip_special_tokens``
off for those parsers, so every other special token (``</s>`` with ``ignore_eos``, ``[INST]``)
leaks into the content too. tito instead takes ``keep_special_ids``, the markers the configured
parsers declare (:func:`tito.core.parsers.marker_special_ids`): with ``skip_special_tokens``,
rule 1 drops every special id *except* those, and the window (which then holds no other special
id) decodes with the tokenizer's ``skip_special_tokens=False``. So the parser sees exactly its
markers and nothing else special reaches the text, at no extra cost per id.

**spaces_between_special_tokens.** Accepted for parity, and it has no effect, exactly as in vLLM for
fast (``tokenizer.json``) tokenizers, which all of tito's models are:

* vLLM's derender (``detokenize_incrementally``) takes the ``convert_tokens_to_string`` branch for
  fast tokenizers and never reads the flag; only slow tokenizers with an added vocabulary join
  added-token pieces with spaces.
* The engine's ``FastIncrementalDetokenizer`` uses ``skip_special_tokens or
  spaces_between_special_tokens``; when that is false it replaces the ``DecodeStream`` piece of an
  added token that directly follows another added token with the token's raw content. With
  ``ByteLevel`` and ``Replace/ByteFallback/Fuse/Strip`` decoders (every shipped model) that piece
  already is the raw content, so the override changes nothing. The tests check this for every
  added token (after an added token) of every shipped tokenizer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tito.core.detok_state import __all__ as _state_names
from tito.core.detok_state import (
    _BYTE_LEVEL_CHARS,  # noqa: F401  (the tests' byte alphabet, as before the split)
    FFFD,
    KEEP_ON_CUT,
    MAX_CONTEXT,
    MAX_HELD,
    MAX_WINDOW,
    SEED_CONTEXT,
    SEED_IDS,
    DetokState,
    adds_text,
    decode_ids,
    decode_skip,
    seed,
    state_from_tokens,
    trim_context,
    window_tokens,
)
from tito.core.vocab import Vocab

__all__ = [*_state_names, "INTERNED_STATES", "flush", "step"]  # the state's names re-exported


def step(
    vocab: Vocab,
    state: DetokState,
    ids: Sequence[int],
    *,
    skip_special_tokens: bool,
    spaces_between_special_tokens: bool = True,
    keep_special_ids: Collection[int] = (),
) -> tuple[DetokState, list[str]]:
    """Detokenize ``ids`` after ``state``: one text piece per id (``""`` while bytes are held).

    ``spaces_between_special_tokens`` has no effect on fast tokenizers, as in vLLM (module
    header). Out-of-vocabulary ids yield ``""`` and never raise. Pure: ``state`` is not modified.
    ``keep_special_ids``: special ids decoded as text even with ``skip_special_tokens`` (a
    parser's markers, module header).
    """
    del spaces_between_special_tokens  # no effect on fast tokenizers (module header)
    keep = keep_special_ids
    window = state.window  # never modified: replaced by new lists (the state stays as it was)
    read = state.read_offset
    prefix = state.prefix_offset
    if read - prefix > MAX_CONTEXT:
        prefix = read - MAX_CONTEXT
    whole = vocab.whole_texts
    if whole is not None and (
        read == prefix or whole.get(window[read - 1]) or _context_complete(vocab, window, prefix, read)
    ):
        if len(ids) == 1 and read == len(window):
            # the most common case, a streamed call of one whole token with nothing held: its
            # text, and it alone becomes the context
            token_id = ids[0]
            text = whole.get(token_id)
            if text and not (
                skip_special_tokens and token_id in vocab.special_ids and token_id not in keep
            ):
                return _AFTER_WHOLE.get(token_id) or _after_whole(token_id), [text]
        pieces: list[str] = []
        # "Fast path" in the module header: the rule's outcome, decoding held bytes only
        table: dict[int, bytes] = vocab.byte_table  # type: ignore[assignment]
        skipped = vocab.special_ids if skip_special_tokens else ()
        held = b""
        if read < len(window):  # (one held id, a split character, is the common case)
            held = (table.get(window[read]) or vocab.token_bytes(window[read])
                    if read == len(window) - 1
                    else b"".join([vocab.token_bytes(i) for i in window[read:]]))
        for token_id in ids:
            if token_id in skipped and token_id not in keep:
                pieces.append("")  # rule 1
                continue
            if read == len(window):
                text = whole.get(token_id)
                if text is None:
                    text = vocab.whole_text(token_id)
                if text:
                    pieces.append(text)
                    window, prefix, read = [token_id], 0, 1
                    continue
            piece = table.get(token_id) or vocab.token_bytes(token_id)  # type: ignore[union-attr]
            if not piece or len(window) - read >= MAX_HELD:
                # an id the rule itself must look at (unknown, or a cut is due): the rest too
                window, prefix, read = _rule_step(vocab, window, prefix, read, ids[len(pieces):],
                                                  pieces, skip_special_tokens, keep)
                break
            window = [*window, token_id]
            held += piece
            text = held.decode("utf-8", "replace")
            if text and not text.endswith(FFFD):
                pieces.append(text)
                window = window[max(read, len(window) - MAX_CONTEXT):]
                prefix, read, held = 0, len(window), b""
            else:
                pieces.append("")
    else:
        pieces = []
        window, prefix, read = _rule_step(vocab, window, prefix, read, ids, pieces,
                                          skip_special_tokens, keep)
    if prefix:
        window, prefix, read = window[prefix:], 0, read - prefix
    elif window is state.window:
        return state, pieces  # no id added text, nothing to trim: the same state
    return DetokState._construct(window, prefix, read), pieces


#: Most states interned by :func:`_after_whole`; when full, the cache is emptied.
INTERNED_STATES = 1 << 14
_AFTER_WHOLE: dict[int, DetokState] = {}


def _after_whole(token_id: int) -> DetokState:
    """The state after a whole token with nothing held, ``window == [token_id]``: interned per
    id, since it is the per-token path's most common result and depends on the id alone (states
    are values: nothing modifies one, so every stream may share it). Bounded by
    :data:`INTERNED_STATES`, whatever ids come in."""
    if len(_AFTER_WHOLE) >= INTERNED_STATES:
        _AFTER_WHOLE.clear()
    found = _AFTER_WHOLE[token_id] = DetokState._construct([token_id], 0, 1)
    return found


def _rule_step(
    vocab: Vocab,
    window: list[int],
    prefix: int,
    read: int,
    ids: Sequence[int],
    pieces: list[str],
    skip_special_tokens: bool,
    keep: Collection[int],
) -> tuple[list[int], int, int]:
    """The rule (module header) for each of ``ids``, its pieces appended to ``pieces``; the new
    window and offsets (``window`` itself is never modified)."""
    dskip = decode_skip(skip_special_tokens, keep)
    prefix_text: str | None = None  # decode(window[prefix:read]), cached while offsets hold
    for token_id in ids:
        if not adds_text(vocab, token_id, skip_special_tokens, keep):
            pieces.append("")
            continue
        window = [*window, token_id]
        if prefix_text is None:
            prefix_text = decode_ids(vocab, window[prefix:read], dskip)
        full = decode_ids(vocab, window[prefix:], dskip)
        if len(full) > len(prefix_text) and not full.endswith(FFFD):
            end = len(window)
        elif len(window) - read > MAX_HELD:
            end = len(window) - KEEP_ON_CUT  # cut a pathological held region (module header)
            full = decode_ids(vocab, window[prefix:end], dskip)
        else:
            pieces.append("")
            continue
        pieces.append(_new_text(vocab, window, read, end, prefix_text, full, dskip))
        # Emitted up to ``end``: the old held region becomes context, drop what precedes it.
        window = window[read:]
        prefix, read = trim_context(0, end - read)
        window, prefix, read = window[prefix:], 0, read - prefix
        prefix_text = None
    return window, prefix, read


def _context_complete(vocab: Vocab, window: list[int], prefix: int, read: int) -> bool:
    """Does the decode of the context ``window[prefix:read]`` end at a character boundary (so
    that what follows decodes on its own)? It does when its last token is complete UTF-8 on its
    own (:meth:`~tito.core.vocab.Vocab.whole_text`: a lossy UTF-8 reading resumes at its first
    byte), else when the context's bytes do not decode to a trailing U+FFFD (a genuine U+FFFD is
    taken for an unfinished character: only the fast path is missed). A context of two to four
    ids (a character split in that many, just emitted: the common case, GPT-2's CJK) is looked
    up in a memo bounded by :data:`INTERNED_STATES`."""
    size = read - prefix
    if 1 < size <= 4:
        key = (window[prefix], window[read - 1]) if size == 2 else tuple(window[prefix:read])
        memo = vocab.pair_memo
        found = memo.get(key)
        if found is None:
            if len(memo) >= INTERNED_STATES:
                memo.clear()
            found = memo[key] = _ends_at_boundary(vocab, key)
        return found
    return _ends_at_boundary(vocab, window[prefix:read])


def _ends_at_boundary(vocab: Vocab, ids: Sequence[int]) -> bool:
    """:func:`_context_complete`'s answer for the context ``ids`` (at least one id)."""
    if vocab.whole_text(ids[-1]):
        return True
    data = b"".join([vocab.token_bytes(i) for i in ids])
    return not data.decode("utf-8", "replace").endswith(FFFD)


def flush(
    vocab: Vocab,
    state: DetokState,
    *,
    skip_special_tokens: bool,
    keep_special_ids: Collection[int] = (),
) -> tuple[DetokState, str]:
    """At the end of a sequence: the text still held back, so that stream == batch == decode.

    vLLM never emits it (a character cut by ``max_tokens`` silently disappears from the stream
    but shows as U+FFFD in ``tokenizer.decode``); tito emits it, so the concatenation of every
    piece plus this text equals ``vocab.decode(all ids)``. The returned state holds nothing, so a
    second flush returns ``""``.
    """
    dskip = decode_skip(skip_special_tokens, keep_special_ids)
    window = list(state.window)
    prefix, read = trim_context(state.prefix_offset, state.read_offset)
    text = ""
    if read < len(window):
        prefix_text = decode_ids(vocab, window[prefix:read], dskip)
        full = decode_ids(vocab, window[prefix:], dskip)
        text = _new_text(vocab, window, read, len(window), prefix_text, full, dskip)
        window = window[read:]
        prefix, read = trim_context(0, len(window))
    window, prefix, read = window[prefix:], 0, read - prefix
    return DetokState(window=window, prefix_offset=prefix, read_offset=read), text


def _new_text(
    vocab: Vocab,
    window: Sequence[int],
    read: int,
    end: int,
    prefix_text: str,
    full: str,
    skip_special_tokens: bool,
) -> str:
    """The text of ``window[read:end]``: ``full`` minus the context's text.

    ``full`` is ``decode(window[prefix:end])``. When it does not start with the context's text the
    decoder is not monotonic (``ByteFallback`` runs, module header) and the held ids are decoded
    on their own instead of slicing at a meaningless position.
    """
    if full.startswith(prefix_text):
        return full[len(prefix_text):]
    return decode_ids(vocab, window[read:end], skip_special_tokens)
