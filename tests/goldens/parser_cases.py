"""Inputs of the part-A parser goldens: vLLM's own test cases (tests/tool_parsers/ and
tests/reasoning/ of vllm-project/vllm, model outputs ported as data) plus cases of ours.

Pure data, importable from tito's tests and from vLLM's venv (``record_parsers.py`` runs vLLM
0.33.0's real parsers on them and writes ``parsers_vllm.json``; tests never import vLLM).
Each case: ``id``, ``tool`` (vLLM ``--tool-call-parser`` name or None), ``reasoning`` (vLLM
``--reasoning-parser`` name or None), ``tools`` (the request's ``tools``), ``text`` (the model's
output), optional ``kwargs`` (chat_template_kwargs), optional ``prompt`` (the prompt's text, for
the reasoning state the prompt leaves; else the prompt is empty).
"""

from __future__ import annotations

import parser_cases_fuzz9_granite_glm as _parser_cases_fuzz9_granite_glm  # issue 10, fuzz seed 9
import parser_cases_fuzz9_deepseek_plamo as _parser_cases_fuzz9_deepseek_plamo  # issue 10, fuzz seed 9
import parser_cases_hunyuan as _parser_cases_hunyuan  # issue 10's block (hunyuan_a13b)
import parser_cases_inkling as _parser_cases_inkling  # inkling10's block
import parser_cases_stray_markup as _parser_cases_stray_markup  # issue 10, fuzz seeds 9-14
import parser_cases_fuzz_residue as _parser_cases_fuzz_residue  # fuzz residue, session 33
import parser_cases_fuzz100_plamo_cut as _parser_cases_fuzz100_plamo_cut  # fuzz seed 100
import parser_cases_fuzz36 as _parser_cases_fuzz36  # fuzz seeds 23, 24, 106+ (session 36)
import parser_cases_fuzz31 as _parser_cases_fuzz31  # fuzz seed 31 (session 37)
import parser_cases_fuzz37 as _parser_cases_fuzz37  # fuzz seeds 29, 109 (session 37)
import parser_cases_fuzz38 as _parser_cases_fuzz38  # fuzz seeds 110, 36+, 114+ (session 38)
import parser_cases_fuzz39 as _parser_cases_fuzz39  # fuzz seeds 37+, 114+ (session 39)
import parser_cases_fuzz40 as _parser_cases_fuzz40  # session 40
import parser_cases_fuzz42 as _parser_cases_fuzz42  # session 42
import parser_cases_fuzz43 as _parser_cases_fuzz43  # session 43
import parser_cases_fuzz44 as _parser_cases_fuzz44  # session 44
import parser_cases_fuzz45 as _parser_cases_fuzz45  # session 45
import parser_cases_fuzz48 as _parser_cases_fuzz48  # session 48
import parser_cases_fuzz49 as _parser_cases_fuzz49  # session 49
import parser_cases_fuzz50 as _parser_cases_fuzz50  # session 50
import parser_cases_hpar50 as _parser_cases_hpar50  # session 50 (DSML keys)
import parser_cases_fuzz51 as _parser_cases_fuzz51  # session 51
import parser_cases_hpar51 as _parser_cases_hpar51  # session 51 (holds after spelt openers)
import parser_cases_hpar52 as _parser_cases_hpar52  # session 52 (whitespace before closers)
import parser_cases_lead52 as _parser_cases_lead52  # session 52 (a string open at </tool_calls>)
import parser_cases_k2h as _parser_cases_k2h  # issue 10's block (k2_horizon)
import parser_cases_k3 as _parser_cases_k3  # parsers6b's block (a module of its own)
import parser_cases_muse as _parser_cases_muse  # muse7's block (a module of its own)
import parser_cases_pylit45 as _parser_cases_pylit45  # session 45: Python literals
import parser_cases_muse46 as _parser_cases_muse46  # session 46: muse's quoted names
import parser_cases_pylit46 as _parser_cases_pylit46  # session 46: signed parentheses
import parser_cases_pylit48 as _parser_cases_pylit48  # session 48: comments between calls
import parser_cases_pylit49 as _parser_cases_pylit49  # session 49: comments in headers

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "state": {"type": "string"},
                "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]},
            },
        },
    },
}
AREA = {
    "type": "function",
    "function": {
        "name": "calculate_area",
        "parameters": {
            "type": "object",
            "properties": {
                "shape": {"type": "string"},
                "dimensions": {"type": "object"},
                "precision": {"type": "integer"},
            },
        },
    },
}
TYPES = {
    "type": "function",
    "function": {
        "name": "test_types",
        "parameters": {
            "type": "object",
            "properties": {
                "int_param": {"type": "integer"},
                "float_param": {"type": "float"},
                "bool_param": {"type": "boolean"},
                "str_param": {"type": "string"},
                "obj_param": {"type": "object"},
                "arr_param": {"type": "array"},
                "anyof_int": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "anyof_str": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "type_as_array": {"type": ["integer", "null"]},
                "multi": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "num": {"type": "number"},
                "unknown": {"type": "whatever"},
            },
        },
    },
}
TOOLS = [WEATHER, AREA, TYPES]

_Q_WEATHER = (
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
    "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
    "</function>\n</tool_call>"
)
_Q_AREA = (
    "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
    '<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n'
    "<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>"
)
_Q_TYPES = (
    "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n"
    "<parameter=float_param>\n3.14\n</parameter>\n<parameter=bool_param>\ntrue\n</parameter>\n"
    "<parameter=str_param>\nhello world\n</parameter>\n"
    '<parameter=obj_param>\n{"key": "value"}\n</parameter>\n'
    '<parameter=arr_param>\n["a", "b", "c"]\n</parameter>\n'
    "<parameter=anyof_int>\n5\n</parameter>\n<parameter=anyof_str>\nhello\n</parameter>\n"
    "<parameter=type_as_array>\n42\n</parameter>\n<parameter=multi>\nsome text\n</parameter>\n"
    "<parameter=num>\n2.0\n</parameter>\n<parameter=unknown>\n[1, 2]\n</parameter>\n"
    "</function>\n</tool_call>"
)


def _qwen(tool: str, start: str = "<tool_call>", end: str = "</tool_call>") -> list[dict]:
    def w(text: str) -> str:
        return text.replace("<tool_call>", start).replace("</tool_call>", end)

    cases = [
        ("no_tools", "This is a test response without any tool calls"),
        ("single_tool", _Q_WEATHER),
        ("single_tool_with_content", "Sure! Let me check the weather for you." + _Q_WEATHER),
        ("single_tool_multiline_param", _Q_AREA),
        ("parallel_tools", _Q_WEATHER + "\n" + _Q_WEATHER.replace("Dallas", "Orlando")),
        ("typed_params", "Let me calculate that area for you." + _Q_AREA.replace("rectangle", "circle")),
        ("type_conversion", _Q_TYPES),
        ("fallback_no_tags", _Q_WEATHER.removeprefix("<tool_call>\n").removesuffix("\n</tool_call>")),
        (
            "missing_closing_parameter_tag",
            "Let me check the weather for you:\n"
            + _Q_WEATHER.replace("Dallas\n</parameter>\n", "Dallas\n"),
        ),
        ("special_characters", _Q_WEATHER.replace("Dallas", 'Dal"las \\ \t<b>&amp; 東京')),
        ("multiline_string_value", _Q_WEATHER.replace("Dallas", "line one\n\nline two\n")),
        ("empty_value", _Q_WEATHER.replace("\nDallas\n", "")),
        ("no_parameters", "<tool_call>\n<function=get_current_weather>\n</function>\n</tool_call>"),
        ("unknown_tool", _Q_WEATHER.replace("get_current_weather", "not_a_tool")),
        ("content_after_call", _Q_WEATHER + "\nDone."),
        ("truncated_in_value", _Q_WEATHER[: _Q_WEATHER.index("TX") + 1]),
        ("invalid_typed_value", _Q_AREA.replace("\n2\n", "\ntwo\n")),
    ]
    return [
        {"id": f"{tool}/{cid}", "tool": tool, "reasoning": None, "tools": TOOLS, "text": w(text)}
        for cid, text in cases
    ]


GLM_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "date": {"type": "string"},
                "days": {"type": "integer"},
                "detailed": {"type": "boolean"},
                "options": {"type": "object"},
            },
        },
    },
}
NOARG = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}


def _glm(tool: str) -> list[dict]:
    one = (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n</tool_call>"
    )
    cases = [
        ("no_tools", "This is a test"),
        ("single", one),
        ("with_content", "I will check.\n" + one),
        ("parallel", one + "\n" + one.replace("Beijing", "Shanghai")),
        (
            "glm47_inline",
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
            "<arg_key>days</arg_key><arg_value>3</arg_value></tool_call>",
        ),
        (
            "typed",
            "<tool_call>get_weather\n<arg_key>days</arg_key>\n<arg_value>5</arg_value>\n"
            "<arg_key>detailed</arg_key>\n<arg_value>true</arg_value>\n"
            '<arg_key>options</arg_key>\n<arg_value>{"a": [1, 2]}</arg_value>\n</tool_call>',
        ),
        ("no_args", "<tool_call>get_time</tool_call>"),
        ("no_args_newline", "<tool_call>get_time\n</tool_call>"),
        ("unknown_tool", one.replace("get_weather", "nope")),
        ("value_verbatim", one.replace("Beijing", "\n  Bei jing \n")),
        ("truncated", one[: one.index("2024")]),
        ("content_after", one + "\nThat is all."),
    ]
    return [
        {"id": f"{tool}/{cid}", "tool": tool, "reasoning": None, "tools": [GLM_TOOL, NOARG], "text": text}
        for cid, text in cases
    ]


KIMI_TOOLS = [GLM_TOOL, NOARG]
_KB, _KE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
_CB, _CE, _AB = "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>"


def _k(tool_id: str, args: str) -> str:
    return f"{_CB}{tool_id} {_AB}{args}{_CE}"


def _kimi() -> list[dict]:
    cases = [
        ("no_tools", "This is a test"),
        ("single", "I'll check. " + _KB + _k("functions.get_weather:0", '{"city": "Beijing"}') + _KE),
        (
            "parallel",
            "Compare weather. " + _KB + _k("functions.get_weather:0", '{"city": "Beijing"}')
            + _k("functions.get_weather:1", '{"city": "Shanghai"}') + _KE,
        ),
        ("angle_brackets", "Process HTML. " + _KB + _k("functions.process_html:0", '{"html": "<div>content</div>"}') + _KE),
        ("multiline_json", "Formatted. " + _KB + _k("functions.process_data:0", '{\n  "name": "test",\n  "value": 123\n}') + _KE),
        ("no_functions_prefix", "No prefix. " + _KB + _k("get_weather:0", '{"city": "Tokyo"}') + _KE),
        ("empty_arguments", "Empty args. " + _KB + _k("functions.test:0", "{}") + _KE),
        (
            "invalid_json_still_extracted",
            "Help. " + _KB + _k("functions.bad:0", '{"city": "Beijing"') + _k("functions.good:1", '{"city": "Shanghai"}') + _KE,
        ),
        (
            "invalid_id_skipped",
            "Help. " + _KB + _k("functions.invalid.0", '{"city": "Beijing"}') + _k("functions.valid:1", '{"city": "Shanghai"}') + _KE,
        ),
        ("newlines", "Sure.\n" + _KB + "\n" + _k("functions.get_weather:0", '{"city": "Oslo"}') + "\n" + _KE),
    ]
    return [
        {"id": f"kimi_k2/{cid}", "tool": "kimi_k2", "reasoning": None, "tools": KIMI_TOOLS, "text": t}
        for cid, t in cases
    ]


MM_TOOLS = [GLM_TOOL, NOARG]


def _minimax() -> list[dict]:
    one = (
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Seattle</parameter>\n'
        '<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    cases = [
        ("no_tools", "This is a test"),
        ("single", one),
        ("with_content", "Let me look.\n" + one),
        (
            "parallel_in_one_section",
            '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">A</parameter>\n'
            '</invoke>\n<invoke name="get_time">\n</invoke>\n</minimax:tool_call>',
        ),
        ("single_quotes", one.replace('"get_weather"', "'get_weather'").replace('"city"', "'city'")),
        ("bare_names", one.replace('"get_weather"', "get_weather").replace('"city"', "city")),
        ("value_verbatim", one.replace("Seattle", "\n Seattle, WA \n")),
        ("unknown_tool", one.replace("get_weather", "nope")),
        ("missing_param_close", one.replace("Seattle</parameter>", "Seattle")),
        ("typed", one.replace(">3<", '>{"x": 1}<').replace('"days"', '"options"')),
        ("truncated", one[: one.index("Seattle") + 4]),
    ]
    return [
        {"id": f"minimax_m2/{cid}", "tool": "minimax_m2", "reasoning": None, "tools": MM_TOOLS, "text": t}
        for cid, t in cases
    ]


_D = "｜DSML｜"


def _dsml() -> list[dict]:
    one = (
        f'<{_D}function_calls>\n<{_D}invoke name="get_weather">\n'
        f'<{_D}parameter name="city" string="true">杭州</{_D}parameter>\n'
        f'<{_D}parameter name="days" string="false">5</{_D}parameter>\n'
        f"</{_D}invoke>\n</{_D}function_calls>"
    )
    cases = [
        ("no_tools", "This is a test"),
        ("single", one),
        ("with_content", "好的。\n" + one),
        (
            "parallel",
            one.replace(f"</{_D}invoke>\n</{_D}function_calls>", f'</{_D}invoke>\n<{_D}invoke name="get_time">\n</{_D}invoke>\n</{_D}function_calls>'),
        ),
        ("json_object", one.replace('"days" string="false">5', '"options" string="false">{"a": [1, true]}')),
        ("no_string_attr", one.replace(' string="false">5', ">7")),
        ("false_but_text", one.replace('string="false">5', 'string="false">not json')),
        ("string_true_number", one.replace('"city" string="true">杭州', '"city" string="true">42')),
        ("schema_types_string_false", one.replace('"city" string="true">杭州', '"city" string="false">42')),
        ("truncated", one[: one.index("杭州") + 1]),
    ]
    return [
        {"id": f"deepseek_v32/{cid}", "tool": "deepseek_v32", "reasoning": None, "tools": [GLM_TOOL, NOARG], "text": t}
        for cid, t in cases
    ]


_VB, _VE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_VC, _VS, _VCE = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"


def _v31() -> list[dict]:
    cases = [
        ("no_tools", "This is a test"),
        ("single", f'{_VB}{_VC}get_weather{_VS}{{"city": "Paris"}}{_VCE}{_VE}'),
        ("with_content", f'Let me check.{_VB}{_VC}get_weather{_VS}{{"city": "Paris"}}{_VCE}{_VE}'),
        (
            "parallel",
            f'{_VB}{_VC}get_weather{_VS}{{"city": "Paris"}}{_VCE}{_VC}get_time{_VS}{{}}{_VCE}{_VE}',
        ),
        ("pretty_printed", f'{_VB}{_VC}get_weather{_VS}{{\n  "city": "Paris",\n  "days": 2\n}}{_VCE}{_VE}'),
        ("nested", f'{_VB}{_VC}get_weather{_VS}{{"options": {{"a": [1, {{"b": "}}"}}]}}}}{_VCE}{_VE}'),
    ]
    return [
        {"id": f"deepseek_v31/{cid}", "tool": "deepseek_v31", "reasoning": None, "tools": [GLM_TOOL, NOARG], "text": t}
        for cid, t in cases
    ]


def _reasoning() -> list[dict]:
    out = []
    think = [
        ("simple", "<think>This is a reasoning section</think>This is the rest"),
        ("no_start", "This is a reasoning section</think>This is the rest"),
        ("multiline", "<think>line one\nline two\n</think>\n\nAnswer here"),
        ("only_reasoning", "<think>This is reasoning that never ends"),
        ("no_end_no_start", "Thinking without end"),
        ("empty_reasoning", "<think></think>Just the answer"),
        ("content_only_after", "</think>Only content"),
    ]
    for name in ("glm45", "glm47", "kimi_k2", "minimax_m2", "minimax_m2_append_think"):
        for cid, text in think:
            out.append({"id": f"{name}/{cid}", "tool": None, "reasoning": name, "tools": [], "text": text})
    for cid, text in think:
        seed = text.replace("<think>", "<seed:think>").replace("</think>", "</seed:think>")
        out.append({"id": f"seed_oss/{cid}", "tool": None, "reasoning": "seed_oss", "tools": [], "text": seed})
    for name in ("glm45", "kimi_k2", "seed_oss"):
        out.append({
            "id": f"{name}/thinking_off", "tool": None, "reasoning": name, "tools": [],
            "text": "plain answer</think> tail",
            "kwargs": {"enable_thinking": False, "thinking": False},
        })
    return out


def _combined() -> list[dict]:
    """Reasoning and tool parser together: a call straight from reasoning ends it."""
    q = _Q_WEATHER
    return [
        {"id": "qwen3+qwen3_coder/think_then_call", "tool": "qwen3_coder", "reasoning": "qwen3",
         "tools": TOOLS, "text": "<think>I should call the tool.</think>\n\n" + q},
        {"id": "qwen3+qwen3_coder/implicit_end", "tool": "qwen3_coder", "reasoning": "qwen3",
         "tools": TOOLS, "text": "<think>I should call the tool.\n" + q},
        {"id": "glm45+glm45/implicit_end", "tool": "glm45", "reasoning": "glm45", "tools": [GLM_TOOL],
         "text": "Need weather.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Rome</arg_value>\n</tool_call>"},
        {"id": "kimi_k2+kimi_k2/implicit_end", "tool": "kimi_k2", "reasoning": "kimi_k2", "tools": [GLM_TOOL],
         "text": "Need weather." + _KB + _k("functions.get_weather:0", '{"city": "Rome"}') + _KE},
        {"id": "minimax_m2+minimax_m2/think_then_call", "tool": "minimax_m2", "reasoning": "minimax_m2",
         "tools": [GLM_TOOL],
         "text": 'Need weather.</think>\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Rome</parameter>\n</invoke>\n</minimax:tool_call>'},
        {"id": "seed_oss+seed_oss/implicit_end", "tool": "seed_oss", "reasoning": "seed_oss", "tools": TOOLS,
         "text": "Need weather." + q.replace("tool_call>", "seed:tool_call>")},
    ]


NESTED = {
    "type": "function",
    "function": {
        "name": "configure",
        "parameters": {
            "type": "object",
            "properties": {
                "opts": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer"},
                        "flag": {"type": "boolean"},
                        "inner": {"type": "object", "properties": {"x": {"type": "number"}}},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                },
                "counts": {"type": "array", "items": {"type": "integer"}},
                "pairs": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "integer"}}}},
                "maybe": {"anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}, {"type": "null"}]},
                "nullable": {"type": ["integer", "null"]},
                "choice": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
                "label": {"type": "string"},
                "plain": {"type": "object"},
            },
        },
    },
}
#: (key, value text): nested values whose leaves are strings the nested schema would type
_NESTED_VALUES = [
    ("opts", '{"n": "5", "flag": "true", "inner": {"x": "1.5"}, "tags": [1, "a"], "extra": "7"}'),
    ("counts", '["1", 2, "x"]'),
    ("pairs", '[{"k": "3"}, {"k": 4, "z": "9"}]'),
    ("maybe", '{"n": "3"}'),
    ("nullable", "null"),
    ("choice", "7"),
    ("label", "5"),
    ("plain", '{"n": "5"}'),
]


def _nested() -> list[dict]:
    """Nested schema typing (vLLM's ``_fix_arg_types``) in every XML-ish format."""
    q = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in _NESTED_VALUES)
    g = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in _NESTED_VALUES)
    m = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in _NESTED_VALUES)
    d = "".join(
        f'<{_D}parameter name="{k}" string="false">{v}</{_D}parameter>\n' for k, v in _NESTED_VALUES
    )
    ds = "".join(
        f'<{_D}parameter name="{k}" string="true">{v}</{_D}parameter>\n' for k, v in _NESTED_VALUES
    )
    texts = {
        "qwen3_coder": f"<tool_call>\n<function=configure>\n{q}</function>\n</tool_call>",
        "seed_oss": f"<seed:tool_call>\n<function=configure>\n{q}</function>\n</seed:tool_call>",
        "glm45": f"<tool_call>configure\n{g}</tool_call>",
        "glm47": f"<tool_call>configure{g}</tool_call>",
        "minimax_m2": f'<minimax:tool_call>\n<invoke name="configure">\n{m}</invoke>\n</minimax:tool_call>',
        "deepseek_v32": f'<{_D}function_calls>\n<{_D}invoke name="configure">\n{d}</{_D}invoke>\n</{_D}function_calls>',
    }
    out = [
        {"id": f"{tool}/nested_schema", "tool": tool, "reasoning": None, "tools": [NESTED], "text": t}
        for tool, t in texts.items()
    ]
    out.append({
        "id": "deepseek_v32/nested_schema_string_true", "tool": "deepseek_v32", "reasoning": None,
        "tools": [NESTED],
        "text": f'<{_D}function_calls>\n<{_D}invoke name="configure">\n{ds}</{_D}invoke>\n</{_D}function_calls>',
    })
    return out


WRAP_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        },
    },
}
ARGS_PROP_TOOL = {
    "type": "function",
    "function": {
        "name": "run",
        "parameters": {"type": "object", "properties": {"arguments": {"type": "object"}}},
    },
}
NOPROPS_TOOL = {"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}}


def _dsml_wrapper() -> list[dict]:
    """DeepSeek-V3.2 writing a call's arguments as one ``arguments`` (or ``input``) parameter."""

    def call(name: str, params: str) -> str:
        return (
            f'<{_D}function_calls>\n<{_D}invoke name="{name}">\n{params}</{_D}invoke>\n'
            f"</{_D}function_calls>"
        )

    def p(key: str, value: str, string: str | None = "false") -> str:
        attr = "" if string is None else f' string="{string}"'
        return f'<{_D}parameter name="{key}"{attr}>{value}</{_D}parameter>\n'

    obj = '{"city": "Paris", "days": "2"}'
    cases = [
        ("lone_arguments", call("get_weather", p("arguments", obj))),
        ("lone_arguments_string_true", call("get_weather", p("arguments", obj, "true"))),
        ("lone_arguments_no_attr", call("get_weather", p("arguments", obj, None))),
        ("lone_input", call("get_weather", p("input", obj))),
        ("wrapper_plus_param", call("get_weather", p("arguments", obj) + p("days", "3"))),
        ("param_plus_wrapper", call("get_weather", p("days", "3") + p("arguments", obj))),
        ("wrapper_unknown_key", call("get_weather", p("arguments", '{"city": "Paris", "zip": 1}'))),
        ("wrapper_not_object", call("get_weather", p("arguments", "[1, 2]"))),
        ("wrapper_text", call("get_weather", p("arguments", "not json", "true"))),
        ("wrapper_is_property", call("run", p("arguments", '{"a": 1}'))),
        ("wrapper_no_properties", call("ping", p("arguments", '{"a": 1}'))),
        ("wrapper_unknown_tool", call("nope", p("arguments", obj))),
        ("wrapper_empty_object", call("get_weather", p("arguments", "{}"))),
        (
            "wrapper_then_second_call",
            call("get_weather", p("arguments", obj)).replace(
                f"</{_D}invoke>\n</{_D}function_calls>",
                f'</{_D}invoke>\n<{_D}invoke name="get_weather">\n{p("input", obj)}</{_D}invoke>\n'
                f"</{_D}function_calls>",
            ),
        ),
        ("wrapper_truncated", call("get_weather", p("arguments", obj)).split(f"</{_D}parameter>")[0]),
    ]
    return [
        {"id": f"deepseek_v32/{cid}", "tool": "deepseek_v32", "reasoning": None,
         "tools": [WRAP_TOOL, ARGS_PROP_TOOL, NOPROPS_TOOL], "text": t}
        for cid, t in cases
    ]


def _kimi_ids() -> list[dict]:
    """Kimi-K2 call ids of every shape: vLLM 0.33 takes ``.+:\\d+`` at the start of the stripped
    header as the id (the name is the part before the first ``:``, without ``functions.``) and
    drops a call whose header has no such id."""
    shapes = [
        ("bare_index", "0"),
        ("no_index", "get_weather"),
        ("functions_no_index", "functions.get_weather"),
        ("trailing_text", "functions.get_weather:0 extra"),
        ("two_indexes", "functions.get_weather:0:1"),
        ("empty_name", ":0"),
        ("functions_empty_name", "functions.:0"),
        ("leading_zero", "get_weather:01"),
        ("non_numeric_index", "functions.get_weather:x"),
        ("big_index", "functions.get_weather:12"),
        ("padded", "  functions.get_weather:3  "),
        ("space_in_name", "functions.get weather:0"),
        ("newline_before_args", "functions.get_weather:0\n"),
        ("colon_in_name", "functions.a:b:0"),
        ("second_line", "functions.get_weather:0\nmore"),
    ]
    out = []
    for cid, shape in shapes:
        text = (
            "Hi. " + _KB + _k(shape, '{"city": "Rome"}') + _k("functions.get_time:1", "{}") + _KE
        )
        out.append({"id": f"kimi_k2/id_{cid}", "tool": "kimi_k2", "reasoning": None,
                    "tools": KIMI_TOOLS, "text": text})
    return out


def _mistral() -> list[dict]:
    """Mistral reasoning (``[THINK]``) with its tool calls: ``[TOOL_CALLS]`` ends reasoning."""
    call = '[TOOL_CALLS]get_current_weather[ARGS]{"city": "Paris"}'
    cases = [
        ("implicit_end", "mistral", "[THINK]I should call." + call),
        ("implicit_end_brace_form", "mistral", '[THINK]I should call.[TOOL_CALLS]get_current_weather{"city": "Paris"}'),
        ("explicit_end", "mistral", "[THINK]I should call.[/THINK]Ok." + call),
        ("trailing_ws_before_call", "mistral", "[THINK]I should call.  \n" + call),
        ("trailing_ws_before_end", "mistral", "[THINK]Thinking. \n[/THINK]Answer."),
        ("content_before_think", "mistral", "pre [THINK]I should call." + call),
        ("no_think", "mistral", "Sure." + call),
        ("repeated_markers", "mistral", "[THINK]a[THINK]b[/THINK]c[/THINK]d"),
        ("parallel_from_reasoning", "mistral", "[THINK]two calls" + call + call.replace("Paris", "Rome")),
        ("call_inside_words", "mistral", "[THINK]the [TOOL_CALLS] token"),
        ("reasoning_only_parser", None, "[THINK]I should call." + call),
        # whitespace after a v11 name (vLLM's engine strips the name; fuzz_parsers seed 9)
        ("name_space_before_args", "mistral", "Ok.[TOOL_CALLS]get_current_weather [ARGS]\n"
         '{"city": "Paris"}'),
        ("name_space_before_brace", "mistral", 'Ok.[TOOL_CALLS]get_current_weather {"city": "P"}'),
    ]
    return [
        {"id": f"mistral+mistral/{cid}" if tool else f"mistral/{cid}", "tool": tool,
         "reasoning": "mistral", "tools": [WEATHER] if tool else [], "text": t}
        for cid, tool, t in cases
    ]


_QP = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"


def _qwen3_reasoning() -> list[dict]:
    """vLLM 0.33's qwen3 parser: output is reasoning until ``</think>`` (a ``<think>`` the model
    writes is absorbed) unless the prompt's current turn closed the block or thinking is off."""
    cases = [
        ("plain", None, None, "The answer is 4."),
        ("think_block", None, None, "<think>hm</think>The answer is 4."),
        ("think_block_newlines", None, None, "<think>\nhm\n</think>\n\nThe answer is 4."),
        ("no_start", None, None, "hm</think>The answer is 4."),
        ("text_before_think", None, None, "pre<think>hm</think>answer"),
        ("repeated_markers", None, None, "<think>a<think>b</think>c</think>d<think>e"),
        ("unclosed", None, None, "<think>still thinking"),
        ("prompt_open", _QP + "<think>\n", None, "hm</think>answer"),
        ("prompt_closed", _QP + "<think>\n\n</think>\n\n", None, "The answer is 4."),
        ("prompt_closed_stray_end", _QP + "<think>\n\n</think>\n\n", None, "a</think>b<think>c"),
        ("earlier_turn_closed", "<|im_start|>assistant\n<think>x</think>y<|im_end|>\n" + _QP, None, "plain"),
        ("thinking_off", None, {"enable_thinking": False}, "plain</think> <think>tail"),
        ("thinking_off_prompt", _QP + "<think>\n\n</think>\n\n", {"enable_thinking": False}, "plain answer"),
    ]
    out = []
    for cid, prompt, kwargs, text in cases:
        for tool in (None, "qwen3_coder"):
            case = {"id": f"qwen3{'+' + tool if tool else ''}/{cid}", "tool": tool, "reasoning": "qwen3",
                    "tools": TOOLS if tool else [], "text": text}
            if prompt is not None:
                case["prompt"] = prompt
            if kwargs:
                case["kwargs"] = kwargs
            out.append(case)
    out.append({"id": "qwen3+qwen3_coder/plain_call", "tool": "qwen3_coder", "reasoning": "qwen3",
                "tools": TOOLS, "text": "I will call it." + _Q_WEATHER})
    out.append({"id": "qwen3+qwen3_coder/prompt_closed_call", "tool": "qwen3_coder", "reasoning": "qwen3",
                "tools": TOOLS, "prompt": _QP + "<think>\n\n</think>\n\n", "text": "Sure." + _Q_WEATHER})
    return out


def _fuzz_found() -> list[dict]:
    """Cases ``conformance/fuzz_parsers.py`` found tito differing on (fixed since)."""
    py = [
        ("leading_newline", "\n[get_time()]"), ("leading_space", " [get_time()]"),
        ("space_after_bracket", "[ get_time()]"), ("space_before_paren", "[get_time ()]"),
        ("space_in_parens", "[get_time( )]"), ("space_before_kw", "[get_weather( city='Paris')]"),
        ("space_before_eq", "[get_weather(city ='Paris')]"), ("underscore_name", "[_get()]"),
        ("adjacent", "[get_weather(city='Paris'), get_time()]"),
    ]
    out = [{"id": f"pythonic/fuzz_{cid}", "tool": "pythonic", "reasoning": None, "tools": [WEATHER],
            "text": t} for cid, t in py]
    out.append({"id": "llama4_pythonic/fuzz_space_after_marker", "tool": "llama4_pythonic",
                "reasoning": None, "tools": [WEATHER], "text": "<|python_start|> [get_time()]<|python_end|>"})
    out.append({"id": "llama4_pythonic/fuzz_marker_then_list", "tool": "llama4_pythonic",
                "reasoning": None, "tools": [WEATHER], "text": "<|python_start|>[get_time()]<|python_end|>"})
    key = ("<tool_call>get_weather\n<arg_key>city</arg_ke>\n<arg_value>Rome</arg_value>\n"
           "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>")
    for tool in ("glm45", "glm47"):
        out.append({"id": f"{tool}/fuzz_broken_key_close", "tool": tool, "reasoning": None,
                    "tools": [GLM_TOOL], "text": key})
    # repeated reasoning markers, which vLLM 0.33's batch absorbs (a start inside the block, an
    # end after it); a start after the block stays content
    for name in ("glm45", "glm47", "kimi_k2", "minimax_m2", "seed_oss"):
        s, e = ("<seed:think>", "</seed:think>") if name == "seed_oss" else ("<think>", "</think>")
        for cid, t in (("repeated_start", f"{s}a{s}b{e}c"), ("stray_end", f"a{e}b{e}c"),
                       ("end_after_block", f"{s}a{e}b{e}c")):
            out.append({"id": f"{name}/fuzz_{cid}", "tool": None, "reasoning": name, "tools": [],
                        "text": t})
    # qwen3 + hermes: a <tool_call> ends an unclosed think block (vLLM's qwen3 grammar), also in
    # the prompt-opened block of the Qwen3 thinking templates
    hermes_call = '<tool_call>\n{"name": "get_current_weather", "arguments": {"city": "Dallas"}}\n</tool_call>'
    for tool in ("hermes", "qwen3_json"):
        for cid, text, prompt in (
                ("think_unclosed_call", "<think>hm\n" + hermes_call, None),
                ("prompt_open_call", "hm\n" + hermes_call, _QP + "<think>\n"),
                ("closed_then_call", "<think>hm</think>\n\n" + hermes_call, None)):
            case = {"id": f"qwen3+{tool}/fuzz_{cid}", "tool": tool, "reasoning": "qwen3",
                    "tools": [WEATHER], "text": text}
            if prompt is not None:
                case["prompt"] = prompt
            out.append(case)
    out.append({"id": "qwen3_json/fuzz_alias", "tool": "qwen3_json", "reasoning": None,
                "tools": [WEATHER], "text": "Sure.\n" + hermes_call})
    # vLLM 0.33's reasoning aliases: step5 is deepseek_r1's parser, holo2 deepseek_v3's with
    # thinking on unless the template kwargs turn it off
    for name in ("step5", "holo2"):
        for cid, text, kwargs in (
                ("block", "<think>a</think>b", None), ("no_start", "a</think>b", None),
                ("unclosed", "<think>a", None), ("plain", "just text", None),
                ("off", "a</think>b", {"thinking": False}),
                ("off_enable", "a</think>b", {"enable_thinking": False}),
                ("on", "a</think>b", {"thinking": True})):
            case = {"id": f"{name}/fuzz_{cid}", "tool": None, "reasoning": name, "tools": [],
                    "text": text}
            if kwargs:
                case["kwargs"] = kwargs
            out.append(case)
    return out


def _new_formats() -> list[dict]:
    """vLLM 0.33's step3p5, mimo, ling3 (tool and reasoning) and nemotron_v3 (reasoning)."""
    q = ("<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
         "<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>")
    typed = ("<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
             '<parameter=dimensions>\n{"width": 10, "height": 20}\n</parameter>\n'
             "<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>")
    m = ("<tool_call><function=get_current_weather><parameter=city>Dallas</parameter>"
         "<parameter=state>TX</parameter></function></tool_call>")
    m_typed = ("<tool_call><function=calculate_area><parameter=shape>rectangle</parameter>"
               '<parameter=dimensions>{"width": 10}</parameter><parameter=precision>2'
               "</parameter></function></tool_call>")
    g = ("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value>"
         "<arg_key>date</arg_key><arg_value>2024-06-27</arg_value></tool_call>")
    calls = {"step3p5": (q, typed, TOOLS), "mimo": (m, m_typed, TOOLS),
             "ling3": (g, g.replace("Beijing", "Shanghai"), [GLM_TOOL])}
    out: list[dict] = []
    for name, (one, two, tools) in calls.items():
        for cid, text in (("single", one), ("text_before", "Let me check.\n" + one),
                          ("parallel", one + "\n" + two), ("plain", "No tools needed."),
                          ("nested_newline", "\n\n" + two),
                          ("truncated", one[: len(one) * 2 // 3])):
            out.append({"id": f"{name}/{cid}", "tool": name, "reasoning": None, "tools": tools,
                        "text": text})
        for cid, text, kwargs in (
                ("block_call", "<think>I should call.\n</think>\n\n" + one, None),
                ("no_start_call", "I should call.</think>" + one, None),
                ("unclosed_call", "<think>I should call.\n" + one, None),
                ("answer", "<think>hm  \n</think>\n\nThe answer.", None),
                ("plain", "just text", None),
                ("repeated", "<think>a<think>b</think>c</think>d", None),
                ("off", "a</think>b", {"enable_thinking": False}),
                ("thinking_off", "a</think>b", {"thinking": False})):
            case = {"id": f"{name}+{name}/{cid}", "tool": name, "reasoning": name, "tools": tools,
                    "text": text}
            if kwargs:
                case["kwargs"] = kwargs
            out.append(case)
            if not (name == "ling3" and cid.endswith("_call")):  # GLM's markers: special tokens
                out.append(dict(case, id=f"{name}/reasoning_{cid}", tool=None, tools=[]))
    for cid, text, kwargs in (
            ("block_call", "<think>I should call.\n</think>\n\n" + q, None),
            ("unclosed_call", "<think>I should call.\n" + q, None),
            ("answer", "<think>hm  \n</think>\n\nThe answer.", None),
            ("plain", "just text", None), ("off", "a</think>b", {"enable_thinking": False})):
        case = {"id": f"qwen3_coder+nemotron_v3/{cid}", "tool": "qwen3_coder",
                "reasoning": "nemotron_v3", "tools": TOOLS, "text": text}
        if kwargs:
            case["kwargs"] = kwargs
        out.append(case)
        out.append(dict(case, id=f"nemotron_v3/{cid}", tool=None, tools=[]))
    lc = ('<longcat_tool_call>\n{"name": "get_current_weather", "arguments": {"city": "Dallas", '
          '"state": "TX"}}\n</longcat_tool_call>')
    lc2 = '<longcat_tool_call>{"name": "calculate_area", "arguments": {"shape": "square"}}</longcat_tool_call>'
    for cid, text in (("single", lc), ("text_before", "Let me check.\n" + lc),
                      ("parallel", lc + "\n" + lc2), ("plain", "No tools needed."),
                      ("truncated", lc[:60])):
        out.append({"id": f"longcat/{cid}", "tool": "longcat", "reasoning": None, "tools": TOOLS,
                    "text": text})
    d = "｜DSML｜"
    for name, dsml, section in (("deepseek_v4", d, "tool_calls"), ("deepseek_v41", d + " ", "calls")):
        one = (f'<{dsml}{section}>\n<{dsml}invoke name="get_weather">\n<{dsml}parameter name="city" '
               f'string="true">杭州</{dsml}parameter>\n<{dsml}parameter name="days" string="false">3'
               f"</{dsml}parameter>\n</{dsml}invoke>\n</{dsml}{section}>")
        two = one.replace("杭州", "Paris").replace(f"</{dsml}invoke>\n</{dsml}{section}>",
                                                   f'</{dsml}invoke>\n<{dsml}invoke name="get_time">'
                                                   f"\n</{dsml}invoke>\n</{dsml}{section}>")
        wrapped = (f'<{dsml}{section}>\n<{dsml}invoke name="get_weather">\n<{dsml}parameter '
                   f'name="arguments" string="false">{{"city": "Rome", "days": "2"}}</{dsml}parameter>'
                   f"\n</{dsml}invoke>\n</{dsml}{section}>")
        for cid, text in (("single", one), ("text_before", "Let me check.\n\n" + one),
                          ("parallel", two), ("wrapper", wrapped), ("plain", "No tools."),
                          ("truncated_value", one[: one.index("杭州") + 1])):
            out.append({"id": f"{name}/{cid}", "tool": name, "reasoning": None, "tools": [GLM_TOOL, _DS_TIME],
                        "text": text})
        for cid, text, kwargs in (
                ("block_call", "<think>I should call.\n</think>\n\n" + one, None),
                ("unclosed_call", "<think>I should call.\n" + one, None),
                ("answer", "<think>hm  \n</think>The answer.", None),
                ("no_start", "hm</think>The answer.", None), ("plain", "just text", None),
                ("repeated", "<think>a<think>b</think>c</think>d", None),
                ("off", "The answer.", {"thinking": False})):
            case = {"id": f"{name}+{name}/{cid}", "tool": name, "reasoning": name,
                    "tools": [GLM_TOOL, _DS_TIME], "text": text}
            if kwargs:
                case["kwargs"] = kwargs
            out.append(case)
            if not cid.endswith("_call"):  # the section markers are special tokens here
                out.append(dict(case, id=f"{name}/reasoning_{cid}", tool=None, tools=[]))
    # vLLM's llama3_json / llama4_json / granite4 send json.dumps of the arguments (both paths)
    compact = '{"name": "get_current_weather", "parameters": {"city":"Dallas","state":"TX"}}'
    escapes = ('<|python_tag|>{"name": "get_current_weather", "parameters": {"city": '
               '"S\\u00e3o Paulo \\ud83d\\ude00", "state": "a\\/b\\tc"}}')
    numbers = ('{"name": "calculate_area", "parameters": {"precision": 2.50, "dimensions": '
               '{"w": 1E2, "h": -0}}}; {"name": "get_current_weather", "parameters": {\n  "city": "X"\n}}')
    for name in ("llama3_json", "llama4_json"):
        for cid, text in (("compact", compact), ("escapes", escapes), ("numbers", numbers)):
            out.append({"id": f"{name}/normalized_{cid}", "tool": name, "reasoning": None,
                        "tools": TOOLS, "text": text})
    g4 = '<tool_call>\n{"name": "get_current_weather", "arguments": {\n  "city": "Dallas"\n}}\n</tool_call>'
    for cid, text in (("single", g4), ("text_around", "Let me see. " + g4 + " Done."),
                      ("parallel", g4 + "\n" + g4.replace("Dallas", "S\\u00e3o")),
                      ("string_arguments", '<tool_call>{"name": "calculate_area", "arguments": '
                                           '"{\\"shape\\": \\"square\\"}"}</tool_call>'),
                      ("plain", "No tools.")):
        out.append({"id": f"granite4/normalized_{cid}", "tool": "granite4", "reasoning": None,
                    "tools": TOOLS, "text": text})
    phi = 'functools[{"name": "get_current_weather", "arguments": {"city": "Dallas", "state":"TX"}}]'
    phi2 = ('functools[{"name": "get_current_weather", "arguments": {"city": "Dallas"}}, '
            '{"name": "calculate_area", "parameters": {"shape": "S\\u00e3o", "precision": 2.50}}]')
    for cid, text in (("single", phi), ("parallel", phi2), ("plain", "No tools."),
                      ("leading_space", " " + phi)):
        out.append({"id": f"phi4_mini_json/{cid}", "tool": "phi4_mini_json", "reasoning": None,
                    "tools": TOOLS, "text": text})
    for cid, text in (("block", "<think>a\nb</think>\n\nThe answer."), ("no_start", "a</think>b"),
                      ("repeated_end", "<think>a</think>b</think>c"), ("empty", "<think></think>ok")):
        out.append({"id": f"olmo3/{cid}", "tool": None, "reasoning": "olmo3", "tools": [],
                    "text": text})
    return out


def _cut_headers() -> list[dict]:
    """A ``length`` cut inside a call's header (parsconf2): vLLM 0.33's engine formats name a
    call with what came (arguments ``{}``) and drop the cut markup; its regex formats (hermes'
    batch, DeepSeek-V3's) do not make the call. One case per format and cut position."""
    w, a = "get_current_weather", "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nParis"
    dv4 = f'<{_D}tool_calls>\n<{_D}invoke name="get_weather">\n'
    rows = [
        # (tool, reasoning, tools, id, text)
        *((t, None, TOOLS, cid, "Hi " + text) for t in ("qwen3_coder", "qwen3_xml", "step3p5")
          for cid, text in (("cut_name", a[: a.index("weather")]), ("cut_section", "<tool_call>\n<func"),
                            ("cut_marker_only", "<tool_call>"), ("cut_bare", "<function=get_cur"),
                            ("cut_second", a.replace("Paris", "Paris\n</parameter>\n</function>\n"
                                                     "</tool_call>\n<tool_call>\n<function=calc")))),
        ("seed_oss", None, TOOLS, "cut_name", "Hi <seed:tool_call>\n<function=get_cur"),
        ("mimo", None, TOOLS, "cut_name", "Hi <tool_call><function=get_cur"),
        ("mimo", None, TOOLS, "cut_whitespace_name", "Hi <tool_call><function=  "),
        *((t, None, [GLM_TOOL, _DS_TIME], cid, "Hi " + text) for t in ("deepseek_v4", "deepseek_v32")
          for cid, text in (("cut_name", dv4[: dv4.index("weather")]),
                            ("cut_quote", dv4[: dv4.index(">", 30)]),
                            ("cut_section", dv4[: dv4.index("invoke")]))),
        ("deepseek_v41", None, [GLM_TOOL, _DS_TIME], "cut_name",
         f'Hi <{_D} calls>\n<{_D} invoke name="get_wea'),
        *((t, None, [GLM_TOOL], cid, "Hi " + text) for t in ("glm45", "glm47", "ling3")
          for cid, text in (("cut_known_name", "<tool_call>get_weather"),
                            ("cut_name", "<tool_call>get_wea"), ("cut_marker_only", "<tool_call>"))),
        ("minimax_m2", None, [GLM_TOOL], "cut_known_name",
         'Hi <minimax:tool_call>\n<invoke name="get_weather'),
        ("minimax_m2", None, [GLM_TOOL], "cut_name", 'Hi <minimax:tool_call>\n<invoke name="get_wea'),
        ("kimi_k2", None, [GLM_TOOL], "cut_name", "Hi " + _KB + _CB + "functions.get_wea"),
        ("kimi_k2", None, [GLM_TOOL], "cut_id", "Hi " + _KB + _CB + "functions.get_weather:0 <|tool"),
        ("kimi_k2", None, [GLM_TOOL], "cut_section", "Hi " + _KB + "<|tool_ca"),
        ("mistral", None, TOOLS, "cut_name", "Hi [TOOL_CALLS]get_cur"),
        ("mistral", None, TOOLS, "cut_args_marker", "Hi [TOOL_CALLS]get_current_weather[ARGS]"),
        ("mistral", None, TOOLS, "cut_marker_only", "Hi [TOOL_CALLS]"),
        ("deepseek_v3", None, TOOLS, "cut_name", "Hi " + _VB + _VC + "function" + _VS + "get_cur"),
        ("deepseek_v31", None, TOOLS, "cut_name", "Hi " + _VB + _VC + w + _VS),
        ("granite", None, TOOLS, "cut_name", 'Hi <|tool_call|>[{"name": "get_cur'),
        ("granite", None, TOOLS, "cut_after_name", 'Hi <|tool_call|>[{"name": "get_current_weather", "argu'),
        ("granite", None, TOOLS, "cut_second", 'Hi <tool_call>[{"name": "get_current_weather", '
                                               '"arguments": {}}, {"name": "calculate_area"'),
        ("hermes", None, TOOLS, "cut_name", 'Hi <tool_call>\n{"name": "get_cur'),
        ("hermes", "qwen3", TOOLS, "cut_name", '<think>a</think>\n\n<tool_call>\n{"name": "get_cur'),
        ("qwen3_coder", "qwen3", TOOLS, "cut_name", "<think>a</think>\n\n" + a[: a.index("weather")]),
        ("deepseek_v4", "deepseek_v4", [GLM_TOOL, _DS_TIME], "cut_name",
         "<think>a</think>" + dv4[: dv4.index("weather")]),
        ("kimi_k2", "kimi_k2", [GLM_TOOL], "cut_name", "<think>a</think>" + _KB + _CB + "functions.get_wea"),
        ("mistral", "mistral", TOOLS, "cut_name", "[THINK]a[/THINK]Hi [TOOL_CALLS]get_cur"),
    ]
    return [{"id": f"{t}{'+' + r if r else ''}/{cid}", "tool": t, "reasoning": r, "tools": tools,
             "text": text} for t, r, tools, cid, text in rows]


# -- newparsers: vLLM 0.33 registry names added in this block (gemma4 ...) ------------------------

_GQ = '<|"|>'
_GC, _GE = "<|tool_call>", "<tool_call|>"


def _gemma4() -> list[dict]:
    """vLLM 0.33's gemma4 tool and reasoning parsers: vLLM's own cases
    (tests/tool_parsers/test_gemma4_tool_parser.py, tests/reasoning/test_gemma4_reasoning_parser.py)
    and ours (typing by the schema, nesting, truncation, reasoning with and without markers)."""
    q, c, e = _GQ, _GC, _GE
    weather = f"{c}call:get_current_weather{{city:{q}London{q}}}{e}"
    calls = {
        "no_call": "Hello, how can I help you today?",
        "single": weather,
        "multiple_arguments": f"{c}call:get_current_weather{{city:{q}San Francisco{q},unit:{q}celsius{q}}}{e}",
        "text_before": f"Let me check the weather for you. {weather}",
        "multiple_calls": f"{weather}{c}call:get_time{{location:{q}London{q}}}{e}",
        "nested_untyped": f"{c}call:complex_function{{nested:{{inner:{q}value{q}}},list:[{q}a{q},{q}b{q}]}}{e}",
        "number_boolean_untyped": f"{c}call:set_status{{is_active:true,count:42,score:3.14}}{e}",
        "incomplete": f"{c}call:get_current_weather{{city:{q}London",
        "hyphenated_name": f"{c}call:get-weather{{location:{q}London{q}}}{e}",
        "dotted_name": f"{c}call:weather.get{{location:{q}London{q}}}{e}",
        "no_arguments": f"{c}call:get_status{{}}{e}",
        "string_with_comma": f"{c}call:get_current_weather{{city:{q}Paris, France{q}}}{e}",
        "quoted_key": f"{c}call:calculate_area{{dimensions:{{{q}3{q}:{q}new text{q}}}}}{e}",
        "typed": f"{c}call:test_types{{int_param:42,float_param:3.14,bool_param:false,str_param:{q}x{q},"
                 f"arr_param:[{q}a{q},1,null],num:-1e5,unknown:null,obj_param:{{{q}3{q}:{q}t{q}}},"
                 f"anyof_int:null,anyof_str:{q}7{q},type_as_array:5,multi:{q}9{q}}}{e}",
        "typed_quoted_number": f"{c}call:calculate_area{{shape:{q}sq{q},precision:{q}3{q},dimensions:{{w:3.5,h:true}}}}{e}",
        "bare_string": f"{c}call:test_types{{str_param:hello world ,int_param:007,float_param:1.}}{e}",
        "spaces": f"{c}call: get_current_weather {{ city : {q}x{q} , state:{q}y{q} }}{e}",
        "escapes": f'{c}call:get_current_weather{{city:{q}line1\nline2 "q" \\ é{q}}}{e}',
        "marker_in_string": f"{c}call:get_current_weather{{city:{q}a{c}b{q}}}{e}",
        "end_in_string": f"{c}call:get_current_weather{{city:{q}a{e} after",
        "paren_form": f"{c}call:get_current_weather(city:{q}L{q},state:TX){e}",
        "bare_colon": f"{c}:get_current_weather{{city:{q}L{q}}}{e}",
        "no_braces": f"{c}call:get_status{e}",
        "text_around": f"A {weather} B {weather}\n",
        "newlines_between": f"{weather}\n\n{c}call:calculate_area{{}}{e}",
        "key_without_value": f"{c}call:get_current_weather{{city}}{e}",
        "empty_value": f"{c}call:get_current_weather{{city:}}{e}",
        "truncated_bare": f"{c}call:calculate_area{{precision:2",
        "truncated_after_brace": f"{c}call:calculate_area{{precision:2}}",
        "nested_deep": f"{c}call:calculate_area{{dimensions:{{a:[1,{{b:2}}],c:{q}d{q}}},precision:{q}3{q}}}{e}",
        "trailing_text_in_call": f"{c}call:get_current_weather{{city:{q}x{q}}} trailing{e}",
        "stray_end": f"before {e} after",
        "unknown_tool_typed_text": f"{c}call:a{{x:1}}{e}{c}call:b{{y:{q}q{q}}}{e}",
        "array_items": f"{c}call:test_types{{arr_param:[1, 2 ,[3,{q}x{q}],{{k:v}}],obj_param:{{}}}}{e}",
        "cut_name": f"Hi {c}call:get_current_wea",
        "cut_marker": f"Hi {c}",
        "cut_preamble": f"Hi {c}cal",
    }
    out: list[dict] = []
    for cid, text in calls.items():
        out.append({"id": f"gemma4/{cid}", "tool": "gemma4", "reasoning": None, "tools": TOOLS,
                    "text": text})
    think = {
        "block": "<|channel>thought\nLet me think.<channel|>The answer.",
        "block_no_prefix": "<|channel>hm<channel|>answer",
        "prefix_no_start": "thought\nhm<channel|>answer",
        "prefix_only_unclosed": "thought\nhm",
        "block_call": f"<|channel>thought\nhm  \n<channel|>{weather}",
        "unclosed_call": f"<|channel>thought\nhm  \n{weather}",
        "unclosed": "<|channel>thought\nhm",
        "first_line_only": "<|channel>thought",
        "first_line_empty_block": "<|channel>thought\n<channel|>answer",
        "partial_first_line": "<|channel>thou",
        "plain": "plain answer",
        "content_then_block": "answer<channel|>more<|channel>x",
        "repeated": "<|channel>a<|channel>b<channel|>c<channel|>d",
        "thinking_off": "<|channel>thought\na<channel|>b",
        "bare_end": "hm<channel|>answer",
        # after a call's <tool_call|> vLLM's grammar is back in CONTENT, where
        # <|channel> opens the block again (text, and the count); inside the call it is text
        "call_reopen": f"{c}call:get_status{{}}{e}<|channel>x y<channel|>",
        "call_reopen_unclosed": f"{c}call:get_status{{}}{e}<|channel>x",
        "call_reopen_thought": f"<|channel>thought\na<channel|>{c}call:get_status{{}}{e}"
                               f"<|channel>thought\nb<channel|>",
        "call_reopen_ws": f"<|channel>thought\na \n{c}call:get_status{{}}{e} <|channel>b ",
        "call_end_in_string": f"{c}call:get_current_weather{{city:{q}a{e}<|channel>c<channel|>",
        "call_strays": f"{c}call:get_status{{}}{e}<channel|>{e}<|channel>d",
        "call_in_reopened": f"{c}call:get_status{{}}{e}<|channel>x{c}call:get_status{{}}{e}",
        "call_channel_in_args": f"{c}call:get_current_weather{{city:{q}a<|channel>b{q}}}{e}"
                                f"<|channel>y",
        "call_end_stray": f"a{e}b",
    }
    for cid, text in think.items():
        case = {"id": f"gemma4+gemma4/{cid}", "tool": "gemma4", "reasoning": "gemma4",
                "tools": TOOLS, "text": text}
        if cid == "thinking_off":
            case["kwargs"] = {"enable_thinking": False}
        out.append(case)
        out.append(dict(case, id=f"gemma4/reasoning_{cid}", tool=None, tools=[]))
    out.append({"id": "gemma4+gemma4/prompt_open", "tool": "gemma4", "reasoning": "gemma4",
                "tools": TOOLS, "text": "thought\nhm<channel|>ans", "prompt": "<|turn>model\n<|channel>"})
    return out


_HY_TOOLS = [
    {"type": "function", "function": {"name": "get_current_date", "parameters": {}}},
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "date": {"type": "string"}}}}},
    *TOOLS,
]


def _batch2() -> list[dict]:
    """vLLM 0.33's step5 (tool), granite_thinking_parser (reasoning), ernie45 and hy_v3 (tool
    and reasoning): vLLM's own cases (tests/tool_parsers/test_hy_v3_tool_parser.py,
    test_ernie45_moe_tool_parser.py) and ours."""
    out: list[dict] = []
    q = ("<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
         "</function>\n</tool_call>")
    for cid, text in (("single", q), ("text_before", "Let me check.\n\n" + q),
                      ("plain", "No tools needed."), ("truncated", q[:50])):
        out.append({"id": f"step5/{cid}", "tool": "step5", "reasoning": None, "tools": TOOLS,
                    "text": text})
        out.append({"id": f"step5+step5/{cid}", "tool": "step5", "reasoning": "step5",
                    "tools": TOOLS, "text": "<think>hm</think>\n" + text})
    for cid, text, kwargs in (
            ("block", "<think>hm\n</think>\n\nThe answer.", None),
            ("no_start", "hm</think>\nThe answer.", None),
            ("unclosed", "<think>hm", None),
            ("plain", "just text", None),
            ("newlines_only", "<think>hm</think>\n\n", None),
            ("call", "<think>hm</think>\n" + q, None),
            ("unclosed_call", "<think>hm\n" + q, None),
            ("off", "\n\nThe answer.", {"enable_thinking": False}),
            ("off_markers", "a</think>\nb", {"enable_thinking": False})):
        case = {"id": f"qwen3_coder+granite_thinking_parser/{cid}", "tool": "qwen3_coder",
                "reasoning": "granite_thinking_parser", "tools": TOOLS, "text": text}
        if kwargs:
            case["kwargs"] = kwargs
        out.append(case)
        out.append(dict(case, id=f"granite_thinking_parser/{cid}", tool=None, tools=[]))
    e = '<tool_call>\n{"name": "get_current_weather", "arguments": {"city": "Dallas", "state":"TX"}}\n</tool_call>'
    e2 = '<tool_call>\n{"name": "calculate_area", "arguments": {"shape": "S\\u00e3o"}}\n</tool_call>'
    for cid, text in (("single", e), ("text_before", "Let me check.\n" + e),
                      ("parallel", e + "\n" + e2), ("plain", "No tools."),
                      ("text_after", e + "\nDone."), ("truncated", e[:40]),
                      ("no_arguments", '<tool_call>\n{"name": "get_time"}\n</tool_call>')):
        out.append({"id": f"ernie45/{cid}", "tool": "ernie45", "reasoning": None, "tools": TOOLS,
                    "text": text})
    for cid, text in (("block", "abc\n</think>\n\n<response>\ndef\n</response>\n"),
                      ("short", "abc\n</think>\ndef"),
                      ("with_start", "<think>abc</think>\n\ndef"),
                      ("unclosed", "abc"),
                      ("call", "abc\n</think>\n\n\n" + e + "\n"),
                      ("response_only_open", "abc</think>\n<response>\ndef")):
        out.append({"id": f"ernie45+ernie45/{cid}", "tool": "ernie45", "reasoning": "ernie45",
                    "tools": TOOLS, "text": text})
        out.append({"id": f"ernie45/reasoning_{cid}", "tool": None, "reasoning": "ernie45",
                    "tools": [], "text": text})
    w = ("<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing"
         "</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n</tool_call>\n"
         "</tool_calls>")
    hy = {
        "zero_arg_inline": "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>",
        "zero_arg_newline": "<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        "args_same_line": "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing"
                          "</arg_value><arg_key>date</arg_key><arg_value>2026-03-30</arg_value></tool_call></tool_calls>",
        "args_with_newlines": w,
        "content_before": "Checking.<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        "multiple": w.replace("\n</tool_calls>", "\n" + w[len("<tool_calls>\n"):].replace("Beijing", "Hangzhou")),
        "plain": "This is a plain response.",
        "typed": "<tool_calls><tool_call>test_types<tool_sep><arg_key>int_param</arg_key><arg_value>42</arg_value>"
                 "<arg_key>float_param</arg_key><arg_value>5.0</arg_value><arg_key>bool_param</arg_key>"
                 "<arg_value>True</arg_value><arg_key>obj_param</arg_key><arg_value>{\"a\": 1}</arg_value>"
                 "<arg_key>arr_param</arg_key><arg_value>[1, 'x']</arg_value><arg_key>num</arg_key>"
                 "<arg_value>7</arg_value><arg_key>anyof_int</arg_key><arg_value>null</arg_value>"
                 "<arg_key>unknown</arg_key><arg_value>(1, 2)</arg_value><arg_key>str_param</arg_key>"
                 "<arg_value> 12 </arg_value></tool_call></tool_calls>",
        "unknown_tool": "<tool_calls><tool_call>nope<tool_sep><arg_key>x</arg_key><arg_value>1</arg_value>"
                        "</tool_call></tool_calls>",
        "truncated": w[:90],
        "text_after": w + "\nDone.",
        "no_section_end": w[: -len("\n</tool_calls>")],
        "cut_name": "Hi <tool_calls>\n<tool_call>get_wea",
        "cut_section": "Hi <tool_calls>\n<tool_ca",
    }
    for cid, text in hy.items():
        out.append({"id": f"hy_v3/{cid}", "tool": "hy_v3", "reasoning": None, "tools": _HY_TOOLS,
                    "text": text})
    for cid, text, kwargs in (
            ("no_think_default", "<think>hm</think>answer", None),
            ("effort_high", "<think>hm</think>answer", {"reasoning_effort": "high"}),
            ("effort_no_think", "<think>hm</think>answer", {"reasoning_effort": "no_think"}),
            ("effort_no_start", "hm</think>answer", {"reasoning_effort": "low"}),
            ("effort_unclosed", "<think>hm", {"reasoning_effort": "low"}),
            ("effort_call", "<think>hm</think>\n" + w, {"reasoning_effort": "low"})):
        case = {"id": f"hy_v3+hy_v3/{cid}", "tool": "hy_v3", "reasoning": "hy_v3",
                "tools": _HY_TOOLS, "text": text}
        if kwargs:
            case["kwargs"] = kwargs
        out.append(case)
        out.append(dict(case, id=f"hy_v3/reasoning_{cid}", tool=None, tools=[]))
    return out


def _batch3() -> list[dict]:
    """vLLM 0.33's jamba, internlm and functiongemma tool parsers (shapes of vLLM's
    test_jamba_tool_parser.py, test_internlm2_tool_parser.py, test_functiongemma_tool_parser.py)
    and ours."""
    out: list[dict] = []
    j = ('<tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", '
         '"state": "TX", "unit": "fahrenheit"}}\n]</tool_calls>')
    j2 = ('<tool_calls>[{"name": "get_current_weather", "arguments": {"city":"Dallas"}}, '
          '{"name": "calculate_area", "arguments": {"shape": "S\\u00e3o", "precision": 2.50}}]</tool_calls>')
    for cid, text in (("single", j), ("parallel", j2), ("text_before", "Sure! " + j),
                      ("plain", "This is a test"), ("truncated", j[:70])):
        out.append({"id": f"jamba/{cid}", "tool": "jamba", "reasoning": None, "tools": TOOLS,
                    "text": text})
    i = ('<|action_start|><|plugin|>\n{"name": "get_current_weather", "parameters": {"city": '
         '"Dallas", "state":"TX"}}<|action_end|>')
    for cid, text in (("single", i), ("text_before", "I'll check. " + i),
                      ("arguments_key", i.replace('"parameters"', '"arguments"')),
                      ("plain", "Hello there."), ("no_arguments",
                       '<|action_start|><|plugin|>\n{"name": "get_time"}<|action_end|>'),
                      ("truncated", i[:60])):
        out.append({"id": f"internlm/{cid}", "tool": "internlm", "reasoning": None,
                    "tools": TOOLS, "text": text})
    fs, fe, es = "<start_function_call>", "<end_function_call>", "<escape>"
    f = f"{fs}call:get_current_weather{{city:{es}London{es}}}{fe}"
    for cid, text in (
            ("single", f), ("no_call", "Hello, how can I help?"),
            ("multiple_args", f"{fs}call:get_current_weather{{city:{es}San Francisco{es},"
                              f"unit:{es}celsius{es}}}{fe}"),
            ("text_before", "Let me check. " + f),
            ("json_values", f"{fs}call:test_types{{int_param:{es}42{es},bool_param:{es}true{es},"
                            f"obj_param:{es}{{\"a\": 1}}{es},str_param:{es}hello{es}}}{fe}"),
            ("multiple_calls", f + f.replace("London", "Paris")),
            ("no_args", f"{fs}call:get_time{{}}{fe}"),
            ("unterminated", f"{fs}call:get_current_weather{{city:{es}Lon"),
            ("stray_end", f"The {fe} token")):
        out.append({"id": f"functiongemma/{cid}", "tool": "functiongemma", "reasoning": None,
                    "tools": TOOLS, "text": text})
    return out


_STEP3_TOOLS = [
    {"type": "function", "function": {"name": "edit_file", "parameters": {"type": "object", "properties": {
        "old_string": {"type": "string"}, "indent": {"type": "integer"},
        "enabled": {"type": "boolean"}}}}},
    {"type": "function", "function": {"name": "test_function", "parameters": {"type": "object", "properties": {
        "string_field": {"type": "string"}, "int_field": {"type": "integer"},
        "float_field": {"type": "number"}, "bool_field": {"type": "boolean"},
        "null_field": {"type": "null"}, "array_field": {"type": "array"},
        "object_field": {"type": "object"}}}}},
    *TOOLS,
]


def _step3() -> list[dict]:
    """vLLM 0.33's step3 tool and reasoning parsers (shapes of vLLM's test_step3_tool_parser.py)
    and ours."""
    b, e, cb, ce, sep = ("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_call_begin｜>",
                         "<｜tool_call_end｜>", "<｜tool_sep｜>")

    def call(name, params, head=f"function{sep}"):
        return (f'{cb}{head}<steptml:invoke name="{name}">'
                + "".join(f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in params)
                + f"</steptml:invoke>{ce}")
    weather = call("get_current_weather", [("city", "Tokyo")])
    out = []
    texts = {
        "no_call": "This is a regular response without any tool calls.",
        "single": b + weather + e,
        "parallel": b + weather + call("get_time", [("timezone", "Asia/Tokyo")]) + e,
        "data_types": b + call("test_function", [
            ("string_field", "hello"), ("int_field", "42"), ("float_field", "3.14"),
            ("bool_field", "true"), ("null_field", "null"), ("array_field", '["a", "b", "c"]'),
            ("object_field", '{"nested": "value"}')]) + e,
        "float_integral": b + call("test_function", [("float_field", "5"), ("int_field", "x")]) + e,
        "empty_arguments": b + f'{cb}function{sep}<steptml:invoke name="refresh"></steptml:invoke>{ce}' + e,
        "surrounding_text": "Let me check the weather for you.\n\n" + b + weather + e
                            + "\n\nI'll get that information.",
        "escaped_strings": b + call("test_function", [("quoted", 'He said "hello"'),
                                                      ("path", "C:\\Users\\file.txt"),
                                                      ("newline", "line1\nline2")]) + e,
        "whitespace": b + call("edit_file", [("old_string", "    if x:\n        return 1\n"),
                                             ("indent", " 4 "), ("enabled", " true ")],
                               head=f"function{sep}edit_file\n") + e,
        "no_type_header": b + call("get_current_weather", [("city", "Tokyo")], head="") + e,
        "unclosed_section": b + weather,
        "newlines": b + "\n" + weather + "\n" + e,
        "cut_name": "Hi " + b + cb + f'function{sep}<steptml:invoke name="get_cur',
        "cut_type": "Hi " + b + cb + "func",
    }
    for cid, text in texts.items():
        out.append({"id": f"step3/{cid}", "tool": "step3", "reasoning": None,
                    "tools": _STEP3_TOOLS, "text": text})
    for cid, text in (("block", "abc</think>xyz"), ("no_end", "abc"),
                      ("with_start", "<think>abc</think>xyz"),
                      ("call", "hm</think>" + b + weather + e), ("empty", "</think>answer")):
        out.append({"id": f"step3+step3/{cid}", "tool": "step3", "reasoning": "step3",
                    "tools": _STEP3_TOOLS, "text": text})
        out.append({"id": f"step3/reasoning_{cid}", "tool": None, "reasoning": "step3",
                    "tools": [], "text": text})
    return out


def _olmo3() -> list[dict]:
    """vLLM 0.33's olmo3 tool parser (shapes of vLLM's test_olmo3_tool_parser.py) and ours."""
    w = 'get_current_weather(city="San Francisco", state="CA", unit="fahrenheit")'
    texts = {
        "no_call": "How can I help you today?",
        "single": f"<function_calls>{w}</function_calls>",
        "single_newlines": f"<function_calls>\n{w}\n</function_calls>",
        "parallel": f'<function_calls>\n{w}\ncalculate_area(shape="square", dimensions={{"side": 2}}, precision=null)\n</function_calls>',
        "literals": '<function_calls>\ntest_types(bool_param=true, obj_param={"a": false, "b": null}, arr_param=[1, 2.5, "x"], num=1e3)\n</function_calls>',
        "python_literals": "<function_calls>\ntest_types(bool_param=True, str_param='it\\'s', anyof_int=None)\n</function_calls>",
        "no_args": "<function_calls>\nget_time()\n</function_calls>",
        "bare_calls": w,
        "text_after": f"<function_calls>\n{w}\n</function_calls>\nDone.",
        "text_before": f"Sure. <function_calls>\n{w}\n</function_calls>",
        "truncated": f"<function_calls>\n{w[:40]}",
        "unicode": '<function_calls>\nget_current_weather(city="東京 \\u00e9")\n</function_calls>',
    }
    return [{"id": f"olmo3/{cid}", "tool": "olmo3", "reasoning": None, "tools": TOOLS,
             "text": text} for cid, text in texts.items()]


# -- newparsers4: vLLM 0.33 registry names added in this block (poolside_v1 ...) ------------------

_PS_TOOLS = [GLM_TOOL, NOARG, TYPES]


def _poolside() -> list[dict]:
    """vLLM 0.33's poolside_v1 tool and reasoning parsers (GLM-4 tags; deepseek_v3's reasoning
    switch): GLM's cases (vLLM's test_glm4_moe_tool_parser.py shapes) and ours."""
    out = [dict(c, id=c["id"].replace("glm45/", "poolside_v1/"), tool="poolside_v1",
                tools=_PS_TOOLS) for c in _glm("glm45")]
    kv = "<arg_key>{}</arg_key><arg_value>{}</arg_value>"
    typed = {
        "typed_literals": [("int_param", " 42 "), ("bool_param", "True"), ("arr_param", "(1, 'x')"),
                           ("obj_param", "{'a': None}"), ("num", "1e3"), ("anyof_int", "null")],
        "typed_strings": [("str_param", "  spaced  \n"), ("anyof_str", " 7 "), ("unknown", "[1, 2]")],
        "typed_text": [("int_param", "forty"), ("float_param", " 3.5x "), ("multi", "{1, 2}")],
        "no_schema_param": [("extra", " 12 "), ("other", "text here")],
    }
    for cid, pairs in typed.items():
        out.append({"id": f"poolside_v1/{cid}", "tool": "poolside_v1", "reasoning": None,
                    "tools": _PS_TOOLS, "text": "<tool_call>test_types\n"
                    + "\n".join(kv.format(k, v) for k, v in pairs) + "\n</tool_call>"})
    out.append({"id": "poolside_v1/unknown_tool_typed", "tool": "poolside_v1", "reasoning": None,
                "tools": _PS_TOOLS, "text": "<tool_call>nope\n" + kv.format("a", " 1 ") + "</tool_call>"})
    for cid, text in (("name_newline_garbage", "Sure.<tool_call>get_weather\n</tol_call>more"),
                      ("name_spaces", "<tool_call>  get_time  </tool_call>"),
                      ("name_angle", "<tool_call>get<x>time</tool_call>"),
                      ("cut_name", "Hi <tool_call>get_wea"),
                      ("empty", "<tool_call></tool_call>")):
        out.append({"id": f"poolside_v1/{cid}", "tool": "poolside_v1", "reasoning": None,
                    "tools": _PS_TOOLS, "text": text})
    out.append({"id": "poolside_v1/text_between", "tool": "poolside_v1", "reasoning": None,
                "tools": _PS_TOOLS, "text": "<tool_call>get_time</tool_call> and then "
                "<tool_call>get_time</tool_call>"})
    one = ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
           "</tool_call>")
    for cid, text, kwargs in (
            ("off_default", "<think>hm</think>answer", None),
            ("on_thinking", "<think>hm</think>answer", {"thinking": True}),
            ("on_enable", "hm</think>\n\nanswer", {"enable_thinking": True}),
            ("on_unclosed", "<think>hm", {"thinking": True}),
            ("on_call", "<think>hm</think>\n" + one, {"thinking": True}),
            ("on_plain", "just text", {"thinking": True})):
        case = {"id": f"poolside_v1+poolside_v1/{cid}", "tool": "poolside_v1",
                "reasoning": "poolside_v1", "tools": _PS_TOOLS, "text": text}
        if kwargs:
            case["kwargs"] = kwargs
        out.append(case)
        out.append(dict(case, id=f"poolside_v1/reasoning_{cid}", tool=None, tools=[]))
    return out


def _lfm2_apertus() -> list[dict]:
    """vLLM 0.33's lfm2 and apertus tool parsers (shapes of vLLM's test_lfm2_tool_parser.py and
    test_apertus_tool_parser.py) and ours."""
    ls, le = "<|tool_call_start|>", "<|tool_call_end|>"
    w = 'get_current_weather(city="Paris", state="FR", unit="celsius")'
    lfm = {
        "no_call": "The weather is sunny.",
        "single": f"{ls}[{w}]{le}",
        "text_before": f"Let me check. {ls}[{w}]{le}",
        "text_after": f"{ls}[{w}]{le}The weather in Paris is sunny.",
        "text_around": f"Sure. {ls}[{w}]{le} Done.",
        "parallel": f'{ls}[{w}, calculate_area(shape="square", dimensions={{"side": 2}}, precision=3)]{le}',
        "literals": f"{ls}[test_types(bool_param=True, anyof_int=None, arr_param=[1, 2.5, 'x'], "
                    f"obj_param={{'a': False}}, str_param='it\\'s')]{le}",
        "no_args": f"{ls}[get_time()]{le}",
        "no_end": f"{ls}[{w}]",
        "truncated": f"{ls}[{w[:30]}",
        "not_a_list": f"{ls}get_time(){le}",
        "unicode": f'{ls}[get_current_weather(city="東京 é")]{le}',
        "newline_after": f"{ls}[{w}]{le}\n",
        "space_after_start": f"Sure.\n{ls} [get_time()]{le}",
        "echo": f"{ls}[get_time()]{le} [get_time()]{le} Done.",
        "second_block": f"{ls}[get_time()]{le}{ls}[{w}]{le}",
        "bad_value": f"{ls}[get_time(x=Truue)]{le}",
    }
    out = [{"id": f"lfm2/{cid}", "tool": "lfm2", "reasoning": None, "tools": TOOLS, "text": text}
           for cid, text in lfm.items()]
    ap, ae = "<|tools_prefix|>", "<|tools_suffix|>"
    a1 = '{"get_current_weather": {"city": "Paris", "unit": "celsius"}}'
    a2 = '{"calculate_area": {"shape": "S\\u00e3o", "dimensions": {"w": 1.50}, "precision": 2}}'
    apt = {
        "no_call": "Hello there.",
        "single": f"{ap}[{a1}]{ae}",
        "text_before": f"I will check. {ap}[{a1}]{ae}",
        "text_after": f"{ap}[{a1}]{ae} Done.",
        "parallel": f"{ap}[{a1}, {a2}]{ae}",
        "compact": f'{ap}[{{"get_current_weather":{{"city":"Paris"}}}}]{ae}',
        "spaces": f'{ap} [ {{ "get_current_weather" : {{"city": "Paris"}} }} ]{ae}',
        "empty_args": f'{ap}[{{"get_time": {{}}}}]{ae}',
        "no_suffix": f"{ap}[{a1}]",
        "truncated": f"{ap}[{a1[:40]}",
        "extra_key": f'{ap}[{{"get_current_weather": {{"city": "Paris"}}, "x": 1}}]{ae}',
        "unicode": f'{ap}[{{"get_current_weather": {{"city": "東京"}}}}]{ae}',
    }
    out += [{"id": f"apertus/{cid}", "tool": "apertus", "reasoning": None, "tools": TOOLS,
             "text": text} for cid, text in apt.items()]
    return out


_PL = {k: f"<|plamo:{k}:plamo|>" for k in (
    "begin_tool_requests", "end_tool_requests", "begin_tool_request", "end_tool_request",
    "begin_tool_name", "end_tool_name", "end_tool_arguments", "begin_think", "end_think")}
_PL_ARGS = "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"


def _plamo3() -> list[dict]:
    """vLLM 0.33's plamo3 tool and reasoning parsers (shapes of vLLM's
    test_plamo3_tool_parser.py / reasoning tests) and ours."""
    def req(name, args):
        return (_PL["begin_tool_request"] + _PL["begin_tool_name"] + name + _PL["end_tool_name"]
                + _PL_ARGS + args + _PL["end_tool_arguments"] + _PL["end_tool_request"])

    def sect(*reqs, sep=""):
        return _PL["begin_tool_requests"] + sep.join(reqs) + _PL["end_tool_requests"]
    w = req("get_current_weather", '{"city": "Tokyo", "unit": "celsius"}')
    texts = {
        "no_call": "Hello, how can I help?",
        "single": sect(w),
        "text_before": "Let me check. " + sect(w),
        "text_after": sect(w) + " Done.",
        "parallel": sect(w, req("calculate_area", '{"shape": "S\\u00e3o", "precision": 2.50}')),
        "newlines": sect(w, w, sep="\n"),
        "spaced_args": sect(req("get_time", '\n  {"a": [1, 2]}  \n')),
        "empty_args": sect(req("get_time", "")),
        "no_section_end": _PL["begin_tool_requests"] + w,
        "truncated_args": sect(w)[:150],
        "cut_name": "Hi " + _PL["begin_tool_requests"] + _PL["begin_tool_request"]
                    + _PL["begin_tool_name"] + "get_cur",
        "cut_end_args": sect(w)[: sect(w).index(_PL["end_tool_arguments"]) + 20],
        "unicode": sect(req("get_current_weather", '{"city": "東京"}')),
        "text_in_section": _PL["begin_tool_requests"] + "junk" + w + _PL["end_tool_requests"],
    }
    out = [{"id": f"plamo3/{cid}", "tool": "plamo3", "reasoning": None, "tools": TOOLS,
            "text": text} for cid, text in texts.items()]
    bt, et = _PL["begin_think"], _PL["end_think"]
    for cid, text, kwargs in (
            ("block", f"{bt}hm{et}answer", None),
            ("no_start", f"hm{et}answer", None),
            ("unclosed", f"{bt}hm", None),
            ("plain", "just text", None),
            ("call", f"hm{et}\n" + sect(w), None),
            ("call_in_block", "hm\n" + sect(w), None),
            ("repeated", f"{bt}a{bt}b{et}c{et}d", None),
            ("trailing_ws", f"hm  \n{et}answer", None),
            ("off", f"{bt}hm{et}answer", {"enable_thinking": False})):
        case = {"id": f"plamo3+plamo3/{cid}", "tool": "plamo3", "reasoning": "plamo3",
                "tools": TOOLS, "text": text}
        if kwargs:
            case["kwargs"] = kwargs
        out.append(case)
        out.append(dict(case, id=f"plamo3/reasoning_{cid}", tool=None, tools=[]))
    return out


def _gigachat3() -> list[dict]:
    """vLLM 0.33's gigachat3 tool parser (shapes of vLLM's test_gigachat3_tool_parser.py) and
    ours."""
    call = '{"name": "get_current_weather", "arguments": {"city": "Moscow", "unit": "celsius"}}'
    ms, role = "<|message_sep|>", "function call<|role_sep|>\n"
    texts = {
        "no_call": "Привет! Чем могу помочь?",
        "single": f"{ms}\n\n{role}{call}",
        "text_before": f"Сейчас проверю.{ms}\n\n{role}{call}",
        "function_call_token": f"<|function_call|>{call}",
        "compact": f'{ms}{role}{{"name":"get_time","arguments":{{}}}}',
        "unicode": f'{ms}\n\n{role}{{"name": "get_current_weather", "arguments": {{"city": "Москва"}}}}',
        "nested": f'{ms}\n\n{role}{{"name": "calculate_area", "arguments": {{"shape": "rect", '
                  f'"dimensions": {{"w": 2, "h": [1.5, 2]}}, "precision": 2}}}}',
        "no_arguments": f'{ms}\n\n{role}{{"name": "get_time"}}',
        "string_arguments": f'{ms}\n\n{role}{{"name": "get_time", "arguments": "{{}}"}}',
        "message_sep_only": "Hello there.<|message_sep|>",
        "text_after": f"{ms}\n\n{role}{call} Done.",
        "truncated": f"{ms}\n\n{role}{call[:50]}",
        "bad_json": f"{ms}\n\n{role}{{\"name\": \"get_time\", \"arguments\": {{x}}}}",
    }
    return [{"id": f"gigachat3/{cid}", "tool": "gigachat3", "reasoning": None, "tools": TOOLS,
             "text": text} for cid, text in texts.items()]


_DOTS_TOOLS = [*TOOLS, NOARG, {"type": "function", "function": {"name": "search", "parameters": {
    "type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"},
                                     "ratio": {"type": "number"}, "flag": {"type": "boolean"},
                                     "tags": {"type": "array"},
                                     "opt": {"anyOf": [{"type": "null"}, {"type": "integer"}]}}}}}]


def _dots() -> list[dict]:
    """vLLM 0.33's dots tool parser (shapes of vLLM's test_dots_tool_parser.py) and ours."""
    def inv(name, params, q='"'):
        return (f"<invoke name={q}{name}{q}>\n" + "".join(
            f"<parameter name={q}{k}{q}>{v}</parameter>\n" for k, v in params) + "</invoke>\n")

    def blk(*invokes):
        return "<dots_function_call>\n" + "".join(invokes) + "</dots_function_call>"
    s1 = inv("search", [("query", "weather in Shanghai")])
    texts = {
        "no_call": "Plain answer.",
        "single": blk(s1),
        "text_before": "Let me search. " + blk(s1),
        "text_after": blk(s1) + "\nDone.",
        "two_invokes": blk(s1, inv("get_current_weather", [("city", "Paris")])),
        "two_blocks": blk(s1) + "\n" + blk(inv("get_time", [])),
        "typed": blk(inv("search", [("limit", " 5 "), ("ratio", "2.0"), ("flag", "yes"),
                                    ("tags", '["a", 1]'), ("opt", "7"), ("query", "  spaced  ")])),
        "typed_bad": blk(inv("search", [("limit", "five"), ("ratio", "1.5x"), ("flag", "TRUE"),
                                        ("tags", "[oops"), ("query", "NULL")])),
        "number_float": blk(inv("search", [("ratio", "1e-3"), ("flag", "1")])),
        "no_schema_param": blk(inv("search", [("extra", "42")])),
        "unquoted_names": blk(inv("search", [("query", "x")], q="")),
        "single_quotes": blk(inv("search", [("query", "x")], q="'")),
        "unknown_tool": blk(inv("nope", [("a", "1")])),
        "json_body": '<dots_function_call>{"name": "search", "arguments": {"query": "x"}}</dots_function_call>',
        "bare_invoke": s1,
        "truncated": blk(s1)[:60],
        "unicode": blk(inv("search", [("query", "東京 é")])),
    }
    return [{"id": f"dots/{cid}", "tool": "dots", "reasoning": None, "tools": _DOTS_TOOLS,
             "text": text} for cid, text in texts.items()]


def _xlam() -> list[dict]:
    """vLLM 0.33's xlam tool parser (shapes of vLLM's test_xlam_tool_parser.py) and ours."""
    w = '{"name": "get_current_weather", "arguments": {"city": "Paris", "unit": "celsius"}}'
    a = '{"name": "calculate_area", "arguments": {"shape": "S\\u00e3o", "precision": 2.50}}'
    texts = {
        "no_call": "I can help with that.",
        "list": f"[{w}]",
        "list_ws": f"  \n[{w}]",
        "parallel": f"[{w}, {a}]",
        "json_fence": f"I'll check.\n```json\n[{w}]\n```",
        "plain_fence": f"```\n[{w}]\n```\nDone.",
        "tool_call_tag": f"Sure <tool_call>[{w}]</tool_call>",
        "tool_calls_marker": f"[TOOL_CALLS][{w}]",
        "string_args": '[{"name": "get_time", "arguments": "{}"}]',
        "no_arguments": '[{"name": "get_time"}]',
        "code_fence_other": "Here:\n```python\nprint(1)\n```",
        "truncated": f"[{w[:50]}",
        "text_after": f"[{w}] then text",
        "think": f"<think>hm</think>[{w}]",
        "compact": '[{"name":"get_time","arguments":{}}]',
    }
    return [{"id": f"xlam/{cid}", "tool": "xlam", "reasoning": None, "tools": TOOLS, "text": text}
            for cid, text in texts.items()]


def _newparsers4() -> list[dict]:
    """newparsers4's cases, one block (parser_cases is shared by several helpers)."""
    return [*_poolside(), *_lfm2_apertus(), *_plamo3(), *_gigachat3(), *_dots(), *_xlam()]


# -- newparsers5: vLLM 0.33 registry names added in this block (minimax_m3, hy_v4 ...) ----------

def _mm3_reasoning() -> list[dict]:
    """vLLM 0.33's minimax_m3 reasoning parser (shapes of its docstring: ``<mm:think>`` blocks,
    ``thinking_mode: "enabled"`` prefilling the start) and ours."""
    s, e = "<mm:think>", "</mm:think>"
    texts = {
        "block": f"{s}hmm{e}answer",
        "block_ws": f"{s}\nhm\n{e}\n\nanswer",
        "plain": "answer only",
        "text_before": f"before{s}x{e}after",
        "lead_end": f"{e}answer",
        "lead_end_twice": f"{e}{e}x",
        "later_end": f"a{e}b",
        "unclosed": f"{s}unclosed",
        "start_in_block": f"{s}a{s}b{e}c",
        "second_block": f"{s}a{e}b{s}c{e}d",
        "cut_start": f"answer {s[:5]}",
        "cut_end": f"{s}a{e[:4]}",
        "no_start_end": f"reason{e}answer",
        "unicode": f"{s}想一想{e}答案 é",
    }
    out = []
    for kw, tag in (({}, ""), ({"thinking_mode": "enabled"}, "on_")):
        for cid, text in texts.items():
            case = {"id": f"minimax_m3/reasoning_{tag}{cid}", "tool": None, "reasoning": "minimax_m3",
                    "tools": [], "text": text}
            if kw:
                case["kwargs"] = kw
            out.append(case)
    return out


def _hy_v4_reasoning() -> list[dict]:
    """vLLM 0.33's hy_v4 reasoning parser (the start injected by the prompt; thinking unless
    ``reasoning_effort`` is ``no_think``) and ours."""
    texts = {
        "no_start": "hm</think>answer",
        "block": "<think>hm</think>answer",
        "block_ws": "<think>\nhm\n</think>\n\nanswer",
        "unclosed": "still thinking",
        "two_ends": "hm</think>a</think>b",
        "lead_end": "</think>answer",
        "start_in_block": "a<think>b</think>c",
    }
    out = []
    for kw, tag in ((None, ""), ({"reasoning_effort": "no_think"}, "nothink_"),
                    ({"reasoning_effort": "low"}, "low_")):
        for cid, text in texts.items():
            case = {"id": f"hy_v4/reasoning_{tag}{cid}", "tool": None, "reasoning": "hy_v4",
                    "tools": [], "text": text}
            if kw:
                case["kwargs"] = kw
            out.append(case)
    return out


def _hy_v4() -> list[dict]:
    """vLLM 0.33's hy_v4 tool parser (Hy3's cases without <tool_sep>, its markers back to back)
    and ours."""
    def call(name, *args):
        return f"<tool_call>{name}" + "".join(
            f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in args) + "</tool_call>"
    w = call("get_weather", ("city", "Beijing"), ("date", "2026-03-30"))
    typed = call("test_types", ("int_param", "42"), ("float_param", "5.0"), ("bool_param", "True"),
                 ("obj_param", '{"a": 1}'), ("arr_param", "[1, 'x']"), ("num", "7"),
                 ("anyof_int", "null"), ("unknown", "(1, 2)"), ("str_param", " 12 "))
    texts = {
        "zero_arg": f"<tool_calls>{call('get_current_date')}</tool_calls>",
        "single": f"<tool_calls>{w}</tool_calls>",
        "content_before": f"Checking.<tool_calls>{call('get_current_date')}</tool_calls>",
        "multiple": f"<tool_calls>{w}{w.replace('Beijing', 'Hangzhou')}</tool_calls>",
        "plain": "This is a plain response.",
        "typed": f"<tool_calls>{typed}</tool_calls>",
        "unknown_tool": f"<tool_calls>{call('nope', ('x', '1'))}</tool_calls>",
        "name_spaced": f"<tool_calls><tool_call> get_weather \n<arg_key>city</arg_key>"
                       f"<arg_value>Paris</arg_value></tool_call></tool_calls>",
        "key_spaced": f"<tool_calls><tool_call>get_weather<arg_key> city </arg_key>"
                      f"<arg_value>Paris</arg_value></tool_call></tool_calls>",
        "value_markup": f"<tool_calls>{call('get_weather', ('city', 'a <b> & <tool_call> c'))}</tool_calls>",
        "value_newlines": f"<tool_calls>{call('get_weather', ('city', chr(10) + 'São Paulo' + chr(10)))}</tool_calls>",
        "newlines_between": f"<tool_calls>\n{w}\n</tool_calls>",
        "ws_between_tags": "<tool_calls><tool_call>get_weather\n<arg_key>city</arg_key>\n"
                           "<arg_value>Beijing</arg_value>\n</tool_call></tool_calls>",
        "truncated": f"<tool_calls>{w}"[:75],
        "truncated_value": f"<tool_calls>{w}"[:68],
        "text_after": f"<tool_calls>{w}</tool_calls>\nDone.",
        "no_section_end": f"<tool_calls>{w}",
        "cut_name": "Hi <tool_calls><tool_call>get_wea",
        "cut_section": "Hi <tool_calls><tool_ca",
        "bare_call": f"Hi {w}",
        "duplicate_key": f"<tool_calls>{call('get_weather', ('city', 'a'), ('city', 'b'))}</tool_calls>",
    }
    out = [{"id": f"hy_v4/{cid}", "tool": "hy_v4", "reasoning": None, "tools": _HY_TOOLS,
            "text": text} for cid, text in texts.items()]
    for cid, text, kwargs in (
            ("think_call", f"hm</think>\n<tool_calls>{w}</tool_calls>", None),
            ("think_block_call", f"<think>hm</think><tool_calls>{w}</tool_calls>", None),
            ("no_think_call", f"<tool_calls>{w}</tool_calls>", {"reasoning_effort": "no_think"}),
            ("unclosed", f"hm <tool_calls>{w}</tool_calls>", None)):
        case = {"id": f"hy_v4+hy_v4/{cid}", "tool": "hy_v4", "reasoning": "hy_v4",
                "tools": _HY_TOOLS, "text": text}
        if kwargs:
            case["kwargs"] = kwargs
        out.append(case)
    return out


def _newparsers5() -> list[dict]:
    """newparsers5's cases, one block (parser_cases is shared by several helpers)."""
    return [*_mm3_reasoning(), *_hy_v4_reasoning(), *_hy_v4()]


_DS_TIME = {"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {}}}}


# -- parsconf3: divergences fuzz_parsers found in the existing parsers (fixed since) -------------

#: the reasoning formats whose vLLM 0.33 grammar opens the block again at a later start marker
_REOPEN = {"glm45": "glm45", "glm47": "glm47", "ling3": "ling3", "deepseek_v4": "deepseek_v4",
           "deepseek_v41": "deepseek_v41", "mistral": "mistral", "gemma4": "gemma4"}


def _glm_call_reopen() -> list[dict]:
    """GLM's grammar (glm45, glm47, ling3) after a call: ``</tool_call>`` returns it to the
    content, where ``<think>`` opens the block again (vLLM 0.33's batch and stream); a stray
    ``</tool_call>`` there."""
    call = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Rome</arg_value>\n</tool_call>"
    texts = (("call_reopen", f"a</think>{call}<think>b</think>c"),
             ("call_reopen_implicit", f"a{call}<think>b</think>c"),
             ("call_reopen_unclosed", f"a</think>{call}<think>b"),
             ("call_reopen_two_calls", f"a</think>{call}\n{call}<think>b</think>d"),
             ("call_end_stray", "a</think>x</tool_call>y"),
             ("call_end_stray_in_block", "a</tool_call>b</think>c"))
    return [{"id": f"{name}+{name}/glmcall_{cid}", "tool": name, "reasoning": name,
             "tools": [GLM_TOOL], "text": text}
            for name in ("glm45", "glm47", "ling3") for cid, text in texts]


def _parsconf3() -> list[dict]:
    """Cases ``conformance/fuzz_parsers.py`` (seeds 10, 11) found tito differing on."""
    out = []
    for name, tool in _REOPEN.items():
        s, e = {"mistral": ("[THINK]", "[/THINK]"), "gemma4": ("<|channel>", "<channel|>")}.get(
            name, ("<think>", "</think>"))
        texts = (("reopen", f"{s}ok\n\n{e}ans{s}x {e}y"), ("reopen_unclosed", f"{s}a{e}b{s}c"),
                 ("reopen_twice", f"a{e}b\n{s}  c  {e}  d{s}e{e}f  "),
                 ("marker_in_answer", f"{s}Let me think.{e}The answer is 4. about {s} and {e}"))
        for cid, text in texts:
            for t in (None, tool):
                out.append({"id": f"{name}{'+' + t if t else ''}/pc3_{cid}", "tool": t,
                            "reasoning": name, "tools": [GLM_TOOL, NOARG], "text": text})
    # granite4: the text outside the blocks is content verbatim (whitespace between calls too),
    # none when it is only whitespace
    call = '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>'
    for cid, text in (("ws_between", f"Sure.\n\n{call}\n{call}Done."),
                      ("ws_only", f"\n{call}\n{call} \n"), ("ws_before_text", f"\n{call}\n{call}\nb"),
                      ("ws_in_block", f'a <tool_call> \n{{"name": "get_time", "arguments": {{}}}}  \n</tool_call>\n\nb'),
                      ("text_between", f"{call} x {call}  ")):
        out.append({"id": f"granite4/pc3_{cid}", "tool": "granite4", "reasoning": None,
                    "tools": [GLM_TOOL, NOARG], "text": text})
    # granite-20b-fc: arguments as json.dumps writes them (vLLM's batch and stream)
    fc = '<function_call> {"name": "get_weather", "arguments": '
    for cid, args in (("args_spacing", '{"city":"Paris","date":"x"}'),
                      ("args_indent", '{\n  "city": "\\u6771\\u4eac",\n  "date": [1e-05, 2.0, 1.5e10]\n}'),
                      ("args_escapes", '{"city": "tab\\there \\/ \\u00e9", "date": {"k": []}}')):
        out.append({"id": f"granite-20b-fc/pc3_{cid}", "tool": "granite-20b-fc", "reasoning": None,
                    "tools": [GLM_TOOL, NOARG], "text": f"Sure.\n{fc}{args}}} {fc}{{}}}}\n"})
    # kimi_k2: the closing markers (special tokens) end arguments also inside an open string
    k = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 <|tool_call_argument_begin|>"
    for cid, text in (("end_in_string", k + '{"city": [true, {\\u540d": 1}]}<|tool_call_end|><|tool_calls_section_end|>'),
                      ("end_in_string_next", k + '{"city": "a<|tool_call_end|><|tool_call_begin|>functions.get_time:1 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>'),
                      ("section_end_in_string", k + '{"city": "a<|tool_calls_section_end|>')):
        out.append({"id": f"kimi_k2/pc3_{cid}", "tool": "kimi_k2", "reasoning": None,
                    "tools": KIMI_TOOLS, "text": text})
    # deepseek_v3: a broken call in the section is skipped and the next one read (vLLM's findall)
    c, e = f"{_VC}function{_VS}", f"\n```{_VCE}"
    for cid, bad in (("broken_sep", f"{_VC}function<｜tool▁sepp｜>get_weather\n```json\n{{}}{e}"),
                     ("broken_sep_bar", f"{_VC}function<tool▁sep｜>get_weather\n```json\n{{}}{e}"),
                     ("broken_fence", f"{c}get_weather\n```jsn\n{{}}{e}")):
        for tool, reasoning, pre in (("deepseek_v3", None, "x"), ("deepseek_v3", "deepseek_r1", "<think>a</think>x")):
            out.append({"id": f"deepseek_v3{'+' + reasoning if reasoning else ''}/pc3_{cid}",
                        "tool": tool, "reasoning": reasoning, "tools": [GLM_TOOL, NOARG],
                        "text": f"{pre}{_VB}{bad}{c}get_time\n```json\n{{}}{e}{_VE}y"})
    return out


CASES: list[dict] = [
    *_qwen("qwen3_coder"),
    *_qwen("qwen3_xml")[:6],
    *_qwen("seed_oss", "<seed:tool_call>", "</seed:tool_call>"),
    *_glm("glm45"),
    *_glm_call_reopen(),
    *_glm("glm47")[:6],
    *_kimi(),
    *_minimax(),
    *_dsml(),
    *_v31(),
    *_reasoning(),
    *_combined(),
    *_nested(),
    *_dsml_wrapper(),
    *_kimi_ids(),
    *_mistral(),
    *_qwen3_reasoning(),
    *_fuzz_found(),
    *_new_formats(),
    *_cut_headers(),
    *_gemma4(),
    *_batch2(),
    *_batch3(),
    *_step3(),
    *_olmo3(),
    *_parsconf3(),
    *_newparsers4(),
    *_newparsers5(),
    *_parser_cases_k3.cases(),  # parsers6b (kimi_k3)
    *_parser_cases_k2h.cases(),  # issue 10 (k2_horizon reasoning)
    *_parser_cases_muse.cases(),  # muse7 (muse = musespark1x)
    *_parser_cases_inkling.cases(),  # inkling10
    *_parser_cases_fuzz9_granite_glm.cases(),  # issue 10: fuzz_parsers seed 9 (granite, glm45, step3, kimi_k2)
    *_parser_cases_fuzz9_deepseek_plamo.cases(),  # issue 10 (fuzz_parsers seed 9)
    *_parser_cases_hunyuan.cases(),  # issue 10 (hunyuan_a13b unclosed blocks)
    *_parser_cases_stray_markup.cases(),  # issue 10: fuzz_parsers seeds 9-14's residue
    *_parser_cases_fuzz_residue.cases(),  # fuzz_parsers' residue after them (session 33)
    *_parser_cases_pylit45.cases(),  # issue 10: the pythonic family's literals (session 45)
    *_parser_cases_fuzz100_plamo_cut.cases(),  # issue 10: fuzz_parsers seed 100 (plamo3 cuts)
    *_parser_cases_fuzz36.cases(),  # issue 10: fuzz_parsers seeds 23, 24, 106+ (session 36)
    *_parser_cases_fuzz31.cases(),  # issue 10: fuzz_parsers seed 31 (session 37)
    *_parser_cases_fuzz37.cases(),  # issue 10: fuzz_parsers seeds 29, 109 (session 37)
    *_parser_cases_fuzz38.cases(),  # issue 10: fuzz_parsers seeds 110, 36+, 114+ (session 38)
    *_parser_cases_fuzz39.cases(),  # issue 10: fuzz_parsers seeds 37+, 114+ (session 39)
    *_parser_cases_fuzz40.cases(),  # issue 10 (session 40)
    *_parser_cases_fuzz42.cases(),  # issue 10 (session 42)
    *_parser_cases_fuzz43.cases(),  # issue 10 (session 43)
    *_parser_cases_fuzz44.cases(),  # issue 10 (session 44)
    *_parser_cases_fuzz45.cases(),  # issue 10 (session 45)
    *_parser_cases_fuzz48.cases(),  # issue 10 (session 48)
    *_parser_cases_fuzz49.cases(),  # issue 10 (session 49)
    *_parser_cases_fuzz50.cases(),  # issue 10 (session 50)
    *_parser_cases_hpar50.cases(),  # issue 10 (session 50: DSML keys)
    *_parser_cases_fuzz51.cases(),  # issue 10 (session 51)
    *_parser_cases_hpar51.cases(),  # issue 10 (session 51: holds after spelt openers)
    *_parser_cases_hpar52.cases(),  # issue 10 (session 52: whitespace before closers)
    *_parser_cases_lead52.cases(),  # issue 10 (session 52: a string open at </tool_calls>)
    *_parser_cases_muse46.cases(),  # issue 10: muse's quoted names (session 46)
    *_parser_cases_pylit46.cases(),  # issue 10: a sign over parentheses (session 46)
    *_parser_cases_pylit48.cases(),  # issue 10: comments between calls (session 48)
    *_parser_cases_pylit49.cases(),  # issue 10: comments in a later header (session 49)
]

#: render's ``reasoning_ended`` (vLLM: the reasoning parser's ``is_reasoning_end`` on the prompt
#: ids) for the reasoning parsers newparsers added: (reasoning parser, template kwargs, prompt)
_TURN = "<|im_start|>assistant\n"
ENDED_CASES: list[tuple[str, dict, str]] = [
    *(("gemma4", {}, p) for p in ("<|turn>model\n", "<|turn>model\n<|channel>",
                                  "<|turn>model\n<|channel>x<channel|>")),
    *((name, kw, p) for name in ("ernie45", "granite_thinking_parser", "hy_v3", "step3")
      for kw in ({}, {"enable_thinking": False}, {"reasoning_effort": "high"})
      for p in (_TURN, _TURN + "<think>\n", _TURN + "<think>\n\n</think>\n\n")),
    # newparsers4
    *(("plamo3", kw, p) for kw in ({}, {"enable_thinking": False})
      for p in (_TURN, _TURN + "<|plamo:begin_think:plamo|>",
                _TURN + "<|plamo:begin_think:plamo|>x<|plamo:end_think:plamo|>",
                # a marker more than 64 ids before the prompt's end (vLLM scans back to the
                # turn's <|plamo:tag|>, however far)
                _TURN + "<|plamo:begin_think:plamo|>x<|plamo:end_think:plamo|>"
                + "answer words " * 40,
                _TURN + "<|plamo:begin_think:plamo|>" + "long reasoning text " * 40,
                _TURN + "<|plamo:begin_think:plamo|>x<|plamo:end_think:plamo|>y<|plamo:tag|>"
                + "question " * 60 + "<|plamo:tag|>assistant\n",
                _TURN + "<|plamo:tag|>assistant\n<|plamo:begin_think:plamo|>x"
                + "<|plamo:end_think:plamo|>" + "answer " * 70,
                "<|plamo:end_think:plamo|>" + "no tag " * 50)),
    *((name, kw, p) for name in ("poolside_v1",)
      for kw in ({}, {"thinking": True}, {"enable_thinking": True})
      for p in ("<assistant>", "<assistant><think>\n", "<assistant><think>\n\n</think>\n\n",
                "</think><assistant>x")),    # newparsers5
    *(("minimax_m3", kw, p) for kw in ({}, {"thinking_mode": "enabled"})
      for p in (_TURN, _TURN + "<mm:think>", _TURN + "<mm:think>x</mm:think>")),
    *(("hy_v4", kw, p) for kw in ({}, {"reasoning_effort": "no_think"})
      for p in (_TURN, _TURN + "<think>", _TURN + "<think>x</think>\n")),
    *(("kimi_k3", kw, p) for kw in ({}, {"thinking": False}, {"enable_thinking": False})
      for p in _parser_cases_k3.ENDED_PROMPTS),  # parsers6b
    *(("k2_horizon", kw, p) for kw in ({}, {"reasoning_effort": "medium"},
                                       {"reasoning_effort": "low"})
      for p in _parser_cases_k2h.ENDED_PROMPTS),  # issue 10
    *((name, {}, p) for name in ("muse", "muse_glimmer")
      for p in _parser_cases_muse.ENDED_PROMPTS),  # muse7, glimmer8
    *((name, {}, p) for name in ("muse", "muse_glimmer")
      for p in _parser_cases_muse.GLIMMER_ENDED_PROMPTS),  # glimmer8
    *(("inkling", {}, p) for p in _parser_cases_inkling.ENDED_PROMPTS),  # inkling10
]

#: markers each format's test tokenizer adds as special tokens to the Qwen3 tokenizer (the ids are
#: not the models'; Qwen3 already has <tool_call>, </tool_call>, <think>, </think> as added tokens)
MARKERS: dict[str, list[str]] = {
    "qwen3_coder": [],
    "qwen3_xml": [],
    "seed_oss": ["<seed:tool_call>", "</seed:tool_call>", "<seed:think>", "</seed:think>"],
    "glm45": ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
    "glm47": ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
    "ling3": ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
    "longcat": ["<longcat_tool_call>", "</longcat_tool_call>"],
    "deepseek_v4": ["<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"],
    "deepseek_v41": ["<｜DSML｜ calls>", "</｜DSML｜ calls>"],
    "kimi_k2": [_KB, _KE, _CB, _CE, _AB],
    "minimax_m2": ["<minimax:tool_call>", "</minimax:tool_call>"],
    "deepseek_v32": [f"<{_D}function_calls>", f"</{_D}function_calls>"],
    "deepseek_v31": [_VB, _VE, _VC, _VS, _VCE],
    "minimax_m2_append_think": [],
    "mistral": ["[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]"],
    # the formats the fuzzer adds (conformance/fuzz_parsers.py): the models' special tokens
    "llama3_json": ["<|python_tag|>"],
    "llama4_json": ["<|python_tag|>"],
    "llama4_pythonic": ["<|python_start|>", "<|python_end|>"],
    "deepseek_v3": [_VB, _VE, _VC, _VS, _VCE],
    "granite": ["<|tool_call|>"],
    # newparsers
    "gemma4": ["<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", '<|"|>', "<|turn>",
               "<|tool_response>"],
    "ernie45": ["<response>", "</response>"],
    "jamba": ["<tool_calls>", "</tool_calls>"],
    "step3": ["<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_call_begin｜>",
              "<｜tool_call_end｜>", "<｜tool_sep｜>"],
    "internlm": ["<|action_start|>", "<|plugin|>", "<|action_end|>"],
    "functiongemma": ["<start_function_call>", "<end_function_call>", "<escape>"],
    # newparsers4
    "lfm2": ["<|tool_call_start|>", "<|tool_call_end|>"],
    "gigachat3": ["<|message_sep|>", "<|role_sep|>", "<|function_call|>"],
    # PLaMo's tokenizer writes its markers in pieces (vLLM's PLAMO_MARKER_TOKENS)
    "plamo3": ["<|plamo:begin_", "<|plamo:end_", ":plamo|>", "<|plamo:tag|>"],
    "apertus": ["<|tools_prefix|>", "<|tools_suffix|>"],
    "poolside_v1": ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<assistant>"],
    "hy_v3": ["<tool_calls>", "</tool_calls>", "<tool_sep>", "<arg_key>", "</arg_key>", "<arg_value>",
              "</arg_value>"],
    # newparsers5 (M3's markers are whole vocabulary entries)
    "minimax_m3": ["<mm:think>", "</mm:think>"],
    "hy_v4": ["<tool_calls>", "</tool_calls>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
    "kimi_k3": _parser_cases_k3.MARKERS,  # parsers6b: XTML markers are three tokens each
    "k2_horizon": _parser_cases_k2h.MARKERS,  # issue 10
    # muse7: Muse's four framing markers (the same for the alias)
    "muse": _parser_cases_muse.MARKERS,
    "musespark1x": _parser_cases_muse.MARKERS,
    "muse_glimmer": _parser_cases_muse.MARKERS,
    "inkling": _parser_cases_inkling.MARKERS,
}


def markers_for(case: dict) -> list[str]:
    out: list[str] = []
    for key in (case["tool"], case["reasoning"]):
        for m in MARKERS.get(key or "", []):
            if m not in out:
                out.append(m)
    return out
