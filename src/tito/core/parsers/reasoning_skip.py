"""The output ids usage's ``reasoning_tokens`` leaves out inside the block: dropped specials
(and the one-id further end markers the count closes the block at: :func:`end_ids`).

Why a module of its own: vLLM 0.33's engine-based reasoning classes (those its
``registered_adapters`` wrap: ``ParserEngineReasoningAdapter``) count the ``token_count`` of
their engine's reasoning events, and the engine (``streaming_parser_engine._build_drop_info``)
turns every special token of the tokenizer that its grammar does not name (its terminals'
literals, its ``preserve_tokens``) into a dropped terminal: such an id inside the block yields
no event and counts 0; and an id its grammar matches by id (``token_id_terminals``: the
markers, the tool format's framing tokens) without a transition from the block is emitted as
reasoning text with a token count of 0 (``_on_terminal``'s default), so it counts 0 too
(``</tool_call>`` inside a qwen3 block, ``<tool_call|>`` inside gemma4's). The other classes
(``BaseThinkingReasoningParser``'s depth counter, Kimi K3's, HYV4's, Muse's...) count ids,
specials included. This module names the rows whose vLLM class is engine-based and the texts
each grammar names (recorded from vLLM 0.33's ``parser_engine_config``; only those that are
special tokens of a vocabulary matter), and builds a vocabulary's skip set once (cached).

"Special" here is the vocabulary's (``tokenizer.json``'s added tokens flagged ``special``, what
``skip_special_tokens`` drops); vLLM's engine reads ``tokenizer.all_special_ids`` (the roles and
``additional_special_tokens`` of ``tokenizer_config.json``). The two agree on the models'
tokenizers tito serves where every added special token is listed; ``docs/conformance.md``
lists the difference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tito.core.parsers.reasoning_row import ReasoningParser
    from tito.core.vocab import Vocab

_XML = ("<function=", "</function>", "<parameter=", "</parameter>", ">")
_XML_IDS = ("<think>", "</think>", "<tool_call>", "</tool_call>")
_GLM = ("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>")

#: row name -> (the texts vLLM 0.33's engine grammar matches by id, ``token_id_terminals``:
#: inside the block an id the grammar has no transition for is emitted with no token count;
#: the other texts it names, ``terminal_literals`` and ``preserve_tokens``: never dropped), for
#: the rows whose vLLM class is engine-based; rows not listed count every id of the block
ENGINE_GRAMMARS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "qwen3": (_XML_IDS, _XML), "step3p5": (_XML_IDS, _XML), "mimo": (_XML_IDS, _XML),
    "nemotron_v3": (_XML_IDS, _XML), "granite_thinking_parser": (_XML_IDS, _XML),
    "seed_oss": (("<seed:think>", "</seed:think>", "<seed:tool_call>", "</seed:tool_call>"),
                 _XML),
    "glm45": (_XML_IDS, _GLM), "glm47": (_XML_IDS, _GLM), "ling3": (_XML_IDS, _GLM),
    "deepseek_v4": (("<think>", "</think>", "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"),
                    ("<｜DSML｜toolcalls>", "<｜DSML｜tool>", '<｜DSML｜invoke name="',
                     "</｜DSML｜invoke>", "<｜DSML｜parameter", "</｜DSML｜parameter>", '">')),
    "deepseek_v41": (("<think>", "</think>", "<｜DSML｜ calls>", "</｜DSML｜ calls>"),
                     ('<｜DSML｜ invoke name="', "</｜DSML｜ invoke>", "<｜DSML｜ parameter",
                      "</｜DSML｜ parameter>", '">')),
    "mistral": (("[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]"), ("{",)),
    "kimi_k2": (("<think>", "</think>", "<|tool_calls_section_begin|>",
                 "<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_end|>",
                 "<|tool_call_argument_begin|>"), ()),
    "minimax_m2": (("<think>", "</think>", "<minimax:tool_call>", "</minimax:tool_call>"),
                   ("<invoke name=", '<invoke name="', "<invoke name='", "</invoke>",
                    "<parameter name=", "</parameter>", '">', "'>", ">")),
    "gemma4": (("<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>"),
               ('<|"|>', "call:", ":", "{", "(")),
    "plamo3": (("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>", "<|plamo:tag|>"),
               ("<|plamo:begin_", "<|plamo:end_", ":plamo|>",
                "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>",
                "<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>",
                "<|plamo:begin_tool_name:plamo|>", "<|plamo:end_tool_name:plamo|>",
                "<|plamo:end_tool_arguments:plamo|>")),
}

#: (id of the vocabulary, row name) -> (the vocabulary, its skip set): one set per model and row
_CACHE: dict[tuple[int, str], tuple[Vocab, frozenset[int]]] = {}


def skip_ids(parser: ReasoningParser, vocab: Vocab) -> frozenset[int]:
    """The ids of ``vocab`` that never count inside ``parser``'s block: its special ids but
    those its vLLM grammar names, and the ids its grammar matches by id (the block's markers
    among them: those are consumed as markers before this set is read); empty for a row whose
    vLLM class counts every id."""
    grammar = ENGINE_GRAMMARS.get(parser.name)
    if grammar is None:
        return frozenset()
    key = (id(vocab), parser.name)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is vocab:
        return hit[1]
    by_id = {vocab.token_id(t) for t in grammar[0]} - {None}
    named = {vocab.token_id(t) for t in grammar[1]}
    skip = frozenset(  # type: ignore[arg-type]
        {i for i in vocab.special_ids if i not in named} | by_id)
    if len(_CACHE) >= 64:  # (a process serves a few models: only tests make more)
        _CACHE.clear()
    _CACHE[key] = (vocab, skip)
    return skip


#: (id of the vocabulary, row name) -> (the vocabulary, the row's further end ids)
_ENDS: dict[tuple[int, str], tuple[Vocab, frozenset[int]]] = {}


def end_ids(parser: ReasoningParser, vocab: Vocab) -> frozenset[int]:
    """The ids of ``parser``'s further end markers (``alt_ends``) that are one token of
    ``vocab`` (plamo3's ``<|plamo:tag|>``): the count closes the block at them as the text split
    does (:func:`tito.core.parsers.reasoning_count.count`); a row whose alt ends are text
    (granite's, not counted) has none."""
    if not parser.alt_ends:
        return frozenset()
    key = (id(vocab), parser.name)
    hit = _ENDS.get(key)
    if hit is not None and hit[0] is vocab:
        return hit[1]
    ends = frozenset(i for i in (vocab.token_id(t) for t in parser.alt_ends) if i is not None)
    if len(_ENDS) >= 64:  # (a process serves a few models: only tests make more)
        _ENDS.clear()
    _ENDS[key] = (vocab, ends)
    return ends
