"""Incremental detokenization over a bounded window of token ids, with vLLM's semantics.

Why this module exists: a streaming derender must turn each chunk of engine ids into exactly the
text the coupled vLLM server would have streamed, while every bit of state travels with the client
between calls. vLLM's derender carries token *strings* (``prev_tokens``); tito carries token *ids*,
which is lossless for every vocabulary (strings are not where tokens are raw bytes, as in
tiktoken vocabularies; review of vllm#53223), and maps to and from vLLM's strings only at the wire
(:func:`window_tokens`, :func:`state_from_tokens`).

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
unknown id, a due cut) takes the rule itself.

**Seeding (spec 3.0-B, vLLM ``convert_prompt_ids_to_tokens``).** The last 7 prompt ids minus those
that decode to nothing (rule 1: vLLM drops skipped specials and maps unknown ids to ``""``, both
of which add no text), ``read = len(window)``, ``prefix = max(read - 5, 0)``. Without prompt ids the
window is empty, and a Metaspace tokenizer loses the first output token's leading space exactly
as vLLM's unseeded derender (and ``tokenizer.decode(output_ids)``) do.

One improvement: when the prompt ends inside a character (a truncated multi-byte character, as in
a token-in/token-out loop whose previous turn stopped on ``max_tokens``), vLLM's context ends in
U+FFFD and the first pieces come out shifted (``DecodeStream`` leaks the whole prompt instead,
vllm#48853). :func:`seed` probes with UTF-8 continuation bytes whether the trailing U+FFFD can still
complete; if so it moves ``read`` back before the at most 3 incomplete ids, and the completed
character is emitted as the first output text (should the output not complete it after all, its
U+FFFDs come out in front of the first output text: the lossy reading of the bytes from there).
A genuine U+FFFD at the end of the prompt cannot complete and is left in the context, as in vLLM.

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

from tito.core.state import Field, State, StateError
from tito.core.vocab import BYTE_LEVEL_CHARS as _BYTE_LEVEL_CHARS
from tito.core.vocab import Vocab
from tito.errors import BadRequest

__all__ = [
    "FFFD",
    "KEEP_ON_CUT",
    "MAX_CONTEXT",
    "MAX_HELD",
    "MAX_WINDOW",
    "SEED_CONTEXT",
    "SEED_IDS",
    "DetokState",
    "flush",
    "seed",
    "state_from_tokens",
    "step",
    "window_tokens",
]

FFFD = "\ufffd"
#: vLLM's INITIAL_INCREMENTAL_DETOKENIZATION_OFFSET: context ids before ``read`` after seeding.
SEED_CONTEXT = 5
#: Prompt ids the seed looks at (vLLM: offset + 2, a margin for special tokens).
SEED_IDS = SEED_CONTEXT + 2
#: Context ids kept before ``read`` (normally the 1-4 ids of the last emitted piece).
MAX_CONTEXT = 32
#: Held ids before the held region is cut; a real character needs at most 3.
MAX_HELD = 32
#: Ids kept held by a cut: an incomplete UTF-8 character is at most 3 bytes, so at most 3 ids.
KEEP_ON_CUT = 3
#: Wire bound on the window, vLLM's ``DerenderStreamState.prev_tokens`` limit.
MAX_WINDOW = 1024


class DetokState(State):
    """The detokenizer's whole state: a window of ids and two offsets into it.

    ``window[prefix_offset:read_offset]`` is context (already emitted), ``window[read_offset:]`` is
    held (not emitted yet). Ids may be out of vocabulary (they decode to ``""``), so a window
    rebuilt from vLLM's ``prev_tokens`` with placeholders for ``""`` entries stays valid.
    """

    window: list[int] = Field(default_factory=list, max_length=MAX_WINDOW)
    prefix_offset: int = Field(default=0, ge=0)
    read_offset: int = Field(default=0, ge=0)

    def _check(self) -> None:
        if not self.prefix_offset <= self.read_offset <= len(self.window):
            raise StateError((), (
                f"need prefix_offset <= read_offset <= len(window), got {self.prefix_offset}, "
                f"{self.read_offset}, {len(self.window)}"
            ))


# -- the three operations ----------------------------------------------------------------------


def seed(
    vocab: Vocab,
    prompt_ids: Sequence[int] | None,
    *,
    skip_special_tokens: bool,
    keep_special_ids: Collection[int] = (),
) -> DetokState:
    """The state before the first output id: the prompt's last ids as context (spec 3.0-B).

    Seeding matters for Metaspace tokenizers, which strip the leading space of the first token of
    a decode: with the prompt tail as context, the first output token keeps its space, as in the
    coupled server. See the module header for skipped/unknown ids and prompts that end inside a
    character.
    """
    if not prompt_ids:
        return DetokState()
    keep = keep_special_ids
    window = [i for i in prompt_ids[-SEED_IDS:] if _adds_text(vocab, i, skip_special_tokens, keep)]
    read = len(window) - _incomplete_tail(vocab, window, _decode_skip(skip_special_tokens, keep))
    return DetokState(window=window, prefix_offset=max(read - SEED_CONTEXT, 0), read_offset=read)


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
    dskip = skip_special_tokens and not keep  # _decode_skip
    window = state.window  # never modified: replaced by new lists (the state stays as it was)
    read = state.read_offset
    prefix = state.prefix_offset
    if read - prefix > MAX_CONTEXT:
        prefix = read - MAX_CONTEXT
    whole, table = vocab.whole_texts, vocab.byte_table
    fast = whole is not None and (
        (read - prefix == 1 and bool(whole.get(window[prefix])))
        or _context_complete(vocab, window[prefix:read])
    )
    held = b""
    if fast and read < len(window):  # (one held id, a split character, is the common case)
        held = (vocab.token_bytes(window[read]) if read == len(window) - 1
                else b"".join([vocab.token_bytes(i) for i in window[read:]]))
    skipped = vocab.special_ids if skip_special_tokens else ()
    prefix_text: str | None = None  # decode(window[prefix:read]), cached while offsets hold
    pieces: list[str] = []
    for token_id in ids:
        if fast:  # "Fast path" in the module header: the rule's outcome, decoding held bytes only
            if token_id in skipped and token_id not in keep:
                pieces.append("")  # rule 1
                continue
            if read == len(window):
                text = whole.get(token_id)  # type: ignore[union-attr]
                if text is None:
                    text = vocab.whole_text(token_id)
                if text:
                    pieces.append(text)
                    window, prefix, read = [token_id], 0, 1
                    continue
            piece = table.get(token_id) or vocab.token_bytes(token_id)  # type: ignore[union-attr]
            if piece and len(window) - read < MAX_HELD:
                window = [*window, token_id]
                held += piece
                text = held.decode("utf-8", "replace")
                if text and not text.endswith(FFFD):
                    pieces.append(text)
                    window = window[max(read, len(window) - MAX_CONTEXT):]
                    prefix, read, held = 0, len(window), b""
                else:
                    pieces.append("")
                continue
            fast = False  # an id the rule itself must look at (unknown, or a cut is due)
        if not _adds_text(vocab, token_id, skip_special_tokens, keep):
            pieces.append("")
            continue
        window = [*window, token_id]
        if prefix_text is None:
            prefix_text = _decode(vocab, window[prefix:read], dskip)
        full = _decode(vocab, window[prefix:], dskip)
        if len(full) > len(prefix_text) and not full.endswith(FFFD):
            end = len(window)
        elif len(window) - read > MAX_HELD:
            end = len(window) - KEEP_ON_CUT  # cut a pathological held region (module header)
            full = _decode(vocab, window[prefix:end], dskip)
        else:
            pieces.append("")
            continue
        pieces.append(_new_text(vocab, window, read, end, prefix_text, full, dskip))
        # Emitted up to ``end``: the old held region becomes context, drop what precedes it.
        window = window[read:]
        prefix, read = _trim_context(0, end - read)
        window, prefix, read = window[prefix:], 0, read - prefix
        prefix_text = None
    if prefix:
        window, prefix, read = window[prefix:], 0, read - prefix
    elif window is state.window:
        return state, pieces  # no id added text, nothing to trim: the same state
    return DetokState._construct(window, prefix, read), pieces


def _context_complete(vocab: Vocab, context: list[int]) -> bool:
    """Does the decode of ``context`` end at a character boundary (so that what follows decodes
    on its own)? Its decode must not end in U+FFFD (a genuine U+FFFD is taken for an
    unfinished character: only the fast path is missed)."""
    if len(context) == 1 and vocab.whole_text(context[0]):
        return True
    if len(context) == 2:  # a character split in two, just emitted: the common case
        data = vocab.token_bytes(context[0]) + vocab.token_bytes(context[1])
    else:
        data = b"".join([vocab.token_bytes(i) for i in context])
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
    dskip = _decode_skip(skip_special_tokens, keep_special_ids)
    window = list(state.window)
    prefix, read = _trim_context(state.prefix_offset, state.read_offset)
    text = ""
    if read < len(window):
        prefix_text = _decode(vocab, window[prefix:read], dskip)
        full = _decode(vocab, window[prefix:], dskip)
        text = _new_text(vocab, window, read, len(window), prefix_text, full, dskip)
        window = window[read:]
        prefix, read = _trim_context(0, len(window))
    window, prefix, read = window[prefix:], 0, read - prefix
    return DetokState(window=window, prefix_offset=prefix, read_offset=read), text


# -- vLLM's token strings ----------------------------------------------------------------------


def window_tokens(vocab: Vocab, state: DetokState) -> list[str]:
    """The window as vLLM's ``prev_tokens``: vocabulary strings, ``""`` for unknown ids."""
    return [vocab.token(i) or "" for i in state.window]


def state_from_tokens(
    vocab: Vocab, tokens: Sequence[str], prefix_offset: int, read_offset: int
) -> DetokState:
    """A state from vLLM's ``prev_tokens`` and offsets, validated against this vocabulary.

    ``""`` entries (vLLM's placeholder for skipped or unknown ids) add no text, so they are
    dropped and the offsets moved accordingly. A string that is not a token of this model is a
    bad request: the window would decode to something else than what the client saw.
    """
    param = "stream_state.prev_tokens"
    if len(tokens) > MAX_WINDOW:
        raise BadRequest(
            f"stream_state.prev_tokens has {len(tokens)} entries (at most {MAX_WINDOW})",
            param=param,
        )
    if not 0 <= prefix_offset <= read_offset <= len(tokens):
        raise BadRequest(
            "stream_state needs 0 <= prefix_offset <= read_offset <= len(prev_tokens), got "
            f"{prefix_offset}, {read_offset}, {len(tokens)}",
            param="stream_state.read_offset",
        )
    window: list[int] = []
    prefix, read = prefix_offset, read_offset
    for k, token in enumerate(tokens):
        if not isinstance(token, str):
            raise BadRequest(f"stream_state.prev_tokens[{k}] is not a string", param=param)
        if token == "":
            prefix -= k < prefix_offset
            read -= k < read_offset
            continue
        token_id = vocab.token_id(token)
        if token_id is None:
            raise BadRequest(
                f"stream_state.prev_tokens[{k}] is not a token of this model", param=param
            )
        window.append(token_id)
    return DetokState(window=window, prefix_offset=prefix, read_offset=read)


# -- helpers -----------------------------------------------------------------------------------


def _adds_text(
    vocab: Vocab, token_id: int, skip_special_tokens: bool, keep: Collection[int] = ()
) -> bool:
    """False for ids the tokenizer's decode drops: unknown ids, and skipped special ids (those
    not in ``keep``)."""
    if skip_special_tokens and token_id in vocab.special_ids and token_id not in keep:
        return False
    return vocab.in_vocab(token_id)


def _decode_skip(skip_special_tokens: bool, keep: Collection[int]) -> bool:
    """The tokenizer's decode flag: with kept special ids the window holds no other special id
    (:func:`_adds_text` left them out), so it decodes everything it holds."""
    return skip_special_tokens and not keep


def _decode(vocab: Vocab, ids: Sequence[int], skip_special_tokens: bool) -> str:
    return vocab.decode(ids, skip_special_tokens=skip_special_tokens) if ids else ""


def _trim_context(prefix: int, read: int) -> tuple[int, int]:
    """Offsets with at most ``MAX_CONTEXT`` context ids (the caller slices the window)."""
    return max(prefix, read - MAX_CONTEXT), read


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
    return _decode(vocab, window[read:end], skip_special_tokens)


def _incomplete_tail(vocab: Vocab, window: Sequence[int], skip_special_tokens: bool) -> int:
    """How many trailing ids (0-3) hold the start of a character that later ids can complete.

    A trailing U+FFFD is either an unfinished UTF-8 sequence or a real U+FFFD (or a byte that can
    never be valid). Only the first kind completes when continuation bytes follow, so probe with
    them: ``0x80`` continues any lead byte but E0/F0 (which need ``0xA0``/``0x90`` and up),
    ``0xA0`` continues any lead byte but ED/F4 (which need at most ``0x9F``/``0x8F``).
    """
    if not window or not _decode(vocab, window, skip_special_tokens).endswith(FFFD):
        return 0
    probe = _continuation_ids(vocab)
    if probe is None:
        return 0
    c80, ca0 = probe
    probes = [[c80] * k for k in (1, 2, 3)] + [[ca0] + [c80] * (k - 1) for k in (1, 2, 3)]
    if all(
        _decode(vocab, [*window, *extra], skip_special_tokens).endswith(FFFD) for extra in probes
    ):
        return 0
    for n in range(1, min(KEEP_ON_CUT, len(window)) + 1):
        if not _decode(vocab, window[:-n], skip_special_tokens).endswith(FFFD):
            return n
    return 0


_CONTINUATION_CACHE: dict[int, tuple[Vocab, tuple[int, int] | None]] = {}


def _continuation_ids(vocab: Vocab) -> tuple[int, int] | None:
    """Ids of the single bytes 0x80 and 0xA0, for byte-fallback or byte-level vocabularies.

    None when the vocabulary has no such tokens (then seeding behaves exactly like vLLM's).
    """
    cached = _CONTINUATION_CACHE.get(id(vocab))
    if cached is not None and cached[0] is vocab:
        return cached[1]
    found: list[int] = []
    for byte in (0x80, 0xA0):
        candidates = (f"<0x{byte:02X}>", _BYTE_LEVEL_CHARS[byte])
        ids = [vocab.token_id(c) for c in candidates]
        # A lone continuation byte decodes to U+FFFD: that is how we know it is one.
        good = [
            i for i in ids
            if i is not None and vocab.decode([i], skip_special_tokens=False) == FFFD
        ]
        if not good:
            found = []
            break
        found.append(good[0])
    result = (found[0], found[1]) if found else None
    _CONTINUATION_CACHE[id(vocab)] = (vocab, result)
    return result
