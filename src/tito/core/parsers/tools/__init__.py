"""Tool-call parsers: content text in, content and tool-call deltas out, one chunk at a time.

Public surface::

    parser = make_tool_parser("hermes", "auto", parallel_tool_calls=True)
    state = initial(parser)
    state, content, calls = step(parser, state, text_delta, final=False)   # per chunk
    state, content, calls = step(parser, state, "", final=True)            # at the end

``calls`` is a list of :class:`ToolCallDelta` ``(index, name, arguments)``: ``name`` (complete)
only on a call's first delta, ``arguments`` only ever appended. Batch is one ``step`` with the
whole text and ``final=True``; any chunking gives the same concatenated content and calls.
Each format's module header states its grammar and rules; :mod:`._base` states the shared ones
(state, gap rule, header limit, malformed and truncated calls).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Literal

from tito.core.parsers.tools._base import (
    HEADER_LIMIT,
    STATE_BYTES_LIMIT,
    WS_LIMIT,
    ToolCallDelta,
    ToolParser,
    ToolState,
)
from tito.core.parsers.tools.choice import NamedParser, PassthroughParser
from tito.errors import BadRequest
from tito.lazy import LazyMapping, import_attr

ToolChoiceMode = Literal["none", "auto", "required", "named"]


def _parser(spec: str) -> Callable[[], ToolParser]:
    """The maker of a format's parser, ``"module:Class"`` below this package."""
    return lambda: import_attr(f"{__name__}.{spec}")()


#: vLLM's ``--tool-call-parser`` name -> the format's "module:Class" below this package.
_FORMATS = {
    "hermes": "hermes:HermesParser",
    "qwen3_json": "hermes:HermesParser",  # vLLM 0.33: an alias of hermes (Qwen2.5 / QwQ / Qwen3)
    "mistral": "mistral:MistralParser",
    "llama3_json": "llama3_json:Llama3JsonParser",
    "llama4_json": "llama3_json:Llama3JsonParser",
    "pythonic": "pythonic:PythonicParser",
    "deepseek_v3": "deepseek_v3:DeepSeekV3Parser",
    "llama4_pythonic": "llama4_pythonic:Llama4PythonicParser",
    "granite": "granite:GraniteParser",
    "granite-20b-fc": "granite_20b_fc:Granite20bFCParser",
    "hunyuan_a13b": "hunyuan_a13b:HunyuanA13BParser",
    "deepseek_v31": "deepseek_v31:DeepSeekV31Parser",
    "deepseek_v32": "deepseek_v32:DeepSeekV32Parser",
    "qwen3_coder": "qwen3_coder:Qwen3CoderParser",
    "qwen3_xml": "qwen3_coder:Qwen3CoderParser",
    "seed_oss": "seed_oss:SeedOssParser",
    "glm45": "glm45:Glm45Parser",
    "glm47": "glm45:Glm45Parser",
    "kimi_k2": "kimi_k2:KimiK2Parser",
    "minimax_m2": "minimax_m2:MinimaxM2Parser",
    "step3p5": "qwen3_coder:Qwen3CoderParser",  # vLLM 0.33: Step-3.5 / 3.7, Qwen3-Coder's grammar
    "ling3": "glm45:Ling3Parser",
    "mimo": "mimo:MiMoParser",
    "longcat": "hermes:LongcatParser",
    "granite4": "hermes:Granite4Parser",
    "phi4_mini_json": "phi4_mini_json:Phi4MiniJsonParser",
    "deepseek_v4": "deepseek_v4:DeepSeekV4Parser",
    "deepseek_v41": "deepseek_v4:DeepSeekV41Parser",
    # newparsers (vLLM 0.33's registry names tito lacked)
    "gemma4": "gemma4:Gemma4Parser",
    "step5": "qwen3_coder:Qwen3CoderParser",  # vLLM 0.33: Qwen3-Coder's grammar (Step-5)
    "ernie45": "hermes:Ernie45Parser",
    "hy_v3": "hy_v3:HyV3Parser",
    "jamba": "hunyuan_a13b:JambaParser",
    "internlm": "hermes:Internlm2Parser",
    "functiongemma": "functiongemma:FunctionGemmaParser",
    "step3": "step3:Step3Parser",
    "olmo3": "olmo3:Olmo3Parser",
    # newparsers4
    "poolside_v1": "poolside_v1:PoolsideV1Parser",
    "lfm2": "lfm2:Lfm2Parser",
    "apertus": "apertus:ApertusParser",
    "plamo3": "plamo3:Plamo3Parser",
    "gigachat3": "gigachat3:GigaChat3Parser",
    "dots": "dots:DotsParser",
    "xlam": "xlam:XlamParser",
    # newparsers5
    "hy_v4": "hy_v4:HyV4Parser",
    # parsers6b
    "kimi_k3": "kimi_k3:KimiK3Parser",
    # muse7: the ATEM calls of a Muse tool channel (the router: tito.core.parsers.muse)
    "muse": "muse:MuseParser",
    "musespark1x": "muse:MuseParser",
    "muse_glimmer": "muse:MuseGlimmerParser",
    # inkling10: the JSON calls of an Inkling tool block (the router: tito.core.parsers.inkling)
    "inkling": "inkling:InklingParser",
}

#: Formats for ``tool_choice="auto"``, by vLLM's ``--tool-call-parser`` name. Lazy: a format's
#: module is imported on the first lookup of its name (importing all nineteen cost each cold
#: start ~50-100 ms of CPU; a function serves one model, so one format).
TOOL_PARSERS: Mapping[str, ToolParser] = LazyMapping(
    {name: _parser(spec) for name, spec in _FORMATS.items()})

class RenderTraits:
    """What render reads of a format: its parser's class attributes of the same names
    (:class:`._base.ToolParser` documents them), known without importing the format's module
    (a render function's first request imported its parser for these alone). A test checks
    :data:`RENDER_TRAITS` against every parser."""

    __slots__ = ("default_tool_strict_level", "engine_joins_special", "engine_reads_special",
                 "engine_reads_special_without_tools", "forced_calls", "structural_tag_model")

    def __init__(self, structural_tag_model: str | None = None, *, special: bool = False,
                 special_without_tools: bool = False, joins_special: bool = False,
                 strict_level: str = "auto", forced_calls: str = "json_list") -> None:
        self.structural_tag_model = structural_tag_model
        self.engine_reads_special = special
        self.engine_reads_special_without_tools = special_without_tools
        self.engine_joins_special = joins_special
        self.default_tool_strict_level = strict_level
        self.forced_calls = forced_calls


#: vLLM's ``--tool-call-parser`` name -> what render reads of its format
RENDER_TRAITS: Mapping[str, RenderTraits] = {
    "hermes": RenderTraits("hermes", special=True),
    "qwen3_json": RenderTraits("hermes", special=True),
    "mistral": RenderTraits(special=True, special_without_tools=True, forced_calls="mistral_list"),
    "llama3_json": RenderTraits("llama"),
    "llama4_json": RenderTraits("llama"),
    "pythonic": RenderTraits(),
    "deepseek_v3": RenderTraits("deepseek_r1"),
    "llama4_pythonic": RenderTraits(),
    "granite": RenderTraits(special=True, special_without_tools=True),
    "granite-20b-fc": RenderTraits(),
    "hunyuan_a13b": RenderTraits(),
    "deepseek_v31": RenderTraits("deepseek_v3_1"),
    "deepseek_v32": RenderTraits("deepseek_v3_2", special=True, special_without_tools=True),
    "qwen3_coder": RenderTraits("qwen_3_coder", special=True, special_without_tools=True),
    "qwen3_xml": RenderTraits("qwen_3_coder", special=True, special_without_tools=True),
    "seed_oss": RenderTraits(special=True, special_without_tools=True),
    "glm45": RenderTraits("glm_4_7", special=True, special_without_tools=True,
                          strict_level="function"),
    "glm47": RenderTraits("glm_4_7", special=True, special_without_tools=True,
                          strict_level="function"),
    "kimi_k2": RenderTraits("kimi", special=True),
    "minimax_m2": RenderTraits("minimax", special=True, special_without_tools=True),
    "step3p5": RenderTraits("qwen_3_coder", special=True, special_without_tools=True),
    "ling3": RenderTraits("glm_4_7", special=True, special_without_tools=True),
    "mimo": RenderTraits("mimo", special=True, special_without_tools=True),
    "longcat": RenderTraits("longcat", special=True),
    "granite4": RenderTraits(special=True),
    "phi4_mini_json": RenderTraits(),
    "deepseek_v4": RenderTraits("deepseek_v4", special=True, special_without_tools=True),
    "deepseek_v41": RenderTraits("deepseek_v4_1", special=True, special_without_tools=True),
    # newparsers
    "gemma4": RenderTraits(special=True, special_without_tools=True, forced_calls="native"),
    "step5": RenderTraits("qwen_3_coder", special=True, special_without_tools=True),
    "ernie45": RenderTraits(),
    "hy_v3": RenderTraits(),
    "jamba": RenderTraits(special=True),
    "internlm": RenderTraits(special=True),
    "functiongemma": RenderTraits(special=True),
    "step3": RenderTraits(special=True),
    "olmo3": RenderTraits(),
    # newparsers4
    "poolside_v1": RenderTraits(special=True, forced_calls="native"),
    "lfm2": RenderTraits(special=True),
    "apertus": RenderTraits(special=True),
    "plamo3": RenderTraits("plamo3", special=True, special_without_tools=True),
    "gigachat3": RenderTraits(special=True),
    "dots": RenderTraits(forced_calls="native"),
    "xlam": RenderTraits(),
    # newparsers5 (vLLM's hy_v4 constrains required / named only: structural.NO_AUTO_TAG)
    "hy_v4": RenderTraits("hy_v4", forced_calls="native"),
    # parsers6b (vLLM's kimi_k3 adjust_request reads special tokens with and without tools,
    # and joins them: spaces_between_special_tokens off too)
    "kimi_k3": RenderTraits("kimi_k3", special=True, special_without_tools=True,
                            joins_special=True, forced_calls="native"),
    # muse7 (vLLM's muse adjust_request reads special tokens whatever the request; required /
    # named decode natively: supports_required_and_named = False)
    **{name: RenderTraits(special=True, special_without_tools=True, forced_calls="native")
       for name in ("muse", "musespark1x", "muse_glimmer")},
    # inkling10 (vLLM's engine adjust_request reads special tokens whatever the request; no
    # structural tag, required / named decode natively: supports_required_and_named = False)
    "inkling": RenderTraits(special=True, special_without_tools=True, forced_calls="native"),
}

#: Formats whose argument values are text typed from the request's tool schemas: their
#: parser needs :func:`._schema.tool_params` of the request (``make_tool_parser(tool_params=)``).
#: Their parsers are the :class:`._xml.XmlCallParser` ones (a test checks it; named here so
#: that asking imports no format).
TYPED_TOOL_PARSERS = frozenset(
    {"deepseek_v32", "deepseek_v4", "deepseek_v41", "dots", "functiongemma", "gemma4", "glm45",
     "glm47", "hy_v3", "hy_v4", "ling3", "mimo", "minimax_m2", "muse", "muse_glimmer",
     "musespark1x", "poolside_v1", "qwen3_coder", "qwen3_xml", "seed_oss", "step3", "step3p5",
     "step5"})

__all__ = [
    "HEADER_LIMIT",
    "RENDER_TRAITS",
    "RenderTraits",
    "STATE_BYTES_LIMIT",
    "TOOL_PARSERS",
    "TYPED_TOOL_PARSERS",
    "WS_LIMIT",
    "ToolCallDelta",
    "ToolChoiceMode",
    "ToolParser",
    "ToolState",
    "id_shape",
    "has_structural_tag",
    "initial",
    "make_tool_parser",
    "parse_tool_choice",
    "step",
]


def make_tool_parser(
    name: str | None,
    mode: ToolChoiceMode = "auto",
    *,
    named_tool: str | None = None,
    parallel_tool_calls: bool = True,
    tool_params: Mapping[str, Mapping[str, str]] | None = None,
) -> ToolParser:
    """The parser for one request.

    ``name``: the model's tool format (a :data:`TOOL_PARSERS` key; None: no tool parser, all text
    is content). ``mode``: ``none`` (no parsing), ``auto`` (the model's format), ``required``
    (the forced JSON list), ``named`` (the output is ``named_tool``'s arguments); a format with a
    structural tag (:mod:`.structural`) parses ``required`` and named output as its own calls,
    since render constrained the engine to them. ``parallel_tool_calls=False`` keeps only call 0
    in the output (later calls are parsed and dropped, their text is not content), as vLLM
    does. ``tool_params``: the request's parameter types (:func:`._schema.tool_params`) for the
    :data:`TYPED_TOOL_PARSERS`.
    """
    single = not parallel_tool_calls
    if mode == "none":
        return PassthroughParser()
    tagged = TOOL_PARSERS.get(name) if name is not None else None
    native = tagged is not None and tagged.forced_calls == "native"
    if mode in ("required", "named") and not (
            tagged is not None and (has_structural_tag(tagged) or native)):
        from tito.core.parsers.tools.json_list import RequiredParser

        if tagged is not None and tagged.forced_calls == "mistral_list":
            from tito.core.parsers.tools.mistral import MistralListParser

            return MistralListParser(single_call=single)  # named too: a list of one call
        if mode == "named":
            if not named_tool:
                raise BadRequest("tool_choice names no function", param="tool_choice")
            return NamedParser(function=named_tool, single_call=single)
        return RequiredParser(single_call=single)
    # from here: auto, or required / named output constrained to the format's own calls by a
    # structural tag at render (vLLM 0.33 parses those like auto)
    if mode not in ("auto", "required", "named"):
        raise BadRequest(f"unknown tool_choice mode {mode!r}", param="tool_choice")
    if name is None:
        return PassthroughParser()
    try:
        parser = TOOL_PARSERS[name]
    except KeyError:
        raise BadRequest(
            f"unknown tool parser {name!r}; known: {sorted(TOOL_PARSERS)}", param="tool_parser"
        ) from None
    forced = mode != "auto" and not native  # native: read exactly as auto (vLLM's fallback)
    if name in TYPED_TOOL_PARSERS:
        return dataclasses.replace(parser, single_call=single, tool_params=tool_params,
                                   forced=forced)
    return dataclasses.replace(parser, single_call=single, forced=forced)


def id_shape(name: str | None) -> str:
    """The tool-call id shape of format ``name`` (whatever ``tool_choice`` is: the ids come back
    to the same model's template); ``openai`` for no or an unknown parser."""
    parser = TOOL_PARSERS.get(name) if name else None
    return parser.id_shape if parser is not None else "openai"


def has_structural_tag(parser: ToolParser) -> bool:
    """Does the format constrain ``required`` / named calls with a structural tag of its own?"""
    return parser.structural_tag_model is not None


def parse_tool_choice(
    tool_choice: Any, *, has_tools: bool = True
) -> tuple[ToolChoiceMode, str | None]:
    """OpenAI ``tool_choice`` (string, dict or model) -> ``(mode, named function or None)``.

    No tools in the request means ``none`` whatever ``tool_choice`` says (vLLM parses calls only
    when the request has tools). ``None`` means ``auto``.
    """
    if not has_tools or tool_choice == "none":
        return "none", None
    if tool_choice is None or tool_choice == "auto":
        return "auto", None
    if tool_choice == "required":
        return "required", None
    fn = (
        tool_choice.get("function")
        if isinstance(tool_choice, dict)
        else getattr(tool_choice, "function", None)
    )
    name = fn.get("name") if isinstance(fn, dict) else getattr(fn, "name", None)
    if name is None:
        name = (
            tool_choice.get("name")
            if isinstance(tool_choice, dict)
            else getattr(tool_choice, "name", None)
        )
    if not isinstance(name, str) or not name:
        raise BadRequest(f"unsupported tool_choice {tool_choice!r}", param="tool_choice")
    return "named", name


def initial(parser: ToolParser) -> ToolState:
    """The state before the first chunk."""
    return parser.initial()


def step(
    parser: ToolParser, state: ToolState, text: str, *, final: bool
) -> tuple[ToolState, str, list[ToolCallDelta]]:
    """Advance by one chunk of content text: ``(new_state, content_delta, call_deltas)``."""
    return parser.step(state, text, final=final)
