"""PLaMo 3's cut markers: a marker the output's end cut short is markup, dropped at the end.

Rule (vLLM 0.33's ``Plamo3Parser``: its batch and its last stream delta alike): when the
output ends, the reasoning (with the ``plamo3`` reasoning parser) and the content (with the
``plamo3`` tool parser; not with the reasoning parser alone) lose their tail from the last
``<|plamo:`` when that tail's ids (the model's tokenizer, no special tokens added) are a proper
prefix of the ids of one of the grammar's markers (``tools.plamo3.grammar_markers``; the think
markers only while thinking is on). The test is on ids, not on text: PLaMo's tokenizer writes a
marker in pieces (``<|plamo:begin_``, the word, ``:plamo|>``), so ``x<|plamo:begin_think`` ends
in a cut marker (reasoning ``x``) while ``x<|plamo:begin_thi`` ends in text (kept whole).

Why hold: a stream must give what the batch gives, so the tail must reach the output's last
chunk. The stages that emit this text (the reasoning split, the plamo3 tool parser's text
phase) hold a trailing proper prefix of ``tools.plamo3.HOLDS`` as they hold their own markers'
(and release it with the next chunk that does not go on with one). Only a tail from the *last*
``<|plamo:`` is ever dropped, so each hold target is a marker cut just after its second
``<|plamo:`` (the arguments marker's ``<|plamo:constrain|>``): at most 43 characters are held.
"""

from __future__ import annotations

from tito.core.vocab import Vocab

__all__ = ["HOLDS", "OPEN", "grammar_markers", "strip_cut"]

# PLaMo 3's markers (vLLM's grammar's terminals), here rather than in the tool parser's module
# (``tools.plamo3`` imports them): the reasoning parser needs them without the tool parsers
BEGIN_REQUESTS = "<|plamo:begin_tool_requests:plamo|>"
END_REQUESTS = "<|plamo:end_tool_requests:plamo|>"
BEGIN_REQUEST = "<|plamo:begin_tool_request:plamo|>"
END_REQUEST = "<|plamo:end_tool_request:plamo|>"
BEGIN_NAME = "<|plamo:begin_tool_name:plamo|>"
END_NAME = "<|plamo:end_tool_name:plamo|>"
BEGIN_ARGS = "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
END_ARGS = "<|plamo:end_tool_arguments:plamo|>"
#: the pieces PLaMo's tokenizer writes its markers with (special tokens of its vocabulary)
PIECES = ("<|plamo:begin_", "<|plamo:end_", ":plamo|>")
OPEN = "<|plamo:"
BEGIN_THINK = "<|plamo:begin_think:plamo|>"
END_THINK = "<|plamo:end_think:plamo|>"
#: the turn's end (EOT), a marker of vLLM's grammar too
TAG = "<|plamo:tag|>"
_GRAMMAR = (BEGIN_REQUESTS, END_REQUESTS, BEGIN_REQUEST, END_REQUEST, BEGIN_NAME, END_NAME,
            BEGIN_ARGS, END_ARGS, TAG)


def grammar_markers(thinking: bool) -> tuple[str, ...]:
    """vLLM's grammar's markers (its terminals): the think markers only while thinking is on
    (the cut markers of :mod:`tito.core.parsers.plamo3_cut`)."""
    return (BEGIN_THINK, END_THINK, *_GRAMMAR) if thinking else _GRAMMAR


def _hold_target(marker: str) -> str:
    second = marker.find(OPEN, 1)
    return marker if second == -1 else marker[: second + len(OPEN)]


#: what the text stages hold so that a cut marker reaches the output's last chunk
#: (:mod:`tito.core.parsers.plamo3_cut`): every marker, cut after its second ``<|plamo:``
HOLDS = tuple(_hold_target(m) for m in grammar_markers(True))



def strip_cut(text: str, vocab: Vocab, *, thinking: bool) -> str:
    """``text`` (the output's last piece of reasoning or content) without a cut marker at its
    end: the tail from the last ``<|plamo:`` goes when its ids are a proper prefix of a
    marker's ids."""
    at = text.rfind(OPEN)
    if at == -1:
        return text
    tail = vocab.encode(text[at:])
    for marker in grammar_markers(thinking):
        ids = vocab.encode(marker)
        if len(ids) > len(tail) and ids[: len(tail)] == tail:
            return text[:at]
    return text
