"""What a chat message holds when the output's text is empty: ``""`` or null, as vLLM 0.33.

An output can decode to nothing: only an EOS, or every character cut by a stop string. vLLM's
batch chat derender still hands that empty text to its composed parser (``parse("")``), and the
message's ``content`` and ``reasoning`` are then ``""`` or null according to the parsers, not the
output (recorded from vLLM's own classes: ``tests/goldens/empty_output_vllm.json``, by
``tests/goldens/record_empty_output.py``):

- a reasoning parser returns its own pair for an empty text, which can differ with thinking
  switched off (:data:`REASONING_EMPTY`; absent: ``(None, None)``): Qwen3's gives a null content
  with thinking on and passes the text on (``""``) with thinking off; DeepSeek-R1's gives an
  empty reasoning (``""``) and a null content;
- a tool parser, when it and the reasoning parser (if any) are both engine-based
  (:data:`ENGINE_TOOLS`, :data:`ENGINE_REASONING`), decides the content: null with
  ``tool_choice`` auto, its own answer otherwise (:data:`ENGINE_NONE_CONTENT`); a legacy tool
  parser (or an engine-based one composed with a legacy reasoning parser) leaves the reasoning
  parser's content as it is;
- ``tool_choice`` required or named: ``""`` (the caller's rule, as for any output without calls).

Why a table and not a rule: the difference is a property of each vLLM parser class (engine-based
adapters null an empty content, legacy ones return the text), invisible in the output. The
stream has no such question (an empty delta is never sent). gpt-oss (harmony) is not covered.
Muse's names (muse, musespark1x, muse_glimmer: its router's) are, with this module's defaults:
null and null with the reasoning parser, a ``""`` content with the tool parser alone.
Inkling's (its router's): null and null in every configuration (an engine-based tool parser,
an engine-based reasoning parser whose empty pair is the default).
"""

from __future__ import annotations

__all__ = ["ENGINE_NONE_CONTENT", "ENGINE_REASONING", "ENGINE_TOOLS", "REASONING_EMPTY",
           "empty_output"]

Pair = tuple[str | None, str | None]

#: reasoning parser -> (its pair with thinking on, its pair with thinking off), for ``parse("")``
REASONING_EMPTY: dict[str, tuple[Pair, Pair]] = {
    # (k2_horizon: no switch, its off pair unused; vLLM refuses the recording's 'no_think')
    **dict.fromkeys(("deepseek_r1", "ernie45", "k2_horizon", "step3", "step5"),
                    (("", None), ("", None))),
    **dict.fromkeys(("deepseek_v3", "granite", "hunyuan_a13b", "hy_v3", "minimax_m3", "olmo3",
                     "poolside_v1"), ((None, ""), (None, ""))),
    **dict.fromkeys(("glm45", "glm47", "kimi_k2", "ling3", "mimo", "qwen3", "seed_oss"),
                    ((None, None), (None, ""))),
    **dict.fromkeys(("holo2", "hy_v4"), (("", None), (None, ""))),
    "minimax_m2_append_think": ((None, "<think>"), (None, "<think>")),
    "nemotron_v3": ((None, None), ("", None)),
}

#: tool parsers vLLM 0.33 builds as engine-based adapters (their ``parse("")`` content is null)
ENGINE_TOOLS: frozenset[str] = frozenset({
    "deepseek_v32", "deepseek_v4", "deepseek_v41", "gemma4", "glm45", "glm47", "granite",
    "kimi_k2", "kimi_k3", "ling3", "mimo", "minimax_m2", "mistral", "plamo3", "qwen3_coder",
    "qwen3_xml", "seed_oss", "step3p5", "step5",
    "inkling"})  # (inkling10: its router's, null with and without tools)

#: reasoning parsers that are engine-based (with an engine-based tool parser, the composed
#: parser takes the tool parser's content): those whose thinking-off ``""`` becomes null beside
#: ``qwen3_coder``. (Whether the others are is never visible here: their content is null
#: either way, or ``""`` beside it: legacy.)
ENGINE_REASONING: frozenset[str] = frozenset({
    "glm45", "glm47", "kimi_k2", "ling3", "mimo", "qwen3", "seed_oss", "inkling"})

#: engine-based tool parsers whose answer with ``tool_choice`` none (or no tools) is ``""``
#: (the others: null). ``mistral``: vLLM's server with Mistral's own tokenizer (its
#: ``--tokenizer-mode mistral``, as tito serves mistral-v3) answers ``""`` (golden
#: ``derender_chat_mistral`` ``only_eos``); its class driven by a Hugging Face tokenizer, null.
ENGINE_NONE_CONTENT: frozenset[str] = frozenset({"mistral"})


def empty_output(
    tool_parser: str | None, reasoning_parser: str | None, *, thinking: bool, auto_tools: bool
) -> Pair:
    """``(reasoning, content)`` of vLLM's message for an empty output text.

    ``tool_parser`` / ``reasoning_parser``: the model's (the tool parser even when the request
    sends no tools: vLLM's composed parser still runs it); ``thinking``: the reasoning parser is
    on for this request (its template kwargs); ``auto_tools``: ``tool_choice`` auto with tools.
    """
    reasoning, content = (None, "") if reasoning_parser is None else (
        REASONING_EMPTY.get(reasoning_parser, ((None, None), (None, None)))[0 if thinking else 1])
    engine = tool_parser in ENGINE_TOOLS and (
        reasoning_parser is None or reasoning_parser in ENGINE_REASONING)
    if engine:
        content = None if auto_tools or tool_parser not in ENGINE_NONE_CONTENT else ""
    return reasoning, content
