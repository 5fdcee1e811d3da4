"""The detokenizer's state: a bounded window of ids, its seed from a prompt, vLLM's strings.

Why a module of its own: :mod:`tito.core.detokenizer` steps the state per token; this is the
state's data and its edges, built once per stream (``seed``) or per call at the wire
(``window_tokens``, ``state_from_tokens``). The theory (the window, the rule, the bounds) is in
the detokenizer's header.

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

**vLLM's token strings.** vLLM's ``DerenderStreamState.prev_tokens`` carries the window as
vocabulary strings (``""`` for unknown ids); :func:`window_tokens` writes it,
:func:`state_from_tokens` reads it back, validated against the vocabulary.
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
    "seed",
    "state_from_tokens",
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
    window = [i for i in prompt_ids[-SEED_IDS:] if adds_text(vocab, i, skip_special_tokens, keep)]
    read = len(window) - _incomplete_tail(vocab, window, decode_skip(skip_special_tokens, keep))
    return DetokState(window=window, prefix_offset=max(read - SEED_CONTEXT, 0), read_offset=read)


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


# -- helpers (also the detokenizer's) ---------------------------------------------------------


def adds_text(
    vocab: Vocab, token_id: int, skip_special_tokens: bool, keep: Collection[int] = ()
) -> bool:
    """False for ids the tokenizer's decode drops: unknown ids, and skipped special ids (those
    not in ``keep``)."""
    if skip_special_tokens and token_id in vocab.special_ids and token_id not in keep:
        return False
    return vocab.in_vocab(token_id)


def decode_skip(skip_special_tokens: bool, keep: Collection[int]) -> bool:
    """The tokenizer's decode flag: with kept special ids the window holds no other special id
    (:func:`adds_text` left them out), so it decodes everything it holds."""
    return skip_special_tokens and not keep


def decode_ids(vocab: Vocab, ids: Sequence[int], skip_special_tokens: bool) -> str:
    """The tokenizer's decode of a piece of the window (``""`` for none)."""
    return vocab.decode(ids, skip_special_tokens=skip_special_tokens) if ids else ""


def trim_context(prefix: int, read: int) -> tuple[int, int]:
    """Offsets with at most ``MAX_CONTEXT`` context ids (the caller slices the window)."""
    return max(prefix, read - MAX_CONTEXT), read


def _incomplete_tail(vocab: Vocab, window: Sequence[int], skip_special_tokens: bool) -> int:
    """How many trailing ids (0-3) hold the start of a character that later ids can complete.

    A trailing U+FFFD is either an unfinished UTF-8 sequence or a real U+FFFD (or a byte that can
    never be valid). Only the first kind completes when continuation bytes follow, so probe with
    them: ``0x80`` continues any lead byte but E0/F0 (which need ``0xA0``/``0x90`` and up),
    ``0xA0`` continues any lead byte but ED/F4 (which need at most ``0x9F``/``0x8F``).
    """
    if not window or not decode_ids(vocab, window, skip_special_tokens).endswith(FFFD):
        return 0
    probe = _continuation_ids(vocab)
    if probe is None:
        return 0
    c80, ca0 = probe
    probes = [[c80] * k for k in (1, 2, 3)] + [[ca0] + [c80] * (k - 1) for k in (1, 2, 3)]
    if all(
        decode_ids(vocab, [*window, *extra], skip_special_tokens).endswith(FFFD) for extra in probes
    ):
        return 0
    for n in range(1, min(KEEP_ON_CUT, len(window)) + 1):
        if not decode_ids(vocab, window[:-n], skip_special_tokens).endswith(FFFD):
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
