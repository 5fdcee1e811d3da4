"""Each tool format's markup for the parser fuzzer: calls -> the tool-call region as the model
writes it (``FORMATS``: vLLM's registry name -> writer and the markers a mutation may drop,
double or write into content), and the formats vLLM reads only at the output's start.

Pure data, no vLLM, no tito. A new format is a writer here and a row in ``FORMATS``.
"""

from __future__ import annotations

import json
import random

from fuzz_parser_values import (
    _D, _KA, _KB, _KC, _KCE, _KE, _VB, _VC, _VCE, _VE, _VS, _dumps, _xml_value, py_spelt)

# --- each format: calls -> markup (the tool-call region), and its markers --------------------

def _hermes(rng, calls):
    sep = rng.choice(["\n", "\n", "", " "])
    return "\n".join(
        f'<tool_call>{sep}{{"name": "{n}", "arguments": {_dumps(rng, a)}}}{sep}</tool_call>'
        for n, a in calls)


def _longcat(rng, calls):
    return _hermes(rng, calls).replace("tool_call>", "longcat_tool_call>")


def _json_obj(rng, n, a, key="arguments"):
    return f'{{"name": "{n}", "{key}": {_dumps(rng, a)}}}'


def _mistral(rng, calls):
    # v11+ only: vLLM picks the grammar from the tokenizer, and reads the Qwen3 one as v11 (the
    # pre-v11 list is fuzzed on the real Mistral tokenizer by conformance/fuzz_derender.py)
    return "".join(f"[TOOL_CALLS]{n}{rng.choice(['[ARGS]', '[ARGS]', ''])}{_dumps(rng, a)}"
                   for n, a in calls)


def _llama3(rng, calls):
    lead = rng.choice(["", "<|python_tag|>"])
    sep = rng.choice(["; ", ";", ";\n", "\n"])
    return lead + sep.join(_json_obj(rng, n, a, rng.choice(["parameters", "parameters", "arguments"]))
                           for n, a in calls)


#: comments between calls (session 48), as Python's ast skips them; only after a call with
#: arguments and before another call, where vLLM's batch regex spans them too (its ``.*``),
#: and without quotes or brackets, which break its stream's bracket counting
_GAP_COMMENTS = (", # next call\n", " # one more\n, ", ",  # a, b = 1\n    ", ",# x\n# y\n")
#: comments inside a later call's header (session 49), under the same conditions
_HEADER_COMMENTS = (" # the call\n", "  # a = 1\n  ")


def _pythonic_list(calls, adjacent: bool = True):
    spell = random.Random(repr(calls))  # its own: the seed's other draws stay
    gaps = random.Random("gaps" + repr(calls))  # (the same: spellings stay as they were)
    heads = random.Random("heads" + repr(calls))  # (the same)
    out = "["
    for j, (n, a) in enumerate(calls):
        head = ""
        if j:
            out += (gaps.choice(_GAP_COMMENTS) if calls[j - 1][1] and gaps.random() < 0.15
                    else ", ")
            if calls[j - 1][1] and heads.random() < 0.1:
                head = heads.choice(_HEADER_COMMENTS)
        out += f"{n}({head}" + ", ".join(f"{k}={py_spelt(v, spell, adjacent)}" for k, v in a.items()) + ")"
    return out + "]"


def _pythonic(rng, calls):
    return _pythonic_list(calls)


def _llama4_pythonic(rng, calls):
    if rng.random() < 0.6:
        return "<|python_start|>" + _pythonic_list(calls) + "<|python_end|>"
    return _pythonic_list(calls)


def _deepseek_v3(rng, calls):
    body = "".join(f"{_VC}function{_VS}{n}\n```json\n{_dumps(rng, a)}\n```{_VCE}" for n, a in calls)
    return _VB + body + _VE


def _deepseek_v31(rng, calls):
    return _VB + "".join(f"{_VC}{n}{_VS}{_dumps(rng, a)}{_VCE}" for n, a in calls) + _VE


def _granite(rng, calls):
    marker = rng.choice(["<|tool_call|>", "<tool_call>"])
    return marker + "[" + ", ".join(_json_obj(rng, n, a) for n, a in calls) + "]"


def _phi4(rng, calls):
    return "functools[" + ", ".join(_json_obj(rng, n, a) for n, a in calls) + "]"


def _granite20(rng, calls):
    return rng.choice(["\n", " ", ""]).join(f"<function_call> {_json_obj(rng, n, a)}" for n, a in calls)


def _hunyuan(rng, calls):
    return "<tool_calls>[" + ", ".join(_json_obj(rng, n, a) for n, a in calls) + "]</tool_calls>"


def _qwen3_coder(rng, calls, start="<tool_call>", end="</tool_call>"):
    def fn(n, a):
        params = "".join(f"<parameter={k}>\n{_xml_value(v)}\n</parameter>\n" for k, v in a.items())
        return f"<function={n}>\n{params}</function>"
    if rng.random() < 0.3:  # parallel calls in one section
        out = f"{start}\n" + "\n".join(fn(n, a) for n, a in calls) + f"\n{end}"
    else:
        out = "\n".join(f"{start}\n{fn(n, a)}\n{end}" for n, a in calls)
    return _respelt(out, calls, "<parameter=", ("< parameter=", "<parameter =", "<parameter\n= "))


#: parameter tags spelt with whitespace inside, as vLLM's argument regexes read them (session 50)
_SPELT_CLOSERS = ("</parameter >", "< /parameter>", "</ parameter\n>")


def _respelt(out, calls, opener, openers):
    """Now and then the text's parameter tags spelt another way vLLM reads (its own RNG: the
    seed's other draws stay)."""
    spell = random.Random("spelt" + repr(calls))
    if spell.random() < 0.15:
        out = out.replace(opener, spell.choice(openers))
    if spell.random() < 0.15:
        out = out.replace("</parameter>", spell.choice(_SPELT_CLOSERS))
    return out


def _mimo(rng, calls):
    # MiMo's template: the Qwen XML without newlines between the wrapper tags (sometimes added)
    nl = rng.choice(["", "", "\n"])
    def fn(n, a):
        params = "".join(f"<parameter={k}>{_xml_value(v)}</parameter>{nl}" for k, v in a.items())
        return f"<tool_call>{nl}<function={n}>{nl}{params}</function>{nl}</tool_call>"
    return nl.join(fn(n, a) for n, a in calls)


def _seed(rng, calls):
    return _qwen3_coder(rng, calls, "<seed:tool_call>", "</seed:tool_call>")


def _glm(rng, calls, nl="\n"):
    def one(n, a):
        params = "".join(f"<arg_key>{k}</arg_key>{nl}<arg_value>{_xml_value(v)}</arg_value>{nl}"
                         for k, v in a.items())
        return f"<tool_call>{n}{nl}{params}</tool_call>"
    return "\n".join(one(n, a) for n, a in calls)


def _glm47(rng, calls):
    return _glm(rng, calls, "")


def _kimi(rng, calls):
    body = "".join(f"{_KC}functions.{n}:{i} {_KA}{_dumps(rng, a)}{_KCE}" for i, (n, a) in enumerate(calls))
    return _KB + body + _KE


def _minimax(rng, calls):
    def one(n, a):
        params = "".join(f'<parameter name="{k}">{_xml_value(v)}</parameter>\n' for k, v in a.items())
        return f'<invoke name="{n}">\n{params}</invoke>'
    return "<minimax:tool_call>\n" + "\n".join(one(n, a) for n, a in calls) + "\n</minimax:tool_call>"


#: dots headers spaced as vLLM's regexes allow (``<invoke\s+name\s*=\s*``; session 50)
_DOTS_SPACINGS = ("  name = ", "\nname=", "\tname =", " name=\n")


def _dots(rng, calls):
    out = _minimax(rng, calls).replace("minimax:tool_call>", "dots_function_call>")
    spaced = random.Random("dots" + repr(calls))  # its own: the seed's other draws stay
    if spaced.random() < 0.2:
        out = out.replace(" name=", spaced.choice(_DOTS_SPACINGS))
    return out


def _dsml(rng, calls):
    def one(n, a):
        params = "".join(
            f'<{_D}parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">'
            f"{_xml_value(v)}</{_D}parameter>\n" for k, v in a.items())
        return f'<{_D}invoke name="{n}">\n{params}</{_D}invoke>'
    return f"<{_D}function_calls>\n" + "\n".join(one(n, a) for n, a in calls) + f"\n</{_D}function_calls>"


def _dsml4(rng, calls, dsml=_D, section="tool_calls"):
    return _dsml(rng, calls).replace(f"{_D}function_calls>", f"{dsml}{section}>").replace(
        f"{_D}invoke", f"{dsml}invoke").replace(f"{_D}parameter", f"{dsml}parameter")


def _dsml41(rng, calls):
    return _dsml4(rng, calls, "｜DSML｜ ", "calls")


_GQ = '<|"|>'


def _gemma_value(rng, v) -> str:
    if isinstance(v, str):
        return _GQ + v + _GQ
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(rng, x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + rng.choice([",", ", "]).join(_gemma_value(rng, x) for x in v) + "]"
    return json.dumps(v)


def _gemma4(rng, calls):
    return rng.choice(["", "\n"]).join(
        f"<|tool_call>call:{n}{{" + ",".join(f"{k}:{_gemma_value(rng, v)}" for k, v in a.items())
        + "}<tool_call|>" for n, a in calls)


def _hy_v3(rng, calls):
    def one(n, a):
        nl = rng.choice(["", "\n"])
        return (f"<tool_call>{n}<tool_sep>" + "".join(
            f"{nl}<arg_key>{k}</arg_key>{nl}<arg_value>{_xml_value(v)}</arg_value>"
            for k, v in a.items()) + f"{nl}</tool_call>")
    return "<tool_calls>\n" + "\n".join(one(n, a) for n, a in calls) + "\n</tool_calls>"


def _hy_v4(rng, calls):  # Hy4 writes its markers back to back (vLLM's batch needs that)
    return "<tool_calls>" + rng.choice(["", "\n"]).join(
        f"<tool_call>{n}" + "".join(f"<arg_key>{k}</arg_key><arg_value>{_xml_value(v)}</arg_value>"
                                    for k, v in a.items()) + "</tool_call>"
        for n, a in calls) + "</tool_calls>"


def _kimi_k3(rng, calls):  # parsers6b: the response channel's closer (the template wrote its
    # opener), then the tools channel; values typed by their attribute
    def arg(k, v):
        typ = {str: "string", bool: "boolean", dict: "object", list: "array",
               type(None): "null"}.get(type(v), "number")
        return f'<|open|>argument key="{k}" type="{typ}"<|sep|>{_xml_value(v)}<|close|>argument<|sep|>'
    return "<|close|>response<|sep|><|open|>tools<|sep|>" + "".join(
        f'<|open|>call tool="{n}" index="{i}"<|sep|>' + "".join(arg(k, v) for k, v in a.items())
        + "<|close|>call<|sep|>" for i, (n, a) in enumerate(calls, 1)) \
        + "<|close|>tools<|sep|>" + rng.choice(["", "<|close|>message<|sep|>"])


def _muse(rng, calls):  # muse7: a reasoning message, then one tool channel (or one per call)
    def inv(n, a):
        return f'<atem:invoke name="{n}">\n' + "".join(
            f'<atem:parameter name="{k}">{_xml_value(v)}</atem:parameter>\n'
            for k, v in a.items()) + "</atem:invoke>\n"
    head = rng.choice([" to=self<|message|>Let me check.<|eom|><|start|>assistant", ""])
    if rng.random() < 0.5:
        return head + f" to={calls[0][0]}<|message|><atem:function_calls>\n" + "".join(
            inv(n, a) for n, a in calls) + "</atem:function_calls><|eom|>"
    return head + "<|start|>assistant".join(
        f" to={n}<|message|><atem:function_calls>\n{inv(n, a)}</atem:function_calls><|eom|>"
        for n, a in calls)


#: Inkling's markers (``tests/goldens/parser_cases_inkling.py``: special tokens of the golden
#: tokenizer) and the prompt its renderer ends a generation prompt with (the model role open)
_IM, _ITX, _ITH = "<|message_model|>", "<|content_text|>", "<|content_thinking|>"
_ITJ, _IES, _IE = "<|content_invoke_tool_json|>", "<|content_model_end_sampling|>", "<|end_message|>"
_INKLING_PROMPT = f"{_IM}{_ITX}hi{_IE}{_IM}"


def _inkling(rng, calls):  # inkling10: typed blocks, each after a model header
    blocks = [f"{_ITH}{rng.choice(['Let me check.', '想一想', 'hm'])}{_IE}"] if rng.random() < 0.5 else []
    blocks += [f'{_ITJ}{{"name": "{n}", "args": {_dumps(rng, a)}}}{rng.choice([_IE, _IE, _IES])}'
               for n, a in calls]
    if rng.random() < 0.3:
        blocks.append(f"{_ITX}{rng.choice(['Done.', 'Météo ok', ''])}{_IE}")
    return _IM.join(blocks)


def _jamba(rng, calls):
    return "<tool_calls>" + _dumps(rng, [{"name": n, "arguments": a} for n, a in calls]) + "</tool_calls>"


def _internlm(rng, calls):  # vLLM reads one call
    n, a = calls[0]
    key = rng.choice(["parameters", "arguments"])
    return f'<|action_start|><|plugin|>\n{{"name": "{n}", "{key}": {_dumps(rng, a)}}}<|action_end|>'


def _functiongemma(rng, calls):
    def val(v):
        return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return "".join(
        f"<start_function_call>call:{n}{{"
        + ",".join(f"{k}:<escape>{val(v)}<escape>" for k, v in a.items())
        + "}<end_function_call>" for n, a in calls)


def _step3(rng, calls):
    def one(n, a):
        return ("<｜tool_call_begin｜>function<｜tool_sep｜>" + f'<steptml:invoke name="{n}">'
                + "".join(f'<steptml:parameter name="{k}">{_xml_value(v)}</steptml:parameter>'
                          for k, v in a.items()) + "</steptml:invoke><｜tool_call_end｜>")
    return "<｜tool_calls_begin｜>" + "".join(one(n, a) for n, a in calls) + "<｜tool_calls_end｜>"


def _olmo3(rng, calls):
    spell = random.Random(repr(calls))  # its own: the seed's other draws stay
    return "<function_calls>\n" + "\n".join(
        f"{n}(" + ", ".join(f"{k}={py_spelt(v, spell)}" for k, v in a.items()) + ")"
        for n, a in calls
    ) + "\n</function_calls>"


def _lfm2(rng, calls):
    return "<|tool_call_start|>" + _pythonic_list(calls, adjacent=False) + "<|tool_call_end|>"


def _apertus(rng, calls):
    return "<|tools_prefix|>[" + ", ".join(
        f"{{{json.dumps(n)}: {_dumps(rng, a)}}}" for n, a in calls) + "]<|tools_suffix|>"


def _plamo3(rng, calls):
    def one(n, a):
        return ("<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>" + n
                + "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>"
                "<|plamo:constrain|>json<|plamo:msg|>" + _dumps(rng, a)
                + "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>")
    return ("<|plamo:begin_tool_requests:plamo|>" + "".join(one(n, a) for n, a in calls)
            + "<|plamo:end_tool_requests:plamo|>")


def _gigachat3(rng, calls):
    n, a = calls[0]  # one call per output
    return f'<|message_sep|>\n\nfunction call<|role_sep|>\n{{"name": "{n}", "arguments": {_dumps(rng, a)}}}'


#: tool parser -> (markup writer, the markers that may show up in content or be mangled)
FORMATS = {
    "hermes": (_hermes, ["<tool_call>", "</tool_call>"]),
    "qwen3_json": (_hermes, ["<tool_call>", "</tool_call>"]),
    "granite4": (_hermes, ["<tool_call>", "</tool_call>"]),
    "phi4_mini_json": (_phi4, ["functools", "functools["]),
    "longcat": (_longcat, ["<longcat_tool_call>", "</longcat_tool_call>"]),
    "mistral": (_mistral, ["[TOOL_CALLS]", "[ARGS]"]),
    "llama3_json": (_llama3, ["<|python_tag|>", '{"name": '] ),
    "llama4_json": (_llama3, ["<|python_tag|>", '{"name": ']),
    "pythonic": (_pythonic, ["[", "get_weather("]),
    "llama4_pythonic": (_llama4_pythonic, ["<|python_start|>", "<|python_end|>"]),
    "deepseek_v3": (_deepseek_v3, [_VB, _VC, _VCE, _VE]),
    "deepseek_v31": (_deepseek_v31, [_VB, _VC, _VCE, _VE]),
    "granite": (_granite, ["<|tool_call|>", "<tool_call>"]),
    "granite-20b-fc": (_granite20, ["<function_call>"]),
    "hunyuan_a13b": (_hunyuan, ["<tool_calls>", "</tool_calls>"]),
    "qwen3_coder": (_qwen3_coder, ["<tool_call>", "<function=", "</parameter>"]),
    "qwen3_xml": (_qwen3_coder, ["<tool_call>", "<function=", "</parameter>"]),
    "seed_oss": (_seed, ["<seed:tool_call>", "<function=", "</parameter>"]),
    "deepseek_v4": (_dsml4, [f"<{_D}tool_calls>", f'<{_D}invoke name="', f"</{_D}parameter>"]),
    "deepseek_v41": (_dsml41, ["<｜DSML｜ calls>", '<｜DSML｜ invoke name="', "</｜DSML｜ parameter>"]),
    "step3p5": (_qwen3_coder, ["<tool_call>", "<function=", "</parameter>"]),
    "mimo": (_mimo, ["<tool_call>", "<function=", "</parameter>"]),
    "ling3": (_glm47, ["<tool_call>", "<arg_key>", "</arg_value>"]),
    "glm45": (_glm, ["<tool_call>", "<arg_key>", "</arg_value>"]),
    "glm47": (_glm47, ["<tool_call>", "<arg_key>", "</arg_value>"]),
    "kimi_k2": (_kimi, [_KB, _KC, _KA, _KCE]),
    "minimax_m2": (lambda rng, calls: _respelt(
        _minimax(rng, calls), calls, "<parameter name=",
        ("<parameter  name=", "< parameter name = ", "<parameter\nname=")),
        ["<minimax:tool_call>", '<invoke name="', "</parameter>"]),
    "deepseek_v32": (_dsml, [f"<{_D}function_calls>", f'<{_D}invoke name="', f"</{_D}parameter>"]),
    # newparsers
    "gemma4": (_gemma4, ["<|tool_call>", "<tool_call|>", _GQ]),
    "step5": (_qwen3_coder, ["<tool_call>", "<function=", "</parameter>"]),
    "ernie45": (_hermes, ["<tool_call>", "</tool_call>"]),
    "hy_v3": (_hy_v3, ["<tool_calls>", "<tool_call>", "<tool_sep>", "</arg_value>"]),
    "jamba": (_jamba, ["<tool_calls>", "</tool_calls>"]),
    "internlm": (_internlm, ["<|action_start|>", "<|plugin|>", "<|action_end|>"]),
    "functiongemma": (_functiongemma, ["<start_function_call>", "<end_function_call>",
                                       "<escape>"]),
    "step3": (_step3, ["<｜tool_calls_begin｜>", "<｜tool_call_begin｜>", "</steptml:parameter>"]),
    "olmo3": (_olmo3, ["<function_calls>", "</function_calls>"]),
    # newparsers4
    "poolside_v1": (_glm, ["<tool_call>", "<arg_key>", "</arg_value>"]),
    "lfm2": (_lfm2, ["<|tool_call_start|>", "<|tool_call_end|>"]),
    "apertus": (_apertus, ["<|tools_prefix|>", "<|tools_suffix|>"]),
    "dots": (_dots, ["<dots_function_call>", '<invoke name="', "</parameter>"]),
    "xlam": (lambda rng, calls: "[" + ", ".join(
        f'{{"name": "{n}", "arguments": {_dumps(rng, a)}}}' for n, a in calls) + "]",
        ["[", '{"name": ', "```json"]),
    "gigachat3": (_gigachat3, ["<|message_sep|>", "<|role_sep|>", "<|function_call|>"]),
    "plamo3": (_plamo3, ["<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_name:plamo|>",
                         "<|plamo:end_tool_arguments:plamo|>"]),
    # newparsers5
    "hy_v4": (_hy_v4, ["<tool_calls>", "<tool_call>", "<arg_key>", "</arg_value>"]),
    # parsers6b
    "kimi_k3": (_kimi_k3, ["<|open|>tools<|sep|>", "<|open|>call", "<|close|>argument<|sep|>",
                           "<|close|>call<|sep|>"]),
    # muse7 (the channel router: tito.core.parsers.muse)
    "muse": (_muse, ["<|message|>", "<|eom|>", "<atem:invoke", "</atem:parameter>"]),
    # inkling10 (the block router: tito.core.parsers.inkling; every case has Inkling's prompt)
    "inkling": (_inkling, [_ITJ, _IE, _IM, '"args"']),
    # glimmer8: Muse Glimmer (the same router and writer, Glimmer's table)
    "muse_glimmer": (_muse, ["<|message|>", "<|eom|>", "<atem:invoke", "</atem:parameter>"]),
}
#: formats whose calls vLLM reads only at the very start of the output
_AT_START = {"llama3_json", "llama4_json", "pythonic", "llama4_pythonic", "olmo3", "xlam"}
