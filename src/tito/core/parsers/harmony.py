"""gpt-oss output (harmony) -> reasoning, content and tool calls, one token at a time.

Grammar of a completion (the prompt ends with ``<|start|>assistant``, so the first message's
role is already written)::

    output   := message (<|start|> message)*
    message  := HEADER <|message|> CONTENT (<|end|> | <|call|> | <|return|>)
    HEADER   := text, with <|channel|> CHANNEL and optionally <|constrain|>TYPE inside, e.g.
                "<|channel|>analysis", "assistant<|channel|>final",
                " to=functions.get_weather<|channel|>commentary <|constrain|>json",
                "<|channel|>commentary to=functions.get_weather json"

Headers are parsed as openai-harmony 0.0.8's ``StreamableParser`` does (channel = the text after
``<|channel|>`` up to whitespace or ``<``; the rest split on ASCII whitespace into role, ``to=``
recipient and content type). Each message is then routed as vLLM 0.33's ``HarmonyParser``
(``vllm/parser/harmony.py``):

=====================================================  ====================================
message                                                 goes to
=====================================================  ====================================
recipient ``functions.NAME`` (or a bare non-builtin)    tool call NAME, content = arguments
channel ``analysis``                                    reasoning
channel ``final``, or ``commentary`` with no recipient  content (a preamble is content)
anything else (builtin tools, non-assistant authors)    dropped
=====================================================  ====================================

Rules (tito's, each the same for every chunking, so stream == batch by construction):

1. Tokens are processed one by one with their detokenized piece. ``<|end|>``, ``<|call|>`` and
   ``<|return|>`` end a message and are never text; ``<|message|>`` ends a header; ``<|start|>``
   opens a message after an end token. As in openai-harmony (so vLLM 0.33), other special
   tokens inside a header or content are their name whatever ``skip_special_tokens``: the
   markers, ``<|startoftext|>`` and ``<|endoftext|>`` by theirs, every other special id and
   every id past the tokenizer (200,019 up to ``vocab_size`` 201,088) as ``<|reserved_N|>``
   (200018 too, ``<|endofprompt|>`` in ``tokenizer.json``); tokens between messages (after an
   end token, before ``<|start|>``) are dropped. Text is openai-harmony's lossy UTF-8 reading of
   the tokens' bytes, a special id's bytes being its name: such an id (an end token too) inside
   a character's bytes ends it as U+FFFD (``tito.core.pipeline_harmony.harmony_pieces``).
2. A tool call starts when its header is complete (name, arguments ``""``); its content streams
   as argument deltas, verbatim (vLLM's batch path re-serializes the JSON; tito keeps the
   model's text in both paths so stream == batch). With ``parallel_tool_calls`` false only call 0
   is kept. Calls are dropped when the request cannot take them (no tools, ``tool_choice: none``).
3. Two messages on the same side (two content messages, two analysis messages) are joined with
   ``"\\n"``, as vLLM's batch path joins them; the separator goes out lazily with the second
   message's first character.
4. A header is held until ``<|message|>`` (at most :data:`HEADER_LIMIT` characters), with its
   ids. A header that does not parse drops its message (openai-harmony raises; vLLM skips the
   tokens); so does one whose bytes are no UTF-8 (a character unfinished or split by an id past
   the tokenizer: openai-harmony decodes a header strictly). Its text (from its ``<|start|>``)
   is kept until a message ends: a header cut by the end of the output is content with every
   header that failed before it since the last message ended (vLLM's recovery decodes all the
   tokens openai-harmony took since then; at most :data:`HELD_LIMIT` characters of them, the
   first ones, are kept). The first header, when it holds no harmony marker at all, is plain
   text: at the end of the output, or past the limit, it becomes content and the rest streams
   as content (vLLM's recovery of an output that is not harmony). Any other header cut by the
   end of the output is content too, as written from its ``<|start|>`` (vLLM's recovery when
   openai-harmony's ``process_eos`` fails mid-header: the message's tokens decoded, markers as
   text, a ``final`` message joined to the others with ``"\n"``). Such text (a cut or failed
   header, a plain first header and what follows it) is the tokenizer's decode of the ids: other
   special ids by the tokenizer's names, ids past the tokenizer nothing, so a character whose
   bytes one splits stays whole (recorded: ``derender_fuzz`` ``harmony_header_cut_padded``,
   ``derender_chat_gptoss`` ``padded_in_char_*``).
5. The end of the output (``final``) ends the current message with what it said so far (a
   ``length`` cut gives the partial channel, a partial call keeps its partial arguments).
6. Reasoning tokens (usage) are counted as vLLM does: non-special tokens inside a message whose
   channel is ``analysis``, or ``commentary`` with a recipient (tool-call arguments count).

State: :class:`HarmonyState`, bounded (the header buffer and its ids, a few flags and counters).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tito.core import detokenizer
from tito.core.detok_state import DetokState
from tito.core.parsers import HARMONY_REASONING_PARSERS, HARMONY_TOOL_PARSERS, is_harmony
from tito.core.parsers.harmony_header import CHANNEL as _CHANNEL
from tito.core.parsers.harmony_header import CONSTRAIN as _CONSTRAIN
from tito.core.parsers.harmony_header import Header, function_name, parse_header
from tito.core.parsers.harmony_state import (
    HEADER_IDS_LIMIT,
    HEADER_LIMIT,
    HELD_LIMIT,
    HarmonyState,
)
from tito.core.parsers.tools._base import ToolCallDelta
from tito.core.vocab import Vocab

__all__ = [
    "HARMONY_REASONING_PARSERS",
    "HARMONY_TOOL_PARSERS",
    "HEADER_LIMIT",
    "HarmonyState",
    "HarmonyStep",
    "harmony_marker_ids",
    "initial",
    "is_harmony",
    "parse_header",
    "step",
]


@dataclass(frozen=True)
class HarmonyOptions:
    """What the request lets through: reasoning (a reasoning parser is set), tool calls (the
    request offers tools and ``tool_choice`` is not none), only call 0 (parallel off)."""

    reasoning: bool = True
    tools: bool = True
    single_call: bool = False


@dataclass
class HarmonyStep:
    """One step's output."""

    reasoning: str = ""
    content: str = ""
    calls: list[ToolCallDelta] | None = None


@dataclass(frozen=True)
class _Ids:
    start: int
    message: int
    ends: frozenset[int]


@lru_cache(maxsize=16)
def _ids(vocab: Vocab) -> _Ids:
    def tid(text: str) -> int:
        found = vocab.token_id(text)
        return -1 if found is None else found

    return _Ids(
        start=tid("<|start|>"),
        message=tid("<|message|>"),
        ends=frozenset(tid(t) for t in ("<|end|>", "<|call|>", "<|return|>")),
    )


#: harmony's formatting tokens: the text the parser must see whatever ``skip_special_tokens``
MARKERS = ("<|start|>", "<|message|>", "<|end|>", "<|call|>", "<|return|>", _CHANNEL, _CONSTRAIN)


#: the special tokens openai-harmony decodes by their own name (rule 1)
_NAMED = frozenset({*MARKERS, "<|startoftext|>", "<|endoftext|>"})


def _special_text(vocab: Vocab, tid: int) -> str:
    """openai-harmony's text of a special id or an id past the tokenizer (rule 1)."""
    text = vocab.token(tid)
    return text if text in _NAMED else f"<|reserved_{tid}|>"


def _decoded(vocab: Vocab, tid: int) -> str:
    """The tokenizer's text of a special id (``""`` past the tokenizer): what vLLM's recovery
    of text that is no harmony message shows (rule 4)."""
    return vocab.decode([tid], skip_special_tokens=False) if tid < vocab.size else ""


def _as_decoded(vocab: Vocab, ids: list[int], *, whole: bool) -> str:
    """A header's text as the tokenizer decodes its ids (rule 4's recoveries), not as harmony
    reads them: an id past the tokenizer decodes to nothing, so the bytes around it join (a
    character it stands in keeps whole, gpt-oss derender fuzz seed 674). ``whole``: the
    header's last bytes too (the end of the output or of the header); otherwise, at the limit,
    an unfinished character's bytes are left to the content that follows."""
    if whole:
        return vocab.decode(ids, skip_special_tokens=False)
    _, pieces = detokenizer.step(vocab, DetokState(), ids, skip_special_tokens=False)
    return "".join(pieces)


def _utf8(vocab: Vocab, ids: list[int]) -> bool:
    """Whether a header's bytes are UTF-8: openai-harmony decodes a header strictly and
    refuses one that is not ("could not decode header"), so an unfinished character before
    ``<|message|>``, or one an id past the tokenizer splits, refuses the header (rule 4). A
    special id's or a padded id's bytes are its name, ASCII."""
    size = vocab.size
    data = b"".join(vocab.token_bytes(i) if 0 <= i < size else b"<>" for i in ids)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def harmony_marker_ids(vocab: Vocab) -> list[int]:
    """Ids of :data:`MARKERS` in ``vocab`` (kept by the detokenizer when special tokens are
    skipped; any other special token inside a message follows ``skip_special_tokens``)."""
    return sorted(i for i in (vocab.token_id(m) for m in MARKERS) if i is not None)


def initial() -> HarmonyState:
    """The state before the first output token (the prompt ended with ``<|start|>assistant``)."""
    return HarmonyState()


class _Run:
    """The mutable working copy of one step (plain attributes, see tools._base.Work)."""

    def __init__(self, st: HarmonyState, opts: HarmonyOptions) -> None:
        self.st = st
        self.opts = opts
        self.reasoning: list[str] = []
        self.content: list[str] = []
        #: per call delta, in order: [index, name or None, argument pieces]
        self.calls: list[tuple[int, str | None, list[str]]] = []
        self.own_ids = False  #: ``st.header_ids`` is this step's copy (appended in place)

    def header_id(self, tid: int) -> None:
        """One more id of the current header (copied once a step, then appended)."""
        st = self.st
        if not self.own_ids:
            st.header_ids, self.own_ids = list(st.header_ids), True
        st.header_ids.append(tid)

    def clear_header(self) -> None:
        st = self.st
        st.header, st.header_ids, self.own_ids = "", [], True

    def deltas(self) -> list[ToolCallDelta]:
        return [ToolCallDelta(index=i, name=name, arguments="".join(parts))
                for i, name, parts in self.calls]

    def emit(self, text: str) -> None:
        """Text of the current message to its side (rule 3 separators)."""
        st = self.st
        if not text or st.kind == "drop":
            return
        if st.kind == "tool":
            if self.opts.single_call and st.calls != 1:
                return
            if not self.calls or self.calls[-1][0] != st.calls - 1:
                self.calls.append((st.calls - 1, None, []))
            self.calls[-1][2].append(text)
            return
        side = self.reasoning if st.kind == "reasoning" else self.content
        if not st.said:
            sent = st.reasoning_sent if st.kind == "reasoning" else st.content_sent
            if sent:
                side.append("\n")
            st.said = True
            if st.kind == "reasoning":
                st.reasoning_sent = True
            else:
                st.content_sent = True
        side.append(text)

    def open(self, header: Header | None) -> None:
        """``<|message|>``: route the message (module table), start a tool call."""
        st = self.st
        self.clear_header()
        st.phase, st.said = "content", False
        if header is None:
            st.phase, st.kind, st.counts = "skip", "drop", False
            return
        st.counts = header.channel == "analysis" or (
            header.channel == "commentary" and header.recipient is not None
        )
        name = function_name(header.recipient)
        if header.role != "assistant":
            st.kind = "drop"
        elif name is not None:
            st.kind = "tool" if self.opts.tools else "drop"
            if st.kind == "tool":
                st.calls += 1
                if not (self.opts.single_call and st.calls != 1):
                    self.calls.append((st.calls - 1, name, []))
        elif header.channel == "analysis":
            st.kind = "reasoning" if self.opts.reasoning else "drop"
        elif header.channel == "final" or (
            header.channel == "commentary" and header.recipient is None
        ):
            st.kind = "content"
        else:
            st.kind = "drop"

    def raw(self) -> None:
        """Rule 4: the first header is plain text: it and what follows are content."""
        st = self.st
        text = st.header
        self.clear_header()
        st.phase, st.kind, st.counts, st.said = "raw", "content", False, False
        self.emit(text)


def _plain(header: str) -> bool:
    return _CHANNEL not in header and _CONSTRAIN not in header


def step(
    vocab: Vocab,
    state: HarmonyState,
    ids: Sequence[int],
    pieces: Sequence[str],
    *,
    final: bool,
    flushed: str = "",
    options: HarmonyOptions = HarmonyOptions(),
) -> tuple[HarmonyState, HarmonyStep]:
    """Advance by one chunk: ``ids`` with their detokenized ``pieces`` (one per id, special
    tokens as their text), ``flushed``: text the detokenizer released at the end."""
    marks = _ids(vocab)
    special = vocab.special_ids
    run = _Run(state.model_copy(), options)
    st = run.st
    size = vocab.size
    for tid, piece in zip(ids, pieces, strict=True):
        phase = st.phase
        lead = ""  # a special id's piece: the U+FFFD of bytes it cut short, then its name
        if tid in special or tid >= size:
            name = _decoded(vocab, tid)
            lead = piece[:len(piece) - len(name)]
            piece = lead + (name if phase == "raw" else _special_text(vocab, tid))
        if phase == "skip":
            if tid == marks.start:  # anything else between messages is dropped (rule 1)
                run.clear_header()
                st.phase, st.first, st.kind = "header", False, "drop"
        elif phase == "header":
            if tid == marks.message:
                header = (parse_header(st.header + lead, role_given=st.first)
                          if _utf8(vocab, st.header_ids) else None)
                if header is None:  # rule 4: kept for a cut header's recovery
                    text = _as_decoded(vocab, st.header_ids, whole=True)
                    text = text if st.first else _special_text(vocab, marks.start) + text
                    st.held = (st.held + text)[:HELD_LIMIT]
                run.open(header)
            else:
                st.header += piece
                run.header_id(tid)
                if len(st.header) > HEADER_LIMIT or len(st.header_ids) > HEADER_IDS_LIMIT:
                    if st.first and _plain(st.header):
                        st.header = _as_decoded(vocab, st.header_ids, whole=False)
                        run.raw()
                    else:
                        run.clear_header()
                        st.phase = "skip"
        elif phase in ("content", "raw"):
            if tid in marks.ends:
                if lead:
                    run.emit(lead)
                st.phase, st.kind, st.counts, st.held = "skip", "drop", False, ""
            else:
                if st.counts and tid not in special and tid < size:
                    st.reasoning_tokens += 1
                run.emit(piece)
    if flushed:
        if st.phase == "header":
            st.header += flushed
        elif st.phase in ("content", "raw"):
            run.emit(flushed)
    if final and st.phase == "header":
        if st.first and st.header and _plain(st.header):
            st.header = _as_decoded(vocab, st.header_ids, whole=True)
            run.raw()
        elif st.header or not st.first:  # rule 4: a header cut by the end is content
            text = _as_decoded(vocab, st.header_ids, whole=True)
            text = st.held + (text if st.first else _special_text(vocab, marks.start) + text)
            st.kind, st.said = "content", False
            run.emit(text)
    if final:
        run.clear_header()
        st.held, st.phase = "", "skip"
    return st, HarmonyStep(
        reasoning="".join(run.reasoning), content="".join(run.content), calls=run.deltas()
    )
