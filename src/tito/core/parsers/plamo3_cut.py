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

from tito.core.parsers.tools.plamo3 import HOLDS, OPEN, grammar_markers
from tito.core.vocab import Vocab

__all__ = ["HOLDS", "strip_cut"]


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
