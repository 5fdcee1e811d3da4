"""inkling10's parser cases: vLLM 0.33's ``inkling`` tool and reasoning parsers.

A module of its own (``parser_cases.CASES`` includes it), as Muse's. Shapes from vLLM's own
docstring (``vllm/parser/inkling.py``: typed content blocks, every marker a special token);
expected outputs are recorded from vLLM's classes (``record_parsers.py``), never from tito.
"""

from __future__ import annotations

#: Inkling's markers (vLLM's ``INKLING_SPECIAL_TOKENS``), special tokens of the test tokenizer
MARKERS = ["<|message_model|>", "<|content_text|>", "<|content_thinking|>",
           "<|content_invoke_tool_json|>", "<|content_invoke_tool_text|>",
           "<|content_tool_error|>", "<|content_model_end_sampling|>", "<|end_message|>"]

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "run", "parameters": {
        "type": "object", "properties": {"code": {"type": "string"}, "opts": {"type": "object"}}}}},
]

M, TX, TH = "<|message_model|>", "<|content_text|>", "<|content_thinking|>"
TJ, TT, TE = "<|content_invoke_tool_json|>", "<|content_invoke_tool_text|>", "<|content_tool_error|>"
ES, E = "<|content_model_end_sampling|>", "<|end_message|>"
#: the prompt vLLM's Inkling renderer ends a generation prompt with (the model role opened)
PROMPT = f"{M}{TX}hi{E}{M}"


def call(name: str, args: str) -> str:
    return f'{TJ}{{"name":"{name}","args":{args}}}{E}'


def texts() -> dict[str, str]:
    w = call("get_weather", '{"city":"SF"}')
    return {
        "think_answer": f"{TH}Let me think.{E}{M}{TX}Hello!{E}",
        "answer": f"{TX}Hello there.{E}",
        "answer_end_sampling": f"{TX}Hello there.{ES}",
        "think_call": f"{TH}Need weather.{E}{M}{w}",
        "call_only": w,
        "two_calls": w + M + call("run", '{"code":"print(1)","opts":{"a":[1,2]}}'),
        "call_then_text": f"{TH}t{E}{M}{w}{M}{TX}Done.{E}",
        "text_then_call": f"{TX}Checking.{E}{M}{w}",
        "reasoning_after_call": f"{w}{M}{TH}more{E}{M}{TX}ok{E}",
        "think_twice": f"{TH}a{E}{M}{TH}b{E}{M}{TX}x{E}",
        "header_name": f"{TH}t{E}{M}get_weather{w}",
        "tool_text": f"{TH}t{E}{M}{TT}get_weather(city='SF'){E}",
        "tool_error": f"{TE}bad call{E}{M}{TX}sorry{E}",
        "unclosed_reasoning": f"{TH}still thinking",
        "think_end_sampling": f"{TH}thought{ES}",
        "cut_in_call": f"{TH}t{E}{M}" + w[:40],
        "plain": "just plain text",
        "string_number": call("get_weather", '{"city":"42","n":"7"}'),
        "number_value": call("get_weather", '{"city":"Paris","n":3}'),
        "nested": call("run", '{"code":"x = {\\"a\\": [1, {\\"b\\": null}]}","opts":{"k":[1,2.50,true,null]}}'),
        "unicode": f"{TH}想一想 é{E}{M}" + call("get_weather", '{"city":"東京 é"}') + f"{M}{TX}Météo 東京{E}",
        "no_args": f'{TJ}{{"name":"get_weather"}}{E}',
        "args_string": f'{TJ}{{"name":"run","args":"{{}}"}}{E}',
        "args_first": f'{TJ}{{"args":{{"city":"Rome"}},"name":"get_weather"}}{E}',
        "arguments_key": f'{TJ}{{"name":"get_weather","arguments":{{"city":"Oslo"}}}}{E}',
        "unknown_tool": call("nope", '{"x":1}'),
        "spaces": f'{TH} t {E}{M}{TJ} {{ "name" : "get_weather" , "args" : {{ "city" : "SF" }} }} {E}',
        "ws_text_before_call": f"{TX}  {E}{M}{w}",
        "bad_json": f'{TJ}{{"name":"get_weather","args":{{"city":}}{E}',
        "empty_args": call("get_weather", "{}"),
        "text_no_end": f"{TX}partial answer",
        "thinking_in_text": f"{TX}a{TH}b{E}",
        "end_sampling_after_call": f"{w}{ES}",
        "trailing_ws_reasoning": f"{TH}reason  \n{E}{M}{TX}a{E}",
        "ws_between_thinking": f"{TH}a \n{E}{M}{TX}x{E}{M}{TH}b{E}",
        "ws_think_think": f"{TH}a \n{E}{M}{TH}b{E}",
        "long_header": f"{TH}t{E}{M}" + "h" * 300 + w,
        "header_then_end": f"{TH}t{E}{M}name{E}{M}{TX}x{E}",
        "marker_in_args": call("run", '{"code":"a<|message_model|>b"}'),
        "markers_in_reasoning": f"{TH}a{M}b{TX}c{TT}d{TH}e{E}{M}{TX}x{E}",
        "name_spaces": call(" get_weather ", '{"city":"SF"}'),
        "empty_name": call("", '{"city":"SF"}'),
        "call_in_reasoning": f"{TH}t{w}{M}{TX}x{E}",
        "cut_in_args": f"{TH}t{E}{M}" + w[:-20],
        "cut_after_name": f'{TJ}{{"name":"get_weather",',
        "args_array": f'{TJ}{{"name":"run","args":[1,2]}}{E}',
        "stray_closer": f'{TJ}{{"name":"run"}}}}{{"args":{{"a":1}}}}{E}',
        "args_inner_name": f'{TJ}{{"args":{{"name":"x"}},"name":"run"}}{E}',
        "text_after_args": f'{TJ}{{"name":"run","args":{{"a":1}},"x":2}} trailing{E}',
        "two_args": f'{TJ}{{"name":"run","args":{{"a":1}},"args":{{"b":2}}}}{E}',
        "end_sampling_in_call": f'{TJ}{{"name":"run","args":{{"a":"x{ES}',
        "header_model_model": f"x{M}y{M}{TX}z{E}",
    }


#: render's ``reasoning_ended`` prompts (vLLM: ``InklingParser.is_reasoning_end`` on the ids)
ENDED_PROMPTS = [
    PROMPT,
    f"{M}{TX}hi{E}{M}{TH}",
    f"{M}{TX}hi{E}{M}{TH}x{E}",
    f"{M}{TX}hi{E}{M}{TX}",
    f"{M}{TX}hi{E}{M}{TX}part",
    f"{M}{TX}hi{ES}",
    f"{M}{TX}hi{E}",
    "no markers",
    f"{M}{TH}x{E}{M}{TJ}{{}}{E}",
]


def cases() -> list[dict]:
    out = []
    for tool, reasoning, prefix in (("inkling", "inkling", "inkling+inkling/"),
                                    ("inkling", None, "inkling/"),
                                    (None, "inkling", "inkling/reasoning_")):
        for cid, text in texts().items():
            out.append({"id": f"{prefix}{cid}", "tool": tool, "reasoning": reasoning,
                        "tools": TOOLS if tool else [], "text": text, "prompt": PROMPT})
    return out
