"""The deliberate deviations of ``parser_cases_stray_markup``'s cases (the residue of fuzz seeds
9-14, issue 10; data for ``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): case id ->
(tito's result, why). Each rule is in ``docs/conformance.md`` ("Tool and reasoning parsers") and
named by the fuzzer's classifier (``conformance/fuzz_parsers_classify.deviation``).

Nothing here is tito's output copied back: calls are vLLM's records (of the case, of its stream,
or of a companion case that spells the marker right or leaves the text marker out, ``*_alone``
/ ``*_fixed``), split where vLLM merged two calls; the text tito keeps is cut from the case's text.
"""

from __future__ import annotations

import json

from parser_cases_stray_markup import cases
from parser_deviations import RECORDED

_TEXT = {c["id"]: c["text"] for c in cases()}


def _calls(cid: str, path: str = "batch") -> list:
    return [[n, a] for n, a in RECORDED[cid][path]["calls"]]


def _before(cid: str, marker: str, nth: int = 0) -> str:
    """The case's text before the ``nth`` occurrence of ``marker``."""
    text, i = _TEXT[cid], -1
    for _ in range(nth + 1):
        i = text.index(marker, i + 1)
    return text[:i]


def _after(cid: str, marker: str) -> str:
    """The case's text after the last occurrence of ``marker``."""
    text = _TEXT[cid]
    return text[text.rindex(marker) + len(marker) :]


def _through(cid: str, marker: str) -> str:
    """The case's text through the first occurrence of ``marker``."""
    text = _TEXT[cid]
    return text[: text.index(marker) + len(marker)]


def _stray(cid: str, closer: str, opener: str) -> str:
    """The case's text from the misspelt ``closer`` to the ``opener`` of the call after it (kept
    as content: a call that ends without its closer)."""
    text = _TEXT[cid]
    i = text.index(closer)
    return text[i : text.index(opener, i)]


def _split(args: str, keys: tuple[str, ...]) -> tuple[str, str]:
    """vLLM's merged arguments split into (the other keys, ``keys``), as json.dumps writes them."""
    d = json.loads(args)
    return (json.dumps({k: v for k, v in d.items() if k not in keys}, ensure_ascii=False),
            json.dumps({k: d[k] for k in keys}, ensure_ascii=False))


_LOOSE = ("element_loose: a list element whose JSON is broken outside its arguments (a stray "
          "quote, a missing comma) is no call in tito: its text is content (the marker, '[' and "
          "',' stay markup). vLLM's parser engine waits for the element's end, greps "
          "'\"name\": \"NAME\"' out of it and carves '\"arguments\"' out with a scanner ({} when "
          "it finds none: a call with arguments the model did not write), dropping the text after")
_SECTION = ("text_kept: the calls are vLLM's batch's (text in a section that is no call, a "
            "misspelt call marker or a broken header, does not end the section: the next call "
            "is read); tito keeps that call's text as content, vLLM drops it")
_UNCLOSED = ("call_unclosed: vLLM's call runs on to the next closer ({}); tito ends it at the "
             "next call's opener and makes each call, the text between (the misspelt closer) "
             "content")
_MARKER_TEXT = ("call_unclosed, a call opener written as text before a real call: GLM's regex "
                "runs that call to the real call's </tool_call>, its name (text and markup) is "
                "no tool and both are dropped; tito keeps the text as content and makes the real "
                "call (the calls: vLLM's, of the same output without the text marker)")
_AFTER_ARGS = ("gemma4_after_args: after the arguments closed, a misspelt <tool_call|> ({}) is "
               "dropped up to the next <|tool_call>, which starts the next call; vLLM reads that "
               "text as more members (the next call's header a key, its members merged in) and "
               "loses the next call (the calls: vLLM's, of the same output spelt right)")
_AFTER = ("text_after_calls: the text after the calls is content (vLLM's stream sends it, its "
          "batch drops it)")

_GR, _GG = "granite/fz_", "granite+granite/fz_"
_S3 = "step3/fz_"
_K = "kimi_k2+kimi_k2/fz_"
_SB, _SE, _CE = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_call_end｜>"

_KIMI_END_ARGS = RECORDED[f"{_K}misspelt_call_end"]["batch"]["calls"][1][1]
_V32_ARGS = _split(RECORDED["deepseek_v32/fz_misspelt_invoke_end"]["batch"]["calls"][1][1],
                   ("limit", "query"))
_LING3_ARGS = _split(RECORDED["ling3/fz_misspelt_call_end"]["batch"]["calls"][1][1], ("temp",))

_STRAY_MARKUP_DEVIATIONS: dict[str, tuple[dict, str]] = {
    f"{_GR}loose_quote_args": (
        {"reasoning": None, "calls": [],
         "content": "OK" + _TEXT[f"{_GR}loose_quote_args"].split("[", 1)[1]}, _LOOSE),
    f"{_GR}loose_quote_name": (
        {"reasoning": None, "calls": [],
         "content": "Sure." + _TEXT[f"{_GR}loose_quote_name"].split("[", 1)[1]}, _LOOSE),
    f"{_GG}loose_missing_comma": (
        {"reasoning": None, "calls": _calls(f"{_GG}loose_missing_comma")[:1],
         "content": _before(f"{_GG}loose_missing_comma", "<tool_call>")
         + _TEXT[f"{_GG}loose_missing_comma"].split("}, ", 1)[1].replace("}]Here", "}Here")},
        _LOOSE + " (composed with granite's reasoning parser, vLLM's stream gives the whole "
        "output as content)"),
    f"{_GR}args_string": (
        {"reasoning": None,
         "calls": [_calls(f"{_GR}args_string")[0], ["search", "limit"]],
         "content": _before(f"{_GR}args_string", "<|tool_call|>") + "}]"},
        "string_args: '\"arguments\"' written as a JSON string is its decoded text (granite4's "
        "form): a dropped '{' makes 'limit' the arguments and the rest of the element the call "
        "object's tail (skipped); vLLM's granite does not read string arguments: its batch makes "
        "the whole element the arguments, its stream sends '' (both not JSON)"),
    f"{_S3}misspelt_function": (
        {**{k: RECORDED[f"{_S3}misspelt_function"]["stream"][k] for k in ("reasoning", "content")},
         "calls": _calls(f"{_S3}misspelt_function", "stream")},
        "follows_vllm_stream: a call whose type is not 'function' (funcction<｜tool_sep｜>) is "
        "read as vLLM's stream reads it (its batch drops it)"),
    **{
        f"{_S3}{name}": (
            {"reasoning": None, "calls": _calls(f"{_S3}{name}"),
             "content": _through(f"{_S3}{name}", _CE) + _after(f"{_S3}{name}", _SE)}, _SECTION
            + "; vLLM's stream stops reading the section at that text and drops the rest")
        for name in ("misspelt_call_begin", "broken_invoke")
    },
    "hy_v3/fz_misspelt_call_begin": (
        {"reasoning": None, "calls": _calls("hy_v3/fz_misspelt_call_begin"),
         "content": _before("hy_v3/fz_misspelt_call_begin", "<tool_call>")}, _SECTION),
    f"{_K}misspelt_call_begin": (
        {"reasoning": "Let me think.", "calls": _calls(f"{_K}misspelt_call_begin"),
         "content": _before(f"{_K}misspelt_call_begin", "<|tool_call_begin|>").split("</think>")[1]
         + _after(f"{_K}misspelt_call_begin", "<|tool_calls_section_end|>")},
        _SECTION + " (vLLM's kimi_k2 engine never leaves the section once it began)"),
    f"{_K}misspelt_call_end": (
        {"reasoning": "嗯，想一想。", "content": "Result below 🎉|tool_call_end|>",
         "calls": [_calls(f"{_K}misspelt_call_end")[0],
                   ["not_a_tool", _KIMI_END_ARGS.split("|tool_call_end|>")[0]],
                   ["search", _KIMI_END_ARGS.split("<|tool_call_argument_begin|>")[1]]]},
        _UNCLOSED.format("a misspelt |tool_call_end|>: the next call's markup and arguments "
                         "are its arguments, not JSON")),
    **{
        f"{p}/fz_marker_as_text": (
            {"reasoning": RECORDED[f"{p}/fz_marker_as_text"]["batch"]["reasoning"],
             "calls": _calls(f"{p}/fz_marker_as_text_alone"),
             "content": content}, _MARKER_TEXT)
        for p, content in (
            *((p, _before(f"{p}/fz_marker_as_text", "<tool_call>", 1)
               + _after(f"{p}/fz_marker_as_text", "</tool_call>")) for p in ("glm45", "ling3")),
            ("glm47+glm47", _TEXT["glm47+glm47/fz_marker_as_text"][len("Use "):].split(
                "<tool_call>get_weather")[0] + _after("glm47+glm47/fz_marker_as_text", "</tool_call>")),
        )
    },
    **{
        f"{p}/fz_marker_as_text_alone": (
            {"reasoning": RECORDED[f"{p}/fz_marker_as_text_alone"]["batch"]["reasoning"],
             "calls": _calls(f"{p}/fz_marker_as_text_alone"), "content": content}, _AFTER)
        for p, content in (
            (p, _before(f"{p}/fz_marker_as_text_alone", "<tool_call>").split("</think>")[-1]
             + _after(f"{p}/fz_marker_as_text_alone", "</tool_call>"))
            for p in ("glm45", "ling3", "glm47+glm47")
        )
    },
    "ling3/fz_misspelt_call_end": (
        {"reasoning": None,
         "calls": [_calls("ling3/fz_misspelt_call_end")[0], ["get_weather", _LING3_ARGS[0]]],
         "content": "Sure." + _stray("ling3/fz_misspelt_call_end", "</toolcall>", "<tool_call>")
         + _TEXT["ling3/fz_misspelt_call_end"][
             _TEXT["ling3/fz_misspelt_call_end"].index("<tool_call>not_a_tool"):]},
        _UNCLOSED.format("a misspelt </toolcall>: the next call's pairs are its own; that call, "
                         "of a tool the request lacks, is content: unknown_tool_text")),
    "glm47+glm47/fz_misspelt_call_end": (
        {"reasoning": "  spaced thought",
         "content": _stray("glm47+glm47/fz_misspelt_call_end", "</tool__call>", "<tool_call>"),
         "calls": [*_calls("glm47+glm47/fz_misspelt_call_end"), ["get_time", "{}"]]},
        _UNCLOSED.format("a misspelt </tool__call>: it swallows the next call, which has no "
                         "arguments; tito makes it, get_time with {}")),
    "deepseek_v32/fz_misspelt_invoke_end": (
        {"reasoning": None, "content": "Result below 🎉" + _stray(
            "deepseek_v32/fz_misspelt_invoke_end", "</｜DSML｜nvoke>", "<｜DSML｜invoke"),
         "calls": [_calls("deepseek_v32/fz_misspelt_invoke_end")[0],
                   ["get_weather", _V32_ARGS[0]], ["search", _V32_ARGS[1]]]},
        _UNCLOSED.format("a misspelt </｜DSML｜nvoke>: the next invoke's parameters are merged "
                         "into it")),
    "deepseek_v4+deepseek_v4/fz_misspelt_invoke_end": (
        {"reasoning": "The user wants weather.\nI should call a tool.",
         "content": _stray("deepseek_v4+deepseek_v4/fz_misspelt_invoke_end", "</｜DSML｜｜invoke>",
                           "<｜DSML｜invoke") + "OK",
         "calls": [["get_time", "{}"],
                   ["not_a_tool", _calls("deepseek_v4+deepseek_v4/fz_misspelt_invoke_end")[0][1]],
                   _calls("deepseek_v4+deepseek_v4/fz_misspelt_invoke_end")[1]]},
        _UNCLOSED.format("a misspelt </｜DSML｜｜invoke>: the next invoke's parameters are merged "
                         "into it (V3.2's grammar, DeepSeek-V4's too)") + "; the text after the "
        "calls is content (text_after_calls)"),
    "qwen3_xml/fz_function_as_text": (
        {"reasoning": None, "calls": _calls("qwen3_xml/fz_function_as_text")[1:],
         "content": _before("qwen3_xml/fz_function_as_text", "<tool_call>")},
        "markup_name: '<function=' written as text opens a call in vLLM's engine, named with "
        "the text up to the next markup ('token'); tito's name header must end with '>', so "
        "that text is content"),
    "mimo/fz_function_as_text": (
        {"reasoning": None, "calls": _calls("mimo/fz_function_as_text")[1:],
         "content": _before("mimo/fz_function_as_text", "<tool_call>")
         + _after("mimo/fz_function_as_text", "</tool_call>")},
        "markup_name (as qwen3_xml/fz_function_as_text); the text after the calls is content "
        "(text_after_calls)"),
    "gemma4+gemma4/fz_misspelt_call_end": (
        {"reasoning": RECORDED["gemma4+gemma4/fz_misspelt_call_end"]["batch"]["reasoning"],
         "content": None, "calls": _calls("gemma4+gemma4/fz_misspelt_call_end_fixed")},
        _AFTER_ARGS.format("<too_call|>")),
    "gemma4+gemma4/fz_cut_call_end": (
        {"reasoning": RECORDED["gemma4+gemma4/fz_cut_call_end"]["batch"]["reasoning"],
         "content": "OK", "calls": _calls("gemma4+gemma4/fz_cut_call_end_fixed")},
        _AFTER_ARGS.format("<tool_call|") + "; " + _AFTER),
    "gemma4+gemma4/fz_cut_call_end_fixed": (
        {"reasoning": RECORDED["gemma4+gemma4/fz_cut_call_end_fixed"]["batch"]["reasoning"],
         "content": "OK", "calls": _calls("gemma4+gemma4/fz_cut_call_end_fixed")}, _AFTER),
    "gemma4+gemma4/fz_unclosed_string": (
        {**{k: RECORDED["gemma4+gemma4/fz_unclosed_string"]["stream"][k]
            for k in ("reasoning", "content")},
         "calls": _calls("gemma4+gemma4/fz_unclosed_string")},
        "gemma4_bare_end: a <channel|> with no block open: the text before it is content, as "
        "vLLM's stream (its batch makes it reasoning); the unclosed string is vLLM's"),
    "deepseek_v31/fz_args_ws_then_section_end": (
        {"reasoning": None, "content": _after("deepseek_v31/fz_args_ws_then_section_end", "end｜>"),
         "calls": [[n, a.split("<")[0]] for n, a in _calls(
             "deepseek_v31/fz_args_ws_then_section_end", "stream")]},
        _UNCLOSED.format("no <｜tool▁call▁end｜>: vLLM's batch makes no call, its stream sends "
                         "the rest of the output as the arguments, '{}   <｜tool▁calls▁end｜>x'")
        + "; the whitespace after the JSON stays the arguments' (as vLLM's stream)"),
    "kimi_k2/fz_misspelt_arg_begin": (
        {"reasoning": None, "calls": _calls("kimi_k2/fz_misspelt_arg_begin")[:1],
         "content": _before("kimi_k2/fz_misspelt_arg_begin", "<|tool_calls_section_begin|>")
         + _TEXT["kimi_k2/fz_misspelt_arg_begin"].split("<|tool_call_end|>", 1)[1].split(
             "<|tool_calls_section_end|>")[0]
         + _after("kimi_k2/fz_misspelt_arg_begin", "<|tool_calls_section_end|>")},
        "args_marker_broken: a call whose <|tool_call_argument_begin|> is misspelt is no call "
        "(its header meets <|tool_call_end|> first): its text is content; vLLM's engine names "
        "the call from its id and gives it {}, the arguments the model wrote dropped"),
    "deepseek_v31/fz_open_string": (
        {"reasoning": None, "calls": _calls("deepseek_v31/fz_open_string"),
         "content": _before("deepseek_v31/fz_open_string", "<｜tool▁calls▁begin｜>")
         + _after("deepseek_v31/fz_open_string", "<｜tool▁calls▁end｜>")}, _AFTER),
    "hy_v3+hy_v3/fz_misspelt_call_end": (
        {"reasoning": None, "calls": _calls("hy_v3+hy_v3/fz_misspelt_call_end_fixed"),
         "content": _before("hy_v3+hy_v3/fz_misspelt_call_end", "<tool_calls>")
         + _stray("hy_v3+hy_v3/fz_misspelt_call_end", "</ttool_call>", "<tool_call>")
         + _after("hy_v3+hy_v3/fz_misspelt_call_end", "</tool_calls>")},
        _UNCLOSED.format("a misspelt </ttool_call>: its regex takes the next call's pairs, "
                         "typed for the first call's tool") + " (the calls: vLLM's, of the same "
        "output spelt right); the text after the section is content (text_after_calls)"),
    "hy_v3+hy_v3/fz_misspelt_call_end_fixed": (
        {"reasoning": None, "calls": _calls("hy_v3+hy_v3/fz_misspelt_call_end_fixed"),
         "content": _before("hy_v3+hy_v3/fz_misspelt_call_end_fixed", "<tool_calls>")
         + _after("hy_v3+hy_v3/fz_misspelt_call_end_fixed", "</tool_calls>")}, _AFTER),
}

#: cases whose arguments are not JSON in vLLM either (granite's string arguments, a string the
#: model never closed)
NOT_JSON = {f"{_GR}args_string", "deepseek_v31/fz_open_string"}
