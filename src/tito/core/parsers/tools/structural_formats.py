"""The structural-tag ``format`` of each tool-call format, keyed by vLLM 0.33's
``structural_tag_model`` names (its tool parsers' class attribute).

Why a table of builders: vLLM 0.33 builds the tag with one builder per model family (its own
registry in ``vllm/tool_parsers/structural_tag_registry.py`` and ``vllm/parser/harmony.py``, and
xgrammar 0.2.8's ``builtin_structural_tag`` for the rest), called with reasoning off, xgrammar's
defaults (``any_order`` false, no whitespace cap, special tokens excluded from free text) and
``parallel_tool_calls`` true (single calls are applied afterwards,
:func:`.structural._single_call`).
Each builder here writes the same JSON, field for field, as those builders' ``model_dump()``
(the nodes' constructors: :mod:`.structural_nodes`).

A builder takes the tools (already resolved: a named ``tool_choice`` leaves exactly its tool) and
the call mode, and returns the ``format``. Grammar of the shapes (``T(name)`` one call's tag)::

    hermes    auto: triggered(["<tool_call>"], T*)       else tags_with_separator(T*, "")
              (longcat: the same with <longcat_tool_call> / </longcat_tool_call>)
              T = tag('<tool_call>\\n{"name": "N", "arguments": ' | '<tool_call>{"name": ...',
                      ARGS, '}\\n</tool_call>' | '}</tool_call>')
    llama     auto: triggered(['{"name": '], T*)  required: the same, at_least_one  forced: T
              T = tag('{"name": "N", "parameters": ', ARGS, "}")
    kimi      auto: triggered([SECTION], [tag(SECTION, calls(T*), SECTION_END)])
              else sequence(SECTION, calls(T*) | T, SECTION_END)
              T = tag("<|tool_call_begin|>functions.N:", sequence(regex \\d+,
                      "<|tool_call_argument_begin|>", ARGS), "<|tool_call_end|>")
    deepseek_r1 / deepseek_v3_1
              auto: triggered([CALLS], [tag(CALLS, calls(T*), CALLS_END)])
              required: tag(CALLS, calls(T*), CALLS_END)   forced: T with CALLS around it
              T (r1)  = tag("<｜tool▁call▁begin｜>function<｜tool▁sep｜>N\\n```json\\n", ARGS,
                            "\\n```<｜tool▁call▁end｜>")                (calls joined by "\\n")
              T (v31) = tag("<｜tool▁call▁begin｜>N<｜tool▁sep｜>", ARGS, "<｜tool▁call▁end｜>")
    deepseek_v3_2  DSML invoke tags in <｜DSML｜function_calls> (ARGS in deepseek_xml style)
    deepseek_v4    the same in <｜DSML｜tool_calls>; deepseek_v4_1 with "｜DSML｜ " markers, the
              calls block <｜DSML｜ calls> and ARGS in deepseek_v4_1_xml style
    qwen_3_coder   T = tag("<tool_call>\\n<function=N>\\n", ARGS qwen_xml,
                            "\\n</function>\\n</tool_call>")
    mimo      T = tag("<tool_call><function=N>", ARGS qwen_xml, "</function></tool_call>"),
              triggered by "<tool_call>" (the bare T when forced)
    glm_4_7   every tool strict: xgrammar's builtin (ARGS in glm_xml style); otherwise vLLM's
              own: a strict tool pins its schema, a loose one only its keys and value types
    minimax   T = tag('<invoke name="N">\\n', ARGS minimax_xml, "</invoke>\\n") inside
              <minimax:tool_call>
    plamo3    auto: triggered([REQUESTS], [tag(REQUESTS, T*, REQUESTS_END)]) else that tag
              T = tag(REQUEST NAME_BEGIN N NAME_END ARGS_BEGIN, ARGS, ARGS_END REQUEST_END)
    hy_v4     auto: triggered([CALLS], [tag(CALLS, T*, CALLS_END)]) else sequence(CALLS, T*,
              CALLS_END); T = tag("<tool_call>N", keys pinned, values any text, "</tool_call>")
    harmony   sequence(optional analysis message, optional commentary preamble,
              or(a message to=functions.N on any channel, header orders and json constrains;
              auto: also the final channel))

``ARGS`` is the tool's ``parameters`` for a strict tool, any JSON (``true``) otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tito.core.parsers.tools.structural_nodes import (
    Format, any_text, const, json_schema, one_of, optional, separated, sequence, star, tag,
    triggered)

if TYPE_CHECKING:
    from tito.core.parsers.tools.structural import CallMode, ToolSpec

Builder = Callable[[Sequence["ToolSpec"], "CallMode"], Format]

THINK = ["<think>", "</think>"]


# -- the builders ------------------------------------------------------------------------------


def hermes_style(tools: Sequence[ToolSpec], mode: CallMode, start: str, end: str) -> Format:
    """``START{"name": "N", "arguments": ARGS}END``, with and without newlines inside the
    markers (vLLM's ``_hermes_style_structural_tag``)."""
    shapes = ((start + '\n{"name": "', "}\n" + end), (start + '{"name": "', "}" + end))
    tags = [tag(begin + t.name + '", "arguments": ', json_schema(t.schema), close)
            for t in tools for begin, close in shapes]
    if mode == "auto":
        return triggered([start], tags) if tags else any_text()
    return separated(tags, forced=mode == "forced")


def _triggered_or_forced(tags: list[Format], mode: CallMode, trigger: str,
                         excludes: Sequence[str]) -> Format:
    """xgrammar's flat shape (llama, qwen_3_coder, glm_4_7): the bare tag when forced, else
    the calls triggered by ``trigger`` (at least one when required)."""
    if mode == "forced":
        return tags[0]
    if mode == "auto" and not tags:
        return any_text(excludes)
    return triggered([trigger], tags, excludes, at_least_one=mode == "required")


def llama(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    tags = [tag('{"name": "' + t.name + '", "parameters": ', json_schema(t.schema), "}")
            for t in tools]
    return _triggered_or_forced(tags, mode, '{"name": ', THINK)


def qwen_3_coder(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    tags = [tag(f"<tool_call>\n<function={t.name}>\n", json_schema(t.schema, "qwen_xml"),
                "\n</function>\n</tool_call>") for t in tools]
    return _triggered_or_forced(tags, mode, "<tool_call>\n<function=", THINK)


def mimo(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    excludes = [*THINK, "</tool_call>", "<function="]
    tags = [tag(f"<tool_call><function={t.name}>", json_schema(t.schema, "qwen_xml"),
                "</function></tool_call>") for t in tools]
    if mode == "forced":
        return tags[0]
    if not tags:
        return any_text(["<tool_call>", *excludes])
    return triggered(["<tool_call>"], tags, excludes, at_least_one=mode == "required")


def _sectioned(tags: list[Format], mode: CallMode, begin: str, end: str,
               excludes: Sequence[str], *, separator: str = "", trigger: str | None = None,
               lead: str = "", forced_list: bool = False) -> Format:
    """xgrammar's sectioned shape: ``begin`` calls ``end``; for auto a tag triggered by
    ``trigger`` (default ``begin``), else a sequence (``lead`` before ``begin``; a forced call
    bare, or a list stopping after it with ``forced_list``)."""
    if mode == "auto":
        if not tags:
            return any_text(THINK)
        return triggered([trigger or begin], [tag(begin, separated(tags, separator), end)],
                         excludes)
    if mode == "forced" and not forced_list:
        calls = tags[0]
    else:
        calls = separated(tags, separator, forced=mode == "forced")
    return sequence(const(lead + begin), calls, const(end))


def kimi(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    tags = [tag(f"<|tool_call_begin|>functions.{t.name}:",
                sequence({"type": "regex", "pattern": r"\d+"},
                         const("<|tool_call_argument_begin|>"), json_schema(t.schema)),
                "<|tool_call_end|>") for t in tools]
    return _sectioned(tags, mode, "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
                      [*THINK, "<|tool_call_begin|>"])


_DS_CALLS, _DS_CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_DS_CALL, _DS_CALL_END, _DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def _deepseek(tools: Sequence[ToolSpec], mode: CallMode, head: Callable[[str], str],
              tail: str, separator: str) -> Format:
    """DeepSeek R1 / V3.1: the calls block is a tag of its own; forced fuses it with the call."""
    if mode == "forced":
        t = tools[0]
        return tag(_DS_CALLS + head(t.name), json_schema(t.schema), tail + _DS_CALLS_END)
    tags = [tag(head(t.name), json_schema(t.schema), tail) for t in tools]
    if mode == "auto":
        return _sectioned(tags, mode, _DS_CALLS, _DS_CALLS_END, THINK, separator=separator)
    return tag(_DS_CALLS, separated(tags, separator), _DS_CALLS_END)


def deepseek_r1(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    return _deepseek(tools, mode, lambda n: f"{_DS_CALL}function{_DS_SEP}{n}\n```json\n",
                     "\n```" + _DS_CALL_END, "\n")


def deepseek_v3_1(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    return _deepseek(tools, mode, lambda n: f"{_DS_CALL}{n}{_DS_SEP}", _DS_CALL_END, "")


def deepseek_v3_2(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    tags = [tag(f'<｜DSML｜invoke name="{t.name}">\n', json_schema(t.schema, "deepseek_xml"),
                "</｜DSML｜invoke>\n") for t in tools]
    return _sectioned(tags, mode, "<｜DSML｜function_calls>\n", "</｜DSML｜function_calls>", THINK,
                      trigger="<｜DSML｜function_calls>", lead="\n\n")


def _deepseek_v4(tools: Sequence[ToolSpec], mode: CallMode, dsml: str, calls: str,
                 style: str) -> Format:
    """xgrammar's DeepSeek-V4 shape (V3.2's with other markers); V4.1 (``dsml`` ends with a
    space) also keeps a calls block out of free text when no tool is left."""
    tags = [tag(f'<{dsml}invoke name="{t.name}">\n', json_schema(t.schema, style),
                f"</{dsml}invoke>\n") for t in tools]
    begin = f"<{dsml}{calls}>"
    if mode == "auto" and not tags and dsml.endswith(" "):
        return any_text([*THINK, begin])
    return _sectioned(tags, mode, begin + "\n", f"</{dsml}{calls}>", THINK, trigger=begin,
                      lead="\n\n")


def deepseek_v4(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    return _deepseek_v4(tools, mode, "｜DSML｜", "tool_calls", "deepseek_xml")


def deepseek_v4_1(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    return _deepseek_v4(tools, mode, "｜DSML｜ ", "calls", "deepseek_v4_1_xml")


def minimax(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    """vLLM's own MiniMax-M2 builder (not xgrammar's ``minimax``)."""
    tags = [tag(f'<invoke name="{t.name}">\n', json_schema(t.schema, "minimax_xml"),
                "</invoke>\n") for t in tools]
    return _sectioned(tags, mode, "<minimax:tool_call>\n", "</minimax:tool_call>", THINK,
                      trigger="<minimax:tool_call>", lead="\n", forced_list=True)


def plamo3(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    """vLLM's own PLaMo 3 builder: the requests section, triggered by its marker for auto."""
    from tito.core.parsers.tools import plamo3 as p  # the markers (a small module)

    tags = [tag(p.BEGIN_REQUEST + p.BEGIN_NAME + t.name + p.END_NAME + p.BEGIN_ARGS,
                json_schema(t.schema), p.END_ARGS + p.END_REQUEST) for t in tools]
    requests = tag(p.BEGIN_REQUESTS, separated(tags, forced=mode == "forced"),
                   [p.END_REQUESTS, p.END_REQUESTS + "<|plamo:tag|>"])
    return triggered([p.BEGIN_REQUESTS], [requests]) if mode == "auto" else requests


def hy_v4(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    """vLLM's own Hunyuan 4 builder: every call's keys pinned (the required ones in order, then
    any of the others, repeated), the values free text; ``ARGS`` is never a schema. (vLLM builds
    no tag for auto without a constraint: :data:`.structural.NO_AUTO_TAG`.)"""
    def pair(key: str) -> Format:
        return sequence(const("<arg_key>"), const(key), const("</arg_key>"), const("<arg_value>"),
                        any_text(), const("</arg_value>"))

    tags = []
    for t in tools:
        params = t.parameters if isinstance(t.parameters, dict) else {}
        props, req = params.get("properties") or {}, params.get("required") or []
        elements = [pair(k) for k in [*(k for k in props if k in req), *(k for k in req
                                                                           if k not in props)]]
        optional_pairs = [pair(k) for k in props if k not in req]
        if optional_pairs:
            elements.append(star(optional_pairs[0] if len(optional_pairs) == 1
                                 else one_of(optional_pairs)))
        tags.append(tag("<tool_call>" + t.name, sequence(*elements) if elements else any_text(),
                        "</tool_call>"))
    calls = separated(tags, forced=mode == "forced")
    if mode == "auto":
        return triggered(["<tool_calls>"], [tag("<tool_calls>", calls, "</tool_calls>")])
    return sequence(const("<tool_calls>"), calls, const("</tool_calls>"))


def _kimi_k3(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    """Kimi K3's XTML channels (:mod:`.structural_kimi_k3`, imported on use)."""
    from tito.core.parsers.tools.structural_kimi_k3 import kimi_k3

    return kimi_k3(tools, mode)


# -- GLM-4.5 / 4.7 -------------------------------------------------------------------------

_GLM_ARGS = ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"]
_GLM_VALUE_EXCLUDES = [*THINK, "<tool_call>", "</tool_call>", *_GLM_ARGS]


def _glm_value(prop: Any) -> Format:
    """A loose tool's value: enums pinned, strings free text, other types bare JSON."""
    prop = prop if isinstance(prop, dict) else {}
    if "enum" in prop and isinstance(prop["enum"], list) and prop["enum"]:
        values = [const(v if isinstance(v, str) else json.dumps(v)) for v in prop["enum"]]
        return values[0] if len(values) == 1 else one_of(values)
    kind = prop.get("type")
    if isinstance(kind, list) and kind:
        formats = [_glm_value({"type": t}) for t in kind if t != "string"]
        if "string" in kind:
            formats.append(any_text(_GLM_VALUE_EXCLUDES))
        return formats[0] if len(formats) == 1 else one_of(formats)
    if kind is None or kind == "string" or isinstance(kind, list):
        return any_text(_GLM_VALUE_EXCLUDES)
    return json_schema({"type": kind})


def _glm_plain_properties(params: Any) -> dict[str, Any] | None:
    if not isinstance(params, dict):
        return None
    props = params.get("properties")
    if (not isinstance(props, dict) or not props or params.get("additionalProperties") is True
            or any(k in params for k in ("$ref", "allOf", "anyOf", "oneOf", "patternProperties"))):
        return None
    return props


def _glm_loose_tag(t: ToolSpec) -> Format:
    props = _glm_plain_properties(t.parameters or {})
    if props is None:
        return tag(f"<tool_call>{t.name}", json_schema(True, "glm_xml"), "</tool_call>")
    pairs = [sequence(const(f"<arg_key>{key}</arg_key><arg_value>"), _glm_value(prop),
                      const("</arg_value>")) for key, prop in props.items()]
    return tag(f"<tool_call>{t.name}",
               {"type": "star", "content": pairs[0] if len(pairs) == 1 else one_of(pairs)},
               "</tool_call>")


def glm_4_7(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    strict = [tag(f"<tool_call>{t.name}", json_schema(t.schema, "glm_xml"), "</tool_call>")
              for t in tools]
    if tools and all(t.strict for t in tools):
        # xgrammar's builtin glm_4_7 (vLLM keeps strict-only requests byte-identical to it)
        return _triggered_or_forced(strict, mode, "<tool_call>",
                                    [*THINK, "</tool_call>", *_GLM_ARGS])
    tags = [s if t.strict else _glm_loose_tag(t) for t, s in zip(tools, strict)]
    if mode == "auto":
        return triggered(["<tool_call>"], tags,
                         [e for e in _GLM_VALUE_EXCLUDES if e != "<tool_call>"])
    return separated(tags, forced=mode == "forced")


# -- harmony (gpt-oss) ---------------------------------------------------------------------

_HARMONY_END = ["<|end|>", ""]
_HARMONY_CONSTRAINS = (" json", " <|constrain|>json")
_HARMONY_CHANNELS = ("<|channel|>commentary", "<|channel|>analysis", "<|channel|>final")


def harmony_preamble(channel: str) -> Format:
    """An optional whole message on ``channel`` before the constrained one."""
    return optional(sequence(tag(f"<|channel|>{channel}<|message|>", any_text(), "<|end|>"),
                             const("<|start|>assistant")))


def harmony(tools: Sequence[ToolSpec], mode: CallMode) -> Format:
    """vLLM's ``get_harmony_structural_tag`` (function tools; tito has no builtin tools)."""
    tags = [tag(begin, json_schema(t.schema), _HARMONY_END)
            for t in tools
            for begin in _harmony_call_heads(t.name)]
    if mode == "auto":
        tags += [tag(f"<|channel|>final{c}<|message|>", any_text(), _HARMONY_END)
                 for c in (*_HARMONY_CONSTRAINS, "")]
    return sequence(harmony_preamble("analysis"), harmony_preamble("commentary"), one_of(tags))


def _harmony_call_heads(name: str) -> list[str]:
    """The recipient in the role header or after the channel, either json constrain."""
    heads = []
    for head in (" to=functions.{name}{channel}{constrain}<|message|>",
                 "{channel} to=functions.{name}{constrain}<|message|>"):
        for constrain in _HARMONY_CONSTRAINS:
            for channel in _HARMONY_CHANNELS:
                heads.append(head.format(name=name, channel=channel, constrain=constrain))
    return heads


#: vLLM 0.33's structural-tag model name -> builder
BUILDERS: dict[str, Builder] = {
    "hermes": lambda tools, mode: hermes_style(tools, mode, "<tool_call>", "</tool_call>"),
    "longcat": lambda tools, mode: hermes_style(tools, mode, "<longcat_tool_call>",
                                                "</longcat_tool_call>"),
    "llama": llama,
    "kimi": kimi,
    "deepseek_r1": deepseek_r1,
    "deepseek_v3_1": deepseek_v3_1,
    "deepseek_v3_2": deepseek_v3_2,
    "deepseek_v4": deepseek_v4,
    "deepseek_v4_1": deepseek_v4_1,
    "qwen_3_coder": qwen_3_coder,
    "mimo": mimo,
    "glm_4_7": glm_4_7,
    "minimax": minimax,
    "plamo3": plamo3,
    "hy_v4": hy_v4,
    "kimi_k3": _kimi_k3,  # parsers6b
    "harmony": harmony,
}
