"""parsers6b's parser cases: vLLM 0.33's kimi_k3 tool and reasoning parsers (XTML channels).

A module of its own (``parser_cases.CASES`` includes it) because parser_cases is shared by
several helpers. Shapes from vLLM's own docstrings (``kimi_k3_tool_parser.py``,
``kimi_k3_reasoning_parser.py``) and ours; expected outputs are recorded from vLLM's classes.
"""

from __future__ import annotations

O, C, S = "<|open|>", "<|close|>", "<|sep|>"
#: the markers' pieces, special tokens of the test tokenizer (as Kimi K3's vocabulary has them)
MARKERS = [O, C, S]

_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"]}}}
_RUN = {"type": "function", "function": {"name": "run", "parameters": {
    "type": "object", "properties": {"code": {"type": "string"}, "opts": {"type": "object"}}}}}
TOOLS = [_WEATHER, _RUN]


def arg(key: str, value: str, typ: str | None = "string") -> str:
    t = f' type="{typ}"' if typ is not None else ""
    return f'{O}argument key="{key}"{t}{S}{value}{C}argument{S}'


def call(name: str, *args: str, index: int = 1) -> str:
    return f'{O}call tool="{name}" index="{index}"{S}' + "".join(args) + f"{C}call{S}"


def tools(*calls: str) -> str:
    return f"{O}tools{S}" + "".join(calls) + f"{C}tools{S}"


def resp(text: str) -> str:
    return f"{O}response{S}{text}{C}response{S}"


MSG = f"{C}message{S}"
THINK, THINK_END = f"{O}think{S}", f"{C}think{S}"


#: prompts for render's ``reasoning_ended`` (vLLM: the newest think marker of the whole prompt)
ENDED_PROMPTS = [
    "<|im_start|>assistant\n",
    f"<|im_start|>assistant\n{THINK}",
    f"<|im_start|>assistant\n{THINK}x{THINK_END}" + resp("y"),
    f"<|im_start|>assistant\n{THINK}x{THINK_END}" + resp("y") + f"<|im_start|>user\nq<|im_start|>assistant\n{THINK}",
    f"<|im_start|>assistant\n{THINK}x{THINK_END}" + resp("y") + f"<|im_start|>user\nq<|im_start|>assistant\n" + f"{O}response{S}",
    f"<|im_start|>assistant\n{O}response{S}",
    # issue 10: a marker more than 64 ids before the prompt's end (vLLM scans the whole prompt)
    f"<|im_start|>assistant\n{THINK}" + "long reasoning text " * 40,
    f"<|im_start|>assistant\n{THINK}x{THINK_END}" + "answer words " * 40,
    f"<|im_start|>assistant\n{THINK}x{THINK_END}" + resp("y") + "<|im_start|>user\n"
    + "question " * 60 + "<|im_start|>assistant\n",
    f"<|im_start|>assistant\n{THINK}x{THINK_END}" + "<|im_start|>user\nq<|im_start|>assistant\n"
    + f"{THINK}" + "thought " * 70,
]


def _tool_texts() -> dict[str, str]:
    w = call("get_weather", arg("city", "Paris"), arg("days", "3", "number"))
    r = call("run", arg("code", 'print("a < b & c")\n'), arg("opts", '{"a": [1, 2], "b": null}', "object"),
             index=2)
    return {
        "plain": resp("Hello there.") + MSG,
        "plain_no_open": f"Hello there.{C}response{S}{MSG}",
        "plain_bare": "Just text.",
        "single": resp("Let me check.") + tools(w) + MSG,
        "no_open_call": f"Checking.{C}response{S}" + tools(w) + MSG,
        "two_calls": resp("") + tools(w, r) + MSG,
        "typed": tools(call("run", arg("n", "42", "number"), arg("f", "true", "boolean"),
                            arg("z", "null", "null"), arg("l", "[1, 'x']", "array"),
                            arg("o", '{ "k" : 1 }', "object"), arg("s", " 12 "))),
        "bad_json": tools(call("run", arg("opts", "{not json", "object"))),
        "no_type": tools(call("run", arg("code", "1 + 1", None))),
        "escaped_attrs": tools(call("a&amp;b&quot;c", arg("k&quot;q", "v"))),
        "no_tool_attr": resp("x") + tools(f'{O}call index="1"{S}{arg("a", "b")}{C}call{S}', w),
        "zero_args": tools(call("get_weather")),
        "unicode": resp("Météo 東京") + tools(call("get_weather", arg("city", "東京 é"))),
        "value_newlines": tools(call("run", arg("code", "\nline1\n\nline2\n"))),
        "value_lt": tools(call("run", arg("code", "a <b> <| c"))),
        "unclosed_call": resp("Hi") + f"{O}tools{S}" + w[:-len(f"{C}call{S}")],
        "cut_header": resp("Hi") + f'{O}tools{S}{O}call tool="get_wea',
        "cut_value": resp("Hi") + f"{O}tools{S}" + w[:70],
        "no_tools_end": resp("Hi") + f"{O}tools{S}" + w,
        "ws_between": resp("Hi") + f"{O}tools{S}\n{w}\n{r}\n{C}tools{S}",
        "duplicate_key": tools(call("get_weather", arg("city", "a"), arg("city", "b"))),
        "empty_section": resp("Hi") + tools() + MSG,
        "call_outside": f"Hi {w}",
        "callx": tools(f'{O}callx tool="a"{S}{C}call{S}', w),
        "response_twice": resp("a") + resp("b"),
        "text_after_message": resp("a") + MSG + "tail",
    }


def _reasoning_texts() -> dict[str, str]:
    return {
        "block": f"{THINK}hm{THINK_END}" + resp("answer") + MSG,
        "no_open": f"hm{THINK_END}" + resp("answer") + MSG,
        "unclosed": f"{THINK}still thinking",
        "no_markers": "still thinking",
        "response_only": resp("answer") + MSG,
        "no_open_bare": f"hm{THINK_END}answer",
        "ws": f"{THINK}\nhm\n{THINK_END}\n" + resp("\nanswer\n") + MSG,
        "cut_end": f"{THINK}hm{C}thi",
        "two_ends": f"hm{THINK_END}a{THINK_END}b",
        "think_in_block": f"{THINK}a{THINK}b{THINK_END}c",
        "unicode": f"{THINK}想一想{THINK_END}" + resp("答案 é"),
    }


def cases() -> list[dict]:
    out = [{"id": f"kimi_k3/{cid}", "tool": "kimi_k3", "reasoning": None, "tools": TOOLS,
            "text": text} for cid, text in _tool_texts().items()]
    for kw, tag in ((None, ""), ({"thinking": False}, "off_"), ({"enable_thinking": False}, "eoff_"),
                    ({"thinking": True, "enable_thinking": False}, "ton_")):
        for cid, text in _reasoning_texts().items():
            case = {"id": f"kimi_k3/reasoning_{tag}{cid}", "tool": None, "reasoning": "kimi_k3",
                    "tools": [], "text": text}
            if kw:
                case["kwargs"] = kw
            out.append(case)
    w = call("get_weather", arg("city", "Paris"))
    for cid, text, kw in (
            ("think_call", f"hm{THINK_END}" + resp("Checking.") + tools(w) + MSG, None),
            ("think_block_call", f"{THINK}hm{THINK_END}" + resp("") + tools(w) + MSG, None),
            ("off_call", resp("Sure.") + tools(w) + MSG, {"thinking": False}),
            ("unclosed_think", f"hm {w}", None),
            ("response_first", resp("Hi") + tools(w) + MSG, None)):
        case = {"id": f"kimi_k3+kimi_k3/{cid}", "tool": "kimi_k3", "reasoning": "kimi_k3",
                "tools": TOOLS, "text": text}
        if kw:
            case["kwargs"] = kw
        out.append(case)
    return out
