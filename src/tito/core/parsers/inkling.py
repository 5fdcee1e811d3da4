"""Inkling output (``inkling``, tool and reasoning parser) -> reasoning, content, tool calls.

Grammar of a completion (vLLM 0.33's ``vllm/parser/inkling.py``; the eight markers are
special tokens of Inkling's vocabulary, read here as text whatever ``skip_special_tokens``)::

    output := (HEADER? block)* HEADER?
    block  := KIND BODY [<|end_message|> | <|content_model_end_sampling|>]
    HEADER := <|message_model|> TEXT      (an optional function name: markup)
    KIND   := <|content_thinking|> | <|content_text|> | <|content_invoke_tool_json|>
            | <|content_invoke_tool_text|> | <|content_tool_error|>

Blocks repeat in any order, so reasoning, content and calls interleave: like Muse's, this
router stands where tito's reasoning and tool stages stand for other formats. Its transitions
are vLLM's engine table (phase x marker; ``M`` ``<|message_model|>``, ``TH`` thinking, ``TX``
text, ``TJ`` JSON call, ``TT`` / ``TE`` raw call / tool error, ``E`` / ``ES`` the closers):

============  ==========================================================================
phase         marker -> next phase (what the marker does)
============  ==========================================================================
header        M: header (its text dropped); TX, TT, TE: content; TH: reasoning; TJ: tool;
              E, ES: content (the header's text is content)
content       M: header; TH: reasoning; TJ: tool; TX, TT, TE, E, ES: dropped
reasoning     TH: dropped; TJ: tool; E, ES: content; M, TX, TT, TE: reasoning text
tool          E, ES: content (the call ends); any other marker is body text
============  ==========================================================================

A tool block (opener, body, closer) goes to the call parser (:mod:`.tools.inkling`), which
makes its call. Without call parsing for the request (no tool parser, no tools, ``tool_choice:
none``) a ``TJ`` is content text instead, as vLLM's reasoning parser alone passes it: it opens
a *span* whose next closer is text too, and the body is read as content.

Rules (tito's, each the same for every chunking, so stream == batch by construction):

1. A header's text is held up to :data:`.inkling_state.HEADER_LIMIT` characters; longer, it is
   content and the phase is content (vLLM holds it whole: ``long_header``). At the end of the
   output a header's text is content, as vLLM's engine flushes it.
2. The reasoning's trailing whitespace is held and dropped at the end of the output (vLLM's
   batch ``rstrip``; its stream also drops whitespace before a later thinking block:
   ``ws_between_thinking``); at most :data:`.inkling_state.WS_HOLD` characters are held.
3. The initial phase is vLLM's stream's: with a reasoning parser, ``is_reasoning_end`` on the
   prompt ids (a ``TX`` or ``ES`` newer than any ``TH`` / ``M``) starts in content, else
   ``adjust_initial_state_from_prompt`` (the prompt's newest Inkling marker: ``TH`` reasoning,
   ``M`` or another header); the tool parser alone starts in content (vLLM's tool adapter). Its
   batch starts every output in a header.
4. With the tool parser alone, thinking blocks are reasoning (vLLM's stream; its batch drops
   them); with the reasoning parser alone vLLM's batch is followed (its stream passes
   everything after the first non-thinking block on raw, markers included).
5. Reasoning tokens (usage, with a reasoning parser) are counted on the ids as vLLM's
   ``count_reasoning_tokens``: the ids after a ``TH`` id up to an ``E`` / ``ES`` id.

State: :class:`~.inkling_state.InklingState` (the held header or marker prefix, the held
whitespace, the phase, the call parser's state), bounded whatever the output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from tito.core.parsers._text import scan_to
from tito.core.parsers.inkling_state import HEADER_LIMIT, WS_HOLD, InklingState, Phase
from tito.core.parsers.tools._base import ToolCallDelta, ToolParser
from tito.core.vocab import Vocab

__all__ = ["InklingStep", "initial", "prompt_reasoning_ended", "step"]

M, TX, TH = "<|message_model|>", "<|content_text|>", "<|content_thinking|>"
TJ, TT = "<|content_invoke_tool_json|>", "<|content_invoke_tool_text|>"
TE = "<|content_tool_error|>"
ES, E = "<|content_model_end_sampling|>", "<|end_message|>"
#: vLLM's ``INKLING_SPECIAL_TOKENS``
MARKERS = (M, TX, TH, TJ, TT, TE, ES, E)
CLOSERS = (E, ES)


@dataclass
class InklingStep:
    """One step's output."""

    reasoning: str = ""
    content: str = ""
    calls: list[ToolCallDelta] = field(default_factory=list)


@dataclass(frozen=True)
class _Ids:
    thinking: int
    text: int
    model: int
    end_sampling: int
    ends: frozenset[int]
    markers: frozenset[int]


@lru_cache(maxsize=16)
def _ids(vocab: Vocab) -> _Ids:
    def tid(text: str) -> int:
        found = vocab.token_id(text)
        return -1 if found is None else found

    return _Ids(tid(TH), tid(TX), tid(M), tid(ES), frozenset({tid(E), tid(ES)}) - {-1},
                frozenset(tid(m) for m in MARKERS) - {-1})


def prompt_reasoning_ended(vocab: Vocab, prompt_ids: Sequence[int]) -> bool:
    """vLLM 0.33's ``InklingParser.is_reasoning_end`` on the prompt ids: the newest of the
    thinking, model, text and end-sampling ids is a text or end-sampling one."""
    ids = _ids(vocab)
    for tid in reversed(prompt_ids):
        if tid in (ids.thinking, ids.model):
            return False
        if tid in (ids.text, ids.end_sampling):
            return True
    return False


def initial(vocab: Vocab, prompt_ids: Sequence[int] | None, parser: ToolParser | None, *,
            reasoning: bool) -> InklingState:
    """The state before the first output token (rule 3). ``parser``: the request's call parser
    (None: no call parsing); ``reasoning``: a reasoning parser is configured."""
    tools = parser.initial() if parser is not None else None
    if not reasoning:
        return InklingState(phase="content", tools=tools)
    prompt = list(prompt_ids or [])
    if prompt_reasoning_ended(vocab, prompt):
        return InklingState(phase="content", tools=tools)
    ids, phase = _ids(vocab), "header"
    for tid in reversed(prompt):
        if tid == ids.thinking:
            phase = "reasoning"
            break
        if tid == ids.model:
            break
        if tid in ids.markers:
            break
    return InklingState(phase=phase, tools=tools)


class _Run:
    """The mutable working copy of one step."""

    def __init__(self, st: InklingState, parser: ToolParser | None) -> None:
        self.st = st
        self.parser = parser
        self.reasoning: list[str] = []
        self.content: list[str] = []
        self.calls: list[ToolCallDelta] = []

    def call(self, text: str, final: bool = False) -> None:
        """Text of a tool block for the call parser."""
        assert self.parser is not None and self.st.tools is not None
        if text or final:
            self.st.tools, content, calls = self.parser.step(self.st.tools, text, final=final)
            self.content.append(content)
            self.calls += calls

    def think(self, text: str) -> None:
        """Reasoning text, its trailing whitespace held (rule 2)."""
        if not text:
            return
        combined = self.st.ws + text
        body = combined.rstrip()
        run = combined[len(body):]
        held = run[-WS_HOLD:] if run else ""
        self.st.ws = held
        self.reasoning.append(combined[: len(combined) - len(held)])

    def side(self, text: str) -> None:
        """Text of the open phase's side."""
        if not text:
            return
        if self.st.phase == "reasoning":
            self.think(text)
        elif self.st.phase == "tool":
            self.call(text)
        else:
            self.content.append(text)

    def marker(self, marker: str) -> None:
        """The transition table (module header)."""
        st = self.st
        phase: Phase = st.phase
        if phase == "tool":  # only a closer gets here
            self.call(marker)
            st.phase = "content"
            return
        if marker == TJ:
            if self.parser is not None:
                st.phase = "tool"
                self.call(marker)
            else:  # no call parsing: the opener is text and opens a span (module header)
                st.phase, st.span = "content", True
                self.content.append(marker)
            return
        if marker in CLOSERS and st.span:
            st.span = False
            if marker == ES and phase == "reasoning":
                st.phase = "content"
                self.content.append(marker)
            elif phase == "reasoning":
                self.think(marker)
            else:
                st.phase = "content"
                self.content.append(marker)
            return
        if phase == "reasoning":
            if marker in CLOSERS:
                st.phase = "content"
            elif marker != TH:
                self.think(marker)
            return
        if marker == M:
            st.phase = "header"
        elif marker == TH:
            st.phase = "reasoning"
        else:  # TX, TT, TE; E, ES
            st.phase = "content"

    def scan(self, s: str, final: bool) -> None:
        """Scan ``s`` (the held text and the new text) to its end or to what must be held."""
        st = self.st
        pos, n = 0, len(s)
        while pos < n:
            looking = CLOSERS if st.phase == "tool" else MARKERS
            hit, marker, stop = scan_to(s, looking, pos, final)
            if st.phase == "header":
                if stop - pos > HEADER_LIMIT:  # rule 1: too long, it is content
                    st.phase = "content"
                    continue
                if hit == -1:
                    if final:
                        self.content.append(s[pos:])  # rule 1: flushed as content
                        break
                    st.buf = s[pos:]
                    return
                if marker in CLOSERS and not st.span:
                    self.content.append(s[pos:hit])  # the header's text is content
                pos = hit + len(marker or "")
                self.marker(marker or "")
                continue
            self.side(s[pos:stop])
            if hit == -1:
                st.buf = s[stop:]
                return
            pos = hit + len(marker or "")
            self.marker(marker or "")
        st.buf = ""


def step(
    vocab: Vocab,
    state: InklingState,
    text: str,
    ids: Sequence[int],
    *,
    final: bool,
    parser: ToolParser | None = None,
    count: bool = True,
) -> tuple[InklingState, InklingStep]:
    """Advance by one chunk: its text (markers as text) and ids (for counting only).
    ``parser``: the request's call parser (None: tool blocks are content, framed); ``count``:
    count reasoning tokens (a reasoning parser is configured)."""
    st = state.model_copy()
    run = _Run(st, parser)
    if count and ids:
        marks = _ids(vocab)
        counting, n = st.counting, st.reasoning_tokens
        for tid in ids:
            if tid == marks.thinking:
                counting = True
            elif tid in marks.ends:
                counting = False
            elif counting:
                n += 1
        st.counting, st.reasoning_tokens = counting, n
    if text or final:
        s, st.buf = st.buf + text, ""
        run.scan(s, final)
    if final:
        if parser is not None and st.tools is not None:
            run.call("", final=True)  # the end of the output ends an open call
        st.phase, st.buf, st.ws, st.span = "content", "", "", False
    return st, InklingStep("".join(run.reasoning), "".join(run.content), run.calls)
