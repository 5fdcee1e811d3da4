"""Muse output (``muse`` = ``musespark1x``; ``muse_glimmer``) -> reasoning, content, tool calls.

Grammar of a completion (the prompt ends with ``<|start|>assistant``, so the first message's
header has no ``<|start|>``; the four markers are special tokens of Muse's vocabulary, read
here as text whatever ``skip_special_tokens``)::

    output  := (OUTSIDE | message)*
    message := HEADER <|message|> BODY [<|eom|> | <|eot|>]
    HEADER  := <|start|> TEXT            (e.g. "<|start|>assistant to=get_weather")
             | [ \\t]{0,16} to=NAME      (e.g. " to=self": the first message)
             | ""                         (a bare <|message|>)

A body ends at ``<|eom|>`` / ``<|eot|>`` (consumed), at ``<|start|>`` or at the next header
(vLLM's ``_iter_messages``: a body never holds a header). Each message is routed by its
recipient (the ``to=NAME`` right before ``<|message|>``; the role is not read), as vLLM 0.33's
``MuseToolParser`` / ``MuseReasoningParser`` route them:

=====================================  =================================================
recipient                              goes to
=====================================  =================================================
none, ``self``                         reasoning (bodies joined with nothing)
``user``, ``commentary``               content (joined with nothing)
``developer``                          dropped
any other                              a tool channel: its body is read by the ATEM parser
                                       (:mod:`tito.core.parsers.tools.muse`): invokes are
                                       calls; without a tool parser for the request (no
                                       tools, ``tool_choice: none``) the whole framed message
                                       is content, as vLLM's reasoning parser alone passes it
=====================================  =================================================

Muse Glimmer (``muse_glimmer``, vLLM's ``MuseGlimmerToolParser`` table): ``self`` is reasoning,
``user`` or none content, any other (``commentary``, ``developer`` too) a tool channel.

Rules (tito's, each the same for every chunking, so stream == batch by construction):

1. Text is scanned for the markers; a trailing marker prefix and a trailing ``[ \\t]{0,16}`` +
   ``t`` / ``to`` / ``to=NAME`` (NAME: no whitespace, no ``<``, no ``to=``, at most
   :data:`HEADER_LIMIT` characters) are held, since they may still become a header. A
   ``<|start|>`` header waits for ``<|message|>`` up to :data:`HEADER_LIMIT` characters; past
   that its ``<|start|>`` is text. A header ended by ``<|eom|>`` / ``<|eot|>`` / ``<|start|>``
   or by the end of the output is dropped (markup; vLLM drops it in both paths). The spaces
   before ``to=NAME`` are the header's outside a message (the first header) and the body's
   inside one (vLLM's reasoning parser: ``muse_no_eom_before_header``).
2. Text outside any message is content (``text_kept``: vLLM's batch keeps it only when the
   output has no header at all, its stream never: ``muse_plain``, ``muse_plain_then_header``);
   an ATEM invoke there is text (vLLM's batch makes it a call: ``muse_no_header``). Stray
   ``<|eom|>`` / ``<|eot|>`` outside a message are dropped.
3. A tool channel's end closes an invoke it cut: the call keeps what came (``truncated_call``;
   vLLM makes no call of it, ``muse_cut_in_invoke``); the end of the output does the same.
4. A message whose header follows a non-assistant ``<|start|>ROLE`` message routes as any other
   (``muse_user_role``: vLLM's batch makes the call, its stream never hands over to the tool
   parser after such a role).
5. With the tool parser alone (no reasoning parser), reasoning messages are still reasoning
   (vLLM's stream; its batch makes the whole framed output content: ``muse_answer``). Without
   a tool parser, a ``to=user`` message is its body (vLLM's batch frames it once a tool
   channel holds ATEM, its stream passes everything after that channel raw).
6. Reasoning tokens (usage) are counted as vLLM's ``count_reasoning_tokens``, on the ids and
   apart from the text split above: the ids after a ``<|message|>`` id whose recipient is none
   or ``self``, up to an ``<|eom|>`` / ``<|eot|>`` / ``<|start|>`` id, markers excluded; the
   recipient is vLLM's ``to=(?P<recipient>[^\s<]+)\s*$`` on the text since the last marker id
   (a body without an end marker is part of the next header's text), read with bounded state
   (:func:`_feed`). Glimmer's none (vLLM's base count: 0).
7. Glimmer follows vLLM's stream where its batch differs: messages on one side are joined with
   nothing (its batch joins reasoning with ``\n`` and keeps only the first ``to=user``
   message: ``muse_two_blocks``), a reasoning message after a call is reasoning (its batch's
   ``<|eom|>`` collapse drops it: ``muse_reasoning_after_call``); a bare ``<|message|>``
   message is content (its batch makes the framed text content, its stream nothing:
   ``muse_bare_header``). Each case: ``_GLIMMER_DEVIATIONS`` in
   ``tests/goldens/parser_deviations.py``; Glimmer's render ``reasoning_ended``:
   :func:`prompt_reasoning_ended`.

State: :class:`MuseState`, bounded (the held text, the kind of the open message, the ATEM
parser's :class:`~tito.core.parsers.tools.ToolState`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from tito.core.parsers._text import find_first, held_suffix
from tito.core.parsers.muse_state import HEADER_LIMIT, WS_LIMIT, Kind, MuseState
from tito.core.parsers.tools._base import ToolCallDelta, ToolParser
from tito.core.vocab import Vocab

__all__ = ["MuseStep", "initial", "prompt_reasoning_ended", "route", "step"]

START, MESSAGE, EOM, EOT = "<|start|>", "<|message|>", "<|eom|>", "<|eot|>"
MARKERS = (START, MESSAGE, EOM, EOT)
_ENDS = (EOM, EOT)
#: a header's recipient part at the end of the text before ``<|message|>`` (rule 1)
_NAME = rf"(?:(?!to=)[^\s<]){{1,{HEADER_LIMIT}}}"
_HEADER = re.compile(rf"[ \t]{{0,{WS_LIMIT}}}to=({_NAME})\Z")
#: what may still grow into such a header at the end of the text (held, rule 1)
_TAIL = re.compile(rf"[ \t]{{0,{WS_LIMIT}}}(?:to=(?:(?!to=)[^\s<]){{0,{HEADER_LIMIT}}}|to|t)?\Z")
_RECIPIENT = re.compile(rf"to=({_NAME})\Z")


def route(recipient: str | None, *, tools: bool, glimmer: bool = False) -> Kind:
    """Where a message's body goes (the module's tables)."""
    if recipient == "self" or (recipient is None and not glimmer):
        return "reasoning"
    if recipient in ((None, "user") if glimmer else ("user", "commentary")):
        return "content"
    if recipient == "developer" and not glimmer:
        return "drop"
    return "tool" if tools else "framed"


@dataclass
class MuseStep:
    """One step's output."""

    reasoning: str = ""
    content: str = ""
    calls: list[ToolCallDelta] = field(default_factory=list)


def initial(parser: ToolParser | None) -> MuseState:
    """The state before the first output token (the prompt ended with ``<|start|>assistant``)."""
    return MuseState(tools=parser.initial() if parser is not None else None)


class _Run:
    """The mutable working copy of one step."""

    def __init__(self, st: MuseState, parser: ToolParser | None, glimmer: bool) -> None:
        self.st = st
        self.parser = parser
        self.glimmer = glimmer
        self.reasoning: list[str] = []
        self.content: list[str] = []
        self.calls: list[ToolCallDelta] = []

    def body(self, text: str, *, final: bool = False) -> None:
        """The open message's body text, to its side."""
        kind = self.st.kind
        if kind == "reasoning":
            self.reasoning.append(text)
        elif kind in ("content", "framed"):
            self.content.append(text)
        elif kind == "tool" and self.parser is not None and self.st.tools is not None:
            if text or final:
                self.st.tools, content, calls = self.parser.step(self.st.tools, text, final=final)
                self.content.append(content)
                self.calls += calls

    def open(self, header: str, recipient: str | None) -> None:
        """``<|message|>``: a message with this recipient starts (``header``: its framing)."""
        st = self.st
        st.phase = "body"
        st.kind = route(recipient, tools=self.parser is not None, glimmer=self.glimmer)
        if st.kind == "framed":
            self.content.append(header + MESSAGE)

    def close(self, marker: str = "") -> None:
        """The open message ends (``marker``: its end marker, framed messages keep it)."""
        if self.st.kind == "tool":
            self.body("", final=True)  # rule 3
        elif self.st.kind == "framed":
            self.content.append(marker)
        self.st.phase, self.st.kind = "out", "drop"

    def text(self, s: str, *, final: bool) -> None:
        """Scan ``s`` (the held text and the new text) to its end or to what must be held."""
        st = self.st
        pos, n = 0, len(s)
        while pos < n:
            if st.phase == "head":
                hit, marker = find_first(s, MARKERS, pos)
                if hit == -1 or hit - pos > HEADER_LIMIT:
                    if not final and hit == -1 and n - pos <= HEADER_LIMIT + len(MESSAGE):
                        st.buf = s[pos:]
                        return
                    if final and hit == -1:
                        return  # rule 1: a header cut by the end is dropped
                    self.plain(START)  # rule 1: too long, its <|start|> is text
                    st.phase = "out"
                    continue
                if marker == MESSAGE:
                    h = s[pos:hit]
                    m = _RECIPIENT.search(h)
                    self.open(START + h, m.group(1) if m else None)
                else:  # rule 1: a header without a message is dropped
                    st.phase = "out"
                    if marker == START:
                        st.phase = "head"
                pos = hit + len(marker or "")
                continue
            hit, marker = find_first(s, MARKERS, pos)
            stop = n if hit == -1 else hit
            chunk = s[pos:stop]
            head = _HEADER.search(chunk) if marker == MESSAGE else None
            if hit == -1:
                keep = 0 if final else held_suffix(chunk, MARKERS)
                keep += 0 if final else len(_TAIL.search(chunk[: len(chunk) - keep]).group(0))
                self.plain(chunk[: len(chunk) - keep])
                st.buf = chunk[len(chunk) - keep:]
                return
            # the spaces before ``to=`` are the header's outside a message, the body's inside
            # one (vLLM's reasoning parser: its header regex starts at ``to=``)
            cut = len(chunk) if head is None else (
                head.start(1) - 3 if st.phase == "body" else head.start())
            self.plain(chunk[:cut])
            if marker == MESSAGE:
                if st.phase == "body":
                    self.close()
                self.open(chunk[cut:].lstrip(" \t"), head.group(1) if head else None)
            elif marker == START:
                if st.phase == "body":
                    self.close()
                st.phase = "head"
            elif st.phase == "body":  # <|eom|> / <|eot|>
                self.close(marker or "")
            pos = hit + len(marker or "")
        st.buf = ""

    def plain(self, text: str) -> None:
        """Text that is no framing: the open message's body, or content outside (rule 2)."""
        if not text:
            return
        if self.st.phase == "body":
            self.body(text)
        else:
            self.content.append(text)


@dataclass(frozen=True)
class _Ids:
    message: int
    bounds: frozenset[int]


@lru_cache(maxsize=16)
def _ids(vocab: Vocab) -> _Ids:
    def tid(text: str) -> int:
        found = vocab.token_id(text)
        return -1 if found is None else found

    return _Ids(tid(MESSAGE), frozenset(tid(t) for t in (EOM, EOT, START)))


#: vLLM's ``\s`` (the ``regex`` module's): Python's ``str.isspace`` but for these four
_NOT_SPACE = frozenset("\x1c\x1d\x1e\x1f")
_SELF = "to=self"


def _feed(hdr: str, ws: bool, text: str) -> tuple[str, bool]:
    """Rule 6's header state after ``text``. vLLM's ``to=(?P<recipient>[^\\s<]+)\\s*$``
    matches only inside the text's last run of non-space non-``<`` characters (trailing
    whitespace after it), at the run's first ``to=`` with a character after it; only whether
    that recipient is ``self`` (or there is none) matters, so the run is kept as its last two
    characters until ``to=`` appears, then as ``to=`` and five characters of the recipient."""
    for ch in text:
        if ch == "<":
            hdr, ws = "", False  # the run ends before the text does: no recipient
        elif ch.isspace() and ch not in _NOT_SPACE:
            ws = True
        else:
            if ws:
                hdr, ws = "", False  # another run starts
            if hdr.startswith("to="):
                if len(hdr) < len(_SELF) + 1:
                    hdr += ch
            else:
                hdr = "to=" if (hdr + ch).endswith("to=") else (hdr + ch)[-2:]
    return hdr, ws


def _reasoning_header(hdr: str) -> bool:
    """Whether a message with this header state counts: recipient none or ``self``."""
    return not hdr.startswith("to=") or hdr == "to=" or hdr == _SELF


def step(
    vocab: Vocab,
    state: MuseState,
    ids: Sequence[int],
    pieces: Sequence[str],
    *,
    final: bool,
    flushed: str = "",
    parser: ToolParser | None = None,
    glimmer: bool = False,
) -> tuple[MuseState, MuseStep]:
    """Advance by one chunk: ``ids`` with their detokenized ``pieces`` (the markers as their
    text), ``flushed``: text the detokenizer released at the end. ``parser``: the request's
    ATEM parser (None: tool channels are content, framed); ``glimmer``: Muse Glimmer's table."""
    marks = _ids(vocab)
    st = state.model_copy()
    run = _Run(st, parser, glimmer)
    for tid, piece in zip(ids, pieces, strict=True):
        if piece:
            s, st.buf = st.buf + piece, ""
            run.text(s, final=False)
        if tid == marks.message:  # rule 6
            st.counts = not glimmer and _reasoning_header(st.hdr)
            st.hdr, st.hdr_ws = "", False
        elif tid in marks.bounds:
            st.counts, st.hdr, st.hdr_ws = False, "", False
        else:
            st.reasoning_tokens += st.counts
            if piece:
                st.hdr, st.hdr_ws = _feed(st.hdr, st.hdr_ws, piece)
    if final or flushed:
        s, st.buf = st.buf + flushed, ""
        run.text(s, final=final)
    if final:
        if st.phase == "body":
            run.close()
        st.phase, st.buf = "out", ""
    return st, MuseStep("".join(run.reasoning), "".join(run.content), run.calls)


# -- render: reasoning_ended ------------------------------------------------------------------

_PROMPT_HEADER = re.compile(r"(?:<\|start\|>assistant\s*)?(?:to=(?P<r>[^\s<]+))?<\|message\|>")
_BOUNDARY = re.compile(r"<\|eom\|>|<\|eot\|>|<\|start\|>")
_OTHER_ROLE = re.compile(r"<\|start\|>(?!assistant(?:\s|<|$))[^\s<]+")
_NOT_TOOLS = (None, "self", "user", "commentary", "developer")


#: Glimmer's header in a prompt: vLLM's ``to=(?P<recipient>[^\s<]+)<\|message\|>`` with the
#: recipient bounded by the router's :data:`HEADER_LIMIT` (unbounded, a run of ``to=to=...``
#: costs its length squared: a render a user's continued message could stall)
_GLIMMER_HEADER = re.compile(rf"to=(?P<r>[^\s<]{{1,{HEADER_LIMIT}}})<\|message\|>")
_HEADER_PAT = rf"to=[^\s<]{{1,{HEADER_LIMIT}}}<\|message\|>"
_STRIP_CLOSED = re.compile(
    r"(?:<\|start\|>assistant\s*)?to=self<\|message\|>.*?<\|eom\|>", re.DOTALL)
_STRIP_OPEN = re.compile(
    r"(?:<\|start\|>assistant\s*)?to=self<\|message\|>(?:(?!<\|eom\|>)(?!" + _HEADER_PAT
    + r").)*(?=" + _HEADER_PAT + r"|$)", re.DOTALL)


def prompt_reasoning_ended(text: str, *, glimmer: bool = False) -> bool:
    """vLLM 0.33's ``MuseReasoningParser.is_reasoning_end`` on a prompt's text: a tool channel
    holding ATEM markup in the current turn (after the last non-assistant ``<|start|>ROLE``,
    from the next ``<|start|>assistant``). Glimmer's: the text after the last
    ``<|start|>assistant``, reasoning spans stripped, from its first header to a tool, holds
    ATEM markup."""
    if glimmer:
        idx = text.rfind("<|start|>assistant")
        text = text[idx + len("<|start|>assistant"):] if idx != -1 else text
        # a closed span ends at an <|eom|>: none starts after the last one (scanning there
        # again from every ``to=self`` head would cost the text's length squared)
        cut = text.rfind(EOM) + len(EOM) if EOM in text else 0
        text = _STRIP_OPEN.sub("", _STRIP_CLOSED.sub("", text[:cut]) + text[cut:])
        for match in _GLIMMER_HEADER.finditer(text):
            if match.group("r") not in ("self", "user"):
                rest = text[match.start():]
                return "<atem:function_calls>" in rest or "<atem:invoke" in rest
        return False
    roles = list(_OTHER_ROLE.finditer(text))
    if roles:
        start = text.find("<|start|>assistant", roles[-1].end())
        text = text[start:] if start != -1 else ""
    headers = list(_PROMPT_HEADER.finditer(text))
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        boundary = _BOUNDARY.search(text, header.end(), end)
        body = text[header.end(): boundary.start() if boundary else end]
        if header.group("r") not in _NOT_TOOLS and (
                "<atem:function_calls>" in body or "<atem:invoke" in body):
            return True
    return False
