"""Whitespace between a call's arguments JSON and its closers (kimi_k2, plamo3), cut anywhere.

Why: these formats drop that whitespace whatever follows it, but their ``tail`` phase used to
hold it with the closers' prefix up to a bound (64 characters; plamo3 128). A longer run cut by
a chunk ended the call in the stream, so ``<|tool_call_end|>`` (plamo3's end markers) became
content where the batch consumed it (whitespace sweep seed 217, kimi_k2; goldens
``*/hp52_tail_ws_*`` recorded from vLLM 0.33). The run is now consumed as it comes: every
cut gives the batch's answer, and a stream's held text stays a marker's prefix.
"""

from __future__ import annotations

import pytest
from helpers import drive_tools

from tito.core.parsers.tools import make_tool_parser

_A = '{"city": "Paris"}'
_KIMI = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
         f"<|tool_call_argument_begin|>{_A}", "<|tool_call_end|><|tool_calls_section_end|>")
_PLAMO_HEAD = ("<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
               "<|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>"
               f"<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{_A}")
_PLAMO_ARGS_END = "<|plamo:end_tool_arguments:plamo|>"
_PLAMO_END = "<|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>"
_CALL = [("get_weather", _A)]

#: (parser, text before the run, text after it)
_CASES = [
    pytest.param("kimi_k2", *_KIMI, id="kimi_k2-call_end"),
    pytest.param("kimi_k2", _KIMI[0], "<|tool_calls_section_end|>", id="kimi_k2-section_end"),
    pytest.param("plamo3", _PLAMO_HEAD, _PLAMO_ARGS_END + _PLAMO_END, id="plamo3-args_end"),
    pytest.param("plamo3", _PLAMO_HEAD + _PLAMO_ARGS_END, _PLAMO_END, id="plamo3-request_end"),
]


@pytest.mark.parametrize("run", ["\n" * 70, " \t\n" * 67], ids=["newlines", "mixed"])
@pytest.mark.parametrize(("name", "head", "tail"), _CASES)
def test_every_cut_of_the_run_is_the_batch(name: str, head: str, tail: str, run: str) -> None:
    parser = make_tool_parser(name)
    text = head + run + tail
    assert drive_tools(parser, [text]) == ("", _CALL)
    held: list[int] = []
    for k in range(len(head), len(head) + len(run) + 1):
        got = drive_tools(parser, [text[:k], text[k:], ""], watch=lambda s: held.append(len(s.buf)))
        assert got == ("", _CALL), k
    assert max(held) < len(_PLAMO_ARGS_END)  # a marker's prefix at most, never the run
