"""muse7's parser cases: vLLM 0.33's ``muse`` (= ``musespark1x``) and ``muse_glimmer`` parsers.

A module of its own (``parser_cases.CASES`` includes it) because parser_cases is shared by
several helpers. Shapes from vLLM's own docstrings (``muse_tool_parser.py``,
``muse_reasoning_parser.py``) and the cases ``docs/conformance.md`` cites
(``conformance/probe_unported.py``); expected outputs are recorded from vLLM's classes.
"""

from __future__ import annotations

#: Muse's framing markers (vLLM's ``muse_tool_parser._STRUCTURAL_MARKERS``), special tokens of
#: the test tokenizer (as in Muse's vocabulary)
MARKERS = ["<|start|>", "<|message|>", "<|eom|>", "<|eot|>"]

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "run", "parameters": {
        "type": "object", "properties": {"code": {"type": "string"}, "opts": {"type": "object"}}}}},
]

A = "<|start|>assistant"


def invoke(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in params)
    return f'<atem:invoke name="{name}">\n{body}</atem:invoke>\n'


def calls(*invokes: str) -> str:
    return "<atem:function_calls>\n" + "".join(invokes) + "</atem:function_calls>"


def _inv(n: str) -> str:
    return calls(invoke("get_weather", ("city", "Paris"), ("n", n)))


def texts() -> dict[str, str]:
    w = _inv("3")
    return {
        # the cases docs/conformance.md cites (conformance/probe_unported.py)
        "call": f" to=self<|message|>think<|eom|>{A} to=get_weather<|message|>{w}<|eom|>",
        "answer": f" to=self<|message|>a<|eom|>{A} to=user<|message|>hello<|eot|>",
        "two_blocks": f" to=self<|message|>a<|eom|>{A} to=self<|message|>b<|eom|>"
                      f"{A} to=user<|message|>x<|eom|>{A} to=user<|message|>y<|eot|>",
        "plain": "hello there",
        "plain_then_header": "hello to=self<|message|>r<|eom|>",
        "bare_header": "<|message|>bare<|eot|>",
        "repeated_key": " to=get_weather<|message|>"
                        + _inv('1</atem:parameter><atem:parameter name="city">Rome') + "<|eom|>",
        "value_not_json": " to=get_weather<|message|>" + _inv('{"x":1} y') + "<|eom|>",
        "value_json": " to=get_weather<|message|>" + _inv('{"x":1,"x":2}') + "<|eom|>",
        "invoke_in_reasoning": f" to=self<|message|>{w}<|eom|>",
        "no_header": w,
        "cut_in_invoke": " to=get_weather<|message|>" + w[:70],
        "user_role": f"<|start|>user<|message|>q<|eot|> to=get_weather<|message|>{w}<|eom|>",
        "reasoning_after_call": f" to=get_weather<|message|>{w}<|eom|>"
                                f"{A} to=self<|message|>more<|eom|>{A} to=user<|message|>done<|eot|>",
        # ours
        "commentary": f" to=self<|message|>plan<|eom|>{A} to=commentary<|message|>Checking."
                      f"<|eom|>{A} to=get_weather<|message|>{w}<|eom|>",
        "developer": f" to=developer<|message|>hidden<|eom|>{A} to=user<|message|>shown<|eot|>",
        "two_calls": " to=get_weather<|message|>" + calls(
            invoke("get_weather", ("city", "Paris")),
            invoke("run", ("code", 'print("a < b & c")\n'), ("opts", '{"a": [1, 2]}'))) + "<|eom|>",
        "two_channels": f" to=get_weather<|message|>{w}<|eom|>{A} to=run<|message|>"
                        + calls(invoke("run", ("code", "1 + 1"))) + "<|eom|>",
        "doubled_name": " to=get_weather<|message|>" + calls(
            invoke("get_weather.get_weather", ("city", "Oslo"))) + "<|eom|>",
        "unknown_name": " to=nope<|message|>" + calls(invoke("nope.nope", ("x", "1"))) + "<|eom|>",
        "string_number": " to=get_weather<|message|>" + calls(
            invoke("get_weather", ("city", "42"), ("n", " 7 "))) + "<|eom|>",
        "typed_values": " to=run<|message|>" + calls(invoke(
            "run", ("opts", '{ "k" : [1, 2.50, true, null] }'), ("x", "null"), ("y", "1e2"),
            ("z", "[1, 'x']"))) + "<|eom|>",
        "zero_args": " to=get_weather<|message|>" + calls(invoke("get_weather")) + "<|eom|>",
        "unicode": f" to=self<|message|>想一想 é<|eom|>{A} to=get_weather<|message|>"
                   + calls(invoke("get_weather", ("city", "東京 é"))) + f"<|eom|>{A} to=user"
                   "<|message|>Météo 東京<|eot|>",
        "no_eom_before_header": f" to=self<|message|>thinking to=get_weather<|message|>{w}<|eom|>",
        "unclosed_reasoning": " to=self<|message|>still thinking",
        "answer_unclosed": f" to=self<|message|>a<|eom|>{A} to=user<|message|>partial",
        "tool_channel_no_atem": f" to=get_weather<|message|>just text<|eom|>{A} to=user"
                                "<|message|>ok<|eot|>",
        "invoke_in_answer": f" to=user<|message|>see {w}<|eot|>",
        "call_then_answer": f" to=get_weather<|message|>{w}<|eom|>{A} to=user<|message|>"
                            "It is sunny.<|eot|>",
        "value_multiline": " to=run<|message|>" + calls(invoke(
            "run", ("code", "\nline1\n\nline2\n"))) + "<|eom|>",
    }


#: prompts for render's ``reasoning_ended`` (vLLM: a tool channel with ATEM in the current turn)
_SYS = "<|start|>system<|message|>Tools: <atem:function_calls> example<|eot|>"
ENDED_PROMPTS = [
    f"{_SYS}<|start|>user<|message|>q<|eot|>{A}",
    f"{_SYS}<|start|>user<|message|>q<|eot|>{A} to=get_weather<|message|>{_inv('3')}<|eom|>"
    f"<|start|>tool<|message|>sunny<|eot|>{A}",
    f"<|start|>user<|message|>q<|eot|>{A} to=get_weather<|message|>{_inv('3')}<|eom|>{A}",
    f"<|start|>user<|message|>q<|eot|>{A} to=self<|message|>{_inv('3')}<|eom|>{A}",
    f"{A} to=get_weather<|message|>{_inv('3')}<|eom|>{A}",
]
#: glimmer8: prompts that do not end with ``<|start|>assistant`` (a continued final message):
#: Glimmer's ``is_reasoning_end`` reads only the text after the last one, reasoning stripped
GLIMMER_ENDED_PROMPTS = [
    f"<|start|>user<|message|>q<|eot|>{A} to=get_weather<|message|>{_inv('3')}",
    f"<|start|>user<|message|>q<|eot|>{A} to=self<|message|>{_inv('3')}<|eom|>",
    f"<|start|>user<|message|>q<|eot|>{A} to=self<|message|>{_inv('3')}",
    f"{A} to=self<|message|>think to=get_weather<|message|>{_inv('3')}",
    f"{A} to=commentary<|message|>{_inv('3')}<|eom|>",
    f"{A} to=developer<|message|>{_inv('3')}<|eom|>",
    f"{A} to=user<|message|>x<|eom|> to=get_weather<|message|>{_inv('3')}",
    f"{A} to=get_weather<|message|>plain text<|eom|>",
    f"{A}<|message|>{_inv('3')}<|eom|>",
    f"{A} to=get_weather<|message|>{_inv('3')}<|eom|>{A} to=self<|message|>more<|eom|>",
]


def cases() -> list[dict]:
    out = []
    for tool, reasoning, prefix in (
            ("muse", "muse", "muse+muse/"), ("muse", None, "muse/"), (None, "muse", "muse/reasoning_"),
            ("muse_glimmer", "muse_glimmer", "muse_glimmer+muse_glimmer/"),
            ("muse_glimmer", None, "muse_glimmer/"), (None, "muse_glimmer", "muse_glimmer/reasoning_")):
        for cid, text in texts().items():
            out.append({"id": f"{prefix}{cid}", "tool": tool, "reasoning": reasoning,
                        "tools": TOOLS if tool else [], "text": text})
    for cid in ("call", "answer"):  # the alias
        out.append({"id": f"musespark1x+musespark1x/{cid}", "tool": "musespark1x",
                    "reasoning": "musespark1x", "tools": TOOLS, "text": texts()[cid]})
    return out
