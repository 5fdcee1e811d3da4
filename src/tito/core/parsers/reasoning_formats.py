"""The reasoning formats, by vLLM's ``--reasoning-parser`` name: their markers and switches.

Why a module of its own: the table is data (one :class:`ReasoningParser` row per format, as
listed below; the row type is :mod:`tito.core.parsers.reasoning_row`); the state machine that
runs every row is :mod:`tito.core.parsers.reasoning`
(its header: the phases and rules every row shares).

Formats beyond ``<think>`` ... ``</think>``, by vLLM's ``--reasoning-parser`` name:

- ``deepseek_v3``: deepseek_r1 when ``chat_template_kwargs`` has ``thinking`` or
  ``enable_thinking`` true, else no reasoning at all (vLLM delegates to its identity parser);
- ``mistral``: ``[THINK]`` ... ``[/THINK]`` (special tokens of Magistral / Mistral v13: they reach
  the parser through the detokenizer's kept ids, :func:`tito.core.parsers.marker_special_ids`),
  starting in ``pre`` like vLLM's engine (initial state CONTENT); ``[TOOL_CALLS]`` ends the
  block; repeated markers are absorbed and trailing reasoning
  whitespace dropped, as vLLM 0.33's Mistral grammar does;
- ``granite``: ``Here is my thought process:`` / ``Here's my thought process:`` ... ``Here is my
  response:`` / ``Here's my response:`` (any spelling opens or closes), starting in ``pre``;
- ``hunyuan_a13b``: ``<think>\n`` ... ``\n</think>\n<answer>\n``, and the content's closing
  ``\n</answer>`` is dropped (the first one, also without a think block).

vLLM's granite and hunyuan batch paths call an output whose block never closes content, while
their streams already sent it as reasoning; tito keeps it reasoning (rule 3). Reasoning tokens are
counted on the markers' id sequences (one id or several: Kimi K3's, PLaMo 3's), not for
granite, hunyuan_a13b and olmo3, whose vLLM classes count none.

The parsers, by vLLM's ``--reasoning-parser`` name (each one :class:`ReasoningParser` row below):

============================  =====================================================================
``qwen3``                      vLLM's qwen3 grammar: starts in ``think`` (reasoning before
                               ``</think>`` without ``<think>``; no marker at all: all reasoning);
                               ``enable_thinking: false`` turns it off; a ``<tool_call>`` ends it;
                               repeats absorbed, trailing reasoning whitespace kept
``deepseek_r1``, ``step5``,    starts in ``think`` (reasoning before ``</think>`` without
                               ``<think>``)
``olmo3``
``holo2``                      deepseek_r1 unless ``thinking``/``enable_thinking`` is false
``glm45``, ``glm47``,          starts in ``think``; ``thinking``/``enable_thinking`` false turns it
``ling3``                      off; a ``<tool_call>`` ends it
``kimi_k2``                    likewise; ``<|tool_calls_section_begin|>`` ends it
``minimax_m2``                 starts in ``think`` (MiniMax-M2 writes only ``</think>``);
                               ``<minimax:tool_call>`` ends it
``minimax_m2_append_think``    no reasoning: the whole output is content with ``<think>`` in front
``seed_oss``                   ``<seed:think>`` ... ``</seed:think>``, starts in ``think``;
                               ``enable_thinking: false`` turns it off; ``<seed:tool_call>`` ends it
``step3p5``, ``mimo``,         vLLM's qwen3 grammar starting in ``think``: ``<tool_call>`` ends it,
``nemotron_v3``                repeats absorbed; ``enable_thinking: false`` turns mimo's and
                               nemotron_v3's off (step3p5's template always thinks); step3p5 and
                               nemotron_v3 drop trailing reasoning whitespace
``gemma4``                     ``<|channel>`` ... ``<channel|>``, starts in ``pre``; the block's
                               first line ``thought\n`` is dropped (a block of only ``thought`` is
                               none), an output starting with it opens the block; ``<|tool_call>``
                               ends it, and after the call's ``<tool_call|>`` a ``<|channel>``
                               opens it again; repeats absorbed, trailing whitespace dropped
``granite_thinking_parser``    nemotron_v3's row; the content's leading newlines are dropped
``ernie45``                    deepseek_r1's rule; ``<response>`` / ``</response>`` are dropped
                               from the content
``hy_v3``                      deepseek_r1's rule, only with a ``reasoning_effort`` other than
                               ``no_think`` in the template kwargs
``step3``                      everything before ``</think>`` is reasoning (no start marker: a
                               ``<think>`` is reasoning text)
``plamo3``                     ``<|plamo:begin_think:plamo|>`` ... ``<|plamo:end_think:plamo|>``,
                               starts in ``think``; ``enable_thinking: false`` turns it off;
                               ``<|plamo:begin_tool_requests:plamo|>`` ends it; repeats absorbed;
                               a marker cut by the output's end is dropped (``plamo3_cut``)
``poolside_v1``                deepseek_v3's row (thinking only with ``thinking`` or
                               ``enable_thinking`` true)
``minimax_m3``                 ``<mm:think>`` ... ``</mm:think>``, starts in ``pre`` (text before
                               the block is content), in ``think`` with ``thinking_mode:
                               "enabled"`` (the template prefills the start); out of ``think``
                               an ``</mm:think>`` opening the output is dropped
``hy_v4``                      deepseek_r1's rule unless ``reasoning_effort`` is ``no_think``
                               (thinking by default, as the template's ``high``); the markers
                               unsuffixed only (see the row)
``k2_horizon``                 deepseek_r1's rule with markers chosen by ``reasoning_effort``
                               (``<ifm|think>``, ``<ifm|think_fast>``, ``<ifm|think_faster>``
                               and their closers); a start only where the output starts is
                               dropped; ``<ifm|tool_calls>`` ends the block
``kimi_k3``                    ``<|open|>think<|sep|>`` ... ``<|close|>think<|sep|>`` (three tokens
                               each), starts in ``think`` (text before a written opener stays
                               reasoning, as vLLM's stream); ``thinking`` (else ``enable_thinking``)
                               false turns it off; ``<|open|>response<|sep|>`` ends it; the
                               response channel's markers are dropped from the content
============================  =====================================================================
"""

from __future__ import annotations

from dataclasses import replace

from tito.core.parsers import plamo3_cut
from tito.core.parsers.reasoning_row import ReasoningParser
from tito.errors import BadRequest

__all__ = ["REASONING_PARSERS", "ReasoningParser", "get_reasoning_parser"]

#: the call start of vLLM's qwen3 grammar (qwen3, step3p5, mimo, nemotron_v3) and GLM's
_TOOL_CALL = "<tool_call>"

REASONING_PARSERS: dict[str, ReasoningParser] = {
    # vLLM 0.33's Qwen3Parser grammar (qwen3_config(thinking=True)): starts in the block, so
    # everything before </think> is reasoning, <think> or not; enable_thinking false turns it
    # off; <tool_call> ends it; repeats absorbed; trailing reasoning whitespace kept
    "qwen3": ReasoningParser(
        "qwen3", implicit_open=True, switch="enable", implicit_end=_TOOL_CALL, absorb=True),
    "deepseek_r1": ReasoningParser("deepseek_r1", implicit_open=True, count_rule="depth"),
    "deepseek_v3": ReasoningParser("deepseek_v3", implicit_open=True, thinking_opt_in=True,
                                   count_rule="depth"),
    # vLLM's DeepSeekV3ReasoningWithThinkingParser: deepseek_v3 with thinking on by default
    "holo2": ReasoningParser("holo2", implicit_open=True, switch="either", count_rule="depth"),
    # vLLM: the deepseek_r1 parser
    "step5": ReasoningParser("step5", implicit_open=True, count_rule="depth"),
    # OLMo 3: <think> optional (templates may put it in the prompt), markers as plain text
    "olmo3": ReasoningParser("olmo3", implicit_open=True, counted=False),
    # vLLM's DeepSeekV4Parser grammar: thinking on unless thinking/enable_thinking say otherwise;
    # a <think> after the block reopens it (vLLM's batch and composed stream); with
    # thinking off (or reasoning_effort "none") the markers are content, as vLLM's stream (its
    # batch still parses blocks: fuzz_parsers' follows_vllm_stream)
    "deepseek_v4": ReasoningParser(
        "deepseek_v4", implicit_open=True, switch="either", absorb=True,
        implicit_end="<｜DSML｜tool_calls>", strip_trailing_ws=True, reopen=True,
    ),
    "deepseek_v41": ReasoningParser(
        "deepseek_v41", implicit_open=True, switch="either", absorb=True,
        implicit_end="<｜DSML｜ calls>", strip_trailing_ws=True, reopen=True,
    ),
    "mistral": ReasoningParser(
        "mistral",
        start="[THINK]",
        end="[/THINK]",
        implicit_end="[TOOL_CALLS]",
        absorb=True,
        strip_trailing_ws=True,
        reopen=True,
    ),
    "granite": ReasoningParser(
        "granite",
        start="Here is my thought process:",
        end="Here is my response:",
        alt_starts=("Here's my thought process:",),
        alt_ends=("Here's my response:",),
        counted=False,
    ),
    "hunyuan_a13b": ReasoningParser(
        "hunyuan_a13b",
        start="<think>\n",
        end="\n</think>\n<answer>\n",
        content_end="\n</answer>",
        counted=False,
    ),
    "glm45": ReasoningParser(
        "glm45",
        implicit_open=True,
        switch="either",
        implicit_end=_TOOL_CALL,
        call_end="</tool_call>",
        call_end_absorbed=False,
        strip_trailing_ws=True,
        absorb=True,
        reopen=True,
    ),
    "glm47": ReasoningParser(
        "glm47",
        implicit_open=True,
        switch="either",
        implicit_end=_TOOL_CALL,
        call_end="</tool_call>",
        call_end_absorbed=False,
        strip_trailing_ws=True,
        absorb=True,
        reopen=True,
    ),
    "kimi_k2": ReasoningParser(
        "kimi_k2",
        implicit_open=True,
        switch="either",
        strip_trailing_ws=True,
        implicit_end="<|tool_calls_section_begin|>",
        absorb=True,
    ),
    "minimax_m2": ReasoningParser(
        "minimax_m2",
        implicit_open=True,
        implicit_end="<minimax:tool_call>",
        strip_trailing_ws=True,
        absorb=True,
    ),
    # GLM's grammar and markers (vLLM's Ling3Parser is its Glm47MoeParser)
    "ling3": ReasoningParser(
        "ling3",
        implicit_open=True,
        switch="either",
        implicit_end=_TOOL_CALL,
        call_end="</tool_call>",
        call_end_absorbed=False,
        strip_trailing_ws=True,
        absorb=True,
        reopen=True,
    ),
    "minimax_m2_append_think": ReasoningParser(
        "minimax_m2_append_think", prepend="<think>", counted=False),
    # vLLM's qwen3 grammar starting in the block (qwen3_config(thinking=True)); step3p5's
    # template always opens it (enable_thinking is ignored); nemotron_v3's batch also swaps an
    # empty content with the reasoning under force_nonempty_content (its stream does not:
    # tito keeps stream == batch and does not swap)
    "step3p5": ReasoningParser(
        "step3p5", implicit_open=True, implicit_end=_TOOL_CALL, absorb=True,
        strip_trailing_ws=True,
    ),
    "mimo": ReasoningParser(
        "mimo", implicit_open=True, switch="enable", implicit_end=_TOOL_CALL, absorb=True),
    "nemotron_v3": ReasoningParser(
        "nemotron_v3", implicit_open=True, switch="enable", implicit_end=_TOOL_CALL,
        absorb=True, strip_trailing_ws=True,
    ),
    # newparsers: vLLM 0.33's Gemma4Parser grammar (channel markers; a call ends the block;
    # repeats absorbed; thinking is parsed whatever enable_thinking says)
    "gemma4": ReasoningParser(
        "gemma4", start="<|channel>", end="<channel|>", implicit_end="<|tool_call>", absorb=True,
        strip_trailing_ws=True, block_prefix="thought\n", lead_opens=True, reopen=True,
        call_end="<tool_call|>",
    ),
    # vLLM's GraniteThinkingParser: nemotron_v3's grammar, the content's leading newlines dropped
    "granite_thinking_parser": ReasoningParser(
        "granite_thinking_parser", implicit_open=True, switch="enable", implicit_end=_TOOL_CALL,
        absorb=True, strip_trailing_ws=True, content_lstrip="\n",
    ),
    # vLLM's Ernie45ReasoningParser: deepseek_r1's rule, the content's <response> wrapper dropped
    "ernie45": ReasoningParser("ernie45", implicit_open=True, count_rule="depth",
                               content_drop=("<response>", "</response>")),
    # vLLM's HYV3ReasoningParser: deepseek_r1's rule, only with a reasoning_effort (else identity)
    "hy_v3": ReasoningParser("hy_v3", implicit_open=True, switch="effort", count_rule="depth_any"),
    # vLLM's Step3ReasoningParser: everything before </think> is reasoning, a <think> included
    "step3": ReasoningParser("step3", start="", implicit_open=True),
    # newparsers4: vLLM's PoolsideV1ReasoningParser is its deepseek_v3 parser (render's
    # reasoning_ended scans back only to the turn's <assistant>, as tito's scan always does)
    "poolside_v1": ReasoningParser("poolside_v1", implicit_open=True, thinking_opt_in=True,
                                   count_rule="depth"),
    # vLLM's Plamo3Parser grammar: starts in the block unless enable_thinking is false; a
    # tool-requests section ends it; repeats absorbed; trailing whitespace kept; its EOT
    # <|plamo:tag|> (normally the stop token) ends the block too and is dropped from the
    # text wherever it stands (the count closes the block at it: reasoning_skip.end_ids); a
    # marker the output's end cut is held, and dropped there (plamo3_cut)
    "plamo3": ReasoningParser(
        "plamo3", start="<|plamo:begin_think:plamo|>", end="<|plamo:end_think:plamo|>",
        implicit_open=True, switch="enable", implicit_end="<|plamo:begin_tool_requests:plamo|>",
        absorb=True, pieces=("<|plamo:begin_", "<|plamo:end_", ":plamo|>"),
        alt_ends=("<|plamo:tag|>",), content_drop=("<|plamo:tag|>",), holds=plamo3_cut.HOLDS,
    ),
    # newparsers5: vLLM 0.33's MiniMaxM3ReasoningParser (text markers; no call ends the block;
    # only the first start is consumed; a second one inside the block is reasoning text)
    "minimax_m3": ReasoningParser(
        "minimax_m3", start="<mm:think>", end="</mm:think>", switch="mode", enabled_opens=True,
        lead_end=True, count_rule="depth",
    ),
    # vLLM 0.33's HYV4ReasoningParser: the start marker is injected by the prompt, reasoning
    # until the end marker; thinking unless reasoning_effort is no_think. vLLM reads the
    # markers' per-checkpoint suffix (<think:6124c78e>) from the vocabulary; this row has the
    # unsuffixed markers (a suffixed checkpoint is refused at model load: tito.models)
    "hy_v4": ReasoningParser("hy_v4", implicit_open=True, switch="effort_on",
                             count_rule="until_end"),
    # parsers6b: vLLM 0.33's KimiK3ReasoningParser (XTML channels: each marker is three tokens;
    # the template may prefill the think opener). A response channel opening before the block
    # closes ends it (vLLM's batch: an output with a response channel and no think markers is
    # all content); the channel's wrapper and the message closer are dropped from the content
    # (vLLM's reasoning parser strips them when no tool parser runs; the kimi_k3 tool parser
    # drops them too)
    "kimi_k3": ReasoningParser(
        "kimi_k3", start="<|open|>think<|sep|>", end="<|close|>think<|sep|>", implicit_open=True,
        switch="thinking", implicit_end="<|open|>response<|sep|>",
        content_drop=("<|open|>response<|sep|>", "<|close|>response<|sep|>",
                      "<|close|>message<|sep|>"),
        pieces=("<|open|>", "<|close|>", "<|sep|>"), count_reopens=True,
    ),
    # issue 10: vLLM 0.33's K2HorizonReasoningParser (DeepSeek-R1's rule, markers by
    # reasoning_effort): the output starts in the block; a start marker only where the output
    # starts is dropped (the variant's block_prefix); <ifm|tool_calls> ends the block
    "k2_horizon": ReasoningParser(
        "k2_horizon", start="", end="</ifm|think>", implicit_open=True,
        implicit_end="<ifm|tool_calls>",
        efforts=(("high", "<ifm|think>", "</ifm|think>"),
                 ("medium", "<ifm|think_fast>", "</ifm|think_fast>"),
                 ("low", "<ifm|think_faster>", "</ifm|think_faster>")),
        pieces=("<ifm|think>", "<ifm|think_fast>", "<ifm|think_faster>", "</ifm|think_fast>",
                "</ifm|think_faster>"),
        count_rule="depth",
    ),
    "seed_oss": ReasoningParser(
        "seed_oss",
        start="<seed:think>",
        end="</seed:think>",
        implicit_open=True,
        switch="enable",
        implicit_end="<seed:tool_call>",
        absorb=True,
    ),
}


#: (name, variant) -> the row with that variant's markers
_VARIANTS: dict[tuple[str, str], ReasoningParser] = {}


def get_reasoning_parser(name: str, variant: str = "") -> ReasoningParser:
    """The registered parser called ``name`` (400 when unknown), with the markers of the
    request's ``variant`` (:meth:`ReasoningParser.variant_from_kwargs`) for a row that has
    them; ``""``: the row as registered (a row with variants: its first)."""
    try:
        row = REASONING_PARSERS[name]
    except KeyError:
        raise BadRequest(
            f"unknown reasoning parser {name!r}; known: {sorted(REASONING_PARSERS)}",
            param="reasoning_parser",
        ) from None
    if not row.efforts:
        if variant:
            raise BadRequest(f"reasoning parser {name!r} has no marker variants",
                             param="reasoning_variant")
        return row
    hit = _VARIANTS.get((name, variant))
    if hit is None:
        chosen = variant or row.efforts[0][0]
        found = next((e for e in row.efforts if e[0] == chosen), None)
        if found is None:
            raise BadRequest(f"unknown marker variant {variant!r} of {name!r}",
                             param="reasoning_variant")
        hit = _VARIANTS[(name, variant)] = replace(row, block_prefix=found[1], end=found[2])
    return hit
