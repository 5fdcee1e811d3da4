"""The corpus of ``record_structural.py``: the chat and Responses render requests every tool
format is recorded on (required, named, strict and loose tools, typed and nested schemas,
``parallel_tool_calls: false``, auto with every constraint kind), what each constrained model
writes back (derender and stream cases), and the parsers.
"""

from __future__ import annotations

from typing import Any

#: vLLM's --tool-call-parser names of tito's formats (the registry of tito.core.parsers.tools)
PARSERS = ["hermes", "llama3_json", "llama4_json", "kimi_k2", "deepseek_v3", "deepseek_v31",
           "deepseek_v32", "qwen3_coder", "qwen3_xml", "glm45", "glm47", "minimax_m2",
           "mistral", "pythonic", "llama4_pythonic", "granite", "granite-20b-fc",
           "hunyuan_a13b", "seed_oss", "openai", "qwen3_json", "step3p5",
           "ling3", "mimo", "longcat", "deepseek_v4", "deepseek_v41",
           "granite4", "phi4_mini_json",
           # newparsers
           "gemma4", "step5", "ernie45", "hy_v3", "jamba", "internlm", "functiongemma",
           "step3", "olmo3",
           # newparsers4
           "poolside_v1", "lfm2", "apertus", "plamo3", "gigachat3", "dots", "xlam",
           # newparsers5
           "hy_v4",
           # parsers6b
           "kimi_k3"]


def fn(name: str, params: Any = None, strict: bool | None = None) -> dict[str, Any]:
    f: dict[str, Any] = {"name": name, "description": f"the {name} tool"}
    if params is not None:
        f["parameters"] = params
    if strict is not None:
        f["strict"] = strict
    return {"type": "function", "function": f}


_CITY = {"type": "object", "properties": {"city": {"type": "string"},
                                          "unit": {"type": "string", "enum": ["c", "f"]}},
         "required": ["city"]}
_TZ = {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]}
_TYPED = {"type": "object", "properties": {
    "n": {"type": "integer"}, "ok": {"type": "boolean"}, "tags": {"type": "array",
                                                                  "items": {"type": "string"}},
    "maybe": {"type": ["string", "null"]}, "level": {"enum": [1, 2.5, "x"]},
    "any": {}}, "required": ["n"]}
_NESTED = {"type": "object", "properties": {"q": {"type": "string"}},
           "anyOf": [{"required": ["q"]}]}

W, WS = fn("get_weather", _CITY), fn("get_weather", _CITY, True)
T, TS = fn("get_time", _TZ), fn("get_time", _TZ, True)
N, NS = fn("ping", {"type": "object", "properties": {}}), fn("ping", None, True)
G, GS = fn("typed", _TYPED), fn("typed_strict", _TYPED, True)
X = fn("nested", _NESTED)
WF = fn("get_weather", _CITY, False)

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}},
          "required": ["answer"]}
RF_SCHEMA = {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
MSGS = [{"role": "user", "content": "What is the weather in Paris?"}]


def named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


def _chat(tools: list[dict[str, Any]], choice: Any = "absent", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "qwen3", "messages": MSGS, "tools": tools, **extra}
    if choice != "absent":
        body["tool_choice"] = choice
    return body


CHAT: dict[str, dict[str, Any]] = {
    "required_two": _chat([W, T], "required"),
    "required_strict_mixed": _chat([WS, T], "required"),
    "required_all_strict": _chat([WS, TS], "required"),
    "required_strict_false": _chat([WF, T], "required"),
    "required_single": _chat([W, T], "required", parallel_tool_calls=False),
    "required_noparams": _chat([N, W], "required"),
    "required_typed": _chat([G, GS, X], "required"),
    "required_json_schema": _chat([W], "required", response_format=RF_SCHEMA),
    "named": _chat([W, T], named("get_time")),
    "named_strict": _chat([WS, T], named("get_weather")),
    "named_single": _chat([W, T], named("get_weather"), parallel_tool_calls=False),
    "named_noparams_strict": _chat([NS, W], named("ping")),
    "named_typed": _chat([G, W], named("typed")),
    "auto_plain": _chat([W, T], "auto"),
    "auto_strict": _chat([WS, T], "auto"),
    "auto_all_strict": _chat([WS, TS], "auto"),
    "auto_typed_strict": _chat([G, GS], "auto"),
    "auto_single": _chat([W, T], "auto", parallel_tool_calls=False),
    "auto_strict_single": _chat([WS, T], "auto", parallel_tool_calls=False),
    "omitted_choice_strict": _chat([WS, T]),
    "none_strict": _chat([WS], "none"),
    "auto_strict_json_schema": _chat([WS, T], "auto", response_format=RF_SCHEMA),
    "auto_strict_json_object": _chat([WS], "auto", response_format={"type": "json_object"}),
    "auto_plain_json_schema": _chat([W], "auto", response_format=RF_SCHEMA),
    "auto_single_json_schema": _chat([W], "auto", parallel_tool_calls=False,
                                     response_format=RF_SCHEMA),
    "auto_strict_single_json_schema": _chat([WS, T], "auto", parallel_tool_calls=False,
                                            response_format=RF_SCHEMA),
    "auto_strict_regex": _chat([WS], "auto", structured_outputs={"regex": "[a-z]+"}),
    "auto_strict_choice": _chat([WS], "auto", structured_outputs={"choice": ["yes", "no"]}),
    "auto_strict_structural_tag": _chat([WS], "auto", response_format={
        "type": "structural_tag", "format": {"type": "const_string", "value": "ok"}}),
    "auto_strict_legacy_structural_tag": _chat([WS], "auto", response_format={
        "type": "structural_tag", "structures": [
            {"begin": "<a>", "schema": SCHEMA, "end": "</a>"}], "triggers": ["<a>"]}),
}

_R_WEATHER = {"type": "function", "name": "get_weather", "description": "the weather",
              "parameters": _CITY}
_R_TIME = {"type": "function", "name": "get_time", "description": "the time",
           "parameters": _TZ, "strict": True}
R_INPUT = "What is the weather in Paris?"
RESPONSES: dict[str, dict[str, Any]] = {
    "responses_required": {"model": "qwen3", "input": R_INPUT, "tools": [_R_WEATHER, _R_TIME],
                           "tool_choice": "required"},
    "responses_named": {"model": "qwen3", "input": R_INPUT, "tools": [_R_WEATHER, _R_TIME],
                        "tool_choice": {"type": "function", "name": "get_weather"}},
    "responses_auto_strict": {"model": "qwen3", "input": R_INPUT,
                              "tools": [_R_WEATHER, _R_TIME]},
    "responses_auto_strict_json_schema": {
        "model": "qwen3", "input": R_INPUT, "tools": [_R_WEATHER, _R_TIME],
        "text": {"format": {"type": "json_schema", "name": "a", "schema": SCHEMA}}},
    "responses_required_single": {"model": "qwen3", "input": R_INPUT,
                                  "tools": [_R_WEATHER, _R_TIME], "tool_choice": "required",
                                  "parallel_tool_calls": False},
}

#: what a model constrained by each format's tag writes (one call of get_weather), and for the
#: formats without a tag what vLLM's JSON-schema fallback makes it write
JSON_LIST = '[{"name": "get_weather", "parameters": {"city": "Paris"}}]'
OUTPUTS: dict[str, str] = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "llama3_json": '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
               '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
               "<|tool_calls_section_end|>",
    "deepseek_v3": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather"
                   '\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v31": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
                    '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v32": '\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
                    '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
                    "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "qwen3_coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>"
                   "\n</function>\n</tool_call>",
    "glm45": "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
             "</tool_call>",
    "minimax_m2": '\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">'
                  "Paris</parameter>\n</invoke>\n</minimax:tool_call>",
    "openai": "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
              '{"city": "Paris"}<|call|>',
    "mistral": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
}
OUTPUTS.update({"llama4_json": OUTPUTS["llama3_json"], "qwen3_xml": OUTPUTS["qwen3_coder"],
                "qwen3_json": OUTPUTS["hermes"], "step3p5": OUTPUTS["qwen3_coder"],
                "step5": OUTPUTS["qwen3_coder"],
                "longcat": OUTPUTS["hermes"].replace("tool_call>", "longcat_tool_call>"),
                "deepseek_v4": OUTPUTS["deepseek_v32"].replace("function_calls>", "tool_calls>"),
                "deepseek_v41": OUTPUTS["deepseek_v32"].replace("function_calls>", " calls>")
                .replace("｜DSML｜invoke", "｜DSML｜ invoke")
                .replace("｜DSML｜parameter", "｜DSML｜ parameter"),
                "ling3": OUTPUTS["glm45"],
                "mimo": "<tool_call><function=get_weather><parameter=city>Paris</parameter>"
                        "</function></tool_call>",
                "glm47": OUTPUTS["glm45"],
                # newparsers4
                "plamo3": "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
                          "<|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>"
                          "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json"
                          '<|plamo:msg|>{"city": "Paris"}<|plamo:end_tool_arguments:plamo|>'
                          "<|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>",
                # newparsers5 (auto too: vLLM's hy_v4 sends no tag there, the model writes this)
                "hy_v4": "<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>"
                         "Paris</arg_value></tool_call></tool_calls>",
                # parsers6b (the tag's empty response channel, then the tools channel)
                "kimi_k3": "<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|>"
                           '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument '
                           'key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>'
                           "<|close|>call<|sep|><|close|>tools<|sep|>"})
#: derender cases: (chat request of CHAT, output kind): "tagged" = OUTPUTS[parser] (the JSON
#: list for the formats without a tag), "args" = the named function's bare arguments
DERENDER = {"derender_required": ("required_two", "tagged"),
            "derender_named": ("named_strict", "tagged"),
            "derender_named_args": ("named_strict", "args"),
            "derender_required_json_list": ("required_two", "json_list")}

#: what the formats without a tag write for ``auto`` (their own syntax; vLLM sends no tag there)
NATIVE: dict[str, str] = {
    "pythonic": '[get_weather(city="Paris")]',
    "llama4_pythonic": '[get_weather(city="Paris")]',
    "granite": '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "granite-20b-fc": '<function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}',
    "hunyuan_a13b": '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
                    "</tool_calls>",
    "seed_oss": "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>"
                "\n</function>\n</seed:tool_call>",
    "mistral": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    "phi4_mini_json": 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "granite4": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
    "ernie45": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "hy_v3": "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n"
             "<arg_value>Paris</arg_value>\n</tool_call>\n</tool_calls>",
    "jamba": '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
    "internlm": '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": '
                '"Paris"}}<|action_end|>',
    "functiongemma": "<start_function_call>call:get_weather{city:<escape>Paris<escape>}"
                     "<end_function_call>",
    "step3": '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke '
             'name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter>'
             "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    "olmo3": '<function_calls>\nget_weather(city="Paris")\n</function_calls>',
    # newparsers4
    "poolside_v1": "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
                   "</tool_call>",
    "lfm2": '<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>',
    "apertus": '<|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>',
    "gigachat3": '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", '
                 '"arguments": {"city": "Paris"}}',
    "dots": '<dots_function_call>\n<invoke name="get_weather">\n<parameter name="city">Paris'
            "</parameter>\n</invoke>\n</dots_function_call>",
    "xlam": '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    # muse7: a tool channel's ATEM invoke (muse = musespark1x; glimmer8: muse_glimmer's too)
    **dict.fromkeys(("muse", "musespark1x", "muse_glimmer"),
                    ' to=get_weather<|message|><atem:function_calls>\n<atem:invoke '
                    'name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n'
                    "</atem:invoke>\n</atem:function_calls><|eom|>"),
    # inkling10: a JSON tool block
    "inkling": '<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Paris"}}'
               "<|end_message|>",
}
#: formats vLLM reads in their own syntax for required / named too, with no constraint
#: (``supports_required_and_named = False`` and no structural tag)
NATIVE_FORCED = {"gemma4", "poolside_v1", "dots", "muse", "musespark1x", "muse_glimmer",
                 "inkling"}
_MISTRAL_LIST = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
#: streaming derender cases: (chat request of CHAT, call mode); each is sent one id per call
#: and in seeded random chunks (``corpus.chunkings``), vLLM driven as its protocol requires
STREAMS = {"stream_required": ("required_two", "required"),
           "stream_named": ("named_strict", "named"),
           "stream_auto_strict": ("auto_strict", "auto")}


def constrained_text(parser: str, mode: str) -> str:
    """What a model constrained as vLLM 0.33 renders ``mode`` writes (one get_weather call):
    the format's own calls where it has a tag; else what vLLM's fallback schema forces
    (required: the JSON list, named: the bare arguments; mistral: its list) and, for auto,
    the format's own syntax."""
    if parser in OUTPUTS and parser != "mistral":
        return OUTPUTS[parser]
    if mode == "auto" or parser in NATIVE_FORCED:
        return NATIVE[parser]
    if parser == "mistral":
        return _MISTRAL_LIST
    return JSON_LIST if mode == "required" else '{"city": "Paris"}'
